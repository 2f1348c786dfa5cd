//===- QuotientRounding.cpp - quotients rounded once ----------------------===//

#include "prec/Dialect/Prec/Utils/QuotientRounding.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;
using namespace mlir::prec;

/// `bits` with its magnitude stepped one unit toward zero where
/// `awayFromZero`, then its last bit set where `inexact`: the rounding to
/// odd of a value whose nearest rounding is `bits`.
static Value makeOddBits(OpBuilder &b, Location loc, Value bits,
                         Value awayFromZero, Value inexact) {
  Type type = bits.getType();
  Value one = arith::ConstantOp::create(b, loc, b.getIntegerAttr(type, 1));
  Value stepped = arith::SubIOp::create(b, loc, bits, one);
  Value towardZero =
      arith::SelectOp::create(b, loc, awayFromZero, stepped, bits);
  Value odd = arith::OrIOp::create(b, loc, towardZero, one);
  return arith::SelectOp::create(b, loc, inexact, odd, bits);
}

Value mlir::prec::buildRoundToOddF32(OpBuilder &b, Location loc, Value value) {
  Type f32 = b.getF32Type(), i32 = b.getI32Type();
  Value nearest = arith::TruncFOp::create(b, loc, f32, value);
  Value back = arith::ExtFOp::create(b, loc, value.getType(), nearest);
  // Ordered comparisons: a NaN is exact and stays as it is.
  Value inexact =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::ONE, back, value);
  Value zero =
      arith::ConstantOp::create(b, loc, b.getZeroAttr(value.getType()));
  Value above =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, back, value);
  Value negative =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, value, zero);
  // Rounded away from zero: step the magnitude (the low bits) back by one.
  Value awayFromZero = arith::XOrIOp::create(b, loc, above, negative);
  Value bits = arith::BitcastOp::create(b, loc, i32, nearest);
  return arith::BitcastOp::create(
      b, loc, f32, makeOddBits(b, loc, bits, awayFromZero, inexact));
}

Value mlir::prec::buildQuotientRoundedToOdd(OpBuilder &b, Location loc, Value x,
                                            double divisor) {
  using P = arith::CmpFPredicate;
  FloatType f64 = b.getF64Type();
  auto constant = [&](double v) -> Value {
    return arith::ConstantOp::create(b, loc, f64, b.getFloatAttr(f64, v));
  };
  // x / d rounded to nearest in f64, and the exact remainder x - q d (exact
  // in f64 for a quotient rounded to nearest, barring underflow) that says
  // on which side of q the exact quotient lies.
  Value d = constant(divisor);
  Value q = arith::DivFOp::create(b, loc, x, d);
  Value remainder =
      math::FmaOp::create(b, loc, arith::NegFOp::create(b, loc, q), d, x);
  Value zero = constant(0.0);
  // Ordered: false for a NaN remainder (x or q infinite or NaN), exact.
  Value inexact = arith::CmpFOp::create(b, loc, P::ONE, remainder, zero);
  // q is away from zero from the exact quotient when remainder / d and q
  // have opposite signs.
  Value quotientBelow = arith::CmpFOp::create(
      b, loc, divisor > 0 ? P::OLT : P::OGT, remainder, zero);
  Value negative = arith::CmpFOp::create(b, loc, P::OLT, q, zero);
  Value awayFromZero = arith::XOrIOp::create(b, loc, quotientBelow, negative);
  Value bits = arith::BitcastOp::create(b, loc, b.getI64Type(), q);
  return arith::BitcastOp::create(
      b, loc, f64, makeOddBits(b, loc, bits, awayFromZero, inexact));
}

/// Whether `type` holds `divisor` exactly.
static bool holds(FloatType type, double divisor) {
  llvm::APFloat value(divisor);
  bool losesInfo = false;
  value.convert(type.getFloatSemantics(), llvm::APFloat::rmNearestTiesToEven,
                &losesInfo);
  return !losesInfo;
}

Value mlir::prec::buildDivisionRoundedOnce(OpBuilder &b, Location loc,
                                           Value value, double divisor) {
  auto type = cast<FloatType>(value.getType());
  FloatType f32 = b.getF32Type(), f64 = b.getF64Type();
  // f64 and wider hold every double divisor.
  if (type.getWidth() >= 64 || (type == f32 && holds(f32, divisor)))
    return arith::DivFOp::create(
        b, loc, value,
        arith::ConstantOp::create(b, loc, type, b.getFloatAttr(type, divisor)));
  Value odd = buildQuotientRoundedToOdd(
      b, loc, arith::ExtFOp::create(b, loc, f64, value), divisor);
  if (type == f32)
    return arith::TruncFOp::create(b, loc, f32, odd);
  return arith::TruncFOp::create(b, loc, type, buildRoundToOddF32(b, loc, odd));
}
