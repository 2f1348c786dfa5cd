// A loss with a mutable global (PyTorch's dropout seed as torch-mlir exports
// it) through prec-from-torch: prec-globals-to-arguments makes the seed an
// argument and a result, and the step takes it right after the parameters
// and returns the next seed at the same position, so that --steps feeds it.
// RUN: prec-opt %s --prec-from-torch="mesh=2" | FileCheck %s
// RUN: prec-opt %s --prec-from-torch="mesh=2" | prec-run - --ranks 2 --steps 3 --print summary | FileCheck %s --check-prefix=STEPS

// CHECK-LABEL: func.func @train_step(
// CHECK-SAME:    %[[W:[^:]*]]: tensor<2xf32> {prec.name = "w", prec.shard = {dim = 0 : i64, grid = @fsdp, grid_axes = [0], size = 4 : i64}},
// CHECK-SAME:    %[[SEED:[^:]*]]: tensor<i64> {prec.default = 0 : i64, prec.name = "seed"},
// CHECK-SAME:    %[[X:[^:]*]]: tensor<4xf32> {prec.name = "x"},
// CHECK-SAME:    -> (tensor<2xf32>, tensor<i64>, tensor<f32> {prec.name = "loss"})
// CHECK:         %[[L:.*]]:2 = call @loss_sharded(%[[W]], %[[X]], %[[SEED]])
// CHECK:         return %{{.*}}, %[[L]]#1, %{{.*}} : tensor<2xf32>, tensor<i64>, tensor<f32>

// The seed starts at the global's initial value and advances by one per step.
// STEPS: step 0: result 1 = 1
// STEPS: step 1: result 1 = 2
// STEPS: step 2: result 1 = 3
ml_program.global private mutable @seed(dense<0> : tensor<i64>) : tensor<i64>
func.func @loss(%w: tensor<4xf32> {prec.name = "w"}, %x: tensor<4xf32> {prec.name = "x", prec.no_grad}) -> tensor<f32> {
  %s = ml_program.global_load @seed : tensor<i64>
  %one = arith.constant dense<1> : tensor<i64>
  %next = arith.addi %s, %one : tensor<i64>
  ml_program.global_store @seed = %next : tensor<i64>
  %y = arith.mulf %w, %x : tensor<4xf32>
  %l = prec.reduce %y dims = [0] reduction = <sum> : tensor<4xf32> -> tensor<f32>
  return %l : tensor<f32>
}
