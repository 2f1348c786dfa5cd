//===- PrecOps.td - prec operations -------------------------*- tablegen -*-===//

#ifndef PREC_DIALECT_PREC_IR_PRECOPS_TD
#define PREC_DIALECT_PREC_IR_PRECOPS_TD

include "prec/Dialect/Prec/IR/PrecBase.td"
include "prec/Dialect/Prec/IR/PrecAttrs.td"
include "prec/Dialect/Prec/IR/PrecInterfaces.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"

//===----------------------------------------------------------------------===//
// Casts
//===----------------------------------------------------------------------===//

def Prec_CastOp : Prec_Op<"cast", [Pure]> {
  let summary = "elementwise float cast with its own gradient dtype";
  let description = [{
    Converts every element of `input` to the element type of `result`,
    rounding with `rounding` (`nearest_even` by default, `stochastic` on
    request) when the result type is narrower. Conversions to fp8 types
    saturate to the largest finite value.

    `backward_dtype` is the dtype the *gradient* is cast to on its way back
    (default: the input's element type). The forward cast and the gradient
    cast are separate choices, as with a custom `autograd.Function` in
    PyTorch; for example, compute in bf16 but return f32 gradients to an f32
    master weight, or round gradients to bf16 while the forward stays f32.

    Folding is exact only: a cast to the same type without a different
    `backward_dtype` vanishes; `A -> B -> C` becomes `A -> C` when `B`
    represents every value of `A` and of `C` (so neither direction rounds
    twice), e.g. `bf16 -> f32 -> bf16` is the identity while
    `f32 -> bf16 -> f32` is kept.

    ```mlir
    %w16 = prec.cast %w backward_dtype = f32 : tensor<128x512xf32> to tensor<128x512xbf16>
    %g8  = prec.cast %g rounding = <stochastic> seed %seed : tensor<4096xf32> to tensor<4096xbf16>
    ```

    Stochastic rounding needs a `seed` (i64) and takes the rounding decision
    of element `i` (its row-major index in `input`) from word `i` of the
    Philox 4x32-10 stream keyed by the seed (precrt/numerics.h: a value
    rounds up with probability equal to its distance from the value below,
    in units of the spacing): reproducible, bit for bit the runtime's
    `precrtConvertF32Stochastic`, unbiased. A program changes the seed per
    step (and derives it from the rank where ranks round the same data).
  }];
  let arguments = (ins
    Prec_FloatScalarOrTensor:$input,
    OptionalAttr<Prec_FloatTypeAttr>:$backward_dtype,
    DefaultValuedAttr<Prec_RoundingModeAttr,
                      "::mlir::prec::RoundingMode::NearestEven">:$rounding,
    Optional<I64>:$seed
  );
  let results = (outs Prec_FloatScalarOrTensor:$result);
  let assemblyFormat = [{
    $input `` custom<CastClauses>($backward_dtype, $rounding, $seed)
    attr-dict `:` type($input) `to` type($result)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
  let extraClassDeclaration = [{
    /// The dtype of the gradient: `backward_dtype`, or the input element type.
    ::mlir::Type getEffectiveBackwardDtype();
  }];
}

def Prec_SaturatingTruncFOp : Prec_Op<"saturating_truncf",
    [Pure, ElementwiseMappable]> {
  let summary = "f32 to fp8 in kernels: nearest even, saturating";
  let description = [{
    The conversion prec's kernels use from f32 to `f8E4M3FN` or `f8E5M2`,
    on scalars or vectors: round to nearest even; finite values beyond the
    largest finite value and infinities become the largest finite value of
    their sign; NaN becomes the format's canonical NaN (`0x7F` for
    f8E4M3FN, `0x7E` for f8E5M2, positive). This is the fp8 rule of
    docs/Prec.md and the runtime's reference (`precrt/numerics.h`,
    `encodeNearestEven`); upstream's `arith.truncf` gives NaN (f8E4M3FN) or
    infinity (f8E5M2) on overflow instead.

    The kernel builders emit it so that each target chooses its lowering
    late: `prec-expand-fp8-arith` turns it into integer arithmetic (CPUs,
    GPUs before sm_89, the emulated GPU path), and `prec-gpu-fp8-to-nvvm`
    into PTX's `cvt.rn.satfinite.e4m3x2.f32` / `e5m2x2` on sm_89 and later.

    ```mlir
    %q = prec.saturating_truncf %x : f32 to f8E4M3FN
    %v = prec.saturating_truncf %y : vector<16xf32> to vector<16xf8E5M2>
    ```
  }];
  let arguments = (ins AnyTypeOf<[F32, VectorOfAnyRankOf<[F32]>]>:$in);
  let results = (outs AnyTypeOf<[F8E4M3FN, F8E5M2,
                                 VectorOfAnyRankOf<[F8E4M3FN, F8E5M2]>]>:$out);
  let assemblyFormat = "$in attr-dict `:` type($in) `to` type($out)";
}

//===----------------------------------------------------------------------===//
// Local reduction
//===----------------------------------------------------------------------===//

def Prec_ReduceOp : Prec_Op<"reduce", [Pure]> {
  let summary = "local reduction over tensor dimensions with an accumulation dtype";
  let description = [{
    Reduces `input` over the dimensions `dims` on this rank:

    ```
    acc = reduce over dims of ext(x, acc_dtype)
    out = cast(acc, result element type)
    ```

    `reduction` is `sum` (default), `avg`, `max` or `min`; `acc_dtype`
    defaults to f32 for f32 and narrower inputs, f64 for f64. The result has
    the input's shape with `dims` removed. The gradient of a `sum` is the
    output gradient broadcast over `dims` and cast to the input type.

    ```mlir
    %loss = prec.reduce %err dims = [0, 1] reduction = <avg> acc_dtype = f32
              : tensor<32x512xbf16> -> tensor<f32>
    ```
  }];
  let arguments = (ins
    Prec_FloatTensor:$input,
    Prec_DimListAttr:$dims,
    DefaultValuedAttr<Prec_ReductionKindAttr,
                      "::mlir::prec::ReductionKind::Sum">:$reduction,
    OptionalAttr<Prec_FloatTypeAttr>:$acc_dtype
  );
  let results = (outs Prec_FloatTensor:$result);
  let assemblyFormat = [{
    $input `` custom<ReduceClauses>($dims, $reduction, $acc_dtype)
    attr-dict `:` type($input) `->` type($result)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Collectives
//===----------------------------------------------------------------------===//

class Prec_CollectiveOpBase<string mnemonic, list<Trait> traits = []>
    : Prec_Op<mnemonic, !listconcat(traits, [
        Pure,
        DeclareOpInterfaceMethods<SymbolUserOpInterface>,
        Prec_CollectiveOpInterface])> {
  dag commonArgs = (ins
    Prec_FloatTensor:$input,
    FlatSymbolRefAttr:$grid,
    DefaultValuedAttr<Prec_GridAxesAttr, "{}">:$grid_axes,
    OptionalAttr<Prec_FloatTypeAttr>:$forward_dtype,
    OptionalAttr<Prec_FloatTypeAttr>:$backward_dtype,
    DefaultValuedAttr<Prec_RoundingModeAttr,
                      "::mlir::prec::RoundingMode::NearestEven">:$rounding,
    OptionalAttr<Prec_ScalingAttr>:$scaling,
    Optional<I64>:$seed
  );
  dag reductionArgs = (ins
    DefaultValuedAttr<Prec_ReductionKindAttr,
                      "::mlir::prec::ReductionKind::Sum">:$reduction,
    OptionalAttr<Prec_FloatTypeAttr>:$acc_dtype,
    OptionalAttr<F64Attr>:$pre_divisor,
    OptionalAttr<F64Attr>:$post_divisor,
    OptionalAttr<Prec_ReductionAlgorithmAttr>:$algorithm,
    OptionalAttr<Prec_FloatTypeAttr>:$inter_host_dtype,
    OptionalAttr<Prec_ScalingAttr>:$inter_host_scaling
  );
  let results = (outs Prec_FloatTensor:$result);
  let hasVerifier = 1;
  // The keyword clauses after `on $grid` parse in any order, each at most
  // once, and print in one order without their defaults
  // (`custom<...Clauses>` in PrecOps.cpp).
}

def Prec_AllGatherOp : Prec_CollectiveOpBase<"all_gather",
                                             []> {
  let summary = "all-gather whose wire dtype and gradient dtype are explicit";
  let description = [{
    Concatenates the `input` slices of all ranks of the group along
    `gather_axis`, in group order, and replicates the result on every rank
    of the group. The group is the set of ranks of `grid` that differ only
    in their coordinates on `grid_axes` (all axes when omitted), ordered by
    those coordinates, last axis fastest. The gathered dimension of the
    result is `group size` times the input's.

    ```
    input per rank:   r0: [a]   r1: [b]   r2: [c]   r3: [d]
    result on every rank:   [a b c d]     (along gather_axis)
    ```

    Precision: each element is rounded once to `forward_dtype` (default: the
    input element type) and travels in it; the result holds the wire values
    converted to the result element type. `backward_dtype` is the wire dtype
    of the gradient: the gradient of an all-gather is a reduce-scatter with
    `forward_dtype = backward_dtype` and reduction `grad_reduction` (`avg` by
    default: data-parallel losses are means over the local batch, as in
    FSDP). A `forward_dtype` of fp8 requires a `scaling` mode.

    `grad_inter_host_dtype` is the `inter_host_dtype` of that reduce-scatter:
    on a grid whose `prec.inter_host_axes` split the group into hosts, the
    gradient's partial sums cross hosts in it (docs/Prec.md, "Topology and
    two-level collectives"). It follows the rules of `inter_host_dtype`
    with the gradient's accumulation dtype (the default one of
    `backward_dtype`): a type that dtype holds, no `scaling`, and a group
    with axes on both levels; an fp8 one needs `grad_inter_host_scaling`,
    the gradient's `inter_host_scaling`.

    ```mlir
    shard.grid @dp(shape = 8)
    // FSDP: gather f32 shards as bf16, reduce their gradients in f32.
    %w = prec.all_gather %w_shard on @dp gather_axis = 0
           forward_dtype = bf16 backward_dtype = f32
           : tensor<128x512xf32> -> tensor<1024x512xbf16>
    ```
  }];
  let arguments = !con(commonArgs, (ins
    I64Attr:$gather_axis,
    DefaultValuedAttr<Prec_ReductionKindAttr,
                      "::mlir::prec::ReductionKind::Avg">:$grad_reduction,
    OptionalAttr<Prec_FloatTypeAttr>:$grad_inter_host_dtype,
    OptionalAttr<Prec_ScalingAttr>:$grad_inter_host_scaling
  ));
  let assemblyFormat = [{
    $input `on` $grid ``
    custom<AllGatherClauses>($grid_axes, $gather_axis, $forward_dtype,
      $backward_dtype, $rounding, $seed, $scaling, $grad_reduction,
      $grad_inter_host_dtype, $grad_inter_host_scaling)
    attr-dict `:` type($input) `->` type($result)
  }];
}

def Prec_ReduceScatterOp : Prec_CollectiveOpBase<"reduce_scatter",
                                                 []> {
  let summary = "reduce-scatter with explicit wire and accumulation dtypes";
  let description = [{
    Reduces the `input` tensors of all ranks of the group elementwise and
    leaves on rank `i` of the group the `i`-th of `group size` equal slices
    along `scatter_axis`.

    ```
    input per rank:   r0: [a0 a1]   r1: [b0 b1]
    result:           r0: [a0+b0]   r1: [a1+b1]
    ```

    Precision (the contract):

    ```
    wire = cast(x, forward_dtype)                 // rounded once, on this rank
    acc  = sum over ranks of ext(wire, acc_dtype)  // partial sums stay acc_dtype
    out  = cast(acc / divisor, result type)
    ```

    `forward_dtype` defaults to the input element type, `acc_dtype` to f32
    (f64 for f64 inputs); `acc_dtype` must represent every `forward_dtype`
    value. A lowering that re-rounds partial sums to the wire dtype at every
    hop (a ring in the wire dtype) honours the contract only when
    `acc_dtype == forward_dtype`. `reduction = avg` divides by the group
    size. `backward_dtype` is the wire dtype of the gradient, an all-gather.

    Explicit scaling (what `prec-divide-factors` turns `avg` into): with
    `reduction = sum`, the optional `pre_divisor` and `post_divisor`
    (positive, 1 when absent) divide before the wire cast and after the
    accumulation:

    ```
    wire = cast(x / pre_divisor, forward_dtype)   // x / pre_divisor in the input type
    acc  = sum over ranks of ext(wire, acc_dtype)
    out  = cast(acc / post_divisor, result type)  // acc / post_divisor in acc_dtype
    ```

    A power-of-two divisor only changes exponents, so it rounds nothing
    (unless a value leaves the normal range).

    `algorithm` fixes how the group combines the wire values:

    - `direct`: every rank receives the wire chunks of its slice from all
      ranks (all-to-all) and one fused kernel sums them in `acc_dtype`
      (`N - 1` additions in rank order);
    - `ring`: the partial sum travels `N - 1` hops and is rounded to
      `forward_dtype` after each addition (NCCL's native ring); legal only
      when `acc_dtype == forward_dtype`.

    When absent the lowering picks `direct` if `acc_dtype` is wider than
    `forward_dtype` and `ring` otherwise (`getReductionAlgorithm`).

    On a grid whose `prec.inter_host_axes` name some of the group's axes
    and not all of them (docs/Prec.md, "Topology and two-level
    collectives"), the group reduces in two levels: inside each host as
    above, into partial sums in `acc_dtype`, then across hosts, where each
    partial sum travels in `inter_host_dtype` (default: `acc_dtype`),
    rounded to it once, and is summed in `acc_dtype`. `inter_host_dtype`
    must be a type `acc_dtype` holds, and is accepted only on an op whose
    group spans both levels, rounds to nearest even and has no `scaling`.
    An fp8 `inter_host_dtype` needs `inter_host_scaling` (`dynamic`: one
    scale per rank's partial sums, or `block`), and only it takes one: each
    rank sends its scales with its partial sums, as a scaled reduction does
    on its wire.

    ```mlir
    %g = prec.reduce_scatter %gw on @dp scatter_axis = 0 reduction = <avg>
           forward_dtype = bf16 acc_dtype = f32
           : tensor<1024x512xf32> -> tensor<128x512xf32>
    ```
  }];
  let arguments = !con(commonArgs, reductionArgs, (ins I64Attr:$scatter_axis));
  let builders = [
    // Without explicit divisors or algorithm.
    OpBuilder<(ins "::mlir::Type":$result, "::mlir::Value":$input,
      "::llvm::StringRef":$grid, "::llvm::ArrayRef<int16_t>":$grid_axes,
      "::mlir::TypeAttr":$forward_dtype, "::mlir::TypeAttr":$backward_dtype,
      "::mlir::prec::RoundingMode":$rounding,
      "::mlir::prec::ScalingAttr":$scaling,
      "::mlir::prec::ReductionKind":$reduction, "::mlir::TypeAttr":$acc_dtype,
      "uint64_t":$scatter_axis), [{
      build($_builder, $_state, result, input, grid, grid_axes, forward_dtype,
            backward_dtype, rounding, scaling, /*seed=*/::mlir::Value(),
            reduction, acc_dtype, /*pre_divisor=*/nullptr,
            /*post_divisor=*/nullptr, /*algorithm=*/nullptr,
            /*inter_host_dtype=*/nullptr, /*inter_host_scaling=*/nullptr,
            scatter_axis);
    }]>
  ];
  let extraClassDeclaration = [{ bool isReduction() { return true; } }];
  let assemblyFormat = [{
    $input `on` $grid ``
    custom<ReduceScatterClauses>($grid_axes, $scatter_axis, $reduction,
      $forward_dtype, $backward_dtype, $rounding, $seed, $scaling, $acc_dtype,
      $pre_divisor, $post_divisor, $algorithm, $inter_host_dtype,
      $inter_host_scaling)
    attr-dict `:` type($input) `->` type($result)
  }];
}

def Prec_AllReduceOp : Prec_CollectiveOpBase<"all_reduce",
                                             []> {
  let summary = "all-reduce with explicit wire and accumulation dtypes";
  let description = [{
    Reduces the `input` tensors of all ranks of the group elementwise and
    replicates the result on every rank of the group. Precision follows the
    same contract as `prec.reduce_scatter`: inputs rounded once to
    `forward_dtype`, partial sums kept in `acc_dtype`, the result cast once.
    The gradient of an all-reduce is an all-reduce of the gradient, with
    `backward_dtype` on the wire. `pre_divisor`, `post_divisor` and
    `algorithm` mean what they mean for `prec.reduce_scatter`; a ring
    all-reduce is a ring reduce-scatter followed by an all-gather of the
    reduced slices, which rounds nothing more. `inter_host_dtype` is the
    wire dtype of the partial sums between hosts, as for
    `prec.reduce_scatter`. `grad_inter_host_dtype` (with
    `grad_inter_host_scaling` when it is fp8) is the `inter_host_dtype`
    (and `inter_host_scaling`) of the gradient all-reduce, under the rules
    `prec.all_gather` states for its own: the gradient's accumulation dtype
    is the default one of `backward_dtype`. A direct all-reduce over more
    than one rank is a direct reduce-scatter (slices of `ceil(count / N)`
    elements, the last padded) followed by an all-gather of the reduced
    slices, each rounded once to the result type when it is no wider than
    `forward_dtype`, else to `forward_dtype` (`getAllReduceGatherType`): a
    bf16-wire all-reduce into f32 rounds its sum to bf16 once more.

    ```mlir
    shard.grid @hsdp(shape = 4x8)
    // HSDP: average the gradient shards over the replicate axis.
    %g = prec.all_reduce %gs on @hsdp grid_axes = [0] reduction = <avg>
           acc_dtype = f32 : tensor<128x512xf32> -> tensor<128x512xf32>
    ```
  }];
  let arguments = !con(commonArgs, reductionArgs, (ins
    OptionalAttr<Prec_FloatTypeAttr>:$grad_inter_host_dtype,
    OptionalAttr<Prec_ScalingAttr>:$grad_inter_host_scaling
  ));
  let builders = [
    // Without explicit divisors, algorithm or inter-host dtypes.
    OpBuilder<(ins "::mlir::Type":$result, "::mlir::Value":$input,
      "::llvm::StringRef":$grid, "::llvm::ArrayRef<int16_t>":$grid_axes,
      "::mlir::TypeAttr":$forward_dtype, "::mlir::TypeAttr":$backward_dtype,
      "::mlir::prec::RoundingMode":$rounding,
      "::mlir::prec::ScalingAttr":$scaling,
      "::mlir::prec::ReductionKind":$reduction, "::mlir::TypeAttr":$acc_dtype),
    [{
      build($_builder, $_state, result, input, grid, grid_axes, forward_dtype,
            backward_dtype, rounding, scaling, /*seed=*/::mlir::Value(),
            reduction, acc_dtype, /*pre_divisor=*/nullptr,
            /*post_divisor=*/nullptr, /*algorithm=*/nullptr,
            /*inter_host_dtype=*/nullptr, /*inter_host_scaling=*/nullptr,
            /*grad_inter_host_dtype=*/nullptr,
            /*grad_inter_host_scaling=*/nullptr);
    }]>
  ];
  let extraClassDeclaration = [{ bool isReduction() { return true; } }];
  let assemblyFormat = [{
    $input `on` $grid ``
    custom<AllReduceClauses>($grid_axes, $reduction, $forward_dtype,
      $backward_dtype, $rounding, $seed, $scaling, $acc_dtype, $pre_divisor,
      $post_divisor, $algorithm, $inter_host_dtype, $inter_host_scaling,
      $grad_inter_host_dtype, $grad_inter_host_scaling)
    attr-dict `:` type($input) `->` type($result)
  }];
}

def Prec_AllToAllOp : Prec_CollectiveOpBase<"all_to_all",
                                            []> {
  let summary = "all-to-all exchange with an explicit wire dtype";
  let description = [{
    Splits `input` into `group size` equal chunks along `split_axis`, sends
    chunk `j` to rank `j` of the group, and concatenates the chunks received
    from ranks `0 .. N-1` along `concat_axis`.

    ```
    input:   r0: [a0 a1]   r1: [b0 b1]          (split_axis = concat_axis = 0)
    result:  r0: [a0 b0]   r1: [a1 b1]
    ```

    Each element is rounded once to `forward_dtype`; the gradient is the
    inverse all-to-all with `backward_dtype` on the wire.

    ```mlir
    %t = prec.all_to_all %x on @ep split_axis = 0 concat_axis = 1
           forward_dtype = bf16 : tensor<64x16xf32> -> tensor<8x128xbf16>
    ```
  }];
  let arguments = !con(commonArgs, (ins I64Attr:$split_axis,
                                        I64Attr:$concat_axis));
  let assemblyFormat = [{
    $input `on` $grid ``
    custom<AllToAllClauses>($grid_axes, $split_axis, $concat_axis,
      $forward_dtype, $backward_dtype, $rounding, $seed, $scaling)
    attr-dict `:` type($input) `->` type($result)
  }];
}

//===----------------------------------------------------------------------===//
// Quantization
//===----------------------------------------------------------------------===//

class Prec_QuantizationOpBase<string mnemonic, list<Trait> traits = []>
    : Prec_Op<mnemonic, !listconcat(traits, [Pure])> {
  let hasVerifier = 1;
}

def Prec_QuantizeOp : Prec_QuantizationOpBase<"quantize"> {
  let summary = "scale and round a tensor to a low-precision (fp8) type";
  let description = [{
    `result = saturate(round(input / scale))`: the real value of a quantized
    element is `q * scale`. The quotient is computed in f32 (in the input
    type where that is wider) and rounded once to the result type, to
    nearest even (or stochastically with `rounding = <stochastic>` and a
    `seed`, as `prec.cast` defines it); values
    beyond the largest finite value, infinities included, saturate to it, and
    NaN becomes the format's NaN (precrt/numerics.h has the reference).
    `prec.amax` and `prec.scale_from_amax` compute scales for which nothing
    the amax covers saturates.

    The scale is an SSA value so that how it is computed stays visible and
    optimizable: for `dynamic` and `delayed` scaling it is a rank-0 tensor
    (one scale per tensor); for `block` scaling it has the input's shape with
    the innermost dimension divided by `block_size`, and element type
    `scale_dtype`.

    ```mlir
    %q = prec.quantize %w scale %s scaling = <dynamic>
           : tensor<1024x512xf32>, tensor<f32> -> tensor<1024x512xf8E4M3FN>
    %m = prec.quantize %x scale %bs
           scaling = <block, block_size = 32, scale_dtype = f8E8M0FNU>
           : tensor<64x128xbf16>, tensor<64x4xf8E8M0FNU> -> tensor<64x128xf8E4M3FN>
    ```
  }];
  let arguments = (ins
    Prec_FloatTensor:$input,
    Prec_FloatTensor:$scale,
    Prec_ScalingAttr:$scaling,
    DefaultValuedAttr<Prec_RoundingModeAttr,
                      "::mlir::prec::RoundingMode::NearestEven">:$rounding,
    Optional<I64>:$seed
  );
  let results = (outs Prec_FloatTensor:$result);
  let assemblyFormat = [{
    $input `scale` $scale ``
    custom<QuantizeClauses>($scaling, $rounding, $seed)
    attr-dict `:` type($input) `,` type($scale) `->` type($result)
  }];
}

def Prec_DequantizeOp : Prec_QuantizationOpBase<"dequantize"> {
  let summary = "expand a low-precision (fp8) tensor with its scale";
  let description = [{
    `result = cast(input * scale, result type)`: the product of the fp8
    value and its scale is computed exactly and rounded once, to nearest
    even (in f32 for f32 results, where one multiplication does it; for bf16
    and f16 results, in f32 arithmetic that keeps the product exact as two
    terms and rounds it to odd before the final rounding; in f64 for f64
    results). The scale follows the same shape rules as in `prec.quantize`.

    ```mlir
    %w = prec.dequantize %q scale %s scaling = <dynamic>
           : tensor<1024x512xf8E4M3FN>, tensor<f32> -> tensor<1024x512xbf16>
    ```
  }];
  let arguments = (ins
    Prec_FloatTensor:$input,
    Prec_FloatTensor:$scale,
    Prec_ScalingAttr:$scaling
  );
  let results = (outs Prec_FloatTensor:$result);
  let assemblyFormat = [{
    $input `scale` $scale `scaling` `=` $scaling
    attr-dict `:` type($input) `,` type($scale) `->` type($result)
  }];
}

def Prec_AmaxOp : Prec_Op<"amax", [Pure]> {
  let summary = "largest finite magnitude of a tensor, or of each block of it";
  let description = [{
    The input to a scale: `max |x|` over the finite elements of `input`, in
    f32 (exact for f32 and narrower inputs; an f64 magnitude is rounded to
    f32 and kept finite, at most the largest f32). Infinities and NaN are left out,
    so that one non-finite element does not turn the scale of every other
    element into infinity or NaN (the conversions saturate infinities and
    keep NaN themselves); a tensor with no finite element, or only zeros, has
    an amax of 0.

    Without `block_size` the result is rank-0: one amax for the tensor (this
    rank's part of it; `prec-materialize-scales` reduces the parts of a
    sharded tensor with `prec.all_reduce` and `reduction = <max>`). With
    `block_size = B`, one amax per `B` consecutive elements of the innermost
    dimension: the result has the input's shape with that dimension divided
    by `B` (OCP MX block scaling).

    ```mlir
    %a = prec.amax %w : tensor<16x64xf32> -> tensor<f32>
    %b = prec.amax %w block_size = 32 : tensor<16x64xf32> -> tensor<16x2xf32>
    ```
  }];
  let arguments = (ins
    Prec_FloatTensor:$input,
    OptionalAttr<I64Attr>:$block_size
  );
  let results = (outs RankedTensorOf<[F32]>:$result);
  let assemblyFormat = [{
    $input (`block_size` `=` $block_size^)? attr-dict `:` type($input) `->`
    type($result)
  }];
  let hasVerifier = 1;
}

def Prec_ScaleFromAmaxOp : Prec_Op<"scale_from_amax", [Pure]> {
  let summary = "the scale that maps an amax onto an fp8 format";
  let description = [{
    Elementwise, from amaxes (f32, as `prec.amax` computes them) to the
    scales `prec.quantize` divides by, for quantized elements of type
    `element_type`:

    - an f32 result (per-tensor scaling, `dynamic` and `delayed`):
      `scale = max(amax / max_finite(element_type), 2^-126)` for
      `amax > 0` and `scale = 1` for `amax = 0`, computed in f32. Every scale
      is a positive normal number: `amax / scale <= max_finite` (nothing
      saturates that the amax covers) and no division by zero or by a
      subnormal can give infinity or NaN.
    - an `f8E8M0FNU` result (OCP MX v1.0 block scaling): the power of two
      `2^(floor(log2(amax)) - emax(element_type))`, with `emax` the exponent
      of the element type's largest normal (8 for f8E4M3FN, 15 for f8E5M2),
      clamped to E8M0's range `[2^-127, 2^127]`; an amax of 0, infinity or
      NaN gives 1, as for f32 scales.
      Elements of a block then lie below `2^(emax + 1)`; those above the
      element type's largest finite value saturate, as the MX specification
      defines.

    ```mlir
    %s = prec.scale_from_amax %a element_type = f8E4M3FN : tensor<f32> -> tensor<f32>
    %x = prec.scale_from_amax %b element_type = f8E4M3FN
           : tensor<16x2xf32> -> tensor<16x2xf8E8M0FNU>
    ```
  }];
  let arguments = (ins
    RankedTensorOf<[F32]>:$amax,
    Prec_FloatTypeAttr:$element_type
  );
  let results = (outs RankedTensorOf<[F32, F8E8M0FNU]>:$result);
  let assemblyFormat = [{
    $amax `element_type` `=` $element_type attr-dict `:` type($amax) `->`
    type($result)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Fused optimizer updates
//===----------------------------------------------------------------------===//

class Prec_OptimizerOpBase<string mnemonic, list<Trait> traits = []>
    : Prec_Op<mnemonic, !listconcat(traits, [Pure])> {
  let hasVerifier = 1;
}

def Prec_SGDOp : Prec_OptimizerOpBase<"sgd", [
    AllTypesMatch<["param", "new_param"]>]> {
  let summary = "fused SGD step on an f32 master shard";
  let description = [{
    One kernel: reads the (low-precision) gradient, updates the master
    shard and optionally writes the next step's low-precision shard.

    ```
    g         = ext(grad, master dtype) + weight_decay * param
    new_param = param - lr * g
    shard     = cast(new_param, shard dtype)      // optional result
    ```

    `lr` is an f32 scalar operand so that schedules need no recompilation.
    The master must represent every gradient value (f32 master, bf16 grad).
    The shard is rounded to nearest even, or stochastically with
    `rounding = <stochastic>` and a `seed`, as `prec.cast` defines it
    (element i of the shard by word i of the seed's stream).

    ```mlir
    %p, %p16 = prec.sgd %param, %grad, %lr weight_decay = 1.0e-02
                 : tensor<128x512xf32>, tensor<128x512xbf16> -> tensor<128x512xbf16>
    ```
  }];
  let arguments = (ins
    Prec_FloatTensor:$param,
    Prec_FloatTensor:$grad,
    F32:$lr,
    DefaultValuedAttr<F64Attr, "0.0">:$weight_decay,
    DefaultValuedAttr<Prec_RoundingModeAttr,
                      "::mlir::prec::RoundingMode::NearestEven">:$rounding,
    Optional<I64>:$seed
  );
  let results = (outs
    Prec_FloatTensor:$new_param,
    Optional<Prec_FloatTensor>:$shard
  );
  let assemblyFormat = [{
    $param `,` $grad `,` $lr ``
    custom<SGDClauses>($weight_decay, $rounding, $seed) attr-dict
    `:` type($param) `,` type($grad) (`->` type($shard)^)?
  }];
}

def Prec_AdamWOp : Prec_OptimizerOpBase<"adamw", [
    AllTypesMatch<["param", "exp_avg", "exp_avg_sq",
                   "new_param", "new_exp_avg", "new_exp_avg_sq"]>]> {
  let summary = "fused AdamW step on an f32 master shard and f32 state";
  let description = [{
    One kernel, as `torch.optim.AdamW` (decoupled weight decay):

    ```
    g     = ext(grad, master dtype)
    m'    = beta1 * m + (1 - beta1) * g
    v'    = beta2 * v + (1 - beta2) * g * g
    p'    = p * (1 - lr * weight_decay)
            - lr * (m' / (1 - beta1^step)) / (sqrt(v' / (1 - beta2^step)) + eps)
    shard = cast(p', shard dtype)                 // optional result
    ```

    `lr` and `step` (counted from 1) are f32 scalar operands. The bias
    corrections `1 - beta^step` are computed in f64 and rounded once to the
    master type, as `torch.optim.AdamW` computes them in Python floats (in
    f32, `1 - 0.999^step` would keep only a few bits). Master and state
    share one type, which must represent every gradient value. The shard is
    rounded as `prec.sgd`'s (`rounding`, `seed`).

    ```mlir
    %p, %m, %v, %p16 = prec.adamw %param, %grad, %m0, %v0, %lr, %step
        : tensor<128x512xf32>, tensor<128x512xbf16> -> tensor<128x512xbf16>
    ```
  }];
  let arguments = (ins
    Prec_FloatTensor:$param,
    Prec_FloatTensor:$grad,
    Prec_FloatTensor:$exp_avg,
    Prec_FloatTensor:$exp_avg_sq,
    F32:$lr,
    F32:$step,
    DefaultValuedAttr<F64Attr, "0.9">:$beta1,
    DefaultValuedAttr<F64Attr, "0.999">:$beta2,
    DefaultValuedAttr<F64Attr, "1.0e-08">:$eps,
    DefaultValuedAttr<F64Attr, "1.0e-02">:$weight_decay,
    DefaultValuedAttr<Prec_RoundingModeAttr,
                      "::mlir::prec::RoundingMode::NearestEven">:$rounding,
    Optional<I64>:$seed
  );
  let results = (outs
    Prec_FloatTensor:$new_param,
    Prec_FloatTensor:$new_exp_avg,
    Prec_FloatTensor:$new_exp_avg_sq,
    Optional<Prec_FloatTensor>:$shard
  );
  let assemblyFormat = [{
    $param `,` $grad `,` $exp_avg `,` $exp_avg_sq `,` $lr `,` $step ``
    custom<AdamWClauses>($beta1, $beta2, $eps, $weight_decay, $rounding,
      $seed) attr-dict
    `:` type($param) `,` type($grad) (`->` type($shard)^)?
  }];
}

//===----------------------------------------------------------------------===//
// Wire transport
//===----------------------------------------------------------------------===//

// The order in which a rank's transports run: started transports and their
// waits keep their places relative to each other.
def Prec_CommunicationResource
    : Resource<"::mlir::prec::CommunicationResource">;

def Prec_TransportOp : Prec_Op<"transport", [
    Pure, DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "move a flat buffer of wire-dtype values between ranks";
  let description = [{
    The communication step of a decomposed collective: a 1-D buffer, already
    packed in the wire dtype by a kernel before it, moved by the backend
    (`precrt`, over threads, MPI or NCCL) and unpacked by a kernel after it.
    Nothing is converted: input and result have the same element type.

    - `all_gather`: rank `r`'s buffer lands at `[r * n, (r + 1) * n)` of the
      result on every rank of the group (`n` = input size);
    - `all_to_all`: chunk `j` of rank `r` lands as chunk `r` on rank `j`
      (chunks of `n / N` elements);
    - `reduce_scatter` / `all_reduce` with `reduction`: the backend reduces
      *in the wire dtype*, rounding partial sums at every step as NCCL's
      ring does. `prec-decompose-collectives` only emits these when the
      collective's `acc_dtype` equals its `forward_dtype`, where the contract
      allows it; with a wider `acc_dtype` it emits an `all_to_all` or
      `all_gather` followed by a summing kernel in `acc_dtype` instead.

    ```mlir
    %recv = prec.transport <all_to_all> %packed on @dp : tensor<4096xbf16> -> tensor<4096xbf16>
    %part = prec.transport <reduce_scatter> %packed on @dp reduction = <sum>
              : tensor<4096xf32> -> tensor<1024xf32>
    ```
  }];
  let arguments = (ins
    Prec_TransportKindAttr:$kind,
    1DTensorOf<[AnyFloat]>:$input,
    FlatSymbolRefAttr:$grid,
    DefaultValuedAttr<Prec_GridAxesAttr, "{}">:$grid_axes,
    OptionalAttr<Prec_ReductionKindAttr>:$reduction
  );
  let results = (outs 1DTensorOf<[AnyFloat]>:$result);
  let assemblyFormat = [{
    $kind $input `on` $grid `` custom<TransportClauses>($grid_axes, $reduction)
    attr-dict `:` type($input) `->` type($result)
  }];
  let hasVerifier = 1;
}


def Prec_TransportStartOp : Prec_Op<"transport_start", [
    DeclareOpInterfaceMethods<SymbolUserOpInterface>,
    MemoryEffects<[MemWrite<Prec_CommunicationResource>]>]> {
  let summary = "start a transport that completes at its prec.transport_wait";
  let description = [{
    `prec.transport` in two halves, so that the rank computes while the data
    moves: the start hands the wire buffer to the runtime and returns at
    once; the result is usable after the one `prec.transport_wait` of the
    returned `!prec.in_flight` value, which must follow in the same block.
    Between the two, the runtime may still read `input`: nothing writes it
    (tensors are values, and lowering keeps the buffer alive up to the
    wait). The values are those of `prec.transport` with the same operands,
    bit for bit. `prec-schedule-transports` makes these pairs.

    A rank's started transports run in the order they start, and a
    `prec.transport` run later waits for them, so every rank of a group
    runs the group's collectives in one order.

    ```mlir
    %pending = prec.transport_start <all_gather> %packed on @dp
                 : tensor<1024xbf16> -> !prec.in_flight<tensor<4096xbf16>>
    ...  // compute that does not need the gathered values
    %gathered = prec.transport_wait %pending : !prec.in_flight<tensor<4096xbf16>>
    ```
  }];
  let arguments = (ins
    Prec_TransportKindAttr:$kind,
    1DTensorOf<[AnyFloat]>:$input,
    FlatSymbolRefAttr:$grid,
    DefaultValuedAttr<Prec_GridAxesAttr, "{}">:$grid_axes,
    OptionalAttr<Prec_ReductionKindAttr>:$reduction
  );
  let results = (outs Prec_InFlightType:$in_flight);
  let assemblyFormat = [{
    $kind $input `on` $grid `` custom<TransportClauses>($grid_axes, $reduction)
    attr-dict `:` type($input) `->` qualified(type($in_flight))
  }];
  let extraClassDeclaration = [{
    /// The one wait of this start (null only in IR the verifier rejects).
    TransportWaitOp getWait();
  }];
  let hasVerifier = 1;
}

def Prec_TransportWaitOp : Prec_Op<"transport_wait", [
    MemoryEffects<[MemRead<Prec_CommunicationResource>,
                   MemWrite<Prec_CommunicationResource>]>,
    TypesMatchWith<"the result is the tensor the in-flight type names",
                   "in_flight", "result",
                   "::llvm::cast<::mlir::prec::InFlightType>($_self).getResult()">]> {
  let summary = "the result of a started transport, once it has completed";
  let description = [{
    Waits until the transport its operand started has moved all its data,
    then yields the result `prec.transport` would have: a value of the
    tensor type the `!prec.in_flight` type names.
  }];
  let arguments = (ins Prec_InFlightType:$in_flight);
  let results = (outs 1DTensorOf<[AnyFloat]>:$result);
  let assemblyFormat = "$in_flight attr-dict `:` qualified(type($in_flight))";
  let hasVerifier = 1;
}

#endif // PREC_DIALECT_PREC_IR_PRECOPS_TD
