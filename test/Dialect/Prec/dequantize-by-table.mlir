// RUN: prec-opt %s --prec-dequantize-by-table -split-input-file | FileCheck %s --enable-var-scope

// A per-tensor dequantization: the same prec.dequantize of the 256 bit
// patterns, and a lookup of each element by its bits.
// CHECK-LABEL: func @per_tensor
// CHECK-SAME: (%[[Q:.*]]: tensor<64x64xf8E4M3FN>, %[[S:.*]]: tensor<f32>)
// CHECK: %[[CODES:.*]] = arith.constant dense<{{.*}}> : tensor<256xf8E4M3FN>
// CHECK: %[[TABLE:.*]] = prec.dequantize %[[CODES]] scale %[[S]] scaling = <dynamic> : tensor<256xf8E4M3FN>, tensor<f32> -> tensor<256xbf16>
// CHECK: linalg.generic {{.*}} ins(%[[Q]] : tensor<64x64xf8E4M3FN>)
// CHECK:   %[[BITS:.*]] = arith.bitcast %{{.*}} : f8E4M3FN to i8
// CHECK:   %[[WIDE:.*]] = arith.extui %[[BITS]] : i8 to i32
// CHECK:   %[[I:.*]] = arith.index_castui %[[WIDE]] : i32 to index
// CHECK:   %[[V:.*]] = tensor.extract %[[TABLE]][%[[I]]] : tensor<256xbf16>
// CHECK:   linalg.yield %[[V]] : bf16
// CHECK-NOT: prec.dequantize
func.func @per_tensor(%q: tensor<64x64xf8E4M3FN>, %s: tensor<f32>) -> tensor<64x64xbf16> {
  %w = prec.dequantize %q scale %s scaling = <dynamic>
         : tensor<64x64xf8E4M3FN>, tensor<f32> -> tensor<64x64xbf16>
  return %w : tensor<64x64xbf16>
}

// -----

// Block scales (one per 32 elements) and small tensors stay as they are.
// CHECK-LABEL: func @untouched
// CHECK-NOT: tensor.extract
// CHECK: prec.dequantize {{.*}} scaling = <block, block_size = 32>
// CHECK-NOT: tensor.extract
// CHECK: prec.dequantize {{.*}} scaling = <delayed, history = 4>
// CHECK-NOT: tensor.extract
// CHECK: return
func.func @untouched(%q: tensor<64x64xf8E5M2>, %b: tensor<64x2xf8E8M0FNU>,
                     %small: tensor<16x16xf8E4M3FN>, %s: tensor<f32>)
    -> (tensor<64x64xf32>, tensor<16x16xbf16>) {
  %0 = prec.dequantize %q scale %b scaling = <block, block_size = 32>
         : tensor<64x64xf8E5M2>, tensor<64x2xf8E8M0FNU> -> tensor<64x64xf32>
  %1 = prec.dequantize %small scale %s scaling = <delayed, history = 4>
         : tensor<16x16xf8E4M3FN>, tensor<f32> -> tensor<16x16xbf16>
  return %0, %1 : tensor<64x64xf32>, tensor<16x16xbf16>
}
