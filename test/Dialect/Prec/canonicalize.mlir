// RUN: prec-opt %s -canonicalize -split-input-file | FileCheck %s --enable-var-scope

// Casts fold only when no value changes, forwards or backwards.

// CHECK-LABEL: func @identity_cast
// CHECK-SAME: (%[[X:.*]]: tensor<8xf32>)
// CHECK-NOT: prec.cast
// CHECK: return %[[X]]
func.func @identity_cast(%x: tensor<8xf32>) -> tensor<8xf32> {
  %0 = prec.cast %x : tensor<8xf32> to tensor<8xf32>
  return %0 : tensor<8xf32>
}

// An identity cast that rounds its gradient to bf16 is not an identity.
// CHECK-LABEL: func @identity_cast_with_backward_dtype
// CHECK: prec.cast %{{.*}} backward_dtype = bf16 : tensor<8xf32> to tensor<8xf32>
func.func @identity_cast_with_backward_dtype(%x: tensor<8xf32>) -> tensor<8xf32> {
  %0 = prec.cast %x backward_dtype = bf16 : tensor<8xf32> to tensor<8xf32>
  return %0 : tensor<8xf32>
}

// An explicit backward_dtype equal to the default still folds.
// CHECK-LABEL: func @identity_cast_explicit_default
// CHECK-NOT: prec.cast
func.func @identity_cast_explicit_default(%x: tensor<8xf32>) -> tensor<8xf32> {
  %0 = prec.cast %x backward_dtype = f32 : tensor<8xf32> to tensor<8xf32>
  return %0 : tensor<8xf32>
}

// bf16 -> f32 -> bf16 is exact both ways.
// CHECK-LABEL: func @widen_then_narrow
// CHECK-SAME: (%[[X:.*]]: tensor<8xbf16>)
// CHECK-NOT: prec.cast
// CHECK: return %[[X]]
func.func @widen_then_narrow(%x: tensor<8xbf16>) -> tensor<8xbf16> {
  %0 = prec.cast %x : tensor<8xbf16> to tensor<8xf32>
  %1 = prec.cast %0 : tensor<8xf32> to tensor<8xbf16>
  return %1 : tensor<8xbf16>
}

// f32 -> bf16 -> f32 rounds: it must stay.
// CHECK-LABEL: func @narrow_then_widen
// CHECK: %[[N:.*]] = prec.cast %{{.*}} : tensor<8xf32> to tensor<8xbf16>
// CHECK: %[[W:.*]] = prec.cast %[[N]] : tensor<8xbf16> to tensor<8xf32>
// CHECK: return %[[W]]
func.func @narrow_then_widen(%x: tensor<8xf32>) -> tensor<8xf32> {
  %0 = prec.cast %x : tensor<8xf32> to tensor<8xbf16>
  %1 = prec.cast %0 : tensor<8xbf16> to tensor<8xf32>
  return %1 : tensor<8xf32>
}

// bf16 -> f32 -> f16: the f32 step is exact for both ends, so one cast
// bf16 -> f16 gives the same values (and the same gradient f16 -> bf16).
// CHECK-LABEL: func @exact_middle
// CHECK-SAME: (%[[X:.*]]: tensor<8xbf16>, %[[SEED:.*]]: i64)
// CHECK: %[[C:.*]] = prec.cast %[[X]] rounding = <stochastic> seed %[[SEED]] : tensor<8xbf16> to tensor<8xf16>
// CHECK-NEXT: return %[[C]]
func.func @exact_middle(%x: tensor<8xbf16>, %seed: i64) -> tensor<8xf16> {
  %0 = prec.cast %x : tensor<8xbf16> to tensor<8xf32>
  %1 = prec.cast %0 rounding = <stochastic> seed %seed : tensor<8xf32> to tensor<8xf16>
  return %1 : tensor<8xf16>
}

// f32 -> bf16 -> f16: the middle rounds, nothing folds.
// CHECK-LABEL: func @rounding_middle
// CHECK: prec.cast %{{.*}} : tensor<8xf32> to tensor<8xbf16>
// CHECK: prec.cast %{{.*}} : tensor<8xbf16> to tensor<8xf16>
func.func @rounding_middle(%x: tensor<8xf32>) -> tensor<8xf16> {
  %0 = prec.cast %x : tensor<8xf32> to tensor<8xbf16>
  %1 = prec.cast %0 : tensor<8xbf16> to tensor<8xf16>
  return %1 : tensor<8xf16>
}

// f64 -> f32 -> bf16: the f64 -> f32 step already rounds.
// CHECK-LABEL: func @double_rounding
// CHECK: prec.cast %{{.*}} : tensor<8xf64> to tensor<8xf32>
// CHECK: prec.cast %{{.*}} : tensor<8xf32> to tensor<8xbf16>
func.func @double_rounding(%x: tensor<8xf64>) -> tensor<8xbf16> {
  %0 = prec.cast %x : tensor<8xf64> to tensor<8xf32>
  %1 = prec.cast %0 : tensor<8xf32> to tensor<8xbf16>
  return %1 : tensor<8xbf16>
}

// bf16 -> f32 -> f64: forwards exact, but the gradient f64 -> f32 -> bf16
// would round twice where one cast rounds once: kept.
// CHECK-LABEL: func @backward_double_rounding
// CHECK: prec.cast %{{.*}} : tensor<8xbf16> to tensor<8xf32>
// CHECK: prec.cast %{{.*}} : tensor<8xf32> to tensor<8xf64>
func.func @backward_double_rounding(%x: tensor<8xbf16>) -> tensor<8xf64> {
  %0 = prec.cast %x : tensor<8xbf16> to tensor<8xf32>
  %1 = prec.cast %0 : tensor<8xf32> to tensor<8xf64>
  return %1 : tensor<8xf64>
}

// A chain whose casts carry their own gradient dtypes stays.
// CHECK-LABEL: func @chain_with_backward_dtype
// CHECK: prec.cast %{{.*}} backward_dtype = f32 : tensor<8xbf16> to tensor<8xf32>
// CHECK: prec.cast %{{.*}} : tensor<8xf32> to tensor<8xbf16>
func.func @chain_with_backward_dtype(%x: tensor<8xbf16>) -> tensor<8xbf16> {
  %0 = prec.cast %x backward_dtype = f32 : tensor<8xbf16> to tensor<8xf32>
  %1 = prec.cast %0 : tensor<8xf32> to tensor<8xbf16>
  return %1 : tensor<8xbf16>
}

// Scalars fold like tensors.
// CHECK-LABEL: func @scalar_chain
// CHECK-SAME: (%[[X:.*]]: f16)
// CHECK-NEXT: return %[[X]]
func.func @scalar_chain(%x: f16) -> f16 {
  %0 = prec.cast %x : f16 to f32
  %1 = prec.cast %0 : f32 to f16
  return %1 : f16
}
