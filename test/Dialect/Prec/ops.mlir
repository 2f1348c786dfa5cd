// RUN: prec-opt %s | prec-opt | FileCheck %s --enable-var-scope
// RUN: prec-opt %s --mlir-print-op-generic | prec-opt | FileCheck %s --enable-var-scope

shard.grid @dp(shape = 8)
shard.grid @hsdp(shape = 4x8)
shard.grid @dyn(shape = ?x4)

// CHECK-LABEL: func @collectives
// CHECK-SAME: (%[[W:.*]]: tensor<128x512xf32>, %[[G:.*]]: tensor<1024x512xf32>, %[[X:.*]]: tensor<64x16xf32>, %[[SEED:.*]]: i64)
func.func @collectives(%w: tensor<128x512xf32>, %g: tensor<1024x512xf32>,
                       %x: tensor<64x16xf32>, %seed: i64) {
  // CHECK: prec.all_gather %[[W]] on @dp gather_axis = 0 forward_dtype = bf16 backward_dtype = f32 : tensor<128x512xf32> -> tensor<1024x512xbf16>
  %0 = prec.all_gather %w on @dp gather_axis = 0 forward_dtype = bf16 backward_dtype = f32
         : tensor<128x512xf32> -> tensor<1024x512xbf16>
  // Defaults are elided: all grid axes, nearest-even rounding, avg gradient.
  // CHECK: prec.all_gather %[[W]] on @dp gather_axis = 0 : tensor<128x512xf32> -> tensor<1024x512xf32>
  %1 = prec.all_gather %w on @dp grid_axes = [] gather_axis = 0 rounding = <nearest_even>
         grad_reduction = <avg> : tensor<128x512xf32> -> tensor<1024x512xf32>
  // CHECK: prec.all_gather %[[W]] on @dp gather_axis = 1 grad_reduction = <sum> : tensor<128x512xf32> -> tensor<128x4096xf32>
  %2 = prec.all_gather %w on @dp gather_axis = 1 grad_reduction = <sum>
         : tensor<128x512xf32> -> tensor<128x4096xf32>
  // CHECK: prec.reduce_scatter %[[G]] on @dp scatter_axis = 0 reduction = <avg> forward_dtype = bf16 acc_dtype = f32 : tensor<1024x512xf32> -> tensor<128x512xf32>
  %3 = prec.reduce_scatter %g on @dp scatter_axis = 0 reduction = <avg>
         forward_dtype = bf16 acc_dtype = f32 : tensor<1024x512xf32> -> tensor<128x512xf32>
  // CHECK: prec.reduce_scatter %[[G]] on @hsdp grid_axes = [1] scatter_axis = 0 : tensor<1024x512xf32> -> tensor<128x512xf32>
  %4 = prec.reduce_scatter %g on @hsdp grid_axes = [1] scatter_axis = 0
         : tensor<1024x512xf32> -> tensor<128x512xf32>
  // CHECK: prec.all_reduce %[[W]] on @hsdp grid_axes = [0] reduction = <max> rounding = <stochastic> seed %[[SEED]] acc_dtype = f64 : tensor<128x512xf32> -> tensor<128x512xf32>
  %5 = prec.all_reduce %w on @hsdp grid_axes = [0] reduction = <max> rounding = <stochastic> seed %seed
         acc_dtype = f64 : tensor<128x512xf32> -> tensor<128x512xf32>
  // CHECK: prec.all_reduce %[[W]] on @hsdp grid_axes = [1, 0] reduction = <min> : tensor<128x512xf32> -> tensor<128x512xf16>
  %6 = prec.all_reduce %w on @hsdp grid_axes = [1, 0] reduction = <min>
         : tensor<128x512xf32> -> tensor<128x512xf16>
  // CHECK: prec.all_to_all %[[X]] on @dp split_axis = 0 concat_axis = 1 forward_dtype = bf16 backward_dtype = f32 : tensor<64x16xf32> -> tensor<8x128xbf16>
  %7 = prec.all_to_all %x on @dp split_axis = 0 concat_axis = 1 forward_dtype = bf16
         backward_dtype = f32 : tensor<64x16xf32> -> tensor<8x128xbf16>
  // CHECK: prec.all_to_all %[[X]] on @dp split_axis = 0 concat_axis = 0 : tensor<64x16xf32> -> tensor<64x16xf32>
  %8 = prec.all_to_all %x on @dp split_axis = 0 concat_axis = 0
         : tensor<64x16xf32> -> tensor<64x16xf32>
  // fp8 on the wire needs a scaling mode; the result is dequantized.
  // CHECK: prec.all_gather %[[W]] on @dp gather_axis = 0 forward_dtype = f8E4M3FN backward_dtype = f32 scaling = <dynamic> : tensor<128x512xf32> -> tensor<1024x512xbf16>
  %9 = prec.all_gather %w on @dp gather_axis = 0 forward_dtype = f8E4M3FN backward_dtype = f32
         scaling = <dynamic> : tensor<128x512xf32> -> tensor<1024x512xbf16>
  // CHECK: prec.reduce_scatter %[[G]] on @dp scatter_axis = 0 forward_dtype = f8E5M2 scaling = <block, block_size = 32, scale_dtype = f8E8M0FNU> acc_dtype = f32 : tensor<1024x512xf32> -> tensor<128x512xf32>
  %10 = prec.reduce_scatter %g on @dp scatter_axis = 0 forward_dtype = f8E5M2
          scaling = <block, block_size = 32, scale_dtype = f8E8M0FNU> acc_dtype = f32 : tensor<1024x512xf32> -> tensor<128x512xf32>
  return
}

// The keyword clauses after `on @grid` parse in any order; they print in one
// order, so the round trip is stable.
// CHECK-LABEL: func @clauses_in_any_order
// CHECK-SAME: (%[[W:.*]]: tensor<128x512xf32>, %[[G:.*]]: tensor<1024x512xf32>, %[[X:.*]]: tensor<64x16xf32>, %[[SEED:.*]]: i64)
func.func @clauses_in_any_order(%w: tensor<128x512xf32>, %g: tensor<1024x512xf32>,
                                %x: tensor<64x16xf32>, %seed: i64) {
  // CHECK: prec.all_gather %[[W]] on @hsdp grid_axes = [1] gather_axis = 0 forward_dtype = f8E4M3FN backward_dtype = bf16 rounding = <stochastic> seed %[[SEED]] scaling = <dynamic> grad_reduction = <sum> : tensor<128x512xf32> -> tensor<1024x512xbf16>
  %0 = prec.all_gather %w on @hsdp grad_reduction = <sum> scaling = <dynamic>
         backward_dtype = bf16 seed %seed gather_axis = 0 rounding = <stochastic>
         forward_dtype = f8E4M3FN grid_axes = [1]
         : tensor<128x512xf32> -> tensor<1024x512xbf16>
  // CHECK: prec.reduce_scatter %[[G]] on @hsdp grid_axes = [1] scatter_axis = 0 forward_dtype = bf16 backward_dtype = f32 acc_dtype = f32 pre_divisor = 2.000000e+00 post_divisor = 4.000000e+00 algorithm = <direct> : tensor<1024x512xf32> -> tensor<128x512xf32>
  %1 = prec.reduce_scatter %g on @hsdp algorithm = <direct> post_divisor = 4.0
         pre_divisor = 2.0 acc_dtype = f32 backward_dtype = f32 forward_dtype = bf16
         reduction = <sum> scatter_axis = 0 grid_axes = [1]
         : tensor<1024x512xf32> -> tensor<128x512xf32>
  // CHECK: prec.all_reduce %[[W]] on @hsdp grid_axes = [0] reduction = <avg> forward_dtype = bf16 acc_dtype = f32 : tensor<128x512xf32> -> tensor<128x512xf32>
  %2 = prec.all_reduce %w on @hsdp acc_dtype = f32 forward_dtype = bf16
         reduction = <avg> grid_axes = [0] : tensor<128x512xf32> -> tensor<128x512xf32>
  // CHECK: prec.all_to_all %[[X]] on @dp split_axis = 0 concat_axis = 1 forward_dtype = bf16 backward_dtype = f32 : tensor<64x16xf32> -> tensor<8x128xbf16>
  %3 = prec.all_to_all %x on @dp backward_dtype = f32 concat_axis = 1 forward_dtype = bf16
         split_axis = 0 : tensor<64x16xf32> -> tensor<8x128xbf16>
  return
}

// Dynamic grid sizes and dynamic dimensions defer the shape checks.
// CHECK-LABEL: func @dynamic
func.func @dynamic(%w: tensor<?x512xf32>, %v: tensor<128x512xf32>) {
  // CHECK: prec.all_gather %{{.*}} on @dyn grid_axes = [0] gather_axis = 0 : tensor<128x512xf32> -> tensor<?x512xf32>
  %0 = prec.all_gather %v on @dyn grid_axes = [0] gather_axis = 0
         : tensor<128x512xf32> -> tensor<?x512xf32>
  // CHECK: prec.all_gather %{{.*}} on @dyn grid_axes = [0] gather_axis = 0 : tensor<128x512xf32> -> tensor<4096x512xf32>
  %1 = prec.all_gather %v on @dyn grid_axes = [0] gather_axis = 0
         : tensor<128x512xf32> -> tensor<4096x512xf32>
  // CHECK: prec.reduce_scatter %{{.*}} on @dp scatter_axis = 0 : tensor<?x512xf32> -> tensor<16x512xf32>
  %2 = prec.reduce_scatter %w on @dp scatter_axis = 0 : tensor<?x512xf32> -> tensor<16x512xf32>
  return
}

// CHECK-LABEL: func @casts_and_reductions
func.func @casts_and_reductions(%w: tensor<128x512xf32>, %x: tensor<64x128xbf16>, %s: f32,
                                %seed: i64) {
  // CHECK: prec.cast %{{.*}} backward_dtype = bf16 rounding = <stochastic> seed %{{.*}} : tensor<128x512xf32> to tensor<128x512xbf16>
  %0 = prec.cast %w backward_dtype = bf16 rounding = <stochastic> seed %seed
         : tensor<128x512xf32> to tensor<128x512xbf16>
  // CHECK: prec.cast %{{.*}} : f32 to f8E4M3FN
  %1 = prec.cast %s : f32 to f8E4M3FN
  // Clauses in any order, printed in one.
  // CHECK: prec.cast %{{[^ ]*}} backward_dtype = f32 rounding = <stochastic> seed %{{.*}} : tensor<128x512xf32> to tensor<128x512xbf16>
  %5 = prec.cast %w seed %seed rounding = <stochastic> backward_dtype = f32
         : tensor<128x512xf32> to tensor<128x512xbf16>
  // CHECK: prec.reduce %{{.*}} dims = [0, 1] reduction = <avg> acc_dtype = f32 : tensor<64x128xbf16> -> tensor<f32>
  %2 = prec.reduce %x dims = [0, 1] reduction = <avg> acc_dtype = f32
         : tensor<64x128xbf16> -> tensor<f32>
  // CHECK: prec.reduce %{{.*}} dims = [1] : tensor<64x128xbf16> -> tensor<64xbf16>
  %3 = prec.reduce %x dims = [1] : tensor<64x128xbf16> -> tensor<64xbf16>
  // Clauses in any order, printed in one.
  // CHECK: prec.reduce %{{[^ ]*}} dims = [0, 1] reduction = <avg> acc_dtype = f32 : tensor<64x128xbf16> -> tensor<f32>
  %4 = prec.reduce %x acc_dtype = f32 reduction = <avg> dims = [0, 1]
         : tensor<64x128xbf16> -> tensor<f32>
  return
}

// CHECK-LABEL: func @quantization
func.func @quantization(%w: tensor<128x512xf32>, %s: tensor<f32>, %x: tensor<64x128xbf16>,
                        %bs: tensor<64x4xf8E8M0FNU>, %seed: i64) {
  // CHECK: %[[Q:.*]] = prec.quantize %{{.*}} scale %{{.*}} scaling = <dynamic> : tensor<128x512xf32>, tensor<f32> -> tensor<128x512xf8E4M3FN>
  %q = prec.quantize %w scale %s scaling = <dynamic>
         : tensor<128x512xf32>, tensor<f32> -> tensor<128x512xf8E4M3FN>
  // CHECK: prec.quantize %{{.*}} scale %{{.*}} scaling = <block, block_size = 32, scale_dtype = f8E8M0FNU> rounding = <stochastic> seed %{{.*}} : tensor<64x128xbf16>, tensor<64x4xf8E8M0FNU> -> tensor<64x128xf8E4M3FN>
  %m = prec.quantize %x scale %bs scaling = <block, block_size = 32, scale_dtype = f8E8M0FNU>
         rounding = <stochastic> seed %seed
         : tensor<64x128xbf16>, tensor<64x4xf8E8M0FNU> -> tensor<64x128xf8E4M3FN>
  // Clauses in any order, printed in one.
  // CHECK: prec.quantize %{{[^ ]*}} scale %{{[^ ]*}} scaling = <dynamic> rounding = <stochastic> seed %{{.*}} : tensor<128x512xf32>, tensor<f32> -> tensor<128x512xf8E4M3FN>
  %q2 = prec.quantize %w scale %s seed %seed rounding = <stochastic> scaling = <dynamic>
          : tensor<128x512xf32>, tensor<f32> -> tensor<128x512xf8E4M3FN>
  // CHECK: prec.dequantize %[[Q]] scale %{{.*}} scaling = <dynamic> : tensor<128x512xf8E4M3FN>, tensor<f32> -> tensor<128x512xbf16>
  %d = prec.dequantize %q scale %s scaling = <dynamic>
         : tensor<128x512xf8E4M3FN>, tensor<f32> -> tensor<128x512xbf16>
  return
}

// CHECK-LABEL: func @optimizers
func.func @optimizers(%p: tensor<128xf32>, %g: tensor<128xbf16>, %m: tensor<128xf32>,
                      %v: tensor<128xf32>, %lr: f32, %step: f32, %seed: i64) {
  // CHECK: prec.sgd %{{.*}}, %{{.*}}, %{{.*}} : tensor<128xf32>, tensor<128xbf16>
  %0 = prec.sgd %p, %g, %lr : tensor<128xf32>, tensor<128xbf16>
  // CHECK: %{{.*}}, %{{.*}} = prec.sgd %{{.*}}, %{{.*}}, %{{.*}} weight_decay = 1.000000e-02 : tensor<128xf32>, tensor<128xbf16> -> tensor<128xbf16>
  %1:2 = prec.sgd %p, %g, %lr weight_decay = 1.0e-02
           : tensor<128xf32>, tensor<128xbf16> -> tensor<128xbf16>
  // CHECK: %{{.*}}, %{{.*}}, %{{.*}} = prec.adamw %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : tensor<128xf32>, tensor<128xbf16>
  %2:3 = prec.adamw %p, %g, %m, %v, %lr, %step : tensor<128xf32>, tensor<128xbf16>
  // CHECK: prec.adamw {{.*}} beta1 = 8.000000e-01 beta2 = {{.*}} eps = {{.*}} weight_decay = 0.000000e+00 : tensor<128xf32>, tensor<128xbf16> -> tensor<128xbf16>
  %3:4 = prec.adamw %p, %g, %m, %v, %lr, %step beta1 = 0.8 beta2 = 0.95 eps = 1.0e-06
           weight_decay = 0.0 : tensor<128xf32>, tensor<128xbf16> -> tensor<128xbf16>
  // CHECK: prec.sgd {{.*}} rounding = <stochastic> seed %{{.*}} : tensor<128xf32>, tensor<128xbf16> -> tensor<128xf8E4M3FN>
  %4:2 = prec.sgd %p, %g, %lr rounding = <stochastic> seed %seed
           : tensor<128xf32>, tensor<128xbf16> -> tensor<128xf8E4M3FN>
  // CHECK: prec.adamw {{.*}} rounding = <stochastic> seed %{{.*}} : tensor<128xf32>, tensor<128xbf16> -> tensor<128xbf16>
  %5:4 = prec.adamw %p, %g, %m, %v, %lr, %step rounding = <stochastic> seed %seed
           : tensor<128xf32>, tensor<128xbf16> -> tensor<128xbf16>
  // Clauses in any order, printed in one.
  // CHECK: prec.sgd {{.*}}, %{{[^ ]*}} weight_decay = 1.000000e-02 rounding = <stochastic> seed %{{.*}} : tensor<128xf32>, tensor<128xbf16> -> tensor<128xbf16>
  %6:2 = prec.sgd %p, %g, %lr seed %seed rounding = <stochastic> weight_decay = 1.0e-02
           : tensor<128xf32>, tensor<128xbf16> -> tensor<128xbf16>
  // CHECK: prec.adamw {{.*}}, %{{[^ ]*}} beta1 = 8.000000e-01 beta2 = {{[^ ]+}} eps = {{[^ ]+}} weight_decay = 0.000000e+00 rounding = <stochastic> seed %{{.*}} : tensor<128xf32>, tensor<128xbf16> -> tensor<128xbf16>
  %7:4 = prec.adamw %p, %g, %m, %v, %lr, %step seed %seed weight_decay = 0.0 eps = 1.0e-06
           rounding = <stochastic> beta2 = 0.95 beta1 = 0.8
           : tensor<128xf32>, tensor<128xbf16> -> tensor<128xbf16>
  return
}

// CHECK-LABEL: func @transports
func.func @transports(%x: tensor<32xbf16>, %y: tensor<64xf32>) {
  // CHECK: prec.transport <all_gather> %{{.*}} on @dp : tensor<32xbf16> -> tensor<256xbf16>
  %0 = prec.transport <all_gather> %x on @dp : tensor<32xbf16> -> tensor<256xbf16>
  // CHECK: prec.transport <all_to_all> %{{.*}} on @hsdp grid_axes = [1] : tensor<32xbf16> -> tensor<32xbf16>
  %1 = prec.transport <all_to_all> %x on @hsdp grid_axes = [1] : tensor<32xbf16> -> tensor<32xbf16>
  // CHECK: prec.transport <reduce_scatter> %{{.*}} on @dp reduction = <sum> : tensor<64xf32> -> tensor<8xf32>
  %2 = prec.transport <reduce_scatter> %y on @dp reduction = <sum> : tensor<64xf32> -> tensor<8xf32>
  // CHECK: prec.transport <all_reduce> %{{.*}} on @hsdp grid_axes = [0] reduction = <max> : tensor<64xf32> -> tensor<64xf32>
  %3 = prec.transport <all_reduce> %y on @hsdp grid_axes = [0] reduction = <max> : tensor<64xf32> -> tensor<64xf32>
  // CHECK: prec.transport <all_reduce> %{{[^ ]*}} on @hsdp grid_axes = [0] reduction = <sum> : tensor<64xf32> -> tensor<64xf32>
  %4 = prec.transport <all_reduce> %y on @hsdp reduction = <sum> grid_axes = [0] : tensor<64xf32> -> tensor<64xf32>
  return
}

// CHECK-LABEL: func @started_transports
func.func @started_transports(%x: tensor<32xbf16>, %y: tensor<64xf32>) -> (tensor<256xbf16>, tensor<8xf32>) {
  // CHECK: %[[G:.*]] = prec.transport_start <all_gather> %{{.*}} on @dp : tensor<32xbf16> -> !prec.in_flight<tensor<256xbf16>>
  %0 = prec.transport_start <all_gather> %x on @dp : tensor<32xbf16> -> !prec.in_flight<tensor<256xbf16>>
  // CHECK: %[[R:.*]] = prec.transport_start <reduce_scatter> %{{.*}} on @dp reduction = <sum> : tensor<64xf32> -> !prec.in_flight<tensor<8xf32>>
  %1 = prec.transport_start <reduce_scatter> %y on @dp reduction = <sum> : tensor<64xf32> -> !prec.in_flight<tensor<8xf32>>
  // CHECK: prec.transport_wait %[[R]] : !prec.in_flight<tensor<8xf32>>
  %2 = prec.transport_wait %1 : !prec.in_flight<tensor<8xf32>>
  // CHECK: prec.transport_wait %[[G]] : !prec.in_flight<tensor<256xbf16>>
  %3 = prec.transport_wait %0 : !prec.in_flight<tensor<256xbf16>>
  return %3, %2 : tensor<256xbf16>, tensor<8xf32>
}

// CHECK-LABEL: func @attributes
// CHECK-SAME: other = [#prec.policy<reduce = f32>, #prec.reduction<sum>, #prec.rounding<stochastic>, #prec.scaling<block, block_size = 32>]
// CHECK-SAME: prec.policy = #prec.policy<param = bf16, reduce = f32, output = f32>
func.func @attributes() attributes {
    prec.policy = #prec.policy<param = bf16, reduce = f32, output = f32>,
    other = [#prec.policy<reduce = f32>, #prec.reduction<sum>, #prec.rounding<stochastic>,
             #prec.scaling<block, block_size = 32>]} {
  return
}

// Explicit divisors and reduction algorithms.
// CHECK-LABEL: func @divisors_and_algorithms
func.func @divisors_and_algorithms(%h: tensor<256xf16>, %x: tensor<64xf32>) {
  // CHECK: prec.reduce_scatter %{{.*}} on @hsdp grid_axes = [1] scatter_axis = 0 acc_dtype = f16 pre_divisor = 4.000000e+00 post_divisor = 2.000000e+00 algorithm = <ring> : tensor<256xf16> -> tensor<32xf16>
  %0 = prec.reduce_scatter %h on @hsdp grid_axes = [1] scatter_axis = 0 acc_dtype = f16
         pre_divisor = 4.0 post_divisor = 2.0 algorithm = <ring> : tensor<256xf16> -> tensor<32xf16>
  // CHECK: prec.all_reduce %{{.*}} on @dp forward_dtype = bf16 acc_dtype = f32 post_divisor = 8.000000e+00 algorithm = <direct> : tensor<64xf32> -> tensor<64xf32>
  %1 = prec.all_reduce %x on @dp forward_dtype = bf16 acc_dtype = f32 post_divisor = 8.0
         algorithm = <direct> : tensor<64xf32> -> tensor<64xf32>
  // A ring whose wire dtype is the default accumulation dtype.
  // CHECK: prec.all_reduce %{{.*}} on @dp algorithm = <ring> : tensor<64xf32> -> tensor<64xf32>
  %2 = prec.all_reduce %x on @dp algorithm = <ring> : tensor<64xf32> -> tensor<64xf32>
  return
}

// Scales: amaxes per tensor and per block, the scales made from them, and
// quantized data (and block scales) that move unconverted.
// CHECK-LABEL: func @scales
// CHECK-SAME: (%[[W:.*]]: tensor<16x64xf32>)
func.func @scales(%w: tensor<16x64xf32>)
    -> (tensor<f32>, tensor<128x64xf8E4M3FN>, tensor<128x2xf8E8M0FNU>) {
  // CHECK: %[[A:.*]] = prec.amax %[[W]] : tensor<16x64xf32> -> tensor<f32>
  %a = prec.amax %w : tensor<16x64xf32> -> tensor<f32>
  // CHECK: %[[S:.*]] = prec.scale_from_amax %[[A]] element_type = f8E4M3FN : tensor<f32> -> tensor<f32>
  %s = prec.scale_from_amax %a element_type = f8E4M3FN : tensor<f32> -> tensor<f32>
  // CHECK: %[[BA:.*]] = prec.amax %[[W]] block_size = 32 : tensor<16x64xf32> -> tensor<16x2xf32>
  %ba = prec.amax %w block_size = 32 : tensor<16x64xf32> -> tensor<16x2xf32>
  // CHECK: %[[BS:.*]] = prec.scale_from_amax %[[BA]] element_type = f8E5M2 : tensor<16x2xf32> -> tensor<16x2xf8E8M0FNU>
  %bs = prec.scale_from_amax %ba element_type = f8E5M2 : tensor<16x2xf32> -> tensor<16x2xf8E8M0FNU>
  %q = prec.quantize %w scale %s scaling = <dynamic>
         : tensor<16x64xf32>, tensor<f32> -> tensor<16x64xf8E4M3FN>
  // CHECK: prec.all_gather %{{.*}} on @dp gather_axis = 0 : tensor<16x64xf8E4M3FN> -> tensor<128x64xf8E4M3FN>
  %g = prec.all_gather %q on @dp gather_axis = 0
         : tensor<16x64xf8E4M3FN> -> tensor<128x64xf8E4M3FN>
  // CHECK: prec.all_gather %[[BS]] on @dp gather_axis = 0 : tensor<16x2xf8E8M0FNU> -> tensor<128x2xf8E8M0FNU>
  %gs = prec.all_gather %bs on @dp gather_axis = 0
          : tensor<16x2xf8E8M0FNU> -> tensor<128x2xf8E8M0FNU>
  return %s, %g, %gs : tensor<f32>, tensor<128x64xf8E4M3FN>, tensor<128x2xf8E8M0FNU>
}

// CHECK-LABEL: func @saturating_truncf
// CHECK-SAME: (%[[X:.*]]: f32, %[[V:.*]]: vector<16xf32>)
func.func @saturating_truncf(%x: f32, %v: vector<16xf32>)
    -> (f8E4M3FN, vector<16xf8E5M2>) {
  // CHECK: prec.saturating_truncf %[[X]] : f32 to f8E4M3FN
  %0 = prec.saturating_truncf %x : f32 to f8E4M3FN
  // CHECK: prec.saturating_truncf %[[V]] : vector<16xf32> to vector<16xf8E5M2>
  %1 = prec.saturating_truncf %v : vector<16xf32> to vector<16xf8E5M2>
  return %0, %1 : f8E4M3FN, vector<16xf8E5M2>
}

// Names and defaults of an entry function's values (prec-run, the runner);
// a name may start with a digit (a top-level nn.Sequential's "0.weight").
// CHECK-LABEL: func.func private @named_entry
// CHECK-SAME: (tensor<8xf32> {prec.name = "0.weight"}, f32 {prec.default = 2.000000e-02 : f32, prec.name = "lr"}, index {prec.default = 3 : index})
// CHECK-SAME: -> (tensor<8xf32> {prec.name = "w_next"})
func.func private @named_entry(tensor<8xf32> {prec.name = "0.weight"},
                               f32 {prec.name = "lr", prec.default = 0.02 : f32},
                               index {prec.default = 3 : index})
    -> (tensor<8xf32> {prec.name = "w_next"})

// A parameter's block (10 rows on the 4 ranks of axis 1, 3 each; both
// replicas of axis 0 hold it) and token ids below a vocabulary size.
shard.grid @hsdp_entry(shape = 2x4)
// CHECK-LABEL: func.func private @sharded_entry
// CHECK-SAME: (tensor<3x4xf32> {prec.shard = {dim = 0 : i64, grid = @hsdp_entry, grid_axes = [1], size = 10 : i64}}, tensor<8xi32> {prec.range = [0, 50257]}, tensor<8xi1> {prec.range = [0, 2]})
func.func private @sharded_entry(
    tensor<3x4xf32> {prec.shard = {grid = @hsdp_entry, grid_axes = [1], dim = 0 : i64, size = 10 : i64}},
    tensor<8xi32> {prec.range = [0, 50257]}, tensor<8xi1> {prec.range = [0, 2]})

// A grid whose axis 0 crosses hosts, and reductions that name the dtype of
// their partial sums between hosts.
// CHECK: shard.grid @hosts(shape = 2x4) {prec.inter_host_axes = array<i16: 0>}
shard.grid @hosts(shape = 2x4) {prec.inter_host_axes = array<i16: 0>}
// CHECK-LABEL: func @two_level
// CHECK-SAME: (%[[G:.*]]: tensor<64xf32>)
func.func @two_level(%g: tensor<64xf32>) -> (tensor<8xf32>, tensor<64xf32>) {
  // CHECK: prec.reduce_scatter %[[G]] on @hosts scatter_axis = 0 forward_dtype = bf16 acc_dtype = f32 inter_host_dtype = bf16 : tensor<64xf32> -> tensor<8xf32>
  %0 = prec.reduce_scatter %g on @hosts inter_host_dtype = bf16 scatter_axis = 0
         forward_dtype = bf16 acc_dtype = f32 : tensor<64xf32> -> tensor<8xf32>
  // CHECK: prec.all_reduce %[[G]] on @hosts grid_axes = [1, 0] forward_dtype = bf16 inter_host_dtype = f16 : tensor<64xf32> -> tensor<64xf32>
  %1 = prec.all_reduce %g on @hosts grid_axes = [1, 0] forward_dtype = bf16
         inter_host_dtype = f16 : tensor<64xf32> -> tensor<64xf32>
  return %0, %1 : tensor<8xf32>, tensor<64xf32>
}

// A gather whose gradient's partial sums cross hosts in bf16.
// CHECK-LABEL: func @two_level_gradient
// CHECK-SAME: (%[[W:.*]]: tensor<8xf32>)
func.func @two_level_gradient(%w: tensor<8xf32>) -> tensor<64xf32> {
  // CHECK: prec.all_gather %[[W]] on @hosts grid_axes = [0, 1] gather_axis = 0 backward_dtype = f32 grad_reduction = <sum> grad_inter_host_dtype = bf16 : tensor<8xf32> -> tensor<64xf32>
  %0 = prec.all_gather %w on @hosts grad_inter_host_dtype = bf16 grid_axes = [0, 1]
         grad_reduction = <sum> gather_axis = 0 backward_dtype = f32
         : tensor<8xf32> -> tensor<64xf32>
  return %0 : tensor<64xf32>
}

// Partial sums across hosts in fp8 with their scales, of a reduction and
// of a gather's gradient.
// CHECK-LABEL: func @two_level_fp8
func.func @two_level_fp8(%g: tensor<64xf32>, %w: tensor<8x32xf32>) -> (tensor<8xf32>, tensor<64x32xf32>) {
  // CHECK: prec.reduce_scatter %{{.*}} on @hosts scatter_axis = 0 forward_dtype = bf16 acc_dtype = f32 inter_host_dtype = f8E4M3FN inter_host_scaling = <dynamic> : tensor<64xf32> -> tensor<8xf32>
  %0 = prec.reduce_scatter %g on @hosts inter_host_scaling = <dynamic> scatter_axis = 0
         forward_dtype = bf16 acc_dtype = f32 inter_host_dtype = f8E4M3FN
         : tensor<64xf32> -> tensor<8xf32>
  // CHECK: prec.all_gather %{{.*}} on @hosts gather_axis = 0 backward_dtype = bf16 grad_inter_host_dtype = f8E5M2 grad_inter_host_scaling = <block, block_size = 32> : tensor<8x32xf32> -> tensor<64x32xf32>
  %1 = prec.all_gather %w on @hosts grad_inter_host_scaling = <block, block_size = 32>
         gather_axis = 0 backward_dtype = bf16 grad_inter_host_dtype = f8E5M2
         : tensor<8x32xf32> -> tensor<64x32xf32>
  return %0, %1 : tensor<8xf32>, tensor<64x32xf32>
}

// An all_reduce whose gradient's partial sums cross hosts in fp8.
// CHECK-LABEL: func @two_level_all_reduce_gradient
func.func @two_level_all_reduce_gradient(%x: tensor<64xf32>) -> tensor<64xf32> {
  // CHECK: prec.all_reduce %{{.*}} on @hosts backward_dtype = bf16 inter_host_dtype = bf16 grad_inter_host_dtype = f8E4M3FN grad_inter_host_scaling = <dynamic> : tensor<64xf32> -> tensor<64xf32>
  %0 = prec.all_reduce %x on @hosts grad_inter_host_scaling = <dynamic>
         grad_inter_host_dtype = f8E4M3FN backward_dtype = bf16
         inter_host_dtype = bf16 : tensor<64xf32> -> tensor<64xf32>
  return %0 : tensor<64xf32>
}

// Arithmetic below the contraction contract, allowed on a function.
// CHECK-LABEL: func @reduced_precision
// CHECK-SAME: attributes {prec.reduced_precision = #prec.reduced_precision<tf32, output_type_reduction>}
func.func @reduced_precision() attributes {prec.reduced_precision = #prec.reduced_precision<output_type_reduction, tf32>} {
  return
}
