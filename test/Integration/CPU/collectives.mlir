// Every collective's numbers against a float64 reference computed in Python,
// independently of prec's lowering, on 1, 2, 4 and 8 ranks.
// RUN: rm -rf %t && mkdir -p %t/1 %t/2 %t/4 %t/8
// RUN: sed -e "s/shape = 4/shape = 1/" -e "s/8x4xf32/2x4xf32/g" -e "s/8x4xbf16/2x4xbf16/g" -e "s/8x4xf16/2x4xf16/g" %s > %t/1.mlir
// RUN: prec-run %t/1.mlir --scalar 2=0.25 --output-dir %t/1 --print none
// RUN: %python %S/Inputs/check_collectives.py %t/1 1
// RUN: sed -e 's/shape = 4/shape = 2/' -e 's/8x4x/4x4x/g' %s > %t/2.mlir
// RUN: prec-run %t/2.mlir --scalar 2=0.25 --output-dir %t/2 --print none
// RUN: %python %S/Inputs/check_collectives.py %t/2 2
// RUN: prec-run %s --scalar 2=0.25 --output-dir %t/4 --print none
// RUN: %python %S/Inputs/check_collectives.py %t/4 4
// RUN: sed -e 's/shape = 4/shape = 8/' -e 's/8x4xf32/16x4xf32/g' -e 's/8x4xbf16/16x4xbf16/g' -e 's/8x4xf16/16x4xf16/g' %s > %t/8.mlir
// RUN: prec-run %t/8.mlir --scalar 2=0.25 --output-dir %t/8 --print none
// RUN: %python %S/Inputs/check_collectives.py %t/8 8

shard.grid @dp(shape = 4)

func.func @step(%w: tensor<2x4xf32>, %g: tensor<8x4xf32>, %lr: f32)
    -> (tensor<2x4xf32>, tensor<8x4xbf16>, tensor<2x4xf32>, tensor<8x4xf32>, tensor<8x4xf16>) {
  %full = prec.all_gather %w on @dp gather_axis = 0 forward_dtype = bf16
            : tensor<2x4xf32> -> tensor<8x4xbf16>
  %grad = prec.reduce_scatter %g on @dp scatter_axis = 0 reduction = <avg>
            forward_dtype = bf16 acc_dtype = f32 : tensor<8x4xf32> -> tensor<2x4xf32>
  %next = prec.sgd %w, %grad, %lr : tensor<2x4xf32>, tensor<2x4xf32>
  %ring = prec.all_reduce %g on @dp : tensor<8x4xf32> -> tensor<8x4xf32>
  %lossy = prec.all_reduce %g on @dp forward_dtype = f16 acc_dtype = f16
             : tensor<8x4xf32> -> tensor<8x4xf16>
  return %next, %full, %grad, %ring, %lossy
    : tensor<2x4xf32>, tensor<8x4xbf16>, tensor<2x4xf32>, tensor<8x4xf32>, tensor<8x4xf16>
}
