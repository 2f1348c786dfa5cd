func.func @strided(%x: memref<4xf32, strided<[2], offset: 2>>) -> f32 {
  %c0 = arith.constant 0 : index
  %0 = memref.load %x[%c0] : memref<4xf32, strided<[2], offset: 2>>
  return %0 : f32
}
func.func @huge(%x: tensor<1152921504606846976xf32>) -> tensor<1152921504606846976xf32> {
  return %x : tensor<1152921504606846976xf32>
}
func.func @large(%x: tensor<1099511627776xf32>) -> tensor<1099511627776xf32> {
  return %x : tensor<1099511627776xf32>
}
func.func private @declared(tensor<4xf32>) -> tensor<4xf32>
