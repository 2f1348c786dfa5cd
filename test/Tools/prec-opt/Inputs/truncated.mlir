shard.grid @dp(shape = 4)
func.func @f(%x: tensor<8xf32>) {
  %0 = prec.all_gather %x on @dp gather_axis =