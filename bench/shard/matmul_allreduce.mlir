// C = A @ B on 4 ranks with the contraction dimension split: each rank
// multiplies its 512x4 slice of A by its 4x512 slice of B and the 512x512
// partial products are summed over the grid (an all_reduce of 1 MiB of f32
// per rank). The arguments are sharded at the function boundary, so
// upstream's shard-partition emits a single shard.all_reduce, which both
// convert-shard-to-mpi and convert-shard-to-prec lower (run.sh).
shard.grid @grid(shape = 4)

func.func @step(%a: tensor<512x16xf32>, %b: tensor<16x512xf32>)
    -> tensor<512x512xf32> {
  %by_columns = shard.sharding @grid split_axes = [[], [0]] : !shard.sharding
  %a1 = shard.shard %a to %by_columns : tensor<512x16xf32>
  %by_rows = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %b1 = shard.shard %b to %by_rows : tensor<16x512xf32>
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<512x512xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<512x512xf32>)
            -> tensor<512x512xf32>
  %c = linalg.matmul ins(%a1, %b1 : tensor<512x16xf32>, tensor<16x512xf32>)
         outs(%init : tensor<512x512xf32>) -> tensor<512x512xf32>
  %replicated = shard.sharding @grid split_axes = [[]] : !shard.sharding
  %c1 = shard.shard %c to %replicated annotate_for_users : tensor<512x512xf32>
  return %c1 : tensor<512x512xf32>
}
