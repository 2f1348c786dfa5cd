// Stochastic rounding in compiled kernels, on 1, 2, 3 and 4 ranks: casts to
// bf16 and f8E5M2, a bf16-wire reduce_scatter summed in f32, and a
// dynamically scaled f8E4M3FN gather. Inputs/check_stochastic.py compares
// every rounded value bit for bit with the runtime's reference
// (precrtConvertF32Stochastic: element i takes word i of the Philox stream
// keyed by the seed, or by seed + rank * 0x9E3779B97F4A7C15 on a collective;
// also the bf16 shard an SGD step writes)
// and checks that the rounding is unbiased: the mean error of 2^8, 2^12 and
// 2^16 roundings of one value stays within 4 standard errors, which shrink
// like 1/sqrt(n), while rounding to nearest keeps its bias.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/check_stochastic.py generate %t
// RUN: for n in 1 2 3 4; do \
// RUN:   mkdir -p %t/$n; \
// RUN:   sed -e "s/shape = 4/shape = $n/" -e "s/1024x/$((256 * n))x/g" %s > %t/$n.mlir && \
// RUN:   prec-run %t/$n.mlir --arg 2=%t/same.bin --scalar 3=20261125 --output-dir %t/$n --print none && \
// RUN:   %sanitizer_preload %python %S/Inputs/check_stochastic.py check %t/$n $n %precrt_lib/libprecrt.so || exit 1; \
// RUN: done

shard.grid @dp(shape = 4)

func.func @stochastic(%x: tensor<256xf32>, %g: tensor<1024xf32>, %same: tensor<65536xf32>, %seed: i64)
    -> (tensor<256xbf16>, tensor<256xf8E5M2>, tensor<256xf32>, tensor<65536xbf16>,
        tensor<65536xbf16>, tensor<1024xf32>, tensor<256xbf16>) {
  %0 = prec.cast %x rounding = <stochastic> seed %seed : tensor<256xf32> to tensor<256xbf16>
  %1 = prec.cast %x rounding = <stochastic> seed %seed : tensor<256xf32> to tensor<256xf8E5M2>
  %2 = prec.reduce_scatter %g on @dp scatter_axis = 0 forward_dtype = bf16
         rounding = <stochastic> seed %seed acc_dtype = f32
         : tensor<1024xf32> -> tensor<256xf32>
  %3 = prec.cast %same rounding = <stochastic> seed %seed : tensor<65536xf32> to tensor<65536xbf16>
  %4 = prec.cast %same : tensor<65536xf32> to tensor<65536xbf16>
  %5 = prec.all_gather %x on @dp gather_axis = 0 forward_dtype = f8E4M3FN
         rounding = <stochastic> seed %seed scaling = <dynamic>
         : tensor<256xf32> -> tensor<1024xf32>
  // next = x - 0.5 x = 0.5 x exactly in f32; its shard rounds stochastically.
  %half = arith.constant 0.5 : f32
  %next, %shard = prec.sgd %x, %x, %half rounding = <stochastic> seed %seed
                    : tensor<256xf32>, tensor<256xf32> -> tensor<256xbf16>
  return %0, %1, %2, %3, %4, %5, %shard : tensor<256xbf16>, tensor<256xf8E5M2>, tensor<256xf32>,
      tensor<65536xbf16>, tensor<65536xbf16>, tensor<1024xf32>, tensor<256xbf16>
}
