// RUN: prec-opt %s --split-input-file --prec-accumulate-microbatches -verify-diagnostics | FileCheck %s --enable-var-scope
// Scheduling consumes prec.microbatches, so a second run changes nothing.
// RUN: prec-opt %s --split-input-file --prec-accumulate-microbatches --prec-accumulate-microbatches -verify-diagnostics | FileCheck %s --enable-var-scope

// HSDP on 4 replicas x 8 shards with 2 microbatches: reduce-scatter each
// microbatch over the shard axis, accumulate the shard, add it before the one
// all-reduce over the replicate axis. The averages (1/8 then 1/4) become one
// divide by 32 after the all-reduce, so every rank ends with
// (1/32) * sum over all 32 ranks of (g1 + g2).

shard.grid @hsdp(shape = 4x8)

// CHECK-LABEL: func @hsdp_two_microbatches
// CHECK-SAME: (%[[G:.*]]: tensor<2x256xf32>)
// CHECK-NOT: prec.microbatches
func.func @hsdp_two_microbatches(%g: tensor<2x256xf32>) -> tensor<32xf32>
    attributes {prec.microbatches = 2 : i64} {
  // CHECK-DAG: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : tensor<32xf32>
  // CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
  // CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
  // CHECK-DAG: %[[C2:.*]] = arith.constant 2 : index
  // CHECK: %[[ACC:.*]] = scf.for %[[I:.*]] = %[[C0]] to %[[C2]] step %[[C1]] iter_args(%[[A:.*]] = %[[ZERO]]) -> (tensor<32xf32>) {
  // CHECK:   %[[GI:.*]] = tensor.extract_slice %[[G]][%[[I]], 0] [1, 256] [1, 1] : tensor<2x256xf32> to tensor<256xf32>
  // CHECK:   %[[SI:.*]] = prec.reduce_scatter %[[GI]] on @hsdp grid_axes = [1] scatter_axis = 0
  // CHECK-SAME: forward_dtype = f32 backward_dtype = f32 acc_dtype = f32 : tensor<256xf32> -> tensor<32xf32>
  // CHECK:   %[[NEXT:.*]] = arith.addf %[[A]], %[[SI]] : tensor<32xf32>
  // CHECK:   scf.yield %[[NEXT]] : tensor<32xf32>
  // CHECK: }
  // CHECK: %[[SUM:.*]] = prec.all_reduce %[[ACC]] on @hsdp grid_axes = [0]
  // CHECK-SAME: forward_dtype = f32 backward_dtype = f32 acc_dtype = f32 post_divisor = 3.200000e+01 : tensor<32xf32> -> tensor<32xf32>
  // CHECK: return %[[SUM]] : tensor<32xf32>
  // CHECK-NOT: prec.all_reduce
  // CHECK-NOT: prec.reduce
  %s = prec.reduce_scatter %g on @hsdp grid_axes = [1] scatter_axis = 1 reduction = <avg>
         : tensor<2x256xf32> -> tensor<2x32xf32>
  %r = prec.all_reduce %s on @hsdp grid_axes = [0] reduction = <avg>
         : tensor<2x32xf32> -> tensor<2x32xf32>
  %sum = prec.reduce %r dims = [0] : tensor<2x32xf32> -> tensor<32xf32>
  return %sum : tensor<32xf32>
}

// The dtypes stay as annotated: a bf16 wire on both collectives, partial
// shards kept in the microbatch sum's f32, rounded once to the bf16 result.
// CHECK-LABEL: func @bf16_wire
func.func @bf16_wire(%g: tensor<4x2x256xbf16>) -> tensor<2x32xbf16>
    attributes {prec.microbatches = 4 : i64} {
  // CHECK: scf.for {{.*}} -> (tensor<2x32xf32>) {
  // CHECK:   tensor.extract_slice %{{.*}}[%{{.*}}, 0, 0] [1, 2, 256] [1, 1, 1] : tensor<4x2x256xbf16> to tensor<2x256xbf16>
  // CHECK:   prec.reduce_scatter %{{.*}} grid_axes = [1] scatter_axis = 1 forward_dtype = bf16 backward_dtype = bf16 acc_dtype = f32 : tensor<2x256xbf16> -> tensor<2x32xf32>
  // CHECK: prec.all_reduce %{{.*}} grid_axes = [0] forward_dtype = bf16 backward_dtype = bf16 acc_dtype = f32 post_divisor = 3.200000e+01 : tensor<2x32xf32> -> tensor<2x32xbf16>
  %s = prec.reduce_scatter %g on @hsdp grid_axes = [1] scatter_axis = 2 reduction = <avg>
         : tensor<4x2x256xbf16> -> tensor<4x2x32xbf16>
  %r = prec.all_reduce %s on @hsdp grid_axes = [0] reduction = <avg>
         : tensor<4x2x32xbf16> -> tensor<4x2x32xbf16>
  %sum = prec.reduce %r dims = [0] acc_dtype = f32 : tensor<4x2x32xbf16> -> tensor<2x32xbf16>
  return %sum : tensor<2x32xbf16>
}

// f16 accumulation splits the divisor 32 as in prec-divide-factors: the
// pre-divisor goes to the first sum (the reduce-scatter), the rest after the
// all-reduce.
// CHECK-LABEL: func @f16_accumulation
func.func @f16_accumulation(%g: tensor<2x256xf16>) -> tensor<32xf16>
    attributes {prec.microbatches = 2 : i64} {
  // CHECK: scf.for
  // CHECK:   prec.reduce_scatter {{.*}} acc_dtype = f16 pre_divisor = 8.000000e+00 : tensor<256xf16> -> tensor<32xf32>
  // CHECK: prec.all_reduce {{.*}} acc_dtype = f16 post_divisor = 4.000000e+00 : tensor<32xf32> -> tensor<32xf16>
  %s = prec.reduce_scatter %g on @hsdp grid_axes = [1] scatter_axis = 1 reduction = <avg>
         acc_dtype = f16 : tensor<2x256xf16> -> tensor<2x32xf16>
  %r = prec.all_reduce %s on @hsdp grid_axes = [0] reduction = <avg> acc_dtype = f16
         : tensor<2x32xf16> -> tensor<2x32xf16>
  %sum = prec.reduce %r dims = [0] : tensor<2x32xf16> -> tensor<32xf16>
  return %sum : tensor<32xf16>
}

// Microbatches that are summed add terms but not divisor: 2 x 3 ranks x 2
// microbatches are 12 terms under an average over 6 ranks. The split takes
// its pre-divisor from the 12 terms (4, as for an average over 12) rather
// than from the divisor 6 (2), so that the f16 sums keep the same headroom:
// inputs of 11000 reach 33000 in the all-reduce, where 2 would reach 66000,
// past f16's 65504.
shard.grid @small(shape = 2x3)
// CHECK-LABEL: func @f16_summed_microbatches
func.func @f16_summed_microbatches(%g: tensor<2x6xf16>) -> tensor<2xf16>
    attributes {prec.microbatches = 2 : i64} {
  // CHECK: scf.for
  // CHECK:   prec.reduce_scatter {{.*}} acc_dtype = f16 pre_divisor = 4.000000e+00 : tensor<6xf16> -> tensor<2xf32>
  // CHECK: prec.all_reduce {{.*}} acc_dtype = f16 post_divisor = 1.500000e+00 : tensor<2xf32> -> tensor<2xf16>
  %s = prec.reduce_scatter %g on @small grid_axes = [1] scatter_axis = 1 reduction = <avg>
         acc_dtype = f16 : tensor<2x6xf16> -> tensor<2x2xf16>
  %r = prec.all_reduce %s on @small grid_axes = [0] reduction = <avg> acc_dtype = f16
         : tensor<2x2xf16> -> tensor<2x2xf16>
  %m = prec.reduce %r dims = [0] : tensor<2x2xf16> -> tensor<2xf16>
  return %m : tensor<2xf16>
}

// Only the averaging steps divide: a summed reduce-scatter and an averaged
// all-reduce divide by 4; averaging over the microbatches too gives 4 x 2.
// CHECK-LABEL: func @partial_averages
func.func @partial_averages(%g: tensor<2x256xf32>) -> (tensor<32xf32>, tensor<32xf32>, tensor<32xf32>)
    attributes {prec.microbatches = 2 : i64} {
  // CHECK: prec.reduce_scatter {{.*}}acc_dtype = f32 : tensor<256xf32> -> tensor<32xf32>
  // CHECK: prec.all_reduce {{.*}} post_divisor = 4.000000e+00 :
  %s = prec.reduce_scatter %g on @hsdp grid_axes = [1] scatter_axis = 1
         : tensor<2x256xf32> -> tensor<2x32xf32>
  %r = prec.all_reduce %s on @hsdp grid_axes = [0] reduction = <avg>
         : tensor<2x32xf32> -> tensor<2x32xf32>
  %sum = prec.reduce %r dims = [0] : tensor<2x32xf32> -> tensor<32xf32>
  // CHECK: prec.all_reduce {{.*}} post_divisor = 8.000000e+00 :
  %s2 = prec.reduce_scatter %g on @hsdp grid_axes = [1] scatter_axis = 1
          : tensor<2x256xf32> -> tensor<2x32xf32>
  %r2 = prec.all_reduce %s2 on @hsdp grid_axes = [0] reduction = <avg>
          : tensor<2x32xf32> -> tensor<2x32xf32>
  %mean = prec.reduce %r2 dims = [0] reduction = <avg> : tensor<2x32xf32> -> tensor<32xf32>
  // All sums: no divisor at all.
  // CHECK: prec.all_reduce %{{[^ ]*}} on @hsdp grid_axes = [0] forward_dtype = f32 backward_dtype = f32 acc_dtype = f32 : tensor<32xf32>
  %s3 = prec.reduce_scatter %g on @hsdp grid_axes = [1] scatter_axis = 1
          : tensor<2x256xf32> -> tensor<2x32xf32>
  %r3 = prec.all_reduce %s3 on @hsdp grid_axes = [0]
          : tensor<2x32xf32> -> tensor<2x32xf32>
  %total = prec.reduce %r3 dims = [0] : tensor<2x32xf32> -> tensor<32xf32>
  return %sum, %mean, %total : tensor<32xf32>, tensor<32xf32>, tensor<32xf32>
}

// Without prec.microbatches nothing changes.
// CHECK-LABEL: func @no_microbatches
func.func @no_microbatches(%g: tensor<2x256xf32>) -> tensor<32xf32> {
  // CHECK-NOT: scf.for
  // CHECK: prec.reduce_scatter
  // CHECK: prec.all_reduce
  // CHECK: prec.reduce
  %s = prec.reduce_scatter %g on @hsdp grid_axes = [1] scatter_axis = 1 reduction = <avg>
         : tensor<2x256xf32> -> tensor<2x32xf32>
  %r = prec.all_reduce %s on @hsdp grid_axes = [0] reduction = <avg>
         : tensor<2x32xf32> -> tensor<2x32xf32>
  %sum = prec.reduce %r dims = [0] : tensor<2x32xf32> -> tensor<32xf32>
  return %sum : tensor<32xf32>
}

// -----

shard.grid @hsdp(shape = 4x8)

func.func @overlapping_axes(%g: tensor<2x256xf32>) -> tensor<32xf32>
    attributes {prec.microbatches = 2 : i64} {
  %s = prec.reduce_scatter %g on @hsdp grid_axes = [1] scatter_axis = 1 reduction = <avg>
         : tensor<2x256xf32> -> tensor<2x32xf32>
  // expected-error @+1 {{'prec.all_reduce' op expected replicate axes disjoint from the reduce_scatter's shard axes, both reduce over grid axis 1}}
  %r = prec.all_reduce %s on @hsdp reduction = <avg> : tensor<2x32xf32> -> tensor<2x32xf32>
  %sum = prec.reduce %r dims = [0] : tensor<2x32xf32> -> tensor<32xf32>
  return %sum : tensor<32xf32>
}

// -----

shard.grid @hsdp(shape = 4x8)

func.func @shard_used_elsewhere(%g: tensor<2x256xf32>) -> (tensor<32xf32>, tensor<2x32xf32>)
    attributes {prec.microbatches = 2 : i64} {
  %s = prec.reduce_scatter %g on @hsdp grid_axes = [1] scatter_axis = 1 reduction = <avg>
         : tensor<2x256xf32> -> tensor<2x32xf32>
  // expected-error @+1 {{'prec.all_reduce' op expected the input of a microbatch all_reduce to be a prec.reduce_scatter used only by it}}
  %r = prec.all_reduce %s on @hsdp grid_axes = [0] reduction = <avg> : tensor<2x32xf32> -> tensor<2x32xf32>
  %sum = prec.reduce %r dims = [0] : tensor<2x32xf32> -> tensor<32xf32>
  return %sum, %s : tensor<32xf32>, tensor<2x32xf32>
}

// -----

shard.grid @hsdp(shape = 4x8)

func.func @wrong_microbatch_count(%g: tensor<2x256xf32>) -> tensor<32xf32>
    attributes {prec.microbatches = 4 : i64} {
  // expected-error @+1 {{'prec.reduce_scatter' op expected dimension 0 (the microbatch dimension) of size 4, got 2}}
  %s = prec.reduce_scatter %g on @hsdp grid_axes = [1] scatter_axis = 1 reduction = <avg>
         : tensor<2x256xf32> -> tensor<2x32xf32>
  %r = prec.all_reduce %s on @hsdp grid_axes = [0] reduction = <avg> : tensor<2x32xf32> -> tensor<2x32xf32>
  %sum = prec.reduce %r dims = [0] : tensor<2x32xf32> -> tensor<32xf32>
  return %sum : tensor<32xf32>
}

// -----

shard.grid @hsdp(shape = 4x8)

func.func @scatter_over_microbatches(%g: tensor<16x32xf32>) -> tensor<32xf32>
    attributes {prec.microbatches = 2 : i64} {
  // expected-error @+1 {{'prec.reduce_scatter' op expected a scatter_axis other than the microbatch dimension 0}}
  %s = prec.reduce_scatter %g on @hsdp grid_axes = [1] scatter_axis = 0 reduction = <avg>
         : tensor<16x32xf32> -> tensor<2x32xf32>
  %r = prec.all_reduce %s on @hsdp grid_axes = [0] reduction = <avg> : tensor<2x32xf32> -> tensor<2x32xf32>
  %sum = prec.reduce %r dims = [0] : tensor<2x32xf32> -> tensor<32xf32>
  return %sum : tensor<32xf32>
}

// -----

shard.grid @hsdp(shape = 4x8)

func.func @divisors_already_explicit(%g: tensor<2x256xf32>) -> tensor<32xf32>
    attributes {prec.microbatches = 2 : i64} {
  %s = prec.reduce_scatter %g on @hsdp grid_axes = [1] scatter_axis = 1
         : tensor<2x256xf32> -> tensor<2x32xf32>
  // expected-error @+1 {{'prec.all_reduce' op expected no explicit divisors in a microbatch sum: prec-accumulate-microbatches computes them for the whole schedule (run it before prec-divide-factors)}}
  %r = prec.all_reduce %s on @hsdp grid_axes = [0] post_divisor = 32.0 : tensor<2x32xf32> -> tensor<2x32xf32>
  %sum = prec.reduce %r dims = [0] : tensor<2x32xf32> -> tensor<32xf32>
  return %sum : tensor<32xf32>
}

// -----

shard.grid @hsdp(shape = 4x8)

// expected-error @+1 {{'func.func' op has prec.microbatches but no microbatch sum 'prec.reduce dims = [0]' of a prec.all_reduce of a prec.reduce_scatter, and no microbatch loop accumulating a prec.all_reduce}}
func.func @nothing_to_schedule(%g: tensor<256xf32>) -> tensor<32xf32>
    attributes {prec.microbatches = 2 : i64} {
  %s = prec.reduce_scatter %g on @hsdp grid_axes = [1] scatter_axis = 0 reduction = <avg>
         : tensor<256xf32> -> tensor<32xf32>
  return %s : tensor<32xf32>
}

// -----

// A microbatch loop around a generated backward function (here @grad_shard,
// which reduce-scatters over the shard axis): the all-reduce over the
// replicate axis moves after the loop, which accumulates the shards from
// zero; the loop's initial value is added after the one all-reduce.

shard.grid @hsdp(shape = 2x2)
func.func private @grad_shard(%x: tensor<4xf32>) -> tensor<2xf32>

// CHECK-LABEL: func @loop_of_microbatches
// CHECK-SAME: (%[[X:.*]]: tensor<2x4xf32>, %[[INIT:.*]]: tensor<2xf32>)
// CHECK-NOT: prec.microbatches
func.func @loop_of_microbatches(%x: tensor<2x4xf32>, %init: tensor<2xf32>) -> tensor<2xf32>
    attributes {prec.microbatches = 2 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  // CHECK: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : tensor<2xf32>
  // CHECK: %[[SUM:.*]] = scf.for {{.*}} iter_args(%[[ACC:.*]] = %[[ZERO]])
  // CHECK:   %[[G:.*]] = func.call @grad_shard
  // CHECK-NOT: prec.all_reduce
  // CHECK:   %[[NEXT:.*]] = arith.addf %[[ACC]], %[[G]] : tensor<2xf32>
  // CHECK:   scf.yield %[[NEXT]]
  // CHECK: %[[R:.*]] = prec.all_reduce %[[SUM]] on @hsdp grid_axes = [0] reduction = <avg>
  // CHECK: %[[TOTAL:.*]] = arith.addf %[[INIT]], %[[R]] : tensor<2xf32>
  // CHECK: return %[[TOTAL]]
  %sum = scf.for %i = %c0 to %c2 step %c1 iter_args(%acc = %init) -> tensor<2xf32> {
    %xs = tensor.extract_slice %x[%i, 0] [1, 4] [1, 1] : tensor<2x4xf32> to tensor<4xf32>
    %g = func.call @grad_shard(%xs) : (tensor<4xf32>) -> tensor<2xf32>
    %r = prec.all_reduce %g on @hsdp grid_axes = [0] reduction = <avg> : tensor<2xf32> -> tensor<2xf32>
    %next = arith.addf %acc, %r : tensor<2xf32>
    scf.yield %next : tensor<2xf32>
  }
  return %sum : tensor<2xf32>
}

// -----

shard.grid @hsdp(shape = 2x2)
func.func private @grad_shard(%x: tensor<4xf32>) -> tensor<2xf32>

func.func @loop_of_three(%x: tensor<3x4xf32>) -> tensor<2xf32>
    attributes {prec.microbatches = 2 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %zero = arith.constant dense<0.0> : tensor<2xf32>
  // expected-error @+1 {{'scf.for' op expected a microbatch loop of 2 iterations, got 3}}
  %sum = scf.for %i = %c0 to %c3 step %c1 iter_args(%acc = %zero) -> tensor<2xf32> {
    %xs = tensor.extract_slice %x[%i, 0] [1, 4] [1, 1] : tensor<3x4xf32> to tensor<4xf32>
    %g = func.call @grad_shard(%xs) : (tensor<4xf32>) -> tensor<2xf32>
    %r = prec.all_reduce %g on @hsdp grid_axes = [0] reduction = <sum> : tensor<2xf32> -> tensor<2xf32>
    %next = arith.addf %r, %acc : tensor<2xf32>
    scf.yield %next : tensor<2xf32>
  }
  return %sum : tensor<2xf32>
}
