// One kernel after fusion that reads a function argument, a constant
// global (the non-splat weights), a scalar (the fill of %s folded into the
// kernel) and writes the bf16 wire of the gather: the product and the cast
// run in the pack kernel. See fused-kernels.test.
shard.grid @dp(shape = 2)

func.func @scaled_gather(%w: tensor<8xf32>, %s: f32) -> tensor<16xbf16> {
  %weights = arith.constant dense<[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]> : tensor<8xf32>
  %e = tensor.empty() : tensor<8xf32>
  %splat = linalg.fill ins(%s : f32) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  %a = arith.mulf %w, %weights : tensor<8xf32>
  %b = arith.mulf %a, %splat : tensor<8xf32>
  %full = prec.all_gather %b on @dp gather_axis = 0 forward_dtype = bf16
            : tensor<8xf32> -> tensor<16xbf16>
  return %full : tensor<16xbf16>
}
