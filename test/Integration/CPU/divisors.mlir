// Divisors the arithmetic type cannot hold exactly (0.1, 0.3 in f32 and f16)
// or that lie far from 1 (1e30): each is applied in a type that holds it, and
// the results match a float64 reference on 3 and 4 ranks.
// RUN: rm -rf %t && mkdir -p %t/3 %t/4
// RUN: sed -e 's/shape = 4/shape = 3/' -e 's/8x4x/6x4x/g' %s > %t/3.mlir
// RUN: prec-run %t/3.mlir --output-dir %t/3 --print none
// RUN: %python %S/Inputs/check_divisors.py %t/3 3
// RUN: prec-run %s --output-dir %t/4 --print none
// RUN: %python %S/Inputs/check_divisors.py %t/4 4

shard.grid @dp(shape = 4)

func.func @step(%g: tensor<8x4xf32>, %h: tensor<8x4xf16>)
    -> (tensor<2x4xf32>, tensor<8x4xf32>, tensor<8x4xf16>) {
  %scattered = prec.reduce_scatter %g on @dp scatter_axis = 0
                 forward_dtype = bf16 acc_dtype = f32
                 pre_divisor = 0.1 post_divisor = 1.0e30
               : tensor<8x4xf32> -> tensor<2x4xf32>
  %tiny = prec.all_reduce %g on @dp post_divisor = 3.0e-30
            : tensor<8x4xf32> -> tensor<8x4xf32>
  %half = prec.all_reduce %h on @dp acc_dtype = f16
            pre_divisor = 0.3 post_divisor = 7.0
          : tensor<8x4xf16> -> tensor<8x4xf16>
  return %scattered, %tiny, %half : tensor<2x4xf32>, tensor<8x4xf32>, tensor<8x4xf16>
}
