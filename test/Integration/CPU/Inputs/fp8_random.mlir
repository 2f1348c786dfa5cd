// f32 to both fp8 formats, rounding to nearest, over a large sample
// (fp8-random-conversions.test); 2^20 - 3 elements, so that vectorized
// kernels also run a scalar tail of odd length.
func.func @random(%x: tensor<1048573xf32>)
    -> (tensor<1048573xf8E4M3FN>, tensor<1048573xf8E5M2>) {
  %0 = prec.cast %x : tensor<1048573xf32> to tensor<1048573xf8E4M3FN>
  %1 = prec.cast %x : tensor<1048573xf32> to tensor<1048573xf8E5M2>
  return %0, %1 : tensor<1048573xf8E4M3FN>, tensor<1048573xf8E5M2>
}
