// RUN: prec-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(prec-contract-fp8-with-scales))' | FileCheck %s

// Both inputs dequantized with a per-tensor scale, B through a transpose
// of a [n, k] weight, and the program allows fp8 tensor cores' accumulation
// (here on the contraction): the contraction reads the fp8 tensors (B as
// [n, k]) and the scales.
// CHECK-DAG: #[[$A:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[$B:.*]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-DAG: #[[$S:.*]] = affine_map<(d0, d1, d2) -> ()>
// CHECK-DAG: #[[$C:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @linear
// CHECK-SAME: (%[[QA:.*]]: tensor<8x32xf8E4M3FN>, %[[QB:.*]]: tensor<16x32xf8E5M2>, %[[SA:.*]]: tensor<f32>, %[[SB:.*]]: tensor<f32>
// CHECK:      linalg.generic {indexing_maps = [#[[$A]], #[[$B]], #[[$S]], #[[$S]], #[[$C]]], iterator_types = ["parallel", "parallel", "reduction"]}
// CHECK-SAME:   ins(%[[QA]], %[[QB]], %[[SA]], %[[SB]] : tensor<8x32xf8E4M3FN>, tensor<16x32xf8E5M2>, tensor<f32>, tensor<f32>)
// CHECK-SAME:   attrs = {prec.reduced_precision = #prec.reduced_precision<fp8_accumulation>}
// CHECK:      ^bb0(%[[X:.*]]: f8E4M3FN, %[[Y:.*]]: f8E5M2, %[[XS:.*]]: f32, %[[YS:.*]]: f32, %[[OUT:.*]]: f32):
// CHECK:        %[[XE:.*]] = arith.extf %[[X]] : f8E4M3FN to f32
// CHECK:        %[[XV:.*]] = arith.mulf %[[XE]], %[[XS]] : f32
// CHECK:        %[[YE:.*]] = arith.extf %[[Y]] : f8E5M2 to f32
// CHECK:        %[[YV:.*]] = arith.mulf %[[YE]], %[[YS]] : f32
// CHECK:        %[[P:.*]] = arith.mulf %[[XV]], %[[YV]] : f32
// CHECK:        %[[SUM:.*]] = arith.addf %[[OUT]], %[[P]] : f32
// CHECK:        linalg.yield %[[SUM]] : f32
// CHECK-NOT:  linalg.matmul
func.func @linear(%qa: tensor<8x32xf8E4M3FN>, %qb: tensor<16x32xf8E5M2>, %sa: tensor<f32>, %sb: tensor<f32>,
                  %init: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %a = prec.dequantize %qa scale %sa scaling = <dynamic> : tensor<8x32xf8E4M3FN>, tensor<f32> -> tensor<8x32xbf16>
  %b = prec.dequantize %qb scale %sb scaling = <delayed, history = 4> : tensor<16x32xf8E5M2>, tensor<f32> -> tensor<16x32xbf16>
  %e = tensor.empty() : tensor<32x16xbf16>
  %bt = linalg.transpose ins(%b : tensor<16x32xbf16>) outs(%e : tensor<32x16xbf16>) permutation = [1, 0]
  %c = linalg.matmul {prec.reduced_precision = #prec.reduced_precision<fp8_accumulation>}
         ins(%a, %bt : tensor<8x32xbf16>, tensor<32x16xbf16>) outs(%init : tensor<8x16xf32>) -> tensor<8x16xf32>
  return %c : tensor<8x16xf32>
}

// -----

// Without the program's permission the contract holds: f32 accumulation,
// which cuBLASLt's bf16 gemm of the dequantized operands keeps.
// CHECK-LABEL: func.func @not_allowed
// CHECK: linalg.matmul
// CHECK-NOT: linalg.generic
func.func @not_allowed(%qa: tensor<8x32xf8E4M3FN>, %qb: tensor<16x32xf8E4M3FN>, %sa: tensor<f32>, %sb: tensor<f32>,
                       %init: tensor<8x16xf32>) -> tensor<8x16xf32>
    attributes {prec.reduced_precision = #prec.reduced_precision<tf32>} {
  %a = prec.dequantize %qa scale %sa scaling = <dynamic> : tensor<8x32xf8E4M3FN>, tensor<f32> -> tensor<8x32xbf16>
  %b = prec.dequantize %qb scale %sb scaling = <dynamic> : tensor<16x32xf8E4M3FN>, tensor<f32> -> tensor<16x32xbf16>
  %e = tensor.empty() : tensor<32x16xbf16>
  %bt = linalg.transpose ins(%b : tensor<16x32xbf16>) outs(%e : tensor<32x16xbf16>) permutation = [1, 0]
  %c = linalg.matmul ins(%a, %bt : tensor<8x32xbf16>, tensor<32x16xbf16>) outs(%init : tensor<8x16xf32>) -> tensor<8x16xf32>
  return %c : tensor<8x16xf32>
}

// -----

// What cuBLASLt's fp8 gemm does not take stays: B with k outermost, a k
// that is no multiple of 16, two f8E5M2 operands, block scales, a bf16
// output, one operand dequantized.
// CHECK-LABEL: func.func @not_taken
// CHECK-COUNT-6: linalg.matmul
// CHECK-NOT: linalg.generic
module attributes {prec.reduced_precision = #prec.reduced_precision<fp8_accumulation>} {
func.func @not_taken(%qa: tensor<8x32xf8E4M3FN>, %qk: tensor<32x16xf8E4M3FN>, %q24: tensor<8x24xf8E4M3FN>,
                     %q24b: tensor<24x16xf8E4M3FN>, %e5: tensor<8x32xf8E5M2>, %e5b: tensor<16x32xf8E5M2>,
                     %qb: tensor<16x32xf8E4M3FN>, %s: tensor<f32>, %blocks: tensor<8x1xf8E8M0FNU>,
                     %x: tensor<32x16xbf16>, %init: tensor<8x16xf32>, %init16: tensor<8x16xbf16>)
    -> (tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xbf16>, tensor<8x16xf32>) {
  %a = prec.dequantize %qa scale %s scaling = <dynamic> : tensor<8x32xf8E4M3FN>, tensor<f32> -> tensor<8x32xbf16>
  %k = prec.dequantize %qk scale %s scaling = <dynamic> : tensor<32x16xf8E4M3FN>, tensor<f32> -> tensor<32x16xbf16>
  %r0 = linalg.matmul ins(%a, %k : tensor<8x32xbf16>, tensor<32x16xbf16>) outs(%init : tensor<8x16xf32>) -> tensor<8x16xf32>
  %a24 = prec.dequantize %q24 scale %s scaling = <dynamic> : tensor<8x24xf8E4M3FN>, tensor<f32> -> tensor<8x24xbf16>
  %b24 = prec.dequantize %q24b scale %s scaling = <dynamic> : tensor<24x16xf8E4M3FN>, tensor<f32> -> tensor<24x16xbf16>
  %r1 = linalg.matmul ins(%a24, %b24 : tensor<8x24xbf16>, tensor<24x16xbf16>) outs(%init : tensor<8x16xf32>) -> tensor<8x16xf32>
  %x5 = prec.dequantize %e5 scale %s scaling = <dynamic> : tensor<8x32xf8E5M2>, tensor<f32> -> tensor<8x32xbf16>
  %y5 = prec.dequantize %e5b scale %s scaling = <dynamic> : tensor<16x32xf8E5M2>, tensor<f32> -> tensor<16x32xbf16>
  %e = tensor.empty() : tensor<32x16xbf16>
  %y5t = linalg.transpose ins(%y5 : tensor<16x32xbf16>) outs(%e : tensor<32x16xbf16>) permutation = [1, 0]
  %r2 = linalg.matmul ins(%x5, %y5t : tensor<8x32xbf16>, tensor<32x16xbf16>) outs(%init : tensor<8x16xf32>) -> tensor<8x16xf32>
  %ab = prec.dequantize %qa scale %blocks scaling = <block, block_size = 32, scale_dtype = f8E8M0FNU> : tensor<8x32xf8E4M3FN>, tensor<8x1xf8E8M0FNU> -> tensor<8x32xbf16>
  %b = prec.dequantize %qb scale %s scaling = <dynamic> : tensor<16x32xf8E4M3FN>, tensor<f32> -> tensor<16x32xbf16>
  %bt = linalg.transpose ins(%b : tensor<16x32xbf16>) outs(%e : tensor<32x16xbf16>) permutation = [1, 0]
  %r3 = linalg.matmul ins(%ab, %bt : tensor<8x32xbf16>, tensor<32x16xbf16>) outs(%init : tensor<8x16xf32>) -> tensor<8x16xf32>
  %r4 = linalg.matmul ins(%a, %bt : tensor<8x32xbf16>, tensor<32x16xbf16>) outs(%init16 : tensor<8x16xbf16>) -> tensor<8x16xbf16>
  %r5 = linalg.matmul ins(%a, %x : tensor<8x32xbf16>, tensor<32x16xbf16>) outs(%init : tensor<8x16xf32>) -> tensor<8x16xf32>
  return %r0, %r1, %r2, %r3, %r4, %r5 : tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xbf16>, tensor<8x16xf32>
}
}

// -----

// Nor an n that is no multiple of 16 (D's leading dimension), nor an f16
// dequantization, whose rounding overflows to infinity where f32 does not:
// the program's infinities are its values.
// CHECK-LABEL: func.func @not_taken_either
// CHECK-COUNT-2: linalg.matmul
// CHECK-NOT: linalg.generic
module attributes {prec.reduced_precision = #prec.reduced_precision<fp8_accumulation>} {
func.func @not_taken_either(%qa: tensor<8x32xf8E4M3FN>, %qb: tensor<17x32xf8E4M3FN>, %qc: tensor<16x32xf8E5M2>,
                            %s: tensor<f32>, %init17: tensor<8x17xf32>, %init: tensor<8x16xf32>)
    -> (tensor<8x17xf32>, tensor<8x16xf32>) {
  %a = prec.dequantize %qa scale %s scaling = <dynamic> : tensor<8x32xf8E4M3FN>, tensor<f32> -> tensor<8x32xbf16>
  %b = prec.dequantize %qb scale %s scaling = <dynamic> : tensor<17x32xf8E4M3FN>, tensor<f32> -> tensor<17x32xbf16>
  %e = tensor.empty() : tensor<32x17xbf16>
  %bt = linalg.transpose ins(%b : tensor<17x32xbf16>) outs(%e : tensor<32x17xbf16>) permutation = [1, 0]
  %r0 = linalg.matmul ins(%a, %bt : tensor<8x32xbf16>, tensor<32x17xbf16>) outs(%init17 : tensor<8x17xf32>) -> tensor<8x17xf32>
  %a16 = prec.dequantize %qa scale %s scaling = <dynamic> : tensor<8x32xf8E4M3FN>, tensor<f32> -> tensor<8x32xf16>
  %c16 = prec.dequantize %qc scale %s scaling = <dynamic> : tensor<16x32xf8E5M2>, tensor<f32> -> tensor<16x32xf16>
  %e16 = tensor.empty() : tensor<32x16xf16>
  %ct = linalg.transpose ins(%c16 : tensor<16x32xf16>) outs(%e16 : tensor<32x16xf16>) permutation = [1, 0]
  %r1 = linalg.matmul ins(%a16, %ct : tensor<8x32xf16>, tensor<32x16xf16>) outs(%init : tensor<8x16xf32>) -> tensor<8x16xf32>
  return %r0, %r1 : tensor<8x17xf32>, tensor<8x16xf32>
}
}
