// examples/hsdp_microbatch.mlir with its gradient reduction written in the
// naive order of HSDP gradient accumulation: every collective averages over
// its own group, and the all-reduce runs on the last microbatch only, after
// which the first microbatch's shard is added. Every rank of shard group S
// ends with (1/8) sum_S g1 + (1/32) sum_all g2; check_hsdp_microbatch.py must
// reject it.

shard.grid @hsdp(shape = 4x8)

#x_map = affine_map<(m, b, o, i) -> (m, b, i)>
#w_map = affine_map<(m, b, o, i) -> (i, o)>
#y_map = affine_map<(m, b, o, i) -> (m, b, o)>
#x_by_input = affine_map<(m, i, o, b) -> (m, b, i)>
#dy_by_input = affine_map<(m, i, o, b) -> (m, b, o)>
#grad_map = affine_map<(m, i, o, b) -> (m, i, o)>

// %x and %target hold 2 microbatches of 4 examples each. Returns the updated
// master shard and the averaged gradient shard it was updated with.
func.func @hsdp_step(%w_shard: tensor<8x16xf32>, %x: tensor<2x4x64xf32>,
                     %target: tensor<2x4x16xf32>, %lr: f32)
    -> (tensor<8x16xf32>, tensor<8x16xf32>) {
  // The full weight, gathered once for both microbatches.
  %w = prec.all_gather %w_shard on @hsdp grid_axes = [1] gather_axis = 0
         forward_dtype = bf16 : tensor<8x16xf32> -> tensor<64x16xbf16>
  %zero = arith.constant 0.0 : f32

  // y[m] = x[m] @ w for both microbatches, accumulated in f32.
  %y_init = tensor.empty() : tensor<2x4x16xf32>
  %y_zero = linalg.fill ins(%zero : f32) outs(%y_init : tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
  %y = linalg.generic {indexing_maps = [#x_map, #w_map, #y_map],
                       iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
         ins(%x, %w : tensor<2x4x64xf32>, tensor<64x16xbf16>) outs(%y_zero : tensor<2x4x16xf32>) {
  ^bb0(%xv: f32, %wv: bf16, %acc: f32):
    %wf = arith.extf %wv : bf16 to f32
    %p = arith.mulf %xv, %wf : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<2x4x16xf32>

  // The loss of the step is the mean of (y - target)^2 over both
  // microbatches (2 x 4 x 16 values), so d loss / d y = (y - target) / 64
  // and microbatch m's gradient is grads[m] = x[m]^T @ dy[m].
  %err = arith.subf %y, %target : tensor<2x4x16xf32>
  %scale = arith.constant dense<0.015625> : tensor<2x4x16xf32>
  %dy = arith.mulf %err, %scale : tensor<2x4x16xf32>
  %g_init = tensor.empty() : tensor<2x64x16xf32>
  %g_zero = linalg.fill ins(%zero : f32) outs(%g_init : tensor<2x64x16xf32>) -> tensor<2x64x16xf32>
  %grads = linalg.generic {indexing_maps = [#x_by_input, #dy_by_input, #grad_map],
                           iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
             ins(%x, %dy : tensor<2x4x64xf32>, tensor<2x4x16xf32>) outs(%g_zero : tensor<2x64x16xf32>) {
  ^bb0(%xv: f32, %dyv: f32, %acc: f32):
    %p = arith.mulf %xv, %dyv : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<2x64x16xf32>

  // The naive order: microbatch 1 is reduce-scattered and averaged over its
  // shard group only; microbatch 2 is reduce-scattered and all-reduced, each
  // collective dividing by its own group; the shards are added last.
  %g1 = tensor.extract_slice %grads[0, 0, 0] [1, 64, 16] [1, 1, 1]
          : tensor<2x64x16xf32> to tensor<64x16xf32>
  %g2 = tensor.extract_slice %grads[1, 0, 0] [1, 64, 16] [1, 1, 1]
          : tensor<2x64x16xf32> to tensor<64x16xf32>
  %s1 = prec.reduce_scatter %g1 on @hsdp grid_axes = [1] scatter_axis = 0
          reduction = <avg> : tensor<64x16xf32> -> tensor<8x16xf32>
  %s2 = prec.reduce_scatter %g2 on @hsdp grid_axes = [1] scatter_axis = 0
          reduction = <avg> : tensor<64x16xf32> -> tensor<8x16xf32>
  %r2 = prec.all_reduce %s2 on @hsdp grid_axes = [0] reduction = <avg>
          : tensor<8x16xf32> -> tensor<8x16xf32>
  %grad = arith.addf %s1, %r2 : tensor<8x16xf32>

  %w_next = prec.sgd %w_shard, %grad, %lr : tensor<8x16xf32>, tensor<8x16xf32>
  return %w_next, %grad : tensor<8x16xf32>, tensor<8x16xf32>
}
