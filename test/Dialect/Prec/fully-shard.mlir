// RUN: prec-opt %s --split-input-file --prec-fully-shard="mesh=4 param-dtype=bf16 reduce-dtype=f32 lr=0.5" | FileCheck %s
// RUN: prec-opt %s --split-input-file --prec-fully-shard="mesh=2x4 optimizer=adamw reshard-after-forward=false token-range=16" | FileCheck %s --check-prefix=HSDP
// The sharded loss's contractions may compute as the loss's do, and so do
// its backward's.
// RUN: sed 's/-> tensor<f32> {$/-> tensor<f32> attributes {prec.reduced_precision = #prec.reduced_precision<tf32>} {/' %s \
// RUN:   | prec-opt --split-input-file --prec-fully-shard="mesh=4" --prec-generate-backward \
// RUN:   | FileCheck %s --check-prefix=REDUCED
// REDUCED: func.func private @loss_sharded({{.*}} attributes {prec.differentiable, prec.reduced_precision = #prec.reduced_precision<tf32>}
// REDUCED: func.func private @loss_sharded_backward({{.*}} attributes {prec.backward_of = @loss_sharded, prec.reduced_precision = #prec.reduced_precision<tf32>}

// Ten rows on four ranks: blocks of three, the last two rows padding.
// CHECK:       shard.grid @fsdp(shape = 4)
// CHECK-LABEL: func.func private @loss_sharded(
// CHECK-SAME:    %[[W:[^:]*]]: tensor<3x8xf32> {prec.name = "fc.weight"}, %[[B:[^:]*]]: tensor<1xf32>, %[[X:[^:]*]]: tensor<4x8xf32> {prec.name = "x", prec.no_grad}
// CHECK-SAME:    attributes {prec.differentiable}
// CHECK:         %[[G:.*]] = prec.all_gather %[[W]] on @fsdp grid_axes = [0] gather_axis = 0 forward_dtype = bf16 backward_dtype = f32 : tensor<3x8xf32> -> tensor<12x8xf32>
// CHECK:         %[[FULL:.*]] = tensor.extract_slice %[[G]][0, 0] [10, 8] [1, 1] : tensor<12x8xf32> to tensor<10x8xf32>
// A parameter of one row is padded to one row per rank.
// CHECK:         %[[GB:.*]] = prec.all_gather %[[B]] on @fsdp grid_axes = [0] gather_axis = 0 forward_dtype = bf16 backward_dtype = f32 : tensor<1xf32> -> tensor<4xf32>
// CHECK:         tensor.extract_slice %[[GB]][0] [1] [1] : tensor<4xf32> to tensor<1xf32>
// CHECK:         linalg.matmul ins(%[[X]], {{.*}}
// CHECK:       func.func private @loss_sharded_backward(tensor<3x8xf32>, tensor<1xf32>, tensor<4x8xf32>, tensor<f32>) -> (tensor<3x8xf32>, tensor<1xf32>)
// CHECK:       func.func private @loss(
// CHECK-LABEL: func.func @train_step(
// CHECK-SAME:    %[[WS:[^:]*]]: tensor<3x8xf32> {prec.name = "fc.weight", prec.shard = {dim = 0 : i64, grid = @fsdp, grid_axes = [0], size = 10 : i64}}
// CHECK-SAME:    %[[BS:[^:]*]]: tensor<1xf32> {prec.name = "arg1", prec.shard = {dim = 0 : i64, grid = @fsdp, grid_axes = [0], size = 1 : i64}}
// CHECK-SAME:    %[[XS:[^:]*]]: tensor<4x8xf32> {prec.name = "x"}
// CHECK-SAME:    %[[LR:[^:]*]]: f32 {prec.default = 5.000000e-01 : f32, prec.name = "lr"}
// CHECK-SAME:    -> (tensor<3x8xf32>, tensor<1xf32>, tensor<f32> {prec.name = "loss"})
// CHECK:         %[[L:.*]] = call @loss_sharded(%[[WS]], %[[BS]], %[[XS]])
// CHECK:         %[[ONE:.*]] = arith.constant dense<1.000000e+00> : tensor<f32>
// CHECK:         %[[GR:.*]]:2 = call @loss_sharded_backward(%[[WS]], %[[BS]], %[[XS]], %[[ONE]])
// CHECK:         prec.sgd %[[WS]], %[[GR]]#0, %[[LR]] : tensor<3x8xf32>, tensor<3x8xf32>
// CHECK:         prec.sgd %[[BS]], %[[GR]]#1, %[[LR]] : tensor<1xf32>, tensor<1xf32>
// CHECK:         prec.all_reduce %[[L]] on @fsdp reduction = <avg> forward_dtype = f32 : tensor<f32> -> tensor<f32>

// HSDP, the parameters gathered once in the step: the last axis shards,
// the first replicates.
// HSDP:       shard.grid @fsdp(shape = 2x4)
// HSDP:       func.func private @loss_backward(tensor<10x8xf32>, tensor<1xf32>, tensor<4x8xf32>, tensor<f32>) -> (tensor<10x8xf32>, tensor<1xf32>)
// HSDP-LABEL: func.func @train_step(
// HSDP-SAME:    %[[WS:[^:]*]]: tensor<3x8xf32> {prec.name = "fc.weight", prec.shard = {dim = 0 : i64, grid = @fsdp, grid_axes = [1], size = 10 : i64}}
// HSDP-SAME:    %[[M:[^:]*]]: tensor<3x8xf32> {prec.default = 0.000000e+00 : f32, prec.name = "exp_avg.fc.weight"
// HSDP-SAME:    %[[V:[^:]*]]: tensor<3x8xf32> {prec.default = 0.000000e+00 : f32, prec.name = "exp_avg_sq.fc.weight"
// HSDP-SAME:    %[[STEP:[^:]*]]: f32 {prec.default = 1.000000e+00 : f32, prec.name = "step"}
// HSDP-SAME:    -> (tensor<3x8xf32>, tensor<1xf32>, tensor<3x8xf32>, tensor<1xf32>, tensor<3x8xf32>, tensor<1xf32>, f32, tensor<f32> {prec.name = "loss"})
// HSDP:         %[[G:.*]] = prec.all_gather %[[WS]] on @fsdp grid_axes = [1] gather_axis = 0 {{.*}}: tensor<3x8xf32> -> tensor<12x8xf32>
// HSDP:         %[[FULL:.*]] = tensor.extract_slice %[[G]][0, 0] [10, 8] [1, 1]
// HSDP:         %[[GR:.*]]:2 = call @loss_backward(%[[FULL]],
// The gradient gets zero rows for the padding, then is reduce-scattered
// over the shard axis and averaged over the replicas.
// HSDP:         %[[PAD:.*]] = tensor.insert_slice %[[GR]]#0 into %{{.*}}[0, 0] [10, 8] [1, 1] : tensor<10x8xf32> into tensor<12x8xf32>
// HSDP:         %[[RS:.*]] = prec.reduce_scatter %[[PAD]] on @fsdp grid_axes = [1] scatter_axis = 0 reduction = <avg> forward_dtype = f32 : tensor<12x8xf32> -> tensor<3x8xf32>
// HSDP:         %[[AR:.*]] = prec.all_reduce %[[RS]] on @fsdp grid_axes = [0] reduction = <avg> forward_dtype = f32 : tensor<3x8xf32> -> tensor<3x8xf32>
// HSDP:         prec.adamw %[[WS]], %[[AR]], %[[M]], %[[V]], %{{.*}}, %[[STEP]] : tensor<3x8xf32>, tensor<3x8xf32>
// HSDP:         arith.addf %[[STEP]], %{{.*}} : f32
func.func @loss(%w: tensor<10x8xf32> {prec.name = "fc.weight"}, %b: tensor<1xf32>,
                %x: tensor<4x8xf32> {prec.name = "x", prec.no_grad}) -> tensor<f32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<4x10xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<4x10xf32>) -> tensor<4x10xf32>
  %wt = tensor.empty() : tensor<8x10xf32>
  %t = linalg.transpose ins(%w : tensor<10x8xf32>) outs(%wt : tensor<8x10xf32>) permutation = [1, 0]
  %y = linalg.matmul ins(%x, %t : tensor<4x8xf32>, tensor<8x10xf32>) outs(%init : tensor<4x10xf32>) -> tensor<4x10xf32>
  %s = prec.reduce %y dims = [0, 1] reduction = <avg> : tensor<4x10xf32> -> tensor<f32>
  %bs = tensor.collapse_shape %b [] : tensor<1xf32> into tensor<f32>
  %l = arith.addf %s, %bs : tensor<f32>
  return %l : tensor<f32>
}

// -----

// Integer inputs are batch, with a range when token-range is given and
// their type holds it: not on an i1 mask, nor on an i4 (whose values end
// at 8).
// CHECK-LABEL: func.func @train_step(
// CHECK-SAME:    tensor<4xi64> {prec.name = "input0"}
// HSDP-LABEL:  func.func @train_step(
// HSDP-SAME:     tensor<4xi64> {prec.name = "input0", prec.range = [0, 16]}
// HSDP-SAME:     tensor<4xi1> {prec.name = "input1"}
// HSDP-SAME:     tensor<4xi8> {prec.name = "input2", prec.range = [0, 16]}
// HSDP-SAME:     tensor<4xi4> {prec.name = "input3"}
func.func @loss(%table: tensor<16x8xf32>, %ids: tensor<4xi64>, %mask: tensor<4xi1>,
                %small: tensor<4xi8>, %tiny: tensor<4xi4>) -> tensor<f32> {
  %empty = tensor.empty() : tensor<4x8xf32>
  %rows = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>],
                          iterator_types = ["parallel", "parallel"]}
      ins(%ids : tensor<4xi64>) outs(%empty : tensor<4x8xf32>) {
  ^bb0(%id: i64, %out: f32):
    %i = arith.index_cast %id : i64 to index
    %j = linalg.index 1 : index
    %v = tensor.extract %table[%i, %j] : tensor<16x8xf32>
    linalg.yield %v : f32
  } -> tensor<4x8xf32>
  %s = prec.reduce %rows dims = [0, 1] reduction = <sum> : tensor<4x8xf32> -> tensor<f32>
  return %s : tensor<f32>
}
