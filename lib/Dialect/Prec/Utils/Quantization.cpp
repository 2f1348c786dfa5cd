//===- Quantization.cpp - fp8 scales, amaxes and quotients ----------------===//

#include "prec/Dialect/Prec/Utils/Quantization.h"

#include "IntegerOps.h"
#include "prec/Dialect/Prec/Utils/FloatCodecs.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::prec;
using mlir::prec::detail::IntegerOps;
using mlir::prec::detail::withElementType;

Value mlir::prec::buildScaleFromAmax(OpBuilder &b, Location loc, Value amax,
                                     FloatType elementType,
                                     FloatType scaleType) {
  using P = arith::CmpFPredicate;
  FloatType f32 = b.getF32Type();
  llvm::APFloat largest =
      llvm::APFloat::getLargest(elementType.getFloatSemantics());
  auto constant = [&](double value) -> Value {
    return arith::ConstantOp::create(b, loc, f32, b.getFloatAttr(f32, value));
  };
  // An amax of 0 (all zeros), infinity or NaN (from a history the program
  // computed) gives scale 1 rather than a scale that zeroes or NaNs every
  // element.
  Value usable = arith::AndIOp::create(
      b, loc, arith::CmpFOp::create(b, loc, P::OGT, amax, constant(0.0)),
      arith::CmpFOp::create(b, loc, P::OLT, amax,
                            constant(std::numeric_limits<double>::infinity())));
  if (!isa<Float8E8M0FNUType>(scaleType)) {
    Value ratio = arith::DivFOp::create(b, loc, amax,
                                        constant(largest.convertToDouble()));
    Value floor = arith::MaximumFOp::create(b, loc, ratio,
                                            constant(std::ldexp(1.0, -126)));
    return arith::SelectOp::create(b, loc, usable, floor, constant(1.0));
  }
  // OCP MX: 2^(floor(log2(amax)) - emax), the exponent field of the f32
  // amax (subnormal amaxes are below the clamp anyway).
  IntegerOps i32{b, loc, b.getI32Type()};
  int emax = llvm::ilogb(largest);
  Value exponent =
      i32.bitAnd(i32.shr(arith::BitcastOp::create(b, loc, b.getI32Type(), amax),
                         i32.c(23)),
                 i32.c(0xFF));
  Value shared = i32.sub(exponent, i32.c(127 + emax));
  Value clamped = i32.minS(i32.maxS(shared, i32.c(-127)), i32.c(127));
  Value bits = i32.select(usable, i32.add(clamped, i32.c(127)), i32.c(127));
  return arith::BitcastOp::create(
      b, loc, scaleType,
      arith::TruncIOp::create(b, loc, b.getI8Type(), bits).getResult());
}


/// f32, or the type of `x` where that is wider.
static FloatType getQuantizationComputeType(OpBuilder &b, Value x) {
  auto type = cast<FloatType>(x.getType());
  return type.getWidth() > 32 ? type : b.getF32Type();
}

Value mlir::prec::buildAmaxTerm(OpBuilder &b, Location loc, Value x) {
  FloatType f32 = b.getF32Type();
  FloatType compute = getQuantizationComputeType(b, x);
  auto constant = [&](FloatType type, double value) -> Value {
    return arith::ConstantOp::create(b, loc, type, b.getFloatAttr(type, value));
  };
  Value magnitude = math::AbsFOp::create(
      b, loc, compute == f32 ? convertFloat(b, loc, x, f32) : x);
  // Ordered: false for a NaN as for an infinity.
  Value finite = arith::CmpFOp::create(
      b, loc, arith::CmpFPredicate::OLT, magnitude,
      constant(compute, std::numeric_limits<double>::infinity()));
  // f64 and wider magnitudes round to f32 and stay finite.
  if (compute != f32)
    magnitude =
        convertFloat(b, loc,
                     arith::MinimumFOp::create(
                         b, loc, magnitude,
                         constant(compute, std::numeric_limits<float>::max())),
                     f32);
  return arith::SelectOp::create(b, loc, finite, magnitude, constant(f32, 0.0));
}

int64_t mlir::prec::getLargestDivisor(int64_t n, int64_t limit) {
  for (int64_t d = std::min(n, limit); d > 1; --d)
    if (n % d == 0)
      return d;
  return 1;
}

int64_t mlir::prec::getAmaxColumns(int64_t elements) {
  constexpr int64_t kMaxColumns = 4096;
  return getLargestDivisor(
      elements, std::max<int64_t>(std::min(kMaxColumns, elements / 16), 1));
}

Value mlir::prec::buildAmaxMaximum(OpBuilder &b, Location loc, Value lhs,
                                   Value rhs) {
  Type bits = withElementType(lhs.getType(), b.getI32Type());
  Value largest = arith::MaxUIOp::create(
      b, loc, arith::BitcastOp::create(b, loc, bits, lhs),
      arith::BitcastOp::create(b, loc, bits, rhs));
  return arith::BitcastOp::create(b, loc, lhs.getType(), largest);
}

Value mlir::prec::buildLargestPartialAmax(OpBuilder &b, Location loc,
                                          Value partials) {
  FloatType f32 = b.getF32Type();
  MLIRContext *context = b.getContext();
  Value zero = arith::ConstantOp::create(b, loc, f32, b.getFloatAttr(f32, 0.0));
  Value empty = tensor::EmptyOp::create(b, loc, ArrayRef<int64_t>{}, f32);
  Value init =
      linalg::FillOp::create(b, loc, ValueRange{zero}, ValueRange{empty})
          .getResult(0);
  auto largest = linalg::GenericOp::create(
      b, loc, RankedTensorType::get({}, f32), partials, init,
      ArrayRef{AffineMap::get(1, 0, {b.getAffineDimExpr(0)}, context),
               AffineMap::get(1, 0, {}, context)},
      ArrayRef{utils::IteratorType::reduction},
      [&](OpBuilder &nb, Location nl, ValueRange args) {
        linalg::YieldOp::create(nb, nl,
                                buildAmaxMaximum(nb, nl, args[1], args[0]));
      });
  return largest.getResult(0);
}

/// 1 / 2^e for an f8E8M0FNU scale 2^e (e = code - 127): 2^-e, exact in f32
/// for every code (2^-127 is subnormal); the NaN code gives NaN.
static Value buildPowerOfTwoReciprocal(OpBuilder &b, Location loc,
                                       Value scale) {
  IntegerOps i32{b, loc, b.getI32Type()};
  Value code = i32.zext(arith::BitcastOp::create(b, loc, b.getI8Type(), scale));
  Value bits = i32.select(
      i32.cmp(arith::CmpIPredicate::ule, code, i32.c(253)),
      i32.shl(i32.sub(i32.c(254), code), i32.c(23)),
      i32.select(i32.cmp(arith::CmpIPredicate::eq, code, i32.c(254)),
                 i32.c(0x00400000), i32.c(0x7FC00000)));
  return arith::BitcastOp::create(b, loc, b.getF32Type(), bits);
}

Value mlir::prec::buildQuantizeQuotient(OpBuilder &b, Location loc, Value x,
                                        Value scale) {
  FloatType compute = getQuantizationComputeType(b, x);
  FloatType f32 = b.getF32Type();
  // The exact reciprocal of a power of two makes the product the quotient.
  if (compute == f32 && isa<Float8E8M0FNUType>(scale.getType()))
    return arith::MulFOp::create(b, loc, convertFloat(b, loc, x, f32),
                                 buildPowerOfTwoReciprocal(b, loc, scale));
  return arith::DivFOp::create(b, loc, convertFloat(b, loc, x, compute),
                               convertFloat(b, loc, scale, compute));
}
