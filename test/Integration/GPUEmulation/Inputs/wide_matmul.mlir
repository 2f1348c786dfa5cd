// A contraction whose 16 x 16 tiles number 65537 along the grid's y axis
// (upstream's parallel-loop mapping puts the columns there): more blocks
// than CUDA launches along y (launch-limits.test).
func.func @wide(%a: tensor<3x2xf32>, %b: tensor<2x1048592xf32>) -> tensor<3x1048592xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<3x1048592xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<3x1048592xf32>) -> tensor<3x1048592xf32>
  %c = linalg.matmul ins(%a, %b : tensor<3x2xf32>, tensor<2x1048592xf32>) outs(%init : tensor<3x1048592xf32>) -> tensor<3x1048592xf32>
  return %c : tensor<3x1048592xf32>
}
