// A two-layer MLP with FSDP-style upstream shardings on 4 ranks: the weights
// are stored split on dim 0 and used whole, the batch is split on dim 0. Its
// loss, the mean squared error over the whole batch, is computed two ways
// that upstream's partitioner turns into different programs:
//   @mse_gathered: the error is gathered (an activation gather) and the loss
//                  computed whole on every rank;
//   @mse_reduced:  each rank sums its rows' squares and a shard.all_reduce
//                  adds the partial sums.
// L = sum((x w1 w2 - t)^2) / 32 is a polynomial of degree at most two in any
// single coordinate of any argument.
shard.grid @grid(shape = 4)

func.func @mse_gathered(%w1: tensor<16x32xf64>, %w2: tensor<32x4xf64>,
                        %x: tensor<8x16xf64>, %t: tensor<8x4xf64>) -> tensor<f64>
    attributes {prec.differentiable} {
  %rows = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %replicated = shard.sharding @grid split_axes = [[]] : !shard.sharding
  %w1_split = shard.shard %w1 to %rows : tensor<16x32xf64>
  %w1_whole = shard.shard %w1_split to %replicated annotate_for_users : tensor<16x32xf64>
  %w2_split = shard.shard %w2 to %rows : tensor<32x4xf64>
  %w2_whole = shard.shard %w2_split to %replicated annotate_for_users : tensor<32x4xf64>
  %x_split = shard.shard %x to %rows : tensor<8x16xf64>
  %t_split = shard.shard %t to %rows : tensor<8x4xf64>
  %zero = arith.constant 0.0 : f64
  %h_empty = tensor.empty() : tensor<8x32xf64>
  %h_zero = linalg.fill ins(%zero : f64) outs(%h_empty : tensor<8x32xf64>) -> tensor<8x32xf64>
  %h = linalg.matmul ins(%x_split, %w1_whole : tensor<8x16xf64>, tensor<16x32xf64>)
         outs(%h_zero : tensor<8x32xf64>) -> tensor<8x32xf64>
  %y_empty = tensor.empty() : tensor<8x4xf64>
  %y_zero = linalg.fill ins(%zero : f64) outs(%y_empty : tensor<8x4xf64>) -> tensor<8x4xf64>
  %y = linalg.matmul ins(%h, %w2_whole : tensor<8x32xf64>, tensor<32x4xf64>)
         outs(%y_zero : tensor<8x4xf64>) -> tensor<8x4xf64>
  %err = linalg.sub ins(%y, %t_split : tensor<8x4xf64>, tensor<8x4xf64>)
           outs(%y_empty : tensor<8x4xf64>) -> tensor<8x4xf64>
  %sq = linalg.mul ins(%err, %err : tensor<8x4xf64>, tensor<8x4xf64>)
          outs(%y_empty : tensor<8x4xf64>) -> tensor<8x4xf64>
  %l_empty = tensor.empty() : tensor<f64>
  %l_zero = linalg.fill ins(%zero : f64) outs(%l_empty : tensor<f64>) -> tensor<f64>
  %sum = linalg.reduce ins(%sq : tensor<8x4xf64>) outs(%l_zero : tensor<f64>) dimensions = [0, 1]
    (%in: f64, %acc: f64) {
      %s = arith.addf %in, %acc : f64
      linalg.yield %s : f64
    }
  %scale = arith.constant dense<0.03125> : tensor<f64>
  %loss = linalg.mul ins(%sum, %scale : tensor<f64>, tensor<f64>)
            outs(%l_empty : tensor<f64>) -> tensor<f64>
  %whole = shard.shard %loss to %replicated annotate_for_users : tensor<f64>
  return %whole : tensor<f64>
}

func.func @mse_reduced(%w1: tensor<16x32xf64>, %w2: tensor<32x4xf64>,
                       %x: tensor<8x16xf64>, %t: tensor<8x4xf64>) -> tensor<f64>
    attributes {prec.differentiable} {
  %rows = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %replicated = shard.sharding @grid split_axes = [[]] : !shard.sharding
  %w1_split = shard.shard %w1 to %rows : tensor<16x32xf64>
  %w1_whole = shard.shard %w1_split to %replicated annotate_for_users : tensor<16x32xf64>
  %w2_split = shard.shard %w2 to %rows : tensor<32x4xf64>
  %w2_whole = shard.shard %w2_split to %replicated annotate_for_users : tensor<32x4xf64>
  %x_split = shard.shard %x to %rows : tensor<8x16xf64>
  %t_split = shard.shard %t to %rows : tensor<8x4xf64>
  %zero = arith.constant 0.0 : f64
  %h_empty = tensor.empty() : tensor<8x32xf64>
  %h_zero = linalg.fill ins(%zero : f64) outs(%h_empty : tensor<8x32xf64>) -> tensor<8x32xf64>
  %h = linalg.matmul ins(%x_split, %w1_whole : tensor<8x16xf64>, tensor<16x32xf64>)
         outs(%h_zero : tensor<8x32xf64>) -> tensor<8x32xf64>
  %y_empty = tensor.empty() : tensor<8x4xf64>
  %y_zero = linalg.fill ins(%zero : f64) outs(%y_empty : tensor<8x4xf64>) -> tensor<8x4xf64>
  %y = linalg.matmul ins(%h, %w2_whole : tensor<8x32xf64>, tensor<32x4xf64>)
         outs(%y_zero : tensor<8x4xf64>) -> tensor<8x4xf64>
  %err = linalg.sub ins(%y, %t_split : tensor<8x4xf64>, tensor<8x4xf64>)
           outs(%y_empty : tensor<8x4xf64>) -> tensor<8x4xf64>
  %sq = linalg.mul ins(%err, %err : tensor<8x4xf64>, tensor<8x4xf64>)
          outs(%y_empty : tensor<8x4xf64>) -> tensor<8x4xf64>
  %sq_split = shard.shard %sq to %rows annotate_for_users : tensor<8x4xf64>
  %l_empty = tensor.empty() : tensor<f64>
  %l_zero = linalg.fill ins(%zero : f64) outs(%l_empty : tensor<f64>) -> tensor<f64>
  %sum = linalg.reduce ins(%sq_split : tensor<8x4xf64>) outs(%l_zero : tensor<f64>) dimensions = [0, 1]
    (%in: f64, %acc: f64) {
      %s = arith.addf %in, %acc : f64
      linalg.yield %s : f64
    }
  %scale = arith.constant dense<0.03125> : tensor<f64>
  %loss = linalg.mul ins(%sum, %scale : tensor<f64>, tensor<f64>)
            outs(%l_empty : tensor<f64>) -> tensor<f64>
  %whole = shard.shard %loss to %replicated annotate_for_users : tensor<f64>
  return %whole : tensor<f64>
}
