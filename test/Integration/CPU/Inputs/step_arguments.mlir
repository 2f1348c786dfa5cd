// Steps whose bufferized code would write into an argument's buffer, each an
// entry of its own (prec-run --entry). No result feeds an argument: the
// result at each argument's position has another type, so every step must
// compute from the arguments as they were initialized.

// C + A B: the matmul accumulates into its init, argument 2.
func.func @matmul_acc(%a: tensor<4x8xf32>, %b: tensor<8x4xf32>,
                      %c: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x4xf32>)
                     outs(%c : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %r : tensor<4x4xf32>
}

// acc + the column sums of x: a reduction that reads its init, argument 1.
func.func @column_sums(%x: tensor<4x8xf32>, %acc: tensor<8xf32>)
    -> tensor<8xf32> {
  %r = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>,
                       affine_map<(i, j) -> (j)>],
      iterator_types = ["reduction", "parallel"]}
      ins(%x : tensor<4x8xf32>) outs(%acc : tensor<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %in, %out : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  return %r : tensor<8xf32>
}

// acc + the rows of x, one per iteration of a loop that carries acc,
// argument 1.
func.func @row_loop(%x: tensor<4x8xf32>, %acc: tensor<8xf32>)
    -> tensor<8xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%a = %acc) -> tensor<8xf32> {
    %row = tensor.extract_slice %x[%i, 0] [1, 8] [1, 1]
        : tensor<4x8xf32> to tensor<8xf32>
    %s = arith.addf %a, %row : tensor<8xf32>
    scf.yield %s : tensor<8xf32>
  }
  return %r : tensor<8xf32>
}

// g * g elementwise: its kernel's init is g, argument 1.
func.func @square(%x: tensor<4x8xf32>, %g: tensor<8xf32>) -> tensor<8xf32> {
  %r = arith.mulf %g, %g : tensor<8xf32>
  return %r : tensor<8xf32>
}
