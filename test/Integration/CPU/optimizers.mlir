// The fused optimizer kernels against a float64 reference: AdamW with a bf16
// gradient and an f32 master writing a bf16 shard, and SGD with weight decay.
// RUN: rm -rf %t && mkdir -p %t
// RUN: prec-run %s --ranks 1 --scalar 4=0.01 --scalar 5=3 --output-dir %t --print none
// RUN: %python %S/Inputs/check_optimizers.py %t

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
