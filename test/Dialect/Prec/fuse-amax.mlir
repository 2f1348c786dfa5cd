// RUN: prec-opt %s --prec-fuse-amax --split-input-file | FileCheck %s --enable-var-scope

// Delayed scaling: the scale is known before this step's amax, so one
// kernel reads the shard once and writes the quantized shard and the
// largest magnitude of each column of a [16, 64] view; a small kernel then
// takes the largest of the 64.
// CHECK-LABEL: func.func @delayed(
// CHECK-SAME: %[[W:[a-z0-9]+]]: tensor<16x64xf32>, %[[S:[a-z0-9]+]]: tensor<f32>
// CHECK-NOT: prec.amax
// CHECK-NOT: prec.quantize
// CHECK: %[[E:.+]] = tensor.empty() : tensor<16x64xf8E4M3FN>
// CHECK: %[[Z:.+]] = linalg.fill {{.*}} -> tensor<64xf32>
// CHECK: %[[K:.+]]:2 = linalg.generic
// CHECK-SAME: iterator_types = ["reduction", "parallel"]
// CHECK-SAME: ins(%[[W]], %[[S]] : tensor<16x64xf32>, tensor<f32>)
// CHECK-SAME: outs(%[[Z]], %[[E]] : tensor<64xf32>, tensor<16x64xf8E4M3FN>)
// CHECK: %[[MAG:.+]] = math.absf
// CHECK: %[[FINITE:.+]] = arith.cmpf olt, %[[MAG]]
// CHECK: %[[TERM:.+]] = arith.select %[[FINITE]], %[[MAG]]
// CHECK: %[[TERMBITS:.+]] = arith.bitcast %[[TERM]] : f32 to i32
// CHECK: %[[LARGESTBITS:.+]] = arith.maxui %{{.*}}, %[[TERMBITS]] : i32
// CHECK: %[[LARGEST:.+]] = arith.bitcast %[[LARGESTBITS]] : i32 to f32
// CHECK: %[[QUOTIENT:.+]] = arith.divf
// CHECK: %[[Q:.+]] = prec.saturating_truncf %[[QUOTIENT]] : f32 to f8E4M3FN
// CHECK: linalg.yield %[[LARGEST]], %[[Q]]
// CHECK: %[[A:.+]] = linalg.generic
// CHECK-SAME: iterator_types = ["reduction"]
// CHECK-SAME: ins(%[[K]]#0 : tensor<64xf32>)
// CHECK: %[[G:.+]] = prec.all_gather %[[K]]#1
// CHECK: return %[[G]], %[[A]]
shard.grid @dp(shape = 4)

func.func @delayed(%w: tensor<16x64xf32>, %s: tensor<f32>)
    -> (tensor<64x64xf8E4M3FN>, tensor<f32>) {
  %q = prec.quantize %w scale %s scaling = <delayed, history = 16>
         : tensor<16x64xf32>, tensor<f32> -> tensor<16x64xf8E4M3FN>
  %g = prec.all_gather %q on @dp gather_axis = 0
         : tensor<16x64xf8E4M3FN> -> tensor<64x64xf8E4M3FN>
  // After the gather, as examples/fp8_delayed_step.mlir writes it.
  %a = prec.amax %w : tensor<16x64xf32> -> tensor<f32>
  return %g, %a : tensor<64x64xf8E4M3FN>, tensor<f32>
}

// -----

// The amax first and the scale computed after it (but not from it): the
// kernel takes the amax's place when the scale is known there, otherwise
// the quantization's, if the amax is not used before.
// CHECK-LABEL: func.func @amax_first(
// CHECK: prec.scale_from_amax
// CHECK: linalg.generic {{.*}}iterator_types = ["reduction", "parallel"]
// CHECK: } -> (tensor<4xf32>, tensor<16x4xf8E5M2>)
// CHECK: arith.negf
// CHECK-NOT: prec.amax
// CHECK-NOT: prec.quantize
func.func @amax_first(%x: tensor<64xbf16>, %h: tensor<f32>)
    -> (tensor<64xf8E5M2>, tensor<f32>) {
  %a = prec.amax %x : tensor<64xbf16> -> tensor<f32>
  %s = prec.scale_from_amax %h element_type = f8E5M2 : tensor<f32> -> tensor<f32>
  %q = prec.quantize %x scale %s scaling = <delayed, history = 4>
         : tensor<64xbf16>, tensor<f32> -> tensor<64xf8E5M2>
  %n = arith.negf %a : tensor<f32>
  return %q, %n : tensor<64xf8E5M2>, tensor<f32>
}

// -----

// Dynamic scaling: the scale comes from the amax, which must be known
// before any element is quantized. Nothing to fuse.
// CHECK-LABEL: func.func @dynamic(
// CHECK: prec.amax
// CHECK: prec.scale_from_amax
// CHECK: prec.quantize
// CHECK-NOT: linalg.generic
func.func @dynamic(%x: tensor<8x64xf32>) -> tensor<8x64xf8E4M3FN> {
  %a = prec.amax %x : tensor<8x64xf32> -> tensor<f32>
  %s = prec.scale_from_amax %a element_type = f8E4M3FN : tensor<f32> -> tensor<f32>
  %q = prec.quantize %x scale %s scaling = <dynamic>
         : tensor<8x64xf32>, tensor<f32> -> tensor<8x64xf8E4M3FN>
  return %q : tensor<8x64xf8E4M3FN>
}

// -----

// An amax used before the quantization whose scale is computed after it:
// neither op's place suits one kernel.
// CHECK-LABEL: func.func @interleaved(
// CHECK: prec.amax
// CHECK: prec.quantize
func.func @interleaved(%x: tensor<64xf32>, %h: tensor<f32>)
    -> (tensor<64xf8E4M3FN>, tensor<f32>) {
  %a = prec.amax %x : tensor<64xf32> -> tensor<f32>
  %n = arith.negf %a : tensor<f32>
  %s = prec.scale_from_amax %h element_type = f8E4M3FN : tensor<f32> -> tensor<f32>
  %q = prec.quantize %x scale %s scaling = <delayed, history = 4>
         : tensor<64xf32>, tensor<f32> -> tensor<64xf8E4M3FN>
  return %q, %n : tensor<64xf8E4M3FN>, tensor<f32>
}

// -----

// Stochastic rounding keys its stream by the element's index in the whole
// tensor: left to convert-prec-to-linalg.
// CHECK-LABEL: func.func @stochastic(
// CHECK: prec.quantize
// CHECK: prec.amax
func.func @stochastic(%x: tensor<64xf32>, %s: tensor<f32>, %seed: i64)
    -> (tensor<64xf8E4M3FN>, tensor<f32>) {
  %q = prec.quantize %x scale %s scaling = <delayed, history = 4>
         rounding = <stochastic> seed %seed
         : tensor<64xf32>, tensor<f32> -> tensor<64xf8E4M3FN>
  %a = prec.amax %x : tensor<64xf32> -> tensor<f32>
  return %q, %a : tensor<64xf8E4M3FN>, tensor<f32>
}

// -----

// Block (MX) scaling: the amaxes, E8M0 scales and quantization of the
// 4 x 256 elements (32 blocks of 32) become one loop over rows of whole
// blocks (here all 1024 elements, 4 KiB: one row) that reads each row once
// and yields the quantized data and the scales, which travel with it. One
// row's amaxes are carried too: every row reuses their buffer. An element
// is divided by its power-of-two scale as a product with the scale's exact
// reciprocal, which rounds as the quotient.
// CHECK-LABEL: func.func @block(
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<4x256xf32>
// CHECK-NOT: prec.amax
// CHECK: %[[FLAT:.+]] = tensor.collapse_shape %[[X]] {{\[\[}}0, 1]] : tensor<4x256xf32> into tensor<1024xf32>
// CHECK: %[[M:.+]] = tensor.expand_shape %[[FLAT]] {{\[\[}}0, 1]] output_shape [1, 1024]
// CHECK: %[[LOOP:.+]]:3 = scf.for %[[ROW:.+]] = %{{.+}} to %{{.+}} step %{{.+}} iter_args(%[[DATA:.+]] = %{{.+}}, %[[SCALES:.+]] = %{{.+}}, %[[AMAXES:.+]] = %{{.+}}) -> (tensor<1x1024xf8E4M3FN>, tensor<1x32xf8E8M0FNU>, tensor<32xf32>)
// CHECK: %[[R:.+]] = tensor.extract_slice %[[M]][%[[ROW]], 0] [1, 1024] [1, 1] : tensor<1x1024xf32> to tensor<1024xf32>
// CHECK: %[[T:.+]] = tensor.expand_shape %[[R]] {{\[\[}}0, 1]] output_shape [32, 32]
// CHECK: %[[ZEROS:.+]] = linalg.fill {{.*}} outs(%[[AMAXES]] : tensor<32xf32>)
// CHECK: %[[AMAX:.+]] = linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "reduction"]
// CHECK-SAME: ins(%[[T]] : tensor<32x32xf32>) outs(%[[ZEROS]] : tensor<32xf32>)
// CHECK: math.absf
// CHECK: %[[SROW:.+]] = tensor.extract_slice %[[SCALES]][%[[ROW]], 0] [1, 32]
// CHECK: %[[S:.+]] = linalg.generic
// CHECK-SAME: ins(%[[AMAX]] : tensor<32xf32>) outs(%[[SROW]] : tensor<32xf8E8M0FNU>)
// CHECK: %[[DROW:.+]] = tensor.extract_slice %[[DATA]][%[[ROW]], 0] [1, 1024]
// CHECK: %[[DBLOCKS:.+]] = tensor.expand_shape %[[DROW]]
// CHECK: %[[Q:.+]] = linalg.generic
// CHECK-SAME: ins(%[[T]], %[[S]] : tensor<32x32xf32>, tensor<32xf8E8M0FNU>) outs(%[[DBLOCKS]] : tensor<32x32xf8E4M3FN>)
// CHECK-NEXT: ^bb0(%[[XIN:.+]]: f32, %[[SIN:.+]]: f8E8M0FNU, %{{.+}}: f8E4M3FN):
// CHECK: arith.bitcast %[[SIN]] : f8E8M0FNU to i8
// CHECK: %[[INVERSE:.+]] = arith.bitcast %{{.+}} : i32 to f32
// CHECK-NOT: arith.divf
// CHECK: %[[QUOTIENT:.+]] = arith.mulf %[[XIN]], %[[INVERSE]] : f32
// CHECK: prec.saturating_truncf %[[QUOTIENT]]
// CHECK: %[[QFLAT:.+]] = tensor.collapse_shape %[[Q]]
// CHECK: %[[D2:.+]] = tensor.insert_slice %[[QFLAT]] into %[[DATA]][%[[ROW]], 0] [1, 1024]
// CHECK: %[[S2:.+]] = tensor.insert_slice %[[S]] into %[[SCALES]][%[[ROW]], 0] [1, 32]
// CHECK: scf.yield %[[D2]], %[[S2]], %[[AMAX]]
// CHECK: %[[DATAFLAT:.+]] = tensor.collapse_shape %[[LOOP]]#0
// CHECK: %[[RESULT:.+]] = tensor.expand_shape %[[DATAFLAT]] {{.*}} output_shape [4, 256]
// CHECK: %[[SCALESFLAT:.+]] = tensor.collapse_shape %[[LOOP]]#1
// CHECK: %[[SCALESOUT:.+]] = tensor.expand_shape %[[SCALESFLAT]] {{.*}} output_shape [4, 8]
// CHECK: return %[[RESULT]], %[[SCALESOUT]]
func.func @block(%x: tensor<4x256xf32>)
    -> (tensor<4x256xf8E4M3FN>, tensor<4x8xf8E8M0FNU>) {
  %a = prec.amax %x block_size = 32 : tensor<4x256xf32> -> tensor<4x8xf32>
  %s = prec.scale_from_amax %a element_type = f8E4M3FN
         : tensor<4x8xf32> -> tensor<4x8xf8E8M0FNU>
  %q = prec.quantize %x scale %s scaling = <block, block_size = 32>
         : tensor<4x256xf32>, tensor<4x8xf8E8M0FNU> -> tensor<4x256xf8E4M3FN>
  return %q, %s : tensor<4x256xf8E4M3FN>, tensor<4x8xf8E8M0FNU>
}

// -----

// Rows of at most 4096 elements: 64 x 128 f32 is two rows of 64 blocks of 64.
// CHECK-LABEL: func.func @block_rows(
// CHECK: scf.for {{.*}} -> (tensor<2x4096xf8E5M2>, tensor<2x64xf8E8M0FNU>, tensor<64xf32>)
func.func @block_rows(%x: tensor<64x128xf32>)
    -> (tensor<64x128xf8E5M2>, tensor<64x2xf8E8M0FNU>) {
  %a = prec.amax %x block_size = 64 : tensor<64x128xf32> -> tensor<64x2xf32>
  %s = prec.scale_from_amax %a element_type = f8E5M2
         : tensor<64x2xf32> -> tensor<64x2xf8E8M0FNU>
  %q = prec.quantize %x scale %s scaling = <block, block_size = 64>
         : tensor<64x128xf32>, tensor<64x2xf8E8M0FNU> -> tensor<64x128xf8E5M2>
  return %q, %s : tensor<64x128xf8E5M2>, tensor<64x2xf8E8M0FNU>
}
