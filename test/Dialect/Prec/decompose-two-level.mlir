// RUN: prec-opt %s --prec-decompose-collectives | FileCheck %s --enable-var-scope

// Collectives over both levels of a grid whose axis 0 crosses hosts become
// one collective per level: the transports name the intra-host axis [1] or
// the inter-host axis [0], never both.

shard.grid @hosts(shape = 2x4) {prec.inter_host_axes = array<i16: 0>}
shard.grid @flat(shape = 2x4)

// reduce_scatter in group order (host, rank): chunk c = 4 h + m is moved to
// [m][h] before the intra-host exchange, so that rank m of every host
// receives its chunks for both hosts; the bf16 wire values are summed in
// f32, rounded once to the inter-host bf16, exchanged across hosts and
// summed in f32.
// CHECK-LABEL: func @reduce_scatter
// CHECK: %[[E:.*]] = tensor.expand_shape %{{.*}} {{\[\[}}0, 1, 2], [3]] output_shape [2, 4, 2, 3] : tensor<16x3xf32> into tensor<2x4x2x3xf32>
// CHECK: linalg.transpose ins(%[[E]] : tensor<2x4x2x3xf32>) outs(%{{.*}} : tensor<4x2x2x3xf32>) permutation = [1, 0, 2, 3]
// CHECK: arith.truncf %{{.*}} : f32 to bf16
// CHECK: prec.transport <all_to_all> %{{.*}} on @hosts grid_axes = [1] : tensor<48xbf16> -> tensor<48xbf16>
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<4x3xf32>)
// CHECK: arith.truncf %{{.*}} : f32 to bf16
// CHECK: prec.transport <all_to_all> %{{.*}} on @hosts grid_axes = [0] : tensor<12xbf16> -> tensor<12xbf16>
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<2x3xf32>)
// CHECK-NOT: prec.transport
// CHECK: return
func.func @reduce_scatter(%x: tensor<16x3xf32>) -> tensor<2x3xf32> {
  %0 = prec.reduce_scatter %x on @hosts scatter_axis = 0 forward_dtype = bf16
         acc_dtype = f32 inter_host_dtype = bf16 : tensor<16x3xf32> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// Group order (rank, host): the chunks are already host-major, nothing is
// reordered; by default the partial sums cross hosts in acc_dtype (f32),
// exchanged and summed in f32 like the bf16 wire values inside the host.
// CHECK-LABEL: func @reduce_scatter_rank_major
// CHECK-NOT: linalg.transpose
// CHECK: prec.transport <all_to_all> %{{.*}} on @hosts grid_axes = [1] : tensor<16xbf16> -> tensor<16xbf16>
// CHECK: prec.transport <all_to_all> %{{.*}} on @hosts grid_axes = [0] : tensor<4xf32> -> tensor<4xf32>
// CHECK-NOT: prec.transport
func.func @reduce_scatter_rank_major(%x: tensor<16xf32>) -> tensor<2xf32> {
  %0 = prec.reduce_scatter %x on @hosts grid_axes = [1, 0] scatter_axis = 0
         forward_dtype = bf16 acc_dtype = f32 : tensor<16xf32> -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// all_gather: across hosts first (one chunk per other host crosses), then
// inside the host; the [rank][host] blocks are put back in group order.
// CHECK-LABEL: func @all_gather
// CHECK: prec.transport <all_gather> %{{.*}} on @hosts grid_axes = [0] : tensor<6xbf16> -> tensor<12xbf16>
// CHECK: prec.transport <all_gather> %{{.*}} on @hosts grid_axes = [1] : tensor<12xbf16> -> tensor<48xbf16>
// CHECK: %[[G:.*]] = tensor.expand_shape %{{.*}} {{\[\[}}0], [1, 2, 3]] output_shape [3, 4, 2, 2] : tensor<3x16xf32> into tensor<3x4x2x2xf32>
// CHECK: %[[T:.*]] = linalg.transpose ins(%[[G]] : tensor<3x4x2x2xf32>) outs(%{{.*}} : tensor<3x2x4x2xf32>) permutation = [0, 2, 1, 3]
// CHECK: %[[R:.*]] = tensor.collapse_shape %[[T]] {{\[\[}}0], [1, 2, 3]] : tensor<3x2x4x2xf32> into tensor<3x16xf32>
// CHECK: return %[[R]]
func.func @all_gather(%x: tensor<3x2xf32>) -> tensor<3x16xf32> {
  %0 = prec.all_gather %x on @hosts gather_axis = 1 forward_dtype = bf16
         : tensor<3x2xf32> -> tensor<3x16xf32>
  return %0 : tensor<3x16xf32>
}

// all_reduce: 37 elements padded to 40 for the 4 ranks of a host, a
// reduce-scatter inside the host, an all-reduce of the 10-element slice
// across hosts (bf16 partial sums, padded to 2 x 5), the slices finished in
// bf16 (the gathered dtype) and gathered inside the host.
// CHECK-LABEL: func @all_reduce
// CHECK: tensor.insert_slice %{{.*}} into %{{.*}}[37] [3] [1] : tensor<3xf32> into tensor<40xf32>
// CHECK: prec.transport <all_to_all> %{{.*}} on @hosts grid_axes = [1] : tensor<40xbf16> -> tensor<40xbf16>
// CHECK: prec.transport <all_to_all> %{{.*}} on @hosts grid_axes = [0] : tensor<10xbf16> -> tensor<10xbf16>
// CHECK: prec.transport <all_gather> %{{.*}} on @hosts grid_axes = [0] : tensor<5xbf16> -> tensor<10xbf16>
// CHECK: prec.transport <all_gather> %{{.*}} on @hosts grid_axes = [1] : tensor<10xbf16> -> tensor<40xbf16>
// CHECK: tensor.extract_slice %{{.*}}[0] [37] [1] : tensor<40xbf16> to tensor<37xbf16>
// CHECK-NOT: prec.transport
func.func @all_reduce(%x: tensor<37xf32>) -> tensor<37xf32> {
  %0 = prec.all_reduce %x on @hosts forward_dtype = bf16 acc_dtype = f32
         inter_host_dtype = bf16 : tensor<37xf32> -> tensor<37xf32>
  return %0 : tensor<37xf32>
}

// Partial sums across hosts in fp8: each rank quantizes its partial sums
// with its own scale (dynamic: one, from their amax), and the fp8 bytes and
// the scales cross hosts unconverted; one kernel dequantizes each host's
// term with its scale and sums them in f32.
// CHECK-LABEL: func @reduce_scatter_fp8
// CHECK: prec.transport <all_to_all> %{{.*}} on @hosts grid_axes = [1] : tensor<48xbf16> -> tensor<48xbf16>
// CHECK: %[[AMAX:.*]] = prec.amax %{{.*}} : tensor<4x3xf32> -> tensor<f32>
// CHECK: %[[SCALE:.*]] = prec.scale_from_amax %[[AMAX]] element_type = f8E4M3FN
// CHECK: prec.quantize %{{.*}} scale %[[SCALE]] scaling = <dynamic> : tensor<4x3xf32>, tensor<f32> -> tensor<4x3xf8E4M3FN>
// CHECK: prec.transport <all_gather> %{{.*}} on @hosts grid_axes = [0] : tensor<1xf32> -> tensor<2xf32>
// CHECK: prec.transport <all_to_all> %{{.*}} on @hosts grid_axes = [0] : tensor<12xf8E4M3FN> -> tensor<12xf8E4M3FN>
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<2x2x3xf8E4M3FN>, tensor<2xf32>) outs(%{{.*}} : tensor<2x3xf32>)
// CHECK-NOT: prec.transport
// CHECK: return
func.func @reduce_scatter_fp8(%x: tensor<16x3xf32>) -> tensor<2x3xf32> {
  %0 = prec.reduce_scatter %x on @hosts scatter_axis = 0 forward_dtype = bf16
         acc_dtype = f32 inter_host_dtype = f8E4M3FN inter_host_scaling = <dynamic>
         : tensor<16x3xf32> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// An all_reduce's slices are padded to whole blocks (37 elements: slices
// of 10 on 4 ranks, padded to 16 for blocks of 8); each rank gathers every
// host's quantized slice and block scales and sums them itself.
// CHECK-LABEL: func @all_reduce_fp8_blocks
// CHECK: tensor.insert_slice %{{.*}} into %{{.*}}[37] [27] [1] : tensor<27xf32> into tensor<64xf32>
// CHECK: prec.transport <all_to_all> %{{.*}} on @hosts grid_axes = [1] : tensor<64xbf16> -> tensor<64xbf16>
// CHECK: prec.amax %{{.*}} block_size = 8 : tensor<16xf32> -> tensor<2xf32>
// CHECK: prec.transport <all_gather> %{{.*}} on @hosts grid_axes = [0] : tensor<2xf8E8M0FNU> -> tensor<4xf8E8M0FNU>
// CHECK: prec.transport <all_gather> %{{.*}} on @hosts grid_axes = [0] : tensor<16xf8E5M2> -> tensor<32xf8E5M2>
// CHECK: prec.transport <all_gather> %{{.*}} on @hosts grid_axes = [1] : tensor<16xbf16> -> tensor<64xbf16>
// CHECK-NOT: prec.transport
// CHECK: return
func.func @all_reduce_fp8_blocks(%x: tensor<37xf32>) -> tensor<37xf32> {
  %0 = prec.all_reduce %x on @hosts forward_dtype = bf16 acc_dtype = f32
         inter_host_dtype = f8E5M2 inter_host_scaling = <block, block_size = 8>
         : tensor<37xf32> -> tensor<37xf32>
  return %0 : tensor<37xf32>
}

// One level: a grid without topology, a group inside one host, a group
// across hosts only, stochastic rounding (whose streams are drawn by the
// one-level layout), and partial sums in an acc_dtype no runtime moves (f80:
// they would cross hosts in it).
// CHECK-LABEL: func @one_level
// CHECK: prec.transport <all_to_all> %{{.*}} on @flat : tensor<64xbf16>
// CHECK: prec.transport <all_to_all> %{{.*}} on @hosts grid_axes = [1] : tensor<64xbf16>
// CHECK: prec.transport <all_to_all> %{{.*}} on @hosts grid_axes = [0] : tensor<64xbf16>
// CHECK: prec.transport <all_to_all> %{{.*}} on @hosts : tensor<64xbf16>
// CHECK: prec.transport <all_to_all> %{{.*}} on @hosts : tensor<64xbf16>
// CHECK-NOT: prec.transport
func.func @one_level(%x: tensor<64xf32>, %seed: i64)
    -> (tensor<8xf32>, tensor<16xf32>, tensor<32xf32>, tensor<8xf32>, tensor<8xf32>) {
  %0 = prec.reduce_scatter %x on @flat scatter_axis = 0 forward_dtype = bf16
         acc_dtype = f32 : tensor<64xf32> -> tensor<8xf32>
  %1 = prec.reduce_scatter %x on @hosts grid_axes = [1] scatter_axis = 0
         forward_dtype = bf16 acc_dtype = f32 : tensor<64xf32> -> tensor<16xf32>
  %2 = prec.reduce_scatter %x on @hosts grid_axes = [0] scatter_axis = 0
         forward_dtype = bf16 acc_dtype = f32 : tensor<64xf32> -> tensor<32xf32>
  %3 = prec.reduce_scatter %x on @hosts scatter_axis = 0 forward_dtype = bf16
         acc_dtype = f32 rounding = <stochastic> seed %seed
         : tensor<64xf32> -> tensor<8xf32>
  %4 = prec.reduce_scatter %x on @hosts scatter_axis = 0 forward_dtype = bf16
         acc_dtype = f80 : tensor<64xf32> -> tensor<8xf32>
  return %0, %1, %2, %3, %4
      : tensor<8xf32>, tensor<16xf32>, tensor<32xf32>, tensor<8xf32>, tensor<8xf32>
}
