// RUN: prec-opt %s --convert-prec-to-linalg -split-input-file -verify-diagnostics | FileCheck %s --enable-var-scope

// One fused kernel: bf16 gradient in, f32 master updated, bf16 shard out.
// CHECK-LABEL: func @sgd
// CHECK-SAME: (%[[P:.*]]: tensor<8xf32>, %[[G:.*]]: tensor<8xbf16>, %[[LR:.*]]: f32)
// CHECK: %[[R:.*]]:2 = linalg.generic {{.*}} ins(%[[P]], %[[G]] : tensor<8xf32>, tensor<8xbf16>) outs(%{{.*}}, %{{.*}} : tensor<8xf32>, tensor<8xbf16>)
// CHECK: ^bb0(%[[PE:.*]]: f32, %[[GE:.*]]: bf16, %{{.*}}: f32, %{{.*}}: bf16):
// CHECK:   %[[GF:.*]] = arith.extf %[[GE]] : bf16 to f32
// CHECK:   %[[WD:.*]] = arith.mulf %{{.*}}, %[[PE]] : f32
// CHECK:   %[[GT:.*]] = arith.addf %[[GF]], %[[WD]] : f32
// CHECK:   %[[STEP:.*]] = arith.mulf %[[LR]], %[[GT]] : f32
// CHECK:   %[[NEXT:.*]] = arith.subf %[[PE]], %[[STEP]] : f32
// CHECK:   %[[LOW:.*]] = arith.truncf %[[NEXT]] : f32 to bf16
// CHECK:   linalg.yield %[[NEXT]], %[[LOW]] : f32, bf16
// CHECK: return %[[R]]#0, %[[R]]#1
// CHECK-NOT: prec.sgd
func.func @sgd(%p: tensor<8xf32>, %g: tensor<8xbf16>, %lr: f32) -> (tensor<8xf32>, tensor<8xbf16>) {
  %0:2 = prec.sgd %p, %g, %lr weight_decay = 0.5 : tensor<8xf32>, tensor<8xbf16> -> tensor<8xbf16>
  return %0#0, %0#1 : tensor<8xf32>, tensor<8xbf16>
}

// CHECK-LABEL: func @adamw
// CHECK: math.powf
// CHECK: math.powf
// CHECK: %{{.*}}:4 = linalg.generic {{.*}} ins(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : tensor<8xf32>, tensor<8xbf16>, tensor<8xf32>, tensor<8xf32>) outs(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xbf16>)
// CHECK:   math.sqrt
// CHECK:   arith.truncf %{{.*}} : f32 to bf16
// CHECK-NOT: prec.adamw
func.func @adamw(%p: tensor<8xf32>, %g: tensor<8xbf16>, %m: tensor<8xf32>, %v: tensor<8xf32>,
                 %lr: f32, %step: f32) -> tensor<8xbf16> {
  %0:4 = prec.adamw %p, %g, %m, %v, %lr, %step : tensor<8xf32>, tensor<8xbf16> -> tensor<8xbf16>
  return %0#3 : tensor<8xbf16>
}

// bf16 -> f16: neither holds the other; one rounding through exact f32.
// CHECK-LABEL: func @cast
// CHECK: arith.extf %{{.*}} : bf16 to f32
// CHECK-NEXT: arith.truncf %{{.*}} : f32 to f16
func.func @cast(%x: tensor<8xbf16>) -> tensor<8xf16> {
  %0 = prec.cast %x : tensor<8xbf16> to tensor<8xf16>
  return %0 : tensor<8xf16>
}

// CHECK-LABEL: func @scalar_cast
// CHECK: arith.truncf %{{.*}} : f32 to bf16
func.func @scalar_cast(%x: f32) -> bf16 {
  %0 = prec.cast %x : f32 to bf16
  return %0 : bf16
}

// Average over both dims of bf16 values, in f32.
// CHECK-LABEL: func @reduce_avg
// CHECK: linalg.fill ins(%{{.*}} : f32)
// CHECK: linalg.generic {{.*}} iterator_types = ["reduction", "reduction"]
// CHECK:   arith.extf %{{.*}} : bf16 to f32
// CHECK: linalg.generic
// CHECK:   arith.constant 3.200000e+01 : f32
// CHECK:   arith.divf
func.func @reduce_avg(%x: tensor<4x8xbf16>) -> tensor<f32> {
  %0 = prec.reduce %x dims = [0, 1] reduction = <avg> acc_dtype = f32 : tensor<4x8xbf16> -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// CHECK-LABEL: func @stochastic
// CHECK-SAME: (%[[X:.*]]: tensor<8xf32>, %[[SEED:.*]]: i64)
// CHECK: linalg.generic
// CHECK: %[[I:.*]] = linalg.index 0 : index
// CHECK: arith.index_castui %[[I]] : index to i64
// CHECK: arith.trunci %[[SEED]] : i64 to i32
// CHECK-COUNT-20: arith.mului_extended
// CHECK: arith.trunci %{{.*}} : i32 to i16
// CHECK: arith.bitcast %{{.*}} : i16 to bf16
func.func @stochastic(%x: tensor<8xf32>, %seed: i64) -> tensor<8xbf16> {
  %0 = prec.cast %x rounding = <stochastic> seed %seed : tensor<8xf32> to tensor<8xbf16>
  return %0 : tensor<8xbf16>
}

// -----

// -----

func.func @dynamic(%x: tensor<?xbf16>) -> tensor<f32> {
  // expected-error @+1 {{expected static shapes, got 'tensor<?xbf16>'}}
  %0 = prec.reduce %x dims = [0] : tensor<?xbf16> -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// An average divides by the element count where the count is exact: 70000
// is +inf in f16 and 257 rounds to 256 in bf16, so both divide in f32 and
// round once to the result.
// CHECK-LABEL: func @average_count_beyond_f16
// CHECK-DAG: %[[COUNT:.*]] = arith.constant 7.000000e+04 : f32
// CHECK-DAG: %[[SUM:.*]] = arith.extf %{{.*}} : f16 to f32
// CHECK: arith.divf %[[SUM]], %[[COUNT]] : f32
// CHECK: arith.truncf %{{.*}} : f32 to f16
func.func @average_count_beyond_f16(%x: tensor<70000xf16>) -> tensor<f16> {
  %0 = prec.reduce %x dims = [0] reduction = <avg> acc_dtype = f16 : tensor<70000xf16> -> tensor<f16>
  return %0 : tensor<f16>
}

// CHECK-LABEL: func @average_count_inexact_in_bf16
// CHECK-DAG: %[[COUNT:.*]] = arith.constant 2.570000e+02 : f32
// CHECK-DAG: %[[SUM:.*]] = arith.extf %{{.*}} : bf16 to f32
// CHECK: arith.divf %[[SUM]], %[[COUNT]] : f32
func.func @average_count_inexact_in_bf16(%x: tensor<257xbf16>) -> tensor<bf16> {
  %0 = prec.reduce %x dims = [0] reduction = <avg> acc_dtype = bf16 : tensor<257xbf16> -> tensor<bf16>
  return %0 : tensor<bf16>
}

// -----

// fp8 has no LLVM type: the cast rounds with prec's saturating rule, one
// op that each target lowers (integer arithmetic, or PTX's conversion),
// never upstream's arith.truncf; the way back decodes the byte.
// CHECK-LABEL: func @fp8_cast
// CHECK: linalg.generic
// CHECK: ^bb0(%[[X:.*]]: f32, %{{.*}}: f8E4M3FN):
// CHECK-NOT: arith.truncf
// CHECK: %[[Q:.*]] = prec.saturating_truncf %[[X]] : f32 to f8E4M3FN
// CHECK: linalg.yield %[[Q]]
// CHECK: linalg.generic
// CHECK: ^bb0(%[[Y:.*]]: f8E5M2, %{{.*}}: f32):
// CHECK: arith.bitcast %[[Y]] : f8E5M2 to i8
// CHECK-NOT: arith.extf
// CHECK: linalg.yield
func.func @fp8_cast(%x: tensor<8xf32>, %y: tensor<8xf8E5M2>)
    -> (tensor<8xf8E4M3FN>, tensor<8xf32>) {
  %0 = prec.cast %x : tensor<8xf32> to tensor<8xf8E4M3FN>
  %1 = prec.cast %y : tensor<8xf8E5M2> to tensor<8xf32>
  return %0, %1 : tensor<8xf8E4M3FN>, tensor<8xf32>
}

// -----

// Per-tensor scales are read through a rank-0 map; the quotient is an f32
// division. Dequantizing to bf16 keeps the product exact in f32 (two
// products and the error of their sum), rounds it to odd, then to bf16: no
// f64.
// CHECK-DAG: #[[$ID:.*]] = affine_map<(d0) -> (d0)>
// CHECK-DAG: #[[$SCALAR:.*]] = affine_map<(d0) -> ()>
// CHECK-LABEL: func @quantize_dynamic
// CHECK: linalg.generic {indexing_maps = [#[[$ID]], #[[$SCALAR]], #[[$ID]]]
// CHECK: %[[QUOTIENT:.*]] = arith.divf %{{.*}}, %{{.*}} : f32
// CHECK: prec.saturating_truncf %[[QUOTIENT]] : f32 to f8E4M3FN
// CHECK: linalg.generic {indexing_maps = [#[[$ID]], #[[$SCALAR]], #[[$ID]]]
// CHECK-NOT: f64
// CHECK: %[[SUM:.*]] = arith.addf %[[HIGH:.*]], %[[LOW:.*]] : f32
// CHECK: %[[PART:.*]] = arith.subf %[[SUM]], %[[HIGH]] : f32
// CHECK: arith.subf %[[LOW]], %[[PART]] : f32
// CHECK-NOT: f64
// CHECK: arith.truncf %{{.*}} : f32 to bf16
// CHECK-NOT: f64
// CHECK: linalg.yield
func.func @quantize_dynamic(%x: tensor<4xbf16>, %s: tensor<f32>) -> tensor<4xbf16> {
  %q = prec.quantize %x scale %s scaling = <dynamic>
         : tensor<4xbf16>, tensor<f32> -> tensor<4xf8E4M3FN>
  %d = prec.dequantize %q scale %s scaling = <dynamic>
         : tensor<4xf8E4M3FN>, tensor<f32> -> tensor<4xbf16>
  return %d : tensor<4xbf16>
}

// -----

// Block scales are read by block of the innermost dimension; the amax of a
// block reduces the innermost dimension of the [.., K / B, B] view.
// CHECK-DAG: #[[$BLOCK:.*]] = affine_map<(d0, d1) -> (d0, d1 floordiv 32)>
// CHECK-DAG: #[[$VIEW:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[$KEPT:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func @quantize_block
// CHECK: %[[V:.*]] = tensor.expand_shape %{{.*}} {{\[\[}}0], [1, 2]] output_shape [2, 2, 32]
// CHECK: linalg.generic {indexing_maps = [#[[$VIEW]], #[[$KEPT]]], iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[V]]
// CHECK: math.absf
// CHECK: %[[FINITE:.*]] = arith.cmpf olt
// CHECK: %[[TERM:.*]] = arith.select %[[FINITE]]
// CHECK: %[[TERMBITS:.*]] = arith.bitcast %[[TERM]] : f32 to i32
// CHECK: %[[LARGEST:.*]] = arith.maxui %{{.*}}, %[[TERMBITS]] : i32
// CHECK: arith.bitcast %[[LARGEST]] : i32 to f32
// CHECK: linalg.generic
// CHECK: arith.bitcast %{{.*}} : i8 to f8E8M0FNU
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #[[$BLOCK]], #{{.*}}]
func.func @quantize_block(%x: tensor<2x64xf32>) -> tensor<2x64xf8E5M2> {
  %a = prec.amax %x block_size = 32 : tensor<2x64xf32> -> tensor<2x2xf32>
  %s = prec.scale_from_amax %a element_type = f8E5M2
         : tensor<2x2xf32> -> tensor<2x2xf8E8M0FNU>
  %q = prec.quantize %x scale %s scaling = <block, block_size = 32, scale_dtype = f8E8M0FNU>
         : tensor<2x64xf32>, tensor<2x2xf8E8M0FNU> -> tensor<2x64xf8E5M2>
  return %q : tensor<2x64xf8E5M2>
}

// -----

// A per-tensor amax keeps the maxima of the columns of a [rows, columns]
// view (a vector loop per row), then reduces them; the maximum of the
// non-negative terms is the unsigned maximum of their bits. A tensor too
// small for 8 columns is one reduction.
// CHECK-DAG: #[[$ROWS:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[$COLUMN:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func @amax_per_tensor
// CHECK-SAME: (%[[X:.*]]: tensor<64x64xf32>, %[[SMALL:.*]]: tensor<4xf32>)
// CHECK: %[[FLAT:.*]] = tensor.collapse_shape %[[X]]
// CHECK: %[[VIEW:.*]] = tensor.expand_shape %[[FLAT]] {{.*}} output_shape [16, 256]
// CHECK: %[[COLUMNS:.*]] = linalg.generic {indexing_maps = [#[[$ROWS]], #[[$COLUMN]]], iterator_types = ["reduction", "parallel"]} ins(%[[VIEW]] : tensor<16x256xf32>) outs(%{{.*}} : tensor<256xf32>)
// CHECK:   arith.maxui
// CHECK: linalg.generic {{.*}} iterator_types = ["reduction"]} ins(%[[COLUMNS]] : tensor<256xf32>) outs(%{{.*}} : tensor<f32>)
// CHECK:   arith.maxui
// CHECK: linalg.generic {{.*}} iterator_types = ["reduction"]} ins(%[[SMALL]] : tensor<4xf32>) outs(%{{.*}} : tensor<f32>)
func.func @amax_per_tensor(%x: tensor<64x64xf32>, %small: tensor<4xf32>)
    -> (tensor<f32>, tensor<f32>) {
  %a = prec.amax %x : tensor<64x64xf32> -> tensor<f32>
  %b = prec.amax %small : tensor<4xf32> -> tensor<f32>
  return %a, %b : tensor<f32>, tensor<f32>
}
