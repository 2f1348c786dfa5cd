// RUN: prec-opt %s -split-input-file -verify-diagnostics

shard.grid @dp(shape = 8)
func.func @gather_grid_missing(%x: tensor<8xf32>) -> tensor<64xf32> {
  // expected-error @+1 {{expected grid @nowhere to name a 'shard.grid', found no such symbol}}
  %0 = prec.all_gather %x on @nowhere gather_axis = 0 : tensor<8xf32> -> tensor<64xf32>
  return %0 : tensor<64xf32>
}

// -----

func.func @not_a_grid(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{expected grid @not_a_grid to name a 'shard.grid', found 'func.func'}}
  %0 = prec.all_reduce %x on @not_a_grid : tensor<8xf32> -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

shard.grid @dp(shape = 8)
func.func @axis_out_of_range(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{expected grid axes of @dp in [0, 1), got 1}}
  %0 = prec.all_reduce %x on @dp grid_axes = [1] : tensor<8xf32> -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

shard.grid @empty(shape = 4x0)
func.func @empty_grid(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{expected grid @empty to have axes of positive size, got 0 on axis 1}}
  %0 = prec.all_to_all %x on @empty split_axis = 0 concat_axis = 0 : tensor<8xf32> -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

shard.grid @vast(shape = 4294967296x4294967296)
func.func @vast_grid(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{expected grid @vast of at most 2147483647 ranks}}
  %0 = prec.all_reduce %x on @vast : tensor<8xf32> -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

shard.grid @empty(shape = 0)
func.func @empty_grid_transport(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{expected grid @empty to have axes of positive size, got 0 on axis 0}}
  %0 = prec.transport <reduce_scatter> %x on @empty reduction = <sum> : tensor<8xf32> -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

shard.grid @hsdp(shape = 4x8)
func.func @negative_axis(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{expected non-negative grid axes, got -1}}
  %0 = prec.all_reduce %x on @hsdp grid_axes = [-1] : tensor<8xf32> -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

shard.grid @hsdp(shape = 4x8)
func.func @duplicate_axes(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{expected distinct grid axes, got 0 twice}}
  %0 = prec.all_reduce %x on @hsdp grid_axes = [0, 0] : tensor<8xf32> -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

shard.grid @dp(shape = 8)
func.func @gather_wrong_size(%x: tensor<8x4xf32>) -> tensor<32x4xf32> {
  // expected-error @+1 {{expected result dimension 0 to be 64 (8 x group size 8), got 32}}
  %0 = prec.all_gather %x on @dp gather_axis = 0 : tensor<8x4xf32> -> tensor<32x4xf32>
  return %0 : tensor<32x4xf32>
}

// -----

shard.grid @hsdp(shape = 4x8)
func.func @gather_wrong_size_on_axis(%x: tensor<8x4xf32>) -> tensor<64x4xf32> {
  // The group of axis 0 has 4 ranks, not 8.
  // expected-error @+1 {{expected result dimension 0 to be 32 (8 x group size 4), got 64}}
  %0 = prec.all_gather %x on @hsdp grid_axes = [0] gather_axis = 0 : tensor<8x4xf32> -> tensor<64x4xf32>
  return %0 : tensor<64x4xf32>
}

// -----

shard.grid @dp(shape = 8)
func.func @gather_other_dim(%x: tensor<8x4xf32>) -> tensor<64x5xf32> {
  // expected-error @+1 {{expected result dimension 1 to equal the input's (4), got 5}}
  %0 = prec.all_gather %x on @dp gather_axis = 0 : tensor<8x4xf32> -> tensor<64x5xf32>
  return %0 : tensor<64x5xf32>
}

// -----

shard.grid @dp(shape = 8)
func.func @gather_axis_out_of_range(%x: tensor<8x4xf32>) -> tensor<8x4xf32> {
  // expected-error @+1 {{expected gather_axis in [0, 2), got 2}}
  %0 = prec.all_gather %x on @dp gather_axis = 2 : tensor<8x4xf32> -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// -----

shard.grid @dp(shape = 8)
func.func @gather_rank(%x: tensor<8x4xf32>) -> tensor<64xf32> {
  // expected-error @+1 {{requires the same rank for input and result, got 'tensor<8x4xf32>' and 'tensor<64xf32>'}}
  %0 = prec.all_gather %x on @dp gather_axis = 0 : tensor<8x4xf32> -> tensor<64xf32>
  return %0 : tensor<64xf32>
}

// -----

shard.grid @dp(shape = 8)
func.func @integer_elements(%x: tensor<8xi32>) -> tensor<64xi32> {
  // expected-error @+1 {{operand #0 must be ranked tensor of floating-point values}}
  %0 = prec.all_gather %x on @dp gather_axis = 0 : tensor<8xi32> -> tensor<64xi32>
  return %0 : tensor<64xi32>
}

// -----

shard.grid @dp(shape = 8)
func.func @integer_forward_dtype(%x: tensor<8xf32>) -> tensor<64xf32> {
  // expected-error @+1 {{attribute 'forward_dtype' failed to satisfy constraint: type attribute of floating-point}}
  %0 = prec.all_gather %x on @dp gather_axis = 0 forward_dtype = i8 : tensor<8xf32> -> tensor<64xf32>
  return %0 : tensor<64xf32>
}

// -----

shard.grid @dp(shape = 8)
func.func @scatter_wrong_size(%x: tensor<64x4xf32>) -> tensor<4x4xf32> {
  // expected-error @+1 {{expected input dimension 0 to be 32 (4 x group size 8), got 64}}
  %0 = prec.reduce_scatter %x on @dp scatter_axis = 0 : tensor<64x4xf32> -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// -----

shard.grid @dp(shape = 8)
func.func @scatter_axis_out_of_range(%x: tensor<64xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{expected scatter_axis in [0, 1), got -1}}
  %0 = prec.reduce_scatter %x on @dp scatter_axis = -1 : tensor<64xf32> -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

shard.grid @dp(shape = 8)
func.func @scatter_other_dim(%x: tensor<64x4xf32>) -> tensor<8x2xf32> {
  // expected-error @+1 {{expected result dimension 1 to equal the input's (4), got 2}}
  %0 = prec.reduce_scatter %x on @dp scatter_axis = 0 : tensor<64x4xf32> -> tensor<8x2xf32>
  return %0 : tensor<8x2xf32>
}

// -----

shard.grid @dp(shape = 8)
func.func @acc_narrower_than_forward(%x: tensor<64xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{expected acc_dtype that represents every value of forward_dtype 'bf16', got 'f8E4M3FN'}}
  %0 = prec.reduce_scatter %x on @dp scatter_axis = 0 forward_dtype = bf16 acc_dtype = f8E4M3FN
         : tensor<64xf32> -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

shard.grid @dp(shape = 8)
func.func @acc_f16_for_bf16(%x: tensor<64xf32>) -> tensor<8xf32> {
  // f16 has bf16's width but not its exponent range.
  // expected-error @+1 {{expected acc_dtype that represents every value of forward_dtype 'bf16', got 'f16'}}
  %0 = prec.reduce_scatter %x on @dp scatter_axis = 0 forward_dtype = bf16 acc_dtype = f16
         : tensor<64xf32> -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

shard.grid @dp(shape = 8)
func.func @acc_default_forward(%x: tensor<8xf32>) -> tensor<8xf32> {
  // Without forward_dtype the wire carries the input type, f32.
  // expected-error @+1 {{expected acc_dtype that represents every value of forward_dtype 'f32', got 'bf16'}}
  %0 = prec.all_reduce %x on @dp acc_dtype = bf16 : tensor<8xf32> -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

shard.grid @dp(shape = 8)
func.func @fp8_without_scaling(%x: tensor<8xf32>) -> tensor<64xf8E4M3FN> {
  // expected-error @+1 {{expected a scaling mode for the 'f8E4M3FN' wire dtype: an fp8 collective needs scales}}
  %0 = prec.all_gather %x on @dp gather_axis = 0 forward_dtype = f8E4M3FN
         : tensor<8xf32> -> tensor<64xf8E4M3FN>
  return %0 : tensor<64xf8E4M3FN>
}

// -----

shard.grid @dp(shape = 8)
func.func @fp8_gradient_without_scaling(%x: tensor<8xf32>) -> tensor<64xbf16> {
  // expected-error @+1 {{expected a scaling mode for the 'f8E5M2' wire dtype of the gradient: an fp8 collective needs scales; or a backward_dtype the gradient's 'bf16' converts to without one}}
  %0 = prec.all_gather %x on @dp gather_axis = 0 forward_dtype = bf16 backward_dtype = f8E5M2
         : tensor<8xf32> -> tensor<64xbf16>
  return %0 : tensor<64xbf16>
}

// -----

// Quantized data moves unconverted, but the gradient of its f32 result would
// be rounded to the fp8 forward_dtype, the default backward_dtype.
shard.grid @dp(shape = 8)
func.func @fp8_default_gradient_without_scaling(%q: tensor<64xf8E4M3FN>) -> tensor<8xf32> {
  // expected-error @+1 {{expected a scaling mode for the 'f8E4M3FN' wire dtype of the gradient (backward_dtype defaults to forward_dtype): an fp8 collective needs scales; or a backward_dtype the gradient's 'f32' converts to without one}}
  %0 = prec.reduce_scatter %q on @dp scatter_axis = 0 forward_dtype = f8E4M3FN
         : tensor<64xf8E4M3FN> -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

shard.grid @dp(shape = 8)
func.func @scaling_without_fp8(%x: tensor<8xf32>) -> tensor<64xbf16> {
  // expected-error @+1 {{scaling given but neither forward_dtype 'bf16' nor backward_dtype is an fp8 type}}
  %0 = prec.all_gather %x on @dp gather_axis = 0 forward_dtype = bf16 scaling = <dynamic>
         : tensor<8xf32> -> tensor<64xbf16>
  return %0 : tensor<64xbf16>
}

// -----

shard.grid @dp(shape = 8)
func.func @all_reduce_shape(%x: tensor<8xf32>) -> tensor<16xf32> {
  // expected-error @+1 {{requires the same shape for input and result, got 'tensor<8xf32>' and 'tensor<16xf32>'}}
  %0 = prec.all_reduce %x on @dp : tensor<8xf32> -> tensor<16xf32>
  return %0 : tensor<16xf32>
}

// -----

shard.grid @dp(shape = 8)
func.func @all_to_all_split(%x: tensor<64x16xf32>) -> tensor<16x128xf32> {
  // expected-error @+1 {{expected input dimension 0 to be 128 (16 x group size 8), got 64}}
  %0 = prec.all_to_all %x on @dp split_axis = 0 concat_axis = 1 : tensor<64x16xf32> -> tensor<16x128xf32>
  return %0 : tensor<16x128xf32>
}

// -----

shard.grid @dp(shape = 8)
func.func @all_to_all_concat(%x: tensor<64x16xf32>) -> tensor<8x64xf32> {
  // expected-error @+1 {{expected result dimension 1 to be 128 (16 x group size 8), got 64}}
  %0 = prec.all_to_all %x on @dp split_axis = 0 concat_axis = 1 : tensor<64x16xf32> -> tensor<8x64xf32>
  return %0 : tensor<8x64xf32>
}

// -----

shard.grid @dp(shape = 8)
func.func @all_to_all_same_axis(%x: tensor<64x16xf32>) -> tensor<8x16xf32> {
  // expected-error @+1 {{expected result dimension 0 to equal the input's (64), got 8}}
  %0 = prec.all_to_all %x on @dp split_axis = 0 concat_axis = 0 : tensor<64x16xf32> -> tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}

// -----

shard.grid @dp(shape = 8)
func.func @all_to_all_concat_axis_out_of_range(%x: tensor<64x16xf32>) -> tensor<64x16xf32> {
  // expected-error @+1 {{expected concat_axis in [0, 2), got 3}}
  %0 = prec.all_to_all %x on @dp split_axis = 0 concat_axis = 3 : tensor<64x16xf32> -> tensor<64x16xf32>
  return %0 : tensor<64x16xf32>
}

// -----

shard.grid @dp(shape = 8)
func.func @all_to_all_split_axis_out_of_range(%x: tensor<64x16xf32>) -> tensor<64x16xf32> {
  // expected-error @+1 {{expected split_axis in [0, 2), got 5}}
  %0 = prec.all_to_all %x on @dp split_axis = 5 concat_axis = 0 : tensor<64x16xf32> -> tensor<64x16xf32>
  return %0 : tensor<64x16xf32>
}

// -----

func.func @cast_shape(%x: tensor<8xf32>) -> tensor<4xbf16> {
  // expected-error @+1 {{expected input and result of the same shape, got 'tensor<8xf32>' and 'tensor<4xbf16>'}}
  %0 = prec.cast %x : tensor<8xf32> to tensor<4xbf16>
  return %0 : tensor<4xbf16>
}

// -----

func.func @cast_scalar_to_tensor(%x: f32) -> tensor<1xbf16> {
  // expected-error @+1 {{expected input and result of the same shape, got 'f32' and 'tensor<1xbf16>'}}
  %0 = prec.cast %x : f32 to tensor<1xbf16>
  return %0 : tensor<1xbf16>
}

// -----

func.func @cast_integer(%x: tensor<8xi32>) -> tensor<8xbf16> {
  // expected-error @+1 {{operand #0 must be floating-point or ranked tensor of floating-point values}}
  %0 = prec.cast %x : tensor<8xi32> to tensor<8xbf16>
  return %0 : tensor<8xbf16>
}

// -----

func.func @reduce_dim_out_of_range(%x: tensor<8x4xbf16>) -> tensor<8xf32> {
  // expected-error @+1 {{expected dims in [0, 2), got 2}}
  %0 = prec.reduce %x dims = [2] : tensor<8x4xbf16> -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @reduce_dim_twice(%x: tensor<8x4xbf16>) -> tensor<8xf32> {
  // expected-error @+1 {{expected distinct dims, got 1 twice}}
  %0 = prec.reduce %x dims = [1, 1] : tensor<8x4xbf16> -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @reduce_result_shape(%x: tensor<8x4xbf16>) -> tensor<4xf32> {
  // expected-error @+1 {{expected result shape [8] (input shape without dims), got 'tensor<4xf32>'}}
  %0 = prec.reduce %x dims = [1] : tensor<8x4xbf16> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @reduce_acc(%x: tensor<8x4xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{expected acc_dtype that represents every value of the input type 'f32', got 'bf16'}}
  %0 = prec.reduce %x dims = [1] acc_dtype = bf16 : tensor<8x4xf32> -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @quantize_to_bf16(%x: tensor<8xf32>, %s: tensor<f32>) -> tensor<8xbf16> {
  // expected-error @+1 {{expected an fp8 (or narrower) quantized type, got 'bf16'}}
  %0 = prec.quantize %x scale %s scaling = <dynamic> : tensor<8xf32>, tensor<f32> -> tensor<8xbf16>
  return %0 : tensor<8xbf16>
}

// -----

func.func @quantize_to_scale_type(%x: tensor<8xf32>, %s: tensor<f32>) -> tensor<8xf8E8M0FNU> {
  // expected-error @+1 {{expected an fp8 (or narrower) quantized type, got 'f8E8M0FNU'}}
  %0 = prec.quantize %x scale %s scaling = <dynamic> : tensor<8xf32>, tensor<f32> -> tensor<8xf8E8M0FNU>
  return %0 : tensor<8xf8E8M0FNU>
}

// -----

func.func @quantize_shape(%x: tensor<8xf32>, %s: tensor<f32>) -> tensor<4xf8E4M3FN> {
  // expected-error @+1 {{expected input and result of the same shape, got 'tensor<8xf32>' and 'tensor<4xf8E4M3FN>'}}
  %0 = prec.quantize %x scale %s scaling = <dynamic> : tensor<8xf32>, tensor<f32> -> tensor<4xf8E4M3FN>
  return %0 : tensor<4xf8E4M3FN>
}

// -----

func.func @quantize_tensor_scale(%x: tensor<8xf32>, %s: tensor<8xf32>) -> tensor<8xf8E4M3FN> {
  // expected-error @+1 {{expected a rank-0 scale for delayed scaling, got 'tensor<8xf32>'}}
  %0 = prec.quantize %x scale %s scaling = <delayed, history = 4> : tensor<8xf32>, tensor<8xf32> -> tensor<8xf8E4M3FN>
  return %0 : tensor<8xf8E4M3FN>
}

// -----

func.func @block_scale_rank0(%x: tensor<f32>, %s: tensor<f32>) -> tensor<f8E4M3FN> {
  // expected-error @+1 {{block scaling needs a tensor of rank >= 1}}
  %0 = prec.quantize %x scale %s scaling = <block, block_size = 32> : tensor<f32>, tensor<f32> -> tensor<f8E4M3FN>
  return %0 : tensor<f8E4M3FN>
}

// -----

func.func @block_scale_dtype(%x: tensor<64xf32>, %s: tensor<2xf32>) -> tensor<64xf8E4M3FN> {
  // expected-error @+1 {{expected scale element type 'f8E8M0FNU' (the scale_dtype), got 'f32'}}
  %0 = prec.quantize %x scale %s scaling = <block, block_size = 32, scale_dtype = f8E8M0FNU>
         : tensor<64xf32>, tensor<2xf32> -> tensor<64xf8E4M3FN>
  return %0 : tensor<64xf8E4M3FN>
}

// -----

func.func @block_not_multiple(%x: tensor<48xf32>, %s: tensor<2xf32>) -> tensor<48xf8E4M3FN> {
  // expected-error @+1 {{expected innermost dimension (48) to be a multiple of block_size 32}}
  %0 = prec.quantize %x scale %s scaling = <block, block_size = 32> : tensor<48xf32>, tensor<2xf32> -> tensor<48xf8E4M3FN>
  return %0 : tensor<48xf8E4M3FN>
}

// -----

func.func @block_scale_shape(%x: tensor<4x64xf32>, %s: tensor<4x4xf32>) -> tensor<4x64xf8E4M3FN> {
  // expected-error @+1 {{expected scale shape [4, 2] (one scale per block of 32), got 'tensor<4x4xf32>'}}
  %0 = prec.quantize %x scale %s scaling = <block, block_size = 32> : tensor<4x64xf32>, tensor<4x4xf32> -> tensor<4x64xf8E4M3FN>
  return %0 : tensor<4x64xf8E4M3FN>
}

// -----

func.func @dequantize_from_bf16(%x: tensor<8xbf16>, %s: tensor<f32>) -> tensor<8xf32> {
  // expected-error @+1 {{expected an fp8 (or narrower) quantized type, got 'bf16'}}
  %0 = prec.dequantize %x scale %s scaling = <dynamic> : tensor<8xbf16>, tensor<f32> -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @sgd_grad_shape(%p: tensor<8xf32>, %g: tensor<4xbf16>, %lr: f32) -> tensor<8xf32> {
  // expected-error @+1 {{expected grad of the param's shape, got param 'tensor<8xf32>' and grad 'tensor<4xbf16>'}}
  %0 = prec.sgd %p, %g, %lr : tensor<8xf32>, tensor<4xbf16>
  return %0 : tensor<8xf32>
}

// -----

func.func @sgd_master_narrower(%p: tensor<8xbf16>, %g: tensor<8xf32>, %lr: f32) -> tensor<8xbf16> {
  // expected-error @+1 {{expected a master dtype that represents every grad value, got master 'bf16' and grad 'f32'}}
  %0 = prec.sgd %p, %g, %lr : tensor<8xbf16>, tensor<8xf32>
  return %0 : tensor<8xbf16>
}

// -----

func.func @sgd_shard_shape(%p: tensor<8xf32>, %g: tensor<8xbf16>, %lr: f32) -> tensor<4xbf16> {
  // expected-error @+1 {{expected shard of the param's shape, got param 'tensor<8xf32>' and shard 'tensor<4xbf16>'}}
  %0:2 = prec.sgd %p, %g, %lr : tensor<8xf32>, tensor<8xbf16> -> tensor<4xbf16>
  return %0#1 : tensor<4xbf16>
}

// -----

func.func @adamw_beta(%p: tensor<8xf32>, %g: tensor<8xbf16>, %lr: f32, %step: f32) {
  // expected-error @+1 {{expected beta1 and beta2 in [0, 1), got 1.000000e+00 and 9.990000e-01}}
  %0:3 = prec.adamw %p, %g, %p, %p, %lr, %step beta1 = 1.0 : tensor<8xf32>, tensor<8xbf16>
  return
}

// -----

func.func @adamw_beta_nan(%p: tensor<8xf32>, %g: tensor<8xbf16>, %lr: f32, %step: f32) {
  // expected-error @+1 {{expected beta1 and beta2 in [0, 1), got 9.000000e-01 and nan}}
  %0:3 = prec.adamw %p, %g, %p, %p, %lr, %step beta2 = 0x7FF8000000000000 : tensor<8xf32>, tensor<8xbf16>
  return
}

// -----

func.func @adamw_negative_eps(%p: tensor<8xf32>, %g: tensor<8xbf16>, %lr: f32, %step: f32) {
  // expected-error @+1 {{expected a finite non-negative eps, got -1.000000e-08}}
  %0:3 = prec.adamw %p, %g, %p, %p, %lr, %step eps = -1.0e-8 : tensor<8xf32>, tensor<8xbf16>
  return
}

// -----

func.func @adamw_negative_weight_decay(%p: tensor<8xf32>, %g: tensor<8xbf16>, %lr: f32, %step: f32) {
  // expected-error @+1 {{expected a finite non-negative weight_decay, got -1.000000e-02}}
  %0:3 = prec.adamw %p, %g, %p, %p, %lr, %step weight_decay = -0.01 : tensor<8xf32>, tensor<8xbf16>
  return
}

// -----

func.func @adamw_eps_below_master(%p: tensor<8xf32>, %g: tensor<8xbf16>, %lr: f32, %step: f32) {
  // expected-error @+1 {{expected eps 0 or a normal value of the master dtype 'f32', got 1.000000e-50}}
  %0:3 = prec.adamw %p, %g, %p, %p, %lr, %step eps = 1.0e-50 : tensor<8xf32>, tensor<8xbf16>
  return
}

// -----

func.func @sgd_infinite_weight_decay(%p: tensor<8xf32>, %g: tensor<8xbf16>, %lr: f32) -> tensor<8xf32> {
  // expected-error @+1 {{expected a finite non-negative weight_decay, got INF}}
  %0 = prec.sgd %p, %g, %lr weight_decay = 0x7FF0000000000000 : tensor<8xf32>, tensor<8xbf16>
  return %0 : tensor<8xf32>
}

// -----

func.func @sgd_weight_decay_beyond_master(%p: tensor<8xf32>, %g: tensor<8xbf16>, %lr: f32) -> tensor<8xf32> {
  // expected-error @+1 {{expected weight_decay 0 or a normal value of the master dtype 'f32', got 1.000000e+40}}
  %0 = prec.sgd %p, %g, %lr weight_decay = 1.0e40 : tensor<8xf32>, tensor<8xbf16>
  return %0 : tensor<8xf32>
}

// -----

// expected-note @+1 {{prior use here}}
func.func @adamw_state_type(%p: tensor<8xf32>, %g: tensor<8xbf16>, %m: tensor<8xbf16>, %lr: f32, %step: f32) {
  // expected-error @+1 {{use of value '%m' expects different type than prior uses: 'tensor<8xf32>' vs 'tensor<8xbf16>'}}
  %0:3 = prec.adamw %p, %g, %m, %p, %lr, %step : tensor<8xf32>, tensor<8xbf16>
  return
}

// -----

func.func @adamw_generic_state_type(%p: tensor<8xf32>, %g: tensor<8xbf16>, %m: tensor<8xbf16>, %lr: f32, %step: f32) {
  // expected-error @+1 {{failed to verify that all of {param, exp_avg, exp_avg_sq, new_param, new_exp_avg, new_exp_avg_sq} have same type}}
  %0:3 = "prec.adamw"(%p, %g, %m, %p, %lr, %step) <{beta1 = 0.9 : f64, beta2 = 0.999 : f64, eps = 1.0e-8 : f64, weight_decay = 0.01 : f64}>
    : (tensor<8xf32>, tensor<8xbf16>, tensor<8xbf16>, tensor<8xf32>, f32, f32) -> (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>)
  return
}

// -----

// expected-error @+1 {{expected delayed scaling with a history of at least 1 step, got 0}}
func.func private @delayed_without_history() attributes {s = #prec.scaling<delayed>}

// -----

// expected-error @+1 {{history is only meaningful for delayed scaling}}
func.func private @history_on_dynamic() attributes {s = #prec.scaling<dynamic, history = 3>}

// -----

// expected-error @+1 {{expected block scaling with a block_size of at least 1, got 0}}
func.func private @block_without_size() attributes {s = #prec.scaling<block>}

// -----

// expected-error @+1 {{block_size and scale_dtype are only meaningful for block scaling}}
func.func private @block_size_on_delayed() attributes {s = #prec.scaling<delayed, history = 2, block_size = 32>}

// -----

// expected-error @+1 {{expected scale_dtype f8E8M0FNU or f32, got 'i8'}}
func.func private @integer_scale_dtype() attributes {s = #prec.scaling<block, block_size = 32, scale_dtype = i8>}

// -----

// expected-error @+1 {{expected scaling kind 'dynamic', 'delayed' or 'block', got 'static'}}
func.func private @unknown_scaling() attributes {s = #prec.scaling<static>}

// -----

// expected-error @+1 {{expected 'history', 'block_size' or 'scale_dtype', got 'size'}}
func.func private @unknown_scaling_key() attributes {s = #prec.scaling<block, size = 32>}

// -----

// expected-error @+2 {{invalid kind of type specified}}
// expected-error @+1 {{failed to parse Prec_PolicyAttr parameter 'param' which is to be a `::mlir::FloatType`}}
func.func private @policy_integer() attributes {p = #prec.policy<param = i32>}

// -----

// expected-error @+1 {{expected the policy's 'output' to be a float type with a zero, got 'f8E8M0FNU' (a scale-only type)}}
func.func private @policy_scale_only() attributes {p = #prec.policy<output = f8E8M0FNU>}

// -----

// A policy's 'param' is the forward_dtype of gathers, which a runtime moves:
// valid or not whatever passes run (folding casts would narrow this wire).
// expected-error @+1 {{expected the policy's 'param' to be a wire dtype the runtimes move (f64, f32, f16, bf16, f8E4M3FN or f8E5M2), got 'f80'}}
func.func private @policy_param_f80() attributes {p = #prec.policy<param = f80>}

// -----

// expected-error @+1 {{expected the policy's 'reduce' to be a wire dtype the runtimes move (f64, f32, f16, bf16, f8E4M3FN or f8E5M2), got 'tf32'}}
func.func private @policy_reduce_tf32() attributes {p = #prec.policy<reduce = tf32>}

// -----

// expected-error @+1 {{expected the policy's 'output' to be one of f64, f32, f16, bf16, f80, f128, f8E4M3FN or f8E5M2 (f8E8M0FNU for scales), got 'tf32'}}
func.func private @policy_output_tf32() attributes {p = #prec.policy<output = tf32>}

// -----

// expected-error @+1 {{expected 'prec.policy' to be a #prec.policy, got 3 : i64}}
func.func private @policy_not_a_policy() attributes {prec.policy = 3}

// -----

// expected-error @+1 {{unknown prec attribute 'prec.polcy' on an operation}}
func.func private @misspelled_policy() attributes {prec.polcy = #prec.policy<param = bf16>}

// -----

// expected-error @+1 {{expected 'prec.grad_dtype' of argument 0 to be a float type with a zero, got 'f8E8M0FNU' (a scale-only type)}}
func.func private @grad_dtype_scale_only(tensor<8xf32> {prec.grad_dtype = f8E8M0FNU})

// -----

// expected-error @+1 {{expected 'prec.grad_dtype' of argument 0 to be a float type, got i32}}
func.func private @grad_dtype_integer(tensor<8xf32> {prec.grad_dtype = i32})

// -----

// expected-error @+1 {{unknown prec attribute 'prec.grad_type' on an argument}}
func.func private @misspelled_grad_dtype(tensor<8xf32> {prec.grad_type = f32})

// -----

shard.grid @dp(shape = 8)

func.func @negative_divisor(%x: tensor<8xf32>) {
  // expected-error @+1 {{expected a positive finite pre_divisor, got -2.000000e+00}}
  %0 = prec.all_reduce %x on @dp pre_divisor = -2.0 : tensor<8xf32> -> tensor<8xf32>
  return
}

// -----

shard.grid @dp(shape = 8)

func.func @divisor_with_avg(%x: tensor<64xf32>) {
  // expected-error @+1 {{expected reduction = <sum> with post_divisor, got <avg>}}
  %0 = prec.reduce_scatter %x on @dp scatter_axis = 0 reduction = <avg> post_divisor = 8.0 : tensor<64xf32> -> tensor<8xf32>
  return
}

// -----

shard.grid @dp(shape = 8)

func.func @ring_with_wider_accumulation(%x: tensor<8xbf16>) {
  // expected-error @+1 {{expected acc_dtype equal to forward_dtype 'bf16' for a ring reduction (it rounds partial sums to the wire dtype), got 'f32'}}
  %0 = prec.all_reduce %x on @dp algorithm = <ring> : tensor<8xbf16> -> tensor<8xbf16>
  return
}

// -----

// expected-error @+1 {{expected 'prec.backward_of' to be a symbol reference on a function, got "f" on 'func.func'}}
func.func private @backward_of_string() attributes {prec.backward_of = "f"}

// -----

func.func @backward_of_on_op(%x: f32) -> f32 {
  // expected-error @+1 {{expected 'prec.backward_of' to be a symbol reference on a function, got @f on 'arith.negf'}}
  %0 = arith.negf %x {prec.backward_of = @f} : f32
  return %0 : f32
}

// -----

// expected-error @+1 {{expected 'prec.microbatches' to be a positive integer, got 0 : i64}}
func.func private @no_microbatches() attributes {prec.microbatches = 0 : i64}

// -----

func.func @local_buffer_on_heap() {
  // expected-error @+1 {{expected 'prec.local_buffer' to be a unit attribute on a memref.alloca, got unit on 'memref.alloc'}}
  %0 = memref.alloc() {prec.local_buffer} : memref<4xf32>
  return
}

// -----

func.func @peer_window_on_alloc() {
  // expected-error @+1 {{expected 'prec.peer_window' to be a unit attribute on a builtin.unrealized_conversion_cast to a memref, got unit on 'memref.alloc'}}
  %0 = memref.alloc() {prec.peer_window} : memref<4xf32>
  return
}

// -----

shard.grid @dp(shape = 4)
func.func @through_peer_window_on_all_reduce(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{expected 'prec.through_peer_window' to be a unit attribute on an all_gather or all_to_all prec.transport, got unit on 'prec.transport'}}
  %0 = prec.transport <all_reduce> %x on @dp reduction = <sum> {prec.through_peer_window} : tensor<8xf32> -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

shard.grid @dp(shape = 4)
func.func @through_peer_window_not_unit(%x: tensor<8xf32>) -> tensor<32xf32> {
  // expected-error @+1 {{expected 'prec.through_peer_window' to be a unit attribute on an all_gather or all_to_all prec.transport, got true on 'prec.transport'}}
  %0 = prec.transport <all_gather> %x on @dp {prec.through_peer_window = true} : tensor<8xf32> -> tensor<32xf32>
  return %0 : tensor<32xf32>
}

// -----

func.func @through_peer_window_on_alloc() {
  // expected-error @+1 {{expected 'prec.through_peer_window' to be a unit attribute on an all_gather or all_to_all prec.transport, got unit on 'memref.alloc'}}
  %0 = memref.alloc() {prec.through_peer_window} : memref<4xf32>
  return
}

// -----

shard.grid @dp(shape = 4)
func.func @transport_converts(%x: tensor<8xf32>) -> tensor<32xbf16> {
  // expected-error @+1 {{expected input and result of one wire dtype, got 'f32' and 'bf16'}}
  %0 = prec.transport <all_gather> %x on @dp : tensor<8xf32> -> tensor<32xbf16>
  return %0 : tensor<32xbf16>
}

// -----

shard.grid @dp(shape = 4)
func.func @transport_reduction_missing(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{expected a reduction exactly for reduce_scatter and all_reduce transports}}
  %0 = prec.transport <all_reduce> %x on @dp : tensor<8xf32> -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

shard.grid @dp(shape = 4)
func.func @transport_gather_size(%x: tensor<8xf32>) -> tensor<16xf32> {
  // expected-error @+1 {{expected 32 result elements for all_gather of 8 over 4 ranks, got 16}}
  %0 = prec.transport <all_gather> %x on @dp : tensor<8xf32> -> tensor<16xf32>
  return %0 : tensor<16xf32>
}

// -----

shard.grid @dp(shape = 4)
func.func @transport_indivisible(%x: tensor<6xf32>) -> tensor<6xf32> {
  // expected-error @+1 {{expected an input size divisible by the group size 4, got 6}}
  %0 = prec.transport <all_to_all> %x on @dp : tensor<6xf32> -> tensor<6xf32>
  return %0 : tensor<6xf32>
}

// -----

shard.grid @dp(shape = 4)
func.func @transport_axes(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{expected distinct non-negative grid axes, got 0}}
  %0 = prec.transport <all_to_all> %x on @dp grid_axes = [0, 0] : tensor<8xf32> -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

shard.grid @dp(shape = 4)
func.func @started_transport_size(%x: tensor<8xf32>) -> tensor<16xf32> {
  // expected-error @+1 {{expected 32 result elements for all_gather of 8 over 4 ranks, got 16}}
  %0 = prec.transport_start <all_gather> %x on @dp : tensor<8xf32> -> !prec.in_flight<tensor<16xf32>>
  %1 = prec.transport_wait %0 : !prec.in_flight<tensor<16xf32>>
  return %1 : tensor<16xf32>
}

// -----

shard.grid @dp(shape = 4)
func.func @started_transport_converts(%x: tensor<8xf32>) -> tensor<32xbf16> {
  // expected-error @+1 {{expected input and result of one wire dtype, got 'f32' and 'bf16'}}
  %0 = prec.transport_start <all_gather> %x on @dp : tensor<8xf32> -> !prec.in_flight<tensor<32xbf16>>
  %1 = prec.transport_wait %0 : !prec.in_flight<tensor<32xbf16>>
  return %1 : tensor<32xbf16>
}

// -----

shard.grid @dp(shape = 4)
func.func @started_transport_reduction(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{expected a reduction exactly for reduce_scatter and all_reduce transports}}
  %0 = prec.transport_start <all_reduce> %x on @dp : tensor<8xf32> -> !prec.in_flight<tensor<8xf32>>
  %1 = prec.transport_wait %0 : !prec.in_flight<tensor<8xf32>>
  return %1 : tensor<8xf32>
}

// -----

shard.grid @dp(shape = 4)
func.func @started_transport_axes(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{expected distinct non-negative grid axes, got 0}}
  %0 = prec.transport_start <all_to_all> %x on @dp grid_axes = [0, 0] : tensor<8xf32> -> !prec.in_flight<tensor<8xf32>>
  %1 = prec.transport_wait %0 : !prec.in_flight<tensor<8xf32>>
  return %1 : tensor<8xf32>
}

// -----

shard.grid @dp(shape = 4)
func.func @started_transport_grid_missing(%x: tensor<8xf32>) -> tensor<32xf32> {
  // expected-error @+1 {{expected grid @nowhere to name a 'shard.grid', found no such symbol}}
  %0 = prec.transport_start <all_gather> %x on @nowhere : tensor<8xf32> -> !prec.in_flight<tensor<32xf32>>
  %1 = prec.transport_wait %0 : !prec.in_flight<tensor<32xf32>>
  return %1 : tensor<32xf32>
}

// -----

shard.grid @dp(shape = 4)
func.func @started_transport_never_waited(%x: tensor<8xf32>) {
  // expected-error @+1 {{expected exactly one 'prec.transport_wait' of its result, in the same block, got 0 use(s)}}
  %0 = prec.transport_start <all_gather> %x on @dp : tensor<8xf32> -> !prec.in_flight<tensor<32xf32>>
  return
}

// -----

shard.grid @dp(shape = 4)
func.func @started_transport_waited_twice(%x: tensor<8xf32>) -> (tensor<32xf32>, tensor<32xf32>) {
  // expected-error @+1 {{expected exactly one 'prec.transport_wait' of its result, in the same block, got 2 use(s)}}
  %0 = prec.transport_start <all_gather> %x on @dp : tensor<8xf32> -> !prec.in_flight<tensor<32xf32>>
  %1 = prec.transport_wait %0 : !prec.in_flight<tensor<32xf32>>
  %2 = prec.transport_wait %0 : !prec.in_flight<tensor<32xf32>>
  return %1, %2 : tensor<32xf32>, tensor<32xf32>
}

// -----

shard.grid @dp(shape = 4)
func.func @started_transport_waited_elsewhere(%x: tensor<8xf32>, %c: i1) -> tensor<32xf32> {
  // expected-error @+1 {{expected exactly one 'prec.transport_wait' of its result, in the same block, got 1 use(s) (the wait is in another block)}}
  %0 = prec.transport_start <all_gather> %x on @dp : tensor<8xf32> -> !prec.in_flight<tensor<32xf32>>
  %1 = scf.if %c -> tensor<32xf32> {
    %2 = prec.transport_wait %0 : !prec.in_flight<tensor<32xf32>>
    scf.yield %2 : tensor<32xf32>
  } else {
    %3 = tensor.empty() : tensor<32xf32>
    scf.yield %3 : tensor<32xf32>
  }
  return %1 : tensor<32xf32>
}

// -----

shard.grid @dp(shape = 4)
func.func @started_transport_branched(%x: tensor<8xf32>) -> tensor<32xf32> {
  // expected-error @+1 {{expected exactly one 'prec.transport_wait' of its result, in the same block, got 1 use(s) (by 'cf.br')}}
  %0 = prec.transport_start <all_gather> %x on @dp : tensor<8xf32> -> !prec.in_flight<tensor<32xf32>>
  cf.br ^bb1(%0 : !prec.in_flight<tensor<32xf32>>)
^bb1(%1: !prec.in_flight<tensor<32xf32>>):
  %2 = prec.transport_wait %1 : !prec.in_flight<tensor<32xf32>>
  return %2 : tensor<32xf32>
}

// -----

func.func @wait_of_an_argument(%x: !prec.in_flight<tensor<32xf32>>) -> tensor<32xf32> {
  // expected-error @+1 {{expected a value of 'prec.transport_start'}}
  %1 = prec.transport_wait %x : !prec.in_flight<tensor<32xf32>>
  return %1 : tensor<32xf32>
}

// -----

// expected-error @+1 {{expected the result of a transport, a 1-D tensor, got 'tensor<2x4xf32>'}}
func.func @in_flight_rank(%x: !prec.in_flight<tensor<2x4xf32>>) {
  return
}

// -----

shard.grid @dp(shape = 4)
func.func @transport_rank(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{operand #0 must be 1D tensor of floating-point values}}
  %0 = prec.transport <all_to_all> %x on @dp : tensor<2x4xf32> -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

shard.grid @dp(shape = 4)
func.func @all_gather_grad_max(%x: tensor<2xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{expected grad_reduction <sum> or <avg>, got <max>}}
  %0 = prec.all_gather %x on @dp gather_axis = 0 grad_reduction = <max> : tensor<2xf32> -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

shard.grid @dp(shape = 4)
func.func @all_gather_grad_min(%x: tensor<2xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{expected grad_reduction <sum> or <avg>, got <min>}}
  %0 = prec.all_gather %x on @dp gather_axis = 0 grad_reduction = <min> : tensor<2xf32> -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

shard.grid @dp(shape = 2)
func.func @all_to_all_same_axis_indivisible(%x: tensor<3xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{expected dimension 0 (3) to be divisible by the group size 2}}
  %0 = prec.all_to_all %x on @dp split_axis = 0 concat_axis = 0 : tensor<3xf32> -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// f8E8M0FNU has no zero: a scale type, never a wire, accumulation or data type.
shard.grid @dp(shape = 2)
func.func @scale_type_wire(%x: tensor<4xf32>) -> tensor<8xbf16> {
  // expected-error @+1 {{expected forward_dtype of a float type with a zero, got 'f8E8M0FNU' (a scale-only type)}}
  %0 = prec.all_gather %x on @dp gather_axis = 0 forward_dtype = f8E8M0FNU : tensor<4xf32> -> tensor<8xbf16>
  return %0 : tensor<8xbf16>
}

// -----

shard.grid @dp(shape = 2)
func.func @scale_type_backward(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{expected backward_dtype of a float type with a zero, got 'f8E8M0FNU' (a scale-only type)}}
  %0 = prec.all_reduce %x on @dp backward_dtype = f8E8M0FNU : tensor<4xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

shard.grid @dp(shape = 2)
func.func @scale_type_collective_operand(%x: tensor<4xf8E8M0FNU>) -> tensor<4xf8E8M0FNU> {
  // expected-error @+1 {{expected input of a float type with a zero, got 'f8E8M0FNU' (a scale-only type)}}
  %0 = prec.all_reduce %x on @dp acc_dtype = f8E8M0FNU : tensor<4xf8E8M0FNU> -> tensor<4xf8E8M0FNU>
  return %0 : tensor<4xf8E8M0FNU>
}

// -----

shard.grid @dp(shape = 2)
func.func @scale_type_collective_result(%x: tensor<4xf32>) -> tensor<2xf8E8M0FNU> {
  // expected-error @+1 {{expected result of a float type with a zero, got 'f8E8M0FNU' (a scale-only type)}}
  %0 = prec.reduce_scatter %x on @dp scatter_axis = 0 : tensor<4xf32> -> tensor<2xf8E8M0FNU>
  return %0 : tensor<2xf8E8M0FNU>
}

// -----

func.func @scale_type_reduce(%x: tensor<4xf8E8M0FNU>) -> tensor<f8E8M0FNU> {
  // expected-error @+1 {{expected input of a float type with a zero, got 'f8E8M0FNU' (a scale-only type)}}
  %0 = prec.reduce %x dims = [0] acc_dtype = f8E8M0FNU : tensor<4xf8E8M0FNU> -> tensor<f8E8M0FNU>
  return %0 : tensor<f8E8M0FNU>
}

// -----

func.func @scale_type_reduce_acc(%x: tensor<4xf32>) -> tensor<f32> {
  // expected-error @+1 {{expected acc_dtype of a float type with a zero, got 'f8E8M0FNU' (a scale-only type)}}
  %0 = prec.reduce %x dims = [0] acc_dtype = f8E8M0FNU : tensor<4xf32> -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

func.func @scale_type_cast(%x: tensor<4xf32>) -> tensor<4xf8E8M0FNU> {
  // expected-error @+1 {{expected result of a float type with a zero, got 'f8E8M0FNU' (a scale-only type)}}
  %0 = prec.cast %x : tensor<4xf32> to tensor<4xf8E8M0FNU>
  return %0 : tensor<4xf8E8M0FNU>
}

// -----

func.func @scale_type_dequantize(%q: tensor<8xf8E4M3FN>, %s: tensor<f32>) -> tensor<8xf8E8M0FNU> {
  // expected-error @+1 {{expected result of a float type with a zero, got 'f8E8M0FNU' (a scale-only type)}}
  %0 = prec.dequantize %q scale %s scaling = <dynamic> : tensor<8xf8E4M3FN>, tensor<f32> -> tensor<8xf8E8M0FNU>
  return %0 : tensor<8xf8E8M0FNU>
}

// -----

shard.grid @dp(shape = 8)

func.func @delayed_collective(%x: tensor<8xf32>) -> tensor<64xbf16> {
  // expected-error @+1 {{delayed scaling keeps an amax history across steps, which a collective has no operand for: compute the scale from the history and quantize with prec.quantize before the collective}}
  %0 = prec.all_gather %x on @dp gather_axis = 0 forward_dtype = f8E4M3FN
         scaling = <delayed, history = 4> : tensor<8xf32> -> tensor<64xbf16>
  return %0 : tensor<64xbf16>
}

// -----

shard.grid @dp(shape = 8)

func.func @scaled_fp8_result(%x: tensor<8xf32>) -> tensor<64xf8E4M3FN> {
  // expected-error @+1 {{expected a result wider than the 'f8E4M3FN' wire: a scaled fp8 result would lose its scale; quantize with prec.quantize and move the fp8 tensor instead}}
  %0 = prec.all_gather %x on @dp gather_axis = 0 forward_dtype = f8E4M3FN
         scaling = <dynamic> : tensor<8xf32> -> tensor<64xf8E4M3FN>
  return %0 : tensor<64xf8E4M3FN>
}

// -----

shard.grid @dp(shape = 8)

func.func @reduce_block_scales(%s: tensor<64xf8E8M0FNU>) -> tensor<8xf8E8M0FNU> {
  // expected-error @+1 {{expected input of a float type with a zero, got 'f8E8M0FNU' (a scale-only type)}}
  %0 = prec.reduce_scatter %s on @dp scatter_axis = 0
         : tensor<64xf8E8M0FNU> -> tensor<8xf8E8M0FNU>
  return %0 : tensor<8xf8E8M0FNU>
}

// -----

func.func @amax_rank(%x: tensor<8xf32>) -> tensor<1xf32> {
  // expected-error @+1 {{expected a rank-0 result without block_size, got 'tensor<1xf32>'}}
  %0 = prec.amax %x : tensor<8xf32> -> tensor<1xf32>
  return %0 : tensor<1xf32>
}

// -----

func.func @amax_block_multiple(%x: tensor<4x48xf32>) -> tensor<4x1xf32> {
  // expected-error @+1 {{expected innermost dimension (48) to be a multiple of block_size 32}}
  %0 = prec.amax %x block_size = 32 : tensor<4x48xf32> -> tensor<4x1xf32>
  return %0 : tensor<4x1xf32>
}

// -----

func.func @amax_block_shape(%x: tensor<4x64xf32>) -> tensor<4x4xf32> {
  // expected-error @+1 {{expected result shape [4, 2] (one amax per block of 32), got 'tensor<4x4xf32>'}}
  %0 = prec.amax %x block_size = 32 : tensor<4x64xf32> -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// -----

func.func @amax_block_zero(%x: tensor<4x64xf32>) -> tensor<4x4xf32> {
  // expected-error @+1 {{expected a block_size of at least 1, got 0}}
  %0 = prec.amax %x block_size = 0 : tensor<4x64xf32> -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// -----

func.func @amax_block_rank0(%x: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{block_size needs an input of rank >= 1}}
  %0 = prec.amax %x block_size = 4 : tensor<f32> -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

func.func @amax_of_scales(%x: tensor<8xf8E8M0FNU>) -> tensor<f32> {
  // expected-error @+1 {{expected input of a float type with a zero, got 'f8E8M0FNU' (a scale-only type)}}
  %0 = prec.amax %x : tensor<8xf8E8M0FNU> -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

func.func @scale_for_bf16(%a: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{expected an fp8 (or narrower) element_type, got 'bf16'}}
  %0 = prec.scale_from_amax %a element_type = bf16 : tensor<f32> -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

func.func @scale_shape(%a: tensor<4xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{expected result of the amax's shape, got 'tensor<2xf32>' for 'tensor<4xf32>'}}
  %0 = prec.scale_from_amax %a element_type = f8E4M3FN : tensor<4xf32> -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @stochastic_without_seed(%x: tensor<8xf32>) -> tensor<8xbf16> {
  // expected-error @+1 {{expected a seed operand for stochastic rounding (`seed %s` with an i64 value)}}
  %0 = prec.cast %x rounding = <stochastic> : tensor<8xf32> to tensor<8xbf16>
  return %0 : tensor<8xbf16>
}

// -----

func.func @seed_without_stochastic(%x: tensor<8xf32>, %seed: i64) -> tensor<8xbf16> {
  // expected-error @+1 {{seed given, but rounding is nearest_even}}
  %0 = prec.cast %x seed %seed : tensor<8xf32> to tensor<8xbf16>
  return %0 : tensor<8xbf16>
}

// -----

shard.grid @dp(shape = 4)

func.func @collective_without_seed(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{expected a seed operand for stochastic rounding (`seed %s` with an i64 value)}}
  %0 = prec.all_reduce %x on @dp forward_dtype = bf16 rounding = <stochastic>
         : tensor<8xf32> -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

shard.grid @dp(shape = 4)

func.func @stochastic_gather_rounds_twice(%x: tensor<8xf32>, %seed: i64) -> tensor<32xbf16> {
  // expected-error @+1 {{rounds stochastically on the wire: expected a result element type that holds every forward_dtype 'f32' value, got 'bf16' (round once, on the wire: forward_dtype = the result element type)}}
  %0 = prec.all_gather %x on @dp gather_axis = 0 rounding = <stochastic> seed %seed
         : tensor<8xf32> -> tensor<32xbf16>
  return %0 : tensor<32xbf16>
}

// -----

func.func @quantize_without_seed(%x: tensor<4xf32>, %s: tensor<f32>) -> tensor<4xf8E4M3FN> {
  // expected-error @+1 {{expected a seed operand for stochastic rounding (`seed %s` with an i64 value)}}
  %q = prec.quantize %x scale %s scaling = <dynamic> rounding = <stochastic>
         : tensor<4xf32>, tensor<f32> -> tensor<4xf8E4M3FN>
  return %q : tensor<4xf8E4M3FN>
}

// -----

func.func @sgd_without_seed(%p: tensor<8xf32>, %g: tensor<8xf32>, %lr: f32) -> tensor<8xbf16> {
  // expected-error @+1 {{expected a seed operand for stochastic rounding (`seed %s` with an i64 value)}}
  %next, %shard = prec.sgd %p, %g, %lr rounding = <stochastic>
                    : tensor<8xf32>, tensor<8xf32> -> tensor<8xbf16>
  return %shard : tensor<8xbf16>
}

// -----

shard.grid @dp(shape = 2)

func.func @unscaled_fp8_result(%x: tensor<4xf32>) -> tensor<8xf8E4M3FN> {
  // expected-error @+1 {{expected an fp8 result to be the wire dtype, got 'f8E4M3FN' from the 'f32' wire: a conversion to fp8 needs a scale; quantize with prec.quantize and move the fp8 tensor}}
  %0 = prec.all_gather %x on @dp gather_axis = 0 : tensor<4xf32> -> tensor<8xf8E4M3FN>
  return %0 : tensor<8xf8E4M3FN>
}

// -----

func.func @f64_scale(%x: tensor<4xf32>, %s: tensor<f64>) -> tensor<4xf8E4M3FN> {
  // expected-error @+1 {{expected an f32 or f8E8M0FNU scale, got 'f64'}}
  %q = prec.quantize %x scale %s scaling = <dynamic>
         : tensor<4xf32>, tensor<f64> -> tensor<4xf8E4M3FN>
  return %q : tensor<4xf8E4M3FN>
}

// -----

shard.grid @dp(shape = 8)
func.func @bytes_overflow(%x: tensor<2305843009213693952xf32>) -> tensor<0xf32> {
  // expected-error @+1 {{expected operand #0 to fit in 9223372036854775807 bytes (sizes computed from it would overflow int64), got 'tensor<2305843009213693952xf32>'}}
  %0 = prec.all_gather %x on @dp gather_axis = 0 : tensor<2305843009213693952xf32> -> tensor<0xf32>
  return %0 : tensor<0xf32>
}

// -----

func.func @bytes_overflow_result(%x: tensor<4x4xf32>) -> tensor<4611686018427387904x2xbf16> {
  // expected-error @+1 {{expected result #0 to fit in 9223372036854775807 bytes}}
  %0 = prec.cast %x : tensor<4x4xf32> to tensor<4611686018427387904x2xbf16>
  return %0 : tensor<4611686018427387904x2xbf16>
}

// -----

shard.grid @dp(shape = 8)
func.func @gathered_extent_overflow(%x: tensor<1152921504606846976xf8E4M3FN>) -> tensor<8xf8E4M3FN> {
  // expected-error @+1 {{expected result dimension 0 to be 1152921504606846976 x group size 8, which overflows int64}}
  %0 = prec.all_gather %x on @dp gather_axis = 0 : tensor<1152921504606846976xf8E4M3FN> -> tensor<8xf8E4M3FN>
  return %0 : tensor<8xf8E4M3FN>
}

// -----

shard.grid @dp(shape = 8)
func.func @all_to_all_bytes_overflow(%x: tensor<8x1152921504606846976xf8E4M3FN>) -> tensor<1x8xf8E4M3FN> {
  // An all_to_all's concat dimension times the group size overflows only
  // where its input already does.
  // expected-error @+1 {{expected operand #0 to fit in 9223372036854775807 bytes}}
  %0 = prec.all_to_all %x on @dp split_axis = 0 concat_axis = 1 : tensor<8x1152921504606846976xf8E4M3FN> -> tensor<1x8xf8E4M3FN>
  return %0 : tensor<1x8xf8E4M3FN>
}

// -----

shard.grid @dp(shape = 8)
func.func @transport_extent_overflow(%x: tensor<1152921504606846976xf8E4M3FN>) -> tensor<8xf8E4M3FN> {
  // expected-error @+1 {{expected 1152921504606846976 x group size 8 result elements, which overflows int64}}
  %0 = prec.transport <all_gather> %x on @dp : tensor<1152921504606846976xf8E4M3FN> -> tensor<8xf8E4M3FN>
  return %0 : tensor<8xf8E4M3FN>
}

// -----

shard.grid @dp(shape = 4)
func.func @pre_divisor_beyond_acc(%x: tensor<8xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{expected a pre_divisor in the normal range of acc_dtype 'f32' [1.17549435E-38, 3.40282347E+38], got 1.000000e+39}}
  %0 = prec.reduce_scatter %x on @dp scatter_axis = 0 forward_dtype = bf16 pre_divisor = 1.0e39 : tensor<8xf32> -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

shard.grid @dp(shape = 4)
func.func @post_divisor_below_acc(%x: tensor<8xf16>) -> tensor<8xf16> {
  // expected-error @+1 {{expected a post_divisor in the normal range of acc_dtype 'f16' [6.1035E-5, 65504], got 1.000000e-300}}
  %0 = prec.all_reduce %x on @dp acc_dtype = f16 post_divisor = 1.0e-300 : tensor<8xf16> -> tensor<8xf16>
  return %0 : tensor<8xf16>
}

// -----

shard.grid @dp(shape = 4)
func.func @f16_divisor_beyond_acc(%x: tensor<8xf16>) -> tensor<8xf16> {
  // expected-error @+1 {{expected a pre_divisor in the normal range of acc_dtype 'f16' [6.1035E-5, 65504], got 1.000000e+05}}
  %0 = prec.all_reduce %x on @dp acc_dtype = f16 pre_divisor = 1.0e5 : tensor<8xf16> -> tensor<8xf16>
  return %0 : tensor<8xf16>
}

// -----

func.func @saturating_truncf_to_bf16(%x: f32) -> bf16 {
  // expected-error @+1 {{'prec.saturating_truncf' op result #0 must be f8E4M3FN type or f8E5M2 type or vector of f8E4M3FN type or f8E5M2 type values, but got 'bf16'}}
  %0 = prec.saturating_truncf %x : f32 to bf16
  return %0 : bf16
}

// -----

func.func @saturating_truncf_shapes(%v: vector<4xf32>) -> vector<8xf8E4M3FN> {
  // expected-error @+1 {{'prec.saturating_truncf' op all non-scalar operands/results must have the same shape and base type}}
  %0 = prec.saturating_truncf %v : vector<4xf32> to vector<8xf8E4M3FN>
  return %0 : vector<8xf8E4M3FN>
}

// -----

// Wires are what a runtime moves. An f80 wire that only widens on the way
// would be narrowed by prec-fold-casts, but the program must be valid
// without it.
shard.grid @dp(shape = 2)
func.func @wire_f80(%x: tensor<4xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'prec.all_gather' op expected forward_dtype to be a wire dtype the runtimes move (f64, f32, f16, bf16, f8E4M3FN or f8E5M2), got 'f80'}}
  %0 = prec.all_gather %x on @dp gather_axis = 0 forward_dtype = f80 : tensor<4xf32> -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

shard.grid @dp(shape = 2)
func.func @wire_f128_by_default(%x: tensor<4xf128>) -> tensor<4xf128> {
  // expected-error @+1 {{'prec.all_reduce' op expected forward_dtype (the input element type) to be a wire dtype the runtimes move (f64, f32, f16, bf16, f8E4M3FN or f8E5M2), got 'f128'}}
  %0 = prec.all_reduce %x on @dp : tensor<4xf128> -> tensor<4xf128>
  return %0 : tensor<4xf128>
}

// -----

shard.grid @dp(shape = 2)
func.func @backward_wire_f80(%x: tensor<8xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'prec.reduce_scatter' op expected backward_dtype to be a wire dtype the runtimes move (f64, f32, f16, bf16, f8E4M3FN or f8E5M2), got 'f80'}}
  %0 = prec.reduce_scatter %x on @dp scatter_axis = 0 backward_dtype = f80 : tensor<8xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

shard.grid @dp(shape = 2)
func.func @transport_wire_f80(%x: tensor<4xf80>) -> tensor<8xf80> {
  // expected-error @+1 {{'prec.transport' op expected a wire dtype the runtimes move (f64, f32, f16, bf16, f8E4M3FN or f8E5M2), got 'f80'}}
  %0 = prec.transport <all_gather> %x on @dp : tensor<4xf80> -> tensor<8xf80>
  return %0 : tensor<8xf80>
}

// -----

shard.grid @dp(shape = 2)
func.func @transport_reduces_scales(%x: tensor<4xf8E8M0FNU>) -> tensor<4xf8E8M0FNU> {
  // expected-error @+1 {{'prec.transport' op expected a wire dtype the runtimes move (f64, f32, f16, bf16, f8E4M3FN or f8E5M2), got 'f8E8M0FNU'}}
  %0 = prec.transport <all_reduce> %x on @dp reduction = <sum> : tensor<4xf8E8M0FNU> -> tensor<4xf8E8M0FNU>
  return %0 : tensor<4xf8E8M0FNU>
}

// -----

// No LLVM type holds tf32: a cast f16 -> tf32 -> f16 would fold away, but
// the program must be valid without the folding.
func.func @cast_tf32(%x: tensor<4xf16>) -> tensor<4xtf32> {
  // expected-error @+1 {{'prec.cast' op expected result #0 of one of f64, f32, f16, bf16, f80, f128, f8E4M3FN or f8E5M2 (f8E8M0FNU for scales), got 'tf32' (no LLVM type holds it; use f32 or bf16)}}
  %0 = prec.cast %x : tensor<4xf16> to tensor<4xtf32>
  return %0 : tensor<4xtf32>
}

// -----

func.func @cast_other_fp8(%x: tensor<8xf32>) -> tensor<8xf8E4M3FNUZ> {
  // expected-error @+1 {{'prec.cast' op expected result #0 of one of f64, f32, f16, bf16, f80, f128, f8E4M3FN or f8E5M2 (f8E8M0FNU for scales), got 'f8E4M3FNUZ'}}
  %0 = prec.cast %x : tensor<8xf32> to tensor<8xf8E4M3FNUZ>
  return %0 : tensor<8xf8E4M3FNUZ>
}

// -----

func.func @reduce_input_fp6(%x: tensor<8xf6E2M3FN>) -> tensor<f32> {
  // expected-error @+1 {{'prec.reduce' op expected operand #0 of one of f64, f32, f16, bf16, f80, f128, f8E4M3FN or f8E5M2 (f8E8M0FNU for scales), got 'f6E2M3FN'}}
  %0 = prec.reduce %x dims = [0] : tensor<8xf6E2M3FN> -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

func.func @reduce_acc_tf32(%x: tensor<8xf16>) -> tensor<f32> {
  // expected-error @+1 {{'prec.reduce' op expected acc_dtype of one of f64, f32, f16, bf16, f80, f128, f8E4M3FN or f8E5M2 (f8E8M0FNU for scales), got 'tf32'}}
  %0 = prec.reduce %x dims = [0] acc_dtype = tf32 : tensor<8xf16> -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

shard.grid @dp(shape = 2)
func.func @other_fp8_wire(%w: tensor<2x64xf32>) -> tensor<4x64xf32> {
  // expected-error @+1 {{'prec.all_gather' op expected forward_dtype of one of f64, f32, f16, bf16, f80, f128, f8E4M3FN or f8E5M2 (f8E8M0FNU for scales), got 'f8E4M3FNUZ'}}
  %0 = prec.all_gather %w on @dp gather_axis = 0 forward_dtype = f8E4M3FNUZ
         scaling = <dynamic> : tensor<2x64xf32> -> tensor<4x64xf32>
  return %0 : tensor<4x64xf32>
}

// -----

// Block scaling: one scale per block of the innermost dimension, checked
// where the op is, not by the pass that computes the scales.
shard.grid @dp(shape = 2)
func.func @scaled_blocks_of_the_innermost_dimension(%w: tensor<2x48xf32>) -> tensor<4x48xf32> {
  // expected-error @+1 {{'prec.all_gather' op expected the innermost dimension of 'tensor<2x48xf32>' to be a multiple of block_size 32}}
  %0 = prec.all_gather %w on @dp gather_axis = 0 forward_dtype = f8E4M3FN
         scaling = <block, block_size = 32> : tensor<2x48xf32> -> tensor<4x48xf32>
  return %0 : tensor<4x48xf32>
}

// -----

shard.grid @dp(shape = 2)
func.func @scaled_blocks_of_a_scalar(%w: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{'prec.all_reduce' op block scaling needs an input of rank >= 1, got 'tensor<f32>'}}
  %0 = prec.all_reduce %w on @dp forward_dtype = f8E4M3FN
         scaling = <block, block_size = 32> : tensor<f32> -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

shard.grid @dp(shape = 4)
func.func @scaled_blocks_split_among_ranks(%g: tensor<2x64xf32>) -> tensor<2x16xf32> {
  // expected-error @+1 {{'prec.reduce_scatter' op expected the chunks of dimension 1 sent to each rank (16 elements) to be a multiple of block_size 32}}
  %0 = prec.reduce_scatter %g on @dp scatter_axis = 1 forward_dtype = f8E5M2
         scaling = <block, block_size = 32> : tensor<2x64xf32> -> tensor<2x16xf32>
  return %0 : tensor<2x16xf32>
}

// -----

shard.grid @dp(shape = 4)
func.func @scaled_blocks_exchanged(%g: tensor<2x64xf32>) -> tensor<8x16xf32> {
  // expected-error @+1 {{'prec.all_to_all' op expected the chunks of dimension 1 sent to each rank (16 elements) to be a multiple of block_size 32}}
  %0 = prec.all_to_all %g on @dp split_axis = 1 concat_axis = 0 forward_dtype = f8E5M2
         scaling = <block, block_size = 32> : tensor<2x64xf32> -> tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}

// -----

// expected-error @+1 {{expected scale_dtype f8E8M0FNU or f32, got 'bf16'}}
func.func private @block_scale_dtype() attributes {s = #prec.scaling<block, block_size = 32, scale_dtype = bf16>}

// -----

shard.grid @dp(shape = 2)
func.func @scaled_fp8_accumulation(%g: tensor<8xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'prec.reduce_scatter' op expected an acc_dtype with arithmetic (f16 or wider) for the scaled 'f8E4M3FN' wire, got 'f8E4M3FN'}}
  %0 = prec.reduce_scatter %g on @dp scatter_axis = 0 forward_dtype = f8E4M3FN
         scaling = <dynamic> acc_dtype = f8E4M3FN : tensor<8xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

shard.grid @dp(shape = 8)
func.func @average_in_scaled_accumulation(%q: tensor<64xf8E4M3FN>) -> tensor<64xf8E4M3FN> {
  // expected-error @+1 {{'prec.all_reduce' op cannot average in the scaled accumulation dtype 'f8E4M3FN': a divisor gives the sum no headroom}}
  %0 = prec.all_reduce %q on @dp reduction = <avg> scaling = <dynamic> acc_dtype = f8E4M3FN : tensor<64xf8E4M3FN> -> tensor<64xf8E4M3FN>
  return %0 : tensor<64xf8E4M3FN>
}

// -----

// expected-error @+1 {{expected 'prec.no_grad' of argument 0 to be a unit attribute, got true}}
func.func private @no_grad_not_unit(tensor<8xf32> {prec.no_grad = true})

// -----

// expected-error @+1 {{expected 'prec.name' of argument 0 to be a string of letters, digits, '_', '.' and '-' that is not a number, got "12"}}
func.func private @name_is_a_number(tensor<8xf32> {prec.name = "12"})

// -----

// expected-error @+1 {{expected 'prec.name' of argument 0 to be a string of letters, digits, '_', '.' and '-' that is not a number, got "m*"}}
func.func private @name_with_glob(tensor<8xf32> {prec.name = "m*"})

// -----

// expected-error @+1 {{expected 'prec.name' of argument 1 to be a string of letters, digits, '_', '.' and '-' that is not a number, got 3 : i64}}
func.func private @name_not_a_string(f32, f32 {prec.name = 3})

// -----

// expected-error @+1 {{expected distinct 'prec.name' on arguments, got "w" on arguments 0 and 2}}
func.func private @name_twice(tensor<8xf32> {prec.name = "w"}, f32, tensor<8xf32> {prec.name = "w"})

// -----

// expected-error @+1 {{expected 'prec.default' only on arguments of numbers or tensors of them, argument 0 has type 'complex<f32>'}}
func.func private @default_on_complex(tensor<8xcomplex<f32>> {prec.default = 1.0 : f32})

// -----

// expected-error @+1 {{expected 'prec.default' of argument 0 to be a number of its type 'f32', got 1.000000e+00 : f64}}
func.func private @default_on_tensor_wrong_type(tensor<8xf32> {prec.default = 1.0 : f64})

// -----

// expected-error @+1 {{expected 'prec.default' of argument 0 to be a number of its type 'f32', got 2.000000e-02 : f64}}
func.func private @default_other_type(f32 {prec.default = 0.02 : f64})

// -----

// expected-error @+1 {{expected 'prec.default' of argument 0 to be a number of its type 'i32', got "3"}}
func.func private @default_not_a_number(i32 {prec.default = "3"})

// -----

// expected-error @+1 {{expected distinct 'prec.name' on results, got "loss" on results 0 and 1}}
func.func private @result_name_twice() -> (f32 {prec.name = "loss"}, f32 {prec.name = "loss"})

// -----

// expected-error @+1 {{expected 'prec.name' of result 0 to be a string of letters, digits, '_', '.' and '-' that is not a number, got "a b"}}
func.func private @result_name_space() -> (f32 {prec.name = "a b"})

// -----

// expected-error @+1 {{unknown prec attribute 'prec.default' on a result}}
func.func private @result_default() -> (f32 {prec.default = 1.0 : f32})

// -----

// expected-error @+1 {{expected 'prec.shard' of argument 0 to be a dictionary {grid = @g, grid_axes = [...], dim = D : i64, size = S : i64}, got [0, 1]}}
func.func private @shard_not_a_dict(tensor<3x4xf32> {prec.shard = [0, 1]})

// -----

shard.grid @fsdp(shape = 4)
// expected-error @+1 {{expected 'prec.shard' of argument 0 to have only the keys grid, grid_axes, dim and size, got 'axis'}}
func.func private @shard_unknown_key(tensor<3x4xf32> {prec.shard = {grid = @fsdp, grid_axes = [0], dim = 0 : i64, size = 10 : i64, axis = 0 : i64}})

// -----

// expected-error @+1 {{expected 'prec.shard' of argument 0 to have a symbol 'grid', got "fsdp"}}
func.func private @shard_grid_not_symbol(tensor<3x4xf32> {prec.shard = {grid = "fsdp", grid_axes = [0], dim = 0 : i64, size = 10 : i64}})

// -----

shard.grid @fsdp(shape = 4)
// expected-error @+1 {{expected 'prec.shard' of argument 0 to have 'grid_axes' of i64 integers, got [0 : i32]}}
func.func private @shard_axes_i32(tensor<3x4xf32> {prec.shard = {grid = @fsdp, grid_axes = [0 : i32], dim = 0 : i64, size = 10 : i64}})

// -----

shard.grid @fsdp(shape = 4)
// expected-error @+1 {{expected 'prec.shard' of argument 0 to have an i64 'dim', got <<NULL ATTRIBUTE>>}}
func.func private @shard_no_dim(tensor<3x4xf32> {prec.shard = {grid = @fsdp, grid_axes = [0], size = 10 : i64}})

// -----

shard.grid @fsdp(shape = 4)
// expected-error @+1 {{expected 'prec.shard' of argument 0 to have a non-negative i64 'size', got -1 : i64}}
func.func private @shard_negative_size(tensor<3x4xf32> {prec.shard = {grid = @fsdp, grid_axes = [0], dim = 0 : i64, size = -1 : i64}})

// -----

shard.grid @fsdp(shape = 4)
// expected-error @+1 {{expected 'prec.shard' only on ranked tensor or memref arguments, argument 0 has type 'f32'}}
func.func private @shard_on_scalar(f32 {prec.shard = {grid = @fsdp, grid_axes = [0], dim = 0 : i64, size = 10 : i64}})

// -----

shard.grid @fsdp(shape = 4)
// expected-error @+1 {{expected 'prec.shard' of argument 0 to have 'dim' in [0, 2) for type 'tensor<3x4xf32>', got 2}}
func.func private @shard_dim_out_of_range(tensor<3x4xf32> {prec.shard = {grid = @fsdp, grid_axes = [0], dim = 2 : i64, size = 10 : i64}})

// -----

// expected-error @+1 {{expected 'prec.shard' of argument 0 to name a shard.grid, got @nowhere}}
func.func private @shard_no_grid(tensor<3x4xf32> {prec.shard = {grid = @nowhere, grid_axes = [0], dim = 0 : i64, size = 10 : i64}})

// -----

shard.grid @hsdp(shape = 2x2)
// expected-error @+1 {{expected 'prec.shard' of argument 0 to have 'grid_axes' in [0, 2) of grid @hsdp, got 2}}
func.func private @shard_axis_out_of_range(tensor<3x4xf32> {prec.shard = {grid = @hsdp, grid_axes = [2], dim = 0 : i64, size = 5 : i64}})

// -----

shard.grid @hsdp(shape = 2x2)
// expected-error @+1 {{expected 'prec.shard' of argument 0 to have distinct 'grid_axes', got [1, 1]}}
func.func private @shard_axis_twice(tensor<3x4xf32> {prec.shard = {grid = @hsdp, grid_axes = [1, 1], dim = 0 : i64, size = 5 : i64}})

// -----

shard.grid @fsdp(shape = 4)
// expected-error @+1 {{expected 'prec.shard' of argument 0 to split size 10 over the 4 ranks of its group in blocks of ceil(10 / 4) = 3, the extent of dimension 0 of type 'tensor<2x4xf32>', got 2}}
func.func private @shard_wrong_extent(tensor<2x4xf32> {prec.shard = {grid = @fsdp, grid_axes = [0], dim = 0 : i64, size = 10 : i64}})

// -----

// expected-error @+1 {{expected 'prec.range' of argument 0 to be [lo, hi], two i64 integers, got [0, 50257, 3]}}
func.func private @range_three(tensor<8xi32> {prec.range = [0, 50257, 3]})

// -----

// expected-error @+1 {{expected 'prec.range' of argument 0 to be [lo, hi], two i64 integers, got [0 : i32, 10 : i32]}}
func.func private @range_i32(tensor<8xi32> {prec.range = [0 : i32, 10 : i32]})

// -----

// expected-error @+1 {{expected 'prec.range' of argument 0 to be [lo, hi] with lo < hi, got [5, 5]}}
func.func private @range_empty(tensor<8xi32> {prec.range = [5, 5]})

// -----

// expected-error @+1 {{expected 'prec.range' only on integer arguments, argument 0 has type 'tensor<8xf32>'}}
func.func private @range_on_float(tensor<8xf32> {prec.range = [0, 10]})

// -----

// expected-error @+1 {{expected 'prec.range' of argument 0 to lie within [-128, 128) of its element type 'i8', got [0, 256]}}
func.func private @range_beyond_type(tensor<8xi8> {prec.range = [0, 256]})

// -----

// expected-error @+1 {{expected 'prec.range' of argument 0 to lie within [0, 2) of its element type 'i1', got [0, 3]}}
func.func private @range_beyond_i1(i1 {prec.range = [0, 3]})

// -----

// expected-error @+1 {{expected 'prec.policy' of argument 0 to be a #prec.policy, got "bf16"}}
func.func private @argument_policy_not_a_policy(tensor<4xf32> {prec.policy = "bf16"})

// -----

// expected-error @+1 {{expected 'prec.inter_host_axes' to be an array<i16> of axes on a 'shard.grid', got [0] on 'shard.grid'}}
shard.grid @hosts(shape = 2x4) {prec.inter_host_axes = [0]}

// -----

// expected-error @+1 {{expected 'prec.inter_host_axes' to be an array<i16> of axes on a 'shard.grid', got array<i16: 0> on 'func.func'}}
func.func @inter_host_axes_on_function() attributes {prec.inter_host_axes = array<i16: 0>} {
  return
}

// -----

// expected-error @+1 {{expected 'prec.inter_host_axes' to name axes of grid @hosts in [0, 2), got 2}}
shard.grid @hosts(shape = 2x4) {prec.inter_host_axes = array<i16: 2>}

// -----

// expected-error @+1 {{expected distinct 'prec.inter_host_axes', got axis 0 twice}}
shard.grid @hosts(shape = 2x4) {prec.inter_host_axes = array<i16: 0, 0>}

// -----

shard.grid @dp(shape = 2x4)
func.func @inter_host_dtype_without_topology(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{has inter_host_dtype, but grid @dp declares no 'prec.inter_host_axes'}}
  %0 = prec.all_reduce %x on @dp forward_dtype = bf16 inter_host_dtype = bf16 : tensor<8xf32> -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

shard.grid @hosts(shape = 2x4) {prec.inter_host_axes = array<i16: 0>}
func.func @inter_host_dtype_inside_a_host(%x: tensor<8xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{has inter_host_dtype, but its group (grid axes [1] of @hosts) does not span both levels (inter-host axes [0]; axes of extent 1 span neither)}}
  %0 = prec.reduce_scatter %x on @hosts grid_axes = [1] scatter_axis = 0 forward_dtype = bf16 inter_host_dtype = bf16 : tensor<8xf32> -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

shard.grid @one_host(shape = 1x4) {prec.inter_host_axes = array<i16: 0>}
func.func @inter_host_dtype_one_host(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{has inter_host_dtype, but its group (grid axes [0, 1] of @one_host) does not span both levels (inter-host axes [0]; axes of extent 1 span neither)}}
  %0 = prec.all_reduce %x on @one_host forward_dtype = bf16 inter_host_dtype = bf16 : tensor<8xf32> -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

shard.grid @hosts(shape = 2x4) {prec.inter_host_axes = array<i16: 0>}
func.func @inter_host_dtype_fp8_unscaled(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{expected inter_host_scaling for the 'f8E4M3FN' inter_host_dtype: an fp8 wire needs scales}}
  %0 = prec.all_reduce %x on @hosts forward_dtype = bf16 inter_host_dtype = f8E4M3FN : tensor<8xf32> -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

shard.grid @hosts(shape = 2x4) {prec.inter_host_axes = array<i16: 0>}
func.func @inter_host_scaling_not_fp8(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{inter_host_scaling given but inter_host_dtype 'bf16' is not an fp8 type}}
  %0 = prec.all_reduce %x on @hosts forward_dtype = bf16 inter_host_dtype = bf16 inter_host_scaling = <dynamic> : tensor<8xf32> -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

shard.grid @hosts(shape = 2x4) {prec.inter_host_axes = array<i16: 0>}
func.func @inter_host_scaling_alone(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{inter_host_scaling given without an fp8 inter_host_dtype}}
  %0 = prec.all_reduce %x on @hosts forward_dtype = bf16 inter_host_scaling = <dynamic> : tensor<8xf32> -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

shard.grid @hosts(shape = 2x4) {prec.inter_host_axes = array<i16: 0>}
func.func @inter_host_scaling_delayed(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{expected inter_host_scaling <dynamic> or <block, ...>: delayed scaling keeps an amax history across steps, which a collective has no operand for}}
  %0 = prec.all_reduce %x on @hosts forward_dtype = bf16 inter_host_dtype = f8E5M2 inter_host_scaling = <delayed, history = 4> : tensor<8xf32> -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

shard.grid @hosts(shape = 2x4) {prec.inter_host_axes = array<i16: 0>}
func.func @inter_host_fp8_f64_sums(%x: tensor<8xf64>) -> tensor<8xf64> {
  // expected-error @+1 {{expected an acc_dtype of 32 bits or fewer with the 'f8E4M3FN' inter_host_dtype, got 'f64': scales are f32, and partial sums beyond its range would saturate}}
  %0 = prec.all_reduce %x on @hosts acc_dtype = f64 inter_host_dtype = f8E4M3FN inter_host_scaling = <dynamic> : tensor<8xf64> -> tensor<8xf64>
  return %0 : tensor<8xf64>
}

// -----

// Each rank's partial sums for another host are its result's shape: they
// cross in whole blocks of its innermost dimension.
shard.grid @hosts(shape = 2x4) {prec.inter_host_axes = array<i16: 0>}
func.func @inter_host_blocks_split(%x: tensor<8x48xf32>) -> tensor<1x48xf32> {
  // expected-error @+1 {{expected the innermost dimension of 'tensor<1x48xf32>' to be a multiple of the block_size 32 of inter_host_scaling (partial sums cross hosts in whole blocks)}}
  %0 = prec.reduce_scatter %x on @hosts scatter_axis = 0 forward_dtype = bf16 inter_host_dtype = f8E4M3FN inter_host_scaling = <block, block_size = 32> : tensor<8x48xf32> -> tensor<1x48xf32>
  return %0 : tensor<1x48xf32>
}

// -----

shard.grid @hosts(shape = 2x4) {prec.inter_host_axes = array<i16: 0>}
func.func @inter_host_dtype_not_a_wire(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{expected an inter_host_dtype the runtimes move (f64, f32, f16, bf16, f8E4M3FN or f8E5M2), got 'f80'}}
  %0 = prec.all_reduce %x on @hosts forward_dtype = bf16 acc_dtype = f128 inter_host_dtype = f80 : tensor<8xf32> -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

shard.grid @hosts(shape = 2x4) {prec.inter_host_axes = array<i16: 0>}
func.func @inter_host_dtype_wider_than_acc(%x: tensor<8xbf16>) -> tensor<8xbf16> {
  // expected-error @+1 {{expected an inter_host_dtype that acc_dtype 'bf16' holds (partial sums are summed in it), got 'f32'}}
  %0 = prec.all_reduce %x on @hosts acc_dtype = bf16 inter_host_dtype = f32 : tensor<8xbf16> -> tensor<8xbf16>
  return %0 : tensor<8xbf16>
}

// -----

shard.grid @hosts(shape = 2x4) {prec.inter_host_axes = array<i16: 0>}
func.func @inter_host_dtype_stochastic(%x: tensor<8xf32>, %seed: i64) -> tensor<8xf32> {
  // expected-error @+1 {{expected rounding = <nearest_even> and no scaling with inter_host_dtype (two-level reductions round to nearest even)}}
  %0 = prec.all_reduce %x on @hosts forward_dtype = bf16 rounding = <stochastic> seed %seed inter_host_dtype = bf16 : tensor<8xf32> -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// A gather's grad_inter_host_dtype is its gradient reduce_scatter's
// inter_host_dtype, under the same rules.
shard.grid @dp(shape = 2x4)
func.func @grad_inter_host_dtype_without_topology(%w: tensor<1xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{has grad_inter_host_dtype, but grid @dp declares no 'prec.inter_host_axes'}}
  %0 = prec.all_gather %w on @dp gather_axis = 0 grad_inter_host_dtype = bf16 : tensor<1xf32> -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

shard.grid @hosts(shape = 2x4) {prec.inter_host_axes = array<i16: 0>}
func.func @grad_inter_host_dtype_inside_a_host(%w: tensor<2xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{has grad_inter_host_dtype, but its group (grid axes [1] of @hosts) does not span both levels (inter-host axes [0]; axes of extent 1 span neither)}}
  %0 = prec.all_gather %w on @hosts grid_axes = [1] gather_axis = 0 grad_inter_host_dtype = bf16 : tensor<2xf32> -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

shard.grid @hosts(shape = 2x4) {prec.inter_host_axes = array<i16: 0>}
func.func @grad_inter_host_dtype_fp8_unscaled(%w: tensor<1xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{expected grad_inter_host_scaling for the 'f8E5M2' grad_inter_host_dtype: an fp8 wire needs scales}}
  %0 = prec.all_gather %w on @hosts gather_axis = 0 grad_inter_host_dtype = f8E5M2 : tensor<1xf32> -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

shard.grid @hosts(shape = 2x4) {prec.inter_host_axes = array<i16: 0>}
func.func @grad_inter_host_scaling_alone(%w: tensor<1xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{grad_inter_host_scaling given without an fp8 grad_inter_host_dtype}}
  %0 = prec.all_gather %w on @hosts gather_axis = 0 grad_inter_host_scaling = <dynamic> : tensor<1xf32> -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

shard.grid @hosts(shape = 2x4) {prec.inter_host_axes = array<i16: 0>}
func.func @grad_inter_host_scaling_not_fp8(%w: tensor<1xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{grad_inter_host_scaling given but grad_inter_host_dtype 'f32' is not an fp8 type}}
  %0 = prec.all_gather %w on @hosts gather_axis = 0 grad_inter_host_dtype = f32 grad_inter_host_scaling = <dynamic> : tensor<1xf32> -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// The gradient's result is the gather's input.
shard.grid @hosts(shape = 2x4) {prec.inter_host_axes = array<i16: 0>}
func.func @grad_inter_host_blocks_split(%w: tensor<2x24xf32>) -> tensor<16x24xf32> {
  // expected-error @+1 {{expected the innermost dimension of 'tensor<2x24xf32>' to be a multiple of the block_size 16 of grad_inter_host_scaling (partial sums cross hosts in whole blocks)}}
  %0 = prec.all_gather %w on @hosts gather_axis = 0 grad_inter_host_dtype = f8E4M3FN grad_inter_host_scaling = <block, block_size = 16> : tensor<2x24xf32> -> tensor<16x24xf32>
  return %0 : tensor<16x24xf32>
}

// -----

shard.grid @hosts(shape = 2x4) {prec.inter_host_axes = array<i16: 0>}
func.func @grad_inter_host_dtype_not_a_wire(%w: tensor<1xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{expected a grad_inter_host_dtype the runtimes move (f64, f32, f16, bf16, f8E4M3FN or f8E5M2), got 'f80'}}
  %0 = prec.all_gather %w on @hosts gather_axis = 0 grad_inter_host_dtype = f80 : tensor<1xf32> -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// The gradient accumulates in the default dtype of backward_dtype (f32 for
// bf16), which does not hold f64.
shard.grid @hosts(shape = 2x4) {prec.inter_host_axes = array<i16: 0>}
func.func @grad_inter_host_dtype_wider_than_acc(%w: tensor<1xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{expected a grad_inter_host_dtype that acc_dtype 'f32' holds (partial sums are summed in it), got 'f64'}}
  %0 = prec.all_gather %w on @hosts gather_axis = 0 backward_dtype = bf16 grad_inter_host_dtype = f64 : tensor<1xf32> -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

shard.grid @hosts(shape = 2x4) {prec.inter_host_axes = array<i16: 0>}
func.func @grad_inter_host_dtype_scaled(%w: tensor<1xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{expected no scaling with grad_inter_host_dtype (the gradient keeps this op's scaling, and two-level reductions do not scale)}}
  %0 = prec.all_gather %w on @hosts gather_axis = 0 forward_dtype = f8E4M3FN scaling = <dynamic> grad_inter_host_dtype = bf16 : tensor<1xf32> -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// An all_reduce's grad_inter_host_dtype is its gradient all_reduce's
// inter_host_dtype, under the same rules.
shard.grid @dp(shape = 2x4)
func.func @all_reduce_grad_inter_host_dtype_without_topology(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{has grad_inter_host_dtype, but grid @dp declares no 'prec.inter_host_axes'}}
  %0 = prec.all_reduce %x on @dp grad_inter_host_dtype = bf16 : tensor<8xf32> -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

shard.grid @hosts(shape = 2x4) {prec.inter_host_axes = array<i16: 0>}
func.func @all_reduce_grad_inter_host_dtype_inside_a_host(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{has grad_inter_host_dtype, but its group (grid axes [1] of @hosts) does not span both levels}}
  %0 = prec.all_reduce %x on @hosts grid_axes = [1] grad_inter_host_dtype = bf16 : tensor<8xf32> -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

shard.grid @hosts(shape = 2x4) {prec.inter_host_axes = array<i16: 0>}
func.func @all_reduce_grad_inter_host_dtype_fp8_unscaled(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{expected grad_inter_host_scaling for the 'f8E4M3FN' grad_inter_host_dtype: an fp8 wire needs scales}}
  %0 = prec.all_reduce %x on @hosts grad_inter_host_dtype = f8E4M3FN : tensor<8xf32> -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

shard.grid @hosts(shape = 2x4) {prec.inter_host_axes = array<i16: 0>}
func.func @all_reduce_grad_inter_host_scaling_alone(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{grad_inter_host_scaling given without an fp8 grad_inter_host_dtype}}
  %0 = prec.all_reduce %x on @hosts grad_inter_host_scaling = <dynamic> : tensor<8xf32> -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// The gradient accumulates in the default dtype of backward_dtype (f32 for
// bf16), which does not hold f64.
shard.grid @hosts(shape = 2x4) {prec.inter_host_axes = array<i16: 0>}
func.func @all_reduce_grad_inter_host_dtype_wider_than_acc(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{expected a grad_inter_host_dtype that acc_dtype 'f32' holds (partial sums are summed in it), got 'f64'}}
  %0 = prec.all_reduce %x on @hosts backward_dtype = bf16 grad_inter_host_dtype = f64 : tensor<8xf32> -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

shard.grid @hosts(shape = 2x4) {prec.inter_host_axes = array<i16: 0>}
func.func @all_reduce_grad_inter_host_dtype_scaled(%x: tensor<16xf32>) -> tensor<16xf32> {
  // expected-error @+1 {{expected no scaling with grad_inter_host_dtype (the gradient keeps this op's scaling, and two-level reductions do not scale)}}
  %0 = prec.all_reduce %x on @hosts forward_dtype = f8E4M3FN scaling = <dynamic> acc_dtype = f32 grad_inter_host_dtype = bf16 : tensor<16xf32> -> tensor<16xf32>
  return %0 : tensor<16xf32>
}

// -----

shard.grid @hosts(shape = 2x4) {prec.inter_host_axes = array<i16: 0>}
func.func @all_reduce_grad_inter_host_dtype_of_a_max(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{expected reduction <sum> or <avg> with grad_inter_host_dtype (only they have a gradient all_reduce), got <max>}}
  %0 = prec.all_reduce %x on @hosts reduction = <max> grad_inter_host_dtype = bf16 : tensor<8xf32> -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @reduced_precision_not_the_attribute() attributes {prec.reduced_precision = "tf32"} {
  // expected-error @-1 {{expected 'prec.reduced_precision' to be a #prec.reduced_precision, got "tf32"}}
  return
}
