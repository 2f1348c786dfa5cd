// The collectives prec-generate-backward creates say whose gradient they
// are: their location is the forward op's, named "gradient of <op>", and the
// precision report's remarks, table and JSON say so; a bucketed collective
// gives the locations of all its members.
// RUN: prec-opt %s --prec-generate-backward --mlir-print-debuginfo | FileCheck %s --check-prefix=LOC
// RUN: prec-opt %s --prec-generate-backward --prec-bucket-collectives --prec-error-bounds -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: prec-opt %s --prec-precision-report -o /dev/null | FileCheck %s --check-prefix=TABLE
// RUN: prec-opt %s --prec-precision-report=format=json -o /dev/null | FileCheck %s --check-prefix=JSON

shard.grid @dp(shape = 4)

func.func private @loss(%w1_shard: tensor<4xf32>, %w2_shard: tensor<4xf32>) -> tensor<f32>
    attributes {prec.differentiable} {
  %w1 = prec.all_gather %w1_shard on @dp gather_axis = 0
          forward_dtype = bf16 backward_dtype = f32
          : tensor<4xf32> -> tensor<16xbf16>
  %w2 = prec.all_gather %w2_shard on @dp gather_axis = 0
          forward_dtype = bf16 backward_dtype = f32
          : tensor<4xf32> -> tensor<16xbf16>
  %p = arith.mulf %w1, %w2 : tensor<16xbf16>
  %l = prec.reduce %p dims = [0] : tensor<16xbf16> -> tensor<f32>
  return %l : tensor<f32>
}

func.func @grads(%w1_shard: tensor<4xf32> {prec.name = "w1"}, %w2_shard: tensor<4xf32> {prec.name = "w2"})
    -> (tensor<4xf32>, tensor<4xf32>) {
  %one = arith.constant dense<1.0> : tensor<f32>
  %g:2 = call @loss_backward(%w1_shard, %w2_shard, %one)
      : (tensor<4xf32>, tensor<4xf32>, tensor<f32>) -> (tensor<4xf32>, tensor<4xf32>)
  return %g#0, %g#1 : tensor<4xf32>, tensor<4xf32>
}

// LOC-LABEL: func.func private @loss_backward
// LOC: prec.all_gather {{.*}} loc(#[[GATHER1:loc[0-9]+]])
// LOC: prec.reduce_scatter {{.*}} loc(#[[RS2:loc[0-9]+]])
// LOC: prec.reduce_scatter {{.*}} loc(#[[RS1:loc[0-9]+]])
// LOC-DAG: #[[GATHER1]] = loc("{{.*}}precision-report-gradients.mlir":[[# @LINE - 23]]:9)
// LOC-DAG: #[[RS1]] = loc("gradient of prec.all_gather"(#[[GATHER1]]))
// LOC-DAG: #[[RS2]] = loc("gradient of prec.all_gather"(#{{loc[0-9]+}}))

// The bucketed gradients' reduce_scatter: its remark is at a member's line
// and names both members and whose gradient it is.
// REMARK: precision-report-gradients.mlir:[[# @LINE - 26]]:9: remark: prec.reduce_scatter in @loss_backward (the gradient of the prec.all_gather at precision-report-gradients.mlir:[[# @LINE - 29]]:9,[[# @LINE - 26]]:9): relative error bound 1.788e-07 {{.*}}; moves grad(w1), grad(w2)

// TABLE: @loss_backward (backward of @loss):
// TABLE-NEXT: op
// TABLE-NEXT: all_gather precision-report-gradients.mlir:[[# @LINE - 33]]:9,[[# @LINE - 30]]:9 w1,w2
// TABLE-NEXT: reduce_scatter precision-report-gradients.mlir:[[# @LINE - 34]]:9,[[# @LINE - 31]]:9 (gradient of all_gather) grad(w1),grad(w2)

// JSON:      "op": "prec.reduce_scatter",
// JSON-NEXT: "location": "{{.*}}precision-report-gradients.mlir:[[# @LINE - 34]]:9",
// JSON:      "moves": [
// JSON-NEXT:   "grad(w1)",
// JSON-NEXT:   "grad(w2)"
// JSON-NEXT: ],
// JSON-NEXT: "locations": [
// JSON-NEXT:   "{{.*}}precision-report-gradients.mlir:[[# @LINE - 43]]:9",
// JSON-NEXT:   "{{.*}}precision-report-gradients.mlir:[[# @LINE - 41]]:9"
// JSON-NEXT: ],
// JSON-NEXT: "gradient_of": "prec.all_gather"
