// Collectives over both levels of a grid of @H@ hosts x @M@ ranks
// (two-level.test substitutes @H@, @M@, @N@ = @H@ * @M@ and the extents).
shard.grid @g(shape = @H@x@M@) {prec.inter_host_axes = array<i16: 0>}

func.func @two_level(%a: tensor<@RS@x3xf32>, %b: tensor<37xf32>,
                     %c: tensor<5x3xbf16>, %d: tensor<3x2xf32>,
                     %e: tensor<11xf32>)
    -> (tensor<8x3xf32>, tensor<8x3xf32>, tensor<8x3xf32>, tensor<37xf32>,
        tensor<5x3xbf16>, tensor<11xf64>, tensor<3x@AG@xf32>,
        tensor<3x@AG@xf32>, tensor<37xf32>, tensor<8x3xf32>, tensor<8x3xf32>,
        tensor<37xf32>) {
  // 0: group order (hosts, ranks): the chunks are reordered host-major
  // before the intra-host reduce_scatter; partial sums cross hosts in f32.
  %rs = prec.reduce_scatter %a on @g scatter_axis = 0 forward_dtype = bf16
          acc_dtype = f32 : tensor<@RS@x3xf32> -> tensor<8x3xf32>
  // 1: the same with the partial sums rounded once to bf16 between hosts.
  %rsb = prec.reduce_scatter %a on @g scatter_axis = 0 forward_dtype = bf16
           acc_dtype = f32 inter_host_dtype = bf16
           : tensor<@RS@x3xf32> -> tensor<8x3xf32>
  // 2: group order (ranks, hosts): no reordering.
  %rss = prec.reduce_scatter %a on @g grid_axes = [1, 0] scatter_axis = 0
           forward_dtype = bf16 acc_dtype = f32
           : tensor<@RS@x3xf32> -> tensor<8x3xf32>
  // 3: 37 elements, padded to a multiple of the ranks per host; partial
  // sums in bf16 between hosts, slices gathered in bf16.
  %ar = prec.all_reduce %b on @g forward_dtype = bf16 acc_dtype = f32
          inter_host_dtype = bf16 : tensor<37xf32> -> tensor<37xf32>
  // 4: an average of bf16 values, divided once by N after both levels.
  %avg = prec.all_reduce %c on @g reduction = <avg>
           : tensor<5x3xbf16> -> tensor<5x3xbf16>
  // 5: f32 wire, f64 sums, f64 partial sums between hosts; slices
  // gathered in f32.
  %wide = prec.all_reduce %e on @g forward_dtype = f32 acc_dtype = f64
            : tensor<11xf32> -> tensor<11xf64>
  // 6, 7: gathers across hosts, then inside, reordered to group order.
  %ag = prec.all_gather %d on @g gather_axis = 1 forward_dtype = bf16
          : tensor<3x2xf32> -> tensor<3x@AG@xf32>
  %ags = prec.all_gather %d on @g grid_axes = [1, 0] gather_axis = 1
           forward_dtype = bf16 : tensor<3x2xf32> -> tensor<3x@AG@xf32>
  // 8: a maximum selects a wire value at both levels.
  %max = prec.all_reduce %b on @g reduction = <max> forward_dtype = bf16
           : tensor<37xf32> -> tensor<37xf32>
  // 9: partial sums across hosts in fp8, each rank's with its own scale.
  %rs8 = prec.reduce_scatter %a on @g scatter_axis = 0 forward_dtype = bf16
           acc_dtype = f32 inter_host_dtype = f8E4M3FN inter_host_scaling = <dynamic>
           : tensor<@RS@x3xf32> -> tensor<8x3xf32>
  // 10: the same with a power-of-two scale per block of 3.
  %rs8b = prec.reduce_scatter %a on @g scatter_axis = 0 forward_dtype = bf16
            acc_dtype = f32 inter_host_dtype = f8E4M3FN inter_host_scaling = <block, block_size = 3>
            : tensor<@RS@x3xf32> -> tensor<8x3xf32>
  // 11: 37 elements in slices padded to whole blocks of 4, across hosts
  // in f8E5M2 with block scales; slices gathered in bf16.
  %ar8 = prec.all_reduce %b on @g forward_dtype = bf16 acc_dtype = f32
           inter_host_dtype = f8E5M2 inter_host_scaling = <block, block_size = 4>
           : tensor<37xf32> -> tensor<37xf32>
  return %rs, %rsb, %rss, %ar, %avg, %wide, %ag, %ags, %max, %rs8, %rs8b, %ar8
    : tensor<8x3xf32>, tensor<8x3xf32>, tensor<8x3xf32>, tensor<37xf32>,
      tensor<5x3xbf16>, tensor<11xf64>, tensor<3x@AG@xf32>,
      tensor<3x@AG@xf32>, tensor<37xf32>, tensor<8x3xf32>, tensor<8x3xf32>,
      tensor<37xf32>
}
