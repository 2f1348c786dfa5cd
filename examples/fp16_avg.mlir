// One data-parallel (DDP) step whose gradient average travels and
// accumulates in f16, on 8 ranks.
//
// f16 mixed-precision training multiplies the loss by a loss scale (here
// 2^14) so that small gradients stay above f16's subnormals; the gradients
// come out scaled by the same factor. Averaging them over N ranks in f16
// sums N values of up to 16384 in magnitude: on 8 ranks the sum can reach
// 131072, far past f16's largest finite value 65504, and overflows to
// infinity, although the average itself (at most 16384) is representable.
// Dividing every input by N first would instead push the smallest gradients
// into f16's subnormals and zero.
//
// `reduction = <avg>` with `acc_dtype = f16` therefore does not divide once:
// prec-divide-factors splits N into a pre-divisor f, applied to each input
// before the f16 wire cast, and a post-divisor N / f, applied to the f16 sum,
// with f the power of two nearest sqrt(N) (8 = 4 x 2, 4 = 2 x 2, 6 = 2 x 3).
// Partial sums then stay below N * 16384 / f = 32768 on 8 ranks, and the
// inputs lose only log2(f) binades of subnormal headroom.
//
//   prec-run --scalar 1=16384 --scalar 3=0.01 --replicate 2 examples/fp16_avg.mlir

shard.grid @dp(shape = 8)

// %grad is this rank's f32 gradient of the unscaled loss, %weight the
// replicated f32 master weight. Returns the averaged scaled gradient as it
// arrived in f16 and the weight after an SGD step with the unscaled gradient.
func.func @fp16_average(%grad: tensor<64x16xf32>, %loss_scale: f32,
                        %weight: tensor<64x16xf32>, %lr: f32)
    -> (tensor<64x16xf16>, tensor<64x16xf32>) {
  // The gradient of the scaled loss.
  %empty = tensor.empty() : tensor<64x16xf32>
  %scale = linalg.fill ins(%loss_scale : f32) outs(%empty : tensor<64x16xf32>) -> tensor<64x16xf32>
  %scaled = arith.mulf %grad, %scale : tensor<64x16xf32>

  // The average over the 8 ranks: f16 on the wire, f16 partial sums.
  %avg = prec.all_reduce %scaled on @dp reduction = <avg>
           forward_dtype = f16 acc_dtype = f16
           : tensor<64x16xf32> -> tensor<64x16xf16>

  // Unscale through the learning rate: w - (lr / loss_scale) * avg.
  %step = arith.divf %lr, %loss_scale : f32
  %weight_next = prec.sgd %weight, %avg, %step : tensor<64x16xf32>, tensor<64x16xf16>
  return %avg, %weight_next : tensor<64x16xf16>, tensor<64x16xf32>
}
