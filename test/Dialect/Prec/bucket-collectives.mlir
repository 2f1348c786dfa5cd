// RUN: prec-opt %s --prec-bucket-collectives | FileCheck %s --enable-var-scope
// RUN: prec-opt %s --prec-bucket-collectives=max-bucket-bytes=64 | FileCheck %s --enable-var-scope --check-prefix=CAP
// RUN: prec-opt %s --prec-bucket-collectives --prec-lower-to-cpu | FileCheck %s --check-prefix=LOWER
// RUN: not prec-opt %s --prec-bucket-collectives=max-bucket-bytes=-5 2>&1 | FileCheck %s --check-prefix=NEGATIVE
// NEGATIVE: error: expected max-bucket-bytes >= 0 (0: no cap), got -5

shard.grid @dp(shape = 4)
shard.grid @hsdp(shape = 2x4)
shard.grid @hosts(shape = 2x4) {prec.inter_host_axes = array<i16: 0>}

// Every function lowers to LLVM after bucketing.
// LOWER-LABEL: llvm.func @gathers
// LOWER-NOT: prec.
// LOWER-NOT: tensor.

// Three gathers of different shapes: each rank's shards are flattened side by
// side (8 + 3 + 6 columns), gathered once, and each result is its columns of
// the 4 gathered rows.
// CHECK-LABEL: func.func @gathers
// CHECK-SAME: (%[[A:.*]]: tensor<2x4xf32>, %[[B:.*]]: tensor<3xf32>, %[[C:.*]]: tensor<1x2x3xf32>)
// CHECK: %[[FA:.*]] = tensor.collapse_shape %[[A]] {{\[\[}}0, 1]] : tensor<2x4xf32> into tensor<8xf32>
// CHECK: %[[RA:.*]] = tensor.expand_shape %[[FA]] {{.*}} into tensor<1x8xf32>
// CHECK: %[[RB:.*]] = tensor.expand_shape %[[B]] {{.*}} into tensor<1x3xf32>
// CHECK: %[[FC:.*]] = tensor.collapse_shape %[[C]]
// CHECK: %[[RC:.*]] = tensor.expand_shape %[[FC]] {{.*}} into tensor<1x6xf32>
// CHECK: %[[PACKED:.*]] = tensor.concat dim(1) %[[RA]], %[[RB]], %[[RC]] : {{.*}} -> tensor<1x17xf32>
// CHECK: %[[FLAT:.*]] = tensor.collapse_shape %[[PACKED]] {{.*}} into tensor<17xf32>
// CHECK: %[[G:.*]] = prec.all_gather %[[FLAT]] on @dp gather_axis = 0 forward_dtype = bf16 backward_dtype = f32 : tensor<17xf32> -> tensor<68xbf16>
// CHECK-NOT: prec.all_gather
// CHECK: %[[ROWS:.*]] = tensor.expand_shape %[[G]] {{.*}} output_shape [4, 17]
// CHECK: %[[SA:.*]] = tensor.extract_slice %[[ROWS]][0, 0] [4, 8] [1, 1]
// CHECK: %[[FSA:.*]] = tensor.collapse_shape %[[SA]] {{.*}} into tensor<32xbf16>
// CHECK: %[[GA:.*]] = tensor.expand_shape %[[FSA]] {{.*}} into tensor<8x4xbf16>
// CHECK: %[[SB:.*]] = tensor.extract_slice %[[ROWS]][0, 8] [4, 3] [1, 1]
// CHECK: %[[GB:.*]] = tensor.collapse_shape %[[SB]] {{.*}} into tensor<12xbf16>
// CHECK: %[[SC:.*]] = tensor.extract_slice %[[ROWS]][0, 11] [4, 6] [1, 1]
// CHECK: %[[FSC:.*]] = tensor.collapse_shape %[[SC]]
// CHECK: %[[GC:.*]] = tensor.expand_shape %[[FSC]] {{.*}} into tensor<4x2x3xbf16>
// CHECK: return %[[GA]], %[[GB]], %[[GC]]
func.func @gathers(%a: tensor<2x4xf32>, %b: tensor<3xf32>, %c: tensor<1x2x3xf32>)
    -> (tensor<8x4xbf16>, tensor<12xbf16>, tensor<4x2x3xbf16>) {
  %ga = prec.all_gather %a on @dp gather_axis = 0 forward_dtype = bf16
          backward_dtype = f32 : tensor<2x4xf32> -> tensor<8x4xbf16>
  %gb = prec.all_gather %b on @dp gather_axis = 0 forward_dtype = bf16
          backward_dtype = f32 : tensor<3xf32> -> tensor<12xbf16>
  %gc = prec.all_gather %c on @dp gather_axis = 0 forward_dtype = bf16
          backward_dtype = f32 : tensor<1x2x3xf32> -> tensor<4x2x3xbf16>
  return %ga, %gb, %gc : tensor<8x4xbf16>, tensor<12xbf16>, tensor<4x2x3xbf16>
}

// FSDP's reduce-scatter layout: row r of the [4, 4 + 1] buffer holds rank r's
// chunk of %d1 (4 elements) then of %d2 (1 element); this rank keeps its row.
// CHECK-LABEL: func.func @scatters
// CHECK-SAME: (%[[D1:.*]]: tensor<8x2xf32>, %[[D2:.*]]: tensor<4xf32>)
// CHECK: %[[F1:.*]] = tensor.collapse_shape %[[D1]] {{.*}} into tensor<16xf32>
// CHECK: %[[C1:.*]] = tensor.expand_shape %[[F1]] {{.*}} output_shape [4, 4]
// CHECK: %[[C2:.*]] = tensor.expand_shape %[[D2]] {{.*}} output_shape [4, 1]
// CHECK: %[[PACKED:.*]] = tensor.concat dim(1) %[[C1]], %[[C2]] : {{.*}} -> tensor<4x5xf32>
// CHECK: %[[FLAT:.*]] = tensor.collapse_shape %[[PACKED]] {{.*}} into tensor<20xf32>
// CHECK: %[[R:.*]] = prec.reduce_scatter %[[FLAT]] on @dp scatter_axis = 0 reduction = <avg> forward_dtype = bf16 backward_dtype = bf16 acc_dtype = f32 : tensor<20xf32> -> tensor<5xf32>
// CHECK-NOT: prec.reduce_scatter
// CHECK: %[[S1:.*]] = tensor.extract_slice %[[R]][0] [4] [1]
// CHECK: %[[G1:.*]] = tensor.expand_shape %[[S1]] {{.*}} into tensor<2x2xf32>
// CHECK: %[[G2:.*]] = tensor.extract_slice %[[R]][4] [1] [1]
// CHECK: return %[[G1]], %[[G2]]
func.func @scatters(%d1: tensor<8x2xf32>, %d2: tensor<4xf32>)
    -> (tensor<2x2xf32>, tensor<1xf32>) {
  %g1 = prec.reduce_scatter %d1 on @dp scatter_axis = 0 reduction = <avg>
          forward_dtype = bf16 acc_dtype = f32 : tensor<8x2xf32> -> tensor<2x2xf32>
  %g2 = prec.reduce_scatter %d2 on @dp scatter_axis = 0 reduction = <avg>
          forward_dtype = bf16 acc_dtype = f32 : tensor<4xf32> -> tensor<1xf32>
  return %g1, %g2 : tensor<2x2xf32>, tensor<1xf32>
}

// All-reduces keep every element in the chunk the runtime would give it: 3
// elements are chunks of 1, 1, 1, 0 and 6 elements chunks of 2, 2, 1, 1, so
// the [4, 1 + 2] buffer is zero padded where a chunk is short. Each member
// fills its own zeroed block; one concat puts the blocks side by side.
// CHECK-LABEL: func.func @padded
// CHECK-SAME: (%[[X:.*]]: tensor<3xf32>, %[[Y:.*]]: tensor<2x3xf32>)
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[EMPTYX:.*]] = tensor.empty() : tensor<4x1xf32>
// CHECK: %[[FILLX:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[EMPTYX]] : tensor<4x1xf32>)
// CHECK: %[[CX:.*]] = tensor.expand_shape %[[X]] {{.*}} output_shape [3, 1]
// CHECK: %[[BX:.*]] = tensor.insert_slice %[[CX]] into %[[FILLX]][0, 0] [3, 1] [1, 1]
// CHECK: %[[FY:.*]] = tensor.collapse_shape %[[Y]]
// CHECK: %[[EMPTYY:.*]] = tensor.empty() : tensor<4x2xf32>
// CHECK: %[[FILLY:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[EMPTYY]] : tensor<4x2xf32>)
// CHECK: %[[LONG:.*]] = tensor.extract_slice %[[FY]][0] [4] [1]
// CHECK: %[[CLONG:.*]] = tensor.expand_shape %[[LONG]] {{.*}} output_shape [2, 2]
// CHECK: %[[BL:.*]] = tensor.insert_slice %[[CLONG]] into %[[FILLY]][0, 0] [2, 2] [1, 1]
// CHECK: %[[SHORT:.*]] = tensor.extract_slice %[[FY]][4] [2] [1]
// CHECK: %[[CSHORT:.*]] = tensor.expand_shape %[[SHORT]] {{.*}} output_shape [2, 1]
// CHECK: %[[BS:.*]] = tensor.insert_slice %[[CSHORT]] into %[[BL]][2, 0] [2, 1] [1, 1]
// CHECK: %[[PACKED:.*]] = tensor.concat dim(1) %[[BX]], %[[BS]] : {{.*}} -> tensor<4x3xf32>
// CHECK: %[[FLAT:.*]] = tensor.collapse_shape %[[PACKED]] {{.*}} into tensor<12xf32>
// CHECK: %[[R:.*]] = prec.all_reduce %[[FLAT]] on @dp reduction = <avg> forward_dtype = f32 backward_dtype = f32 acc_dtype = f32 : tensor<12xf32> -> tensor<12xf32>
// CHECK: %[[ROWS:.*]] = tensor.expand_shape %[[R]] {{.*}} output_shape [4, 3]
// CHECK: %[[SX:.*]] = tensor.extract_slice %[[ROWS]][0, 0] [3, 1] [1, 1]
// CHECK: %[[RX:.*]] = tensor.collapse_shape %[[SX]]
// CHECK: %[[SLONG:.*]] = tensor.extract_slice %[[ROWS]][0, 1] [2, 2] [1, 1]
// CHECK: %[[RLONG:.*]] = tensor.collapse_shape %[[SLONG]]
// CHECK: %[[SSHORT:.*]] = tensor.extract_slice %[[ROWS]][2, 1] [2, 1] [1, 1]
// CHECK: %[[RSHORT:.*]] = tensor.collapse_shape %[[SSHORT]]
// CHECK: %[[JOIN:.*]] = tensor.empty() : tensor<6xf32>
// CHECK: %[[J1:.*]] = tensor.insert_slice %[[RLONG]] into %[[JOIN]][0] [4] [1]
// CHECK: %[[J2:.*]] = tensor.insert_slice %[[RSHORT]] into %[[J1]][4] [2] [1]
// CHECK: %[[RY:.*]] = tensor.expand_shape %[[J2]] {{.*}} into tensor<2x3xf32>
// CHECK: return %[[RX]], %[[RY]]
func.func @padded(%x: tensor<3xf32>, %y: tensor<2x3xf32>)
    -> (tensor<3xf32>, tensor<2x3xf32>) {
  %rx = prec.all_reduce %x on @dp reduction = <avg> : tensor<3xf32> -> tensor<3xf32>
  %ry = prec.all_reduce %y on @dp reduction = <avg> : tensor<2x3xf32> -> tensor<2x3xf32>
  return %rx, %ry : tensor<3xf32>, tensor<2x3xf32>
}

// Different dtypes, groups, divisors or axes stay apart; the same group
// written two ways ([] and [0, 1] on a 2-D grid) merges.
// CHECK-LABEL: func.func @incompatible
// CHECK: prec.reduce_scatter %{{.*}} forward_dtype = bf16 acc_dtype = f32 : tensor<8xf32> -> tensor<2xf32>
// CHECK: prec.reduce_scatter %{{.*}} forward_dtype = f32 acc_dtype = f32 : tensor<8xf32> -> tensor<2xf32>
// CHECK: prec.all_reduce %{{.*}} on @hsdp grid_axes = [0] : tensor<4xf32> -> tensor<4xf32>
// CHECK: prec.all_reduce %{{.*}} on @hsdp grid_axes = [1] : tensor<4xf32> -> tensor<4xf32>
// CHECK: prec.all_reduce %{{.*}} on @dp post_divisor = 4.000000e+00 : tensor<4xf32> -> tensor<4xf32>
// CHECK: prec.all_gather %{{.*}} on @dp gather_axis = 1 : tensor<2x2xf32> -> tensor<2x8xf32>
// CHECK: prec.all_gather %{{.*}} on @dp gather_axis = 1 : tensor<2x2xf32> -> tensor<2x8xf32>
// CHECK: %[[BOTH:.*]] = prec.all_reduce %{{.*}} on @hsdp forward_dtype = f32 backward_dtype = f32 acc_dtype = f32 : tensor<16xf32> -> tensor<16xf32>
// CHECK-NOT: prec.all_reduce
// CHECK: return
func.func @incompatible(%a: tensor<8xf32>, %b: tensor<4xf32>, %c: tensor<2x2xf32>)
    -> (tensor<2xf32>, tensor<2xf32>, tensor<4xf32>, tensor<4xf32>,
        tensor<4xf32>, tensor<4xf32>, tensor<2x8xf32>, tensor<2x8xf32>,
        tensor<4xf32>, tensor<4xf32>) {
  %s1 = prec.reduce_scatter %a on @dp scatter_axis = 0 forward_dtype = bf16
          acc_dtype = f32 : tensor<8xf32> -> tensor<2xf32>
  %s2 = prec.reduce_scatter %a on @dp scatter_axis = 0 forward_dtype = f32
          acc_dtype = f32 : tensor<8xf32> -> tensor<2xf32>
  %r1 = prec.all_reduce %b on @hsdp grid_axes = [0] : tensor<4xf32> -> tensor<4xf32>
  %r2 = prec.all_reduce %b on @hsdp grid_axes = [1] : tensor<4xf32> -> tensor<4xf32>
  %r3 = prec.all_reduce %b on @dp : tensor<4xf32> -> tensor<4xf32>
  %r4 = prec.all_reduce %b on @dp post_divisor = 4.0 : tensor<4xf32> -> tensor<4xf32>
  %g1 = prec.all_gather %c on @dp gather_axis = 1 : tensor<2x2xf32> -> tensor<2x8xf32>
  %g2 = prec.all_gather %c on @dp gather_axis = 1 : tensor<2x2xf32> -> tensor<2x8xf32>
  %r5 = prec.all_reduce %b on @hsdp : tensor<4xf32> -> tensor<4xf32>
  %r6 = prec.all_reduce %b on @hsdp grid_axes = [0, 1] : tensor<4xf32> -> tensor<4xf32>
  return %s1, %s2, %r1, %r2, %r3, %r4, %g1, %g2, %r5, %r6
      : tensor<2xf32>, tensor<2xf32>, tensor<4xf32>, tensor<4xf32>,
        tensor<4xf32>, tensor<4xf32>, tensor<2x8xf32>, tensor<2x8xf32>,
        tensor<4xf32>, tensor<4xf32>
}

// %b reads %a's result, and %c reads it through other ops: %a stays alone,
// while %b and %c, independent of each other, merge after %c's input.
// CHECK-LABEL: func.func @dependent
// CHECK-SAME: (%[[X:.*]]: tensor<2xf32>)
// CHECK: %[[A:.*]] = prec.all_gather %[[X]] on @dp gather_axis = 0 : tensor<2xf32> -> tensor<8xf32>
// CHECK: %[[CAST:.*]] = prec.cast %[[A]]
// CHECK: %[[T:.*]] = tensor.extract_slice %[[CAST]][0] [2] [1]
// CHECK: %[[RA:.*]] = tensor.expand_shape %[[A]] {{.*}} into tensor<1x8xf32>
// CHECK: %[[RT:.*]] = tensor.expand_shape %[[T]] {{.*}} into tensor<1x2xf32>
// CHECK: tensor.concat dim(1) %[[RA]], %[[RT]] : {{.*}} -> tensor<1x10xf32>
// CHECK: prec.all_gather %{{.*}} : tensor<10xf32> -> tensor<40xf32>
// CHECK-NOT: prec.all_gather
// CHECK: return
func.func @dependent(%x: tensor<2xf32>)
    -> (tensor<8xf32>, tensor<32xf32>, tensor<8xf32>) {
  %a = prec.all_gather %x on @dp gather_axis = 0 : tensor<2xf32> -> tensor<8xf32>
  %b = prec.all_gather %a on @dp gather_axis = 0 : tensor<8xf32> -> tensor<32xf32>
  %s = prec.cast %a : tensor<8xf32> to tensor<8xf32>
  %t = tensor.extract_slice %s[0] [2] [1] : tensor<8xf32> to tensor<2xf32>
  %c = prec.all_gather %t on @dp gather_axis = 0 : tensor<2xf32> -> tensor<8xf32>
  return %a, %b, %c : tensor<8xf32>, tensor<32xf32>, tensor<8xf32>
}

// %b's input exists only after %a's result is used: the merged gather could
// not precede that use and still follow %b's input, so both stay.
// CHECK-LABEL: func.func @used_before_input
// CHECK: prec.all_gather %{{.*}} : tensor<2xf32> -> tensor<8xf32>
// CHECK: prec.cast
// CHECK: prec.cast
// CHECK: prec.all_gather %{{.*}} : tensor<2xf32> -> tensor<8xf32>
// CHECK-NOT: tensor.concat
func.func @used_before_input(%x: tensor<2xf32>, %w: tensor<2xbf16>)
    -> (tensor<8xbf16>, tensor<8xf32>) {
  %a = prec.all_gather %x on @dp gather_axis = 0 : tensor<2xf32> -> tensor<8xf32>
  %u = prec.cast %a : tensor<8xf32> to tensor<8xbf16>
  %y = prec.cast %w : tensor<2xbf16> to tensor<2xf32>
  %b = prec.all_gather %y on @dp gather_axis = 0 : tensor<2xf32> -> tensor<8xf32>
  return %u, %b : tensor<8xbf16>, tensor<8xf32>
}

// 32 wire bytes each: all three share one bucket by default; under a 64-byte
// cap the third starts a new one and, alone, stays as it is.
// CHECK-LABEL: func.func @capped
// CHECK: prec.all_reduce %{{.*}} : tensor<24xf32> -> tensor<24xf32>
// CHECK-NOT: prec.all_reduce
// CAP-LABEL: func.func @capped
// CAP-SAME: (%[[P:.*]]: tensor<8xf32>, %[[Q:.*]]: tensor<8xf32>, %[[R:.*]]: tensor<8xf32>)
// CAP: prec.all_reduce %{{.*}} : tensor<16xf32> -> tensor<16xf32>
// CAP: prec.all_reduce %[[R]] on @dp : tensor<8xf32> -> tensor<8xf32>
// CAP-NOT: prec.all_reduce
func.func @capped(%p: tensor<8xf32>, %q: tensor<8xf32>, %r: tensor<8xf32>)
    -> (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) {
  %rp = prec.all_reduce %p on @dp : tensor<8xf32> -> tensor<8xf32>
  %rq = prec.all_reduce %q on @dp : tensor<8xf32> -> tensor<8xf32>
  %rr = prec.all_reduce %r on @dp : tensor<8xf32> -> tensor<8xf32>
  return %rp, %rq, %rr : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>
}

// The dtype of the partial sums between hosts is part of what must agree: a
// bucket with bf16 ones and one with f32 ones (the default, acc_dtype, the
// same written or not).
// CHECK-LABEL: func.func @inter_host_dtypes
// CHECK: prec.reduce_scatter %{{.*}} on @hosts scatter_axis = 0 forward_dtype = bf16 backward_dtype = bf16 acc_dtype = f32 inter_host_dtype = bf16 : tensor<32xf32> -> tensor<4xf32>
// CHECK: prec.reduce_scatter %{{.*}} on @hosts scatter_axis = 0 forward_dtype = bf16 backward_dtype = bf16 acc_dtype = f32 : tensor<32xf32> -> tensor<4xf32>
// CHECK-NOT: prec.reduce_scatter
// CHECK: return
func.func @inter_host_dtypes(%a: tensor<16xf32>)
    -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) {
  %s1 = prec.reduce_scatter %a on @hosts scatter_axis = 0 forward_dtype = bf16
          acc_dtype = f32 inter_host_dtype = bf16 : tensor<16xf32> -> tensor<2xf32>
  %s2 = prec.reduce_scatter %a on @hosts scatter_axis = 0 forward_dtype = bf16
          acc_dtype = f32 : tensor<16xf32> -> tensor<2xf32>
  %s3 = prec.reduce_scatter %a on @hosts scatter_axis = 0 forward_dtype = bf16
          acc_dtype = f32 inter_host_dtype = bf16 : tensor<16xf32> -> tensor<2xf32>
  %s4 = prec.reduce_scatter %a on @hosts scatter_axis = 0 forward_dtype = bf16
          acc_dtype = f32 inter_host_dtype = f32 : tensor<16xf32> -> tensor<2xf32>
  return %s1, %s2, %s3, %s4 : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
}

// fp8 partial sums between hosts have their tensor's scales: merged, the
// largest would scale all. Reductions with them are not bucketed; gathers
// whose gradients have them merge with those of the same scaling.
// CHECK-LABEL: func.func @fp8_inter_host_dtypes
// CHECK-COUNT-2: prec.reduce_scatter %{{.*}} inter_host_dtype = f8E4M3FN inter_host_scaling = <dynamic> : tensor<16xf32> -> tensor<2xf32>
// CHECK: prec.all_gather %{{.*}} grad_inter_host_dtype = f8E4M3FN grad_inter_host_scaling = <dynamic> : tensor<4xf32> -> tensor<32xf32>
// CHECK: prec.all_gather %{{.*}} grad_inter_host_dtype = f8E4M3FN grad_inter_host_scaling = <block, block_size = 2> : tensor<2xf32> -> tensor<16xf32>
// CHECK-NOT: prec.all_gather
// CHECK: return
func.func @fp8_inter_host_dtypes(%a: tensor<16xf32>, %b: tensor<2xf32>)
    -> (tensor<2xf32>, tensor<2xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) {
  %s1 = prec.reduce_scatter %a on @hosts scatter_axis = 0 forward_dtype = bf16
          acc_dtype = f32 inter_host_dtype = f8E4M3FN inter_host_scaling = <dynamic>
          : tensor<16xf32> -> tensor<2xf32>
  %s2 = prec.reduce_scatter %a on @hosts scatter_axis = 0 forward_dtype = bf16
          acc_dtype = f32 inter_host_dtype = f8E4M3FN inter_host_scaling = <dynamic>
          : tensor<16xf32> -> tensor<2xf32>
  %g1 = prec.all_gather %b on @hosts gather_axis = 0 grad_inter_host_dtype = f8E4M3FN
          grad_inter_host_scaling = <dynamic> : tensor<2xf32> -> tensor<16xf32>
  %g2 = prec.all_gather %b on @hosts gather_axis = 0 grad_inter_host_dtype = f8E4M3FN
          grad_inter_host_scaling = <dynamic> : tensor<2xf32> -> tensor<16xf32>
  %g3 = prec.all_gather %b on @hosts gather_axis = 0 grad_inter_host_dtype = f8E4M3FN
          grad_inter_host_scaling = <block, block_size = 2> : tensor<2xf32> -> tensor<16xf32>
  return %s1, %s2, %g1, %g2, %g3 : tensor<2xf32>, tensor<2xf32>, tensor<16xf32>, tensor<16xf32>,
    tensor<16xf32>
}

// So is the dtype of the gradient's partial sums between hosts for gathers
// (the merged gather's gradient is one reduce_scatter): a bucket whose
// gradient's partial sums cross hosts in bf16 and one in f32 (the default,
// the same written or not).
// CHECK-LABEL: func.func @grad_inter_host_dtypes
// CHECK: prec.all_gather %{{.*}} on @hosts gather_axis = 0 forward_dtype = f32 backward_dtype = f32 grad_inter_host_dtype = bf16 : tensor<4xf32> -> tensor<32xf32>
// CHECK: prec.all_gather %{{.*}} on @hosts gather_axis = 0 forward_dtype = f32 backward_dtype = f32 : tensor<4xf32> -> tensor<32xf32>
// CHECK-NOT: prec.all_gather
// CHECK: return
func.func @grad_inter_host_dtypes(%a: tensor<2xf32>)
    -> (tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) {
  %g1 = prec.all_gather %a on @hosts gather_axis = 0 grad_inter_host_dtype = bf16
          : tensor<2xf32> -> tensor<16xf32>
  %g2 = prec.all_gather %a on @hosts gather_axis = 0 : tensor<2xf32> -> tensor<16xf32>
  %g3 = prec.all_gather %a on @hosts gather_axis = 0 grad_inter_host_dtype = bf16
          : tensor<2xf32> -> tensor<16xf32>
  %g4 = prec.all_gather %a on @hosts gather_axis = 0 grad_inter_host_dtype = f32
          : tensor<2xf32> -> tensor<16xf32>
  return %g1, %g2, %g3, %g4 : tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>
}

// An all_reduce's gradient is an all_reduce of the merged op: all_reduces
// merge only with those whose gradients cross hosts in the same dtype.
// CHECK-LABEL: func.func @all_reduce_grad_inter_host_dtypes
// CAP-LABEL: func.func @all_reduce_grad_inter_host_dtypes
// CHECK: prec.all_reduce %{{.*}} on @hosts forward_dtype = f32 backward_dtype = f32 acc_dtype = f32 grad_inter_host_dtype = bf16 : tensor<16xf32> -> tensor<16xf32>
// CHECK: prec.all_reduce %{{.*}} on @hosts : tensor<2xf32> -> tensor<2xf32>
// CHECK-NOT: prec.all_reduce
// CHECK: return
func.func @all_reduce_grad_inter_host_dtypes(%a: tensor<2xf32>)
    -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) {
  %r1 = prec.all_reduce %a on @hosts grad_inter_host_dtype = bf16
          : tensor<2xf32> -> tensor<2xf32>
  %r2 = prec.all_reduce %a on @hosts : tensor<2xf32> -> tensor<2xf32>
  %r3 = prec.all_reduce %a on @hosts grad_inter_host_dtype = bf16
          : tensor<2xf32> -> tensor<2xf32>
  return %r1, %r2, %r3 : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
}
