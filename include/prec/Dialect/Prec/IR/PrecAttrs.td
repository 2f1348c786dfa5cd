//===- PrecAttrs.td - prec attributes -----------------------*- tablegen -*-===//

#ifndef PREC_DIALECT_PREC_IR_PRECATTRS_TD
#define PREC_DIALECT_PREC_IR_PRECATTRS_TD

include "prec/Dialect/Prec/IR/PrecBase.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"

class Prec_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<Prec_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

def Prec_ReductionKindAttr
    : EnumAttr<Prec_Dialect, Prec_ReductionKind, "reduction"> {
  let assemblyFormat = "`<` $value `>`";
}

def Prec_ReductionAlgorithmAttr
    : EnumAttr<Prec_Dialect, Prec_ReductionAlgorithm, "algorithm"> {
  let assemblyFormat = "`<` $value `>`";
}

def Prec_RoundingModeAttr
    : EnumAttr<Prec_Dialect, Prec_RoundingMode, "rounding"> {
  let assemblyFormat = "`<` $value `>`";
}

def Prec_ScalingKindAttr
    : EnumAttr<Prec_Dialect, Prec_ScalingKind, "scaling_kind"> {
  let assemblyFormat = "`<` $value `>`";
}

def Prec_ReducedPrecisionAttr
    : EnumAttr<Prec_Dialect, Prec_ReducedPrecision, "reduced_precision"> {
  let assemblyFormat = "`<` $value `>`";
}

def Prec_TransportKindAttr
    : EnumAttr<Prec_Dialect, Prec_TransportKind, "transport"> {
  let assemblyFormat = "`<` $value `>`";
}

def Prec_ScalingAttr : Prec_Attr<"Scaling", "scaling"> {
  let summary = "how the scale of an fp8 tensor is chosen";
  let description = [{
    Low-precision (fp8) values carry a scale: the real value is
    `q * scale`. The scaling attribute says how that scale is derived.

    - `dynamic`: from the amax of the whole (unsharded) tensor in this step.
      For a sharded parameter this takes one `all_reduce(max)` of the local
      amaxes, batched for all parameters (torchao's
      `precompute_float8_dynamic_scale_for_fsdp`).
    - `delayed, history = H`: from the largest amax of the last `H` steps,
      kept across steps. `H >= 1`.
    - `block, block_size = B, scale_dtype = T`: one scale per `B`
      consecutive elements of the innermost dimension, stored as `T`,
      `f8E8M0FNU` (the default; MX formats use `B = 32` and it) or `f32`.
      No global reduction. An op that quantizes with it checks that `B`
      divides the innermost dimension, and a collective that splits that
      dimension among its ranks, that `B` divides each rank's chunk.

    ```mlir
    #prec.scaling<dynamic>
    #prec.scaling<delayed, history = 16>
    #prec.scaling<block, block_size = 32, scale_dtype = f8E8M0FNU>
    ```
  }];
  let parameters = (ins
    EnumParameter<Prec_ScalingKind>:$kind,
    DefaultValuedParameter<"int64_t", "0">:$history,
    DefaultValuedParameter<"int64_t", "0">:$blockSize,
    OptionalParameter<"::mlir::Type">:$scaleDtype
  );
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
}

def Prec_PolicyAttr : Prec_Attr<"Policy", "policy"> {
  let summary = "FSDP-style mixed-precision policy";
  let description = [{
    The dtypes of a training step, as PyTorch FSDP2's `MixedPrecisionPolicy`:

    - `param`: the dtype parameters are all-gathered in and computed with
      (`param_dtype`); the gather's `forward_dtype`;
    - `reduce`: the dtype gradients are reduced in (`reduce_dtype`); the
      `forward_dtype` of gradient reductions (and the `backward_dtype` of
      parameter gathers);
    - `output`: the dtype a function's floating-point results are cast to
      (`output_dtype`).

    Each is optional; an absent entry leaves that choice to the default
    rules. Float types without a zero (`f8E8M0FNU`, a scale-only type) are
    rejected; `param` and `reduce` are wire dtypes, one of those the
    runtimes move (f64, f32, f16, bf16, f8E4M3FN, f8E5M2), and `output` one
    the kernels convert (those, f80 and f128). `prec-apply-policy` turns a policy on a function or module into
    explicit op attributes; explicit per-op annotations win.

    ```mlir
    func.func @step(...) attributes {
        prec.policy = #prec.policy<param = bf16, reduce = f32>} { ... }
    ```
  }];
  let parameters = (ins
    OptionalParameter<"::mlir::FloatType">:$param,
    OptionalParameter<"::mlir::FloatType">:$reduce,
    OptionalParameter<"::mlir::FloatType">:$output
  );
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

#endif // PREC_DIALECT_PREC_IR_PRECATTRS_TD
