// Data layouts of the decomposition against a float64 reference: gathers and
// reduce-scatters along an inner dimension and an all_to_all, on 4 ranks.
// RUN: rm -rf %t && mkdir -p %t
// RUN: prec-run %s --output-dir %t --print none
// RUN: %python %S/Inputs/check_layouts.py %t 4

shard.grid @dp(shape = 4)

func.func @layouts(%w: tensor<2x3xf32>, %g: tensor<2x12xf32>, %x: tensor<8x2xf32>)
    -> (tensor<2x12xf32>, tensor<2x3xf32>, tensor<2x8xf32>) {
  %gathered = prec.all_gather %w on @dp gather_axis = 1 : tensor<2x3xf32> -> tensor<2x12xf32>
  %scattered = prec.reduce_scatter %g on @dp scatter_axis = 1 forward_dtype = bf16
                 acc_dtype = f32 : tensor<2x12xf32> -> tensor<2x3xf32>
  %exchanged = prec.all_to_all %x on @dp split_axis = 0 concat_axis = 1
                 : tensor<8x2xf32> -> tensor<2x8xf32>
  return %gathered, %scattered, %exchanged : tensor<2x12xf32>, tensor<2x3xf32>, tensor<2x8xf32>
}
