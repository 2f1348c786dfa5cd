// Scaled reductions beyond sums in f32: max and min combine the dequantized
// terms; a narrow acc_dtype never holds a scale (the product is formed
// exactly and rounded once to it); a pre-divisor divides each term before
// an f16 sum, as it does on an unscaled wire. Inputs are chosen so that the
// scaled values are exact in f8E4M3FN and the expected results exact.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -c "import struct; w = lambda n, v: open('%t/' + n, 'wb').write(struct.pack('<%%df' %% len(v), *v)); \
// RUN:   w('a0.bin', [1, 0.5, 0.25, 3.5]); w('a1.bin', [0.25, 1, 3.5, 0.5]); \
// RUN:   t = [2**-20, 2**-19, -3 * 2**-20, 2**-20]; w('t0.bin', t); w('t1.bin', t); \
// RUN:   w('b0.bin', [40000, -40000, 4, 0]); w('b1.bin', [40000, -40000, 4, 0])"
// RUN: prec-run %s --arg 0=%t/a%%r.bin --arg 1=%t/t%%r.bin --arg 2=%t/b%%r.bin --print values | FileCheck %s
//
// x / scale with scale = 3.5 / 448 = 2^-7 on both ranks: 128, 64, 32, 448.
// CHECK: rank 0: result 0: tensor<4xf32> = [1, 1, 3.5, 3.5]
// CHECK: rank 0: result 1: tensor<4xf32> = [0.25, 0.5, 0.25, 0.5]
// CHECK: rank 0: result 2: tensor<4xf32> = [1.25, 1.5, 3.75, 4]
// MX scale 2^-27 (not an f16 value): the f16 sums of 2^-20-sized terms.
// CHECK: rank 0: result 3: tensor<4xf32> = [1.9073486e-06, 3.8146973e-06, -5.7220459e-06, 1.9073486e-06]
// avg over 2 with f16 accumulation: each term halved before the sum
// (40000 + 40000 overflows f16), then 4 exactly (scale 40000 / 448).
// CHECK: rank 0: result 4: tensor<4xf32> = [40000, -40000, {{[0-9.]+}}, 0]
// CHECK: rank 1: result 0: tensor<4xf32> = [1, 1, 3.5, 3.5]

shard.grid @dp(shape = 2)

func.func @reductions(%a: tensor<4xf32>, %t: tensor<4xf32>, %b: tensor<4xf32>)
    -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %0 = prec.all_reduce %a on @dp reduction = <max> forward_dtype = f8E4M3FN
         scaling = <dynamic> : tensor<4xf32> -> tensor<4xf32>
  %1 = prec.all_reduce %a on @dp reduction = <min> forward_dtype = f8E4M3FN
         scaling = <dynamic> : tensor<4xf32> -> tensor<4xf32>
  %2 = prec.all_reduce %a on @dp forward_dtype = f8E4M3FN scaling = <dynamic>
         : tensor<4xf32> -> tensor<4xf32>
  %3 = prec.all_reduce %t on @dp forward_dtype = f8E4M3FN
         scaling = <block, block_size = 4> acc_dtype = f16 : tensor<4xf32> -> tensor<4xf32>
  %4 = prec.all_reduce %b on @dp reduction = <avg> forward_dtype = f8E4M3FN
         scaling = <dynamic> acc_dtype = f16 : tensor<4xf32> -> tensor<4xf32>
  return %0, %1, %2, %3, %4 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>,
      tensor<4xf32>, tensor<4xf32>
}
