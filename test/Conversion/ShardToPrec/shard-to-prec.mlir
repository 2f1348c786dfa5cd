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
// CHECK: prec.all_gather %[[X]] on @grid grid_axes = [0] gather_axis = 1 forward_dtype = bf16 backward_dtype = f32 grad_reduction = <sum> : tensor<8x8xf32> -> tensor<8x16xf32>
// CHECK: prec.reduce_scatter %[[X]] on @grid grid_axes = [1] scatter_axis = 0 forward_dtype = f32 : tensor<8x8xf32> -> tensor<2x8xf32>
// CHECK: prec.all_to_all %[[X]] on @grid grid_axes = [1] split_axis = 0 concat_axis = 1 : tensor<8x8xf32> -> tensor<2x32xf32>
// CHECK-NOT: shard.all_
// DEFAULT-LABEL: func.func @collectives(
// DEFAULT: prec.all_reduce %{{.*}} on @grid grid_axes = [1, 0] : tensor<8x8xf32> -> tensor<8x8xf32>
// DEFAULT: prec.all_gather %{{.*}} on @grid grid_axes = [0] gather_axis = 1 grad_reduction = <sum> : tensor<8x8xf32> -> tensor<8x16xf32>
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

// A gather's gradient sums (the partitioned program computes the whole
// program's values on every rank: its transpose is exact). `param` is the
// wire of parameters only: an argument, or a piece of one that slices,
// gathers and casts made; an activation keeps its dtype forwards, and its
// gradient, a reduction, travels in `reduce`.
// CHECK-LABEL: func.func @parameters_and_activations(
// CHECK-SAME: %[[W:[^:]*]]: tensor<8x8xf32>
// CHECK: prec.all_gather %{{.*}} on @grid grid_axes = [0] gather_axis = 0 backward_dtype = f32 grad_reduction = <sum> : tensor<8x8xf32> -> tensor<16x8xf32>
// CHECK: %[[WS:.*]] = tensor.extract_slice %[[W]]
// CHECK: %[[WC:.*]] = tensor.cast %[[WS]]
// CHECK: %[[W0:.*]] = prec.all_gather %[[WC]] on @grid grid_axes = [1] gather_axis = 1 forward_dtype = bf16 backward_dtype = f32 grad_reduction = <sum>
// CHECK: prec.all_gather %[[W0]] on @grid grid_axes = [0] gather_axis = 0 forward_dtype = bf16 backward_dtype = f32 grad_reduction = <sum>
// DEFAULT-LABEL: func.func @parameters_and_activations(
// DEFAULT: prec.all_gather %{{.*}} on @grid grid_axes = [0] gather_axis = 0 grad_reduction = <sum> : tensor<8x8xf32> -> tensor<16x8xf32>
func.func @parameters_and_activations(%w: tensor<8x8xf32>, %x: tensor<8x8xf32>)
    -> (tensor<16x8xf32>, tensor<16x8xf32>) {
  %a = arith.mulf %x, %x : tensor<8x8xf32>
  %h = shard.all_gather %a on @grid grid_axes = [0] gather_axis = 0 : tensor<8x8xf32> -> tensor<16x8xf32>
  %ws = shard.all_slice %w on @grid grid_axes = [1] slice_axis = 1 : tensor<8x8xf32> -> tensor<8x2xf32>
  %w0 = shard.all_gather %ws on @grid grid_axes = [1] gather_axis = 1 : tensor<8x2xf32> -> tensor<8x8xf32>
  %w1 = shard.all_gather %w0 on @grid grid_axes = [0] gather_axis = 0 : tensor<8x8xf32> -> tensor<16x8xf32>
  return %h, %w1 : tensor<16x8xf32>, tensor<16x8xf32>
}

// No grid axes: a group of one (prec would read empty axes as all axes).
// CHECK-LABEL: func.func @no_axes(
// CHECK-SAME: %[[X:.*]]: tensor<8xf32>
// CHECK-NOT: prec.all_reduce
// CHECK: %[[C:.*]] = prec.cast %[[X]] : tensor<8xf32> to tensor<8xbf16>
// CHECK: %[[D:.*]] = tensor.cast %[[X]] : tensor<8xf32> to tensor<?xf32>
// CHECK-NOT: tensor.cast
// CHECK: return %[[X]], %[[C]], %[[X]], %[[D]]
func.func @no_axes(%x: tensor<8xf32>)
    -> (tensor<8xf32>, tensor<8xbf16>, tensor<8xf32>, tensor<?xf32>) {
  %0 = shard.all_gather %x on @grid grid_axes = [] gather_axis = 0 : tensor<8xf32> -> tensor<8xf32>
  %1 = shard.all_reduce %x on @grid grid_axes = [] : tensor<8xf32> -> tensor<8xbf16>
  %2 = shard.all_slice %x on @grid grid_axes = [] slice_axis = 0 : tensor<8xf32> -> tensor<8xf32>
  %3 = shard.all_slice %x on @grid grid_axes = [] slice_axis = 0 : tensor<8xf32> -> tensor<?xf32>
  return %0, %1, %2, %3 : tensor<8xf32>, tensor<8xbf16>, tensor<8xf32>, tensor<?xf32>
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

// A body may read a tensor captured from outside when a gather over every
// axis of the grid has made it whole.
// CHECK-LABEL: func.func @captured_whole(
// CHECK: %[[R0:.*]] = prec.all_gather %{{.*}} on @grid grid_axes = [0]
// CHECK: %[[T:.*]] = prec.all_gather %[[R0]] on @grid grid_axes = [1]
// CHECK: linalg.generic
// CHECK: tensor.extract %[[T]]
func.func @captured_whole(%table: tensor<2x8xf32>, %ids: tensor<4xindex>) -> tensor<4x8xf32> {
  %rows = shard.all_gather %table on @grid grid_axes = [0] gather_axis = 0 : tensor<2x8xf32> -> tensor<4x8xf32>
  %whole = shard.all_gather %rows on @grid grid_axes = [1] gather_axis = 0 : tensor<4x8xf32> -> tensor<16x8xf32>
  %e = tensor.empty() : tensor<4x8xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%ids : tensor<4xindex>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%id: index, %out: f32):
    %j = linalg.index 1 : index
    %v = tensor.extract %whole[%id, %j] : tensor<16x8xf32>
    linalg.yield %v : f32
  } -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}
