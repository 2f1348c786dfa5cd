// Contractions through precrt's gemm (convert-contractions-to-runtime)
// against a float64 reference: odd shapes (not multiples of any tile, down
// to 1x1x1), operands transposed by linalg.transpose or by indexing maps, a
// batch matmul, every input/output dtype combination the examples use and
// more, an initial value in C, and rows of subnormal and of large values,
// which a kernel that flushes subnormals to zero or overflows early fails.
// Once with OpenBLAS where it is installed, once with the builtin kernel.
// Tolerances (Inputs/check_contractions.py) follow from f32 accumulation of
// k products in any order plus a final rounding to the output dtype.
// RUN: rm -rf %t && mkdir -p %t/blas %t/builtin
// RUN: %python %S/Inputs/check_contractions.py generate %t/in
// RUN: prec-run %s --ranks 1 --dump-lowered | FileCheck %s
// RUN: prec-run %s --output-dir %t/blas --ranks 1 --print none $(cat %t/in/args)
// RUN: %python %S/Inputs/check_contractions.py check %t/in %t/blas
// RUN: env PRECRT_BLAS_LIBRARY=none prec-run %s --output-dir %t/builtin --ranks 1 --print none $(cat %t/in/args)
// RUN: %python %S/Inputs/check_contractions.py check %t/in %t/builtin
// The bf16 x bf16 contractions (results 1, 4 and 7) sum in one order on
// every CPU: the fastest kernel this one runs gives the bits of the order
// written out (the scalar kernel), with and without OpenBLAS.
// RUN: mkdir -p %t/scalar
// RUN: env PRECRT_BF16_GEMM_KERNEL=scalar prec-run %s --output-dir %t/scalar --ranks 1 --print none $(cat %t/in/args)
// RUN: cmp %t/blas/rank0_result1.bin %t/scalar/rank0_result1.bin
// RUN: cmp %t/blas/rank0_result4.bin %t/scalar/rank0_result4.bin
// RUN: cmp %t/blas/rank0_result7.bin %t/scalar/rank0_result7.bin
// RUN: cmp %t/builtin/rank0_result1.bin %t/scalar/rank0_result1.bin
// RUN: cmp %t/builtin/rank0_result4.bin %t/scalar/rank0_result4.bin
// A kernel that does not exist is an error of the call.
// RUN: env PRECRT_BF16_GEMM_KERNEL=avx1024 not prec-run %s --ranks 1 --print none $(cat %t/in/args) 2>&1 | FileCheck %s --check-prefix=BAD-KERNEL
// BAD-KERNEL: error: rank 0: step 0: PRECRT_BF16_GEMM_KERNEL=avx1024: expected auto, avx512bf16, avx512, avx2 or scalar

// Every contraction is a gemm call; none is left to loops.
// CHECK-COUNT-10: llvm.call @precrtCompiledMatmul
// CHECK-NOT: llvm.call @precrtCompiledMatmul

#mk = affine_map<(m, n, k) -> (m, k)>
#km = affine_map<(m, n, k) -> (k, m)>
#kn = affine_map<(m, n, k) -> (k, n)>
#mn = affine_map<(m, n, k) -> (m, n)>

func.func @contractions(
    %a0: tensor<65x129xf32>, %b0: tensor<129x33xf32>,
    %a1: tensor<7x5xbf16>, %b1: tensor<5x13xbf16>,
    %g2: tensor<65x33xf32>, %w2: tensor<129x33xbf16>,
    %h3: tensor<65x129xbf16>, %g3: tensor<65x33xf32>,
    %a4: tensor<65x129xbf16>, %b4: tensor<129x33xbf16>,
    %a5: tensor<3x7x5xf16>, %b5: tensor<3x5x13xf16>,
    %a6: tensor<5x7xf16>, %b6: tensor<5x13xf32>,
    %a7: tensor<1x1xbf16>, %b7: tensor<1x1xbf16>,
    %a8: tensor<7x16xbf16>, %b8: tensor<16x13xf8E4M3FN>,
    %a9: tensor<129x65xbf16>, %b9: tensor<129x33xf32>)
    -> (tensor<65x33xf32>, tensor<7x13xf32>, tensor<65x129xf32>,
        tensor<129x33xf32>, tensor<65x33xbf16>, tensor<3x7x13xf16>,
        tensor<7x13xf32>, tensor<1x1xbf16>, tensor<7x13xf32>,
        tensor<33x65xbf16>) {
  %zero = arith.constant 0.0 : f32
  %half = arith.constant 0.5 : f32
  %zero_bf16 = arith.constant 0.0 : bf16
  %zero_f16 = arith.constant 0.0 : f16

  // f32 x f32 -> f32, 65x129x33.
  %e0 = tensor.empty() : tensor<65x33xf32>
  %i0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<65x33xf32>) -> tensor<65x33xf32>
  %r0 = linalg.matmul ins(%a0, %b0 : tensor<65x129xf32>, tensor<129x33xf32>)
                      outs(%i0 : tensor<65x33xf32>) -> tensor<65x33xf32>

  // bf16 x bf16 -> f32 onto C = 0.5 (the forward matmuls of the examples).
  %e1 = tensor.empty() : tensor<7x13xf32>
  %i1 = linalg.fill ins(%half : f32) outs(%e1 : tensor<7x13xf32>) -> tensor<7x13xf32>
  %r1 = linalg.matmul ins(%a1, %b1 : tensor<7x5xbf16>, tensor<5x13xbf16>)
                      outs(%i1 : tensor<7x13xf32>) -> tensor<7x13xf32>

  // f32 x bf16^T -> f32 (the backward's grad_x = grad_y @ w^T).
  %e2t = tensor.empty() : tensor<33x129xbf16>
  %w2t = linalg.transpose ins(%w2 : tensor<129x33xbf16>) outs(%e2t : tensor<33x129xbf16>) permutation = [1, 0]
  %e2 = tensor.empty() : tensor<65x129xf32>
  %i2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<65x129xf32>) -> tensor<65x129xf32>
  %r2 = linalg.matmul ins(%g2, %w2t : tensor<65x33xf32>, tensor<33x129xbf16>)
                      outs(%i2 : tensor<65x129xf32>) -> tensor<65x129xf32>

  // bf16^T x f32 -> f32 (the backward's grad_w = x^T @ grad_y).
  %e3t = tensor.empty() : tensor<129x65xbf16>
  %h3t = linalg.transpose ins(%h3 : tensor<65x129xbf16>) outs(%e3t : tensor<129x65xbf16>) permutation = [1, 0]
  %e3 = tensor.empty() : tensor<129x33xf32>
  %i3 = linalg.fill ins(%zero : f32) outs(%e3 : tensor<129x33xf32>) -> tensor<129x33xf32>
  %r3 = linalg.matmul ins(%h3t, %g3 : tensor<129x65xbf16>, tensor<65x33xf32>)
                      outs(%i3 : tensor<129x33xf32>) -> tensor<129x33xf32>

  // bf16 x bf16 -> bf16, rounded once.
  %e4 = tensor.empty() : tensor<65x33xbf16>
  %i4 = linalg.fill ins(%zero_bf16 : bf16) outs(%e4 : tensor<65x33xbf16>) -> tensor<65x33xbf16>
  %r4 = linalg.matmul ins(%a4, %b4 : tensor<65x129xbf16>, tensor<129x33xbf16>)
                      outs(%i4 : tensor<65x33xbf16>) -> tensor<65x33xbf16>

  // Batch matmul, f16 -> f16.
  %e5 = tensor.empty() : tensor<3x7x13xf16>
  %i5 = linalg.fill ins(%zero_f16 : f16) outs(%e5 : tensor<3x7x13xf16>) -> tensor<3x7x13xf16>
  %r5 = linalg.batch_matmul ins(%a5, %b5 : tensor<3x7x5xf16>, tensor<3x5x13xf16>)
                            outs(%i5 : tensor<3x7x13xf16>) -> tensor<3x7x13xf16>

  // f16^T (by indexing maps) x f32 -> f32.
  %e6 = tensor.empty() : tensor<7x13xf32>
  %i6 = linalg.fill ins(%zero : f32) outs(%e6 : tensor<7x13xf32>) -> tensor<7x13xf32>
  %r6 = linalg.matmul indexing_maps = [#km, #kn, #mn]
                      ins(%a6, %b6 : tensor<5x7xf16>, tensor<5x13xf32>)
                      outs(%i6 : tensor<7x13xf32>) -> tensor<7x13xf32>

  // 1x1x1.
  %e7 = tensor.empty() : tensor<1x1xbf16>
  %i7 = linalg.fill ins(%zero_bf16 : bf16) outs(%e7 : tensor<1x1xbf16>) -> tensor<1x1xbf16>
  %r7 = linalg.matmul ins(%a7, %b7 : tensor<1x1xbf16>, tensor<1x1xbf16>)
                      outs(%i7 : tensor<1x1xbf16>) -> tensor<1x1xbf16>

  // bf16 x fp8 -> f32 (Float8Linear's matmul).
  %e8 = tensor.empty() : tensor<7x13xf32>
  %i8 = linalg.fill ins(%zero : f32) outs(%e8 : tensor<7x13xf32>) -> tensor<7x13xf32>
  %r8 = linalg.matmul ins(%a8, %b8 : tensor<7x16xbf16>, tensor<16x13xf8E4M3FN>)
                      outs(%i8 : tensor<7x13xf32>) -> tensor<7x13xf32>

  // A weight's gradient in the transposed layout, rounded to bf16 and
  // transposed back (prec-fold-transposes: the gemm writes C^T in place).
  %e9 = tensor.empty() : tensor<65x33xf32>
  %i9 = linalg.fill ins(%zero : f32) outs(%e9 : tensor<65x33xf32>) -> tensor<65x33xf32>
  %m9 = linalg.matmul indexing_maps = [#km, #kn, #mn]
                      ins(%a9, %b9 : tensor<129x65xbf16>, tensor<129x33xf32>)
                      outs(%i9 : tensor<65x33xf32>) -> tensor<65x33xf32>
  %e9b = tensor.empty() : tensor<65x33xbf16>
  %n9 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                        iterator_types = ["parallel", "parallel"]}
      ins(%m9 : tensor<65x33xf32>) outs(%e9b : tensor<65x33xbf16>) {
  ^bb0(%in: f32, %out: bf16):
    %t = arith.truncf %in : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<65x33xbf16>
  %e9t = tensor.empty() : tensor<33x65xbf16>
  %r9 = linalg.transpose ins(%n9 : tensor<65x33xbf16>) outs(%e9t : tensor<33x65xbf16>) permutation = [1, 0]

  return %r0, %r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8, %r9
      : tensor<65x33xf32>, tensor<7x13xf32>, tensor<65x129xf32>,
        tensor<129x33xf32>, tensor<65x33xbf16>, tensor<3x7x13xf16>,
        tensor<7x13xf32>, tensor<1x1xbf16>, tensor<7x13xf32>, tensor<33x65xbf16>
}
