// RUN: prec-opt %s -split-input-file -verify-diagnostics

// The keyword clauses of a collective parse in any order; a clause the op
// does not take, one given twice, or a required one missing is an error that
// names it.

shard.grid @dp(shape = 8)
func.func @gather_acc_dtype(%x: tensor<8xf32>) -> tensor<64xf32> {
  // expected-error @+1 {{unexpected clause 'acc_dtype' in 'prec.all_gather', expected one of: grid_axes, gather_axis, forward_dtype, backward_dtype, rounding, seed, scaling, grad_reduction, grad_inter_host_dtype}}
  %0 = prec.all_gather %x on @dp gather_axis = 0 acc_dtype = f32 : tensor<8xf32> -> tensor<64xf32>
  return %0 : tensor<64xf32>
}

// -----

shard.grid @dp(shape = 8)
func.func @all_to_all_reduction(%x: tensor<64xf32>) -> tensor<64xf32> {
  // expected-error @+1 {{unexpected clause 'reduction' in 'prec.all_to_all', expected one of: grid_axes, split_axis, concat_axis, forward_dtype, backward_dtype, rounding, seed, scaling}}
  %0 = prec.all_to_all %x on @dp split_axis = 0 concat_axis = 0 reduction = <sum> : tensor<64xf32> -> tensor<64xf32>
  return %0 : tensor<64xf32>
}

// -----

shard.grid @dp(shape = 8)
func.func @all_reduce_scatter_axis(%x: tensor<64xf32>) -> tensor<64xf32> {
  // expected-error @+1 {{unexpected clause 'scatter_axis' in 'prec.all_reduce', expected one of: grid_axes, reduction, forward_dtype, backward_dtype, rounding, seed, scaling, acc_dtype, pre_divisor, post_divisor, algorithm}}
  %0 = prec.all_reduce %x on @dp scatter_axis = 0 : tensor<64xf32> -> tensor<64xf32>
  return %0 : tensor<64xf32>
}

// -----

shard.grid @dp(shape = 8)
func.func @reduce_scatter_typo(%x: tensor<64xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{unexpected clause 'acc_type' in 'prec.reduce_scatter', expected one of: grid_axes, scatter_axis, reduction, forward_dtype, backward_dtype, rounding, seed, scaling, acc_dtype, pre_divisor, post_divisor, algorithm}}
  %0 = prec.reduce_scatter %x on @dp scatter_axis = 0 acc_type = f32 : tensor<64xf32> -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

shard.grid @dp(shape = 8)
func.func @duplicate(%x: tensor<64xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{clause 'forward_dtype' appears twice in 'prec.reduce_scatter'}}
  %0 = prec.reduce_scatter %x on @dp forward_dtype = bf16 scatter_axis = 0 forward_dtype = f32 : tensor<64xf32> -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

shard.grid @dp(shape = 8)
func.func @duplicate_seed(%x: tensor<8xf32>, %s: i64) -> tensor<64xbf16> {
  // expected-error @+1 {{clause 'seed' appears twice in 'prec.all_gather'}}
  %0 = prec.all_gather %x on @dp rounding = <stochastic> seed %s gather_axis = 0 seed %s forward_dtype = bf16 : tensor<8xf32> -> tensor<64xbf16>
  return %0 : tensor<64xbf16>
}

// -----

shard.grid @dp(shape = 8)
func.func @missing_gather_axis(%x: tensor<8xf32>) -> tensor<64xf32> {
  // expected-error @+1 {{expected clause 'gather_axis' in 'prec.all_gather'}}
  %0 = prec.all_gather %x on @dp forward_dtype = bf16 : tensor<8xf32> -> tensor<64xf32>
  return %0 : tensor<64xf32>
}

// -----

shard.grid @dp(shape = 8)
func.func @missing_concat_axis(%x: tensor<64xf32>) -> tensor<64xf32> {
  // expected-error @+1 {{expected clause 'concat_axis' in 'prec.all_to_all'}}
  %0 = prec.all_to_all %x on @dp split_axis = 0 : tensor<64xf32> -> tensor<64xf32>
  return %0 : tensor<64xf32>
}

// -----

// The other ops with keyword clauses follow the same rules.
func.func @cast_scaling(%x: tensor<8xf32>) -> tensor<8xbf16> {
  // expected-error @+1 {{unexpected clause 'scaling' in 'prec.cast', expected one of: backward_dtype, rounding, seed}}
  %0 = prec.cast %x scaling = <dynamic> : tensor<8xf32> to tensor<8xbf16>
  return %0 : tensor<8xbf16>
}

// -----

func.func @reduce_duplicate(%x: tensor<8xf32>) -> tensor<f32> {
  // expected-error @+1 {{clause 'reduction' appears twice in 'prec.reduce'}}
  %0 = prec.reduce %x reduction = <avg> dims = [0] reduction = <sum> : tensor<8xf32> -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

func.func @reduce_missing_dims(%x: tensor<8xf32>) -> tensor<f32> {
  // expected-error @+1 {{expected clause 'dims' in 'prec.reduce'}}
  %0 = prec.reduce %x reduction = <avg> : tensor<8xf32> -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

func.func @sgd_beta1(%p: tensor<8xf32>, %g: tensor<8xf32>, %lr: f32) -> tensor<8xf32> {
  // expected-error @+1 {{unexpected clause 'beta1' in 'prec.sgd', expected one of: weight_decay, rounding, seed}}
  %0 = prec.sgd %p, %g, %lr beta1 = 0.9 : tensor<8xf32>, tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @adamw_duplicate(%p: tensor<8xf32>, %g: tensor<8xf32>, %lr: f32, %step: f32) -> tensor<8xf32> {
  // expected-error @+1 {{clause 'eps' appears twice in 'prec.adamw'}}
  %0:3 = prec.adamw %p, %g, %p, %p, %lr, %step eps = 1.0e-06 beta1 = 0.8 eps = 1.0e-07 : tensor<8xf32>, tensor<8xf32>
  return %0#0 : tensor<8xf32>
}

// -----

func.func @quantize_missing_scaling(%x: tensor<8xf32>, %s: tensor<f32>) -> tensor<8xf8E4M3FN> {
  // expected-error @+1 {{expected clause 'scaling' in 'prec.quantize'}}
  %0 = prec.quantize %x scale %s rounding = <nearest_even> : tensor<8xf32>, tensor<f32> -> tensor<8xf8E4M3FN>
  return %0 : tensor<8xf8E4M3FN>
}

// -----

shard.grid @dp(shape = 8)
func.func @transport_acc_dtype(%x: tensor<64xf32>) -> tensor<64xf32> {
  // expected-error @+1 {{unexpected clause 'acc_dtype' in 'prec.transport', expected one of: grid_axes, reduction}}
  %0 = prec.transport <all_reduce> %x on @dp reduction = <sum> acc_dtype = f32 : tensor<64xf32> -> tensor<64xf32>
  return %0 : tensor<64xf32>
}
