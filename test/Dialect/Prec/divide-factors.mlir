// RUN: prec-opt %s --split-input-file --prec-divide-factors -verify-diagnostics | FileCheck %s --enable-var-scope

// f32 and bf16 accumulate with f32's range: one divide by N, after the sum.
// Group sizes N = 1, 2, 6, 8, 32.

shard.grid @one(shape = 1)
shard.grid @two(shape = 2)
shard.grid @six(shape = 6)
shard.grid @eight(shape = 8)
shard.grid @dp(shape = 32)

// CHECK-LABEL: func @wide_accumulation
func.func @wide_accumulation(%x: tensor<96xf32>, %b: tensor<96xbf16>) {
  // A one-rank average is a plain sum.
  // CHECK: prec.all_reduce %{{.*}} on @one acc_dtype = f32 :
  %0 = prec.all_reduce %x on @one reduction = <avg> acc_dtype = f32 : tensor<96xf32> -> tensor<96xf32>
  // CHECK: prec.all_reduce %{{.*}} on @two acc_dtype = f32 post_divisor = 2.000000e+00 :
  %1 = prec.all_reduce %x on @two reduction = <avg> acc_dtype = f32 : tensor<96xf32> -> tensor<96xf32>
  // CHECK: prec.all_reduce %{{.*}} on @six acc_dtype = f32 post_divisor = 6.000000e+00 :
  %2 = prec.all_reduce %x on @six reduction = <avg> acc_dtype = f32 : tensor<96xf32> -> tensor<96xf32>
  // A bf16 wire accumulating in f32 (the default) divides after the f32 sum.
  // CHECK: prec.reduce_scatter %{{.*}} on @eight scatter_axis = 0 forward_dtype = bf16 post_divisor = 8.000000e+00 :
  %3 = prec.reduce_scatter %x on @eight scatter_axis = 0 reduction = <avg> forward_dtype = bf16 : tensor<96xf32> -> tensor<12xf32>
  // bf16 accumulation (a bf16 ring) has f32's exponent range: no split.
  // CHECK: prec.all_reduce %{{.*}} on @dp acc_dtype = bf16 post_divisor = 3.200000e+01 :
  %4 = prec.all_reduce %b on @dp reduction = <avg> acc_dtype = bf16 : tensor<96xbf16> -> tensor<96xbf16>
  // An f16 wire into an f32 sum cannot overflow the sum: one divide.
  // CHECK: prec.all_reduce %{{.*}} on @dp forward_dtype = f16 acc_dtype = f32 post_divisor = 3.200000e+01 :
  %5 = prec.all_reduce %x on @dp reduction = <avg> forward_dtype = f16 acc_dtype = f32 : tensor<96xf32> -> tensor<96xf32>
  return
}

// f16 accumulation: pre_divisor = the power of two nearest sqrt(N), ties
// upwards; post_divisor = N / pre_divisor. FSDP2's split on powers of two
// (32 -> 8 x 4, 8 -> 4 x 2, 2 -> 2 x 1); 6 -> 2 x 3 (FSDP2: 4 x 1.5).
// CHECK-LABEL: func @f16_accumulation
func.func @f16_accumulation(%h: tensor<96xf16>) {
  // CHECK: prec.all_reduce %{{.*}} on @one acc_dtype = f16 :
  %0 = prec.all_reduce %h on @one reduction = <avg> acc_dtype = f16 : tensor<96xf16> -> tensor<96xf16>
  // CHECK: prec.all_reduce %{{.*}} on @two acc_dtype = f16 pre_divisor = 2.000000e+00 :
  %1 = prec.all_reduce %h on @two reduction = <avg> acc_dtype = f16 : tensor<96xf16> -> tensor<96xf16>
  // CHECK: prec.all_reduce %{{.*}} on @six acc_dtype = f16 pre_divisor = 2.000000e+00 post_divisor = 3.000000e+00 :
  %2 = prec.all_reduce %h on @six reduction = <avg> acc_dtype = f16 : tensor<96xf16> -> tensor<96xf16>
  // CHECK: prec.all_reduce %{{.*}} on @eight acc_dtype = f16 pre_divisor = 4.000000e+00 post_divisor = 2.000000e+00 :
  %3 = prec.all_reduce %h on @eight reduction = <avg> acc_dtype = f16 : tensor<96xf16> -> tensor<96xf16>
  // CHECK: prec.reduce_scatter %{{.*}} on @dp scatter_axis = 0 acc_dtype = f16 pre_divisor = 8.000000e+00 post_divisor = 4.000000e+00 :
  %4 = prec.reduce_scatter %h on @dp scatter_axis = 0 reduction = <avg> acc_dtype = f16 : tensor<96xf16> -> tensor<3xf16>
  return
}

// Sums, maxima and minima are left alone.
// CHECK-LABEL: func @not_averages
func.func @not_averages(%x: tensor<96xf32>) {
  // CHECK: prec.all_reduce %{{.*}} on @dp : tensor
  // CHECK: prec.all_reduce %{{.*}} on @dp reduction = <max> : tensor
  // CHECK-NOT: divisor
  %0 = prec.all_reduce %x on @dp : tensor<96xf32> -> tensor<96xf32>
  %1 = prec.all_reduce %x on @dp reduction = <max> : tensor<96xf32> -> tensor<96xf32>
  return
}

// -----

// HSDP on 4 replicas x 8 shards: N is the size of the group each op reduces
// over in this step, never the whole grid's unless it reduces over all of it.
shard.grid @hsdp(shape = 4x8)

// CHECK-LABEL: func @hsdp_step
func.func @hsdp_step(%g: tensor<256xf32>, %s: tensor<32xf32>, %h: tensor<256xf16>) {
  // CHECK: prec.reduce_scatter %{{.*}} grid_axes = [1] scatter_axis = 0 post_divisor = 8.000000e+00 :
  %0 = prec.reduce_scatter %g on @hsdp grid_axes = [1] scatter_axis = 0 reduction = <avg> : tensor<256xf32> -> tensor<32xf32>
  // CHECK: prec.all_reduce %{{.*}} grid_axes = [0] post_divisor = 4.000000e+00 :
  %1 = prec.all_reduce %s on @hsdp grid_axes = [0] reduction = <avg> : tensor<32xf32> -> tensor<32xf32>
  // CHECK: prec.all_reduce %{{.*}} on @hsdp post_divisor = 3.200000e+01 :
  %2 = prec.all_reduce %s on @hsdp reduction = <avg> : tensor<32xf32> -> tensor<32xf32>
  // CHECK: prec.all_reduce %{{.*}} grid_axes = [0, 1] post_divisor = 3.200000e+01 :
  %3 = prec.all_reduce %s on @hsdp grid_axes = [0, 1] reduction = <avg> : tensor<32xf32> -> tensor<32xf32>
  // f16 over the shard axis (8) and over the replicate axis (4).
  // CHECK: prec.reduce_scatter %{{.*}} grid_axes = [1] scatter_axis = 0 acc_dtype = f16 pre_divisor = 4.000000e+00 post_divisor = 2.000000e+00 :
  %4 = prec.reduce_scatter %h on @hsdp grid_axes = [1] scatter_axis = 0 reduction = <avg> acc_dtype = f16 : tensor<256xf16> -> tensor<32xf16>
  // CHECK: prec.all_reduce %{{.*}} grid_axes = [0] acc_dtype = f16 pre_divisor = 2.000000e+00 post_divisor = 2.000000e+00 :
  %5 = prec.all_reduce %4 on @hsdp grid_axes = [0] reduction = <avg> acc_dtype = f16 : tensor<32xf16> -> tensor<32xf16>
  return
}

// -----

shard.grid @elastic(shape = 4x?)

func.func @dynamic_group(%g: tensor<32xf32>) {
  // The replicate axis alone is static: fine.
  %0 = prec.all_reduce %g on @elastic grid_axes = [0] reduction = <avg> : tensor<32xf32> -> tensor<32xf32>
  // expected-error @+1 {{'prec.all_reduce' op needs a static group size for its divide factors, but grid @elastic has a dynamic size on a reduced axis}}
  %1 = prec.all_reduce %g on @elastic reduction = <avg> : tensor<32xf32> -> tensor<32xf32>
  return
}
