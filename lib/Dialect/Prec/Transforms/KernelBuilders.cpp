//===- KernelBuilders.cpp - pieces of prec's generated kernels ------------===//

#include "prec/Dialect/Prec/Transforms/KernelBuilders.h"

#include "prec/Dialect/Prec/IR/PrecOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::prec;

/// Rounds `value`, of a float type wider than f32, to f32 by round-to-odd:
/// an inexact result is the neighbour whose last bit is 1. Rounding that to
/// a type with at least two fewer significand bits (bf16, f16) to nearest
/// even then gives the nearest-even rounding of `value` itself. A direct
/// `arith.truncf` from f64 to bf16 does not: LLVM goes through f32 with
/// two roundings on x86 (1 + 2^-8 + 2^-30 would become 1, not 1 + 2^-7).
static Value roundToOddF32(OpBuilder &b, Location loc, Value value) {
  Type f32 = b.getF32Type(), i32 = b.getI32Type();
  Value nearest = arith::TruncFOp::create(b, loc, f32, value);
  Value back = arith::ExtFOp::create(b, loc, value.getType(), nearest);
  // Ordered comparisons: a NaN is exact and stays as it is.
  Value inexact = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::ONE,
                                        back, value);
  Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(value.getType()));
  Value above = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT,
                                      back, value);
  Value negative = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT,
                                         value, zero);
  // Rounded away from zero: step the magnitude (the low bits) back by one.
  Value awayFromZero = arith::XOrIOp::create(b, loc, above, negative);
  Value bits = arith::BitcastOp::create(b, loc, i32, nearest);
  Value one = arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(1));
  Value stepped = arith::SubIOp::create(b, loc, bits, one);
  Value towardZero =
      arith::SelectOp::create(b, loc, awayFromZero, stepped, bits);
  Value odd = arith::OrIOp::create(b, loc, towardZero, one);
  Value rounded = arith::SelectOp::create(b, loc, inexact, odd, bits);
  return arith::BitcastOp::create(b, loc, f32, rounded);
}

/// Converts a float scalar to `to` with one rounding: extend, truncate, or
/// (between bf16 and f16, neither of which holds the other) extend to f32
/// exactly and truncate once, skipping the step on a side that is f32. From
/// a type wider than f32 to one narrower, through f32 rounded to odd.
Value mlir::prec::convertFloat(OpBuilder &b, Location loc, Value value,
                               FloatType to) {
  auto from = cast<FloatType>(value.getType());
  if (from == to)
    return value;
  if (floatTypeContains(to, from))
    return arith::ExtFOp::create(b, loc, to, value);
  FloatType f32Type = b.getF32Type();
  if (floatTypeContains(from, f32Type) && from != f32Type &&
      floatTypeContains(f32Type, to) && to != f32Type)
    return arith::TruncFOp::create(b, loc, to, roundToOddF32(b, loc, value));
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
