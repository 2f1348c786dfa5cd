//===- Passes.td - prec transformation passes ---------------*- tablegen -*-===//

#ifndef PREC_DIALECT_PREC_TRANSFORMS_PASSES_TD
#define PREC_DIALECT_PREC_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def PrecInferPrecision
    : Pass<"prec-infer-precision", "mlir::func::FuncOp"> {
  let summary = "make every dtype of every prec op explicit";
  let description = [{
    Resolves the default rules of the precision contract into explicit
    attributes, so that later passes and readers see every choice:

    - collectives: `forward_dtype` = the input element type;
      `backward_dtype` = the forward dtype; for reductions `acc_dtype` = f32
      for f32 and narrower wire dtypes, f64 for f64;
    - `prec.cast`: `backward_dtype` = the input element type;
    - `prec.reduce`: `acc_dtype` by the same rule, from the input type.

    Annotations already present are kept. The pass is idempotent.

    Before:
    ```mlir
    %r = prec.reduce_scatter %g on @dp scatter_axis = 0
           : tensor<1024xbf16> -> tensor<128xbf16>
    ```
    After:
    ```mlir
    %r = prec.reduce_scatter %g on @dp scatter_axis = 0
           forward_dtype = bf16 backward_dtype = bf16 acc_dtype = f32
           : tensor<1024xbf16> -> tensor<128xbf16>
    ```
  }];
}

def PrecApplyPolicy : Pass<"prec-apply-policy", "mlir::ModuleOp"> {
  let summary = "turn FSDP-style mixed-precision policies into op attributes";
  let description = [{
    A `prec.policy = #prec.policy<param = P, reduce = R, output = O>` on a
    function, or on the module for every function without its own, mirrors
    FSDP2's `MixedPrecisionPolicy`:

    - `param`: the `forward_dtype` of every `prec.all_gather` (parameters
      are gathered and computed in `param_dtype`);
    - `reduce`: the `backward_dtype` of every `prec.all_gather` (its gradient
      is reduce-scattered in `reduce_dtype`) and the `forward_dtype` of every
      `prec.reduce_scatter` and `prec.all_reduce`;
    - `output`: floating-point results of the function are cast to it with a
      `prec.cast` before returning (the function type changes, so the
      function must not be called from within the module).

    An attribute already on an op always wins over the policy; the policy
    stays on the function as documentation and the pass is idempotent.
    Accumulation follows the contract's default (f32 for narrower wire
    dtypes), which is at least as precise as FSDP2's reduction in
    `reduce_dtype`. An fp8 `param` or `reduce` dtype on a collective without
    a scaling mode is rejected, naming the op, as is a dtype that does not
    fit the op's own attributes (an `acc_dtype` that cannot hold it, a ring
    algorithm, a scaling mode), with the verifier's reason. `output` casts
    float scalars and ranked float tensors; other results are left alone.

    Before:
    ```mlir
    func.func @step(%w: tensor<8x4xf32>) -> tensor<32x4xbf16>
        attributes {prec.policy = #prec.policy<param = bf16, reduce = f32, output = f32>} {
      %0 = prec.all_gather %w on @dp gather_axis = 0 : tensor<8x4xf32> -> tensor<32x4xbf16>
      %1 = prec.cast %0 : tensor<32x4xbf16> to tensor<32x4xbf16>
      ...
    ```
    After:
    ```mlir
      %0 = prec.all_gather %w on @dp gather_axis = 0 forward_dtype = bf16
             backward_dtype = f32 : tensor<8x4xf32> -> tensor<32x4xbf16>
      ...
      %r = prec.cast %y : tensor<32x4xbf16> to tensor<32x4xf32>
      return %r : tensor<32x4xf32>
    ```
  }];
  let dependentDialects = ["::mlir::prec::PrecDialect"];
}

def PrecFoldCasts : Pass<"prec-fold-casts", "mlir::func::FuncOp"> {
  let summary = "fold exact cast chains and merge casts into collectives";
  let description = [{
    Moves conversions to where they cost least without changing a single
    value, forwards or backwards:

    - exact cast chains fold (see `prec.cast`);
    - a cast of a collective's result merges into the collective's result
      type when the result type holds every value the collective computes
      (its accumulation dtype, or its wire dtype when it does not reduce)
      and every value of the cast's type, e.g. a reduce-scatter accumulating
      in f32 and returning f32, then cast to bf16, returns bf16 directly;
    - a narrowing all-gather or all-to-all whose wire dtype is exact for its
      input is hoisted onto the wire: gathering f32 in f32 and converting
      to bf16 becomes gathering bf16 (same values, half the bytes);
    - a widening cast feeding a collective merges into it: the collective
      reads the narrow value and keeps its wire dtype explicitly, when the
      wide type also holds every value of the collective's gradient (so the
      gradient is not rounded twice).

    Stochastic rounding, non-default gradient dtypes and fp8 wires are left
    alone: moving them would change values.

    Before:
    ```mlir
    %g = prec.all_gather %w on @dp gather_axis = 0 : tensor<8xf32> -> tensor<32xf32>
    %c = prec.cast %g : tensor<32xf32> to tensor<32xbf16>
    ```
    After:
    ```mlir
    %c = prec.all_gather %w on @dp gather_axis = 0 forward_dtype = bf16
           backward_dtype = f32 : tensor<8xf32> -> tensor<32xbf16>
    ```
  }];
  let dependentDialects = ["::mlir::prec::PrecDialect"];
}

def PrecDivideFactors : Pass<"prec-divide-factors", "mlir::func::FuncOp"> {
  let summary = "turn averaging reductions into explicit divisors";
  let description = [{
    Rewrites every `prec.reduce_scatter` and `prec.all_reduce` with
    `reduction = <avg>` into `reduction = <sum>` with explicit
    `pre_divisor` / `post_divisor` attributes whose product is `N`, the
    number of ranks this op reduces over: the product of the grid sizes of
    its `grid_axes` (all axes when none are listed). `N` is taken from each
    op, never from the whole grid, so an HSDP reduce-scatter over the shard
    axis of a 4x8 grid divides by 8 and an average over all 32 ranks by 32.

    - Accumulation dtypes with f32's exponent range (f32, bf16, f64): one
      divide, `post_divisor = N`, fused into the kernel that writes the
      result.
    - Narrower accumulation ranges (f16): a sum of `N` values may overflow
      where their average does not, so the divide is split:
      `pre_divisor = f`, `post_divisor = N / f`, with `f` the power of two
      nearest to `sqrt(N)` (ties upwards): the largest power of two with
      `f * f <= 2 * N`. This is FSDP2's split on powers of two (32 -> 8, 4)
      and stays balanced otherwise (6 -> 2, 3 where FSDP2 gives 4, 1.5).
    - `N = 1`: a plain sum, no divisor.

    An average whose group size is dynamic, or that accumulates in a scaled
    fp8 dtype (where a divisor cannot give the sum headroom: the scale
    absorbs it), is rejected with a diagnostic naming the op.

    Before:
    ```mlir
    shard.grid @hsdp(shape = 4x8)
    %s = prec.reduce_scatter %g on @hsdp grid_axes = [1] scatter_axis = 0
           reduction = <avg> forward_dtype = f16 acc_dtype = f16
           : tensor<256xf16> -> tensor<32xf16>
    ```
    After:
    ```mlir
    %s = prec.reduce_scatter %g on @hsdp grid_axes = [1] scatter_axis = 0
           forward_dtype = f16 acc_dtype = f16
           pre_divisor = 4.000000e+00 post_divisor = 2.000000e+00
           : tensor<256xf16> -> tensor<32xf16>
    ```
  }];
  let dependentDialects = ["::mlir::prec::PrecDialect"];
}

def PrecFullyShard : Pass<"prec-fully-shard", "mlir::ModuleOp"> {
  let summary = "FSDP2's fully_shard as a pass: a loss becomes a sharded training step";
  let description = [{
    From a module with a loss function `@loss(params..., batch...) ->
    tensor<T>` (a PyTorch export, or written by hand), builds the public
    entry

    ```
    @train_step(shards..., [exp_avg..., exp_avg_sq..., step], [state...], batch..., lr)
        -> (next shards..., [next exp_avg..., next exp_avg_sq..., next step], [next state...], loss)
    ```

    whose results feed its arguments at the same positions (`prec-run
    --steps`):

    - **Parameters** are the loss's ranked float tensor arguments not marked
      `prec.no_grad` (or its first `num-params` arguments). Each is sharded
      on dimension 0 over the shard axis of the grid, in blocks of
      `ceil(rows / G)` rows; the last blocks are padded with zero rows when
      the group does not divide the rows (as FSDP2 pads), never rejected.
      Shards are kept in `master-dtype` (default: the parameter's own type).
    - **Gathered at use** with `prec.all_gather` in the policy's `param`
      dtype on the wire, converted to the parameter's type in the loss (the
      policy applies to parameters only: activations keep the model's
      dtypes); an fp8 `param` dtype gathers with dynamic scaling. Padding
      rows are sliced off after the gather.
    - **Gradients** are the generated backward's (`prec-generate-backward`
      runs next): each gather's transpose reduce-scatters the gradient in
      the policy's `reduce` dtype and averages it over the shard group; on
      an HSDP grid the shard's gradient is then averaged over the replicate
      axes by a `prec.all_reduce`. The loss is averaged over every rank.
    - **The optimizer** is fused: `prec.sgd` or `prec.adamw` (its moments
      in the master dtype, sharded as the parameter; `step` counts from 1
      and is fed back incremented).
    - **Hosts** (`hosts=H`, docs/Prec.md, "Topology and two-level
      collectives"): an FSDP `mesh=N` becomes the grid `H x N/H` with
      `prec.inter_host_axes = array<i16: 0>`, and every parameter is sharded
      over both axes (`grid_axes = [0, 1]`: the same group order as the flat
      mesh, so rank `r` holds shard `r` as before); every collective then
      runs in two levels. `H` must divide `N`. With HSDP (`mesh=RxN`), `H`
      must be `R`: the replicate axes cross hosts, each replica shards inside
      its host. `inter-host-reduce-dtype=DT` puts `grad_inter_host_dtype =
      DT` on every parameter gather, so that the gradient reduce_scatter
      (the gather's transpose, or the step's own with
      `reshard-after-forward=false`) moves its partial sums across hosts in
      `DT`; it needs an FSDP mesh with `H > 1` hosts of more than one rank,
      and a `DT` that the gradient's accumulation dtype holds. An fp8 `DT`
      also gets `grad_inter_host_scaling = <dynamic>` (a scale per rank's
      partial sums). Parameters whose gathers scale (fp8) reduce in one
      level and get none.
    - `reshard-after-forward` (default true, FSDP2's default) gathers the
      parameters inside a differentiable `@loss_sharded`, so that the
      backward gathers them again; `false` gathers them once in the step and
      keeps them through the backward (more memory, fewer gathers).

    The policy of a parameter, field by field, is the first of: its
    argument's `prec.policy` attribute, the first entry of `param-dtypes` /
    `reduce-dtypes` whose selector matches it, `param-dtype` /
    `reduce-dtype`, the loss's or the module's `prec.policy`, the
    parameter's own type. A selector is a glob over parameter names
    (`h.*.attn.*`) or a shape class `rank:N` (`rank:2=f8E4M3FN`: every
    matrix gathered in fp8); a parameter's name is its `prec.name`, else
    `arg<i>` by its position in the loss.

    The step's arguments carry `prec.name` (the parameter's name;
    `exp_avg.<name>`, `exp_avg_sq.<name>`, `step`, `lr`, and the batch's
    names or `input<i>`) and, on shards and optimizer state, `prec.shard =
    {grid, grid_axes, dim = 0, size = rows}`: which block of which full
    tensor the argument is, for checkpoints. An integer batch argument whose type holds
    the range (not an `i1` mask) gets `prec.range = [0, token-range]` when
    `token-range` is given. The loss
    becomes private; the module must not have an entry of the step's name.
    Results of the loss after the first (the loss, a 0-d float tensor) are
    integer state fed back into its last arguments, as
    `prec-globals-to-arguments` makes a dropout seed: the step takes them
    right after the optimizer's state and returns them at the same
    positions. The loss needs a body of one block, and the parameters a
    static shape of rank 1 or more; anything else the pass cannot build a
    step from is an error naming the option or argument to change.

    How this maps to FSDP2 and how the step works with the generated
    backward and the runner: docs/Prec.md, "Training steps from a loss".

    Before (a loss exported by torch-mlir, parameters named):
    ```mlir
    func.func @loss(%w: tensor<10x8xf32> {prec.name = "fc.weight"},
                    %x: tensor<4x8xf32> {prec.no_grad}) -> tensor<f32>
    ```
    After `prec-fully-shard{mesh=4 param-dtype=bf16 reduce-dtype=f32}`:
    ```mlir
    shard.grid @fsdp(shape = 4)
    func.func private @loss_sharded(%w_shard: tensor<3x8xf32>, %x: ...) -> tensor<f32>
        attributes {prec.differentiable} {
      %g = prec.all_gather %w_shard on @fsdp grid_axes = [0] gather_axis = 0
             forward_dtype = bf16 backward_dtype = f32
             : tensor<3x8xf32> -> tensor<12x8xf32>
      %w = tensor.extract_slice %g[0, 0] [10, 8] [1, 1] : ... to tensor<10x8xf32>
      ... the loss's body ...
    }
    func.func @train_step(%w_shard: tensor<3x8xf32> {prec.name = "fc.weight",
                            prec.shard = {dim = 0 : i64, grid = @fsdp,
                                          grid_axes = [0], size = 10 : i64}},
                          %x: ..., %lr: f32 {prec.default = ..., prec.name = "lr"})
        -> (tensor<3x8xf32>, tensor<f32> {prec.name = "loss"})
    ```
  }];
  let options = [
    Option<"lossName", "loss", "std::string", "\"loss\"",
           "the loss function">,
    Option<"entryName", "entry", "std::string", "\"train_step\"",
           "the name of the step function it creates">,
    Option<"mesh", "mesh", "std::string", "\"\"",
           "the grid's shape: `N` (FSDP) or `R x ... x N` written `RxN` "
           "(HSDP: the last axis shards, the others replicate); default: "
           "the module's only grid">,
    Option<"gridName", "grid", "std::string", "\"fsdp\"",
           "the name of the grid `mesh` creates">,
    Option<"hosts", "hosts", "int64_t", "1",
           "the hosts the ranks are on: `mesh=N` becomes the grid "
           "`hosts x N/hosts` whose axis 0 crosses hosts (both axes shard); "
           "`mesh=RxN` needs hosts = R (the replicate axes cross hosts)">,
    Option<"interHostReduceDtype", "inter-host-reduce-dtype", "std::string",
           "\"\"",
           "the dtype the gradients' partial sums cross hosts in "
           "(`grad_inter_host_dtype` on every parameter gather, with "
           "dynamic scales for fp8; FSDP mesh with hosts > 1 only)">,
    Option<"numParams", "num-params", "int64_t", "-1",
           "the number of leading loss arguments that are parameters "
           "(default: every float tensor argument not marked prec.no_grad)">,
    Option<"paramDtype", "param-dtype", "std::string", "\"\"",
           "the wire dtype parameters are gathered in (FSDP2's param_dtype)">,
    Option<"reduceDtype", "reduce-dtype", "std::string", "\"\"",
           "the wire dtype gradients are reduced in (FSDP2's reduce_dtype)">,
    ListOption<"paramDtypes", "param-dtypes", "std::string",
               "per-parameter param dtypes, SELECTOR=DTYPE">,
    ListOption<"reduceDtypes", "reduce-dtypes", "std::string",
               "per-parameter reduce dtypes, SELECTOR=DTYPE">,
    Option<"masterDtype", "master-dtype", "std::string", "\"\"",
           "the dtype of the shards and optimizer state (default: each "
           "parameter's own)">,
    Option<"optimizer", "optimizer", "std::string", "\"sgd\"",
           "`sgd` or `adamw`">,
    Option<"lr", "lr", "double", "1.0e-3",
           "the learning rate's default (the step's `lr` argument)">,
    Option<"weightDecay", "weight-decay", "double", "-1.0",
           "weight decay (default: 0 for sgd, 0.01 for adamw, as PyTorch)">,
    Option<"beta1", "beta1", "double", "0.9", "AdamW's beta1">,
    Option<"beta2", "beta2", "double", "0.999", "AdamW's beta2">,
    Option<"eps", "eps", "double", "1.0e-8", "AdamW's eps">,
    Option<"reshardAfterForward", "reshard-after-forward", "bool", "true",
           "gather the parameters again in the backward (FSDP2's "
           "reshard_after_forward)">,
    Option<"tokenRange", "token-range", "int64_t", "0",
           "when positive, integer batch arguments take values in "
           "[0, token-range) (`prec.range`, for generated batches)">
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::func::FuncDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::prec::PrecDialect",
    "::mlir::shard::ShardDialect",
    "::mlir::tensor::TensorDialect"
  ];
}

def PrecGlobalsToArguments
    : Pass<"prec-globals-to-arguments", "mlir::ModuleOp"> {
  let summary = "mutable ml_program globals as arguments and results";
  let description = [{
    A function that loads or stores a mutable `ml_program.global` (the
    random seed of PyTorch's dropout, as torch-mlir exports it) gets the
    global's value as a new last argument and, when it stores one, the
    value it stored last as a new last result, like a step's other state;
    its loads read the latest value. Such a function is then free of side
    effects and `prec-generate-backward` can recompute it (an integer seed
    gets no gradient). The argument is named after the global (`prec.name`)
    and, when the global's initial value is one number, has it as its
    `prec.default`, so that a runner starts it where PyTorch did. Globals no op uses any more are erased.

    A function that uses a global inside a nested region, or that the
    module calls, is an error: its callers would have to pass the state.

    Before:
    ```mlir
    ml_program.global private mutable @seed(dense<0> : tensor<i64>) : tensor<i64>
    func.func @loss(%x: tensor<4xf32>) -> tensor<f32> {
      %s = ml_program.global_load @seed : tensor<i64>
      %next = ... %s ...
      ml_program.global_store @seed = %next : tensor<i64>
      ...
    }
    ```
    After:
    ```mlir
    func.func @loss(%x: tensor<4xf32>,
                    %s: tensor<i64> {prec.default = 0 : i64, prec.name = "seed"})
        -> (tensor<f32>, tensor<i64>) {
      %next = ... %s ...
      ...
      return %loss, %next : tensor<f32>, tensor<i64>
    }
    ```
  }];
  let dependentDialects = ["::mlir::func::FuncDialect"];
}

def PrecAccumulateMicrobatches
    : Pass<"prec-accumulate-microbatches", "mlir::func::FuncOp"> {
  let summary = "the HSDP gradient-accumulation schedule over microbatches";
  let description = [{
    In a function carrying `prec.microbatches = M`, rewrites each microbatch
    sum of an HSDP gradient reduction

    ```
    prec.reduce(dims = [0]) of
      prec.all_reduce (replicate axes) of
        prec.reduce_scatter (shard axes) of %g : tensor<M x ...>
    ```

    (dimension 0 of `%g` indexes the `M` microbatches; its value is the sum
    over microbatches of each microbatch's reduced gradient) into the
    schedule of HSDP with gradient accumulation: an `scf.for` over the
    microbatches reduce-scatters each microbatch over the shard axes and
    adds the shard to an accumulator in the microbatch sum's `acc_dtype`;
    after the loop, one all-reduce over the replicate axes reduces the
    accumulated shard. The all-reduce runs once, after the last microbatch,
    and the accumulated shard is added before it.

    Averages become explicit divisors that match this order: with `D` the
    product of the group sizes of the averaging ops (times `M` when the
    microbatch sum is an average), the reduce-scatter and the loop only sum
    (a `pre_divisor` on the reduce-scatter for f16-range accumulation, as in
    `prec-divide-factors` but for the number of terms of the one sum when it
    exceeds `D`) and the all-reduce divides by the rest, so a 4x8
    grid yields `(1/32) * sum over all 32 ranks of (g1 + ... + gM)`, never
    `1/8` for earlier microbatches and `1/32` for the last (docs/Prec.md,
    "HSDP gradient accumulation", derives them).

    Wire and accumulation dtypes of both collectives are kept explicitly; the
    partial shards stay in the accumulation dtype (more precise than
    rounding each to the reduce-scatter's result type, as the contract
    allows), and the all-reduce rounds once to the final result type.
    A microbatch loop the function writes itself (typically around calls of
    a generated backward function, so that the loop holds the compute and
    only one microbatch's activations are live at a time) is the other form:
    an `scf.for` of `M` iterations whose iteration argument accumulates
    `acc + prec.all_reduce(g)` (sum or avg). The all-reduce moves after the
    loop, which then accumulates the microbatches' values from zero; the
    loop's initial value is added to the all-reduced sum. The reduce-scatter
    inside the backward function (the transpose of the shard-axis gather)
    stays in the loop.

    Once scheduled, the function loses its `prec.microbatches`, so that the
    pass can run again. Chains it cannot schedule (other uses of the
    intermediate values, overlapping axes, explicit divisors, dynamic group
    sizes, a microbatch dimension other than `M`) are rejected with a
    diagnostic naming the op.

    Before:
    ```mlir
    shard.grid @hsdp(shape = 4x8)
    func.func @grads(%g: tensor<2x256xf32>) -> tensor<32xf32>
        attributes {prec.microbatches = 2 : i64} {
      %s = prec.reduce_scatter %g on @hsdp grid_axes = [1] scatter_axis = 1
             reduction = <avg> : tensor<2x256xf32> -> tensor<2x32xf32>
      %r = prec.all_reduce %s on @hsdp grid_axes = [0] reduction = <avg>
             : tensor<2x32xf32> -> tensor<2x32xf32>
      %sum = prec.reduce %r dims = [0] : tensor<2x32xf32> -> tensor<32xf32>
      return %sum : tensor<32xf32>
    }
    ```
    After:
    ```mlir
    %zero = arith.constant dense<0.000000e+00> : tensor<32xf32>
    %acc = scf.for %i = %c0 to %c2 step %c1 iter_args(%a = %zero)
        -> (tensor<32xf32>) {
      %gi = tensor.extract_slice %g[%i, 0] [1, 256] [1, 1]
              : tensor<2x256xf32> to tensor<256xf32>
      %si = prec.reduce_scatter %gi on @hsdp grid_axes = [1] scatter_axis = 0
              forward_dtype = f32 backward_dtype = f32 acc_dtype = f32
              : tensor<256xf32> -> tensor<32xf32>
      %next = arith.addf %a, %si : tensor<32xf32>
      scf.yield %next : tensor<32xf32>
    }
    %sum = prec.all_reduce %acc on @hsdp grid_axes = [0] forward_dtype = f32
             backward_dtype = f32 acc_dtype = f32 post_divisor = 3.200000e+01
             : tensor<32xf32> -> tensor<32xf32>
    ```
  }];
  let dependentDialects = [
    "::mlir::prec::PrecDialect",
    "::mlir::arith::ArithDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect"
  ];
}

def PrecErrorBounds : Pass<"prec-error-bounds", "mlir::ModuleOp"> {
  let summary = "report the worst-case relative error of every collective";
  let description = [{
    Emits a remark on every prec collective with two worst-case bounds on
    its relative error, assuming no overflow and no underflow (for fp8
    wires: values within the scaled normal range):

    - its own bound, from its dtypes, its scaling, its group size `N` and
      its reduction algorithm (`getReductionAlgorithm`): relative to
      `sum_i |x_i| / divisor` for a reduction (relative to `|sum_i x_i|` no
      bound exists once terms cancel) and to `|x|` for a move;
    - an end-to-end bound, relative to the exact value, which adds the
      roundings of its input since the op that computed it (0 for an entry
      argument passed on unchanged).

    How each bound is derived, rounding by rounding: docs/Prec.md, "Error
    bounds". A two-level collective (`H` hosts of `M` ranks, see
    prec-decompose-collectives) bounds each level's sum and the rounding of
    its partial sums to `inter_host_dtype`, and its remark gives the bytes a
    rank sends inside its host and across hosts.

    A remark names the op and its function, and what the collective moves:
    the entry arguments its input is read from (their `prec.name`, else
    `arg0`; `@f:arg0` where the module has several entry functions), the
    gradients its result becomes (`grad(arg0)`: the result reaches the
    return of a function marked `prec.backward_of` at the index of the
    argument whose gradient it is, or an optimizer's gradient operand) and
    the entry results it becomes (`result2`), traced through calls,
    reshapes, slices, concatenations, transposes, broadcasts and casts. A
    collective whose location is `loc("gradient of prec.all_gather"(...))`
    (as `prec-generate-backward` names them) is reported as the gradient of
    that op; a bucketed one lists the locations of all its members.

    `report=remarks` (default) emits the remarks; `report=table` prints a
    table per function to stdout instead (the op, its location, what it
    moves, dtypes, scaling, rounding, algorithm, group, bytes per rank and
    both bounds), `report=json` the JSON array. `max-rel-error=<x>` turns a
    bound (own or end to end) above `x` into an error on the op (and a
    failed pass). `json=<path>` (`-` for stdout) writes every bound as a JSON
    array of `{op, location, group_size, input_dtype, forward_dtype,
    acc_dtype, result_dtype, algorithm, gather_dtype, bound, input_error,
    end_to_end_bound, function, group, scaling, rounding, bytes_per_rank,
    moves, locations, gradient_of}` (`null` where not applicable or not
    known; `bytes_per_rank` is the payload one rank sends, as
    `prec-report-traffic` counts it, fp8 scales aside). The pass works on
    the whole module so that one JSON document lists every function's
    collectives.

    Example:
    ```mlir
    // remark: relative error bound 3.907e-03 (|error| <= bound * sum_i |x_i| / divisor):
    //   N = 8, input f32, wire bf16, accumulation f32, direct, result f32
    %s = prec.reduce_scatter %g on @dp scatter_axis = 0 forward_dtype = bf16
           acc_dtype = f32 : tensor<64xf32> -> tensor<8xf32>
    ```
  }];
  let options = [
    Option<"maxRelError", "max-rel-error", "double", "-1.0",
           "fail on a collective whose bound exceeds this (negative: no limit)">,
    Option<"jsonPath", "json", "std::string", "\"\"",
           "write the bounds as a JSON array to this file ('-': stdout)">,
    Option<"report", "report", "std::string", "\"remarks\"",
           "remarks (one per collective), table or json (printed to stdout, "
           "no remarks)">
  ];
}

def PrecBucketCollectives
    : Pass<"prec-bucket-collectives", "mlir::func::FuncOp"> {
  let summary = "merge collectives into few large ones on flat buffers";
  let description = [{
    Merges independent collectives of one block into one collective on a
    flat 1-D buffer, with the layout of FSDP2's `foreach_all_gather` and
    `foreach_reduce`: per rank, the chunks of every member are contiguous,
    so a step issues a few large collectives instead of one per tensor.

    Collectives share a bucket when they are of the same kind
    (`all_gather`, `reduce_scatter` or `all_reduce`), in the same block, on
    the same grid and group (the same grid axes), with the same input and
    result element types, the same effective `forward_dtype`,
    `backward_dtype`, `acc_dtype`, `reduction` (`grad_reduction` for
    gathers), `inter_host_dtype` (`grad_inter_host_dtype` for gathers: the
    merged gather's gradient is one reduce_scatter), `pre_divisor`,
    `post_divisor` and algorithm
    (`getReductionAlgorithm`), round to nearest even, have no `scaling`,
    no fp8 dtype and no fp8 inter-host dtype (whose scales are their
    tensor's), static shapes and a static group size, and when gathers
    and scatters work on axis 0 (the FSDP case). They must be independent:
    no member may use another's result, directly or through other ops. The
    merged collective goes before the first member, or right after the
    last input it needs, and every use of a member must come after that
    point. Anything else stays as it is.

    Layout, for a group of `N` ranks:

    - `all_gather`: each rank's shards are flattened and concatenated
      (`[total]`); the gathered `[N * total]` is read as `N` rows of
      `total`, and a member's result is its columns of every row, which
      are its shards concatenated along dim 0.
    - `reduce_scatter`: each input `[N * k, ...]` is cut into `N` chunks;
      the buffer is `[rank 0: chunk 0 of every member][rank 1: ...]...`,
      and a member's result is its columns of the rank's chunk.
    - `all_reduce`: as `reduce_scatter`, each member cut into `N` chunks
      as the runtime cuts a buffer (the first `count % N` one element
      longer) and padded with zeros to `ceil(count / N)` per rank.

    Value identity: the merged collective computes, element by element,
    exactly what each member did. Every element goes through the same
    pre-divide, wire cast, accumulation dtype, post-divide and result cast;
    every element of a reduction stays in the chunk of the same rank, so a
    ring (or the backend's reduction) adds the ranks' values in the same
    order, and the direct algorithm sums in rank order wherever the element
    is. Padding is added only to padding and dropped afterwards. Stochastic
    rounding is excluded because its random bits may depend on an
    element's position.

    `max-bucket-bytes` caps a bucket's size in wire bytes (the flat buffer
    one rank sends, in `forward_dtype`, padding included); a collective
    that does not fit starts a new bucket. 0 means no cap. The default,
    25 MiB, is DDP's `bucket_cap_mb`.

    Before:
    ```mlir
    shard.grid @dp(shape = 4)
    %g1 = prec.reduce_scatter %d1 on @dp scatter_axis = 0 forward_dtype = bf16
            acc_dtype = f32 : tensor<8x2xf32> -> tensor<2x2xf32>
    %g2 = prec.reduce_scatter %d2 on @dp scatter_axis = 0 forward_dtype = bf16
            acc_dtype = f32 : tensor<4xf32> -> tensor<1xf32>
    ```
    After:
    ```mlir
    %f1 = tensor.collapse_shape %d1 [[0, 1]] : tensor<8x2xf32> into tensor<16xf32>
    %c1 = tensor.expand_shape %f1 [[0, 1]] output_shape [4, 4]
            : tensor<16xf32> into tensor<4x4xf32>
    %c2 = tensor.expand_shape %d2 [[0, 1]] output_shape [4, 1]
            : tensor<4xf32> into tensor<4x1xf32>
    %b  = tensor.concat dim(1) %c1, %c2
            : (tensor<4x4xf32>, tensor<4x1xf32>) -> tensor<4x5xf32>
    %in = tensor.collapse_shape %b [[0, 1]] : tensor<4x5xf32> into tensor<20xf32>
    %r  = prec.reduce_scatter %in on @dp scatter_axis = 0 forward_dtype = bf16
            backward_dtype = bf16 acc_dtype = f32 : tensor<20xf32> -> tensor<5xf32>
    %s1 = tensor.extract_slice %r[0] [4] [1] : tensor<5xf32> to tensor<4xf32>
    %g1 = tensor.expand_shape %s1 [[0, 1]] output_shape [2, 2]
            : tensor<4xf32> into tensor<2x2xf32>
    %g2 = tensor.extract_slice %r[4] [1] [1] : tensor<5xf32> to tensor<1xf32>
    ```
  }];
  let options = [
    Option<"maxBucketBytes", "max-bucket-bytes", "int64_t", "26214400",
           "the most wire bytes one merged collective sends (0: no limit)">
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::tensor::TensorDialect"
  ];
}

def PrecMaterializeScales
    : Pass<"prec-materialize-scales", "mlir::func::FuncOp"> {
  let summary = "make the scales of fp8 collectives explicit";
  let description = [{
    Every collective that converts to an fp8 wire under a `scaling` mode
    becomes explicit scale computation, `prec.quantize`, a collective that
    moves the quantized bytes unconverted, and the dequantization:

    - `all_gather`, `dynamic`: one scale for the whole gathered tensor,
      `prec.scale_from_amax` of the largest of the ranks' `prec.amax`. The
      amaxes of all dynamically scaled gathers of a block over the same
      group travel in ONE `prec.all_reduce` with `reduction = <max>`
      (torchao's `precompute_float8_dynamic_scale_for_fsdp`), placed before
      the first of them; a gather whose input is computed after that point
      starts a new batch.
    - `block` (OCP MX): per-block amaxes and power-of-two (`f8E8M0FNU`)
      scales on each rank; the scales are gathered with the data.
    - `reduce_scatter` and `all_reduce`: each rank's input is quantized with
      its own scales (`dynamic`: one per rank; `block`: per block), which
      travel with the data (`all_gather` of the scales, or an `all_to_all`
      of block scales beside the data's `all_to_all`), so no amax is reduced
      before the wire. One kernel dequantizes each received term with its
      sender's scale, divides it by `pre_divisor` and rounds it once to
      `acc_dtype`, and combines the terms in source-rank order (the direct
      algorithm); a sum is then divided by `post_divisor` (and the group
      size for `avg`) and cast to the result.
    - `all_to_all`: per-rank or per-block scales travel with the data, and
      each received chunk is dequantized with its sender's scale.

    `delayed` scaling keeps state across steps and is written explicitly
    (docs/Prec.md, "Delayed scaling"); the verifier rejects it on
    collectives. Runs before `prec-bucket-collectives`: the shards of a
    batch are quantized together before its first gather, so that the fp8
    gathers are bucketed. Why the terms and scales are formed as they are:
    docs/Prec.md, "Scaling modes on collectives".

    Before:
    ```mlir
    %w = prec.all_gather %s on @dp gather_axis = 0 forward_dtype = f8E4M3FN
           scaling = <dynamic> : tensor<16x64xf32> -> tensor<64x64xbf16>
    ```
    After:
    ```mlir
    %a = prec.amax %s : tensor<16x64xf32> -> tensor<f32>
    %p = tensor.from_elements ... : tensor<1xf32>    // every gather's amax
    %m = prec.all_reduce %p on @dp reduction = <max> ... : tensor<1xf32> -> tensor<1xf32>
    %k = prec.scale_from_amax ... element_type = f8E4M3FN : tensor<f32> -> tensor<f32>
    %q = prec.quantize %s scale %k scaling = <dynamic> : ... -> tensor<16x64xf8E4M3FN>
    %g = prec.all_gather %q on @dp gather_axis = 0 : tensor<16x64xf8E4M3FN> -> tensor<64x64xf8E4M3FN>
    %w = prec.dequantize %g scale %k scaling = <dynamic> : ... -> tensor<64x64xbf16>
    ```
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

def PrecBlockAllReduce
    : Pass<"prec-block-all-reduce", "mlir::func::FuncOp"> {
  let summary = "run a large direct all_reduce as a loop over cache-sized blocks";
  let description = [{
    A direct all_reduce (`acc_dtype` wider than the wire) decomposes into a
    pack kernel, an all-to-all, a kernel that sums and rounds, an all-gather
    and a kernel that widens the result: five passes over buffers of the
    whole tensor. On a 64 MiB tensor every intermediate buffer goes through
    main memory. This pass cuts such an all_reduce into a `scf.for` over
    blocks of the flattened tensor, each an all_reduce of at most
    `block-bytes` bytes of input, so that the wire buffers of a block stay in
    cache between the kernels and the transports that touch them.

    The blocked all_reduce computes the same bits as the whole one
    (docs/Prec.md, "Cache-sized blocks of a large all-reduce", says why and
    what the blocks cost), so only all_reduces whose arithmetic is
    elementwise are cut: the direct algorithm (`getReductionAlgorithm`)
    over more than one rank, rounding to nearest even, no `scaling`, static
    shapes and a static group size. And only where a kernel widens the
    gathered slices to a wider result type (a bf16 wire into an f32
    result), which then writes each block's result in place.

    Blocks hold the largest multiple of 16 x N elements (N the group size)
    within `block-bytes`, at least 16 x N, so that the direct reduce-scatter
    of a full block needs no padding and each rank's slice is a whole number
    of 16-element vectors; the elements left after the last full block are
    one more all_reduce after the loop.
    Each block moves the same bytes per element as the whole all_reduce; a
    step makes two transports per block instead of two in all. `block-bytes`
    = 0 turns the pass off.

    Before:
    ```mlir
    %r = prec.all_reduce %x on @dp forward_dtype = bf16 acc_dtype = f32
           : tensor<1024x1000xf32> -> tensor<1024x1000xf32>
    ```
    After (`block-bytes=1048576`, 4 ranks: blocks of 262144 elements):
    ```mlir
    %flat = tensor.collapse_shape %x [[0, 1]] : tensor<1024x1000xf32> into tensor<1024000xf32>
    %loop = scf.for %i = %c0 to %c786432 step %c262144 iter_args(%acc = %init) -> (tensor<1024000xf32>) {
      %b = tensor.extract_slice %flat[%i] [262144] [1] : tensor<1024000xf32> to tensor<262144xf32>
      %s = prec.all_reduce %b on @dp ... : tensor<262144xf32> -> tensor<262144xf32>
      %u = tensor.insert_slice %s into %acc[%i] [262144] [1] : tensor<262144xf32> into tensor<1024000xf32>
      scf.yield %u : tensor<1024000xf32>
    }
    // the last 237568 elements: one more all_reduce, inserted at 786432
    ```
  }];
  let options = [
    Option<"blockBytes", "block-bytes", "int64_t", "1048576",
           "the most input bytes one block reduces, at least 16 x N elements "
           "(0: leave all_reduces whole)">
  ];
  let dependentDialects = ["::mlir::scf::SCFDialect",
                           "::mlir::tensor::TensorDialect"];
}

def PrecBlockReduceScatter
    : Pass<"prec-block-reduce-scatter", "mlir::func::FuncOp"> {
  let summary = "run a large direct reduce_scatter, and the optimizer that "
                "reads it, as a loop over cache-sized blocks";
  let description = [{
    A direct reduce_scatter (`acc_dtype` wider than the wire) decomposes
    into a pack kernel that writes the whole input in the wire dtype, an
    all-to-all and a kernel that sums the received chunks: the wire buffer
    of a 64 MiB gradient is written to and read back from main memory. This
    pass cuts such a reduce_scatter into a `scf.for` over blocks, each a
    reduce_scatter of at most `block-bytes` bytes of input, so that a
    block's wire buffer stays in cache between the kernels and the
    transport.

    The tensors are viewed with the scatter axis split into (rank, rows of
    a rank's slice): the input as `N x (d / N)`, the result as `1 x (d /
    N)` (`tensor.expand_shape`, no data moves), and cut along the outermost
    other dimension with more than one index. Empty tensors stay whole. A block thus holds the same
    rows of every rank's slice, and its reduce_scatter leaves on each rank
    the same rows of its slice of the result.

    With `optimizers` (on where the pipeline fuses kernels), a `prec.sgd`
    or `prec.adamw` that is the reduce_scatter's only reader, as its
    gradient, is cut into the same blocks: the master, the state and every
    result are sliced alike, and the optimizer's kernel fuses into the
    kernel that sums a block (prec-fuse-kernels), so that the reduced
    gradient is never written whole. Without it the loop leaves the
    reduced gradient whole, for the optimizer to read after the loop.

    The blocked forms compute the same bits as the whole ones (docs/Prec.md,
    "Cache-sized blocks of a large reduce-scatter and its optimizer", says
    why), so only reduce_scatters whose arithmetic is elementwise are cut:
    the direct algorithm (`getReductionAlgorithm`) over more than one rank,
    rounding to nearest even, no `scaling`, static shapes and a static
    group size; and only optimizers that round to nearest even, whose
    tensors all have the shard's shape.

    Blocks hold as many indices of the cut dimension as fit in
    `block-bytes` of input, at least one; the indices left after the last
    full block are one more block after the loop. Where one index holds
    more than `block-bytes` (a short outer dimension), each block is cut
    again the same way, along the next dimension: a loop in the loop. Each block moves the same
    bytes per element as the whole reduce_scatter; a step makes one
    transport per block instead of one in all. `block-bytes` = 0 turns the
    pass off, and a reduce_scatter that fits in one block stays whole.

    Before:
    ```mlir
    %r = prec.reduce_scatter %g on @dp scatter_axis = 0 reduction = <avg>
           forward_dtype = bf16 acc_dtype = f32
           : tensor<4096x4096xf32> -> tensor<1024x4096xf32>
    %n = prec.sgd %w, %r, %lr : tensor<1024x4096xf32>, tensor<1024x4096xf32>
    ```
    After (`block-bytes=1048576`, 4 ranks: blocks of 16 rows of each
    rank's slice):
    ```mlir
    %gv = tensor.expand_shape %g [[0, 1], [2]] output_shape [4, 1024, 4096] : ...
    %wv = tensor.expand_shape %w [[0, 1], [2]] output_shape [1, 1024, 4096] : ...
    %loop = scf.for %i = %c0 to %c1024 step %c16 iter_args(%acc = %init) -> (tensor<1x1024x4096xf32>) {
      %gb = tensor.extract_slice %gv[0, %i, 0] [4, 16, 4096] [1, 1, 1] : ...
      %rb = prec.reduce_scatter %gb on @dp scatter_axis = 0 ...
              : tensor<4x16x4096xf32> -> tensor<1x16x4096xf32>
      %wb = tensor.extract_slice %wv[0, %i, 0] [1, 16, 4096] [1, 1, 1] : ...
      %nb = prec.sgd %wb, %rb, %lr : tensor<1x16x4096xf32>, tensor<1x16x4096xf32>
      %u = tensor.insert_slice %nb into %acc[0, %i, 0] [1, 16, 4096] [1, 1, 1] : ...
      scf.yield %u : tensor<1x1024x4096xf32>
    }
    %n = tensor.collapse_shape %loop [[0, 1], [2]] : tensor<1x1024x4096xf32> into tensor<1024x4096xf32>
    ```
  }];
  let options = [
    Option<"blockBytes", "block-bytes", "int64_t", "1048576",
           "the most input bytes one block reduces, at least one element of "
           "every rank's slice (0: leave reduce_scatters whole)">,
    Option<"withOptimizers", "optimizers", "bool", "true",
           "cut an optimizer that only reads the reduced gradient into the "
           "same blocks">
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::tensor::TensorDialect"];
}

def PrecDecomposeCollectives
    : Pass<"prec-decompose-collectives", "mlir::func::FuncOp"> {
  let summary = "split collectives into pack kernel, transport, unpack kernel";
  let description = [{
    Every collective becomes a pack kernel (pre-divide, cast to the wire
    dtype, lay out one contiguous chunk per destination rank in a flat
    buffer), a `prec.transport` of the flat wire buffer, and an unpack kernel
    (extend to the accumulation dtype, sum the chunks, post-divide, cast to
    the result type, restore the result layout). Kernels are
    `linalg.generic` ops on tensors.

    The algorithm honours the precision contract and is visible in the IR:

    - `acc_dtype` wider than the wire dtype (the *direct* algorithm): a
      reduce_scatter exchanges wire chunks with `prec.transport <all_to_all>`;
      the unpack kernel sums the N chunks in `acc_dtype`, in source-rank
      order. Every input is rounded to the wire once, partial sums never
      are. An all_reduce over N > 1 ranks is such a reduce-scatter of
      `ceil(count / N)`-element slices (zero padded), whose unpack kernel
      rounds each slice once to the gathered dtype, then an `<all_gather>`
      of the slices: about 2 (N - 1) / N x count elements received per
      rank, not (N - 1) x count. For groups of up to
      16 ranks the unpack kernel is one elementwise `linalg.generic` with an
      operand per chunk that sums, divides and casts in registers (one pass
      over the result, no accumulator buffer); larger groups sum in a
      reduction loop over the source rank, then finish in a second kernel.
    - `acc_dtype == forward_dtype` (the *wire reduction*):
      `prec.transport <reduce_scatter>` / `<all_reduce>`, the backend's own
      reduction, which rounds partial sums to the wire dtype at each step.

    `avg` reductions not yet made explicit by `prec-divide-factors` divide by
    the group size once, in the unpack kernel; `pre_divisor` and
    `post_divisor` are applied in the pack and unpack kernels. With
    `rounding = <stochastic>` the pack kernel rounds element i of the input
    (row-major) with word i of the Philox stream keyed by the seed and this
    rank (docs/Prec.md). fp8 data moves unconverted (block scales as bytes);
    a conversion to a scaled fp8 wire must have been made explicit by
    `prec-materialize-scales`. Static shapes and static group sizes are
    required; anything else is rejected naming the op.

    On a grid with `prec.inter_host_axes`, a reduce_scatter, all_reduce or
    all_gather whose group has several hosts and several ranks per host
    (`getTwoLevelGroup`) first becomes one collective per level, with the
    one-level op's layout: a reduce_scatter inside the host (the chunks
    reordered host-major where needed) into partial sums in `acc_dtype`,
    then one across hosts of the partial sums in `inter_host_dtype`
    (default `acc_dtype`; an fp8 one with `inter_host_scaling` becomes what
    prec-materialize-scales makes of a scaled reduction, each rank's scales
    sent with its quantized partial sums); an all_reduce is a reduce_scatter inside the
    host, an all_reduce of the slice across hosts and an all_gather inside
    the host; an all_gather gathers across hosts first, then inside, then
    restores group order. Each is then lowered as above (docs/Prec.md,
    "Topology and two-level collectives").

    Before:
    ```mlir
    %r = prec.reduce_scatter %g on @dp scatter_axis = 0 forward_dtype = bf16
           acc_dtype = f32 : tensor<8x4xf32> -> tensor<2x4xf32>
    ```
    After (schematically):
    ```mlir
    %p = linalg.generic ... // f32 -> bf16, [4, 2, 4] chunk layout
    %f = tensor.collapse_shape %p ... : tensor<4x2x4xbf16> into tensor<32xbf16>
    %x = prec.transport <all_to_all> %f on @dp : tensor<32xbf16> -> tensor<32xbf16>
    %c0 = tensor.extract_slice ... // the chunk from rank 0, and so on
    %s = linalg.generic ins(%c0, %c1, %c2, %c3 ...) // bf16 extended to f32, summed
    ```
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

def PrecDequantizeByTable
    : Pass<"prec-dequantize-by-table", "mlir::func::FuncOp"> {
  let summary = "per-tensor fp8 dequantization as a lookup of 256 values";
  let description = [{
    With one scale for the whole tensor (dynamic and delayed scaling), an
    fp8 element's dequantized value depends on its 8 bits alone. Each
    `prec.dequantize` of a static f8E4M3FN or f8E5M2 tensor of at least
    4096 elements with a rank-0 scale becomes the same `prec.dequantize` of
    the 256 bit patterns (a table) and a `linalg.generic` that looks each
    element up (`tensor.extract` by its bits): one load per element
    instead of decoding it and forming the exact product, and the same bits,
    since the table is that product. The CPU pipeline runs it before
    `convert-prec-to-linalg`; the GPU pipeline does not (its elementwise
    kernels move in vectors, which a lookup does not).

    ```mlir
    %w = prec.dequantize %q scale %s scaling = <dynamic>
           : tensor<64x64xf8E4M3FN>, tensor<f32> -> tensor<64x64xbf16>
    ```
    becomes
    ```mlir
    %codes = arith.constant dense<[0.0, 0.001953125, ...]> : tensor<256xf8E4M3FN>
    %table = prec.dequantize %codes scale %s scaling = <dynamic>
               : tensor<256xf8E4M3FN>, tensor<f32> -> tensor<256xbf16>
    %w = linalg.generic ... ins(%q : tensor<64x64xf8E4M3FN>) {
      %i = ... // the element's bits as an index
      %v = tensor.extract %table[%i] : tensor<256xbf16>
      linalg.yield %v : bf16
    }
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
}

def PrecFuseAmax : Pass<"prec-fuse-amax", "mlir::func::FuncOp"> {
  let summary = "compute amaxes in the read of the kernel that quantizes";
  let description = [{
    A `prec.amax` reads its whole input, and the `prec.quantize` of the
    same input reads it again. Where the quantization does not wait for
    that amax, this pass builds one kernel that does both, before
    `convert-prec-to-linalg` lowers what is left:

    - **block (MX) scaling**: `prec.amax` with `block_size = B`, the
      `prec.scale_from_amax` of its result and the `prec.quantize` of the
      same input with those scales (what `prec-materialize-scales` writes for
      every block-scaled gather, reduce-scatter, all-reduce and all_to_all)
      become one `scf.for` over rows of whole blocks of the input (at most
      4096 elements, 16 KiB of f32). Each iteration computes the row's
      block amaxes, their scales, and quantizes the row, which it reads
      from memory once; the loop's results are the quantized tensor and the
      scales.
    - **a per-tensor scale that does not depend on the amax** (delayed
      scaling, whose scale comes from the amax history): a `prec.amax` and a
      `prec.quantize` of the same input become one `linalg.generic` with
      two results, the quantized tensor and the largest magnitude of each
      column of a [rows, columns] view of the input (columns: the largest
      divisor of its size up to 4096 and up to a sixteenth of it), then a
      small kernel takes the largest of the columns. The innermost loop
      reads the input, writes the quantized elements and updates the column
      maxima at consecutive addresses, so LLVM vectorizes it; a maximum
      carried from one element to the next through memory would not be.
      The kernel takes the place of the earlier of the two ops where the
      later one's operands are known there (the input and, for a
      quantization, its scale), or else of the later one where everything
      that uses the earlier one's result comes after it.

    A dynamic per-tensor scale comes from the amax of the whole tensor (of
    every rank): no element can be quantized before that amax is known, so
    it stays a pass of its own.

    The kernels compute every value with the operations of the separate
    kernels, and a maximum is exact in any order: the results are the same
    bits. Quantizations with stochastic rounding (whose stream is keyed by
    each element's index in the whole tensor) are left as they are. Runs
    in `prec-lower-to-cpu` with kernel fusion on (`fuse-kernels`), right
    before `convert-prec-to-linalg`; the GPU pipeline keeps the separate
    kernels.

    Before:
    ```mlir
    %q = prec.quantize %w scale %s scaling = <delayed, history = 16>
           : tensor<16x64xf32>, tensor<f32> -> tensor<16x64xf8E4M3FN>
    ...
    %a = prec.amax %w : tensor<16x64xf32> -> tensor<f32>
    ```
    After:
    ```mlir
    %v = tensor.collapse_shape %w [[0, 1]] : tensor<16x64xf32> into tensor<1024xf32>
    %m = tensor.expand_shape %v [[0, 1]] output_shape [16, 64] : ...
    %k:2 = linalg.generic {iterator_types = ["reduction", "parallel"]}
             ins(%m, %s : tensor<16x64xf32>, tensor<f32>)
             outs(%zeros, %e : tensor<64xf32>, tensor<16x64xf8E4M3FN>) {...}
    %a = linalg.generic {iterator_types = ["reduction"]}
           ins(%k#0 : tensor<64xf32>) outs(%zero : tensor<f32>) {...}
    ```
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect"
  ];
}

def PrecReportTraffic : Pass<"prec-report-traffic", "mlir::func::FuncOp"> {
  let summary = "remark, per collective and per kernel, the bytes a rank moves";
  let description = [{
    What a precision choice costs in memory and network traffic, before the
    program runs. Runs on decomposed collectives (`prec.transport`) and
    kernels on tensors (linalg ops), as the lowering pipelines have them
    after kernel fusion (`prec-lower-to-cpu{report-traffic=true}`,
    `prec-run --traffic`), and emits one remark on each, at its location:

    - a `prec.transport` of `n` wire elements of `E` bytes over a group of
      `N` ranks: the payload bytes each rank sends and receives, by the
      runtime's algorithm (docs/Runtime.md): `all_gather` `(N - 1) n E`
      both ways; `all_to_all` and `reduce_scatter` `(N - 1) (n / N) E`;
      `all_reduce` `2 (N - 1) (n / N) E` (with `n` not a multiple of `N`,
      the bound `2 (N - 1) ceil(n / N) E`, marked "at most"); on a grid
      with `prec.inter_host_axes`, the links it uses: inside its host,
      across hosts (every peer on another host: the inter-host level of a
      two-level collective), or both (a one-level collective over both);
    - a linalg op: the bytes of the tensors it reads (inputs, and the
      outputs whose values its body uses) and of those it writes;
    - the function: the sums of both per call, its callees' included once
      per call (with the bytes sent across hosts where every transport is
      on one level of a topology), and per transport kind; a note names each all_gather of the
      source that runs at several places of a call (the backward re-running
      the forward's gathers). An op in loops is stated
      per iteration and counted once per iteration, the product of the
      loops' static trip counts (the blocks of `prec-block-all-reduce`
      and `prec-block-reduce-scatter`);
      where a loop's trip count is not static the op is counted once and the
      total says so.

    ```
    step.mlir:12:11: remark: traffic: all_to_all of 4096 x bf16 over 4 ranks:
      each rank sends 6144 bytes and receives 6144 bytes
    step.mlir:14:9: remark: traffic: kernel reads 24576 bytes and writes 16384 bytes
    ```

    `precrtCompiledGetTraffic` measures the same transports as the runtime
    moves them; `prec-run --traffic` prints both. The module is unchanged.
  }];
}

#endif // PREC_DIALECT_PREC_TRANSFORMS_PASSES_TD
