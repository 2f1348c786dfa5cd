//===- PrecBase.td - prec dialect, enums and base classes --*- tablegen -*-===//
//
// The prec dialect: collective-communication graphs whose precision is part
// of the program.
//
//===----------------------------------------------------------------------===//

#ifndef PREC_DIALECT_PREC_IR_PRECBASE_TD
#define PREC_DIALECT_PREC_IR_PRECBASE_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"
include "mlir/IR/CommonAttrConstraints.td"
include "mlir/IR/CommonTypeConstraints.td"

def Prec_Dialect : Dialect {
  let name = "prec";
  let cppNamespace = "::mlir::prec";
  let summary = "Collective communication with precision as part of the program";
  let description = [{
    The `prec` dialect describes the collectives of a distributed training
    step (all-gather, reduce-scatter, all-reduce, all-to-all), the casts,
    quantizations and local reductions around them, and fused optimizer
    updates, such that every value says in which dtype it travels
    (`forward_dtype`), accumulates (`acc_dtype`) and in which dtype its
    gradient flows (`backward_dtype`).

    An annotation is a contract: a lowering may be more precise than the
    annotation, never less. See `docs/Prec.md` for the precision contract,
    default rules and the SPMD semantics of collectives.

    Collectives name a process grid declared with upstream's `shard.grid`
    and a list of its axes, exactly like `shard` collectives do.
  }];
  let useDefaultAttributePrinterParser = 1;
  let useDefaultTypePrinterParser = 1;
  let hasOperationAttrVerify = 1;
  let hasRegionArgAttrVerify = 1;
  let hasRegionResultAttrVerify = 1;
  let dependentDialects = ["::mlir::shard::ShardDialect"];
  let extraClassDeclaration = [{
    void registerAttributes();
    void registerTypes();

    /// Discardable attributes prec gives meaning to.
    static constexpr ::llvm::StringLiteral kPolicyAttrName = "prec.policy";
    static constexpr ::llvm::StringLiteral kGradDtypeAttrName = "prec.grad_dtype";
    static constexpr ::llvm::StringLiteral kDifferentiableAttrName =
        "prec.differentiable";
    /// On an argument: prec-generate-backward gives it no gradient (token
    /// ids, targets, masks).
    static constexpr ::llvm::StringLiteral kNoGradAttrName = "prec.no_grad";
    static constexpr ::llvm::StringLiteral kMicrobatchesAttrName =
        "prec.microbatches";
    /// On a function prec-generate-backward made: the forward function it
    /// is the backward of, so that running the pass again leaves it alone.
    static constexpr ::llvm::StringLiteral kBackwardOfAttrName =
        "prec.backward_of";
    /// Marks, on a `memref.alloca`, a heap buffer that
    /// prec-deallocate-buffers hides from upstream's deallocation while it
    /// runs; never present outside that pass.
    static constexpr ::llvm::StringLiteral kLocalBufferAttrName =
        "prec.local_buffer";
    /// Marks the memref convert-prec-to-runtime makes of a peer window's
    /// slot, which prec-check-peer-windows follows after bufferization.
    static constexpr ::llvm::StringLiteral kPeerWindowAttrName =
        "prec.peer_window";
    /// Marks a prec.transport that prec-plan-peer-windows found fit for a
    /// peer window; convert-prec-to-runtime lowers it through one.
    static constexpr ::llvm::StringLiteral kThroughPeerWindowAttrName =
        "prec.through_peer_window";
    /// On a `shard.grid`: the axes whose neighbouring ranks are on other
    /// hosts (the others stay inside a host), which makes collectives over
    /// both kinds of axes two-level (docs/Prec.md).
    static constexpr ::llvm::StringLiteral kInterHostAxesAttrName =
        "prec.inter_host_axes";
    /// On a contraction or any op around it (a function, the module): the
    /// #prec.reduced_precision arithmetic its gemm may use below the
    /// contraction contract (docs/Prec.md, "Contractions"); the nearest one
    /// holds.
    static constexpr ::llvm::StringLiteral kReducedPrecisionAttrName =
        "prec.reduced_precision";
    /// How the location of an op a gradient rule built begins: the ops
    /// prec-generate-backward builds for the gradient of a forward op
    /// `prec.all_gather` at `loc` are at
    /// `loc("gradient of prec.all_gather"(loc))`, which prec-error-bounds
    /// reads back.
    static constexpr ::llvm::StringLiteral kGradientLocPrefix =
        "gradient of ";
  }];
}

//===----------------------------------------------------------------------===//
// Enums
//===----------------------------------------------------------------------===//

def Prec_ReductionKind : I32EnumAttr<"ReductionKind",
    "reduction applied across ranks or across tensor dimensions", [
  I32EnumAttrCase<"Sum", 0, "sum">,
  I32EnumAttrCase<"Avg", 1, "avg">,
  I32EnumAttrCase<"Max", 2, "max">,
  I32EnumAttrCase<"Min", 3, "min">
]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::prec";
}

def Prec_ReductionAlgorithm : I32EnumAttr<"ReductionAlgorithm",
    "how a reducing collective combines the wire values of its group", [
  I32EnumAttrCase<"Direct", 0, "direct">,
  I32EnumAttrCase<"Ring", 1, "ring">
]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::prec";
}

def Prec_RoundingMode : I32EnumAttr<"RoundingMode",
    "rounding used when a value is narrowed to a smaller float type", [
  I32EnumAttrCase<"NearestEven", 0, "nearest_even">,
  I32EnumAttrCase<"Stochastic", 1, "stochastic">
]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::prec";
}

def Prec_ScalingKind : I32EnumAttr<"ScalingKind",
    "how the scale of a low-precision (fp8) tensor is chosen", [
  I32EnumAttrCase<"Dynamic", 0, "dynamic">,
  I32EnumAttrCase<"Delayed", 1, "delayed">,
  I32EnumAttrCase<"Block", 2, "block">
]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::prec";
}

def Prec_ReducedPrecision : I32BitEnumAttr<"ReducedPrecision",
    "arithmetic below the contraction contract that a program allows", [
  I32BitEnumAttrCaseNone<"none">,
  // f32 inputs rounded to TF32 (10 explicit mantissa bits) by the tensor
  // cores: PyTorch's allow_tf32.
  I32BitEnumAttrCaseBit<"tf32", 0>,
  // Split-K partial sums of a bf16 or f16 output summed in that type:
  // PyTorch's allow_bf16_reduced_precision_reduction.
  I32BitEnumAttrCaseBit<"output_type_reduction", 1>,
  // Scaled fp8 operands multiplied on fp8 tensor cores, whose partial sums
  // keep fewer bits than f32 until cuBLASLt promotes them (torchao's
  // Float8Linear, torch._scaled_mm).
  I32BitEnumAttrCaseBit<"fp8_accumulation", 2>
]> {
  let separator = ", ";
  let genSpecializedAttr = 0;
  let printBitEnumPrimaryGroups = 1;
  let cppNamespace = "::mlir::prec";
}

def Prec_TransportKind : I32EnumAttr<"TransportKind",
    "data movement of a flat wire buffer", [
  I32EnumAttrCase<"AllGather", 0, "all_gather">,
  I32EnumAttrCase<"AllToAll", 1, "all_to_all">,
  I32EnumAttrCase<"ReduceScatter", 2, "reduce_scatter">,
  I32EnumAttrCase<"AllReduce", 3, "all_reduce">
]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::prec";
}

//===----------------------------------------------------------------------===//
// Type constraints
//===----------------------------------------------------------------------===//

def Prec_FloatTensor : RankedTensorOf<[AnyFloat]>;
def Prec_FloatScalarOrTensor : AnyTypeOf<[AnyFloat, RankedTensorOf<[AnyFloat]>]>;
def Prec_FloatTypeAttr : TypeAttrOf<AnyFloat>;

def Prec_GridAxesAttr : DenseArrayAttrBase<"DenseI16ArrayAttr", "int16_t", "i16">;
def Prec_DimListAttr : DenseArrayAttrBase<"DenseI64ArrayAttr", "int64_t", "i64">;

// Every prec op checks that the byte sizes of its static shapes fit int64.
def Prec_AddressableShapes : NativeOpTrait<"AddressableShapes"> {
  let cppNamespace = "::mlir::OpTrait::prec";
}

// Every float type of a prec op (operands, results, dtype attributes) is one
// that prec's kernels convert: a program that uses another is rejected here,
// not by whichever lowering first meets it.
def Prec_SupportedFloatTypes : NativeOpTrait<"SupportedFloatTypes"> {
  let cppNamespace = "::mlir::OpTrait::prec";
}

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

def Prec_InFlightType : TypeDef<Prec_Dialect, "InFlight"> {
  let mnemonic = "in_flight";
  let summary = "a started transport whose result is not yet usable";
  let description = [{
    What `prec.transport_start` returns and `prec.transport_wait` takes: the
    transport is moving data, and its result (of type `result`, a 1-D
    tensor of the wire dtype) becomes usable when the wait returns.

    ```mlir
    !prec.in_flight<tensor<4096xbf16>>
    ```
  }];
  let parameters = (ins "RankedTensorType":$result);
  let assemblyFormat = "`<` $result `>`";
  let genVerifyDecl = 1;
}

class Prec_Op<string mnemonic, list<Trait> traits = []>
    : Op<Prec_Dialect, mnemonic,
         !listconcat(traits, [Prec_AddressableShapes, Prec_SupportedFloatTypes])>;

#endif // PREC_DIALECT_PREC_IR_PRECBASE_TD
