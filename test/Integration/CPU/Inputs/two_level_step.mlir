// A loss linear in its parameter, for prec-fully-shard's steps over hosts
// (two-level-step.test): L = mean over the 4x8 outputs of (x W) * t, whose
// gradient x^T t / 32 check_two_level_step.py computes in float64.
func.func @loss(%w: tensor<16x8xf32> {prec.name = "w"},
                %x: tensor<4x16xf32> {prec.name = "x", prec.no_grad},
                %t: tensor<4x8xf32> {prec.name = "t", prec.no_grad}) -> tensor<f32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<4x8xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<4x8xf32>) -> tensor<4x8xf32>
  %y = linalg.matmul ins(%x, %w : tensor<4x16xf32>, tensor<16x8xf32>)
         outs(%init : tensor<4x8xf32>) -> tensor<4x8xf32>
  %p = linalg.mul ins(%y, %t : tensor<4x8xf32>, tensor<4x8xf32>)
         outs(%empty : tensor<4x8xf32>) -> tensor<4x8xf32>
  %l = prec.reduce %p dims = [0, 1] reduction = <avg> : tensor<4x8xf32> -> tensor<f32>
  return %l : tensor<f32>
}
