// RUN: prec-opt %s --convert-shard-to-prec="policy='#prec.policy<param = bf16, reduce = f32>'" | FileCheck %s --enable-var-scope
// RUN: prec-opt %s --convert-shard-to-prec | FileCheck %s --check-prefix=DEFAULT --enable-var-scope

// The option's policy is recorded on the module, for prec-apply-policy.
// CHECK: module attributes {prec.policy = #prec.policy<param = bf16, reduce = f32>}
// DEFAULT-NOT: prec.policy =

shard.grid @grid(shape = 2x4)

// Same grid, same axes in the same order; reductions take the policy's
// reduce dtype as wire, gathers its param dtype (and reduce for their
// gradient).
// CHECK-LABEL: func.func @collectives(
// CHECK-SAME: %[[X:.*]]: tensor<8x8xf32>
// CHECK: prec.all_reduce %[[X]] on @grid grid_axes = [1, 0] forward_dtype = f32 : tensor<8x8xf32> -> tensor<8x8xf32>
// CHECK: prec.all_reduce %[[X]] on @grid grid_axes = [1] reduction = <avg> forward_dtype = f32 : tensor<8x8xf32> -> tensor<8x8xf32>
// CHECK: prec.all_reduce %[[X]] on @grid grid_axes = [0] reduction = <max> forward_dtype = f32
// CHECK: prec.all_reduce %[[X]] on @grid grid_axes = [0] reduction = <min> forward_dtype = f32
// CHECK: prec.all_gather %[[X]] on @grid grid_axes = [0] gather_axis = 1 forward_dtype = bf16 backward_dtype = f32 : tensor<8x8xf32> -> tensor<8x16xf32>
// CHECK: prec.reduce_scatter %[[X]] on @grid grid_axes = [1] scatter_axis = 0 forward_dtype = f32 : tensor<8x8xf32> -> tensor<2x8xf32>
// CHECK: prec.all_to_all %[[X]] on @grid grid_axes = [1] split_axis = 0 concat_axis = 1 : tensor<8x8xf32> -> tensor<2x32xf32>
// CHECK-NOT: shard.all_
// DEFAULT-LABEL: func.func @collectives(
// DEFAULT: prec.all_reduce %{{.*}} on @grid grid_axes = [1, 0] : tensor<8x8xf32> -> tensor<8x8xf32>
// DEFAULT: prec.all_gather %{{.*}} on @grid grid_axes = [0] gather_axis = 1 : tensor<8x8xf32> -> tensor<8x16xf32>
func.func @collectives(%x: tensor<8x8xf32>)
    -> (tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>,
        tensor<8x16xf32>, tensor<2x8xf32>, tensor<2x32xf32>) {
  %0 = shard.all_reduce %x on @grid grid_axes = [1, 0] : tensor<8x8xf32> -> tensor<8x8xf32>
  %1 = shard.all_reduce %x on @grid grid_axes = [1] reduction = average : tensor<8x8xf32> -> tensor<8x8xf32>
  %2 = shard.all_reduce %x on @grid grid_axes = [0] reduction = max : tensor<8x8xf32> -> tensor<8x8xf32>
  %3 = shard.all_reduce %x on @grid grid_axes = [0] reduction = min : tensor<8x8xf32> -> tensor<8x8xf32>
  %4 = shard.all_gather %x on @grid grid_axes = [0] gather_axis = 1 : tensor<8x8xf32> -> tensor<8x16xf32>
  %5 = shard.reduce_scatter %x on @grid grid_axes = [1] scatter_axis = 0 : tensor<8x8xf32> -> tensor<2x8xf32>
  %6 = shard.all_to_all %x on @grid grid_axes = [1] split_axis = 0 concat_axis = 1 : tensor<8x8xf32> -> tensor<2x32xf32>
  return %0, %1, %2, %3, %4, %5, %6 : tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x16xf32>, tensor<2x8xf32>, tensor<2x32xf32>
}

// A function's own policy wins over the option.
// CHECK-LABEL: func.func @own_policy(
// CHECK: prec.all_reduce %{{.*}} on @grid grid_axes = [0] forward_dtype = bf16
func.func @own_policy(%x: tensor<8x8xf32>) -> tensor<8x8xf32>
    attributes {prec.policy = #prec.policy<reduce = bf16>} {
  %0 = shard.all_reduce %x on @grid grid_axes = [0] : tensor<8x8xf32> -> tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// shard accumulates in its result type; prec keeps that type and rounds the
// input once to the wire.
// CHECK-LABEL: func.func @widening(
// CHECK: prec.all_reduce %{{.*}} on @grid grid_axes = [1] forward_dtype = f32 : tensor<8xbf16> -> tensor<8xf32>
func.func @widening(%x: tensor<8xbf16>) -> tensor<8xf32> {
  %0 = shard.all_reduce %x on @grid grid_axes = [1] : tensor<8xbf16> -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// No grid axes: a group of one (prec would read empty axes as all axes).
// CHECK-LABEL: func.func @no_axes(
// CHECK-SAME: %[[X:.*]]: tensor<8xf32>
// CHECK-NOT: prec.all_reduce
// CHECK: %[[C:.*]] = prec.cast %[[X]] : tensor<8xf32> to tensor<8xbf16>
// CHECK: return %[[X]], %[[C]]
func.func @no_axes(%x: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xbf16>) {
  %0 = shard.all_gather %x on @grid grid_axes = [] gather_axis = 0 : tensor<8xf32> -> tensor<8xf32>
  %1 = shard.all_reduce %x on @grid grid_axes = [] : tensor<8xf32> -> tensor<8xbf16>
  return %0, %1 : tensor<8xf32>, tensor<8xbf16>
}

// all_slice: upstream's lowering, a slice at the process's index, which
// prec's runtime lowering provides.
// CHECK-LABEL: func.func @slice(
// CHECK: shard.process_multi_index on @grid axes = [1]
// CHECK: tensor.extract_slice
// CHECK-NOT: shard.all_slice
func.func @slice(%x: tensor<8x8xf32>) -> tensor<8x2xf32> {
  %0 = shard.all_slice %x on @grid grid_axes = [1] slice_axis = 1 : tensor<8x8xf32> -> tensor<8x2xf32>
  return %0 : tensor<8x2xf32>
}
