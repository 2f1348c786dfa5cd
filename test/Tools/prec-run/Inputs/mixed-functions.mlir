// Only @run is run; @unrunnable takes a type prec-run cannot pass and does
// not lower, and @helper is what @run calls.
func.func private @helper(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = arith.addf %x, %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func @run(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = call @helper(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func @unrunnable(%x: tuple<f32, f32>) -> tuple<f32, f32> {
  return %x : tuple<f32, f32>
}
