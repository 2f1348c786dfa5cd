// The step of transformer_block_step.mlir as HSDP on a 2 x 2 grid (2
// replicas x 2 shards) with gradient accumulation over 2 microbatches.
//
// Each parameter is sharded by rows over the shard axis (axis 1) and
// replicated over axis 0; every rank has 2 microbatches of 8 tokens. The
// microbatch loop holds the compute: each iteration runs the forward and the
// generated backward of one microbatch (so only one microbatch's
// activations are live at a time), whose gathers' transposes reduce-scatter
// the weight gradients over the shard axis, and averages them over the
// replicate axis. prec-accumulate-microbatches (enabled by
// prec.microbatches = 2) moves those all-reduces after the loop, so the
// shards are accumulated first and all-reduced once, as HSDP does: every
// rank ends with the average over all 4 ranks of the sum of its
// microbatches' gradients, each microbatch's loss weighted 1/2.
//
// Arguments and results as in transformer_block_step.mlir, with the
// tokens and targets of both microbatches (tensor<2x8x16xf32>).

shard.grid @hsdp(shape = 2x2)

#tokens_features = affine_map<(t, f) -> (t, f)>
#tokens = affine_map<(t, f) -> (t)>
#features = affine_map<(t, f) -> (f)>

// The mean squared error of this rank's tokens after the two blocks.
func.func private @loss(%g0_shard: tensor<8xf32>, %w1_0_shard: tensor<8x32xf32>,
                        %w2_0_shard: tensor<16x16xf32>, %g1_shard: tensor<8xf32>,
                        %w1_1_shard: tensor<8x32xf32>, %w2_1_shard: tensor<16x16xf32>,
                        %x0: tensor<8x16xf32>, %target: tensor<8x16xf32>)
    -> tensor<f32> attributes {prec.differentiable} {
  %g0 = prec.all_gather %g0_shard on @hsdp grid_axes = [1] gather_axis = 0 forward_dtype = bf16 backward_dtype = f32
          : tensor<8xf32> -> tensor<16xbf16>
  %w1_0 = prec.all_gather %w1_0_shard on @hsdp grid_axes = [1] gather_axis = 0 forward_dtype = bf16 backward_dtype = f32
            : tensor<8x32xf32> -> tensor<16x32xbf16>
  %w2_0 = prec.all_gather %w2_0_shard on @hsdp grid_axes = [1] gather_axis = 0 forward_dtype = bf16 backward_dtype = f32
            : tensor<16x16xf32> -> tensor<32x16xbf16>
  %g1 = prec.all_gather %g1_shard on @hsdp grid_axes = [1] gather_axis = 0 forward_dtype = bf16 backward_dtype = f32
          : tensor<8xf32> -> tensor<16xbf16>
  %w1_1 = prec.all_gather %w1_1_shard on @hsdp grid_axes = [1] gather_axis = 0 forward_dtype = bf16 backward_dtype = f32
            : tensor<8x32xf32> -> tensor<16x32xbf16>
  %w2_1 = prec.all_gather %w2_1_shard on @hsdp grid_axes = [1] gather_axis = 0 forward_dtype = bf16 backward_dtype = f32
            : tensor<16x16xf32> -> tensor<32x16xbf16>
  %zero = arith.constant 0.0 : f32
  %empty8 = tensor.empty() : tensor<8xf32>
  %zeros8 = linalg.fill ins(%zero : f32) outs(%empty8 : tensor<8xf32>) -> tensor<8xf32>
  %empty8x16 = tensor.empty() : tensor<8x16xbf16>
  %empty8x32 = tensor.empty() : tensor<8x32xbf16>
  %empty8x32f = tensor.empty() : tensor<8x32xf32>
  %zeros8x32 = linalg.fill ins(%zero : f32) outs(%empty8x32f : tensor<8x32xf32>) -> tensor<8x32xf32>
  %empty8x16f = tensor.empty() : tensor<8x16xf32>
  %zeros8x16 = linalg.fill ins(%zero : f32) outs(%empty8x16f : tensor<8x16xf32>) -> tensor<8x16xf32>

  // Block 0: x1 = x0 + W2 SiLU(W1 RMSNorm(x0) * g).
  %ss0 = linalg.generic {indexing_maps = [#tokens_features, #tokens], iterator_types = ["parallel", "reduction"]}
      ins(%x0 : tensor<8x16xf32>) outs(%zeros8 : tensor<8xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %sq = arith.mulf %v, %v : f32
    %s = arith.addf %acc, %sq : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  %n0 = linalg.generic {indexing_maps = [#tokens_features, #tokens, #features, #tokens_features],
                        iterator_types = ["parallel", "parallel"]}
      ins(%x0, %ss0, %g0 : tensor<8x16xf32>, tensor<8xf32>, tensor<16xbf16>)
      outs(%empty8x16 : tensor<8x16xbf16>) {
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
  } -> tensor<8x16xbf16>
  %h0 = linalg.matmul ins(%n0, %w1_0 : tensor<8x16xbf16>, tensor<16x32xbf16>)
                      outs(%zeros8x32 : tensor<8x32xf32>) -> tensor<8x32xf32>
  %a0 = linalg.map ins(%h0 : tensor<8x32xf32>) outs(%empty8x32 : tensor<8x32xbf16>)
    (%v: f32, %out: bf16) {
      %one = arith.constant 1.0 : f32
      %nv = arith.negf %v : f32
      %e = math.exp %nv : f32
      %d = arith.addf %one, %e : f32
      %silu = arith.divf %v, %d : f32
      %silu16 = arith.truncf %silu : f32 to bf16
      linalg.yield %silu16 : bf16
    }
  %y0 = linalg.matmul ins(%a0, %w2_0 : tensor<8x32xbf16>, tensor<32x16xbf16>)
                      outs(%zeros8x16 : tensor<8x16xf32>) -> tensor<8x16xf32>
  %x1 = arith.addf %x0, %y0 : tensor<8x16xf32>

  // Block 1: x2 = x1 + W2 SiLU(W1 RMSNorm(x1) * g).
  %ss1 = linalg.generic {indexing_maps = [#tokens_features, #tokens], iterator_types = ["parallel", "reduction"]}
      ins(%x1 : tensor<8x16xf32>) outs(%zeros8 : tensor<8xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %sq = arith.mulf %v, %v : f32
    %s = arith.addf %acc, %sq : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  %n1 = linalg.generic {indexing_maps = [#tokens_features, #tokens, #features, #tokens_features],
                        iterator_types = ["parallel", "parallel"]}
      ins(%x1, %ss1, %g1 : tensor<8x16xf32>, tensor<8xf32>, tensor<16xbf16>)
      outs(%empty8x16 : tensor<8x16xbf16>) {
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
  } -> tensor<8x16xbf16>
  %h1 = linalg.matmul ins(%n1, %w1_1 : tensor<8x16xbf16>, tensor<16x32xbf16>)
                      outs(%zeros8x32 : tensor<8x32xf32>) -> tensor<8x32xf32>
  %a1 = linalg.map ins(%h1 : tensor<8x32xf32>) outs(%empty8x32 : tensor<8x32xbf16>)
    (%v: f32, %out: bf16) {
      %one = arith.constant 1.0 : f32
      %nv = arith.negf %v : f32
      %e = math.exp %nv : f32
      %d = arith.addf %one, %e : f32
      %silu = arith.divf %v, %d : f32
      %silu16 = arith.truncf %silu : f32 to bf16
      linalg.yield %silu16 : bf16
    }
  %y1 = linalg.matmul ins(%a1, %w2_1 : tensor<8x32xbf16>, tensor<32x16xbf16>)
                      outs(%zeros8x16 : tensor<8x16xf32>) -> tensor<8x16xf32>
  %x2 = arith.addf %x1, %y1 : tensor<8x16xf32>


  %err = arith.subf %x2, %target : tensor<8x16xf32>
  %sq = arith.mulf %err, %err : tensor<8x16xf32>
  %l = prec.reduce %sq dims = [0, 1] reduction = <avg> acc_dtype = f32
         : tensor<8x16xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// Filled in by prec-generate-backward.
func.func private @loss_backward(tensor<8xf32>, tensor<8x32xf32>, tensor<16x16xf32>,
                                 tensor<8xf32>, tensor<8x32xf32>, tensor<16x16xf32>,
                                 tensor<8x16xf32>, tensor<8x16xf32>, tensor<f32>)
    -> (tensor<8xf32>, tensor<8x32xf32>, tensor<16x16xf32>, tensor<8xf32>,
        tensor<8x32xf32>, tensor<16x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>)

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
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %zg = arith.constant dense<0.0> : tensor<8xf32>
  %zw1 = arith.constant dense<0.0> : tensor<8x32xf32>
  %zw2 = arith.constant dense<0.0> : tensor<16x16xf32>
  %zl = arith.constant dense<0.0> : tensor<f32>
  // Each microbatch's loss is weighted 1/2: the step's loss is their mean.
  %seed = arith.constant dense<0.5> : tensor<f32>
  %acc:7 = scf.for %i = %c0 to %c2 step %c1
      iter_args(%ag0 = %zg, %aw1_0 = %zw1, %aw2_0 = %zw2, %ag1 = %zg, %aw1_1 = %zw1,
                %aw2_1 = %zw2, %al = %zl)
      -> (tensor<8xf32>, tensor<8x32xf32>, tensor<16x16xf32>, tensor<8xf32>, tensor<8x32xf32>, tensor<16x16xf32>, tensor<f32>) {
    %xs = tensor.extract_slice %x[%i, 0, 0] [1, 8, 16] [1, 1, 1]
            : tensor<2x8x16xf32> to tensor<8x16xf32>
    %ts = tensor.extract_slice %target[%i, 0, 0] [1, 8, 16] [1, 1, 1]
            : tensor<2x8x16xf32> to tensor<8x16xf32>
    %l = func.call @loss(%g0, %w1_0, %w2_0, %g1, %w1_1, %w2_1, %xs, %ts)
           : (tensor<8xf32>, tensor<8x32xf32>, tensor<16x16xf32>, tensor<8xf32>, tensor<8x32xf32>, tensor<16x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<f32>
    %d:8 = func.call @loss_backward(%g0, %w1_0, %w2_0, %g1, %w1_1, %w2_1, %xs, %ts, %seed)
             : (tensor<8xf32>, tensor<8x32xf32>, tensor<16x16xf32>, tensor<8xf32>, tensor<8x32xf32>, tensor<16x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>, tensor<f32>)
               -> (tensor<8xf32>, tensor<8x32xf32>, tensor<16x16xf32>, tensor<8xf32>, tensor<8x32xf32>, tensor<16x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>)
    %rg0 = prec.all_reduce %d#0 on @hsdp grid_axes = [0] reduction = <avg> : tensor<8xf32> -> tensor<8xf32>
    %ng0 = arith.addf %ag0, %rg0 : tensor<8xf32>
    %rw1_0 = prec.all_reduce %d#1 on @hsdp grid_axes = [0] reduction = <avg> : tensor<8x32xf32> -> tensor<8x32xf32>
    %nw1_0 = arith.addf %aw1_0, %rw1_0 : tensor<8x32xf32>
    %rw2_0 = prec.all_reduce %d#2 on @hsdp grid_axes = [0] reduction = <avg> : tensor<16x16xf32> -> tensor<16x16xf32>
    %nw2_0 = arith.addf %aw2_0, %rw2_0 : tensor<16x16xf32>
    %rg1 = prec.all_reduce %d#3 on @hsdp grid_axes = [0] reduction = <avg> : tensor<8xf32> -> tensor<8xf32>
    %ng1 = arith.addf %ag1, %rg1 : tensor<8xf32>
    %rw1_1 = prec.all_reduce %d#4 on @hsdp grid_axes = [0] reduction = <avg> : tensor<8x32xf32> -> tensor<8x32xf32>
    %nw1_1 = arith.addf %aw1_1, %rw1_1 : tensor<8x32xf32>
    %rw2_1 = prec.all_reduce %d#5 on @hsdp grid_axes = [0] reduction = <avg> : tensor<16x16xf32> -> tensor<16x16xf32>
    %nw2_1 = arith.addf %aw2_1, %rw2_1 : tensor<16x16xf32>
    %half = arith.constant dense<0.5> : tensor<f32>
    %lh = arith.mulf %l, %half : tensor<f32>
    %nl = arith.addf %al, %lh : tensor<f32>
    scf.yield %ng0, %nw1_0, %nw2_0, %ng1, %nw1_1, %nw2_1, %nl : tensor<8xf32>, tensor<8x32xf32>, tensor<16x16xf32>, tensor<8xf32>, tensor<8x32xf32>, tensor<16x16xf32>, tensor<f32>
  }
  %pg0, %mg0n, %vg0n = prec.adamw %g0, %acc#0, %mg0, %vg0, %lr, %step : tensor<8xf32>, tensor<8xf32>
  %pw1_0, %mw1_0n, %vw1_0n = prec.adamw %w1_0, %acc#1, %mw1_0, %vw1_0, %lr, %step : tensor<8x32xf32>, tensor<8x32xf32>
  %pw2_0, %mw2_0n, %vw2_0n = prec.adamw %w2_0, %acc#2, %mw2_0, %vw2_0, %lr, %step : tensor<16x16xf32>, tensor<16x16xf32>
  %pg1, %mg1n, %vg1n = prec.adamw %g1, %acc#3, %mg1, %vg1, %lr, %step : tensor<8xf32>, tensor<8xf32>
  %pw1_1, %mw1_1n, %vw1_1n = prec.adamw %w1_1, %acc#4, %mw1_1, %vw1_1, %lr, %step : tensor<8x32xf32>, tensor<8x32xf32>
  %pw2_1, %mw2_1n, %vw2_1n = prec.adamw %w2_1, %acc#5, %mw2_1, %vw2_1, %lr, %step : tensor<16x16xf32>, tensor<16x16xf32>
  %one = arith.constant 1.0 : f32
  %next_step = arith.addf %step, %one : f32
  %mean_loss = prec.all_reduce %acc#6 on @hsdp reduction = <avg> : tensor<f32> -> tensor<f32>
  return %pg0, %pw1_0, %pw2_0, %pg1, %pw1_1, %pw2_1,
         %mg0n, %mw1_0n, %mw2_0n, %mg1n, %mw1_1n, %mw2_1n,
         %vg0n, %vw1_0n, %vw2_0n, %vg1n, %vw1_1n, %vw2_1n, %next_step, %mean_loss
      : tensor<8xf32>, tensor<8x32xf32>, tensor<16x16xf32>, tensor<8xf32>, tensor<8x32xf32>, tensor<16x16xf32>, tensor<8xf32>, tensor<8x32xf32>, tensor<16x16xf32>, tensor<8xf32>, tensor<8x32xf32>, tensor<16x16xf32>, tensor<8xf32>, tensor<8x32xf32>, tensor<16x16xf32>, tensor<8xf32>, tensor<8x32xf32>, tensor<16x16xf32>, f32, tensor<f32>
}
