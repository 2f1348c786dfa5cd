// The first level of a two-level reduction is read by the second level's
// started transport and also written into by an insert_slice afterwards:
// the write must not go into the buffer the second level is still sending.
shard.grid @dp(shape = 2x2)
func.func @two_level(%w: tensor<4096xf32>, %x: tensor<1024xf32>) -> (tensor<2048xf32>, tensor<1024xf32>) {
  %r1 = prec.transport <reduce_scatter> %w on @dp grid_axes = [1] reduction = <sum> : tensor<4096xf32> -> tensor<2048xf32>
  %r2 = prec.transport <reduce_scatter> %r1 on @dp grid_axes = [0] reduction = <sum> : tensor<2048xf32> -> tensor<1024xf32>
  %u = tensor.insert_slice %x into %r1[0] [1024] [1] : tensor<1024xf32> into tensor<2048xf32>
  return %u, %r2 : tensor<2048xf32>, tensor<1024xf32>
}

// A column of a matrix: a strided slice, read through one contiguous copy.
func.func @column(%x: tensor<8x4xf32>) -> tensor<2xf32> {
  %col = tensor.extract_slice %x[0, 1] [8, 1] [1, 1] : tensor<8x4xf32> to tensor<8xf32>
  %g = prec.transport <reduce_scatter> %col on @dp grid_axes = [1] reduction = <sum> : tensor<8xf32> -> tensor<4xf32>
  %h = prec.transport <reduce_scatter> %g on @dp grid_axes = [0] reduction = <sum> : tensor<4xf32> -> tensor<2xf32>
  return %h : tensor<2xf32>
}
