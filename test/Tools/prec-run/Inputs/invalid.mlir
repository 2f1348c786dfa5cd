shard.grid @dp(shape = 4)
func.func @bad(%x: tensor<8xf32>) -> tensor<16xf32> {
  %0 = prec.all_gather %x on @dp gather_axis = 0 : tensor<8xf32> -> tensor<16xf32>
  return %0 : tensor<16xf32>
}
