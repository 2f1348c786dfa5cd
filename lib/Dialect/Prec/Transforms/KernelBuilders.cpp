//===- KernelBuilders.cpp - pieces of prec's generated kernels ------------===//

#include "prec/Dialect/Prec/Transforms/KernelBuilders.h"

#include "prec/Dialect/Prec/IR/PrecOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::prec;

/// Converts a float scalar to `to` with one rounding: extend, truncate, or
/// (between bf16 and f16, neither of which holds the other) extend to f32
/// exactly and truncate once, skipping the step on a side that is f32.
Value mlir::prec::convertFloat(OpBuilder &b, Location loc, Value value,
                               FloatType to) {
  auto from = cast<FloatType>(value.getType());
  if (from == to)
    return value;
  if (floatTypeContains(to, from))
    return arith::ExtFOp::create(b, loc, to, value);
  if (floatTypeContains(from, to))
    return arith::TruncFOp::create(b, loc, to, value);
  FloatType f32 = b.getF32Type();
  Value wide = from == f32
                   ? value
                   : arith::ExtFOp::create(b, loc, f32, value).getResult();
  if (to == f32)
    return wide;
  return arith::TruncFOp::create(b, loc, to, wide);
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
