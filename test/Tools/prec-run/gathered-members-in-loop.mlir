// The two halves of a gathered tensor are read in a loop that writes into
// one of them in place: every iteration must read the gathered values, so
// the result is n * (1 + 1) = 6 for n = 3 (a member taken inside the loop
// would see the previous iteration's writes and give 9).
// RUN: prec-run %s --ranks 1 --scalar 0=3 --print values | FileCheck %s
// CHECK: rank 0: result 0: tensor<4x4xf32> = [6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6]

shard.grid @dp(shape = 1)

func.func @halves_in_loop(%n: index) -> tensor<4x4xf32> {
  %one = arith.constant 1.0 : f32
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<8x4xf32>
  %w = linalg.fill ins(%one : f32) outs(%empty : tensor<8x4xf32>) -> tensor<8x4xf32>
  %full = prec.all_gather %w on @dp gather_axis = 0 : tensor<8x4xf32> -> tensor<8x4xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %e = tensor.empty() : tensor<4x4xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %init) -> tensor<4x4xf32> {
    %a = tensor.extract_slice %full[0, 0] [4, 4] [1, 1] : tensor<8x4xf32> to tensor<4x4xf32>
    %b = tensor.extract_slice %full[4, 0] [4, 4] [1, 1] : tensor<8x4xf32> to tensor<4x4xf32>
    %t = linalg.add ins(%a, %b : tensor<4x4xf32>, tensor<4x4xf32>) outs(%a : tensor<4x4xf32>) -> tensor<4x4xf32>
    %s = linalg.add ins(%acc, %t : tensor<4x4xf32>, tensor<4x4xf32>) outs(%acc : tensor<4x4xf32>) -> tensor<4x4xf32>
    scf.yield %s : tensor<4x4xf32>
  }
  return %r : tensor<4x4xf32>
}
