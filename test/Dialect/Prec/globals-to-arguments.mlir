// RUN: prec-opt %s --prec-globals-to-arguments -split-input-file | FileCheck %s --enable-var-scope
// RUN: prec-opt %s --prec-globals-to-arguments --prec-generate-backward -split-input-file | FileCheck %s --check-prefix=BACKWARD --enable-var-scope

// PyTorch's dropout seed as torch-mlir exports it: loaded, advanced and
// stored. It becomes the last argument, and the stored value the last
// result (named after the global, generated at its initial value); the
// global is erased.
// CHECK-NOT:   ml_program.global
// CHECK-LABEL: func.func @dropout(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<4xf32>, %[[SEED:[^:]*]]: tensor<i64> {prec.default = 0 : i64, prec.name = "global_seed"}) -> (tensor<f32>, tensor<i64>)
// CHECK:         %[[S:.*]] = tensor.extract %[[SEED]][]
// CHECK:         %[[NEXT:.*]] = tensor.insert %{{.*}} into %[[SEED]][]
// CHECK-NOT:     ml_program
// CHECK:         return %{{.*}}, %[[NEXT]] : tensor<f32>, tensor<i64>
// The seed gets no gradient, and the next seed no gradient argument.
// BACKWARD-LABEL: func.func @dropout_backward(
// BACKWARD-SAME:    %{{[^:]*}}: tensor<4xf32>, %{{[^:]*}}: tensor<i64>, %{{[^:]*}}: tensor<f32>) -> tensor<4xf32>
ml_program.global private mutable @global_seed(dense<0> : tensor<i64>) : tensor<i64>
func.func @dropout(%x: tensor<4xf32>) -> tensor<f32> attributes {prec.differentiable} {
  %seed = ml_program.global_load @global_seed : tensor<i64>
  %s = tensor.extract %seed[] : tensor<i64>
  %c1 = arith.constant 6364136223846793005 : i64
  %c2 = arith.constant 1442695040888963407 : i64
  %m = arith.muli %s, %c1 : i64
  %n = arith.addi %m, %c2 : i64
  %next = tensor.insert %n into %seed[] : tensor<i64>
  ml_program.global_store @global_seed = %next : tensor<i64>
  // Keep an element where the seed's low bit is set (a stand-in mask).
  %bit = arith.trunci %n : i64 to i1
  %one = arith.constant 1.0 : f32
  %zero = arith.constant 0.0 : f32
  %keep = arith.select %bit, %one, %zero : f32
  %e = tensor.empty() : tensor<4xf32>
  %k = linalg.fill ins(%keep : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %y = arith.mulf %x, %k : tensor<4xf32>
  %l = prec.reduce %y dims = [0] reduction = <sum> : tensor<4xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// A load after a store reads the stored value; an immutable global stays.
// CHECK:       ml_program.global private @table
// CHECK-LABEL: func.func @twice(
// CHECK-SAME:    %[[SEED:[^:]*]]: tensor<i64> {prec.default = 0 : i64, prec.name = "state"}) -> (tensor<i64>, tensor<i64>)
// CHECK:         %[[T:.*]] = ml_program.global_load_const @table
// CHECK:         %[[A:.*]] = arith.addi %[[SEED]], %[[T]]
// CHECK:         %[[B:.*]] = arith.addi %[[A]], %[[T]]
// CHECK:         return %[[A]], %[[B]]
ml_program.global private @table(dense<3> : tensor<i64>) : tensor<i64>
ml_program.global private mutable @state(dense<0> : tensor<i64>) : tensor<i64>
func.func @twice() -> tensor<i64> {
  %t = ml_program.global_load_const @table : tensor<i64>
  %a0 = ml_program.global_load @state : tensor<i64>
  %a = arith.addi %a0, %t : tensor<i64>
  ml_program.global_store @state = %a : tensor<i64>
  %b0 = ml_program.global_load @state : tensor<i64>
  %b = arith.addi %b0, %t : tensor<i64>
  ml_program.global_store @state = %b : tensor<i64>
  return %a : tensor<i64>
}
