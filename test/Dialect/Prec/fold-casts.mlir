// RUN: prec-opt %s --prec-fold-casts -split-input-file | FileCheck %s --enable-var-scope

// Each case below comes in two halves: what moves (same values, fewer bytes
// or kernels) and the nearest variant that must not, because a value would
// change.

shard.grid @dp(shape = 4)

// CHECK-LABEL: func @exact_chain
// CHECK-SAME: (%[[X:.*]]: tensor<8xbf16>)
// CHECK-NEXT: return %[[X]]
func.func @exact_chain(%x: tensor<8xbf16>) -> tensor<8xbf16> {
  %0 = prec.cast %x : tensor<8xbf16> to tensor<8xf32>
  %1 = prec.cast %0 : tensor<8xf32> to tensor<8xbf16>
  return %1 : tensor<8xbf16>
}

// CHECK-LABEL: func @rounding_chain
// CHECK: prec.cast %{{.*}} : tensor<8xf32> to tensor<8xbf16>
// CHECK: prec.cast %{{.*}} : tensor<8xbf16> to tensor<8xf32>
func.func @rounding_chain(%x: tensor<8xf32>) -> tensor<8xf32> {
  %0 = prec.cast %x : tensor<8xf32> to tensor<8xbf16>
  %1 = prec.cast %0 : tensor<8xbf16> to tensor<8xf32>
  return %1 : tensor<8xf32>
}

// A narrowing cast after an f32 gather goes onto the wire.
// CHECK-LABEL: func @hoist_after_gather
// CHECK-SAME: (%[[W:.*]]: tensor<8xf32>)
// CHECK: %[[G:.*]] = prec.all_gather %[[W]] on @dp gather_axis = 0 forward_dtype = bf16 backward_dtype = f32 : tensor<8xf32> -> tensor<32xbf16>
// CHECK-NOT: prec.cast
// CHECK: return %[[G]]
func.func @hoist_after_gather(%w: tensor<8xf32>) -> tensor<32xbf16> {
  %0 = prec.all_gather %w on @dp gather_axis = 0 : tensor<8xf32> -> tensor<32xf32>
  %1 = prec.cast %0 : tensor<32xf32> to tensor<32xbf16>
  return %1 : tensor<32xbf16>
}

// With stochastic rounding, rounding each shard before the gather is not the
// same random draw: kept.
// CHECK-LABEL: func @stochastic_after_gather
// CHECK: prec.all_gather %{{.*}} : tensor<8xf32> -> tensor<32xf32>
// CHECK: prec.cast %{{.*}} rounding = <stochastic>
func.func @stochastic_after_gather(%w: tensor<8xf32>, %seed: i64) -> tensor<32xbf16> {
  %0 = prec.all_gather %w on @dp gather_axis = 0 : tensor<8xf32> -> tensor<32xf32>
  %1 = prec.cast %0 rounding = <stochastic> seed %seed : tensor<32xf32> to tensor<32xbf16>
  return %1 : tensor<32xbf16>
}

// A gather whose result is also used in f32 keeps its f32 result.
// CHECK-LABEL: func @gather_used_twice
// CHECK: %[[G:.*]] = prec.all_gather %{{.*}} : tensor<8xf32> -> tensor<32xf32>
// CHECK: prec.cast %[[G]]
func.func @gather_used_twice(%w: tensor<8xf32>) -> (tensor<32xbf16>, tensor<32xf32>) {
  %0 = prec.all_gather %w on @dp gather_axis = 0 : tensor<8xf32> -> tensor<32xf32>
  %1 = prec.cast %0 : tensor<32xf32> to tensor<32xbf16>
  return %1, %0 : tensor<32xbf16>, tensor<32xf32>
}

// Gathering f32 as bf16 already rounds once on the wire; converting bf16 to
// f16 afterwards would be a second rounding: kept.
// CHECK-LABEL: func @double_rounding_gather
// CHECK: prec.all_gather %{{.*}} forward_dtype = bf16 : tensor<8xf32> -> tensor<32xbf16>
// CHECK: prec.cast %{{.*}} : tensor<32xbf16> to tensor<32xf16>
func.func @double_rounding_gather(%w: tensor<8xf32>) -> tensor<32xf16> {
  %0 = prec.all_gather %w on @dp gather_axis = 0 forward_dtype = bf16 : tensor<8xf32> -> tensor<32xbf16>
  %1 = prec.cast %0 : tensor<32xbf16> to tensor<32xf16>
  return %1 : tensor<32xf16>
}

// A reduce-scatter accumulating in f32 and returning f32, then cast to bf16,
// returns bf16 directly: the sum is rounded once either way.
// CHECK-LABEL: func @sink_after_reduce_scatter
// CHECK: %[[R:.*]] = prec.reduce_scatter %{{.*}} reduction = <avg> : tensor<32xf32> -> tensor<8xbf16>
// CHECK-NOT: prec.cast
// CHECK: return %[[R]]
func.func @sink_after_reduce_scatter(%g: tensor<32xf32>) -> tensor<8xbf16> {
  %0 = prec.reduce_scatter %g on @dp scatter_axis = 0 reduction = <avg> : tensor<32xf32> -> tensor<8xf32>
  %1 = prec.cast %0 : tensor<8xf32> to tensor<8xbf16>
  return %1 : tensor<8xbf16>
}

// Accumulating in f64 but returning f32 then bf16 rounds twice: kept.
// CHECK-LABEL: func @reduce_scatter_rounds_twice
// CHECK: prec.reduce_scatter %{{.*}} acc_dtype = f64 : tensor<32xf32> -> tensor<8xf32>
// CHECK: prec.cast
func.func @reduce_scatter_rounds_twice(%g: tensor<32xf32>) -> tensor<8xbf16> {
  %0 = prec.reduce_scatter %g on @dp scatter_axis = 0 acc_dtype = f64 : tensor<32xf32> -> tensor<8xf32>
  %1 = prec.cast %0 : tensor<8xf32> to tensor<8xbf16>
  return %1 : tensor<8xbf16>
}

// A reduction returning bf16 then widened to f32 must not become an f32
// result: that would skip the rounding to bf16.
// CHECK-LABEL: func @widening_after_reduce
// CHECK: prec.all_reduce %{{.*}} : tensor<8xbf16> -> tensor<8xbf16>
// CHECK: prec.cast %{{.*}} : tensor<8xbf16> to tensor<8xf32>
func.func @widening_after_reduce(%g: tensor<8xbf16>) -> tensor<8xf32> {
  %0 = prec.all_reduce %g on @dp : tensor<8xbf16> -> tensor<8xbf16>
  %1 = prec.cast %0 : tensor<8xbf16> to tensor<8xf32>
  return %1 : tensor<8xf32>
}

// A widening cast before a reduce-scatter merges into it; the wire keeps
// its dtype explicitly, and the narrow input is read directly.
// CHECK-LABEL: func @widening_before_reduce_scatter
// CHECK-SAME: (%[[G:.*]]: tensor<32xbf16>)
// CHECK-NOT: prec.cast
// CHECK: prec.reduce_scatter %[[G]] on @dp scatter_axis = 0 forward_dtype = f32 backward_dtype = f32 acc_dtype = f32 : tensor<32xbf16> -> tensor<8xf32>
func.func @widening_before_reduce_scatter(%g: tensor<32xbf16>) -> tensor<8xf32> {
  %0 = prec.cast %g : tensor<32xbf16> to tensor<32xf32>
  %1 = prec.reduce_scatter %0 on @dp scatter_axis = 0 : tensor<32xf32> -> tensor<8xf32>
  return %1 : tensor<8xf32>
}

// A widening cast whose gradient would be rounded twice stays: the gradient
// (an all-gather of f64 values) would be rounded to f32 and then to bf16.
// CHECK-LABEL: func @widening_gradient_rounds_twice
// CHECK: %[[C:.*]] = prec.cast
// CHECK: prec.reduce_scatter %[[C]]
func.func @widening_gradient_rounds_twice(%g: tensor<32xbf16>) -> tensor<8xf32> {
  %0 = prec.cast %g : tensor<32xbf16> to tensor<32xf32>
  %1 = prec.reduce_scatter %0 on @dp scatter_axis = 0 backward_dtype = f64 : tensor<32xf32> -> tensor<8xf32>
  return %1 : tensor<8xf32>
}

// A cast whose gradient dtype is not the default stays.
// CHECK-LABEL: func @cast_with_gradient_dtype
// CHECK: prec.cast %{{.*}} backward_dtype = f32
// CHECK: prec.all_reduce
func.func @cast_with_gradient_dtype(%g: tensor<8xbf16>) -> tensor<8xf32> {
  %0 = prec.cast %g backward_dtype = f32 : tensor<8xbf16> to tensor<8xf32>
  %1 = prec.all_reduce %0 on @dp : tensor<8xf32> -> tensor<8xf32>
  return %1 : tensor<8xf32>
}

// fp8 wires carry scales; nothing moves around them.
// CHECK-LABEL: func @fp8_untouched
// CHECK: prec.all_gather %{{.*}} forward_dtype = f8E4M3FN {{.*}} : tensor<8xf32> -> tensor<32xf32>
// CHECK: prec.cast
func.func @fp8_untouched(%w: tensor<8xf32>) -> tensor<32xbf16> {
  %0 = prec.all_gather %w on @dp gather_axis = 0 forward_dtype = f8E4M3FN backward_dtype = f32
         scaling = <dynamic> : tensor<8xf32> -> tensor<32xf32>
  %1 = prec.cast %0 : tensor<32xf32> to tensor<32xbf16>
  return %1 : tensor<32xbf16>
}

// A cast that also gives a dynamic result its static shape stays: the
// gather's result type follows from its input.
// CHECK-LABEL: func @cast_refining_shape
// CHECK: prec.all_gather {{.*}} : tensor<2xf32> -> tensor<?xf32>
// CHECK: prec.cast %{{.*}} : tensor<?xf32> to tensor<8xbf16>
func.func @cast_refining_shape(%x: tensor<2xf32>) -> tensor<8xbf16> {
  %0 = prec.all_gather %x on @dp gather_axis = 0 : tensor<2xf32> -> tensor<?xf32>
  %1 = prec.cast %0 : tensor<?xf32> to tensor<8xbf16>
  return %1 : tensor<8xbf16>
}
