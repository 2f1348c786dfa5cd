// RUN: prec-opt %s --convert-contractions-to-runtime --canonicalize -split-input-file | FileCheck %s --enable-var-scope

// The call's arguments: batch, m, n, k, then per operand (A, B, C) its dtype
// (1 = f32, 2 = f16, 3 = bf16), address, and strides along the batch, row
// and column loops, in elements.

// CHECK: func.func private @precrtCompiledMatmul(i64, i64, i64, i64, i32, index, i64, i64, i64, i32, index, i64, i64, i64, i32, index, i64, i64, i64) -> i32
// CHECK-LABEL: func @bf16_inputs_f32_acc
// CHECK-SAME: (%[[X:.*]]: memref<8x64xbf16>, %[[W:.*]]: memref<64x16xbf16>)
// CHECK-DAG: %[[OUT:.*]] = memref.alloc() : memref<8x16xf32>
// CHECK-DAG: %[[XP:.*]] = memref.extract_aligned_pointer_as_index %[[X]]
// CHECK-DAG: %[[WP:.*]] = memref.extract_aligned_pointer_as_index %[[W]]
// CHECK-DAG: %[[OUTP:.*]] = memref.extract_aligned_pointer_as_index %[[OUT]]
// CHECK: call @precrtCompiledMatmul(%c1_i64, %c8_i64, %c16_i64, %c64_i64, %c3_i32, %[[XP]], %c0_i64, %c64_i64, %c1_i64, %c3_i32, %[[WP]], %c0_i64, %c16_i64, %c1_i64, %c1_i32, %[[OUTP]], %c0_i64, %c16_i64, %c1_i64)
// CHECK-NOT: linalg.matmul
func.func @bf16_inputs_f32_acc(%x: memref<8x64xbf16>, %w: memref<64x16xbf16>) -> memref<8x16xf32> {
  %out = memref.alloc() : memref<8x16xf32>
  linalg.matmul ins(%x, %w : memref<8x64xbf16>, memref<64x16xbf16>) outs(%out : memref<8x16xf32>)
  return %out : memref<8x16xf32>
}

// -----

// The backward's transpose of a weight is folded into B's strides: B = w^T
// is read column-major from w.
// CHECK-LABEL: func @folded_transpose
// CHECK-SAME: (%[[G:.*]]: memref<8x16xf32>, %[[W:.*]]: memref<64x16xbf16>)
// CHECK-NOT: linalg.transpose
// CHECK-DAG: %[[WP:.*]] = memref.extract_aligned_pointer_as_index %[[W]]
// CHECK-DAG: %[[GP:.*]] = memref.extract_aligned_pointer_as_index %[[G]]
// CHECK: call @precrtCompiledMatmul(%c1_i64, %c8_i64, %c64_i64, %c16_i64, %c1_i32, %[[GP]], %c0_i64, %c16_i64, %c1_i64, %c3_i32, %[[WP]], %c0_i64, %c1_i64, %c16_i64, %c1_i32, %{{.*}}, %c0_i64, %c64_i64, %c1_i64)
// CHECK-NOT: memref.dealloc
// CHECK: return
func.func @folded_transpose(%g: memref<8x16xf32>, %w: memref<64x16xbf16>) -> memref<8x64xf32> {
  %wt = memref.alloc() : memref<16x64xbf16>
  linalg.transpose ins(%w : memref<64x16xbf16>) outs(%wt : memref<16x64xbf16>) permutation = [1, 0]
  %out = memref.alloc() : memref<8x64xf32>
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%out : memref<8x64xf32>)
  linalg.matmul ins(%g, %wt : memref<8x16xf32>, memref<16x64xbf16>) outs(%out : memref<8x64xf32>)
  memref.dealloc %wt : memref<16x64xbf16>
  return %out : memref<8x64xf32>
}

// -----

// The transpose was the last reader of its source, which was freed after
// it: the free moves after the call that now reads the source.
// CHECK-LABEL: func @deferred_free
// CHECK-NOT: linalg.transpose
// CHECK: %[[GATHERED:.*]] = memref.alloc() : memref<4x16xbf16>
// CHECK: %[[WP:.*]] = memref.extract_aligned_pointer_as_index %[[GATHERED]]
// CHECK: call @precrtCompiledMatmul(%c1_i64, %c8_i64, %c4_i64, %c16_i64, %c1_i32, %{{.*}}, %c0_i64, %c16_i64, %c1_i64, %c3_i32, %[[WP]], %c0_i64, %c1_i64, %c16_i64,
// CHECK-NEXT: memref.dealloc %[[GATHERED]]
func.func @deferred_free(%g: memref<8x16xf32>) -> memref<8x4xf32> {
  %gathered = memref.alloc() : memref<4x16xbf16>
  %zero = arith.constant 0.0 : bf16
  linalg.fill ins(%zero : bf16) outs(%gathered : memref<4x16xbf16>)
  %wt = memref.alloc() : memref<16x4xbf16>
  linalg.transpose ins(%gathered : memref<4x16xbf16>) outs(%wt : memref<16x4xbf16>) permutation = [1, 0]
  memref.dealloc %gathered : memref<4x16xbf16>
  %out = memref.alloc() : memref<8x4xf32>
  linalg.matmul ins(%g, %wt : memref<8x16xf32>, memref<16x4xbf16>) outs(%out : memref<8x4xf32>)
  memref.dealloc %wt : memref<16x4xbf16>
  return %out : memref<8x4xf32>
}

// -----

// A transposed form through indexing maps: A is k x m, read column-major.
// CHECK-LABEL: func @transposed_a
// CHECK: call @precrtCompiledMatmul(%c1_i64, %c5_i64, %c13_i64, %c7_i64, %c1_i32, %{{.*}}, %c0_i64, %c1_i64, %c5_i64, %c1_i32, %{{.*}}, %c0_i64, %c13_i64, %c1_i64, %c1_i32, %{{.*}}, %c0_i64, %c13_i64, %c1_i64)
func.func @transposed_a(%a: memref<7x5xf32>, %b: memref<7x13xf32>) -> memref<5x13xf32> {
  %out = memref.alloc() : memref<5x13xf32>
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>,
                                 affine_map<(m, n, k) -> (k, n)>,
                                 affine_map<(m, n, k) -> (m, n)>]
      ins(%a, %b : memref<7x5xf32>, memref<7x13xf32>) outs(%out : memref<5x13xf32>)
  return %out : memref<5x13xf32>
}

// -----

// A batch matmul in f16 with an f16 result, rounded once by the runtime.
// CHECK-LABEL: func @batch_f16
// CHECK: call @precrtCompiledMatmul(%c3_i64, %c4_i64, %c6_i64, %c5_i64, %c2_i32, %{{.*}}, %c20_i64, %c5_i64, %c1_i64, %c2_i32, %{{.*}}, %c30_i64, %c6_i64, %c1_i64, %c2_i32, %{{.*}}, %c24_i64, %c6_i64, %c1_i64)
func.func @batch_f16(%a: memref<3x4x5xf16>, %b: memref<3x5x6xf16>) -> memref<3x4x6xf16> {
  %out = memref.alloc() : memref<3x4x6xf16>
  linalg.batch_matmul ins(%a, %b : memref<3x4x5xf16>, memref<3x5x6xf16>) outs(%out : memref<3x4x6xf16>)
  return %out : memref<3x4x6xf16>
}

// -----

// A view with an offset and a row stride wider than its rows: the address
// skips the offset (4 f32), the strides are the view's.
// CHECK-LABEL: func @strided_view
// CHECK-SAME: (%[[A:.*]]: memref<4x8xf32, strided<[16, 1], offset: 4>>
// CHECK-DAG: %[[AP:.*]] = memref.extract_aligned_pointer_as_index %[[A]]
// CHECK-DAG: %[[AADDR:.*]] = arith.addi %[[AP]], %c16 : index
// CHECK: call @precrtCompiledMatmul(%c1_i64, %c4_i64, %c3_i64, %c8_i64, %c1_i32, %[[AADDR]], %c0_i64, %c16_i64, %c1_i64,
func.func @strided_view(%a: memref<4x8xf32, strided<[16, 1], offset: 4>>, %b: memref<8x3xf32>) -> memref<4x3xf32> {
  %out = memref.alloc() : memref<4x3xf32>
  linalg.matmul ins(%a, %b : memref<4x8xf32, strided<[16, 1], offset: 4>>, memref<8x3xf32>) outs(%out : memref<4x3xf32>)
  return %out : memref<4x3xf32>
}

// -----

// Dynamic sizes come from the buffers.
// CHECK-LABEL: func @dynamic
// CHECK-SAME: (%[[A:.*]]: memref<?x?xf32>, %[[B:.*]]: memref<?x?xf32>)
// CHECK-DAG: %{{.*}}, %{{.*}}, %[[AS:.*]]:2, %{{.*}}:2 = memref.extract_strided_metadata %[[A]]
// CHECK-DAG: %{{.*}}, %{{.*}}, %[[BS:.*]]:2, %{{.*}}:2 = memref.extract_strided_metadata %[[B]]
// CHECK-DAG: %[[M:.*]] = arith.index_cast %[[AS]]#0 : index to i64
// CHECK-DAG: %[[K:.*]] = arith.index_cast %[[AS]]#1 : index to i64
// CHECK-DAG: %[[N:.*]] = arith.index_cast %[[BS]]#1 : index to i64
// CHECK: call @precrtCompiledMatmul(%c1_i64, %[[M]], %[[N]], %[[K]],
func.func @dynamic(%a: memref<?x?xf32>, %b: memref<?x?xf32>) -> memref<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = memref.dim %a, %c0 : memref<?x?xf32>
  %n = memref.dim %b, %c1 : memref<?x?xf32>
  %out = memref.alloc(%m, %n) : memref<?x?xf32>
  linalg.matmul ins(%a, %b : memref<?x?xf32>, memref<?x?xf32>) outs(%out : memref<?x?xf32>)
  return %out : memref<?x?xf32>
}

// -----

// What the gemm cannot honour stays a linalg op: f64; f32 inputs that linalg
// rounds to the bf16 output first; an output that is an input; two argument
// buffers that may overlap; a body other than a multiply-add.
// CHECK-LABEL: func @not_gemms
// CHECK-NOT: call @precrtCompiledMatmul
// CHECK-COUNT-4: linalg.matmul
// CHECK: linalg.generic
// CHECK-NOT: call @precrtCompiledMatmul
func.func @not_gemms(%a64: memref<4x4xf64>, %a: memref<4x4xf32>, %b: memref<4x4xf32>) {
  %o64 = memref.alloc() : memref<4x4xf64>
  linalg.matmul ins(%a64, %a64 : memref<4x4xf64>, memref<4x4xf64>) outs(%o64 : memref<4x4xf64>)
  %obf = memref.alloc() : memref<4x4xbf16>
  linalg.matmul ins(%a, %b : memref<4x4xf32>, memref<4x4xf32>) outs(%obf : memref<4x4xbf16>)
  %o = memref.alloc() : memref<4x4xf32>
  linalg.matmul ins(%o, %b : memref<4x4xf32>, memref<4x4xf32>) outs(%o : memref<4x4xf32>)
  linalg.matmul ins(%a, %a : memref<4x4xf32>, memref<4x4xf32>) outs(%b : memref<4x4xf32>)
  linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                   affine_map<(m, n, k) -> (k, n)>,
                                   affine_map<(m, n, k) -> (m, n)>],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<4x4xf32>, memref<4x4xf32>) outs(%o : memref<4x4xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.maximumf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A transpose is kept when its source may change before the matmul reads it,
// when its result has another reader, or when its source is the output.
// CHECK-LABEL: func @kept_transposes
// CHECK: linalg.transpose
// CHECK: linalg.fill
// CHECK: call @precrtCompiledMatmul
// CHECK: linalg.transpose
// CHECK: call @precrtCompiledMatmul
// CHECK: memref.copy
// CHECK: linalg.transpose
// CHECK: call @precrtCompiledMatmul
func.func @kept_transposes(%w: memref<4x4xf32>, %g: memref<4x4xf32>, %o1: memref<4x4xf32>) {
  %zero = arith.constant 0.0 : f32
  %wt = memref.alloc() : memref<4x4xf32>
  linalg.transpose ins(%w : memref<4x4xf32>) outs(%wt : memref<4x4xf32>) permutation = [1, 0]
  linalg.fill ins(%zero : f32) outs(%w : memref<4x4xf32>)
  %out = memref.alloc() : memref<4x4xf32>
  linalg.matmul ins(%g, %wt : memref<4x4xf32>, memref<4x4xf32>) outs(%out : memref<4x4xf32>)
  %wt2 = memref.alloc() : memref<4x4xf32>
  linalg.transpose ins(%g : memref<4x4xf32>) outs(%wt2 : memref<4x4xf32>) permutation = [1, 0]
  %out2 = memref.alloc() : memref<4x4xf32>
  linalg.matmul ins(%g, %wt2 : memref<4x4xf32>, memref<4x4xf32>) outs(%out2 : memref<4x4xf32>)
  memref.copy %wt2, %o1 : memref<4x4xf32> to memref<4x4xf32>
  // Folded, the transpose's source would be the output the gemm writes.
  %acc = memref.alloc() : memref<4x4xf32>
  linalg.fill ins(%zero : f32) outs(%acc : memref<4x4xf32>)
  %acct = memref.alloc() : memref<4x4xf32>
  linalg.transpose ins(%acc : memref<4x4xf32>) outs(%acct : memref<4x4xf32>) permutation = [1, 0]
  linalg.matmul ins(%acct, %g : memref<4x4xf32>, memref<4x4xf32>) outs(%acc : memref<4x4xf32>)
  memref.copy %acc, %o1 : memref<4x4xf32> to memref<4x4xf32>
  return
}

// -----

// A transpose written after the matmul that reads its buffer is not what the
// matmul reads: it stays, and the matmul reads the transposed buffer.
// CHECK-LABEL: func @transpose_after_reader
// CHECK-SAME: (%[[G:.*]]: memref<8x16xf32>, %[[W:.*]]: memref<64x16xbf16>)
// CHECK: %[[WT:.*]] = memref.alloc() : memref<16x64xbf16>
// CHECK-DAG: %[[WTP:.*]] = memref.extract_aligned_pointer_as_index %[[WT]]
// CHECK: call @precrtCompiledMatmul(%c1_i64, %c8_i64, %c64_i64, %c16_i64, %c1_i32, %{{.*}}, %c0_i64, %c16_i64, %c1_i64, %c3_i32, %[[WTP]], %c0_i64, %c64_i64, %c1_i64,
// CHECK: linalg.transpose ins(%[[W]] : memref<64x16xbf16>) outs(%[[WT]] : memref<16x64xbf16>)
func.func @transpose_after_reader(%g: memref<8x16xf32>, %w: memref<64x16xbf16>) -> memref<8x64xf32> {
  %wt = memref.alloc() : memref<16x64xbf16>
  %out = memref.alloc() : memref<8x64xf32>
  linalg.matmul ins(%g, %wt : memref<8x16xf32>, memref<16x64xbf16>) outs(%out : memref<8x64xf32>)
  linalg.transpose ins(%w : memref<64x16xbf16>) outs(%wt : memref<16x64xbf16>) permutation = [1, 0]
  memref.dealloc %wt : memref<16x64xbf16>
  return %out : memref<8x64xf32>
}

// -----

// Consecutive matmuls in one block, each with a folded transpose whose
// source is freed before it: every free moves after the call that reads
// its buffer, and no transpose is left.
// CHECK-LABEL: func @chained_deferred_frees
// CHECK-NOT: linalg.transpose
// CHECK: %[[A:.*]] = memref.alloc() : memref<4x16xbf16>
// CHECK: call @precrtCompiledMatmul(
// CHECK-NEXT: memref.dealloc %[[A]]
// CHECK: %[[B:.*]] = memref.alloc() : memref<4x16xbf16>
// CHECK: call @precrtCompiledMatmul(
// CHECK-NEXT: memref.dealloc %[[B]]
// CHECK: %[[C:.*]] = memref.alloc() : memref<4x16xbf16>
// CHECK: call @precrtCompiledMatmul(
// CHECK-NEXT: memref.dealloc %[[C]]
// CHECK-NOT: linalg.transpose
// CHECK: return
func.func @chained_deferred_frees(%g: memref<8x16xf32>)
    -> (memref<8x4xf32>, memref<8x4xf32>, memref<8x4xf32>) {
  %zero = arith.constant 0.0 : bf16
  %a = memref.alloc() : memref<4x16xbf16>
  linalg.fill ins(%zero : bf16) outs(%a : memref<4x16xbf16>)
  %at = memref.alloc() : memref<16x4xbf16>
  linalg.transpose ins(%a : memref<4x16xbf16>) outs(%at : memref<16x4xbf16>) permutation = [1, 0]
  memref.dealloc %a : memref<4x16xbf16>
  %outa = memref.alloc() : memref<8x4xf32>
  linalg.matmul ins(%g, %at : memref<8x16xf32>, memref<16x4xbf16>) outs(%outa : memref<8x4xf32>)
  memref.dealloc %at : memref<16x4xbf16>
  %b = memref.alloc() : memref<4x16xbf16>
  linalg.fill ins(%zero : bf16) outs(%b : memref<4x16xbf16>)
  %bt = memref.alloc() : memref<16x4xbf16>
  linalg.transpose ins(%b : memref<4x16xbf16>) outs(%bt : memref<16x4xbf16>) permutation = [1, 0]
  memref.dealloc %b : memref<4x16xbf16>
  %outb = memref.alloc() : memref<8x4xf32>
  linalg.matmul ins(%g, %bt : memref<8x16xf32>, memref<16x4xbf16>) outs(%outb : memref<8x4xf32>)
  memref.dealloc %bt : memref<16x4xbf16>
  %c = memref.alloc() : memref<4x16xbf16>
  linalg.fill ins(%zero : bf16) outs(%c : memref<4x16xbf16>)
  %ct = memref.alloc() : memref<16x4xbf16>
  linalg.transpose ins(%c : memref<4x16xbf16>) outs(%ct : memref<16x4xbf16>) permutation = [1, 0]
  memref.dealloc %c : memref<4x16xbf16>
  %outc = memref.alloc() : memref<8x4xf32>
  linalg.matmul ins(%g, %ct : memref<8x16xf32>, memref<16x4xbf16>) outs(%outc : memref<8x4xf32>)
  memref.dealloc %ct : memref<16x4xbf16>
  return %outa, %outb, %outc : memref<8x4xf32>, memref<8x4xf32>, memref<8x4xf32>
}
