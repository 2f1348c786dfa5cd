// RUN: prec-opt %s --convert-contractions-to-runtime="gpu fp8-gemm" --canonicalize -split-input-file | FileCheck %s --enable-var-scope
// Without fp8-gemm (a chip without fp8 tensor cores) scaled fp8
// contractions stay.
// RUN: prec-opt %s --convert-contractions-to-runtime=gpu --canonicalize -split-input-file | FileCheck %s --check-prefix=NOFP8
// RUN: prec-opt %s --convert-contractions-to-runtime --canonicalize -split-input-file | FileCheck %s --check-prefix=CPU

// For GPU code only the contractions cuBLASLt computes under prec's contract
// become calls: A and B of one type (f32, bf16, f16; others widened exactly
// first), C f32 or of theirs, each operand with a unit stride along its rows
// or its columns. The call's
// arguments are the CPU's (batch, m, n, k, then per operand its dtype, address
// and strides); prec-gpu-host-to-runtime puts it on the stream.

// CHECK-LABEL: func @bf16_inputs_f32_out
// CHECK: call @precrtCompiledMatmul(%c1_i64, %c8_i64, %c16_i64, %c64_i64, %c3_i32, %{{.*}}, %c0_i64, %c64_i64, %c1_i64, %c3_i32, %{{.*}}, %c0_i64, %c16_i64, %c1_i64, %c1_i32, %{{.*}}, %c0_i64, %c16_i64, %c1_i64)
// CHECK-NOT: linalg.matmul
func.func @bf16_inputs_f32_out(%x: memref<8x64xbf16>, %w: memref<64x16xbf16>) -> memref<8x16xf32> {
  %out = memref.alloc() : memref<8x16xf32>
  linalg.matmul ins(%x, %w : memref<8x64xbf16>, memref<64x16xbf16>) outs(%out : memref<8x16xf32>)
  return %out : memref<8x16xf32>
}

// -----

// A bf16 output of bf16 inputs: rounded once, as cuBLASLt does with f32
// compute.
// CHECK-LABEL: func @bf16_out
// CHECK: call @precrtCompiledMatmul(%c1_i64, %c4_i64, %c8_i64, %c2_i64, %c3_i32, %{{.*}}, %c3_i32, %{{.*}}, %c3_i32,
// CHECK-NOT: linalg.matmul
func.func @bf16_out(%a: memref<4x2xbf16>, %b: memref<2x8xbf16>) -> memref<4x8xbf16> {
  %out = memref.alloc() : memref<4x8xbf16>
  linalg.matmul ins(%a, %b : memref<4x2xbf16>, memref<2x8xbf16>) outs(%out : memref<4x8xbf16>)
  return %out : memref<4x8xbf16>
}

// -----

// The generated backward's transposed weight: folded into B's strides
// (column-major w^T), which cuBLASLt reads as a transposed operand.
// CHECK-LABEL: func @folded_transpose
// CHECK-SAME: (%{{.*}}: memref<8x16xf32>, %[[W:.*]]: memref<64x16xf32>)
// CHECK-NOT: linalg.transpose
// CHECK: %[[WP:.*]] = memref.extract_aligned_pointer_as_index %[[W]]
// CHECK: call @precrtCompiledMatmul(%c1_i64, %c8_i64, %c64_i64, %c16_i64, %c1_i32, %{{.*}}, %c0_i64, %c16_i64, %c1_i64, %c1_i32, %[[WP]], %c0_i64, %c1_i64, %c16_i64, %c1_i32,
func.func @folded_transpose(%g: memref<8x16xf32>, %w: memref<64x16xf32>) -> memref<8x64xf32> {
  %wt = memref.alloc() : memref<16x64xf32>
  linalg.transpose ins(%w : memref<64x16xf32>) outs(%wt : memref<16x64xf32>) permutation = [1, 0]
  %out = memref.alloc() : memref<8x64xf32>
  linalg.matmul ins(%g, %wt : memref<8x16xf32>, memref<16x64xf32>) outs(%out : memref<8x64xf32>)
  memref.dealloc %wt : memref<16x64xf32>
  return %out : memref<8x64xf32>
}

// -----

// Batch matmul, B broadcast (batch stride 0) through a transposed map.
// CHECK-LABEL: func @batch_matmul
// CHECK: call @precrtCompiledMatmul(%c3_i64, %c4_i64, %c5_i64, %c6_i64, %c2_i32, %{{.*}}, %c24_i64, %c6_i64, %c1_i64, %c2_i32, %{{.*}}, %c30_i64, %c5_i64, %c1_i64, %c1_i32, %{{.*}}, %c20_i64, %c5_i64, %c1_i64)
// CHECK-NOT: linalg.batch_matmul
func.func @batch_matmul(%a: memref<3x4x6xf16>, %b: memref<3x6x5xf16>) -> memref<3x4x5xf32> {
  %out = memref.alloc() : memref<3x4x5xf32>
  linalg.batch_matmul ins(%a, %b : memref<3x4x6xf16>, memref<3x6x5xf16>) outs(%out : memref<3x4x5xf32>)
  return %out : memref<3x4x5xf32>
}

// -----

// Mixed inputs (an f32 gradient times a bf16 weight): cuBLASLt takes A and B
// of one type, so the weight is widened exactly to f32 first (a kernel into
// a buffer of its own, freed after the call).
// CHECK-LABEL: func @mixed_inputs
// CHECK-SAME: (%[[G:.*]]: memref<8x16xf32>, %[[W:.*]]: memref<16x64xbf16>)
// CHECK: %[[WIDE:.*]] = memref.alloc() : memref<16x64xf32>
// CHECK: linalg.generic {{.*}} ins(%[[W]] : memref<16x64xbf16>) outs(%[[WIDE]] : memref<16x64xf32>)
// CHECK: arith.extf %{{.*}} : bf16 to f32
// CHECK: %[[WP:.*]] = memref.extract_aligned_pointer_as_index %[[WIDE]]
// CHECK: call @precrtCompiledMatmul(%c1_i64, %c8_i64, %c64_i64, %c16_i64, %c1_i32, %{{.*}}, %c0_i64, %c16_i64, %c1_i64, %c1_i32, %[[WP]], %c0_i64, %c64_i64, %c1_i64, %c1_i32,
// CHECK-NEXT: memref.dealloc %[[WIDE]]
// CHECK-NOT: linalg.matmul
func.func @mixed_inputs(%g: memref<8x16xf32>, %w: memref<16x64xbf16>) -> memref<8x64xf32> {
  %out = memref.alloc() : memref<8x64xf32>
  linalg.matmul ins(%g, %w : memref<8x16xf32>, memref<16x64xbf16>) outs(%out : memref<8x64xf32>)
  return %out : memref<8x64xf32>
}

// -----

// fp8 operands (no scale pointers yet) are widened exactly to bf16, and
// bf16 with f16 to f32.
// CHECK-LABEL: func @fp8_inputs
// CHECK-COUNT-2: arith.extf %{{.*}} : f8E4M3FN to bf16
// CHECK: call @precrtCompiledMatmul(%c1_i64, %c8_i64, %c4_i64, %c16_i64, %c3_i32, %{{.*}}, %c3_i32,
// CHECK-NOT: linalg.matmul
func.func @fp8_inputs(%a: memref<8x16xf8E4M3FN>, %b: memref<16x4xf8E4M3FN>) -> memref<8x4xf32> {
  %out = memref.alloc() : memref<8x4xf32>
  linalg.matmul ins(%a, %b : memref<8x16xf8E4M3FN>, memref<16x4xf8E4M3FN>) outs(%out : memref<8x4xf32>)
  return %out : memref<8x4xf32>
}

// CHECK-LABEL: func @bf16_f16_inputs
// CHECK: arith.extf %{{.*}} : bf16 to f32
// CHECK: arith.extf %{{.*}} : f16 to f32
// CHECK: call @precrtCompiledMatmul(%c1_i64, %c8_i64, %c4_i64, %c16_i64, %c1_i32, %{{.*}}, %c1_i32,
func.func @bf16_f16_inputs(%a: memref<8x16xbf16>, %b: memref<16x4xf16>) -> memref<8x4xf32> {
  %out = memref.alloc() : memref<8x4xf32>
  linalg.matmul ins(%a, %b : memref<8x16xbf16>, memref<16x4xf16>) outs(%out : memref<8x4xf32>)
  return %out : memref<8x4xf32>
}

// -----

// f64 is not a gemm type at all: loops.
// CHECK-LABEL: func @f64_stays
// CHECK-NOT: call @precrtCompiledMatmul
// CHECK: linalg.matmul
func.func @f64_stays(%a: memref<4x4xf64>, %b: memref<4x4xf64>) -> memref<4x4xf64> {
  %out = memref.alloc() : memref<4x4xf64>
  linalg.matmul ins(%a, %b : memref<4x4xf64>, memref<4x4xf64>) outs(%out : memref<4x4xf64>)
  return %out : memref<4x4xf64>
}

// -----

// A view with no unit stride along rows or columns: no leading dimension
// describes it, so the loop kernels compute it.
// CHECK-LABEL: func @no_unit_stride
// CHECK-NOT: call @precrtCompiledMatmul
// CHECK: linalg.matmul
func.func @no_unit_stride(%a: memref<4x8xf32, strided<[16, 2]>>, %b: memref<8x4xf32>) -> memref<4x4xf32> {
  %out = memref.alloc() : memref<4x4xf32>
  linalg.matmul ins(%a, %b : memref<4x8xf32, strided<[16, 2]>>, memref<8x4xf32>) outs(%out : memref<4x4xf32>)
  return %out : memref<4x4xf32>
}

// -----

// The transpose's source has no unit stride, its result has: the transpose
// stays and the gemm reads its result.
// CHECK-LABEL: func @unfoldable_transpose
// CHECK: %[[WT:.*]] = memref.alloc() : memref<8x4xf32>
// CHECK: linalg.transpose {{.*}} outs(%[[WT]] : memref<8x4xf32>)
// CHECK: %[[WTP:.*]] = memref.extract_aligned_pointer_as_index %[[WT]] :
// CHECK: call @precrtCompiledMatmul(%c1_i64, %c4_i64, %c4_i64, %c8_i64, %c1_i32, %{{.*}}, %c0_i64, %c8_i64, %c1_i64, %c1_i32, %[[WTP]], %c0_i64, %c4_i64, %c1_i64,
// CHECK: memref.dealloc
func.func @unfoldable_transpose(%a: memref<4x8xf32>, %w: memref<4x8xf32, strided<[16, 2]>>) -> memref<4x4xf32> {
  %wt = memref.alloc() : memref<8x4xf32>
  linalg.transpose ins(%w : memref<4x8xf32, strided<[16, 2]>>) outs(%wt : memref<8x4xf32>) permutation = [1, 0]
  %out = memref.alloc() : memref<4x4xf32>
  linalg.matmul ins(%a, %wt : memref<4x8xf32>, memref<8x4xf32>) outs(%out : memref<4x4xf32>)
  memref.dealloc %wt : memref<8x4xf32>
  return %out : memref<4x4xf32>
}

// -----

// What a program allows below the contract goes on the call, from the
// contraction or the nearest op around it; the CPU's gemm computes the
// contract regardless (which exceeds it), so its calls carry nothing.
// CHECK-LABEL: func @reduced_precision
// CHECK: call @precrtCompiledMatmul({{.*}}) {prec.reduced_precision = #prec.reduced_precision<tf32>}
// CHECK: call @precrtCompiledMatmul({{.*}}) {prec.reduced_precision = #prec.reduced_precision<tf32, output_type_reduction>}
// CHECK-LABEL: func @contract
// CHECK: call @precrtCompiledMatmul(
// CHECK-NOT: prec.reduced_precision
// CHECK: return
// CPU-LABEL: func @reduced_precision
// CPU-NOT: call @precrtCompiledMatmul({{.*}}) {prec.reduced_precision
// CPU: return
module {
  func.func @reduced_precision(%a: memref<4x2xf32>, %b: memref<2x8xf32>) -> (memref<4x8xf32>, memref<4x8xf32>)
      attributes {prec.reduced_precision = #prec.reduced_precision<tf32>} {
    %out = memref.alloc() : memref<4x8xf32>
    linalg.matmul ins(%a, %b : memref<4x2xf32>, memref<2x8xf32>) outs(%out : memref<4x8xf32>)
    %out2 = memref.alloc() : memref<4x8xf32>
    linalg.matmul {prec.reduced_precision = #prec.reduced_precision<tf32, output_type_reduction>}
      ins(%a, %b : memref<4x2xf32>, memref<2x8xf32>) outs(%out2 : memref<4x8xf32>)
    return %out, %out2 : memref<4x8xf32>, memref<4x8xf32>
  }
  func.func @contract(%a: memref<4x2xf32>, %b: memref<2x8xf32>) -> memref<4x8xf32> {
    %out = memref.alloc() : memref<4x8xf32>
    linalg.matmul ins(%a, %b : memref<4x2xf32>, memref<2x8xf32>) outs(%out : memref<4x8xf32>)
    return %out : memref<4x8xf32>
  }
}

// -----

// fp8 operands with their scales (prec-contract-fp8-with-scales' form) go
// to cuBLASLt's fp8 gemm: the scaled gemm's call, precrtCompiledMatmul's
// arguments (A f8E4M3FN = 4, B f8E5M2 = 5, read as [n, k]) and then the
// scales' addresses; a constant scale (which the canonicalizer inlines into
// the body) is put in a constant global. On the CPU it stays as it is.
#a = affine_map<(d0, d1, d2) -> (d0, d2)>
#b = affine_map<(d0, d1, d2) -> (d1, d2)>
#s = affine_map<(d0, d1, d2) -> ()>
#c = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-DAG: memref.global "private" constant @__prec_gemm_scale_0 : memref<f32> = dense<2.500000e-01>
// CHECK-DAG: func.func private @prec.scaled_gemm(i64, i64, i64, i64, i32, index, i64, i64, i64, i32, index, i64, i64, i64, i32, index, i64, i64, i64, index, index) -> i32
// CHECK-LABEL: func @scaled_fp8
// CHECK-SAME: (%[[QA:.*]]: memref<8x32xf8E4M3FN>, %[[QB:.*]]: memref<16x32xf8E5M2>, %[[SA:.*]]: memref<f32>)
// CHECK: %[[QAP:.*]] = memref.extract_aligned_pointer_as_index %[[QA]]
// CHECK: %[[QBP:.*]] = memref.extract_aligned_pointer_as_index %[[QB]]
// CHECK: %[[SAP:.*]] = memref.extract_aligned_pointer_as_index %[[SA]]
// CHECK: %[[G:.*]] = memref.get_global @__prec_gemm_scale_0 : memref<f32>
// CHECK: %[[SBP:.*]] = memref.extract_aligned_pointer_as_index %[[G]]
// CHECK: call @prec.scaled_gemm(%c1_i64, %c8_i64, %c16_i64, %c32_i64, %c4_i32, %[[QAP]], %c0_i64, %c32_i64, %c1_i64, %c5_i32, %[[QBP]], %c0_i64, %c1_i64, %c32_i64, %c1_i32, %{{.*}}, %c0_i64, %c16_i64, %c1_i64, %[[SAP]], %[[SBP]])
// CHECK-NOT: linalg.generic
// CHECK: return
// CPU-LABEL: func @scaled_fp8
// CPU: linalg.generic
// CPU-NOT: call
// NOFP8-LABEL: func @scaled_fp8
// NOFP8-NOT: call
// NOFP8: linalg.generic
func.func @scaled_fp8(%qa: memref<8x32xf8E4M3FN>, %qb: memref<16x32xf8E5M2>, %sa: memref<f32>) -> memref<8x16xf32> attributes {prec.reduced_precision = #prec.reduced_precision<fp8_accumulation>} {
  %sb = arith.constant 0.25 : f32
  %out = memref.alloc() : memref<8x16xf32>
  linalg.generic {indexing_maps = [#a, #b, #s, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%qa, %qb, %sa : memref<8x32xf8E4M3FN>, memref<16x32xf8E5M2>, memref<f32>) outs(%out : memref<8x16xf32>) {
  ^bb0(%x: f8E4M3FN, %y: f8E5M2, %xs: f32, %acc: f32):
    %xe = arith.extf %x : f8E4M3FN to f32
    %xv = arith.mulf %xs, %xe : f32
    %ye = arith.extf %y : f8E5M2 to f32
    %yv = arith.mulf %ye, %sb : f32
    %p = arith.mulf %yv, %xv : f32
    %sum = arith.addf %p, %acc : f32
    linalg.yield %sum : f32
  }
  return %out : memref<8x16xf32>
}

// -----

// B with a unit stride along n (not k): cuBLASLt's fp8 gemm does not take
// it, and the contraction stays for the loop kernels.
#a = affine_map<(d0, d1, d2) -> (d0, d2)>
#b = affine_map<(d0, d1, d2) -> (d2, d1)>
#s = affine_map<(d0, d1, d2) -> ()>
#c = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func @scaled_fp8_layout
// CHECK-NOT: call
// CHECK: linalg.generic
func.func @scaled_fp8_layout(%qa: memref<8x32xf8E4M3FN>, %qb: memref<32x16xf8E4M3FN>, %sa: memref<f32>, %sb: memref<f32>) -> memref<8x16xf32> attributes {prec.reduced_precision = #prec.reduced_precision<fp8_accumulation>} {
  %out = memref.alloc() : memref<8x16xf32>
  linalg.generic {indexing_maps = [#a, #b, #s, #s, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%qa, %qb, %sa, %sb : memref<8x32xf8E4M3FN>, memref<32x16xf8E4M3FN>, memref<f32>, memref<f32>) outs(%out : memref<8x16xf32>) {
  ^bb0(%x: f8E4M3FN, %y: f8E4M3FN, %xs: f32, %ys: f32, %acc: f32):
    %xe = arith.extf %x : f8E4M3FN to f32
    %xv = arith.mulf %xe, %xs : f32
    %ye = arith.extf %y : f8E4M3FN to f32
    %yv = arith.mulf %ye, %ys : f32
    %p = arith.mulf %xv, %yv : f32
    %sum = arith.addf %acc, %p : f32
    linalg.yield %sum : f32
  }
  return %out : memref<8x16xf32>
}

// -----

// A scale of 1 folded away is a scale of 1; a symbol that happens to have
// the constant's name is left alone.
#a = affine_map<(d0, d1, d2) -> (d0, d2)>
#b = affine_map<(d0, d1, d2) -> (d1, d2)>
#c = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-DAG: memref.global "private" constant @__prec_gemm_scale_1 : memref<f32> = dense<1.000000e+00>
// CHECK-DAG: memref.global "private" constant @__prec_gemm_scale_2 : memref<f32> = dense<5.000000e-01>
// CHECK-LABEL: func @scale_of_one
// CPU-LABEL: func @scale_of_one
// CHECK: %[[ONE:.*]] = memref.get_global @__prec_gemm_scale_1
// CHECK: %[[HALF:.*]] = memref.get_global @__prec_gemm_scale_2
// CHECK: call @prec.scaled_gemm(
// CHECK-NOT: linalg.generic
func.func private @__prec_gemm_scale_0()
func.func @scale_of_one(%qa: memref<16x32xf8E4M3FN>, %qb: memref<16x32xf8E4M3FN>) -> memref<16x16xf32> attributes {prec.reduced_precision = #prec.reduced_precision<fp8_accumulation>} {
  %half = arith.constant 0.5 : f32
  %out = memref.alloc() : memref<16x16xf32>
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%qa, %qb : memref<16x32xf8E4M3FN>, memref<16x32xf8E4M3FN>) outs(%out : memref<16x16xf32>) {
  ^bb0(%x: f8E4M3FN, %y: f8E4M3FN, %acc: f32):
    %xe = arith.extf %x : f8E4M3FN to f32
    %ye = arith.extf %y : f8E4M3FN to f32
    %yv = arith.mulf %ye, %half : f32
    %p = arith.mulf %xe, %yv : f32
    %sum = arith.addf %acc, %p : f32
    linalg.yield %sum : f32
  }
  return %out : memref<16x16xf32>
}

// -----

// cuBLASLt has no fp8 gemm of two f8E5M2 operands: it stays.
#a = affine_map<(d0, d1, d2) -> (d0, d2)>
#b = affine_map<(d0, d1, d2) -> (d1, d2)>
#c = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func @two_e5m2
// CHECK-NOT: call
// CHECK: linalg.generic
// CHECK-NOT: call
// CHECK: return
func.func @two_e5m2(%qa: memref<16x32xf8E5M2>, %qb: memref<16x32xf8E5M2>) -> memref<16x16xf32> attributes {prec.reduced_precision = #prec.reduced_precision<fp8_accumulation>} {
  %half = arith.constant 0.5 : f32
  %out = memref.alloc() : memref<16x16xf32>
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%qa, %qb : memref<16x32xf8E5M2>, memref<16x32xf8E5M2>) outs(%out : memref<16x16xf32>) {
  ^bb0(%x: f8E5M2, %y: f8E5M2, %acc: f32):
    %xe = arith.extf %x : f8E5M2 to f32
    %ye = arith.extf %y : f8E5M2 to f32
    %yv = arith.mulf %ye, %half : f32
    %p = arith.mulf %xe, %yv : f32
    %sum = arith.addf %acc, %p : f32
    linalg.yield %sum : f32
  }
  return %out : memref<16x16xf32>
}

// -----

// Without the program's permission for fp8 tensor cores' accumulation the
// scaled form stays (and computes in f32).
#a = affine_map<(d0, d1, d2) -> (d0, d2)>
#b = affine_map<(d0, d1, d2) -> (d1, d2)>
#c = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func @scaled_fp8_not_allowed
// CHECK-NOT: call
// CHECK: linalg.generic
// CHECK-NOT: call
// CHECK: return
func.func @scaled_fp8_not_allowed(%qa: memref<16x32xf8E4M3FN>, %qb: memref<16x32xf8E4M3FN>) -> memref<16x16xf32> {
  %half = arith.constant 0.5 : f32
  %out = memref.alloc() : memref<16x16xf32>
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%qa, %qb : memref<16x32xf8E4M3FN>, memref<16x32xf8E4M3FN>) outs(%out : memref<16x16xf32>) {
  ^bb0(%x: f8E4M3FN, %y: f8E4M3FN, %acc: f32):
    %xe = arith.extf %x : f8E4M3FN to f32
    %ye = arith.extf %y : f8E4M3FN to f32
    %yv = arith.mulf %ye, %half : f32
    %p = arith.mulf %xe, %yv : f32
    %sum = arith.addf %acc, %p : f32
    linalg.yield %sum : f32
  }
  return %out : memref<16x16xf32>
}
