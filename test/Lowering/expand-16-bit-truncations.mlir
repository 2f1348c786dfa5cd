// RUN: prec-opt %s --prec-expand-fp8-arith=include-16-bit | FileCheck %s --enable-var-scope
// RUN: prec-opt %s --prec-expand-fp8-arith | FileCheck %s --check-prefix=OFF

// To bf16: integer arithmetic whose NaN choice is a select of i32 words made
// before the rounding, so that no select of bf16 remains.
// CHECK-LABEL: func @to_bf16
// CHECK-SAME: (%[[X:.*]]: vector<8xf32>)
// CHECK-NOT: arith.truncf
// CHECK: %[[BITS:.*]] = arith.bitcast %[[X]] : vector<8xf32> to vector<8xi32>
// CHECK: %[[NAN:.*]] = arith.cmpi ugt
// CHECK: %[[WORD:.*]] = arith.select %[[NAN]], %{{.*}}, %[[BITS]] : vector<8xi1>, vector<8xi32>
// CHECK: arith.addi
// CHECK: %[[HIGH:.*]] = arith.trunci %{{.*}} : vector<8xi32> to vector<8xi16>
// CHECK: %[[R:.*]] = arith.bitcast %[[HIGH]] : vector<8xi16> to vector<8xbf16>
// CHECK-NOT: arith.truncf
// CHECK: return %[[R]]
// OFF-LABEL: func @to_bf16
// OFF: arith.truncf %{{.*}} : vector<8xf32> to vector<8xbf16>
// OFF-NOT: arith.select
// OFF: return
func.func @to_bf16(%x: vector<8xf32>) -> vector<8xbf16> {
  %0 = arith.truncf %x : vector<8xf32> to vector<8xbf16>
  return %0 : vector<8xbf16>
}

// To f16: the truncation stays; a NaN becomes the canonical one (0x7E00).
// CHECK-LABEL: func @to_f16
// CHECK-SAME: (%[[X:.*]]: f32)
// CHECK: %[[T:.*]] = arith.truncf %[[X]] : f32 to f16
// CHECK: %[[NAN:.*]] = arith.cmpi ugt
// CHECK: %[[CANONICAL:.*]] = arith.constant 32256 : i16
// CHECK: %[[C:.*]] = arith.bitcast %[[CANONICAL]] : i16 to f16
// CHECK: %[[R:.*]] = arith.select %[[NAN]], %[[C]], %[[T]] : f16
// CHECK: return %[[R]]
// OFF-LABEL: func @to_f16
// OFF: arith.truncf %{{.*}} : f32 to f16
// OFF-NOT: arith.select
// OFF: return
func.func @to_f16(%x: f32) -> f16 {
  %0 = arith.truncf %x : f32 to f16
  return %0 : f16
}

// Other rounding modes and sources stay as they are.
// CHECK-LABEL: func @others
// CHECK: arith.truncf %{{.*}} toward_zero : f32 to bf16
// CHECK: arith.truncf %{{.*}} : f64 to bf16
func.func @others(%x: f32, %d: f64) -> (bf16, bf16) {
  %0 = arith.truncf %x toward_zero : f32 to bf16
  %1 = arith.truncf %d : f64 to bf16
  return %0, %1 : bf16, bf16
}

// Tensors are left alone: the pass runs on the kernels' scalar and vector
// code, after bufferization.
// CHECK-LABEL: func @tensors
// CHECK: arith.truncf %{{.*}} : tensor<4xf32> to tensor<4xbf16>
func.func @tensors(%x: tensor<4xf32>) -> tensor<4xbf16> {
  %0 = arith.truncf %x : tensor<4xf32> to tensor<4xbf16>
  return %0 : tensor<4xbf16>
}
