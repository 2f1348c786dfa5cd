//===- TensorBuilders.cpp - indices, reshapes and reductions --------------===//

#include "prec/Dialect/Prec/Utils/TensorBuilders.h"

#include "IntegerOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::prec;
using mlir::prec::detail::IntegerOps;

Value mlir::prec::buildLinearIndex(OpBuilder &b, Location loc,
                                   ArrayRef<int64_t> shape,
                                   ArrayRef<unsigned> iterationDims) {
  IntegerOps i64{b, loc, b.getI64Type()};
  Value linear = i64.c(0);
  int64_t stride = 1;
  for (int64_t d = static_cast<int64_t>(shape.size()) - 1; d >= 0; --d) {
    Value index = linalg::IndexOp::create(b, loc, iterationDims[d]);
    Value wide = arith::IndexCastUIOp::create(b, loc, b.getI64Type(), index);
    linear = i64.add(linear, stride == 1 ? wide
                                         : arith::MulIOp::create(
                                               b, loc, wide, i64.c(stride))
                                               .getResult());
    stride *= shape[d];
  }
  return linear;
}

/// Reassociation merging every dimension of a tensor of rank `rank` (none
/// for rank 0, whose single element becomes one dimension).
static SmallVector<ReassociationIndices> mergeAllDims(int64_t rank) {
  if (rank == 0)
    return {};
  ReassociationIndices all;
  for (int64_t dim = 0; dim < rank; ++dim)
    all.push_back(dim);
  return {all};
}

Value mlir::prec::reshapeTensor(OpBuilder &b, Location loc, Value value,
                                RankedTensorType type) {
  auto from = cast<RankedTensorType>(value.getType());
  if (from == type)
    return value;
  auto flatType =
      RankedTensorType::get({from.getNumElements()}, from.getElementType());
  Value flat = value;
  if (from.getRank() == 0)
    flat = tensor::ExpandShapeOp::create(b, loc, flatType, value,
                                         ArrayRef<ReassociationIndices>{});
  else if (from.getRank() > 1)
    flat = tensor::CollapseShapeOp::create(b, loc, flatType, value,
                                           mergeAllDims(from.getRank()));
  if (type.getRank() == 0)
    return tensor::CollapseShapeOp::create(b, loc, type, flat,
                                           ArrayRef<ReassociationIndices>{});
  if (type.getRank() == 1)
    return flat;
  return tensor::ExpandShapeOp::create(b, loc, type, flat,
                                       mergeAllDims(type.getRank()));
}

TypedAttr mlir::prec::getReductionIdentity(OpBuilder &b, ReductionKind kind,
                                           FloatType type) {
  const llvm::fltSemantics &semantics = type.getFloatSemantics();
  switch (kind) {
  case ReductionKind::Max:
    return b.getFloatAttr(type, llvm::APFloat::getInf(semantics, true));
  case ReductionKind::Min:
    return b.getFloatAttr(type, llvm::APFloat::getInf(semantics, false));
  case ReductionKind::Sum:
  case ReductionKind::Avg:
    return b.getFloatAttr(type, llvm::APFloat::getZero(semantics));
  }
  llvm_unreachable("unknown reduction kind");
}

Value mlir::prec::combineReduction(OpBuilder &b, Location loc,
                                   ReductionKind kind, Value accumulator,
                                   Value term) {
  switch (kind) {
  case ReductionKind::Max:
    return arith::MaximumFOp::create(b, loc, accumulator, term);
  case ReductionKind::Min:
    return arith::MinimumFOp::create(b, loc, accumulator, term);
  case ReductionKind::Sum:
  case ReductionKind::Avg:
    return arith::AddFOp::create(b, loc, accumulator, term);
  }
  llvm_unreachable("unknown reduction kind");
}
