// RUN: prec-opt %s --prec-decompose-collectives -split-input-file -verify-diagnostics | FileCheck %s --enable-var-scope

// CHECK-DAG: #[[$ID2:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[$PERM:.*]] = affine_map<(d0, d1, d2) -> (d1, d0, d2)>

shard.grid @dp(shape = 4)

// bf16 on the wire, f32 accumulation: the direct algorithm. Chunks are
// exchanged (all_to_all) and summed in f32 by the unpack kernel; the
// backend never adds bf16 partial sums. The unpack kernel reads each
// element's terms from the chunks of the 4 source ranks, sums them in rank
// order and divides, in one pass.
// CHECK-LABEL: func @direct_reduce_scatter
// CHECK-SAME: (%[[G:.*]]: tensor<8x4xf32>)
// CHECK: %[[E:.*]] = tensor.expand_shape %[[G]] {{\[\[}}0, 1], [2]] output_shape [4, 2, 4]
// CHECK: %[[P:.*]] = linalg.generic {{.*}} ins(%[[E]] : tensor<4x2x4xf32>) outs(%{{.*}} : tensor<4x2x4xbf16>)
// CHECK:   arith.truncf %{{.*}} : f32 to bf16
// CHECK: %[[F:.*]] = tensor.collapse_shape %[[P]] {{\[\[}}0, 1, 2]] : tensor<4x2x4xbf16> into tensor<32xbf16>
// CHECK: %[[X:.*]] = prec.transport <all_to_all> %[[F]] on @dp : tensor<32xbf16> -> tensor<32xbf16>
// CHECK: %[[R:.*]] = tensor.expand_shape %[[X]] {{.*}} into tensor<4x2x4xbf16>
// CHECK: %[[C0:.*]] = tensor.extract_slice %[[R]][0, 0, 0] [1, 2, 4] [1, 1, 1] : tensor<4x2x4xbf16> to tensor<2x4xbf16>
// CHECK: %[[C1:.*]] = tensor.extract_slice %[[R]][1, 0, 0] [1, 2, 4] [1, 1, 1]
// CHECK: %[[C2:.*]] = tensor.extract_slice %[[R]][2, 0, 0] [1, 2, 4] [1, 1, 1]
// CHECK: %[[C3:.*]] = tensor.extract_slice %[[R]][3, 0, 0] [1, 2, 4] [1, 1, 1]
// CHECK: %[[U:.*]] = linalg.generic {indexing_maps = [#[[$ID2]], #[[$ID2]], #[[$ID2]], #[[$ID2]], #[[$ID2]]], iterator_types = ["parallel", "parallel"]} ins(%[[C0]], %[[C1]], %[[C2]], %[[C3]] : {{.*}}) outs(%{{.*}} : tensor<2x4xf32>)
// CHECK-NEXT: ^bb0(%[[T0:.*]]: bf16, %[[T1:.*]]: bf16, %[[T2:.*]]: bf16, %[[T3:.*]]: bf16, %{{.*}}: f32):
// CHECK-NEXT:   %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:   %[[X0:.*]] = arith.extf %[[T0]] : bf16 to f32
// CHECK-NEXT:   %[[S0:.*]] = arith.addf %[[ZERO]], %[[X0]] : f32
// CHECK-NEXT:   %[[X1:.*]] = arith.extf %[[T1]] : bf16 to f32
// CHECK-NEXT:   %[[S1:.*]] = arith.addf %[[S0]], %[[X1]] : f32
// CHECK-NEXT:   %[[X2:.*]] = arith.extf %[[T2]] : bf16 to f32
// CHECK-NEXT:   %[[S2:.*]] = arith.addf %[[S1]], %[[X2]] : f32
// CHECK-NEXT:   %[[X3:.*]] = arith.extf %[[T3]] : bf16 to f32
// CHECK-NEXT:   %[[S3:.*]] = arith.addf %[[S2]], %[[X3]] : f32
// CHECK-NEXT:   %[[FOUR:.*]] = arith.constant 4.000000e+00 : f32
// CHECK-NEXT:   %[[AVG:.*]] = arith.divf %[[S3]], %[[FOUR]] : f32
// CHECK-NEXT:   linalg.yield %[[AVG]] : f32
// CHECK: return %[[U]]
// CHECK-NOT: prec.reduce_scatter
func.func @direct_reduce_scatter(%g: tensor<8x4xf32>) -> tensor<2x4xf32> {
  %0 = prec.reduce_scatter %g on @dp scatter_axis = 0 reduction = <avg>
         forward_dtype = bf16 acc_dtype = f32 : tensor<8x4xf32> -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// acc_dtype == forward_dtype: the contract allows the backend's reduction.
// CHECK-LABEL: func @wire_reduce_scatter
// CHECK: prec.transport <reduce_scatter> %{{.*}} on @dp reduction = <sum> : tensor<32xbf16> -> tensor<8xbf16>
// CHECK-NOT: "reduction"]
func.func @wire_reduce_scatter(%g: tensor<8x4xf32>) -> tensor<2x4xf32> {
  %0 = prec.reduce_scatter %g on @dp scatter_axis = 0 forward_dtype = bf16 acc_dtype = bf16
         : tensor<8x4xf32> -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// Gathering along dimension 1 of f32 values: no conversion, but the unpack
// kernel places each rank's chunk.
// CHECK-LABEL: func @gather_inner_dim
// CHECK: %[[G:.*]] = prec.transport <all_gather> %{{.*}} : tensor<6xf32> -> tensor<24xf32>
// CHECK: %[[E:.*]] = tensor.expand_shape %[[G]] {{.*}} into tensor<4x2x3xf32>
// CHECK: %[[U:.*]] = linalg.generic {indexing_maps = [#[[$PERM]], #{{.*}}], {{.*}} ins(%[[E]] : tensor<4x2x3xf32>) outs(%{{.*}} : tensor<2x4x3xf32>)
// CHECK: tensor.collapse_shape %[[U]] {{\[\[}}0], [1, 2]] : tensor<2x4x3xf32> into tensor<2x12xf32>
func.func @gather_inner_dim(%w: tensor<2x3xf32>) -> tensor<2x12xf32> {
  %0 = prec.all_gather %w on @dp gather_axis = 1 : tensor<2x3xf32> -> tensor<2x12xf32>
  return %0 : tensor<2x12xf32>
}

// Scattering along dimension 1: the pack kernel moves each rank's chunk to
// the front.
// CHECK-LABEL: func @scatter_inner_dim
// CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0], [1, 2]] output_shape [2, 4, 3] : tensor<2x12xf32> into tensor<2x4x3xf32>
// CHECK: linalg.generic {indexing_maps = [#[[$PERM]], #{{.*}}], {{.*}} outs(%{{.*}} : tensor<4x2x3xf32>)
func.func @scatter_inner_dim(%g: tensor<2x12xf32>) -> tensor<2x3xf32> {
  %0 = prec.reduce_scatter %g on @dp scatter_axis = 1 : tensor<2x12xf32> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// all_gather: cast on the sending side; gathered along dimension 0 the
// received buffer already has the result's layout.
// CHECK-LABEL: func @gather
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<2x4xbf16>)
// CHECK: %[[G:.*]] = prec.transport <all_gather> %{{.*}} on @dp : tensor<8xbf16> -> tensor<32xbf16>
// CHECK: %[[R:.*]] = tensor.expand_shape %[[G]] {{\[\[}}0, 1]] output_shape [8, 4] : tensor<32xbf16> into tensor<8x4xbf16>
// CHECK-NOT: linalg.generic
// CHECK: return %[[R]]
func.func @gather(%w: tensor<2x4xf32>) -> tensor<8x4xbf16> {
  %0 = prec.all_gather %w on @dp gather_axis = 0 forward_dtype = bf16
         : tensor<2x4xf32> -> tensor<8x4xbf16>
  return %0 : tensor<8x4xbf16>
}

// all_reduce with f32 accumulation of bf16 values: a direct reduce-scatter
// (all-to-all of the wire chunks, each slice summed in f32 and rounded once
// to bf16), then an all-gather of the slices; no whole buffer is gathered.
// CHECK-LABEL: func @direct_all_reduce
// CHECK-SAME: (%[[X:.*]]: tensor<8xbf16>)
// CHECK: %[[EX:.*]] = prec.transport <all_to_all> %[[X]] on @dp : tensor<8xbf16> -> tensor<8xbf16>
// CHECK: %[[CHUNKS:.*]] = tensor.expand_shape %[[EX]] {{\[}}[0, 1]] output_shape [4, 2]
// CHECK: %[[SUM:.*]] = linalg.generic {{.*}} iterator_types = ["parallel"]} ins(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : tensor<2xbf16>, tensor<2xbf16>, tensor<2xbf16>, tensor<2xbf16>) outs(%{{.*}} : tensor<2xbf16>)
// CHECK-COUNT-4: arith.addf
// CHECK: arith.truncf %{{.*}} : f32 to bf16
// CHECK: %[[ALL:.*]] = prec.transport <all_gather> %[[SUM]] on @dp : tensor<2xbf16> -> tensor<8xbf16>
// CHECK-NOT: prec.transport
// CHECK: return %[[ALL]]
func.func @direct_all_reduce(%x: tensor<8xbf16>) -> tensor<8xbf16> {
  %0 = prec.all_reduce %x on @dp : tensor<8xbf16> -> tensor<8xbf16>
  return %0 : tensor<8xbf16>
}

// Explicit divisors (from prec-divide-factors) go to the pack and unpack
// kernels.
// CHECK-LABEL: func @divisors
// CHECK: linalg.generic
// CHECK:   arith.constant 2.000000e+00 : f32
// CHECK:   arith.divf
// CHECK:   arith.truncf %{{.*}} : f32 to f16
// CHECK: prec.transport <all_reduce> %{{.*}} reduction = <sum> : tensor<8xf16> -> tensor<8xf16>
// CHECK: linalg.generic
// CHECK:   arith.extf %{{.*}} : f16 to f32
// CHECK:   arith.constant 2.000000e+00 : f32
// CHECK:   arith.divf
func.func @divisors(%x: tensor<8xf32>) -> tensor<8xf32> {
  %0 = prec.all_reduce %x on @dp forward_dtype = f16 acc_dtype = f16
         {pre_divisor = 2.0 : f64, post_divisor = 2.0 : f64} : tensor<8xf32> -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

shard.grid @dyn(shape = ?)
func.func @dynamic_group(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{cannot decompose a collective over grid axes of dynamic size}}
  %0 = prec.all_reduce %x on @dyn : tensor<8xf32> -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// A dynamic axis outside the group: the group is static, but the runtime
// needs the whole grid to find it.
shard.grid @elastic(shape = 2x?)
func.func @dynamic_grid(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'prec.all_reduce' op cannot decompose a collective on grid @elastic of shape 2x?: the runtime places ranks by the whole grid, which needs a static shape}}
  %0 = prec.all_reduce %x on @elastic grid_axes = [0] : tensor<8xf32> -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// Stochastic rounding in the pack kernel: the random word of each element
// comes from the Philox stream keyed by the seed and this rank's index in
// the grid, at the element's row-major index in the input.
shard.grid @dp(shape = 4)
// CHECK-LABEL: func @stochastic
// CHECK-SAME: (%[[X:.*]]: tensor<8xf32>, %[[SEED:.*]]: i64)
// CHECK: %[[RANK:.*]] = shard.process_linear_index on @dp : index
// CHECK: %[[R64:.*]] = arith.index_castui %[[RANK]] : index to i64
// CHECK: %[[MIX:.*]] = arith.muli %[[R64]], %{{.*}} : i64
// CHECK: %[[KEY:.*]] = arith.addi %[[SEED]], %[[MIX]] : i64
// CHECK: linalg.generic
// CHECK: linalg.index 0
// CHECK: arith.mului_extended
// CHECK: arith.trunci %{{.*}} : i32 to i16
// CHECK: prec.transport <all_gather>
func.func @stochastic(%x: tensor<8xf32>, %seed: i64) -> tensor<8xf32> {
  %0 = prec.all_reduce %x on @dp forward_dtype = bf16 rounding = <stochastic> seed %seed
         : tensor<8xf32> -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

shard.grid @dp(shape = 4)

// An explicit direct algorithm wins over the default ring of equal dtypes.
// CHECK-LABEL: func @explicit_direct
// CHECK: prec.transport <all_to_all>
// CHECK: iterator_types = ["parallel"]} ins(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : tensor<8xf32>
func.func @explicit_direct(%g: tensor<32xf32>) -> tensor<8xf32> {
  %0 = prec.reduce_scatter %g on @dp scatter_axis = 0 algorithm = <direct>
         : tensor<32xf32> -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

shard.grid @big(shape = 32)

// Groups of more than 16 ranks sum in a reduction loop over the source rank,
// innermost so that each element's terms are summed in one pass, then
// finish in a second kernel.
// CHECK-DAG: #[[$SOURCE_LAST:.*]] = affine_map<(d0, d1) -> (d1, d0)>
// CHECK-DAG: #[[$DROP_SOURCE:.*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func @large_group
// CHECK: %[[R:.*]] = tensor.expand_shape %{{.*}} into tensor<32x4xbf16>
// CHECK: %[[Z:.*]] = linalg.fill
// CHECK: %[[S:.*]] = linalg.generic {indexing_maps = [#[[$SOURCE_LAST]], #[[$DROP_SOURCE]]], iterator_types = ["parallel", "reduction"]} ins(%[[R]] : tensor<32x4xbf16>) outs(%[[Z]] : tensor<4xf32>)
// CHECK:   arith.extf
// CHECK:   arith.addf
// CHECK: linalg.generic {{.*}} ins(%[[S]] : tensor<4xf32>)
// CHECK:   arith.divf
func.func @large_group(%g: tensor<128xf32>) -> tensor<4xf32> {
  %0 = prec.reduce_scatter %g on @big scatter_axis = 0 reduction = <avg>
         forward_dtype = bf16 acc_dtype = f32 : tensor<128xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// A scaled conversion to fp8 needs its scales made explicit first.
shard.grid @dp(shape = 2)
func.func @scaled_wire(%x: tensor<4xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{converts to the scaled 'f8E4M3FN' wire: run prec-materialize-scales first, which makes its scales explicit}}
  %0 = prec.all_gather %x on @dp gather_axis = 0 forward_dtype = f8E4M3FN
         scaling = <dynamic> : tensor<4xf32> -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// Quantized data and block scales move unconverted: no kernel, only the
// transport of their bytes.
shard.grid @dp(shape = 2)
// CHECK-LABEL: func @fp8_moves
// CHECK-NOT: linalg.generic
// CHECK: prec.transport <all_gather> %{{.*}} on @dp : tensor<4xf8E4M3FN> -> tensor<8xf8E4M3FN>
// CHECK-NOT: linalg.generic
// CHECK: prec.transport <all_gather> %{{.*}} on @dp : tensor<2xf8E8M0FNU> -> tensor<4xf8E8M0FNU>
func.func @fp8_moves(%q: tensor<4xf8E4M3FN>, %s: tensor<2xf8E8M0FNU>)
    -> (tensor<8xf8E4M3FN>, tensor<4xf8E8M0FNU>) {
  %0 = prec.all_gather %q on @dp gather_axis = 0 : tensor<4xf8E4M3FN> -> tensor<8xf8E4M3FN>
  %1 = prec.all_gather %s on @dp gather_axis = 0 : tensor<2xf8E8M0FNU> -> tensor<4xf8E8M0FNU>
  return %0, %1 : tensor<8xf8E4M3FN>, tensor<4xf8E8M0FNU>
}

// -----

// Nothing to send: the empty result needs no communication on any rank.
// CHECK-LABEL: func @zero_elements
// CHECK-NOT: prec.transport
// CHECK: %[[EMPTY:.*]] = tensor.empty() : tensor<0xf32>
// CHECK: return %[[EMPTY]]
shard.grid @dp(shape = 4)
func.func @zero_elements(%x: tensor<0xf32>) -> tensor<0xf32> {
  %0 = prec.all_reduce %x on @dp forward_dtype = bf16 : tensor<0xf32> -> tensor<0xf32>
  return %0 : tensor<0xf32>
}

// -----

// An fp8 input on a bf16 wire is only widened: exact, so it decomposes.
// CHECK-LABEL: func @fp8_input
// CHECK: prec.transport <all_gather> %{{.*}} : tensor<4xbf16> -> tensor<16xbf16>
shard.grid @dp(shape = 4)
func.func @fp8_input(%q: tensor<4xf8E4M3FN>) -> tensor<16xbf16> {
  %0 = prec.all_gather %q on @dp gather_axis = 0 forward_dtype = bf16 : tensor<4xf8E4M3FN> -> tensor<16xbf16>
  return %0 : tensor<16xbf16>
}
