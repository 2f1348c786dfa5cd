// RUN: prec-opt %s --prec-block-reduce-scatter=block-bytes=1536 | FileCheck %s --enable-var-scope
// RUN: prec-opt %s --prec-block-reduce-scatter="block-bytes=1536 optimizers=false" | FileCheck %s --check-prefix=ALONE --enable-var-scope
// RUN: prec-opt %s --prec-block-reduce-scatter=block-bytes=0 | FileCheck %s --check-prefix=OFF
// RUN: prec-opt %s --prec-block-reduce-scatter=block-bytes=1536 --prec-lower-to-cpu | FileCheck %s --check-prefix=LOWER
// RUN: not prec-opt %s --prec-block-reduce-scatter=block-bytes=-1 2>&1 | FileCheck %s --check-prefix=NEGATIVE
// NEGATIVE: error: prec-block-reduce-scatter: expected block-bytes >= 0 (0: reduce_scatters stay whole), got -1

// OFF-NOT: scf.for

shard.grid @dp(shape = 4)
shard.grid @hsdp(shape = 2x3)
shard.grid @single(shape = 1)
shard.grid @hosts(shape = 2x2) {prec.inter_host_axes = array<i16: 0>}

// Every function lowers to LLVM after blocking.
// LOWER-LABEL: llvm.func @sgd_in_blocks
// LOWER-NOT: prec.
// LOWER-NOT: scf.

// 40 x 32 f32 on 4 ranks, scattered along rows: viewed as 4 x 10 x 32 (the
// ranks' slices) and cut along the 10 rows of a slice, 512 bytes of input
// per row, so 3 rows per block of at most 1536 bytes: three blocks in a
// loop and the last row after it. SGD, the reduced gradient's only reader,
// runs in the same blocks on the same rows of the master.
// CHECK-LABEL: func.func @sgd_in_blocks
// CHECK-SAME: (%[[G:.*]]: tensor<40x32xf32>, %[[W:.*]]: tensor<10x32xf32>, %[[LR:.*]]: f32)
// CHECK: %[[GV:.*]] = tensor.expand_shape %[[G]] {{\[\[}}0, 1], [2]] output_shape [4, 10, 32] : tensor<40x32xf32> into tensor<4x10x32xf32>
// CHECK: %[[WV:.*]] = tensor.expand_shape %[[W]] {{\[\[}}0, 1], [2]] output_shape [1, 10, 32] : tensor<10x32xf32> into tensor<1x10x32xf32>
// CHECK: %[[INIT:.*]] = tensor.empty() : tensor<1x10x32xf32>
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[END:.*]] = arith.constant 9 : index
// CHECK-DAG: %[[STEP:.*]] = arith.constant 3 : index
// CHECK: %[[LOOP:.*]] = scf.for %[[I:.*]] = %[[C0]] to %[[END]] step %[[STEP]] iter_args(%[[ACC:.*]] = %[[INIT]])
// CHECK:   %[[GB:.*]] = tensor.extract_slice %[[GV]][0, %[[I]], 0] [4, 3, 32] [1, 1, 1] : tensor<4x10x32xf32> to tensor<4x3x32xf32>
// CHECK:   %[[RB:.*]] = prec.reduce_scatter %[[GB]] on @dp scatter_axis = 0 reduction = <avg> forward_dtype = bf16 acc_dtype = f32 : tensor<4x3x32xf32> -> tensor<1x3x32xf32>
// CHECK:   %[[WB:.*]] = tensor.extract_slice %[[WV]][0, %[[I]], 0] [1, 3, 32] [1, 1, 1] : tensor<1x10x32xf32> to tensor<1x3x32xf32>
// CHECK:   %[[NB:.*]] = prec.sgd %[[WB]], %[[RB]], %[[LR]] weight_decay = 1.000000e-02 : tensor<1x3x32xf32>, tensor<1x3x32xf32>
// CHECK:   %[[INS:.*]] = tensor.insert_slice %[[NB]] into %[[ACC]][0, %[[I]], 0] [1, 3, 32] [1, 1, 1] : tensor<1x3x32xf32> into tensor<1x10x32xf32>
// CHECK:   scf.yield %[[INS]]
// CHECK: %[[GREST:.*]] = tensor.extract_slice %[[GV]][0, 9, 0] [4, 1, 32] [1, 1, 1] : tensor<4x10x32xf32> to tensor<4x1x32xf32>
// CHECK: %[[RREST:.*]] = prec.reduce_scatter %[[GREST]] on @dp scatter_axis = 0 reduction = <avg> {{.*}} : tensor<4x1x32xf32> -> tensor<1x1x32xf32>
// CHECK: %[[WREST:.*]] = tensor.extract_slice %[[WV]][0, 9, 0] [1, 1, 32] [1, 1, 1]
// CHECK: %[[NREST:.*]] = prec.sgd %[[WREST]], %[[RREST]], %[[LR]] weight_decay = 1.000000e-02 : tensor<1x1x32xf32>, tensor<1x1x32xf32>
// CHECK: %[[ALL:.*]] = tensor.insert_slice %[[NREST]] into %[[LOOP]][0, 9, 0] [1, 1, 32] [1, 1, 1]
// CHECK: %[[N:.*]] = tensor.collapse_shape %[[ALL]] {{\[\[}}0, 1], [2]] : tensor<1x10x32xf32> into tensor<10x32xf32>
// CHECK: return %[[N]]

// Without optimizers the loop leaves the reduced gradient whole, and SGD
// reads it after the loop.
// ALONE-LABEL: func.func @sgd_in_blocks
// ALONE: %[[LOOP:.*]] = scf.for
// ALONE:   prec.reduce_scatter %{{.*}} : tensor<4x3x32xf32> -> tensor<1x3x32xf32>
// ALONE-NOT: prec.sgd
// ALONE:   scf.yield
// ALONE: prec.reduce_scatter %{{.*}} : tensor<4x1x32xf32> -> tensor<1x1x32xf32>
// ALONE: %[[ALL:.*]] = tensor.insert_slice %{{.*}} into %[[LOOP]][0, 9, 0] [1, 1, 32] [1, 1, 1]
// ALONE: %[[R:.*]] = tensor.collapse_shape %[[ALL]] {{\[\[}}0, 1], [2]] : tensor<1x10x32xf32> into tensor<10x32xf32>
// ALONE: prec.sgd %{{.*}}, %[[R]], %{{.*}} : tensor<10x32xf32>, tensor<10x32xf32>
func.func @sgd_in_blocks(%g: tensor<40x32xf32>, %w: tensor<10x32xf32>, %lr: f32) -> tensor<10x32xf32> {
  %r = prec.reduce_scatter %g on @dp scatter_axis = 0 reduction = <avg>
         forward_dtype = bf16 acc_dtype = f32 : tensor<40x32xf32> -> tensor<10x32xf32>
  %n = prec.sgd %w, %r, %lr weight_decay = 0.01 : tensor<10x32xf32>, tensor<10x32xf32>
  return %n : tensor<10x32xf32>
}

// Scattered along columns over a group of 3 (axis 1 of @hsdp): viewed as
// 16 x 3 x 16 and cut along the 16 rows, 192 bytes of input each, 8 rows
// per block: two blocks, no rest. AdamW's master, state and every result,
// the bf16 shard included, are cut alike.
// CHECK-LABEL: func.func @adamw_in_blocks
// CHECK-SAME: (%[[G:.*]]: tensor<16x48xf32>, %[[W:.*]]: tensor<16x16xf32>, %[[M:.*]]: tensor<16x16xf32>, %[[V:.*]]: tensor<16x16xf32>, %[[LR:.*]]: f32, %[[STEP:.*]]: f32)
// CHECK: %[[GV:.*]] = tensor.expand_shape %[[G]] {{\[\[}}0], [1, 2]] output_shape [16, 3, 16] : tensor<16x48xf32> into tensor<16x3x16xf32>
// CHECK: %[[WV:.*]] = tensor.expand_shape %[[W]] {{\[\[}}0], [1, 2]] output_shape [16, 1, 16]
// CHECK: %[[MV:.*]] = tensor.expand_shape %[[M]] {{\[\[}}0], [1, 2]] output_shape [16, 1, 16]
// CHECK: %[[VV:.*]] = tensor.expand_shape %[[V]] {{\[\[}}0], [1, 2]] output_shape [16, 1, 16]
// CHECK-DAG: %[[END:.*]] = arith.constant 16 : index
// CHECK-DAG: %[[STEP8:.*]] = arith.constant 8 : index
// CHECK: %[[LOOP:.*]]:4 = scf.for %[[I:.*]] = %{{.*}} to %[[END]] step %[[STEP8]] iter_args(%[[P0:.*]] = %{{.*}}, %[[M0:.*]] = %{{.*}}, %[[V0:.*]] = %{{.*}}, %[[S0:.*]] = %{{.*}}) -> (tensor<16x1x16xf32>, tensor<16x1x16xf32>, tensor<16x1x16xf32>, tensor<16x1x16xbf16>)
// CHECK:   %[[GB:.*]] = tensor.extract_slice %[[GV]][%[[I]], 0, 0] [8, 3, 16] [1, 1, 1]
// CHECK:   %[[RB:.*]] = prec.reduce_scatter %[[GB]] on @hsdp grid_axes = [1] scatter_axis = 1 {{.*}} : tensor<8x3x16xf32> -> tensor<8x1x16xf32>
// CHECK:   %[[WB:.*]] = tensor.extract_slice %[[WV]][%[[I]], 0, 0] [8, 1, 16] [1, 1, 1]
// CHECK:   %[[MB:.*]] = tensor.extract_slice %[[MV]][%[[I]], 0, 0] [8, 1, 16] [1, 1, 1]
// CHECK:   %[[VB:.*]] = tensor.extract_slice %[[VV]][%[[I]], 0, 0] [8, 1, 16] [1, 1, 1]
// CHECK:   %[[P:.*]], %[[MN:.*]], %[[VN:.*]], %[[S:.*]] = prec.adamw %[[WB]], %[[RB]], %[[MB]], %[[VB]], %[[LR]], %[[STEP]] : tensor<8x1x16xf32>, tensor<8x1x16xf32> -> tensor<8x1x16xbf16>
// CHECK:   tensor.insert_slice %[[P]] into %[[P0]][%[[I]], 0, 0] [8, 1, 16] [1, 1, 1]
// CHECK:   tensor.insert_slice %[[MN]] into %[[M0]][%[[I]], 0, 0]
// CHECK:   tensor.insert_slice %[[VN]] into %[[V0]][%[[I]], 0, 0]
// CHECK:   tensor.insert_slice %[[S]] into %[[S0]][%[[I]], 0, 0] [8, 1, 16] [1, 1, 1] : tensor<8x1x16xbf16> into tensor<16x1x16xbf16>
// CHECK: tensor.collapse_shape %[[LOOP]]#0 {{\[\[}}0], [1, 2]] : tensor<16x1x16xf32> into tensor<16x16xf32>
// CHECK: tensor.collapse_shape %[[LOOP]]#1
// CHECK: tensor.collapse_shape %[[LOOP]]#2
// CHECK: tensor.collapse_shape %[[LOOP]]#3 {{\[\[}}0], [1, 2]] : tensor<16x1x16xbf16> into tensor<16x16xbf16>
// CHECK-NOT: prec.reduce_scatter
// CHECK: return
func.func @adamw_in_blocks(%g: tensor<16x48xf32>, %w: tensor<16x16xf32>, %m: tensor<16x16xf32>, %v: tensor<16x16xf32>, %lr: f32, %step: f32)
    -> (tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xbf16>) {
  %r = prec.reduce_scatter %g on @hsdp grid_axes = [1] scatter_axis = 1
         forward_dtype = bf16 acc_dtype = f32 : tensor<16x48xf32> -> tensor<16x16xf32>
  %p, %m1, %v1, %s = prec.adamw %w, %r, %m, %v, %lr, %step
         : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xbf16>
  return %p, %m1, %v1, %s : tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xbf16>
}

// The reduce_scatter is cut, its optimizer is not: the reduced gradient
// has another reader, or the optimizer rounds stochastically (its random
// bits follow the element's place).
// CHECK-LABEL: func.func @optimizer_after_the_loop
// CHECK: scf.for
// CHECK:   prec.reduce_scatter {{.*}} : tensor<4x3x32xf32> -> tensor<1x3x32xf32>
// CHECK-NOT: prec.sgd
// CHECK:   scf.yield
// CHECK: %[[R1:.*]] = tensor.collapse_shape
// CHECK: prec.sgd %{{.*}}, %[[R1]], %{{.*}} : tensor<10x32xf32>, tensor<10x32xf32>
// CHECK: scf.for
// CHECK:   prec.reduce_scatter {{.*}} : tensor<4x3x32xf32> -> tensor<1x3x32xf32>
// CHECK-NOT: prec.sgd
// CHECK:   scf.yield
// CHECK: %[[R2:.*]] = tensor.collapse_shape
// CHECK: prec.sgd %{{.*}}, %[[R2]], %{{.*}} rounding = <stochastic> {{.*}} : tensor<10x32xf32>, tensor<10x32xf32> -> tensor<10x32xbf16>
// CHECK: return %{{.*}}, %[[R1]], %{{.*}}
func.func @optimizer_after_the_loop(%g: tensor<40x32xf32>, %w: tensor<10x32xf32>, %lr: f32, %seed: i64)
    -> (tensor<10x32xf32>, tensor<10x32xf32>, tensor<10x32xf32>, tensor<10x32xbf16>) {
  %r = prec.reduce_scatter %g on @dp scatter_axis = 0
         forward_dtype = bf16 acc_dtype = f32 : tensor<40x32xf32> -> tensor<10x32xf32>
  %n = prec.sgd %w, %r, %lr : tensor<10x32xf32>, tensor<10x32xf32>
  %r2 = prec.reduce_scatter %g on @dp scatter_axis = 0
         forward_dtype = bf16 acc_dtype = f32 : tensor<40x32xf32> -> tensor<10x32xf32>
  %n2, %s = prec.sgd %w, %r2, %lr rounding = <stochastic> seed %seed
         : tensor<10x32xf32>, tensor<10x32xf32> -> tensor<10x32xbf16>
  return %n, %r, %n2, %s : tensor<10x32xf32>, tensor<10x32xf32>, tensor<10x32xf32>, tensor<10x32xbf16>
}

// Not cut: no larger than one block; the ring (acc_dtype is the wire
// dtype); stochastic rounding; a group of one rank; a scaled fp8 wire (its
// scale is the whole tensor's); an empty tensor; fp8 partial sums between
// hosts (each rank's scales are its whole chunk's, or its blocks').
// CHECK-LABEL: func.func @whole
// CHECK-NOT: scf.for
// CHECK: prec.reduce_scatter %{{.*}} : tensor<8x32xf32> -> tensor<2x32xf32>
// CHECK: prec.reduce_scatter %{{.*}} forward_dtype = f32 {{.*}} : tensor<40x32xf32> -> tensor<10x32xf32>
// CHECK: prec.reduce_scatter %{{.*}} rounding = <stochastic>{{.*}} : tensor<40x32xf32> -> tensor<10x32xf32>
// CHECK: prec.reduce_scatter %{{.*}} on @single {{.*}} : tensor<40x32xf32> -> tensor<40x32xf32>
// CHECK: prec.reduce_scatter %{{.*}} scaling = <dynamic>{{.*}} : tensor<40x32xf32> -> tensor<10x32xf32>
// CHECK: prec.reduce_scatter %{{.*}} : tensor<8x0x512xf32> -> tensor<2x0x512xf32>
// CHECK: prec.reduce_scatter %{{.*}} inter_host_scaling = <dynamic> : tensor<40x32xf32> -> tensor<10x32xf32>
// CHECK: prec.reduce_scatter %{{.*}} inter_host_scaling = <block, block_size = 32> : tensor<40x32xf32> -> tensor<10x32xf32>
// CHECK-NOT: scf.for
func.func @whole(%small: tensor<8x32xf32>, %g: tensor<40x32xf32>, %seed: i64,
                 %empty: tensor<8x0x512xf32>)
    -> (tensor<2x32xf32>, tensor<10x32xf32>, tensor<10x32xf32>, tensor<40x32xf32>, tensor<10x32xf32>,
        tensor<2x0x512xf32>, tensor<10x32xf32>, tensor<10x32xf32>) {
  %0 = prec.reduce_scatter %small on @dp scatter_axis = 0 forward_dtype = bf16 acc_dtype = f32
         : tensor<8x32xf32> -> tensor<2x32xf32>
  %1 = prec.reduce_scatter %g on @dp scatter_axis = 0 forward_dtype = f32 acc_dtype = f32
         : tensor<40x32xf32> -> tensor<10x32xf32>
  %2 = prec.reduce_scatter %g on @dp scatter_axis = 0 forward_dtype = bf16 rounding = <stochastic>
         seed %seed acc_dtype = f32 : tensor<40x32xf32> -> tensor<10x32xf32>
  %3 = prec.reduce_scatter %g on @single scatter_axis = 0 forward_dtype = bf16 acc_dtype = f32
         : tensor<40x32xf32> -> tensor<40x32xf32>
  %4 = prec.reduce_scatter %g on @dp scatter_axis = 0 forward_dtype = f8E4M3FN scaling = <dynamic>
         acc_dtype = f32 : tensor<40x32xf32> -> tensor<10x32xf32>
  %5 = prec.reduce_scatter %empty on @dp scatter_axis = 0 forward_dtype = bf16 acc_dtype = f32
         : tensor<8x0x512xf32> -> tensor<2x0x512xf32>
  %6 = prec.reduce_scatter %g on @hosts scatter_axis = 0 forward_dtype = bf16 acc_dtype = f32
         inter_host_dtype = f8E4M3FN inter_host_scaling = <dynamic>
         : tensor<40x32xf32> -> tensor<10x32xf32>
  %7 = prec.reduce_scatter %g on @hosts scatter_axis = 0 forward_dtype = bf16 acc_dtype = f32
         inter_host_dtype = f8E4M3FN inter_host_scaling = <block, block_size = 32>
         : tensor<40x32xf32> -> tensor<10x32xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7 : tensor<2x32xf32>, tensor<10x32xf32>, tensor<10x32xf32>, tensor<40x32xf32>, tensor<10x32xf32>,
    tensor<2x0x512xf32>, tensor<10x32xf32>, tensor<10x32xf32>
}

// One index of the outer dimension is more than a block: 2 x 64 x 8 f32
// scattered along axis 1, viewed as 2 x 4 x 16 x 8, is 2048 bytes per index
// of dimension 0. Each of its two blocks (one index each) is cut again
// along the 16 rows of a slice, 128 bytes each: 12 rows in the inner loop,
// then the last 4; the SGD rides in the inner blocks.
// CHECK-LABEL: func.func @loop_in_loop
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %c2 step %c1
// CHECK:   tensor.extract_slice %{{.*}}[%[[I]], 0, 0, 0] [1, 4, 16, 8] [1, 1, 1, 1] : tensor<2x4x16x8xf32> to tensor<1x4x16x8xf32>
// CHECK:   tensor.expand_shape %{{.*}} output_shape [1, 4, 1, 16, 8] : tensor<1x4x16x8xf32> into tensor<1x4x1x16x8xf32>
// CHECK:   scf.for %[[J:.*]] = %{{.*}} to %c12 step %c12
// CHECK:     tensor.extract_slice %{{.*}}[0, 0, 0, %[[J]], 0] [1, 4, 1, 12, 8] [1, 1, 1, 1, 1] : tensor<1x4x1x16x8xf32> to tensor<1x4x1x12x8xf32>
// CHECK:     prec.reduce_scatter %{{.*}} : tensor<1x4x1x12x8xf32> -> tensor<1x1x1x12x8xf32>
// CHECK:     prec.sgd %{{.*}} : tensor<1x1x1x12x8xf32>, tensor<1x1x1x12x8xf32>
// CHECK:     scf.yield
// CHECK:   prec.reduce_scatter %{{.*}} : tensor<1x4x1x4x8xf32> -> tensor<1x1x1x4x8xf32>
// CHECK:   prec.sgd %{{.*}} : tensor<1x1x1x4x8xf32>, tensor<1x1x1x4x8xf32>
// CHECK:   scf.yield
// CHECK-NOT: prec.reduce_scatter
// CHECK: return
func.func @loop_in_loop(%g: tensor<2x64x8xf32>, %w: tensor<2x16x8xf32>, %lr: f32) -> tensor<2x16x8xf32> {
  %r = prec.reduce_scatter %g on @dp scatter_axis = 1 forward_dtype = bf16 acc_dtype = f32
         : tensor<2x64x8xf32> -> tensor<2x16x8xf32>
  %n = prec.sgd %w, %r, %lr : tensor<2x16x8xf32>, tensor<2x16x8xf32>
  return %n : tensor<2x16x8xf32>
}
