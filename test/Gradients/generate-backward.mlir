// The output is parsed and verified again by a second prec-opt.
// RUN: prec-opt %s --prec-generate-backward | prec-opt | FileCheck %s --enable-var-scope
// A second run leaves the functions the first one made (marked
// prec.backward_of) alone: the same output.
// RUN: prec-opt %s --prec-generate-backward > %t.once.mlir
// RUN: prec-opt %t.once.mlir --prec-generate-backward | diff %t.once.mlir -
// RUN: FileCheck %s --check-prefix=MARKED < %t.once.mlir
// MARKED: attributes {prec.backward_of = @
// RUN: prec-opt %s --prec-generate-backward="functions=plain" | FileCheck %s --check-prefix=NAMED --enable-var-scope
// RUN: not prec-opt %s --prec-generate-backward="functions=missing" 2>&1 | FileCheck %s --check-prefix=MISSING

// MISSING: error: expected a function named 'missing' to differentiate

shard.grid @dp(shape = 8)
shard.grid @hsdp(shape = 4x8)
shard.grid @dp4(shape = 4)
shard.grid @hosts(shape = 2x4) {prec.inter_host_axes = array<i16: 0>}

//===----------------------------------------------------------------------===//
// Collectives
//===----------------------------------------------------------------------===//

// FSDP: f32 shards gathered as bf16; the gradient is reduce-scattered with
// f32 on the wire, averaged, into an f32 shard.
// CHECK-LABEL: func.func @all_gather_backward(
// CHECK-SAME:    %{{.*}}: tensor<16x64xf32>, %[[DW:.*]]: tensor<128x64xbf16>) -> tensor<16x64xf32>
// CHECK:         %[[DSHARD:.*]] = prec.reduce_scatter %[[DW]] on @dp scatter_axis = 0 reduction = <avg>
// CHECK-SAME:      forward_dtype = f32 backward_dtype = bf16 : tensor<128x64xbf16> -> tensor<16x64xf32>
// CHECK-NEXT:    return %[[DSHARD]]
func.func @all_gather(%w_shard: tensor<16x64xf32>) -> tensor<128x64xbf16>
    attributes {prec.differentiable} {
  %w = prec.all_gather %w_shard on @dp gather_axis = 0
         forward_dtype = bf16 backward_dtype = f32
         : tensor<16x64xf32> -> tensor<128x64xbf16>
  return %w : tensor<128x64xbf16>
}

// Without backward_dtype the gradient travels in the forward dtype; the
// grid axes, the axis and grad_reduction carry over.
// CHECK-LABEL: func.func @all_gather_defaults_backward(
// CHECK-SAME:    %[[DY:[^:]*]]: tensor<4x64xf32>)
// CHECK:         prec.reduce_scatter %[[DY]] on @hsdp grid_axes = [1] scatter_axis = 1
// CHECK-SAME:      forward_dtype = f32 backward_dtype = f32 : tensor<4x64xf32> -> tensor<4x8xf32>
func.func @all_gather_defaults(%x: tensor<4x8xf32>) -> tensor<4x64xf32>
    attributes {prec.differentiable} {
  %y = prec.all_gather %x on @hsdp grid_axes = [1] gather_axis = 1
         grad_reduction = <sum> : tensor<4x8xf32> -> tensor<4x64xf32>
  return %y : tensor<4x64xf32>
}

// An fp8 gather keeps its scaling mode on the transpose, whose
// backward_dtype is now the fp8 wire dtype.
// CHECK-LABEL: func.func @all_gather_fp8_backward(
// CHECK-SAME:    %[[DW:[^:]*]]: tensor<128x64xbf16>)
// CHECK:         prec.reduce_scatter %[[DW]] on @dp scatter_axis = 0 reduction = <avg>
// CHECK-SAME:      forward_dtype = bf16 backward_dtype = f8E4M3FN scaling = <dynamic>
// CHECK-SAME:      : tensor<128x64xbf16> -> tensor<16x64xf32>
func.func @all_gather_fp8(%w_shard: tensor<16x64xf32>) -> tensor<128x64xbf16>
    attributes {prec.differentiable} {
  %w = prec.all_gather %w_shard on @dp gather_axis = 0
         forward_dtype = f8E4M3FN backward_dtype = bf16 scaling = <dynamic>
         : tensor<16x64xf32> -> tensor<128x64xbf16>
  return %w : tensor<128x64xbf16>
}

// Over two hosts: the gradient's partial sums cross hosts in the gather's
// grad_inter_host_dtype.
// CHECK-LABEL: func.func @all_gather_two_level_backward(
// CHECK-SAME:    %[[DW:[^:]*]]: tensor<64x64xbf16>)
// CHECK:         prec.reduce_scatter %[[DW]] on @hosts grid_axes = [0, 1] scatter_axis = 0 reduction = <avg>
// CHECK-SAME:      forward_dtype = f32 backward_dtype = bf16 inter_host_dtype = bf16
// CHECK-SAME:      : tensor<64x64xbf16> -> tensor<8x64xf32>
func.func @all_gather_two_level(%w_shard: tensor<8x64xf32>) -> tensor<64x64xbf16>
    attributes {prec.differentiable} {
  %w = prec.all_gather %w_shard on @hosts grid_axes = [0, 1] gather_axis = 0
         forward_dtype = bf16 backward_dtype = f32 grad_inter_host_dtype = bf16
         : tensor<8x64xf32> -> tensor<64x64xbf16>
  return %w : tensor<64x64xbf16>
}

// reduce_scatter -> all_gather in its backward_dtype, back to the input type.
// CHECK-LABEL: func.func @reduce_scatter_backward(
// CHECK-SAME:    %[[DY:[^:]*]]: tensor<8x16xf32>) -> tensor<64x16xbf16>
// CHECK:         %[[DX:.*]] = prec.all_gather %[[DY]] on @dp gather_axis = 0
// CHECK-SAME:      forward_dtype = f32 backward_dtype = bf16 grad_reduction = <sum>
// CHECK-SAME:      : tensor<8x16xf32> -> tensor<64x16xbf16>
// CHECK-NEXT:    return %[[DX]]
func.func @reduce_scatter(%g: tensor<64x16xbf16>) -> tensor<8x16xf32>
    attributes {prec.differentiable} {
  %r = prec.reduce_scatter %g on @dp scatter_axis = 0
         forward_dtype = bf16 backward_dtype = f32 acc_dtype = f32
         : tensor<64x16xbf16> -> tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}

// An avg over grid axis 0 of @hsdp (4 ranks) divides the gradient by 4.
// CHECK-LABEL: func.func @reduce_scatter_avg_backward(
// CHECK-SAME:    %[[DY:[^:]*]]: tensor<16x16xf32>)
// CHECK:         %[[FOUR:.*]] = arith.constant dense<4.000000e+00> : tensor<16x16xf32>
// CHECK:         %[[SCALED:.*]] = arith.divf %[[DY]], %[[FOUR]] : tensor<16x16xf32>
// CHECK:         prec.all_gather %[[SCALED]] on @hsdp grid_axes = [0] gather_axis = 0
// CHECK-SAME:      grad_reduction = <sum> : tensor<16x16xf32> -> tensor<64x16xf32>
func.func @reduce_scatter_avg(%g: tensor<64x16xf32>) -> tensor<16x16xf32>
    attributes {prec.differentiable} {
  %r = prec.reduce_scatter %g on @hsdp grid_axes = [0] scatter_axis = 0
         reduction = <avg> : tensor<64x16xf32> -> tensor<16x16xf32>
  return %r : tensor<16x16xf32>
}

// Explicit divisors (what prec-divide-factors makes of an avg) divide the
// gradient by pre_divisor * post_divisor, in the gradient's dtype.
// CHECK-LABEL: func.func @reduce_scatter_divisors_backward(
// CHECK-SAME:    %[[DY:[^:]*]]: tensor<16x16xbf16>)
// CHECK:         %[[EIGHT:.*]] = arith.constant dense<8.000000e+00> : tensor<16x16xbf16>
// CHECK:         %[[SCALED:.*]] = arith.divf %[[DY]], %[[EIGHT]] : tensor<16x16xbf16>
// CHECK:         prec.all_gather %[[SCALED]] on @hsdp grid_axes = [0] gather_axis = 0
// CHECK-SAME:      grad_reduction = <sum> : tensor<16x16xbf16> -> tensor<64x16xbf16>
func.func @reduce_scatter_divisors(%g: tensor<64x16xbf16>) -> tensor<16x16xbf16>
    attributes {prec.differentiable} {
  %r = prec.reduce_scatter %g on @hsdp grid_axes = [0] scatter_axis = 0
         pre_divisor = 2.0 post_divisor = 4.0
         : tensor<64x16xbf16> -> tensor<16x16xbf16>
  return %r : tensor<16x16xbf16>
}

// A divisor bf16 does not hold (0.1) divides in f64, rounded to odd by the
// sign of the exact remainder (math.fma), then to f32 rounded to odd and to
// bf16: the exact quotient rounded once.
// CHECK-LABEL: func.func @reduce_scatter_tenth_backward(
// CHECK-SAME:    %[[DY:[^:]*]]: tensor<16x16xbf16>)
// CHECK:         %[[SCALED:.*]] = linalg.generic {{.*}} ins(%[[DY]] : tensor<16x16xbf16>)
// CHECK:           arith.extf %{{.*}} : bf16 to f64
// CHECK:           arith.divf %{{.*}} : f64
// CHECK:           math.fma
// CHECK:           arith.truncf %{{.*}} : f64 to f32
// CHECK:           arith.truncf %{{.*}} : f32 to bf16
// CHECK:         prec.all_gather %[[SCALED]] on @hsdp grid_axes = [0] gather_axis = 0
func.func @reduce_scatter_tenth(%g: tensor<64x16xbf16>) -> tensor<16x16xbf16>
    attributes {prec.differentiable} {
  %r = prec.reduce_scatter %g on @hsdp grid_axes = [0] scatter_axis = 0
         pre_divisor = 0.1 : tensor<64x16xbf16> -> tensor<16x16xbf16>
  return %r : tensor<16x16xbf16>
}

// all_reduce -> all_reduce with the same reduction, dtypes swapped; the
// accumulation dtype follows the default of the new wire dtype.
// CHECK-LABEL: func.func @all_reduce_backward(
// CHECK-SAME:    %[[DY:[^:]*]]: tensor<16xf32>)
// CHECK:         prec.all_reduce %[[DY]] on @hsdp grid_axes = [0] reduction = <avg>
// CHECK-SAME:      forward_dtype = f32 backward_dtype = bf16 : tensor<16xf32> -> tensor<16xf32>
func.func @all_reduce(%g: tensor<16xf32>) -> tensor<16xf32>
    attributes {prec.differentiable} {
  %r = prec.all_reduce %g on @hsdp grid_axes = [0] reduction = <avg>
         forward_dtype = bf16 backward_dtype = f32 acc_dtype = f32
         : tensor<16xf32> -> tensor<16xf32>
  return %r : tensor<16xf32>
}

// Over two hosts: the gradient's partial sums cross hosts in the forward
// all_reduce's grad_inter_host_dtype (its inter_host_dtype is the
// forward's own).
// CHECK-LABEL: func.func @all_reduce_two_level_backward(
// CHECK-SAME:    %[[DY:[^:]*]]: tensor<64xf32>)
// CHECK:         prec.all_reduce %[[DY]] on @hosts grid_axes = [0, 1]
// CHECK-SAME:      forward_dtype = bf16 backward_dtype = f32 inter_host_dtype = f8E4M3FN inter_host_scaling = <dynamic>
// CHECK-NOT:       grad_inter_host
// CHECK-SAME:      : tensor<64xf32> -> tensor<64xf32>
func.func @all_reduce_two_level(%x: tensor<64xf32>) -> tensor<64xf32>
    attributes {prec.differentiable} {
  %r = prec.all_reduce %x on @hosts grid_axes = [0, 1] backward_dtype = bf16
         inter_host_dtype = bf16 grad_inter_host_dtype = f8E4M3FN
         grad_inter_host_scaling = <dynamic> : tensor<64xf32> -> tensor<64xf32>
  return %r : tensor<64xf32>
}

// The backward's contractions may compute as the forward's: it takes the
// forward's prec.reduced_precision.
// CHECK-LABEL: func.func @reduced_precision_backward(
// CHECK-SAME:    prec.reduced_precision = #prec.reduced_precision<tf32>
func.func @reduced_precision(%g: tensor<16xf32>) -> tensor<16xf32>
    attributes {prec.differentiable,
                prec.reduced_precision = #prec.reduced_precision<tf32>} {
  %r = prec.all_reduce %g on @hsdp grid_axes = [0] : tensor<16xf32> -> tensor<16xf32>
  return %r : tensor<16xf32>
}

// A contraction's own attribute holds for its gradient's contractions, in
// either direction.
// CHECK-LABEL: func.func @matmul_allows_none_backward(
// CHECK-SAME:    prec.reduced_precision = #prec.reduced_precision<tf32>
// CHECK-COUNT-2: linalg.matmul {prec.reduced_precision = #prec.reduced_precision<none>}
// CHECK-LABEL: func.func @matmul_allows_tf32_backward(
// CHECK-COUNT-2: linalg.matmul {prec.reduced_precision = #prec.reduced_precision<tf32>}
func.func @matmul_allows_none(%a: tensor<4x2xf32>, %b: tensor<2x4xf32>, %c: tensor<4x4xf32>) -> tensor<4x4xf32>
    attributes {prec.differentiable, prec.reduced_precision = #prec.reduced_precision<tf32>} {
  %p = linalg.matmul {prec.reduced_precision = #prec.reduced_precision<none>}
         ins(%a, %b : tensor<4x2xf32>, tensor<2x4xf32>) outs(%c : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %p : tensor<4x4xf32>
}
func.func @matmul_allows_tf32(%a: tensor<4x2xf32>, %b: tensor<2x4xf32>, %c: tensor<4x4xf32>) -> tensor<4x4xf32>
    attributes {prec.differentiable} {
  %p = linalg.matmul {prec.reduced_precision = #prec.reduced_precision<tf32>}
         ins(%a, %b : tensor<4x2xf32>, tensor<2x4xf32>) outs(%c : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %p : tensor<4x4xf32>
}

// The transposed all_reduce divides by the same pre_divisor and post_divisor.
// CHECK-LABEL: func.func @all_reduce_divisors_backward(
// CHECK-SAME:    %[[DY:[^:]*]]: tensor<16xf32>)
// CHECK-NOT:     arith.divf
// CHECK:         prec.all_reduce %[[DY]] on @hsdp grid_axes = [0]
// CHECK-SAME:      pre_divisor = 2.000000e+00 post_divisor = 3.000000e+00
// CHECK-SAME:      : tensor<16xf32> -> tensor<16xf32>
func.func @all_reduce_divisors(%g: tensor<16xf32>) -> tensor<16xf32>
    attributes {prec.differentiable} {
  %r = prec.all_reduce %g on @hsdp grid_axes = [0]
         pre_divisor = 2.0 post_divisor = 3.0
         : tensor<16xf32> -> tensor<16xf32>
  return %r : tensor<16xf32>
}

// all_to_all -> the inverse all_to_all (split and concat axes swapped).
// CHECK-LABEL: func.func @all_to_all_backward(
// CHECK-SAME:    %[[DY:[^:]*]]: tensor<8x128xbf16>)
// CHECK:         prec.all_to_all %[[DY]] on @dp split_axis = 1 concat_axis = 0
// CHECK-SAME:      forward_dtype = f32 backward_dtype = bf16 : tensor<8x128xbf16> -> tensor<64x16xf32>
func.func @all_to_all(%x: tensor<64x16xf32>) -> tensor<8x128xbf16>
    attributes {prec.differentiable} {
  %t = prec.all_to_all %x on @dp split_axis = 0 concat_axis = 1
         forward_dtype = bf16 backward_dtype = f32
         : tensor<64x16xf32> -> tensor<8x128xbf16>
  return %t : tensor<8x128xbf16>
}

//===----------------------------------------------------------------------===//
// Casts and local reductions
//===----------------------------------------------------------------------===//

// The gradient is cast to backward_dtype, then to the input's gradient
// dtype: f32 forward, gradients rounded to bf16 on the way back.
// CHECK-LABEL: func.func @cast_backward(
// CHECK-SAME:    %[[DA:[^:]*]]: tensor<8xbf16>, %[[DB:[^:]*]]: tensor<8xf32>)
// CHECK-DAG:     %[[GA:.*]] = prec.cast %[[DA]] : tensor<8xbf16> to tensor<8xf32>
// CHECK-DAG:     %[[ROUNDED:.*]] = prec.cast %[[DB]] : tensor<8xf32> to tensor<8xbf16>
// CHECK-DAG:     %[[GB:.*]] = prec.cast %[[ROUNDED]] : tensor<8xbf16> to tensor<8xf32>
// CHECK:         return %[[GA]], %[[GB]]
func.func @cast(%a: tensor<8xf32>, %b: tensor<8xf32>) -> (tensor<8xbf16>, tensor<8xf32>)
    attributes {prec.differentiable} {
  %0 = prec.cast %a : tensor<8xf32> to tensor<8xbf16>
  %1 = prec.cast %b backward_dtype = bf16 : tensor<8xf32> to tensor<8xf32>
  return %0, %1 : tensor<8xbf16>, tensor<8xf32>
}

// sum: broadcast over the reduced dims; avg: divided by their element count
// (4 * 8 * 16 = 512) first. Both gradients of %x are f32 and summed in f32,
// then rounded once to bf16.
// CHECK-LABEL: func.func @reduce_backward(
// CHECK-SAME:    %[[DS:[^:]*]]: tensor<8xf32>, %[[DM:[^:]*]]: tensor<f32>) -> tensor<4x8x16xbf16>
// CHECK:         %[[COUNT:.*]] = arith.constant dense<5.120000e+02> : tensor<f32>
// CHECK:         %[[MEAN:.*]] = arith.divf %[[DM]], %[[COUNT]] : tensor<f32>
// CHECK:         %[[BM:.*]] = linalg.broadcast ins(%[[MEAN]] : tensor<f32>) outs(%{{.*}} : tensor<4x8x16xf32>) dimensions = [0, 1, 2]
// CHECK:         %[[BS:.*]] = linalg.broadcast ins(%[[DS]] : tensor<8xf32>) outs(%{{.*}} : tensor<4x8x16xf32>) dimensions = [0, 2]
// CHECK:         %[[SUM:.*]] = arith.addf %[[BM]], %[[BS]] : tensor<4x8x16xf32>
// CHECK:         %[[DX:.*]] = prec.cast %[[SUM]] : tensor<4x8x16xf32> to tensor<4x8x16xbf16>
// CHECK:         return %[[DX]]
func.func @reduce(%x: tensor<4x8x16xbf16>) -> (tensor<8xf32>, tensor<f32>)
    attributes {prec.differentiable} {
  %s = prec.reduce %x dims = [2, 0] acc_dtype = f32 : tensor<4x8x16xbf16> -> tensor<8xf32>
  %m = prec.reduce %x dims = [0, 1, 2] reduction = <avg> : tensor<4x8x16xbf16> -> tensor<f32>
  return %s, %m : tensor<8xf32>, tensor<f32>
}

//===----------------------------------------------------------------------===//
// linalg and arith
//===----------------------------------------------------------------------===//

// bf16 factors, f32 result: dA = dC B^T and dB = A^T dC accumulate in f32
// and are rounded once to bf16. The zero-filled init receives dC and passes
// nothing on; the forward ops are not needed and disappear.
// CHECK-LABEL: func.func @matmul_backward(
// CHECK-SAME:    %[[A:[^:]*]]: tensor<8x32xbf16>, %[[B:[^:]*]]: tensor<32x16xbf16>, %[[DC:[^:]*]]: tensor<8x16xf32>)
// CHECK-SAME:    -> (tensor<8x32xbf16>, tensor<32x16xbf16>)
// CHECK-NOT:     linalg.fill
// CHECK:         %[[BT:.*]] = linalg.transpose ins(%[[B]] : tensor<32x16xbf16>) outs(%{{.*}} : tensor<16x32xbf16>) permutation = [1, 0]
// CHECK:         %[[Z0:.*]] = arith.constant dense<0.000000e+00> : tensor<8x32xf32>
// CHECK:         %[[DA32:.*]] = linalg.matmul ins(%[[DC]], %[[BT]] : tensor<8x16xf32>, tensor<16x32xbf16>) outs(%[[Z0]] : tensor<8x32xf32>)
// CHECK:         %[[AT:.*]] = linalg.transpose ins(%[[A]] : tensor<8x32xbf16>) outs(%{{.*}} : tensor<32x8xbf16>) permutation = [1, 0]
// CHECK:         %[[Z1:.*]] = arith.constant dense<0.000000e+00> : tensor<32x16xf32>
// CHECK:         %[[DB32:.*]] = linalg.matmul ins(%[[AT]], %[[DC]] : tensor<32x8xbf16>, tensor<8x16xf32>) outs(%[[Z1]] : tensor<32x16xf32>)
// CHECK-DAG:     %[[DA:.*]] = prec.cast %[[DA32]] : tensor<8x32xf32> to tensor<8x32xbf16>
// CHECK-DAG:     %[[DB:.*]] = prec.cast %[[DB32]] : tensor<32x16xf32> to tensor<32x16xbf16>
// CHECK:         return %[[DA]], %[[DB]]
func.func @matmul(%a: tensor<8x32xbf16>, %b: tensor<32x16xbf16>) -> tensor<8x16xf32>
    attributes {prec.differentiable} {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<8x16xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<8x16xf32>) -> tensor<8x16xf32>
  %c = linalg.matmul ins(%a, %b : tensor<8x32xbf16>, tensor<32x16xbf16>)
         outs(%init : tensor<8x16xf32>) -> tensor<8x16xf32>
  return %c : tensor<8x16xf32>
}

// An accumulating matmul (C = C0 + A B) passes dC to C0; dynamic extents
// come from the operands.
// CHECK-LABEL: func.func @matmul_dynamic_backward(
// CHECK-SAME:    %[[A:[^:]*]]: tensor<?x4xf32>, %[[B:[^:]*]]: tensor<4x?xf32>, %[[C0:[^:]*]]: tensor<?x?xf32>, %[[DC:[^:]*]]: tensor<?x?xf32>)
// CHECK:         %[[M:.*]] = tensor.dim %[[A]], %{{.*}} : tensor<?x4xf32>
// CHECK:         %[[EMPTY:.*]] = tensor.empty(%[[M]]) : tensor<?x4xf32>
// CHECK:         %[[Z:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[EMPTY]] : tensor<?x4xf32>)
// CHECK:         %[[DA:.*]] = linalg.matmul ins(%[[DC]], %{{.*}} : tensor<?x?xf32>, tensor<?x4xf32>) outs(%[[Z]] : tensor<?x4xf32>)
// CHECK:         %[[DB:.*]] = linalg.matmul
// CHECK:         return %[[DA]], %[[DB]], %[[DC]]
func.func @matmul_dynamic(%a: tensor<?x4xf32>, %b: tensor<4x?xf32>, %c0: tensor<?x?xf32>)
    -> tensor<?x?xf32> attributes {prec.differentiable} {
  %c = linalg.matmul ins(%a, %b : tensor<?x4xf32>, tensor<4x?xf32>)
         outs(%c0 : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %c : tensor<?x?xf32>
}

// CHECK-LABEL: func.func @transpose_backward(
// CHECK-SAME:    %[[DY:[^:]*]]: tensor<4x2x3xf32>)
// CHECK:         %[[DX:.*]] = linalg.transpose ins(%[[DY]] : tensor<4x2x3xf32>) outs(%{{.*}} : tensor<2x3x4xf32>) permutation = [1, 2, 0]
// CHECK:         return %[[DX]]
func.func @transpose(%x: tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
    attributes {prec.differentiable} {
  %empty = tensor.empty() : tensor<4x2x3xf32>
  %y = linalg.transpose ins(%x : tensor<2x3x4xf32>) outs(%empty : tensor<4x2x3xf32>)
         permutation = [2, 0, 1]
  return %y : tensor<4x2x3xf32>
}

// n = -((a + b - c) * a): the forward values the rules need (a + b - c) are
// recomputed; da sums two uses.
// CHECK-LABEL: func.func @arith_backward(
// CHECK-SAME:    %[[A:[^:]*]]: tensor<4xf32>, %[[B:[^:]*]]: tensor<4xf32>, %[[C:[^:]*]]: tensor<4xf32>, %[[DN:[^:]*]]: tensor<4xf32>)
// CHECK:         %[[S:.*]] = arith.addf %[[A]], %[[B]] : tensor<4xf32>
// CHECK:         %[[D:.*]] = arith.subf %[[S]], %[[C]] : tensor<4xf32>
// CHECK:         %[[DP:.*]] = arith.negf %[[DN]] : tensor<4xf32>
// CHECK:         %[[DD:.*]] = arith.mulf %[[DP]], %[[A]] fastmath<contract> : tensor<4xf32>
// CHECK:         %[[DA1:.*]] = arith.mulf %[[DP]], %[[D]] fastmath<contract> : tensor<4xf32>
// CHECK:         %[[DC:.*]] = arith.negf %[[DD]] : tensor<4xf32>
// CHECK:         %[[DA:.*]] = arith.addf %[[DA1]], %[[DD]] : tensor<4xf32>
// CHECK:         return %[[DA]], %[[DD]], %[[DC]]
func.func @arith(%a: tensor<4xf32>, %b: tensor<4xf32>, %c: tensor<4xf32>) -> tensor<4xf32>
    attributes {prec.differentiable} {
  %s = arith.addf %a, %b : tensor<4xf32>
  %d = arith.subf %s, %c : tensor<4xf32>
  %p = arith.mulf %d, %a fastmath<contract> : tensor<4xf32>
  %n = arith.negf %p : tensor<4xf32>
  return %n : tensor<4xf32>
}

//===----------------------------------------------------------------------===//
// Accumulation and gradient dtypes
//===----------------------------------------------------------------------===//

// %x is used three times. Its contributions differ in dtype (bf16 from the
// product, f32 from the cast's backward_dtype), so they are summed in f32 and
// rounded once to bf16. A result returned as is passes its gradient through.
// CHECK-LABEL: func.func @used_twice_backward(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<4xbf16>, %{{[^:]*}}: tensor<4xf32>, %[[DSQ:[^:]*]]: tensor<4xbf16>, %[[DZ:[^:]*]]: tensor<4xf32>)
// CHECK:         %[[P0:.*]] = arith.mulf %[[DSQ]], %[[X]] : tensor<4xbf16>
// CHECK:         %[[P1:.*]] = arith.mulf %[[DSQ]], %[[X]] : tensor<4xbf16>
// CHECK:         %[[P0W:.*]] = prec.cast %[[P0]] : tensor<4xbf16> to tensor<4xf32>
// CHECK:         %[[S0:.*]] = arith.addf %[[DZ]], %[[P0W]] : tensor<4xf32>
// CHECK:         %[[P1W:.*]] = prec.cast %[[P1]] : tensor<4xbf16> to tensor<4xf32>
// CHECK:         %[[S1:.*]] = arith.addf %[[S0]], %[[P1W]] : tensor<4xf32>
// CHECK:         %[[DX:.*]] = prec.cast %[[S1]] : tensor<4xf32> to tensor<4xbf16>
// CHECK:         return %[[DX]], %[[DZ]]
func.func @used_twice(%x: tensor<4xbf16>, %y: tensor<4xf32>) -> (tensor<4xbf16>, tensor<4xf32>)
    attributes {prec.differentiable} {
  %sq = arith.mulf %x, %x : tensor<4xbf16>
  %up = prec.cast %x backward_dtype = f32 : tensor<4xbf16> to tensor<4xf32>
  %z = arith.addf %up, %y : tensor<4xf32>
  return %sq, %z : tensor<4xbf16>, tensor<4xf32>
}

// Contributions of one dtype are summed in it.
// CHECK-LABEL: func.func @same_dtype_backward(
// CHECK-SAME:    %[[DY:[^:]*]]: tensor<4xbf16>)
// CHECK:         %[[DX:.*]] = arith.addf %[[DY]], %[[DY]] : tensor<4xbf16>
// CHECK-NEXT:    return %[[DX]]
func.func @same_dtype(%x: tensor<4xbf16>) -> tensor<4xbf16>
    attributes {prec.differentiable} {
  %y = arith.addf %x, %x : tensor<4xbf16>
  return %y : tensor<4xbf16>
}

// prec.grad_dtype = f32 on a bf16 argument: the bf16 contributions are
// summed in f32 and the gradient returned in f32. The scalar and the integer
// tensor get no gradient; an unused float argument gets zeros.
// CHECK-LABEL: func.func @grad_dtype_backward(
// CHECK-SAME:    %[[W:[^:]*]]: tensor<8x8xbf16>, %{{[^:]*}}: f32, %{{[^:]*}}: tensor<8xf32>, %{{[^:]*}}: tensor<8xi32>, %[[DY:[^:]*]]: tensor<8x8xbf16>)
// CHECK-SAME:    -> (tensor<8x8xf32>, tensor<8xf32>)
// CHECK:         %[[P0:.*]] = arith.mulf %[[DY]], %[[W]] : tensor<8x8xbf16>
// CHECK:         %[[P1:.*]] = arith.mulf %[[DY]], %[[W]] : tensor<8x8xbf16>
// CHECK:         %[[P0W:.*]] = prec.cast %[[P0]] : tensor<8x8xbf16> to tensor<8x8xf32>
// CHECK:         %[[P1W:.*]] = prec.cast %[[P1]] : tensor<8x8xbf16> to tensor<8x8xf32>
// CHECK:         %[[DW:.*]] = arith.addf %[[P0W]], %[[P1W]] : tensor<8x8xf32>
// CHECK:         %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : tensor<8xf32>
// CHECK:         return %[[DW]], %[[ZERO]] : tensor<8x8xf32>, tensor<8xf32>
func.func @grad_dtype(%w: tensor<8x8xbf16> {prec.grad_dtype = f32}, %lr: f32,
                      %unused: tensor<8xf32>, %ids: tensor<8xi32>) -> tensor<8x8xbf16>
    attributes {prec.differentiable} {
  %y = arith.mulf %w, %w : tensor<8x8xbf16>
  return %y : tensor<8x8xbf16>
}

//===----------------------------------------------------------------------===//
// An FSDP layer pair (examples/fsdp_step.mlir, forward half) with a mean loss
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @mlp_backward(
// CHECK-SAME:    %[[W1S:[^:]*]]: tensor<16x64xf32>, %[[W2S:[^:]*]]: tensor<16x16xf32>, %[[X:[^:]*]]: tensor<8x64xbf16>, %[[DL:[^:]*]]: tensor<f32>)
// CHECK-SAME:    -> (tensor<16x64xf32>, tensor<16x16xf32>, tensor<8x64xbf16>)
// CHECK-DAG:     %[[W1:.*]] = prec.all_gather %[[W1S]] on @dp4 gather_axis = 0 forward_dtype = bf16 backward_dtype = f32
// CHECK-DAG:     %[[W2:.*]] = prec.all_gather %[[W2S]] on @dp4 gather_axis = 0 forward_dtype = bf16 backward_dtype = f32
// CHECK:         linalg.broadcast
// CHECK:         %[[DW2:.*]] = prec.cast %{{.*}} : tensor<64x16xf32> to tensor<64x16xbf16>
// CHECK:         %[[DW2S:.*]] = prec.reduce_scatter %[[DW2]] on @dp4 scatter_axis = 0 reduction = <avg> forward_dtype = f32 backward_dtype = bf16 : tensor<64x16xbf16> -> tensor<16x16xf32>
// CHECK:         %[[DW1:.*]] = prec.cast %{{.*}} : tensor<64x64xf32> to tensor<64x64xbf16>
// CHECK:         %[[DW1S:.*]] = prec.reduce_scatter %[[DW1]] on @dp4 scatter_axis = 0 reduction = <avg> forward_dtype = f32 backward_dtype = bf16 : tensor<64x64xbf16> -> tensor<16x64xf32>
// CHECK:         %[[DX:.*]] = prec.cast %{{.*}} : tensor<8x64xf32> to tensor<8x64xbf16>
// CHECK:         return %[[DW1S]], %[[DW2S]], %[[DX]]
func.func @mlp(%w1_shard: tensor<16x64xf32>, %w2_shard: tensor<16x16xf32>,
               %x: tensor<8x64xbf16>) -> tensor<f32> attributes {prec.differentiable} {
  %w1 = prec.all_gather %w1_shard on @dp4 gather_axis = 0
          forward_dtype = bf16 backward_dtype = f32
          : tensor<16x64xf32> -> tensor<64x64xbf16>
  %w2 = prec.all_gather %w2_shard on @dp4 gather_axis = 0
          forward_dtype = bf16 backward_dtype = f32
          : tensor<16x16xf32> -> tensor<64x16xbf16>
  %zero = arith.constant 0.0 : f32
  %h_init = tensor.empty() : tensor<8x64xf32>
  %h_acc0 = linalg.fill ins(%zero : f32) outs(%h_init : tensor<8x64xf32>) -> tensor<8x64xf32>
  %h_acc = linalg.matmul ins(%x, %w1 : tensor<8x64xbf16>, tensor<64x64xbf16>)
                         outs(%h_acc0 : tensor<8x64xf32>) -> tensor<8x64xf32>
  %h = prec.cast %h_acc : tensor<8x64xf32> to tensor<8x64xbf16>
  %y_init = tensor.empty() : tensor<8x16xf32>
  %y_acc0 = linalg.fill ins(%zero : f32) outs(%y_init : tensor<8x16xf32>) -> tensor<8x16xf32>
  %y = linalg.matmul ins(%h, %w2 : tensor<8x64xbf16>, tensor<64x16xbf16>)
                     outs(%y_acc0 : tensor<8x16xf32>) -> tensor<8x16xf32>
  %loss = prec.reduce %y dims = [0, 1] reduction = <avg> : tensor<8x16xf32> -> tensor<f32>
  return %loss : tensor<f32>
}

//===----------------------------------------------------------------------===//
// Selection
//===----------------------------------------------------------------------===//

// Ops that no gradient reaches need no rule, and what the gradients do not
// use is not recomputed.
// CHECK-LABEL: func.func @off_path_backward(
// CHECK-SAME:    %{{[^:]*}}: tensor<4xf32>, %[[DY:[^:]*]]: tensor<4xf32>)
// CHECK-NEXT:    return %[[DY]]
func.func @off_path(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xi32>)
    attributes {prec.differentiable} {
  %e = math.exp %x : tensor<4xf32>
  %i = arith.fptosi %e : tensor<4xf32> to tensor<4xi32>
  return %x, %i : tensor<4xf32>, tensor<4xi32>
}

// An argument marked prec.no_grad (a mask, a target) gets no gradient: the
// backward function has no result for it.
// CHECK-LABEL: func.func @masked_backward(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<4xf32>, %[[M:[^:]*]]: tensor<4xf32>, %[[DY:[^:]*]]: tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    %[[DX:.*]] = arith.mulf %[[DY]], %[[M]]
// CHECK-NEXT:    return %[[DX]] : tensor<4xf32>
func.func @masked(%x: tensor<4xf32>, %m: tensor<4xf32> {prec.no_grad}) -> tensor<4xf32>
    attributes {prec.differentiable} {
  %y = arith.mulf %x, %m : tensor<4xf32>
  return %y : tensor<4xf32>
}

// A bounds check in a body (as PyTorch exports gathers) may run again in
// the backward function (its gradient recomputes the body); the recomputed
// forward op, which no gradient needs, is dropped.
// CHECK-LABEL: func.func @checked_backward(
// CHECK-NOT:     linalg.generic
// CHECK:         arith.negf
// CHECK:         %[[G:.*]] = linalg.generic
// CHECK:           cf.assert
// CHECK:           math.exp
// CHECK:         return %[[G]]
func.func @checked(%x: tensor<4xf32>, %ids: tensor<4xi64>) -> tensor<4xf32>
    attributes {prec.differentiable} {
  %c4 = arith.constant 4 : i64
  %empty = tensor.empty() : tensor<4xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                       iterator_types = ["parallel"]}
      ins(%x, %ids : tensor<4xf32>, tensor<4xi64>) outs(%empty : tensor<4xf32>) {
  ^bb0(%in: f32, %id: i64, %out: f32):
    %lt = arith.cmpi slt, %id, %c4 : i64
    cf.assert %lt, "index must be smaller than dim size"
    %e = math.exp %in : f32
    linalg.yield %e : f32
  } -> tensor<4xf32>
  %n = arith.negf %y : tensor<4xf32>
  return %n : tensor<4xf32>
}

// Without prec.differentiable, a function is differentiated only when named.
// CHECK-LABEL: func.func @plain(
// CHECK-NOT:   @plain_backward
// NAMED-NOT:   _backward
// NAMED-LABEL: func.func @plain_backward(
// NAMED-SAME:    %{{[^:]*}}: tensor<4xf32>, %[[DY:[^:]*]]: tensor<4xf32>) -> tensor<4xf32>
// NAMED-NEXT:    %[[DX:.*]] = arith.negf %[[DY]]
// NAMED-NEXT:    return %[[DX]]
// NAMED-NOT:   _backward
func.func @plain(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = arith.negf %x : tensor<4xf32>
  return %y : tensor<4xf32>
}

// The gradient of an average over 131072 f16 values divides in f32: the
// count is +inf in f16.
// CHECK-LABEL: func.func @mean_of_many_backward
// CHECK: %[[WIDE:.*]] = arith.extf %{{.*}} : tensor<f16> to tensor<f32>
// CHECK: %[[COUNT:.*]] = arith.constant dense<1.310720e+05> : tensor<f32>
// CHECK: %[[MEAN:.*]] = arith.divf %[[WIDE]], %[[COUNT]] : tensor<f32>
// CHECK: arith.truncf %[[MEAN]] : tensor<f32> to tensor<f16>
func.func @mean_of_many(%x: tensor<131072xf16>) -> tensor<f16> attributes {prec.differentiable} {
  %0 = prec.reduce %x dims = [0] reduction = <avg> : tensor<131072xf16> -> tensor<f16>
  return %0 : tensor<f16>
}

// A linalg.generic with an elementwise body and a broadcast operand: one
// generic recomputes the body and yields the adjoints, in f32 for bf16, of
// every operand at every iteration point (tanh' = 1 - tanh^2 from the rule
// table); the bias's is summed over the dimension its map drops, and both
// are rounded once to bf16.
// CHECK-LABEL: func.func @bias_tanh_backward(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<2x3xbf16>, %[[B:[^:]*]]: tensor<3xbf16>, %[[DY:[^:]*]]: tensor<2x3xbf16>)
// CHECK:         %[[ADJ:.*]]:2 = linalg.generic
// CHECK-SAME:      iterator_types = ["parallel", "parallel"]
// CHECK-SAME:      ins(%[[X]], %[[B]], %{{.*}}, %[[DY]] :
// CHECK-SAME:      outs(%{{.*}}, %{{.*}} : tensor<2x3xf32>, tensor<2x3xf32>)
// CHECK:           %[[S:.*]] = arith.addf
// CHECK:           %[[T:.*]] = math.tanh %[[S]] : bf16
// CHECK:           %[[G:.*]] = arith.extf %{{.*}} : bf16 to f32
// CHECK:           arith.mulf
// CHECK:           arith.subf
// CHECK:           %[[D:.*]] = arith.mulf %[[G]], %{{.*}} : f32
// CHECK:           linalg.yield %[[D]], %[[D]] : f32, f32
// CHECK:         %[[DB:.*]] = linalg.generic
// CHECK-SAME:      iterator_types = ["reduction", "parallel"]
// CHECK-SAME:      ins(%[[ADJ]]#1 : tensor<2x3xf32>)
// CHECK:           arith.addf
// CHECK:         %[[DX:.*]] = prec.cast %[[ADJ]]#0 : tensor<2x3xf32> to tensor<2x3xbf16>
// CHECK:         %[[DBR:.*]] = prec.cast %[[DB]] : tensor<3xf32> to tensor<3xbf16>
// CHECK:         return %[[DX]], %[[DBR]]
func.func @bias_tanh(%x: tensor<2x3xbf16>, %b: tensor<3xbf16>) -> tensor<2x3xbf16>
    attributes {prec.differentiable} {
  %empty = tensor.empty() : tensor<2x3xbf16>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>,
                                        affine_map<(d0, d1) -> (d0, d1)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%x, %b : tensor<2x3xbf16>, tensor<3xbf16>) outs(%empty : tensor<2x3xbf16>) {
  ^bb0(%in: bf16, %bias: bf16, %out: bf16):
    %s = arith.addf %in, %bias : bf16
    %t = math.tanh %s : bf16
    linalg.yield %t : bf16
  } -> tensor<2x3xbf16>
  return %y : tensor<2x3xbf16>
}

// prec.grad_dtype on a gathered bf16 weight: its gradient stays f32 (the
// matmul's accumulator) into the f32 reduce-scatter, never rounded to bf16.
// CHECK-LABEL: func.func @gathered_grad_dtype_backward(
// CHECK-NOT:     prec.cast {{.*}} to tensor<8x4xbf16>
// CHECK:         prec.reduce_scatter %{{.*}} : tensor<8x4xf32> -> tensor<2x4xf32>
func.func @gathered_grad_dtype(%w_shard: tensor<2x4xf32>, %x: tensor<3x8xbf16>) -> tensor<3x4xf32>
    attributes {prec.differentiable} {
  %w = prec.all_gather %w_shard on @dp4 gather_axis = 0 forward_dtype = bf16 backward_dtype = f32
         {prec.grad_dtype = f32} : tensor<2x4xf32> -> tensor<8x4xbf16>
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<3x4xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<3x4xf32>) -> tensor<3x4xf32>
  %y = linalg.matmul ins(%x, %w : tensor<3x8xbf16>, tensor<8x4xbf16>) outs(%init : tensor<3x4xf32>) -> tensor<3x4xf32>
  return %y : tensor<3x4xf32>
}

// tensor.cast (which shard-partition leaves next to its collectives): the
// gradient is cast back to the operand's type.
// CHECK-LABEL: func.func @cast_shape_backward(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<4xf32>, %[[DY:[^:]*]]: tensor<?xf32>
// CHECK:         %[[DX:.*]] = tensor.cast %[[DY]] : tensor<?xf32> to tensor<4xf32>
// CHECK:         return %[[DX]]
func.func @cast_shape(%x: tensor<4xf32>) -> tensor<?xf32>
    attributes {prec.differentiable} {
  %y = tensor.cast %x : tensor<4xf32> to tensor<?xf32>
  return %y : tensor<?xf32>
}

// A complex input that does not depend on the arguments (rotary
// frequencies) needs no gradient: its real part scales x, and only x's
// gradient is taken (complex.re has no rule, and none is needed).
// CHECK-LABEL: func.func @constant_complex_backward(
// CHECK:         linalg.generic
// CHECK:           %[[RE:.*]] = complex.re
// CHECK:           arith.mulf %{{.*}}, %[[RE]]
func.func @constant_complex(%x: tensor<4xf32>, %freqs: tensor<4xcomplex<f32>>) -> tensor<4xf32>
    attributes {prec.differentiable} {
  %empty = tensor.empty() : tensor<4xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                       iterator_types = ["parallel"]}
      ins(%x, %freqs : tensor<4xf32>, tensor<4xcomplex<f32>>) outs(%empty : tensor<4xf32>) {
  ^bb0(%in: f32, %f: complex<f32>, %out: f32):
    %re = complex.re %f : complex<f32>
    %m = arith.mulf %in, %re : f32
    linalg.yield %m : f32
  } -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// A gather (an embedding: row ids[t], column d of the table) gets a
// scatter-add: zeros, then a loop nest over the op's points in their order
// that adds each point's adjoint into the element it read, skipping an
// index outside the table (`ult`: negative ones too). No comparison with
// every row of the table.
// CHECK-LABEL: func.func @embedding_backward(
// CHECK-SAME:    %{{[^:]*}}: tensor<8x4xf32>, %{{[^:]*}}: tensor<6xi64>, %[[DY:[^:]*]]: tensor<6x4xf32>) -> tensor<8x4xf32>
// CHECK-NOT:     "reduction"
// CHECK:         %[[ADJ:.*]]:2 = linalg.generic
// CHECK:           linalg.yield %{{.*}}, %{{.*}} : f32, index
// CHECK:         %[[ZEROS:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<8x4xf32>)
// CHECK-DAG:     %[[C6:.*]] = arith.constant 6 : index
// CHECK-DAG:     %[[C4:.*]] = arith.constant 4 : index
// CHECK-DAG:     %[[C8:.*]] = arith.constant 8 : index
// CHECK:         %[[G:.*]] = scf.for %[[T:.*]] = %{{.*}} to %[[C6]] step %{{.*}} iter_args(%[[A:.*]] = %[[ZEROS]]) -> (tensor<8x4xf32>)
// CHECK:           %[[INNER:.*]] = scf.for %[[D:.*]] = %{{.*}} to %[[C4]] step %{{.*}} iter_args(%[[B:.*]] = %[[A]]) -> (tensor<8x4xf32>)
// CHECK:             %[[I:.*]] = tensor.extract %[[ADJ]]#1[%[[T]], %[[D]]] : tensor<6x4xindex>
// CHECK:             %[[IN:.*]] = arith.cmpi ult, %[[I]], %[[C8]] : index
// CHECK:             %[[NEXT:.*]] = scf.if %[[IN]] -> (tensor<8x4xf32>)
// CHECK:               %[[OLD:.*]] = tensor.extract %[[B]][%[[I]], %[[D]]] : tensor<8x4xf32>
// CHECK:               %[[X:.*]] = tensor.extract %[[ADJ]]#0[%[[T]], %[[D]]] : tensor<6x4xf32>
// CHECK:               %[[NEW:.*]] = arith.addf %[[OLD]], %[[X]] : f32
// CHECK:               %[[SET:.*]] = tensor.insert %[[NEW]] into %[[B]][%[[I]], %[[D]]] : tensor<8x4xf32>
// CHECK:               scf.yield %[[SET]]
// CHECK:             } else {
// CHECK:               scf.yield %[[B]]
// CHECK:             scf.yield %[[NEXT]]
// CHECK:           scf.yield %[[INNER]]
// CHECK-NOT:     "reduction"
// CHECK:         return %[[G]]
func.func @embedding(%w: tensor<8x4xf32>, %ids: tensor<6xi64>) -> tensor<6x4xf32>
    attributes {prec.differentiable} {
  %e = tensor.empty() : tensor<6x4xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%ids : tensor<6xi64>) outs(%e : tensor<6x4xf32>) {
  ^bb0(%in: i64, %out: f32):
    %i = arith.index_cast %in : i64 to index
    %j = linalg.index 1 : index
    %v = tensor.extract %w[%i, %j] : tensor<8x4xf32>
    linalg.yield %v : f32
  } -> tensor<6x4xf32>
  return %y : tensor<6x4xf32>
}

// Two data-dependent indices into a table of dynamic extent: both are
// checked, against the table's size (tensor.dim) and its static extent.
// The loop d1, which does not index the table, is a loop of the nest too.
// CHECK-LABEL: func.func @pair_gather_backward(
// CHECK-SAME:    %[[W:[^:]*]]: tensor<?x3xf32>
// CHECK:         %[[ADJ:.*]]:3 = linalg.generic
// CHECK:         %[[ZEROS:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<?x3xf32>)
// CHECK-DAG:     %[[ROWS:.*]] = tensor.dim %[[W]], %{{.*}} : tensor<?x3xf32>
// CHECK-DAG:     %[[C3:.*]] = arith.constant 3 : index
// CHECK:         %[[G:.*]] = scf.for %[[T:.*]] = {{.*}} iter_args(%[[A:.*]] = %[[ZEROS]]) -> (tensor<?x3xf32>)
// CHECK:           scf.for %[[K:.*]] = {{.*}} iter_args(%[[B:.*]] = %[[A]]) -> (tensor<?x3xf32>)
// CHECK:             %[[I:.*]] = tensor.extract %[[ADJ]]#1[%[[T]], %[[K]]]
// CHECK:             %[[IIN:.*]] = arith.cmpi ult, %[[I]], %[[ROWS]] : index
// CHECK:             %[[J:.*]] = tensor.extract %[[ADJ]]#2[%[[T]], %[[K]]]
// CHECK:             %[[JIN:.*]] = arith.cmpi ult, %[[J]], %[[C3]] : index
// CHECK:             %[[IN:.*]] = arith.andi %[[IIN]], %[[JIN]] : i1
// CHECK:             scf.if %[[IN]] -> (tensor<?x3xf32>)
// CHECK:               tensor.extract %[[B]][%[[I]], %[[J]]]
// CHECK:               tensor.insert %{{.*}} into %[[B]][%[[I]], %[[J]]]
// CHECK:         return %[[G]]
func.func @pair_gather(%w: tensor<?x3xf32>, %rows: tensor<6xi64>, %cols: tensor<6xi64>) -> tensor<6x2xf32>
    attributes {prec.differentiable} {
  %e = tensor.empty() : tensor<6x2xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>,
                                        affine_map<(d0, d1) -> (d0, d1)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%rows, %cols : tensor<6xi64>, tensor<6xi64>) outs(%e : tensor<6x2xf32>) {
  ^bb0(%r: i64, %c: i64, %out: f32):
    %i = arith.index_cast %r : i64 to index
    %j = arith.index_cast %c : i64 to index
    %v = tensor.extract %w[%i, %j] : tensor<?x3xf32>
    linalg.yield %v : f32
  } -> tensor<6x2xf32>
  return %y : tensor<6x2xf32>
}
