// One HSDP training step with gradient accumulation over 2 microbatches, on
// 32 ranks: 4 replicas x 8 shards.
//
// A linear layer y = x @ w, w of 64x16, is sharded by rows over the shard
// axis (axis 1): every rank holds an f32 master shard of 8 rows, and the
// ranks of a replicate group (axis 0) hold the same rows. The step gathers
// w in bf16 over the shard axis (FSDP's param_dtype), computes the gradient
// of a mean squared error for each microbatch, reduces it in f32 and updates
// the master shard with SGD.
//
// The gradient reduction states *what* the step computes: microbatch k's
// gradient (dimension 0 of %grads) is averaged over the shard group
// (reduce-scatter) and the replicate group (all-reduce), and the microbatches
// are summed. prec-accumulate-microbatches, which the function's
// `prec.microbatches = 2` enables, turns it into HSDP's schedule: a loop
// reduce-scatters each microbatch over the shard axis and accumulates the
// shard; one all-reduce over the replicate axis follows the last microbatch,
// and divides once by 32. Every rank ends with
//
//   (1/32) * sum over all 32 ranks of (g1 + g2)
//
// for its shard, never the naive (1/8) sum_S g1 + (1/32) sum_all g2 of
// averaging each collective as if it ran alone.
//
//   prec-run --scalar 3=0.1 examples/hsdp_microbatch.mlir

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
                     %target: tensor<2x4x16xf32>,
                     %lr: f32 {prec.default = 0.1 : f32})
    -> (tensor<8x16xf32> {prec.name = "w_shard"},
        tensor<8x16xf32> {prec.name = "grad"})
    attributes {prec.microbatches = 2 : i64} {
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

  // Average every microbatch's gradient over all 32 ranks, sum the
  // microbatches: the schedule is prec-accumulate-microbatches' business.
  %shards = prec.reduce_scatter %grads on @hsdp grid_axes = [1] scatter_axis = 1
              reduction = <avg> : tensor<2x64x16xf32> -> tensor<2x8x16xf32>
  %replicated = prec.all_reduce %shards on @hsdp grid_axes = [0] reduction = <avg>
                  : tensor<2x8x16xf32> -> tensor<2x8x16xf32>
  %grad = prec.reduce %replicated dims = [0] reduction = <sum>
            : tensor<2x8x16xf32> -> tensor<8x16xf32>

  %w_next = prec.sgd %w_shard, %grad, %lr : tensor<8x16xf32>, tensor<8x16xf32>
  return %w_next, %grad : tensor<8x16xf32>, tensor<8x16xf32>
}
