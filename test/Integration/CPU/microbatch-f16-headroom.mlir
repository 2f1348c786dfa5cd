// Two f16 microbatches summed under an average over 2 x 3 ranks: every
// gradient is 11000, so the result is 2 * 11000 = 22000 on every rank (the
// reference needs no rounding: 11000 and 22000 are exact in f16). Without
// the microbatch schedule every sum is small; with it, one all-reduce sums
// 12 terms, whose pre-divisor must keep the f16 partial sums below 65504
// (a pre-divisor of 2 gave inf).
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -c "import struct; open('%t/g.bin', 'wb').write(struct.pack('<12e', *[11000.0] * 12))"
// RUN: prec-run %s --arg 0=%t/g.bin --print values | FileCheck %s
// CHECK-COUNT-6: result 0: tensor<2xf16> = [22000, 22000]

shard.grid @g(shape = 2x3)

func.func @grads(%g: tensor<2x6xf16>) -> tensor<2xf16>
    attributes {prec.microbatches = 2 : i64} {
  %s = prec.reduce_scatter %g on @g grid_axes = [1] scatter_axis = 1 reduction = <avg>
         acc_dtype = f16 : tensor<2x6xf16> -> tensor<2x2xf16>
  %r = prec.all_reduce %s on @g grid_axes = [0] reduction = <avg> acc_dtype = f16
         : tensor<2x2xf16> -> tensor<2x2xf16>
  %m = prec.reduce %r dims = [0] : tensor<2x2xf16> -> tensor<2xf16>
  return %m : tensor<2xf16>
}
