// RUN: prec-opt %s --pass-pipeline='builtin.module(func.func(prec-fold-transposes))' -split-input-file --mlir-print-local-scope | FileCheck %s --enable-var-scope
// RUN: prec-opt %s --pass-pipeline='builtin.module(func.func(prec-fold-transposes), one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map}, convert-contractions-to-runtime, canonicalize)' -split-input-file | FileCheck %s --check-prefix=GEMM --enable-var-scope

#id = affine_map<(d0, d1) -> (d0, d1)>

// nn.Linear as torch-mlir lowers it, and its backward: the forward's matmul
// reads the weight transposed and extended to f32, the backward's matmul of
// the input's gradient reads that transposed back. Both read the bf16 weight
// instead, extending it in their bodies; nothing of the transposes and the
// extension is left.
// CHECK-LABEL: func @forward_and_backward
// CHECK-SAME: (%[[X:.*]]: tensor<8x16xf32>, %[[W:.*]]: tensor<64x16xbf16>, %[[G:.*]]: tensor<8x64xf32>)
// CHECK-NOT: linalg.transpose
// CHECK-NOT: tensor.empty() : tensor<16x64
// CHECK-NOT: tensor.empty() : tensor<64x16
// CHECK: %[[Y:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]}
// CHECK-SAME: ins(%[[X]], %[[W]] : tensor<8x16xf32>, tensor<64x16xbf16>)
// CHECK-NEXT: ^bb0(%[[A:.*]]: f32, %[[B:.*]]: bf16, %[[C:.*]]: f32):
// CHECK-NEXT: %[[B32:.*]] = arith.extf %[[B]] : bf16 to f32
// CHECK-NEXT: %[[P:.*]] = arith.mulf %[[A]], %[[B32]] : f32
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[C]], %[[P]] : f32
// CHECK-NEXT: linalg.yield %[[S]] : f32
// CHECK-NOT: linalg.transpose
// CHECK: %[[DX:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]}
// CHECK-SAME: ins(%[[G]], %[[W]] : tensor<8x64xf32>, tensor<64x16xbf16>)
// CHECK-NEXT: ^bb0(%{{.*}}: f32, %[[B:.*]]: bf16, %{{.*}}: f32):
// CHECK-NEXT: arith.extf %[[B]] : bf16 to f32
// CHECK-NOT: linalg.transpose
// CHECK: return %[[Y]], %[[DX]]

// On buffers: two gemm calls read the weight, B column-major (strides 1, 16)
// in the forward and row-major (16, 1) in the backward, and the only
// buffers are the two results.
// GEMM-LABEL: func @forward_and_backward
// GEMM-SAME: (%[[X:.*]]: memref<8x16xf32>, %[[W:.*]]: memref<64x16xbf16>, %[[G:.*]]: memref<8x64xf32>)
// GEMM-NOT: linalg.transpose
// GEMM-NOT: linalg.generic
// GEMM: %[[Y:.*]] = memref.alloc() {{.*}}: memref<8x64xf32>
// GEMM-NOT: memref.alloc
// GEMM: %[[WP:.*]] = memref.extract_aligned_pointer_as_index %[[W]]
// GEMM-NOT: memref.alloc
// GEMM: call @precrtCompiledMatmul(%c1_i64, %c8_i64, %c64_i64, %c16_i64, %c1_i32, %{{.*}}, %c0_i64, %c16_i64, %c1_i64, %c3_i32, %[[WP]], %c0_i64, %c1_i64, %c16_i64,
// GEMM: %[[DX:.*]] = memref.alloc() {{.*}}: memref<8x16xf32>
// GEMM-NOT: memref.alloc
// GEMM: %[[WP2:.*]] = memref.extract_aligned_pointer_as_index %[[W]]
// GEMM-NOT: memref.alloc
// GEMM: call @precrtCompiledMatmul(%c1_i64, %c8_i64, %c16_i64, %c64_i64, %c1_i32, %{{.*}}, %c0_i64, %c64_i64, %c1_i64, %c3_i32, %[[WP2]], %c0_i64, %c16_i64, %c1_i64,
// GEMM-NOT: linalg.transpose
// GEMM: return %[[Y]], %[[DX]]
func.func @forward_and_backward(%x: tensor<8x16xf32>, %w: tensor<64x16xbf16>, %g: tensor<8x64xf32>) -> (tensor<8x64xf32>, tensor<8x16xf32>) {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<16x64xbf16>
  %wt = linalg.transpose ins(%w : tensor<64x16xbf16>) outs(%e0 : tensor<16x64xbf16>) permutation = [1, 0]
  %e1 = tensor.empty() : tensor<16x64xf32>
  %wt32 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%wt : tensor<16x64xbf16>) outs(%e1 : tensor<16x64xf32>) {
  ^bb0(%in: bf16, %out: f32):
    %0 = arith.extf %in : bf16 to f32
    linalg.yield %0 : f32
  } -> tensor<16x64xf32>
  %ey = tensor.empty() : tensor<8x64xf32>
  %zy = linalg.fill ins(%zero : f32) outs(%ey : tensor<8x64xf32>) -> tensor<8x64xf32>
  %y = linalg.matmul ins(%x, %wt32 : tensor<8x16xf32>, tensor<16x64xf32>) outs(%zy : tensor<8x64xf32>) -> tensor<8x64xf32>
  %e2 = tensor.empty() : tensor<64x16xf32>
  %w32 = linalg.transpose ins(%wt32 : tensor<16x64xf32>) outs(%e2 : tensor<64x16xf32>) permutation = [1, 0]
  %edx = tensor.empty() : tensor<8x16xf32>
  %zdx = linalg.fill ins(%zero : f32) outs(%edx : tensor<8x16xf32>) -> tensor<8x16xf32>
  %dx = linalg.matmul ins(%g, %w32 : tensor<8x64xf32>, tensor<64x16xf32>) outs(%zdx : tensor<8x16xf32>) -> tensor<8x16xf32>
  return %y, %dx : tensor<8x64xf32>, tensor<8x16xf32>
}

// -----

// A transpose read by two contractions of its own type (no extension), one
// of them a batch_matmul that reads a 3-d permutation of it.
// CHECK-LABEL: func @two_readers
// CHECK-SAME: (%[[A:.*]]: tensor<2x8x4xf32>, %[[S:.*]]: tensor<4x2x16xf32>,
// CHECK-NOT: linalg.transpose
// CHECK: linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d3, d0, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>]
// CHECK-SAME: ins(%[[A]], %[[S]] : tensor<2x8x4xf32>, tensor<4x2x16xf32>)
// CHECK: linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d3, d0, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>]
// CHECK-SAME: ins(%[[A]], %[[S]] : tensor<2x8x4xf32>, tensor<4x2x16xf32>)
// CHECK-NOT: linalg.transpose
func.func @two_readers(%a: tensor<2x8x4xf32>, %s: tensor<4x2x16xf32>, %c: tensor<2x8x16xf32>) -> (tensor<2x8x16xf32>, tensor<2x8x16xf32>) {
  %e = tensor.empty() : tensor<2x4x16xf32>
  %t = linalg.transpose ins(%s : tensor<4x2x16xf32>) outs(%e : tensor<2x4x16xf32>) permutation = [1, 0, 2]
  %r0 = linalg.batch_matmul ins(%a, %t : tensor<2x8x4xf32>, tensor<2x4x16xf32>) outs(%c : tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
  %r1 = linalg.batch_matmul ins(%a, %t : tensor<2x8x4xf32>, tensor<2x4x16xf32>) outs(%c : tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
  return %r0, %r1 : tensor<2x8x16xf32>, tensor<2x8x16xf32>
}

// -----

// A transpose of a transpose reads the source as it is.
// CHECK-LABEL: func @transpose_of_transpose
// CHECK-SAME: (%[[X:.*]]: tensor<8x16xbf16>, %[[W:.*]]: tensor<16x32xbf16>
// CHECK-NOT: linalg.transpose
// CHECK: linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>]
// CHECK-SAME: ins(%[[X]], %[[W]] : tensor<8x16xbf16>, tensor<16x32xbf16>)
func.func @transpose_of_transpose(%x: tensor<8x16xbf16>, %w: tensor<16x32xbf16>, %c: tensor<8x32xf32>) -> tensor<8x32xf32> {
  %e0 = tensor.empty() : tensor<32x16xbf16>
  %t0 = linalg.transpose ins(%w : tensor<16x32xbf16>) outs(%e0 : tensor<32x16xbf16>) permutation = [1, 0]
  %e1 = tensor.empty() : tensor<16x32xbf16>
  %t1 = linalg.transpose ins(%t0 : tensor<32x16xbf16>) outs(%e1 : tensor<16x32xbf16>) permutation = [1, 0]
  %r = linalg.matmul ins(%x, %t1 : tensor<8x16xbf16>, tensor<16x32xbf16>) outs(%c : tensor<8x32xf32>) -> tensor<8x32xf32>
  return %r : tensor<8x32xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>

// The transpose is also read by an elementwise kernel, which needs it
// materialized: nothing folds, the matmul still reads it.
// CHECK-LABEL: func @also_read_by_a_kernel
// CHECK: %[[T:.*]] = linalg.transpose
// CHECK: linalg.matmul ins(%{{.*}}, %[[T]] :
// CHECK: linalg.generic {{.*}} ins(%[[T]] :
func.func @also_read_by_a_kernel(%x: tensor<8x16xf32>, %w: tensor<32x16xf32>, %c: tensor<8x32xf32>) -> (tensor<8x32xf32>, tensor<16x32xf32>) {
  %e0 = tensor.empty() : tensor<16x32xf32>
  %t = linalg.transpose ins(%w : tensor<32x16xf32>) outs(%e0 : tensor<16x32xf32>) permutation = [1, 0]
  %r = linalg.matmul ins(%x, %t : tensor<8x16xf32>, tensor<16x32xf32>) outs(%c : tensor<8x32xf32>) -> tensor<8x32xf32>
  %e1 = tensor.empty() : tensor<16x32xf32>
  %n = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%t : tensor<16x32xf32>) outs(%e1 : tensor<16x32xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.negf %in : f32
    linalg.yield %0 : f32
  } -> tensor<16x32xf32>
  return %r, %n : tensor<8x32xf32>, tensor<16x32xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>

// The extension is also read by an elementwise kernel: it stays, and so
// does the transpose it reads; the matmuls keep reading them.
// CHECK-LABEL: func @extension_also_read_by_a_kernel
// CHECK: %[[T:.*]] = linalg.transpose
// CHECK: %[[E:.*]] = linalg.generic {{.*}} ins(%[[T]] :
// CHECK: linalg.matmul ins(%{{.*}}, %[[E]] :
func.func @extension_also_read_by_a_kernel(%x: tensor<8x16xf32>, %w: tensor<32x16xbf16>, %c: tensor<8x32xf32>) -> (tensor<8x32xf32>, tensor<16x32xf32>) {
  %e0 = tensor.empty() : tensor<16x32xbf16>
  %t = linalg.transpose ins(%w : tensor<32x16xbf16>) outs(%e0 : tensor<16x32xbf16>) permutation = [1, 0]
  %e1 = tensor.empty() : tensor<16x32xf32>
  %t32 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%t : tensor<16x32xbf16>) outs(%e1 : tensor<16x32xf32>) {
  ^bb0(%in: bf16, %out: f32):
    %0 = arith.extf %in : bf16 to f32
    linalg.yield %0 : f32
  } -> tensor<16x32xf32>
  %r = linalg.matmul ins(%x, %t32 : tensor<8x16xf32>, tensor<16x32xf32>) outs(%c : tensor<8x32xf32>) -> tensor<8x32xf32>
  return %r, %t32 : tensor<8x32xf32>, tensor<16x32xf32>
}

// -----

// The transpose is written: a matmul accumulates into it. Nothing folds.
// CHECK-LABEL: func @written
// CHECK: %[[T:.*]] = linalg.transpose
// CHECK: %[[R:.*]] = linalg.matmul ins(%{{.*}}, %[[T]] :
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<16x8xf32>, tensor<8x32xf32>) outs(%[[T]] :
func.func @written(%x: tensor<8x16xf32>, %w: tensor<32x16xf32>, %y: tensor<16x8xf32>, %z: tensor<8x32xf32>, %c: tensor<8x32xf32>) -> (tensor<8x32xf32>, tensor<16x32xf32>) {
  %e0 = tensor.empty() : tensor<16x32xf32>
  %t = linalg.transpose ins(%w : tensor<32x16xf32>) outs(%e0 : tensor<16x32xf32>) permutation = [1, 0]
  %r = linalg.matmul ins(%x, %t : tensor<8x16xf32>, tensor<16x32xf32>) outs(%c : tensor<8x32xf32>) -> tensor<8x32xf32>
  %s = linalg.matmul ins(%y, %z : tensor<16x8xf32>, tensor<8x32xf32>) outs(%t : tensor<16x32xf32>) -> tensor<16x32xf32>
  return %r, %s : tensor<8x32xf32>, tensor<16x32xf32>
}

// -----

// The source is written after the transpose, before the matmul reads it:
// folded, the matmul reads the source as it was, and bufferization keeps
// that value apart from the write.
// CHECK-LABEL: func @source_written_between
// CHECK-SAME: (%[[X:.*]]: tensor<8x16xf32>, %[[W:.*]]: tensor<32x16xf32>
// CHECK-NOT: linalg.transpose
// CHECK: %[[F:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[W]] :
// CHECK: linalg.generic {{.*}} ins(%[[X]], %[[W]] :
// GEMM-LABEL: func @source_written_between
// GEMM-SAME: (%[[X:.*]]: memref<8x16xf32>, %[[W:.*]]: memref<32x16xf32>
// GEMM: %[[COPY:.*]] = memref.alloc() {{.*}} : memref<32x16xf32>
// GEMM: linalg.fill ins(%{{.*}} : f32) outs(%[[COPY]] :
// GEMM: %[[WP:.*]] = memref.extract_aligned_pointer_as_index %[[W]]
// GEMM: call @precrtCompiledMatmul({{.*}}, %[[WP]], %c0_i64, %c1_i64, %c16_i64,
func.func @source_written_between(%x: tensor<8x16xf32>, %w: tensor<32x16xf32>) -> (tensor<8x32xf32>, tensor<32x16xf32>) {
  %e0 = tensor.empty() : tensor<16x32xf32>
  %t = linalg.transpose ins(%w : tensor<32x16xf32>) outs(%e0 : tensor<16x32xf32>) permutation = [1, 0]
  %one = arith.constant 1.0 : f32
  %f = linalg.fill ins(%one : f32) outs(%w : tensor<32x16xf32>) -> tensor<32x16xf32>
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<8x32xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e1 : tensor<8x32xf32>) -> tensor<8x32xf32>
  %r = linalg.matmul ins(%x, %t : tensor<8x16xf32>, tensor<16x32xf32>) outs(%c : tensor<8x32xf32>) -> tensor<8x32xf32>
  return %r, %f : tensor<8x32xf32>, tensor<32x16xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>

// Contractions the gemm does not compute keep their transposes: f64, and an
// extension into an f16 output.
// CHECK-LABEL: func @not_gemms
// CHECK: %[[T:.*]] = linalg.transpose
// CHECK: linalg.matmul ins(%{{.*}}, %[[T]] : tensor<8x16xf64>, tensor<16x32xf64>)
// CHECK: %[[T16:.*]] = linalg.transpose
// CHECK: %[[E:.*]] = linalg.generic {{.*}} ins(%[[T16]] :
// CHECK: linalg.matmul ins(%{{.*}}, %[[E]] : tensor<8x16xf16>, tensor<16x32xf16>)
func.func @not_gemms(%x: tensor<8x16xf64>, %w: tensor<32x16xf64>, %c: tensor<8x32xf64>, %x16: tensor<8x16xf16>, %w8: tensor<32x16xf8E4M3FN>, %c16: tensor<8x32xf16>) -> (tensor<8x32xf64>, tensor<8x32xf16>) {
  %e0 = tensor.empty() : tensor<16x32xf64>
  %t = linalg.transpose ins(%w : tensor<32x16xf64>) outs(%e0 : tensor<16x32xf64>) permutation = [1, 0]
  %r = linalg.matmul ins(%x, %t : tensor<8x16xf64>, tensor<16x32xf64>) outs(%c : tensor<8x32xf64>) -> tensor<8x32xf64>
  %e1 = tensor.empty() : tensor<16x32xf8E4M3FN>
  %t8 = linalg.transpose ins(%w8 : tensor<32x16xf8E4M3FN>) outs(%e1 : tensor<16x32xf8E4M3FN>) permutation = [1, 0]
  %e2 = tensor.empty() : tensor<16x32xf16>
  %t16 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%t8 : tensor<16x32xf8E4M3FN>) outs(%e2 : tensor<16x32xf16>) {
  ^bb0(%in: f8E4M3FN, %out: f16):
    %0 = arith.extf %in : f8E4M3FN to f16
    linalg.yield %0 : f16
  } -> tensor<16x32xf16>
  %r16 = linalg.matmul ins(%x16, %t16 : tensor<8x16xf16>, tensor<16x32xf16>) outs(%c16 : tensor<8x32xf16>) -> tensor<8x32xf16>
  return %r, %r16 : tensor<8x32xf64>, tensor<8x32xf16>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>

// A weight's gradient: a contraction in the transposed layout, rounded to
// bf16, then transposed. The contraction computes the transposed result
// itself (its output map permuted, a zero init of the transposed shape),
// the rounding runs on the transposed shape, and the gemm writes the
// transposed output in place (C with contiguous columns).
// CHECK-LABEL: func @transposed_result
// CHECK-SAME: (%[[X:.*]]: tensor<64x16xbf16>, %[[G:.*]]: tensor<64x32xf32>)
// CHECK-NOT: linalg.transpose
// CHECK: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : tensor<32x16xf32>
// CHECK: %[[D:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d2, d0)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d1, d0)>]
// CHECK-SAME: ins(%[[X]], %[[G]] : tensor<64x16xbf16>, tensor<64x32xf32>) outs(%[[ZERO]] : tensor<32x16xf32>)
// CHECK: %[[E:.*]] = tensor.empty() : tensor<32x16xbf16>
// CHECK: %[[R:.*]] = linalg.generic {{.*}} ins(%[[D]] : tensor<32x16xf32>) outs(%[[E]] : tensor<32x16xbf16>)
// CHECK: arith.truncf
// CHECK-NOT: linalg.transpose
// CHECK: return %[[R]]
// GEMM-LABEL: func @transposed_result
// GEMM: %[[OUT:.*]] = memref.alloc() {{.*}} : memref<32x16xf32>
// GEMM: %[[OP:.*]] = memref.extract_aligned_pointer_as_index %[[OUT]]
// GEMM: call @precrtCompiledMatmul({{.*}}, %[[OP]], %c0_i64, %c1_i64, %c16_i64)
func.func @transposed_result(%x: tensor<64x16xbf16>, %g: tensor<64x32xf32>) -> tensor<32x16xbf16> {
  %zero = arith.constant dense<0.0> : tensor<16x32xf32>
  %d = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d2, d0)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %g : tensor<64x16xbf16>, tensor<64x32xf32>) outs(%zero : tensor<16x32xf32>) {
  ^bb0(%a: bf16, %b: f32, %out: f32):
    %0 = arith.extf %a : bf16 to f32
    %1 = arith.mulf %0, %b : f32
    %2 = arith.addf %out, %1 : f32
    linalg.yield %2 : f32
  } -> tensor<16x32xf32>
  %e0 = tensor.empty() : tensor<16x32xbf16>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%d : tensor<16x32xf32>) outs(%e0 : tensor<16x32xbf16>) {
  ^bb0(%in: f32, %out: bf16):
    %0 = arith.truncf %in : f32 to bf16
    linalg.yield %0 : bf16
  } -> tensor<16x32xbf16>
  %e1 = tensor.empty() : tensor<32x16xbf16>
  %t = linalg.transpose ins(%r : tensor<16x32xbf16>) outs(%e1 : tensor<32x16xbf16>) permutation = [1, 0]
  return %t : tensor<32x16xbf16>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>

// Left as they are: a contraction whose result has another reader, one
// whose init is an argument, and a kernel in between that reads another
// tensor too.
// CHECK-LABEL: func @transposed_result_kept
// CHECK-COUNT-3: linalg.transpose
func.func @transposed_result_kept(%x: tensor<8x16xf32>, %w: tensor<16x32xf32>, %c: tensor<8x32xf32>, %b: tensor<8x32xf32>) -> (tensor<32x8xf32>, tensor<8x32xf32>, tensor<32x8xf32>, tensor<32x8xf32>) {
  %zero = arith.constant dense<0.0> : tensor<8x32xf32>
  %m = linalg.matmul ins(%x, %w : tensor<8x16xf32>, tensor<16x32xf32>) outs(%zero : tensor<8x32xf32>) -> tensor<8x32xf32>
  %e0 = tensor.empty() : tensor<32x8xf32>
  %t0 = linalg.transpose ins(%m : tensor<8x32xf32>) outs(%e0 : tensor<32x8xf32>) permutation = [1, 0]
  %n = linalg.matmul ins(%x, %w : tensor<8x16xf32>, tensor<16x32xf32>) outs(%c : tensor<8x32xf32>) -> tensor<8x32xf32>
  %t1 = linalg.transpose ins(%n : tensor<8x32xf32>) outs(%e0 : tensor<32x8xf32>) permutation = [1, 0]
  %p = linalg.matmul ins(%x, %w : tensor<8x16xf32>, tensor<16x32xf32>) outs(%zero : tensor<8x32xf32>) -> tensor<8x32xf32>
  %e1 = tensor.empty() : tensor<8x32xf32>
  %s = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%p, %b : tensor<8x32xf32>, tensor<8x32xf32>) outs(%e1 : tensor<8x32xf32>) {
  ^bb0(%in: f32, %in2: f32, %out: f32):
    %0 = arith.addf %in, %in2 : f32
    linalg.yield %0 : f32
  } -> tensor<8x32xf32>
  %t2 = linalg.transpose ins(%s : tensor<8x32xf32>) outs(%e0 : tensor<32x8xf32>) permutation = [1, 0]
  return %t0, %m, %t1, %t2 : tensor<32x8xf32>, tensor<8x32xf32>, tensor<32x8xf32>, tensor<32x8xf32>
}

// -----

// Dynamic shapes are left as they are (the transposed tensors would need
// size operands).
// CHECK-LABEL: func @transposed_dynamic_result_kept
// CHECK: linalg.matmul
// CHECK: linalg.transpose
func.func @transposed_dynamic_result_kept(%x: tensor<?x16xf32>, %w: tensor<16x32xf32>) -> tensor<32x?xf32> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %rows = tensor.dim %x, %c0 : tensor<?x16xf32>
  %e = tensor.empty(%rows) : tensor<?x32xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<?x32xf32>) -> tensor<?x32xf32>
  %m = linalg.matmul ins(%x, %w : tensor<?x16xf32>, tensor<16x32xf32>) outs(%init : tensor<?x32xf32>) -> tensor<?x32xf32>
  %et = tensor.empty(%rows) : tensor<32x?xf32>
  %t = linalg.transpose ins(%m : tensor<?x32xf32>) outs(%et : tensor<32x?xf32>) permutation = [1, 0]
  return %t : tensor<32x?xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>

// The backward of a linear layer with a bias, after prec-fuse-kernels: one
// kernel widens the bf16 output gradient twice, for the matmul of the
// input's gradient and for the bias's reduction. The matmul reads the bf16
// gradient, widening it in its body; the kernel keeps its other result,
// which the reduction reads.
// CHECK-LABEL: func @widened_twice
// CHECK-SAME: (%[[G:.*]]: tensor<8x64xbf16>, %[[W:.*]]: tensor<64x16xbf16>)
// CHECK: %[[WIDE:.*]]:2 = linalg.generic
// CHECK-SAME: ins(%[[G]] : tensor<8x64xbf16>)
// CHECK: %[[DX:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]}
// CHECK-SAME: ins(%[[G]], %[[W]] : tensor<8x64xbf16>, tensor<64x16xbf16>)
// CHECK-NEXT: ^bb0(%[[A:.*]]: bf16, %[[B:.*]]: bf16, %{{.*}}: f32):
// CHECK-DAG: arith.extf %[[A]] : bf16 to f32
// CHECK-DAG: arith.extf %[[B]] : bf16 to f32
// CHECK: %[[DB:.*]] = linalg.generic
// CHECK-SAME: ins(%[[WIDE]]#1 : tensor<8x64xf32>)
// CHECK: return %[[DX]], %[[DB]]

// On buffers: one gemm call of two bf16 operands (dtype 3).
// GEMM-LABEL: func @widened_twice
// GEMM: call @precrtCompiledMatmul(%c1_i64, %c8_i64, %c16_i64, %c64_i64, %c3_i32,
// GEMM-SAME: %c3_i32,
func.func @widened_twice(%g: tensor<8x64xbf16>, %w: tensor<64x16xbf16>) -> (tensor<8x16xf32>, tensor<64xf32>) {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<8x64xf32>
  %wide:2 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%g : tensor<8x64xbf16>) outs(%e0, %e0 : tensor<8x64xf32>, tensor<8x64xf32>) {
  ^bb0(%in: bf16, %o0: f32, %o1: f32):
    %0 = arith.extf %in : bf16 to f32
    linalg.yield %0, %0 : f32, f32
  } -> (tensor<8x64xf32>, tensor<8x64xf32>)
  %e1 = tensor.empty() : tensor<64x16xf32>
  %w32 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%w : tensor<64x16xbf16>) outs(%e1 : tensor<64x16xf32>) {
  ^bb0(%in: bf16, %out: f32):
    %0 = arith.extf %in : bf16 to f32
    linalg.yield %0 : f32
  } -> tensor<64x16xf32>
  %e2 = tensor.empty() : tensor<8x16xf32>
  %z2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<8x16xf32>) -> tensor<8x16xf32>
  %dx = linalg.matmul ins(%wide#0, %w32 : tensor<8x64xf32>, tensor<64x16xf32>) outs(%z2 : tensor<8x16xf32>) -> tensor<8x16xf32>
  %e3 = tensor.empty() : tensor<64xf32>
  %z3 = linalg.fill ins(%zero : f32) outs(%e3 : tensor<64xf32>) -> tensor<64xf32>
  %db = linalg.generic {indexing_maps = [#id, #col], iterator_types = ["reduction", "parallel"]}
      ins(%wide#1 : tensor<8x64xf32>) outs(%z3 : tensor<64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.addf %out, %in : f32
    linalg.yield %0 : f32
  } -> tensor<64xf32>
  return %dx, %db : tensor<8x16xf32>, tensor<64xf32>
}
