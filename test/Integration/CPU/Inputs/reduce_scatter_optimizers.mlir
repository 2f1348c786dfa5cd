// Reduce-scatters over @N@ ranks with a bf16 wire and an f32 accumulation,
// each cut into blocks by prec-block-reduce-scatter at
// reduce-scatter-block-bytes=2000 (reduce-scatter-blocked.test): along the
// rows of a rank's slice (scatter axis 0: 37 rows of 96 x @N@ bytes of
// input each) and along the rows of the input (scatter axis 1: 24 rows of
// 52 x @N@ bytes each), both leaving a partial last block on most group
// sizes. AdamW and SGD read only the reduced gradient and run in the
// blocks; the third reduce_scatter's result (a maximum) is returned, so it
// is cut alone. (Two sums along axis 0 would share a bucket,
// prec-bucket-collectives, whose result optimizers read in slices: cut
// alone too.) The last, 2 x 8@N@ x 48 along axis 1, has 1536 x @N@ bytes of
// input per index of its first dimension, more than a block: each of those
// two blocks is cut again along the 8 rows of a slice, with its SGD.
shard.grid @dp(shape = @N@)

func.func @step(%w: tensor<37x24xf32>, %g: tensor<@ROWS@x24xf32>, %m: tensor<37x24xf32>,
                %v: tensor<37x24xf32>, %w2: tensor<24x13xf32>, %g2: tensor<24x@COLS@xf32>,
                %lr: f32, %t: f32, %g5: tensor<2x@ROWS5@x48xf32>, %w5: tensor<2x8x48xf32>)
    -> (tensor<37x24xf32>, tensor<37x24xf32>, tensor<37x24xf32>, tensor<37x24xbf16>,
        tensor<24x13xf32>, tensor<24x13xf32>, tensor<24x13xf32>, tensor<2x8x48xf32>) {
  %grad = prec.reduce_scatter %g on @dp scatter_axis = 0 reduction = <sum>
            forward_dtype = bf16 acc_dtype = f32 : tensor<@ROWS@x24xf32> -> tensor<37x24xf32>
  // The second-moment state is non-negative.
  %v2 = arith.mulf %v, %v : tensor<37x24xf32>
  %adam:4 = prec.adamw %w, %grad, %m, %v2, %lr, %t beta1 = 0.9 beta2 = 0.99 eps = 1.0e-3
              weight_decay = 0.1 : tensor<37x24xf32>, tensor<37x24xf32> -> tensor<37x24xbf16>
  %grad2 = prec.reduce_scatter %g2 on @dp scatter_axis = 1 reduction = <sum>
             forward_dtype = bf16 acc_dtype = f32 : tensor<24x@COLS@xf32> -> tensor<24x13xf32>
  %sgd = prec.sgd %w2, %grad2, %lr weight_decay = 0.5 : tensor<24x13xf32>, tensor<24x13xf32>
  %grad3 = prec.reduce_scatter %g2 on @dp scatter_axis = 1 reduction = <max>
             forward_dtype = bf16 acc_dtype = f32 : tensor<24x@COLS@xf32> -> tensor<24x13xf32>
  // An average (divisors by prec-divide-factors), compared bit for bit
  // with the whole reduce_scatter only.
  %grad4 = prec.reduce_scatter %g2 on @dp scatter_axis = 1 reduction = <avg>
             forward_dtype = bf16 acc_dtype = f32 : tensor<24x@COLS@xf32> -> tensor<24x13xf32>
  %sgd2 = prec.sgd %w2, %grad4, %lr : tensor<24x13xf32>, tensor<24x13xf32>
  %grad5 = prec.reduce_scatter %g5 on @dp scatter_axis = 1 reduction = <sum>
             forward_dtype = bf16 acc_dtype = f32 : tensor<2x@ROWS5@x48xf32> -> tensor<2x8x48xf32>
  %sgd3 = prec.sgd %w5, %grad5, %lr weight_decay = 0.5 : tensor<2x8x48xf32>, tensor<2x8x48xf32>
  return %adam#0, %adam#1, %adam#2, %adam#3, %sgd, %grad3, %sgd2, %sgd3
    : tensor<37x24xf32>, tensor<37x24xf32>, tensor<37x24xf32>, tensor<37x24xbf16>,
      tensor<24x13xf32>, tensor<24x13xf32>, tensor<24x13xf32>, tensor<2x8x48xf32>
}
