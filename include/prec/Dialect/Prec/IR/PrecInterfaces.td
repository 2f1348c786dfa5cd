//===- PrecInterfaces.td - prec op interfaces ---------------*- tablegen -*-===//

#ifndef PREC_DIALECT_PREC_IR_PRECINTERFACES_TD
#define PREC_DIALECT_PREC_IR_PRECINTERFACES_TD

include "mlir/IR/OpBase.td"

def Prec_CollectiveOpInterface : OpInterface<"CollectiveOpInterface"> {
  let cppNamespace = "::mlir::prec";
  let description = [{
    A collective over the ranks of a `shard.grid`: the group is given by
    the grid symbol and a list of its axes (all axes when the list is
    empty). The interface exposes the precision contract of the collective
    uniformly, so that passes treat all collectives alike and never name its
    attributes by string. The attributes only reducing collectives have
    (`reduction`, `acc_dtype`, `pre_divisor`, `post_divisor`, `algorithm`,
    `inter_host_dtype`, `inter_host_scaling`) read as null on the others.
  }];
  let methods = [
    InterfaceMethod<"the grid the collective runs on",
      "::mlir::FlatSymbolRefAttr", "getGridAttr">,
    InterfaceMethod<"the grid axes as written (empty: all axes)",
      "::llvm::ArrayRef<int16_t>", "getGridAxes">,
    InterfaceMethod<"the tensor that leaves this rank",
      "::mlir::TypedValue<::mlir::RankedTensorType>", "getInput">,
    InterfaceMethod<"the tensor this rank receives",
      "::mlir::TypedValue<::mlir::RankedTensorType>", "getResult">,
    InterfaceMethod<"the wire dtype if annotated, else null",
      "::mlir::TypeAttr", "getForwardDtypeAttr">,
    InterfaceMethod<"the gradient's wire dtype if annotated, else null",
      "::mlir::TypeAttr", "getBackwardDtypeAttr">,
    InterfaceMethod<"sets the wire dtype (null: the default)",
      "void", "setForwardDtypeAttr", (ins "::mlir::TypeAttr":$dtype)>,
    InterfaceMethod<"sets the gradient's wire dtype (null: the default)",
      "void", "setBackwardDtypeAttr", (ins "::mlir::TypeAttr":$dtype)>,
    InterfaceMethod<"how the wire conversion rounds",
      "::mlir::prec::RoundingModeAttr", "getRoundingAttr">,
    InterfaceMethod<"the seed of stochastic rounding, else null",
      "::mlir::TypedValue<::mlir::IntegerType>", "getSeed">,
    InterfaceMethod<"the scaling mode of an fp8 wire, else null",
      "::mlir::prec::ScalingAttr", "getScalingAttr">,
    InterfaceMethod<"whether the collective combines values of several ranks",
      "bool", "isReduction", (ins), [{}], [{ return false; }]>,
    InterfaceMethod<"how a reduction combines values, else null",
      "::mlir::prec::ReductionKindAttr", "getReductionAttr", (ins), [{}],
      [{ return {}; }]>,
    InterfaceMethod<"the accumulation dtype if annotated, else null",
      "::mlir::TypeAttr", "getAccDtypeAttr", (ins), [{}],
      [{ return {}; }]>,
    InterfaceMethod<[{
      sets the accumulation dtype (null: the default); a collective that
      does not reduce takes only null
    }], "void", "setAccDtypeAttr", (ins "::mlir::TypeAttr":$dtype), [{}],
      [{
        assert(!dtype && "only a reducing collective has an acc_dtype");
        (void)dtype;
      }]>,
    InterfaceMethod<"the divisor before the wire cast if given, else null",
      "::mlir::FloatAttr", "getPreDivisorAttr", (ins), [{}],
      [{ return {}; }]>,
    InterfaceMethod<"the divisor after the accumulation if given, else null",
      "::mlir::FloatAttr", "getPostDivisorAttr", (ins), [{}],
      [{ return {}; }]>,
    InterfaceMethod<"the reduction algorithm if annotated, else null",
      "::mlir::prec::ReductionAlgorithmAttr", "getAlgorithmAttr", (ins), [{}],
      [{ return {}; }]>,
    InterfaceMethod<[{
      the wire dtype of the partial sums between hosts if annotated, else
      null (docs/Prec.md, "Topology and two-level collectives")
    }], "::mlir::TypeAttr", "getInterHostDtypeAttr", (ins), [{}],
      [{ return {}; }]>,
    InterfaceMethod<[{
      sets the wire dtype of the partial sums between hosts (null: the
      default, acc_dtype); a collective that does not reduce takes only null
    }], "void", "setInterHostDtypeAttr", (ins "::mlir::TypeAttr":$dtype),
      [{}], [{
        assert(!dtype && "only a reducing collective has an inter_host_dtype");
        (void)dtype;
      }]>,
    InterfaceMethod<[{
      the scaling of an fp8 `inter_host_dtype` if given, else null
    }], "::mlir::prec::ScalingAttr", "getInterHostScalingAttr", (ins), [{}],
      [{ return {}; }]>
  ];
  let extraClassDeclaration = [{
    /// How the wire conversion rounds.
    ::mlir::prec::RoundingMode getRounding() {
      return getRoundingAttr().getValue();
    }

    /// How a reducing collective combines values; std::nullopt for the
    /// others.
    std::optional<::mlir::prec::ReductionKind> getReduction() {
      if (::mlir::prec::ReductionKindAttr attr = getReductionAttr())
        return attr.getValue();
      return std::nullopt;
    }
  }];
  let extraSharedClassDeclaration = [{
    /// The dtype that travels on the wire: `forward_dtype`, or by default the
    /// input's element type.
    ::mlir::Type getEffectiveForwardDtype() {
      if (::mlir::TypeAttr attr = $_op.getForwardDtypeAttr())
        return attr.getValue();
      return $_op.getInput().getType().getElementType();
    }

    /// The dtype the gradient travels in: `backward_dtype`, or by default the
    /// effective forward dtype.
    ::mlir::Type getEffectiveBackwardDtype() {
      if (::mlir::TypeAttr attr = $_op.getBackwardDtypeAttr())
        return attr.getValue();
      return getEffectiveForwardDtype();
    }

    /// The dtype a reducing collective accumulates in: `acc_dtype`, or by
    /// default the accumulation type of its effective forward dtype
    /// (getDefaultAccumulationType). Null for collectives that do not reduce.
    ::mlir::Type getEffectiveAccDtype() {
      if (!$_op.isReduction())
        return {};
      if (::mlir::TypeAttr attr = $_op.getAccDtypeAttr())
        return attr.getValue();
      return ::mlir::prec::getDefaultAccumulationType(
          ::llvm::cast<::mlir::FloatType>(getEffectiveForwardDtype()));
    }
  }];
}

def Prec_BackwardOpInterface : OpInterface<"BackwardOpInterface"> {
  let cppNamespace = "::mlir::prec";
  let description = [{
    The gradient rule of an op, used by `prec-generate-backward`: given the
    gradients of the op's results, it builds the gradients of its operands
    (reverse mode, a vector-Jacobian product).

    Only ranked tensors of floats carry gradients (`isDifferentiable`);
    scalars, integers and indices never do. The op the rule is called on
    lives in the backward function, so its operands are the recomputed
    forward values, which the rule may use (e.g. a matmul's other factor).

    Ops of other dialects join by external models, registered through
    `mlir::prec::registerBackwardOpInterfaceExternalModels` (see
    `linalg.matmul` and the elementwise `arith` ops there).
  }];
  let methods = [
    InterfaceMethod<[{
      Builds the operand gradients at the builder's insertion point.

      `resultGradients` has one entry per result: null where the result
      receives no gradient (it acts as zero), else a value of the result's
      type, or of its shape with the element type of the op's
      `prec.grad_dtype` where it has one. At least one entry is non-null.

      On success, `operandGradients` holds one entry per operand: null where
      no gradient flows (non-differentiable operands, or operands the results
      do not depend on), else a tensor of the operand's shape with a float
      element type. The element type may differ from the operand's: a rule
      returns its accumulator (e.g. f32 for a bf16 matmul) and the caller
      rounds once to the operand's gradient dtype, after summing all uses.

      A rule may append one more entry per value the op's regions capture
      from outside it, in the order of `getCapturedValues(op)` (a gather's
      table read by `tensor.extract` in a body); without them, a captured
      value that depends on a differentiable argument is an error.

      On failure the rule has emitted a diagnostic on the op.
    }], "::llvm::LogicalResult", "buildGradients",
      (ins "::mlir::OpBuilder &":$builder,
           "::llvm::ArrayRef<::mlir::Value>":$resultGradients,
           "::llvm::SmallVectorImpl<::mlir::Value> &":$operandGradients)>
  ];
  let extraClassDeclaration = [{
    /// Whether values of `type` carry gradients: ranked tensors of floats.
    static bool isDifferentiable(::mlir::Type type) {
      auto tensor = ::llvm::dyn_cast<::mlir::RankedTensorType>(type);
      return tensor && ::llvm::isa<::mlir::FloatType>(tensor.getElementType());
    }
  }];
}

#endif // PREC_DIALECT_PREC_IR_PRECINTERFACES_TD
