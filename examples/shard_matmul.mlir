// An unsharded program with upstream sharding annotations: D = A @ B + bias
// on a 2x2 grid, the contraction dimension split over grid axis 1. The
// arguments are replicated on every rank; upstream's passes slice A and B,
// multiply the slices and sum the partial products over axis 1:
//
//   prec-opt examples/shard_matmul.mlir \
//     --pass-pipeline='builtin.module(func.func(sharding-propagation,shard-partition),
//                      convert-shard-to-prec{policy=#prec.policy<reduce=bf16>})'
//
// then prec-run (prec-lower-to-cpu) on 4 ranks. The partial sums travel as
// bf16 and accumulate in f32.
shard.grid @grid(shape = 2x2)

func.func @step(%a: tensor<8x6xf32>, %b: tensor<6x4xf32>,
                %bias: tensor<8x4xf32>) -> (tensor<8x4xf32> {prec.name = "d"}) {
  %replicated = shard.sharding @grid split_axes = [[]] : !shard.sharding
  %a0 = shard.shard %a to %replicated : tensor<8x6xf32>
  %b0 = shard.shard %b to %replicated : tensor<6x4xf32>
  %by_columns = shard.sharding @grid split_axes = [[], [1]] : !shard.sharding
  %a1 = shard.shard %a0 to %by_columns annotate_for_users : tensor<8x6xf32>
  %by_rows = shard.sharding @grid split_axes = [[1]] : !shard.sharding
  %b1 = shard.shard %b0 to %by_rows annotate_for_users : tensor<6x4xf32>
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<8x4xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<8x4xf32>)
            -> tensor<8x4xf32>
  %c = linalg.matmul ins(%a1, %b1 : tensor<8x6xf32>, tensor<6x4xf32>)
         outs(%init : tensor<8x4xf32>) -> tensor<8x4xf32>
  %d = linalg.add ins(%c, %bias : tensor<8x4xf32>, tensor<8x4xf32>)
         outs(%empty : tensor<8x4xf32>) -> tensor<8x4xf32>
  %d1 = shard.shard %d to %replicated annotate_for_users : tensor<8x4xf32>
  return %d1 : tensor<8x4xf32>
}
