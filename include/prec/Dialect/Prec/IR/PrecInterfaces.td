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
    uniformly, so that passes treat all collectives alike.
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
    InterfaceMethod<"the accumulation dtype if annotated, else null",
      "::mlir::TypeAttr", "getAccDtypeAttr", (ins), [{}],
      [{ return {}; }]>,
    InterfaceMethod<"whether the collective combines values of several ranks",
      "bool", "isReduction", (ins), [{}], [{ return false; }]>
  ];
  let extraSharedClassDeclaration = [{
    /// The dtype that travels on the wire: `forward_dtype`, or by default the
    /// input's element type.
    ::mlir::Type getEffectiveForwardDtype() {
      if (::mlir::TypeAttr attr = $_op.getForwardDtypeAttr())
        return attr.getValue();
      return $_op.getInput().getType().getElementType();
    }
  }];
}

#endif // PREC_DIALECT_PREC_IR_PRECINTERFACES_TD
