// The step of transformer_block_hsdp_step.mlir in the batched form: the
// step computes the gradients of both microbatches at once and states their
// reduction, which prec-accumulate-microbatches schedules.
//
// Same grid (2 replicas x 2 shards), parameters, arguments and results as
// transformer_block_hsdp_step.mlir, and the same values up to the order of
// f32 sums. The weights are gathered in bf16 once and broadcast along a
// microbatch dimension 0; @loss runs both microbatches through the two
// blocks together (batch matmuls over the microbatch dimension), so its
// generated backward returns each microbatch's gradient of the gathered
// weights separately, tensor<2x...>. Their reduction is written as what
// the step computes: reduce-scatter over the shard axis, all-reduce over
// the replicate axis, sum over the microbatches; prec-accumulate-
// microbatches turns each into a loop that reduce-scatters and accumulates
// one microbatch at a time and one all-reduce after it.
//
// Unlike the loop form, the forward and backward compute of both
// microbatches happens at once: all their activations are live together
// (docs/Prec.md, "Peak memory of the two schedules").

shard.grid @hsdp(shape = 2x2)

#mb_tokens_features = affine_map<(m, t, f) -> (m, t, f)>
#mb_tokens = affine_map<(m, t, f) -> (m, t)>
#mb_features = affine_map<(m, t, f) -> (m, f)>

// The mean squared error of this rank's tokens of both microbatches after
// the two blocks, each microbatch with its own copy of the weights.
func.func private @loss(%g0: tensor<2x16xbf16>, %w1_0: tensor<2x16x32xbf16>, %w2_0: tensor<2x32x16xbf16>, %g1: tensor<2x16xbf16>, %w1_1: tensor<2x16x32xbf16>, %w2_1: tensor<2x32x16xbf16>,
                        %x0: tensor<2x8x16xf32>, %target: tensor<2x8x16xf32>)
    -> tensor<f32> attributes {prec.differentiable} {
  %zero = arith.constant 0.0 : f32
  %empty2x8 = tensor.empty() : tensor<2x8xf32>
  %zeros2x8 = linalg.fill ins(%zero : f32) outs(%empty2x8 : tensor<2x8xf32>) -> tensor<2x8xf32>
  %empty2x8x16 = tensor.empty() : tensor<2x8x16xbf16>
  %empty2x8x32 = tensor.empty() : tensor<2x8x32xbf16>
  %empty2x8x32f = tensor.empty() : tensor<2x8x32xf32>
  %zeros2x8x32 = linalg.fill ins(%zero : f32) outs(%empty2x8x32f : tensor<2x8x32xf32>) -> tensor<2x8x32xf32>
  %empty2x8x16f = tensor.empty() : tensor<2x8x16xf32>
  %zeros2x8x16 = linalg.fill ins(%zero : f32) outs(%empty2x8x16f : tensor<2x8x16xf32>) -> tensor<2x8x16xf32>

  // Block 0: x1 = x0 + W2 SiLU(W1 RMSNorm(x0) * g), per microbatch.
  %ss0 = linalg.generic {indexing_maps = [#mb_tokens_features, #mb_tokens],
                          iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x0 : tensor<2x8x16xf32>) outs(%zeros2x8 : tensor<2x8xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %sq = arith.mulf %v, %v : f32
    %s = arith.addf %acc, %sq : f32
    linalg.yield %s : f32
  } -> tensor<2x8xf32>
  %n0 = linalg.generic {indexing_maps = [#mb_tokens_features, #mb_tokens, #mb_features, #mb_tokens_features],
                        iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x0, %ss0, %g0 : tensor<2x8x16xf32>, tensor<2x8xf32>, tensor<2x16xbf16>)
      outs(%empty2x8x16 : tensor<2x8x16xbf16>) {
  ^bb0(%v: f32, %s: f32, %gain: bf16, %out: bf16):
    %width = arith.constant 16.0 : f32
    %eps = arith.constant 1.0e-6 : f32
    %mean = arith.divf %s, %width : f32
    %me = arith.addf %mean, %eps : f32
    %r = math.rsqrt %me : f32
    %gf = arith.extf %gain : bf16 to f32
    %vr = arith.mulf %v, %r : f32
    %o = arith.mulf %vr, %gf : f32
    %o16 = arith.truncf %o : f32 to bf16
    linalg.yield %o16 : bf16
  } -> tensor<2x8x16xbf16>
  %h0 = linalg.batch_matmul ins(%n0, %w1_0 : tensor<2x8x16xbf16>, tensor<2x16x32xbf16>)
                            outs(%zeros2x8x32 : tensor<2x8x32xf32>) -> tensor<2x8x32xf32>
  %a0 = linalg.map ins(%h0 : tensor<2x8x32xf32>) outs(%empty2x8x32 : tensor<2x8x32xbf16>)
    (%v: f32, %out: bf16) {
      %one = arith.constant 1.0 : f32
      %nv = arith.negf %v : f32
      %e = math.exp %nv : f32
      %d = arith.addf %one, %e : f32
      %silu = arith.divf %v, %d : f32
      %silu16 = arith.truncf %silu : f32 to bf16
      linalg.yield %silu16 : bf16
    }
  %y0 = linalg.batch_matmul ins(%a0, %w2_0 : tensor<2x8x32xbf16>, tensor<2x32x16xbf16>)
                            outs(%zeros2x8x16 : tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
  %x1 = arith.addf %x0, %y0 : tensor<2x8x16xf32>

  // Block 1: x2 = x1 + W2 SiLU(W1 RMSNorm(x1) * g), per microbatch.
  %ss1 = linalg.generic {indexing_maps = [#mb_tokens_features, #mb_tokens],
                          iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x1 : tensor<2x8x16xf32>) outs(%zeros2x8 : tensor<2x8xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %sq = arith.mulf %v, %v : f32
    %s = arith.addf %acc, %sq : f32
    linalg.yield %s : f32
  } -> tensor<2x8xf32>
  %n1 = linalg.generic {indexing_maps = [#mb_tokens_features, #mb_tokens, #mb_features, #mb_tokens_features],
                        iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x1, %ss1, %g1 : tensor<2x8x16xf32>, tensor<2x8xf32>, tensor<2x16xbf16>)
      outs(%empty2x8x16 : tensor<2x8x16xbf16>) {
  ^bb0(%v: f32, %s: f32, %gain: bf16, %out: bf16):
    %width = arith.constant 16.0 : f32
    %eps = arith.constant 1.0e-6 : f32
    %mean = arith.divf %s, %width : f32
    %me = arith.addf %mean, %eps : f32
    %r = math.rsqrt %me : f32
    %gf = arith.extf %gain : bf16 to f32
    %vr = arith.mulf %v, %r : f32
    %o = arith.mulf %vr, %gf : f32
    %o16 = arith.truncf %o : f32 to bf16
    linalg.yield %o16 : bf16
  } -> tensor<2x8x16xbf16>
  %h1 = linalg.batch_matmul ins(%n1, %w1_1 : tensor<2x8x16xbf16>, tensor<2x16x32xbf16>)
                            outs(%zeros2x8x32 : tensor<2x8x32xf32>) -> tensor<2x8x32xf32>
  %a1 = linalg.map ins(%h1 : tensor<2x8x32xf32>) outs(%empty2x8x32 : tensor<2x8x32xbf16>)
    (%v: f32, %out: bf16) {
      %one = arith.constant 1.0 : f32
      %nv = arith.negf %v : f32
      %e = math.exp %nv : f32
      %d = arith.addf %one, %e : f32
      %silu = arith.divf %v, %d : f32
      %silu16 = arith.truncf %silu : f32 to bf16
      linalg.yield %silu16 : bf16
    }
  %y1 = linalg.batch_matmul ins(%a1, %w2_1 : tensor<2x8x32xbf16>, tensor<2x32x16xbf16>)
                            outs(%zeros2x8x16 : tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
  %x2 = arith.addf %x1, %y1 : tensor<2x8x16xf32>

  // The mean over both microbatches: each microbatch's loss weighted 1/2.
  %err = arith.subf %x2, %target : tensor<2x8x16xf32>
  %sq = arith.mulf %err, %err : tensor<2x8x16xf32>
  %l = prec.reduce %sq dims = [0, 1, 2] reduction = <avg> acc_dtype = f32
         : tensor<2x8x16xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// Filled in by prec-generate-backward.
func.func private @loss_backward(tensor<2x16xbf16>, tensor<2x16x32xbf16>, tensor<2x32x16xbf16>, tensor<2x16xbf16>, tensor<2x16x32xbf16>, tensor<2x32x16xbf16>,
                                 tensor<2x8x16xf32>, tensor<2x8x16xf32>, tensor<f32>)
    -> (tensor<2x16xbf16>, tensor<2x16x32xbf16>, tensor<2x32x16xbf16>, tensor<2x16xbf16>, tensor<2x16x32xbf16>, tensor<2x32x16xbf16>,
        tensor<2x8x16xf32>, tensor<2x8x16xf32>)

func.func @train_step(
    %g0: tensor<8xf32>, %w1_0: tensor<8x32xf32>, %w2_0: tensor<16x16xf32>,
    %g1: tensor<8xf32>, %w1_1: tensor<8x32xf32>, %w2_1: tensor<16x16xf32>,
    %mg0: tensor<8xf32>, %mw1_0: tensor<8x32xf32>, %mw2_0: tensor<16x16xf32>,
    %mg1: tensor<8xf32>, %mw1_1: tensor<8x32xf32>, %mw2_1: tensor<16x16xf32>,
    %vg0: tensor<8xf32>, %vw1_0: tensor<8x32xf32>, %vw2_0: tensor<16x16xf32>,
    %vg1: tensor<8xf32>, %vw1_1: tensor<8x32xf32>, %vw2_1: tensor<16x16xf32>,
    %step: f32 {prec.default = 1.0 : f32},
    %x: tensor<2x8x16xf32>, %target: tensor<2x8x16xf32>, %lr: f32 {prec.default = 0.01 : f32})
    -> (tensor<8xf32>, tensor<8x32xf32>, tensor<16x16xf32>, tensor<8xf32>, tensor<8x32xf32>, tensor<16x16xf32>, tensor<8xf32>, tensor<8x32xf32>, tensor<16x16xf32>, tensor<8xf32>, tensor<8x32xf32>, tensor<16x16xf32>, tensor<8xf32>, tensor<8x32xf32>, tensor<16x16xf32>, tensor<8xf32>, tensor<8x32xf32>, tensor<16x16xf32>, f32,
        tensor<f32> {prec.name = "loss"})
    attributes {prec.microbatches = 2 : i64} {
  // The weights, gathered in bf16 over the shard axis once for both
  // microbatches and broadcast along the microbatch dimension.
  %g0_full = prec.all_gather %g0 on @hsdp grid_axes = [1] gather_axis = 0 forward_dtype = bf16
             : tensor<8xf32> -> tensor<16xbf16>
  %g0_init = tensor.empty() : tensor<2x16xbf16>
  %g0_mb = linalg.broadcast ins(%g0_full : tensor<16xbf16>) outs(%g0_init : tensor<2x16xbf16>) dimensions = [0]
  %w1_0_full = prec.all_gather %w1_0 on @hsdp grid_axes = [1] gather_axis = 0 forward_dtype = bf16
             : tensor<8x32xf32> -> tensor<16x32xbf16>
  %w1_0_init = tensor.empty() : tensor<2x16x32xbf16>
  %w1_0_mb = linalg.broadcast ins(%w1_0_full : tensor<16x32xbf16>) outs(%w1_0_init : tensor<2x16x32xbf16>) dimensions = [0]
  %w2_0_full = prec.all_gather %w2_0 on @hsdp grid_axes = [1] gather_axis = 0 forward_dtype = bf16
             : tensor<16x16xf32> -> tensor<32x16xbf16>
  %w2_0_init = tensor.empty() : tensor<2x32x16xbf16>
  %w2_0_mb = linalg.broadcast ins(%w2_0_full : tensor<32x16xbf16>) outs(%w2_0_init : tensor<2x32x16xbf16>) dimensions = [0]
  %g1_full = prec.all_gather %g1 on @hsdp grid_axes = [1] gather_axis = 0 forward_dtype = bf16
             : tensor<8xf32> -> tensor<16xbf16>
  %g1_init = tensor.empty() : tensor<2x16xbf16>
  %g1_mb = linalg.broadcast ins(%g1_full : tensor<16xbf16>) outs(%g1_init : tensor<2x16xbf16>) dimensions = [0]
  %w1_1_full = prec.all_gather %w1_1 on @hsdp grid_axes = [1] gather_axis = 0 forward_dtype = bf16
             : tensor<8x32xf32> -> tensor<16x32xbf16>
  %w1_1_init = tensor.empty() : tensor<2x16x32xbf16>
  %w1_1_mb = linalg.broadcast ins(%w1_1_full : tensor<16x32xbf16>) outs(%w1_1_init : tensor<2x16x32xbf16>) dimensions = [0]
  %w2_1_full = prec.all_gather %w2_1 on @hsdp grid_axes = [1] gather_axis = 0 forward_dtype = bf16
             : tensor<16x16xf32> -> tensor<32x16xbf16>
  %w2_1_init = tensor.empty() : tensor<2x32x16xbf16>
  %w2_1_mb = linalg.broadcast ins(%w2_1_full : tensor<32x16xbf16>) outs(%w2_1_init : tensor<2x32x16xbf16>) dimensions = [0]
  %l = func.call @loss(%g0_mb, %w1_0_mb, %w2_0_mb, %g1_mb, %w1_1_mb, %w2_1_mb, %x, %target)
         : (tensor<2x16xbf16>, tensor<2x16x32xbf16>, tensor<2x32x16xbf16>, tensor<2x16xbf16>, tensor<2x16x32xbf16>, tensor<2x32x16xbf16>, tensor<2x8x16xf32>, tensor<2x8x16xf32>) -> tensor<f32>
  %seed = arith.constant dense<1.0> : tensor<f32>
  %d:8 = func.call @loss_backward(%g0_mb, %w1_0_mb, %w2_0_mb, %g1_mb, %w1_1_mb, %w2_1_mb, %x, %target, %seed)
           : (tensor<2x16xbf16>, tensor<2x16x32xbf16>, tensor<2x32x16xbf16>, tensor<2x16xbf16>, tensor<2x16x32xbf16>, tensor<2x32x16xbf16>, tensor<2x8x16xf32>, tensor<2x8x16xf32>, tensor<f32>)
             -> (tensor<2x16xbf16>, tensor<2x16x32xbf16>, tensor<2x32x16xbf16>, tensor<2x16xbf16>, tensor<2x16x32xbf16>, tensor<2x32x16xbf16>, tensor<2x8x16xf32>, tensor<2x8x16xf32>)
  // Every microbatch's gradient averaged over the shard group (f32 on the
  // wire, as the loop form's gathers' backward_dtype) and the replicate
  // group, then summed over the microbatches.
  %g0_shards = prec.reduce_scatter %d#0 on @hsdp grid_axes = [1] scatter_axis = 1 reduction = <avg>
                forward_dtype = f32 : tensor<2x16xbf16> -> tensor<2x8xf32>
  %g0_replicated = prec.all_reduce %g0_shards on @hsdp grid_axes = [0] reduction = <avg>
                    : tensor<2x8xf32> -> tensor<2x8xf32>
  %g0_grad = prec.reduce %g0_replicated dims = [0] reduction = <sum>
              : tensor<2x8xf32> -> tensor<8xf32>
  %w1_0_shards = prec.reduce_scatter %d#1 on @hsdp grid_axes = [1] scatter_axis = 1 reduction = <avg>
                forward_dtype = f32 : tensor<2x16x32xbf16> -> tensor<2x8x32xf32>
  %w1_0_replicated = prec.all_reduce %w1_0_shards on @hsdp grid_axes = [0] reduction = <avg>
                    : tensor<2x8x32xf32> -> tensor<2x8x32xf32>
  %w1_0_grad = prec.reduce %w1_0_replicated dims = [0] reduction = <sum>
              : tensor<2x8x32xf32> -> tensor<8x32xf32>
  %w2_0_shards = prec.reduce_scatter %d#2 on @hsdp grid_axes = [1] scatter_axis = 1 reduction = <avg>
                forward_dtype = f32 : tensor<2x32x16xbf16> -> tensor<2x16x16xf32>
  %w2_0_replicated = prec.all_reduce %w2_0_shards on @hsdp grid_axes = [0] reduction = <avg>
                    : tensor<2x16x16xf32> -> tensor<2x16x16xf32>
  %w2_0_grad = prec.reduce %w2_0_replicated dims = [0] reduction = <sum>
              : tensor<2x16x16xf32> -> tensor<16x16xf32>
  %g1_shards = prec.reduce_scatter %d#3 on @hsdp grid_axes = [1] scatter_axis = 1 reduction = <avg>
                forward_dtype = f32 : tensor<2x16xbf16> -> tensor<2x8xf32>
  %g1_replicated = prec.all_reduce %g1_shards on @hsdp grid_axes = [0] reduction = <avg>
                    : tensor<2x8xf32> -> tensor<2x8xf32>
  %g1_grad = prec.reduce %g1_replicated dims = [0] reduction = <sum>
              : tensor<2x8xf32> -> tensor<8xf32>
  %w1_1_shards = prec.reduce_scatter %d#4 on @hsdp grid_axes = [1] scatter_axis = 1 reduction = <avg>
                forward_dtype = f32 : tensor<2x16x32xbf16> -> tensor<2x8x32xf32>
  %w1_1_replicated = prec.all_reduce %w1_1_shards on @hsdp grid_axes = [0] reduction = <avg>
                    : tensor<2x8x32xf32> -> tensor<2x8x32xf32>
  %w1_1_grad = prec.reduce %w1_1_replicated dims = [0] reduction = <sum>
              : tensor<2x8x32xf32> -> tensor<8x32xf32>
  %w2_1_shards = prec.reduce_scatter %d#5 on @hsdp grid_axes = [1] scatter_axis = 1 reduction = <avg>
                forward_dtype = f32 : tensor<2x32x16xbf16> -> tensor<2x16x16xf32>
  %w2_1_replicated = prec.all_reduce %w2_1_shards on @hsdp grid_axes = [0] reduction = <avg>
                    : tensor<2x16x16xf32> -> tensor<2x16x16xf32>
  %w2_1_grad = prec.reduce %w2_1_replicated dims = [0] reduction = <sum>
              : tensor<2x16x16xf32> -> tensor<16x16xf32>
  %pg0, %mg0n, %vg0n = prec.adamw %g0, %g0_grad, %mg0, %vg0, %lr, %step : tensor<8xf32>, tensor<8xf32>
  %pw1_0, %mw1_0n, %vw1_0n = prec.adamw %w1_0, %w1_0_grad, %mw1_0, %vw1_0, %lr, %step : tensor<8x32xf32>, tensor<8x32xf32>
  %pw2_0, %mw2_0n, %vw2_0n = prec.adamw %w2_0, %w2_0_grad, %mw2_0, %vw2_0, %lr, %step : tensor<16x16xf32>, tensor<16x16xf32>
  %pg1, %mg1n, %vg1n = prec.adamw %g1, %g1_grad, %mg1, %vg1, %lr, %step : tensor<8xf32>, tensor<8xf32>
  %pw1_1, %mw1_1n, %vw1_1n = prec.adamw %w1_1, %w1_1_grad, %mw1_1, %vw1_1, %lr, %step : tensor<8x32xf32>, tensor<8x32xf32>
  %pw2_1, %mw2_1n, %vw2_1n = prec.adamw %w2_1, %w2_1_grad, %mw2_1, %vw2_1, %lr, %step : tensor<16x16xf32>, tensor<16x16xf32>
  %one = arith.constant 1.0 : f32
  %next_step = arith.addf %step, %one : f32
  %mean_loss = prec.all_reduce %l on @hsdp reduction = <avg> : tensor<f32> -> tensor<f32>
  return %pg0, %pw1_0, %pw2_0, %pg1, %pw1_1, %pw2_1,
         %mg0n, %mw1_0n, %mw2_0n, %mg1n, %mw1_1n, %mw2_1n,
         %vg0n, %vw1_0n, %vw2_0n, %vg1n, %vw1_1n, %vw2_1n, %next_step, %mean_loss
      : tensor<8xf32>, tensor<8x32xf32>, tensor<16x16xf32>, tensor<8xf32>, tensor<8x32xf32>, tensor<16x16xf32>, tensor<8xf32>, tensor<8x32xf32>, tensor<16x16xf32>, tensor<8xf32>, tensor<8x32xf32>, tensor<16x16xf32>, tensor<8xf32>, tensor<8x32xf32>, tensor<16x16xf32>, tensor<8xf32>, tensor<8x32xf32>, tensor<16x16xf32>, f32, tensor<f32>
}
