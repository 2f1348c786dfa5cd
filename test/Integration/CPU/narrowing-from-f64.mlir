// f64 to bf16 and f16 rounds once, to nearest even, in casts and on the
// wire of collectives. Expected values are the exact roundings of the
// inputs (written next to each), so rounding through f32 first, which LLVM
// does for f64 -> bf16, shows up as a wrong value.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -c "import struct; open('%t/x.bin', 'wb').write(struct.pack('<10d', 1 + 2**-8 + 2**-30, -(1 + 2**-8 + 2**-30), 1 + 2**-8, 1 + 3 * 2**-8, 3.4e38, 1e-300, -1e-300, float('nan'), float('inf'), 2.5 * 2**-133 + 2**-170))"
// RUN: prec-run %s --entry narrow --arg 0=%t/x.bin --print values | FileCheck %s
//
// Inputs:  1 + 2^-8 + 2^-30 (above the bf16 midpoint 1 + 2^-8: 1 + 2^-7;
//          through f32 it lands on the midpoint and ties to 1), its negation,
//          1 + 2^-8 (a tie: 1), 1 + 3 * 2^-8 (a tie: the even 1 + 2^-6),
//          3.4e38 (above bf16's largest finite + half an ulp: inf; f16: inf),
//          +-1e-300 (+-0), nan, inf, and 2.5 * 2^-133 + 2^-170 (bf16
//          subnormals are multiples of 2^-133: 3 * 2^-133 = 2.7550649e-40;
//          through f32 it ties to 2 * 2^-133).
// f16 (10 fraction bits): 1 + 2^-8 and 1 + 3 * 2^-8 are exact; the first
// input rounds to 1 + 2^-8 = 1.0039062.
//
// CHECK: result 0: tensor<10xbf16> = [1.0078125, -1.0078125, 1, 1.015625, inf, 0, -0, nan, inf, 2.7550649e-40]
// CHECK: result 1: tensor<10xf16> = [1.0039062, -1.0039062, 1.0039062, 1.0117188, inf, 0, -0, nan, inf, 0]
// CHECK: result 2: tensor<10xbf16> = [1.0078125, -1.0078125, 1, 1.015625, inf, 0, -0, nan, inf, 2.7550649e-40]
// CHECK: result 3: tensor<10xf32> = [1.0078125, -1.0078125, 1, 1.015625, inf, 0, {{-?}}0, nan, inf, 2.7550649e-40]

// Scalars given to prec-run round once too.
// RUN: prec-run %s --entry scalars --scalar 0=1.0039062500000002 \
// RUN:   --scalar 1=1.0004882812500002 --print values | FileCheck %s --check-prefix=SCALAR
// SCALAR: result 0: bf16 = [1.0078125]
// SCALAR: result 1: f16 = [1.0009766]

shard.grid @one(shape = 1)

func.func @narrow(%x: tensor<10xf64>)
    -> (tensor<10xbf16>, tensor<10xf16>, tensor<10xbf16>, tensor<10xf32>) {
  %b = prec.cast %x : tensor<10xf64> to tensor<10xbf16>
  %h = prec.cast %x : tensor<10xf64> to tensor<10xf16>
  %g = prec.all_gather %x on @one gather_axis = 0 forward_dtype = bf16
         : tensor<10xf64> -> tensor<10xbf16>
  %r = prec.all_reduce %x on @one forward_dtype = bf16 acc_dtype = f32
         : tensor<10xf64> -> tensor<10xf32>
  return %b, %h, %g, %r : tensor<10xbf16>, tensor<10xf16>, tensor<10xbf16>, tensor<10xf32>
}

func.func @scalars(%b: bf16, %h: f16) -> (bf16, f16) {
  return %b, %h : bf16, f16
}
