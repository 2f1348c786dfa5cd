// Entries for the data tests: @token_sums reads 4 token ids a step and
// returns the sum of rank 0's and of every rank's (f32: exact for these
// sums); @integers returns integer arguments of every width as generated or
// read.

shard.grid @dp(shape = 2)

func.func @token_sums(%idx: tensor<4xi32> {prec.range = [0, 1000]})
    -> (tensor<f32> {prec.name = "own"}, tensor<f32> {prec.name = "all"}) {
  %init = tensor.empty() : tensor<4xf32>
  %f = arith.sitofp %idx : tensor<4xi32> to tensor<4xf32>
  %own = prec.reduce %f dims = [0] reduction = <sum> acc_dtype = f32
           : tensor<4xf32> -> tensor<f32>
  %all = prec.all_reduce %own on @dp reduction = <sum> : tensor<f32> -> tensor<f32>
  return %own, %all : tensor<f32>, tensor<f32>
}

func.func @integers(%b: tensor<64xi1>, %c: tensor<64xi8>,
                    %d: tensor<64xi16> {prec.range = [-5, 5]}, %e: tensor<64xi64>,
                    %s: i8, %t: i1, %u: i16)
    -> (tensor<64xi1>, tensor<64xi8>, tensor<64xi16>, tensor<64xi64>, i8, i1, i16) {
  %c1 = arith.constant dense<1> : tensor<64xi8>
  %c2 = arith.addi %c, %c1 : tensor<64xi8>
  return %b, %c2, %d, %e, %s, %t, %u
      : tensor<64xi1>, tensor<64xi8>, tensor<64xi16>, tensor<64xi64>, i8, i1, i16
}
