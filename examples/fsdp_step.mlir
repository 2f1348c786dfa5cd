// One FSDP training step of a two-layer MLP on 4 data-parallel ranks.
//
// Each rank holds an f32 shard (1/4 of the rows) of both weight matrices.
// The forward pass all-gathers them in bf16 (FSDP's param_dtype), the
// backward pass reduce-scatters the weight gradients in f32 (reduce_dtype)
// and averages them over the 4 ranks, and a fused SGD step updates the f32
// master shards and writes the next step's bf16 shards.
//
//   prec-opt --prec-infer-precision --canonicalize examples/fsdp_step.mlir

shard.grid @dp(shape = 4)

func.func @mlp_step(%w1_shard: tensor<16x64xf32>, %w2_shard: tensor<16x16xf32>,
                    %x: tensor<8x64xbf16>, %dy: tensor<8x16xf32>, %lr: f32)
    -> (tensor<16x64xf32>, tensor<16x16xf32>) {
  // Forward: gather the f32 shards as bf16; their gradients come back
  // reduce-scattered in f32.
  %w1 = prec.all_gather %w1_shard on @dp gather_axis = 0
          forward_dtype = bf16 backward_dtype = f32
          : tensor<16x64xf32> -> tensor<64x64xbf16>
  %w2 = prec.all_gather %w2_shard on @dp gather_axis = 0
          forward_dtype = bf16 backward_dtype = f32
          : tensor<16x16xf32> -> tensor<64x16xbf16>

  // h = x @ w1 (accumulated in f32, rounded to bf16 for the next layer).
  %h_init = tensor.empty() : tensor<8x64xf32>
  %zero = arith.constant 0.0 : f32
  %h_acc0 = linalg.fill ins(%zero : f32) outs(%h_init : tensor<8x64xf32>) -> tensor<8x64xf32>
  %h_acc = linalg.matmul ins(%x, %w1 : tensor<8x64xbf16>, tensor<64x64xbf16>)
                         outs(%h_acc0 : tensor<8x64xf32>) -> tensor<8x64xf32>
  %h = prec.cast %h_acc : tensor<8x64xf32> to tensor<8x64xbf16>

  // Backward of the second layer: dW2 = h^T @ dy, local to this rank's batch.
  %ht_init = tensor.empty() : tensor<64x8xbf16>
  %ht = linalg.transpose ins(%h : tensor<8x64xbf16>) outs(%ht_init : tensor<64x8xbf16>)
          permutation = [1, 0]
  %dw2_init = tensor.empty() : tensor<64x16xf32>
  %dw2_acc0 = linalg.fill ins(%zero : f32) outs(%dw2_init : tensor<64x16xf32>) -> tensor<64x16xf32>
  %dy16 = prec.cast %dy : tensor<8x16xf32> to tensor<8x16xbf16>
  %dw2 = linalg.matmul ins(%ht, %dy16 : tensor<64x8xbf16>, tensor<8x16xbf16>)
                       outs(%dw2_acc0 : tensor<64x16xf32>) -> tensor<64x16xf32>

  // Backward of the first layer: dH = dy @ w2^T, dW1 = x^T @ dH.
  %w2t_init = tensor.empty() : tensor<16x64xbf16>
  %w2t = linalg.transpose ins(%w2 : tensor<64x16xbf16>) outs(%w2t_init : tensor<16x64xbf16>)
           permutation = [1, 0]
  %dh_init = tensor.empty() : tensor<8x64xf32>
  %dh_acc0 = linalg.fill ins(%zero : f32) outs(%dh_init : tensor<8x64xf32>) -> tensor<8x64xf32>
  %dh_acc = linalg.matmul ins(%dy16, %w2t : tensor<8x16xbf16>, tensor<16x64xbf16>)
                          outs(%dh_acc0 : tensor<8x64xf32>) -> tensor<8x64xf32>
  %dh = prec.cast %dh_acc : tensor<8x64xf32> to tensor<8x64xbf16>
  %xt_init = tensor.empty() : tensor<64x8xbf16>
  %xt = linalg.transpose ins(%x : tensor<8x64xbf16>) outs(%xt_init : tensor<64x8xbf16>)
          permutation = [1, 0]
  %dw1_init = tensor.empty() : tensor<64x64xf32>
  %dw1_acc0 = linalg.fill ins(%zero : f32) outs(%dw1_init : tensor<64x64xf32>) -> tensor<64x64xf32>
  %dw1 = linalg.matmul ins(%xt, %dh : tensor<64x8xbf16>, tensor<8x64xbf16>)
                       outs(%dw1_acc0 : tensor<64x64xf32>) -> tensor<64x64xf32>

  // Gradient reduction: f32 on the wire, f32 accumulation, averaged over the
  // data-parallel group (each rank's loss is a mean over its local batch).
  %g1 = prec.reduce_scatter %dw1 on @dp scatter_axis = 0 reduction = <avg>
          forward_dtype = f32 acc_dtype = f32 : tensor<64x64xf32> -> tensor<16x64xf32>
  %g2 = prec.reduce_scatter %dw2 on @dp scatter_axis = 0 reduction = <avg>
          forward_dtype = f32 acc_dtype = f32 : tensor<64x16xf32> -> tensor<16x16xf32>

  // Fused update of the f32 master shards.
  %w1_next = prec.sgd %w1_shard, %g1, %lr : tensor<16x64xf32>, tensor<16x64xf32>
  %w2_next = prec.sgd %w2_shard, %g2, %lr : tensor<16x16xf32>, tensor<16x16xf32>
  return %w1_next, %w2_next : tensor<16x64xf32>, tensor<16x16xf32>
}
