// RUN: prec-opt %s --prec-materialize-scales -split-input-file -verify-diagnostics | FileCheck %s --enable-var-scope

shard.grid @dp(shape = 4)

// Two dynamically scaled gathers over one group: one all_reduce(max) of
// both amaxes before the first, a scale and the quantized shard each (all
// before the first gather, so that bucketing can merge the fp8 gathers),
// then each gather moves the fp8 bytes and dequantizes. The bf16 gather is
// left alone.
// CHECK-LABEL: func @batched
// CHECK-SAME: (%[[A:.*]]: tensor<2x8xf32>, %[[B:.*]]: tensor<4xbf16>, %[[C:.*]]: tensor<1x8xf32>)
// CHECK: %[[AA:.*]] = prec.amax %[[A]] : tensor<2x8xf32> -> tensor<f32>
// CHECK: %[[AE:.*]] = tensor.expand_shape %[[AA]] [] output_shape [1]
// CHECK: %[[P0:.*]] = tensor.insert_slice %[[AE]] into %{{.*}}[0] [1] [1] : tensor<1xf32> into tensor<2xf32>
// CHECK: %[[CA:.*]] = prec.amax %[[C]] : tensor<1x8xf32> -> tensor<f32>
// CHECK: %[[CE:.*]] = tensor.expand_shape %[[CA]] [] output_shape [1]
// CHECK: %[[P:.*]] = tensor.insert_slice %[[CE]] into %[[P0]][1] [1] [1] : tensor<1xf32> into tensor<2xf32>
// CHECK: %[[M:.*]] = prec.all_reduce %[[P]] on @dp reduction = <max> forward_dtype = f32 backward_dtype = f32 acc_dtype = f32 : tensor<2xf32> -> tensor<2xf32>
// CHECK: %[[M0:.*]] = tensor.extract_slice %[[M]][0] [1] [1] : tensor<2xf32> to tensor<1xf32>
// CHECK: %[[T0:.*]] = tensor.collapse_shape %[[M0]] [] : tensor<1xf32> into tensor<f32>
// CHECK: %[[S0:.*]] = prec.scale_from_amax %[[T0]] element_type = f8E4M3FN
// CHECK: %[[Q0:.*]] = prec.quantize %[[A]] scale %[[S0]] scaling = <dynamic> : tensor<2x8xf32>, tensor<f32> -> tensor<2x8xf8E4M3FN>
// CHECK: %[[S1:.*]] = prec.scale_from_amax %{{.*}} element_type = f8E5M2
// CHECK: %[[Q1:.*]] = prec.quantize %[[C]] scale %[[S1]]
// CHECK: %[[G0:.*]] = prec.all_gather %[[Q0]] on @dp gather_axis = 0 : tensor<2x8xf8E4M3FN> -> tensor<8x8xf8E4M3FN>
// CHECK: prec.dequantize %[[G0]] scale %[[S0]] scaling = <dynamic> : tensor<8x8xf8E4M3FN>, tensor<f32> -> tensor<8x8xbf16>
// CHECK: prec.all_gather %[[B]] on @dp gather_axis = 0 forward_dtype = bf16
// CHECK: prec.all_gather %[[Q1]] on @dp gather_axis = 0 : tensor<1x8xf8E5M2> -> tensor<4x8xf8E5M2>
// CHECK-NOT: prec.all_reduce
func.func @batched(%a: tensor<2x8xf32>, %b: tensor<4xbf16>, %c: tensor<1x8xf32>)
    -> (tensor<8x8xbf16>, tensor<16xbf16>, tensor<4x8xf32>) {
  %0 = prec.all_gather %a on @dp gather_axis = 0 forward_dtype = f8E4M3FN
         scaling = <dynamic> : tensor<2x8xf32> -> tensor<8x8xbf16>
  %1 = prec.all_gather %b on @dp gather_axis = 0 forward_dtype = bf16
         : tensor<4xbf16> -> tensor<16xbf16>
  %2 = prec.all_gather %c on @dp gather_axis = 0 forward_dtype = f8E5M2
         scaling = <dynamic> : tensor<1x8xf32> -> tensor<4x8xf32>
  return %0, %1, %2 : tensor<8x8xbf16>, tensor<16xbf16>, tensor<4x8xf32>
}

// -----

shard.grid @dp(shape = 4)

// A gather whose input is computed after the first gather starts its own
// batch: its amax cannot be known before it.
// CHECK-LABEL: func @dependent
// CHECK: prec.all_reduce %{{.*}} reduction = <max> {{.*}} : tensor<1xf32> -> tensor<1xf32>
// CHECK: prec.all_gather %{{.*}} : tensor<2x8xf8E4M3FN> -> tensor<8x8xf8E4M3FN>
// CHECK: prec.dequantize
// CHECK: %[[X:.*]] = prec.cast
// CHECK: %[[XA:.*]] = prec.amax %[[X]]
// CHECK: prec.all_reduce %{{.*}} reduction = <max> {{.*}} : tensor<1xf32> -> tensor<1xf32>
func.func @dependent(%a: tensor<2x8xf32>) -> (tensor<8x8xf32>, tensor<8x8xf32>) {
  %0 = prec.all_gather %a on @dp gather_axis = 0 forward_dtype = f8E4M3FN
         scaling = <dynamic> : tensor<2x8xf32> -> tensor<8x8xf32>
  %x = prec.cast %a : tensor<2x8xf32> to tensor<2x8xbf16>
  %1 = prec.all_gather %x on @dp gather_axis = 0 forward_dtype = f8E4M3FN
         scaling = <dynamic> : tensor<2x8xbf16> -> tensor<8x8xf32>
  return %0, %1 : tensor<8x8xf32>, tensor<8x8xf32>
}

// -----

shard.grid @dp(shape = 2)

// Block scales: per-block amaxes and E8M0 scales on each rank, gathered with
// the data.
// CHECK-LABEL: func @block_gather
// CHECK: %[[A:.*]] = prec.amax %{{.*}} block_size = 32 : tensor<2x64xf32> -> tensor<2x2xf32>
// CHECK: %[[S:.*]] = prec.scale_from_amax %[[A]] element_type = f8E4M3FN : tensor<2x2xf32> -> tensor<2x2xf8E8M0FNU>
// CHECK: %[[Q:.*]] = prec.quantize %{{.*}} scale %[[S]] scaling = <block, block_size = 32>
// CHECK: %[[G:.*]] = prec.all_gather %[[Q]] on @dp gather_axis = 1 : tensor<2x64xf8E4M3FN> -> tensor<2x128xf8E4M3FN>
// CHECK: %[[GS:.*]] = prec.all_gather %[[S]] on @dp gather_axis = 1 : tensor<2x2xf8E8M0FNU> -> tensor<2x4xf8E8M0FNU>
// CHECK: prec.dequantize %[[G]] scale %[[GS]] scaling = <block, block_size = 32> : tensor<2x128xf8E4M3FN>, tensor<2x4xf8E8M0FNU> -> tensor<2x128xf32>
// CHECK-NOT: prec.all_reduce
func.func @block_gather(%w: tensor<2x64xf32>) -> tensor<2x128xf32> {
  %0 = prec.all_gather %w on @dp gather_axis = 1 forward_dtype = f8E4M3FN
         scaling = <block, block_size = 32> : tensor<2x64xf32> -> tensor<2x128xf32>
  return %0 : tensor<2x128xf32>
}

// -----

shard.grid @dp(shape = 2)

// A reduce_scatter sends each rank's own scale with its data and sums the
// dequantized terms in f32 over the source rank, innermost.
// CHECK-DAG: #[[$TERMS:.*]] = affine_map<(d0, d1) -> (d1, d0)>
// CHECK-DAG: #[[$SENDER:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func @reduce_scatter
// CHECK: %[[S:.*]] = prec.scale_from_amax %{{.*}} element_type = f8E5M2
// CHECK: %[[Q:.*]] = prec.quantize %{{.*}} scale %[[S]]
// CHECK: %[[SS:.*]] = tensor.expand_shape %[[S]] [] output_shape [1] : tensor<f32> into tensor<1xf32>
// CHECK: %[[GS:.*]] = prec.all_gather %[[SS]] on @dp gather_axis = 0 : tensor<1xf32> -> tensor<2xf32>
// CHECK: %[[QQ:.*]] = tensor.expand_shape %[[Q]]
// CHECK: %[[X:.*]] = prec.all_to_all %[[QQ]] on @dp split_axis = 1 concat_axis = 0 : tensor<1x8xf8E5M2> -> tensor<2x4xf8E5M2>
// CHECK: linalg.generic {indexing_maps = [#[[$TERMS]], #[[$SENDER]], #{{.*}}], iterator_types = ["parallel", "reduction"]} ins(%[[X]], %[[GS]] : tensor<2x4xf8E5M2>, tensor<2xf32>)
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: linalg.generic
// CHECK: arith.divf
func.func @reduce_scatter(%g: tensor<8xf32>) -> tensor<4xf32> {
  %0 = prec.reduce_scatter %g on @dp scatter_axis = 0 reduction = <avg>
         forward_dtype = f8E5M2 scaling = <dynamic> acc_dtype = f32
         : tensor<8xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

shard.grid @dp(shape = 4)

// A gather whose stochastic rounding seed is computed after the first
// gather starts its own batch, as one whose input is.
// CHECK-LABEL: func @late_seed
// CHECK: prec.all_reduce %{{.*}} reduction = <max> {{.*}} : tensor<1xf32> -> tensor<1xf32>
// CHECK: %[[SEED:.*]] = arith.addi
// CHECK: prec.all_reduce %{{.*}} reduction = <max> {{.*}} : tensor<1xf32> -> tensor<1xf32>
// CHECK: prec.quantize %{{.*}} rounding = <stochastic> seed %{{.*}}
func.func @late_seed(%a: tensor<2x8xf32>, %s: i64) -> (tensor<8x8xf32>, tensor<8x8xf32>) {
  %0 = prec.all_gather %a on @dp gather_axis = 0 forward_dtype = f8E4M3FN
         scaling = <dynamic> : tensor<2x8xf32> -> tensor<8x8xf32>
  %c = arith.constant 1 : i64
  %s2 = arith.addi %s, %c : i64
  %1 = prec.all_gather %a on @dp gather_axis = 0 forward_dtype = f8E4M3FN
         rounding = <stochastic> seed %s2 scaling = <dynamic>
         : tensor<2x8xf32> -> tensor<8x8xf32>
  return %0, %1 : tensor<8x8xf32>, tensor<8x8xf32>
}
