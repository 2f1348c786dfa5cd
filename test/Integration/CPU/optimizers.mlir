// The fused optimizer kernels against a float64 reference: AdamW with a bf16
// gradient and an f32 master writing a bf16 shard, and SGD with weight decay.
// RUN: rm -rf %t && mkdir -p %t
// RUN: prec-run %s --entry update --ranks 1 --scalar 4=0.01 --scalar 5=3 --output-dir %t --print none
// RUN: %python %S/Inputs/check_optimizers.py %t
// PyTorch's defaults at step 10: the bias corrections must not cancel in f32.
// RUN: rm -rf %t.torch && mkdir -p %t.torch
// RUN: prec-run %s --entry update_torch_defaults --ranks 1 --scalar 4=0.01 --scalar 5=10 --output-dir %t.torch --print none
// RUN: %python %S/Inputs/check_optimizers.py %t.torch 0.9 0.999 1e-8 0.01

func.func @update(%p: tensor<64xf32>, %g: tensor<64xbf16>, %m: tensor<64xf32>,
                  %v: tensor<64xf32>, %lr: f32, %step: f32)
    -> (tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xbf16>, tensor<64xf32>) {
  // The second-moment state is non-negative.
  %v2 = arith.mulf %v, %v : tensor<64xf32>
  %adam:4 = prec.adamw %p, %g, %m, %v2, %lr, %step beta1 = 0.9 beta2 = 0.99 eps = 1.0e-3
              weight_decay = 0.1 : tensor<64xf32>, tensor<64xbf16> -> tensor<64xbf16>
  %sgd = prec.sgd %p, %g, %lr weight_decay = 0.5 : tensor<64xf32>, tensor<64xbf16>
  return %adam#0, %adam#1, %adam#2, %adam#3, %sgd
    : tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xbf16>, tensor<64xf32>
}

func.func @update_torch_defaults(%p: tensor<64xf32>, %g: tensor<64xbf16>, %m: tensor<64xf32>,
                                 %v: tensor<64xf32>, %lr: f32, %step: f32)
    -> (tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xbf16>, tensor<64xf32>) {
  %v2 = arith.mulf %v, %v : tensor<64xf32>
  %adam:4 = prec.adamw %p, %g, %m, %v2, %lr, %step beta1 = 0.9 beta2 = 0.999 eps = 1.0e-8
              weight_decay = 0.01 : tensor<64xf32>, tensor<64xbf16> -> tensor<64xbf16>
  %sgd = prec.sgd %p, %g, %lr weight_decay = 0.5 : tensor<64xf32>, tensor<64xbf16>
  return %adam#0, %adam#1, %adam#2, %adam#3, %sgd
    : tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xbf16>, tensor<64xf32>
}
