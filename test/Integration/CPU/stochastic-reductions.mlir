// Every rounding of a stochastic reduction is stochastic, on 4 ranks: the
// wire (word i of the stream keyed by seed + rank * 0x9E3779B97F4A7C15, i the
// element's index in the input) and the rounding of the reduced values to a
// narrower type (word 2^63 + j of the stream of the rank that reduced them,
// j the element's index in that rank's reduced slice; of the stream keyed by
// the seed where every rank holds them, as after a ring all_reduce).
// Inputs/check_stochastic_reductions.py recomputes every result bit for bit
// from the runtime's reference conversion and checks that the mean of the
// results is unbiased within a bound derived from their count. Scaled fp8
// collectives round the dequantized values (or the reduced ones) to the
// bf16 result with the same arrival words: of the seed's stream where every
// rank computes them alike (all_gather, all_reduce), of the rank's own
// stream where only it does (reduce_scatter, all_to_all).
// RUN: rm -rf %t && mkdir -p %t/a %t/b %t/c
// RUN: %python %S/Inputs/check_stochastic_reductions.py generate %t
// RUN: prec-run %s --arg 0=%t/x.bin --arg 1=%t/y.bin --arg 3=%t/z.bin --scalar 2=20261125 --output-dir %t/a --print none
// RUN: %sanitizer_preload %python %S/Inputs/check_stochastic_reductions.py check %t/a 20261125 %precrt_lib/libprecrt.so
// Reproducible: the same seed gives the same bits; another seed other bits.
// RUN: prec-run %s --arg 0=%t/x.bin --arg 1=%t/y.bin --arg 3=%t/z.bin --scalar 2=20261125 --output-dir %t/b --print none
// RUN: for r in 0 1 2 3; do for i in 0 1 2 3 4 5 6 7 8; do cmp %t/a/rank${r}_result$i.bin %t/b/rank${r}_result$i.bin || exit 1; done; done
// RUN: prec-run %s --arg 0=%t/x.bin --arg 1=%t/y.bin --arg 3=%t/z.bin --scalar 2=7 --output-dir %t/c --print none
// RUN: %sanitizer_preload %python %S/Inputs/check_stochastic_reductions.py check %t/c 7 %precrt_lib/libprecrt.so
// RUN: for i in 0 1 2 3 4 5 6 7 8; do not cmp -s %t/a/rank0_result$i.bin %t/c/rank0_result$i.bin || exit 1; done

shard.grid @dp(shape = 4)

func.func @reductions(%x: tensor<4096xf32>, %y: tensor<4096xf32>, %seed: i64,
                      %z: tensor<4096xf32>)
    -> (tensor<4096xf32>, tensor<4096xf32>, tensor<1024xf32>, tensor<1024xbf16>,
        tensor<4096xbf16>, tensor<16384xbf16>, tensor<1024xbf16>,
        tensor<4096xbf16>, tensor<4096xbf16>) {
  // bf16 wire, f32 sum, slices gathered in bf16.
  %0 = prec.all_reduce %x on @dp reduction = <avg> forward_dtype = bf16
         rounding = <stochastic> seed %seed acc_dtype = f32
         : tensor<4096xf32> -> tensor<4096xf32>
  // f16 wire, slices gathered in f16.
  %1 = prec.all_reduce %y on @dp reduction = <avg> forward_dtype = f16
         rounding = <stochastic> seed %seed acc_dtype = f32
         : tensor<4096xf32> -> tensor<4096xf32>
  // The reduced slice stays f32: only the wire rounds.
  %2 = prec.reduce_scatter %x on @dp scatter_axis = 0 reduction = <avg>
         forward_dtype = bf16 rounding = <stochastic> seed %seed acc_dtype = f32
         : tensor<4096xf32> -> tensor<1024xf32>
  // The post-divided sum rounds to the bf16 result.
  %3 = prec.reduce_scatter %x on @dp scatter_axis = 0 reduction = <avg>
         forward_dtype = bf16 rounding = <stochastic> seed %seed acc_dtype = f32
         : tensor<4096xf32> -> tensor<1024xbf16>
  // A ring (f32 wire and sum) whose result rounds to bf16 on every rank.
  %4 = prec.all_reduce %x on @dp reduction = <avg> forward_dtype = f32
         rounding = <stochastic> seed %seed acc_dtype = f32
         : tensor<4096xf32> -> tensor<4096xbf16>
  // Scaled fp8 wires: the quantization, then q * scale (or the average of
  // the dequantized terms) rounded to bf16.
  %5 = prec.all_gather %z on @dp gather_axis = 0 forward_dtype = f8E4M3FN
         rounding = <stochastic> seed %seed scaling = <dynamic>
         : tensor<4096xf32> -> tensor<16384xbf16>
  %6 = prec.reduce_scatter %z on @dp scatter_axis = 0 reduction = <avg>
         forward_dtype = f8E4M3FN rounding = <stochastic> seed %seed
         scaling = <dynamic> acc_dtype = f32
         : tensor<4096xf32> -> tensor<1024xbf16>
  %7 = prec.all_reduce %z on @dp reduction = <avg> forward_dtype = f8E4M3FN
         rounding = <stochastic> seed %seed scaling = <dynamic> acc_dtype = f32
         : tensor<4096xf32> -> tensor<4096xbf16>
  %8 = prec.all_to_all %z on @dp split_axis = 0 concat_axis = 0
         forward_dtype = f8E4M3FN rounding = <stochastic> seed %seed
         scaling = <dynamic> : tensor<4096xf32> -> tensor<4096xbf16>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8 : tensor<4096xf32>, tensor<4096xf32>,
      tensor<1024xf32>, tensor<1024xbf16>, tensor<4096xbf16>, tensor<16384xbf16>,
      tensor<1024xbf16>, tensor<4096xbf16>, tensor<4096xbf16>
}
