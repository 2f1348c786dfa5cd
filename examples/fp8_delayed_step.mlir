// examples/fp8_fsdp_step.mlir with delayed scaling: each weight matrix is
// gathered as f8E4M3FN with a scale from the largest amax of the last 16
// steps, so no amax reduction runs before the gathers. The amax history is
// explicit state, like optimizer state: an argument in, the updated history
// out, fed back by prec-run --steps. This step's amaxes (one all_reduce for
// both matrices, after the gathers) enter the history.
//
//   python3 -c "open('history.bin', 'wb').write(bytes(2 * 16 * 4))"
//   prec-run --steps 8 --arg 2=history.bin --scalar 5=0.02 examples/fp8_delayed_step.mlir
//
// A history of zeros gives scale 1 in the first step (torchao's initial
// scale); values above 448 * scale would saturate.

shard.grid @dp(shape = 4)

// The loss of this rank's batch from the gathered (dequantized) weights.
func.func private @mlp_loss(%w1: tensor<64x64xbf16>, %w2: tensor<64x16xbf16>,
                            %x: tensor<8x64xbf16>, %target: tensor<8x16xf32>)
    -> tensor<f32> attributes {prec.differentiable} {
  %zero = arith.constant 0.0 : f32
  %h_init = tensor.empty() : tensor<8x64xf32>
  %h_zero = linalg.fill ins(%zero : f32) outs(%h_init : tensor<8x64xf32>) -> tensor<8x64xf32>
  %h_acc = linalg.matmul ins(%x, %w1 : tensor<8x64xbf16>, tensor<64x64xbf16>)
                         outs(%h_zero : tensor<8x64xf32>) -> tensor<8x64xf32>
  %h = prec.cast %h_acc : tensor<8x64xf32> to tensor<8x64xbf16>
  %y_init = tensor.empty() : tensor<8x16xf32>
  %y_zero = linalg.fill ins(%zero : f32) outs(%y_init : tensor<8x16xf32>) -> tensor<8x16xf32>
  %y = linalg.matmul ins(%h, %w2 : tensor<8x64xbf16>, tensor<64x16xbf16>)
                     outs(%y_zero : tensor<8x16xf32>) -> tensor<8x16xf32>
  %err = arith.subf %y, %target : tensor<8x16xf32>
  %sq = arith.mulf %err, %err : tensor<8x16xf32>
  %loss = prec.reduce %sq dims = [0, 1] reduction = <avg> acc_dtype = f32
            : tensor<8x16xf32> -> tensor<f32>
  return %loss : tensor<f32>
}

// Filled in by prec-generate-backward.
func.func private @mlp_loss_backward(tensor<64x64xbf16>, tensor<64x16xbf16>, tensor<8x64xbf16>,
                                     tensor<8x16xf32>, tensor<f32>)
    -> (tensor<64x64xbf16>, tensor<64x16xbf16>, tensor<8x64xbf16>, tensor<8x16xf32>)

func.func @train_step(%w1_shard: tensor<16x64xf32>, %w2_shard: tensor<16x16xf32>,
                      %history: tensor<2x16xf32>, %x: tensor<8x64xbf16>,
                      %target: tensor<8x16xf32>,
                      %lr: f32 {prec.default = 0.02 : f32})
    -> (tensor<16x64xf32>, tensor<16x16xf32>, tensor<2x16xf32>,
        tensor<f32> {prec.name = "loss"}) {
  // This step's scales: the largest amax of each row of the history.
  %hmax = prec.reduce %history dims = [1] reduction = <max>
            : tensor<2x16xf32> -> tensor<2xf32>
  %scales = prec.scale_from_amax %hmax element_type = f8E4M3FN
              : tensor<2xf32> -> tensor<2xf32>
  %s1_slice = tensor.extract_slice %scales[0] [1] [1] : tensor<2xf32> to tensor<1xf32>
  %s1 = tensor.collapse_shape %s1_slice [] : tensor<1xf32> into tensor<f32>
  %s2_slice = tensor.extract_slice %scales[1] [1] [1] : tensor<2xf32> to tensor<1xf32>
  %s2 = tensor.collapse_shape %s2_slice [] : tensor<1xf32> into tensor<f32>

  // Gather the fp8 bytes, dequantize to bf16.
  %q1 = prec.quantize %w1_shard scale %s1 scaling = <delayed, history = 16>
          : tensor<16x64xf32>, tensor<f32> -> tensor<16x64xf8E4M3FN>
  %g1 = prec.all_gather %q1 on @dp gather_axis = 0
          : tensor<16x64xf8E4M3FN> -> tensor<64x64xf8E4M3FN>
  %w1 = prec.dequantize %g1 scale %s1 scaling = <delayed, history = 16>
          : tensor<64x64xf8E4M3FN>, tensor<f32> -> tensor<64x64xbf16>
  %q2 = prec.quantize %w2_shard scale %s2 scaling = <delayed, history = 16>
          : tensor<16x16xf32>, tensor<f32> -> tensor<16x16xf8E4M3FN>
  %g2 = prec.all_gather %q2 on @dp gather_axis = 0
          : tensor<16x16xf8E4M3FN> -> tensor<64x16xf8E4M3FN>
  %w2 = prec.dequantize %g2 scale %s2 scaling = <delayed, history = 16>
          : tensor<64x16xf8E4M3FN>, tensor<f32> -> tensor<64x16xbf16>

  // Forward, generated backward, gradients reduce-scattered in f32 and
  // averaged, fused SGD on the f32 master shards.
  %loss = call @mlp_loss(%w1, %w2, %x, %target)
            : (tensor<64x64xbf16>, tensor<64x16xbf16>, tensor<8x64xbf16>, tensor<8x16xf32>) -> tensor<f32>
  %one = arith.constant dense<1.0> : tensor<f32>
  %grads:4 = call @mlp_loss_backward(%w1, %w2, %x, %target, %one)
               : (tensor<64x64xbf16>, tensor<64x16xbf16>, tensor<8x64xbf16>, tensor<8x16xf32>, tensor<f32>)
                 -> (tensor<64x64xbf16>, tensor<64x16xbf16>, tensor<8x64xbf16>, tensor<8x16xf32>)
  %gw1 = prec.reduce_scatter %grads#0 on @dp scatter_axis = 0 reduction = <avg>
           forward_dtype = f32 : tensor<64x64xbf16> -> tensor<16x64xf32>
  %gw2 = prec.reduce_scatter %grads#1 on @dp scatter_axis = 0 reduction = <avg>
           forward_dtype = f32 : tensor<64x16xbf16> -> tensor<16x16xf32>
  %w1_next = prec.sgd %w1_shard, %gw1, %lr : tensor<16x64xf32>, tensor<16x64xf32>
  %w2_next = prec.sgd %w2_shard, %gw2, %lr : tensor<16x16xf32>, tensor<16x16xf32>

  // This step's amaxes of the whole matrices, in one all_reduce, enter the
  // history: new history = [amax, history[0 .. 14]] per row.
  %a1 = prec.amax %w1_shard : tensor<16x64xf32> -> tensor<f32>
  %a2 = prec.amax %w2_shard : tensor<16x16xf32> -> tensor<f32>
  %a1_col = tensor.expand_shape %a1 [] output_shape [1, 1] : tensor<f32> into tensor<1x1xf32>
  %a2_col = tensor.expand_shape %a2 [] output_shape [1, 1] : tensor<f32> into tensor<1x1xf32>
  %col_init = tensor.empty() : tensor<2x1xf32>
  %col_1 = tensor.insert_slice %a1_col into %col_init[0, 0] [1, 1] [1, 1] : tensor<1x1xf32> into tensor<2x1xf32>
  %local = tensor.insert_slice %a2_col into %col_1[1, 0] [1, 1] [1, 1] : tensor<1x1xf32> into tensor<2x1xf32>
  %amaxes = prec.all_reduce %local on @dp reduction = <max> : tensor<2x1xf32> -> tensor<2x1xf32>
  %older = tensor.extract_slice %history[0, 0] [2, 15] [1, 1] : tensor<2x16xf32> to tensor<2x15xf32>
  %hist_init = tensor.empty() : tensor<2x16xf32>
  %hist_1 = tensor.insert_slice %amaxes into %hist_init[0, 0] [2, 1] [1, 1] : tensor<2x1xf32> into tensor<2x16xf32>
  %history_next = tensor.insert_slice %older into %hist_1[0, 1] [2, 15] [1, 1] : tensor<2x15xf32> into tensor<2x16xf32>

  %mean_loss = prec.all_reduce %loss on @dp reduction = <avg> : tensor<f32> -> tensor<f32>
  return %w1_next, %w2_next, %history_next, %mean_loss
      : tensor<16x64xf32>, tensor<16x16xf32>, tensor<2x16xf32>, tensor<f32>
}
