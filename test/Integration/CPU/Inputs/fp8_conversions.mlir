// The conversions fp8-conversions.test checks: f32 and f64 to both fp8
// formats, every fp8 bit pattern back to f32, bf16 and f64, and f32 to both
// fp8 formats and to bf16 and f16 with stochastic rounding.
func.func @conversions(%x: tensor<8192xf32>, %d: tensor<8192xf64>,
                       %e4: tensor<256xf8E4M3FN>, %e5: tensor<256xf8E5M2>,
                       %seed: i64)
    -> (tensor<8192xf8E4M3FN>, tensor<8192xf8E5M2>,
        tensor<8192xf8E4M3FN>, tensor<8192xf8E5M2>,
        tensor<256xf32>, tensor<256xf32>, tensor<256xbf16>, tensor<256xf64>,
        tensor<8192xf8E4M3FN>, tensor<8192xf8E5M2>, tensor<8192xbf16>,
        tensor<8192xf16>, tensor<8192xbf16>, tensor<8192xf16>) {
  %0 = prec.cast %x : tensor<8192xf32> to tensor<8192xf8E4M3FN>
  %1 = prec.cast %x : tensor<8192xf32> to tensor<8192xf8E5M2>
  %2 = prec.cast %d : tensor<8192xf64> to tensor<8192xf8E4M3FN>
  %3 = prec.cast %d : tensor<8192xf64> to tensor<8192xf8E5M2>
  %4 = prec.cast %e4 : tensor<256xf8E4M3FN> to tensor<256xf32>
  %5 = prec.cast %e5 : tensor<256xf8E5M2> to tensor<256xf32>
  %6 = prec.cast %e4 : tensor<256xf8E4M3FN> to tensor<256xbf16>
  %7 = prec.cast %e5 : tensor<256xf8E5M2> to tensor<256xf64>
  %8 = prec.cast %x rounding = <stochastic> seed %seed : tensor<8192xf32> to tensor<8192xf8E4M3FN>
  %9 = prec.cast %x rounding = <stochastic> seed %seed : tensor<8192xf32> to tensor<8192xf8E5M2>
  %10 = prec.cast %x rounding = <stochastic> seed %seed : tensor<8192xf32> to tensor<8192xbf16>
  %11 = prec.cast %x rounding = <stochastic> seed %seed : tensor<8192xf32> to tensor<8192xf16>
  %12 = prec.cast %x : tensor<8192xf32> to tensor<8192xbf16>
  %13 = prec.cast %x : tensor<8192xf32> to tensor<8192xf16>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13
      : tensor<8192xf8E4M3FN>, tensor<8192xf8E5M2>,
        tensor<8192xf8E4M3FN>, tensor<8192xf8E5M2>,
        tensor<256xf32>, tensor<256xf32>, tensor<256xbf16>, tensor<256xf64>,
        tensor<8192xf8E4M3FN>, tensor<8192xf8E5M2>, tensor<8192xbf16>,
        tensor<8192xf16>, tensor<8192xbf16>, tensor<8192xf16>
}
