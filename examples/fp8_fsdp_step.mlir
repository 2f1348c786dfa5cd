// examples/fsdp_step.mlir with fp8 weight gathers: the f32 master shards
// travel as f8E4M3FN with one dynamic scale per weight matrix (torchao's
// Float8Linear under FSDP2), and every rank dequantizes the gathered bytes to
// bf16 for its matmuls.
//
// Each scale comes from the amax of the whole (unsharded) matrix: every rank
// computes the amax of its shard, and prec-materialize-scales sends the
// amaxes of both matrices in ONE all_reduce(max) before the gathers (as
// torchao's precompute_float8_dynamic_scale_for_fsdp does for all
// parameters). The gradients are reduce-scattered in f32 and averaged, as
// in the bf16 example; a fused SGD step updates the f32 master shards.
//
//   prec-run --steps 8 --scalar 4=0.02 examples/fp8_fsdp_step.mlir
//   prec-opt --prec-lower-to-cpu examples/fp8_fsdp_step.mlir
//
// The MX variant: scaling = <block, block_size = 16> (one power-of-two
// scale per 16 weights of a row, no global reduction).

shard.grid @dp(shape = 4)

// The loss of this rank's batch. The gathers say which dtype travels in each
// direction: fp8 with a dynamic scale forwards (dequantized to bf16), f32
// for the gradients.
func.func private @mlp_loss(%w1_shard: tensor<16x64xf32>, %w2_shard: tensor<16x16xf32>,
                            %x: tensor<8x64xbf16>, %target: tensor<8x16xf32>)
    -> tensor<f32> attributes {prec.differentiable} {
  %w1 = prec.all_gather %w1_shard on @dp gather_axis = 0
          forward_dtype = f8E4M3FN backward_dtype = f32 scaling = <dynamic>
          : tensor<16x64xf32> -> tensor<64x64xbf16>
  %w2 = prec.all_gather %w2_shard on @dp gather_axis = 0
          forward_dtype = f8E4M3FN backward_dtype = f32 scaling = <dynamic>
          : tensor<16x16xf32> -> tensor<64x16xbf16>
  %zero = arith.constant 0.0 : f32

  // h = x @ w1, accumulated in f32 and rounded to bf16 for the next layer.
  %h_init = tensor.empty() : tensor<8x64xf32>
  %h_zero = linalg.fill ins(%zero : f32) outs(%h_init : tensor<8x64xf32>) -> tensor<8x64xf32>
  %h_acc = linalg.matmul ins(%x, %w1 : tensor<8x64xbf16>, tensor<64x64xbf16>)
                         outs(%h_zero : tensor<8x64xf32>) -> tensor<8x64xf32>
  %h = prec.cast %h_acc : tensor<8x64xf32> to tensor<8x64xbf16>

  // y = h @ w2 in f32.
  %y_init = tensor.empty() : tensor<8x16xf32>
  %y_zero = linalg.fill ins(%zero : f32) outs(%y_init : tensor<8x16xf32>) -> tensor<8x16xf32>
  %y = linalg.matmul ins(%h, %w2 : tensor<8x64xbf16>, tensor<64x16xbf16>)
                     outs(%y_zero : tensor<8x16xf32>) -> tensor<8x16xf32>

  // Mean squared error over the local batch.
  %err = arith.subf %y, %target : tensor<8x16xf32>
  %sq = arith.mulf %err, %err : tensor<8x16xf32>
  %loss = prec.reduce %sq dims = [0, 1] reduction = <avg> acc_dtype = f32
            : tensor<8x16xf32> -> tensor<f32>
  return %loss : tensor<f32>
}

// Filled in by prec-generate-backward: (forward inputs, d loss) -> gradients
// of the forward inputs.
func.func private @mlp_loss_backward(tensor<16x64xf32>, tensor<16x16xf32>, tensor<8x64xbf16>,
                                     tensor<8x16xf32>, tensor<f32>)
    -> (tensor<16x64xf32>, tensor<16x16xf32>, tensor<8x64xbf16>, tensor<8x16xf32>)

func.func @train_step(%w1_shard: tensor<16x64xf32>, %w2_shard: tensor<16x16xf32>,
                      %x: tensor<8x64xbf16>, %target: tensor<8x16xf32>,
                      %lr: f32 {prec.default = 0.02 : f32})
    -> (tensor<16x64xf32>, tensor<16x16xf32>, tensor<f32> {prec.name = "loss"}) {
  %loss = call @mlp_loss(%w1_shard, %w2_shard, %x, %target)
            : (tensor<16x64xf32>, tensor<16x16xf32>, tensor<8x64xbf16>, tensor<8x16xf32>) -> tensor<f32>
  %seed = arith.constant dense<1.0> : tensor<f32>
  %grads:4 = call @mlp_loss_backward(%w1_shard, %w2_shard, %x, %target, %seed)
               : (tensor<16x64xf32>, tensor<16x16xf32>, tensor<8x64xbf16>, tensor<8x16xf32>, tensor<f32>)
                 -> (tensor<16x64xf32>, tensor<16x16xf32>, tensor<8x64xbf16>, tensor<8x16xf32>)
  // Fused update of the f32 master shards.
  %w1_next = prec.sgd %w1_shard, %grads#0, %lr : tensor<16x64xf32>, tensor<16x64xf32>
  %w2_next = prec.sgd %w2_shard, %grads#1, %lr : tensor<16x16xf32>, tensor<16x16xf32>
  // The loss of the whole data-parallel batch.
  %mean_loss = prec.all_reduce %loss on @dp reduction = <avg> : tensor<f32> -> tensor<f32>
  return %w1_next, %w2_next, %mean_loss : tensor<16x64xf32>, tensor<16x16xf32>, tensor<f32>
}
