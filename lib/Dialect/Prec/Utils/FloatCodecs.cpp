//===- FloatCodecs.cpp - rounding to and from narrow floats ---------------===//

#include "prec/Dialect/Prec/Utils/FloatCodecs.h"

#include "IntegerOps.h"
#include "prec/Dialect/Prec/IR/PrecOps.h"
#include "prec/Dialect/Prec/Utils/QuotientRounding.h"

#include "precrt/numerics.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/TypeUtilities.h"

#include "llvm/ADT/bit.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::prec;
using mlir::prec::detail::IntegerOps;
using mlir::prec::detail::withElementType;

/// Converts a float scalar to `to` with one rounding: fp8 by bit
/// manipulation; otherwise extend, truncate, or
/// (between bf16 and f16, neither of which holds the other) extend to f32
/// exactly and truncate once, skipping the step on a side that is f32. From
/// a type wider than f32 to one narrower, through f32 rounded to odd.
static Value toF32ForNarrowing(OpBuilder &b, Location loc, Value value);

Value mlir::prec::convertFloat(OpBuilder &b, Location loc, Value value,
                               FloatType to) {
  auto from = cast<FloatType>(value.getType());
  if (from == to)
    return value;
  // fp8 has no LLVM type: decoded exactly to f32 (which bf16, f16 and wider
  // types then represent exactly), encoded from f32 by bit manipulation.
  if (isBitManipulatedFloatType(from))
    return convertFloat(b, loc, decodeLowPrecisionFloat(b, loc, value), to);
  if (isa<Float8E8M0FNUType>(from))
    return convertFloat(b, loc, decodeScale(b, loc, value), to);
  if (isBitManipulatedFloatType(to))
    return encodeLowPrecisionFloat(b, loc, toF32ForNarrowing(b, loc, value),
                                   to);
  if (floatTypeContains(to, from))
    return arith::ExtFOp::create(b, loc, to, value);
  FloatType f32Type = b.getF32Type();
  if (floatTypeContains(from, f32Type) && from != f32Type &&
      floatTypeContains(f32Type, to) && to != f32Type)
    return arith::TruncFOp::create(b, loc, to, buildRoundToOddF32(b, loc, value));
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

//===----------------------------------------------------------------------===//
// fp8 by bit manipulation
//===----------------------------------------------------------------------===//

namespace {

using precrt::numerics::NarrowFormat;

/// The runtime's description of a narrow format (precrt/numerics.h), so
/// that the kernels and the runtime's references share one table.
const NarrowFormat *getNarrowFormat(Type type) {
  if (isa<Float8E4M3FNType>(type))
    return &precrt::numerics::kF8E4M3FN;
  if (isa<Float8E5M2Type>(type))
    return &precrt::numerics::kF8E5M2;
  if (isa<BFloat16Type>(type))
    return &precrt::numerics::kBF16;
  if (isa<Float16Type>(type))
    return &precrt::numerics::kF16;
  return nullptr;
}

/// Bits of a narrow format, sign included.
int getWidth(const NarrowFormat &format) {
  return 1 + format.exponentBits + format.mantissaBits;
}


} // namespace

bool mlir::prec::isBitManipulatedFloatType(Type type) {
  return isa<Float8E4M3FNType, Float8E5M2Type>(type);
}

/// Round to nearest even as the runtime's vectorized encoder does
/// (numerics/Convert.h, encodeBranchFree): 32-bit integer arithmetic with
/// constant shifts, so that the loops vectorize at full width. Normal
/// results rebias the exponent and round the dropped bits by adding half a
/// spacing (minus one, plus the kept lsb); subnormal results add a power of
/// two whose ulp is the format's subnormal step, so that the FPU rounds,
/// and keep the low bits of the sum. On scalars or vectors.
///
/// Both formats saturate, and the specials cost no select of their own:
/// |x| is clamped to the largest finite value (which encodes exactly) by a
/// compare that a NaN fails, and a NaN then becomes the magnitude whose
/// encoding is the canonical NaN; that encoding is the only one that
/// carries into bit 7 when `0x80 - canonical NaN` is added, which clears
/// the NaN's sign. Compares are on floats: x86 has no unsigned integer
/// vector compare, and a select after the truncation to bytes would first
/// narrow its mask.
Value mlir::prec::expandSaturatingTruncF(OpBuilder &b, Location loc,
                                         Value value, Type to) {
  using P = arith::CmpFPredicate;
  const NarrowFormat &format = *getNarrowFormat(getElementTypeOrSelf(to));
  assert(format.saturates && getWidth(format) == 8 &&
         format.maxFiniteBits < format.canonicalNaNBits &&
         format.canonicalNaNBits < 0x80 &&
         "a saturating byte format whose NaN is its largest positive code");
  Type shaped = value.getType();
  Type i32Type = withElementType(shaped, b.getI32Type());
  IntegerOps i32{b, loc, i32Type};
  const int m = format.mantissaBits;
  const int dropped = 23 - m;
  // The f32 value of an encoding of the format's finite layout.
  auto decodeAsNormal = [&](uint32_t encoding) {
    uint32_t exponent = (encoding >> m) - format.exponentBias + 127;
    return llvm::bit_cast<float>((exponent << 23) |
                                 ((encoding & ((1u << m) - 1)) << dropped));
  };
  const uint32_t subnormalMagicBits =
      uint32_t(127 + format.minNormalExponent() - m + 23) << 23;
  auto f32Constant = [&](float constant) -> Value {
    FloatAttr attr = b.getF32FloatAttr(constant);
    if (auto vector = dyn_cast<VectorType>(shaped))
      return arith::ConstantOp::create(b, loc,
                                       SplatElementsAttr::get(vector, attr));
    return arith::ConstantOp::create(b, loc, attr);
  };
  auto select = [&](P predicate, Value lhs, Value rhs, Value ifTrue,
                    Value ifFalse) {
    return arith::SelectOp::create(
        b, loc, arith::CmpFOp::create(b, loc, predicate, lhs, rhs), ifTrue,
        ifFalse);
  };

  Value bits = arith::BitcastOp::create(b, loc, i32Type, value);
  Value sign =
      i32.shl(i32.shr(bits, i32.c(31)), i32.c(m + format.exponentBits));
  Value magnitude = arith::BitcastOp::create(
      b, loc, shaped, i32.bitAnd(bits, i32.c(0x7FFFFFFF)));
  Value largest = f32Constant(decodeAsNormal(format.maxFiniteBits));
  Value nanMagnitude = f32Constant(decodeAsNormal(format.canonicalNaNBits));
  // Ordered compares: false for a NaN, which the first keeps and the
  // second replaces.
  Value saturated = select(P::OGT, magnitude, largest, largest, magnitude);
  Value finite =
      select(P::OLT, saturated, nanMagnitude, saturated, nanMagnitude);
  Value finiteBits = arith::BitcastOp::create(b, loc, i32Type, finite);

  Value rebased =
      i32.sub(finiteBits, i32.c(int64_t(127 - format.exponentBias) << 23));
  Value lsb = i32.bitAnd(i32.shr(finiteBits, i32.c(dropped)), i32.c(1));
  Value normal = i32.shr(
      i32.add(i32.add(rebased, i32.c((1 << (dropped - 1)) - 1)), lsb),
      i32.c(dropped));
  Value sum = arith::AddFOp::create(
      b, loc, finite, f32Constant(llvm::bit_cast<float>(subnormalMagicBits)));
  Value subnormal = i32.sub(arith::BitcastOp::create(b, loc, i32Type, sum),
                            i32.c(subnormalMagicBits));
  Value minNormal = f32Constant(std::ldexp(1.0f, format.minNormalExponent()));
  Value encoded = select(P::OLT, finite, minNormal, subnormal, normal);
  Value nanCarry = i32.add(encoded, i32.c(0x80 - format.canonicalNaNBits));
  Value keptSign = i32.bitAnd(sign, i32.bitXor(nanCarry, i32.c(-1)));
  Value narrow = arith::TruncIOp::create(
      b, loc, withElementType(shaped, b.getIntegerType(getWidth(format))),
      i32.bitOr(keptSign, encoded));
  return arith::BitcastOp::create(b, loc, to, narrow);
}

/// Round to nearest even from f32 to bf16 on the bits, as the runtime's
/// floatToBF16 does: add half a bf16 spacing (minus one, plus the kept lsb)
/// and keep the high half; the carry of the largest finite values lands on
/// infinity, as it should. A NaN is replaced by the canonical NaN's f32 bits
/// before rounding, not after: `arith-expand` chooses after the truncation,
/// a select of bf16 vectors that x86 without native bf16 performs lane by
/// lane, and LLVM folds a select of the i16 bits back into one of bf16.
Value mlir::prec::expandTruncFToBF16(OpBuilder &b, Location loc, Value value) {
  using P = arith::CmpIPredicate;
  const NarrowFormat &format = precrt::numerics::kBF16;
  Type shaped = value.getType();
  IntegerOps i32{b, loc, withElementType(shaped, b.getI32Type())};
  Value bits = arith::BitcastOp::create(b, loc, i32.type, value);
  Value isNaN =
      i32.cmp(P::ugt, i32.bitAnd(bits, i32.c(0x7FFFFFFF)), i32.c(0x7F800000));
  Value word =
      i32.select(isNaN, i32.c(int64_t(format.canonicalNaNBits) << 16), bits);
  Value lsb = i32.bitAnd(i32.shr(word, i32.c(16)), i32.c(1));
  Value rounded = i32.add(i32.add(word, i32.c(0x7FFF)), lsb);
  Value high =
      arith::TruncIOp::create(b, loc, withElementType(shaped, b.getI16Type()),
                              i32.shr(rounded, i32.c(16)));
  return arith::BitcastOp::create(
      b, loc, withElementType(shaped, b.getBF16Type()), high);
}

Value mlir::prec::selectCanonicalNaN(OpBuilder &b, Location loc, Value source,
                                     Value narrow) {
  using P = arith::CmpIPredicate;
  const NarrowFormat &format =
      *getNarrowFormat(getElementTypeOrSelf(narrow.getType()));
  Type shaped = source.getType();
  IntegerOps i32{b, loc, withElementType(shaped, b.getI32Type())};
  Value bits = arith::BitcastOp::create(b, loc, i32.type, source);
  Value isNaN =
      i32.cmp(P::ugt, i32.bitAnd(bits, i32.c(0x7FFFFFFF)), i32.c(0x7F800000));
  IntegerOps narrowInt{
      b, loc, withElementType(shaped, b.getIntegerType(getWidth(format)))};
  Value nan = arith::BitcastOp::create(b, loc, narrow.getType(),
                                       narrowInt.c(format.canonicalNaNBits));
  return arith::SelectOp::create(b, loc, isNaN, nan, narrow);
}

/// `rounded` (f32), a rounding of an exact value that lies strictly between
/// it and a neighbour where `inexact`, made odd: the neighbour on the exact
/// value's side whose last bit is 1. `away` says the exact value is nearer
/// zero than `rounded`.
static Value makeOdd(OpBuilder &b, Location loc, Value rounded, Value inexact,
                     Value away) {
  IntegerOps i32{b, loc, b.getI32Type()};
  Value bits = arith::BitcastOp::create(b, loc, i32.type, rounded);
  Value towardZero = i32.select(away, i32.sub(bits, i32.c(1)), bits);
  Value odd = i32.select(inexact, i32.bitOr(towardZero, i32.c(1)), bits);
  return arith::BitcastOp::create(b, loc, b.getF32Type(), odd);
}

/// A power of two as f32: normal for `exponent` >= -126, subnormal down to
/// -149 (i32 `exponent`; others give some value, never poison).
static Value buildPowerOfTwo(OpBuilder &b, Location loc, Value exponent) {
  using P = arith::CmpIPredicate;
  IntegerOps i32{b, loc, b.getI32Type()};
  Value normal = i32.shl(i32.add(exponent, i32.c(127)), i32.c(23));
  Value shift =
      i32.minS(i32.maxS(i32.add(exponent, i32.c(149)), i32.c(0)), i32.c(22));
  Value subnormal = i32.shl(i32.c(1), shift);
  Value bits =
      i32.select(i32.cmp(P::sge, exponent, i32.c(-126)), normal, subnormal);
  return arith::BitcastOp::create(b, loc, b.getF32Type(), bits);
}

Value mlir::prec::buildFp8TimesScaleRoundedToOdd(OpBuilder &b, Location loc,
                                                 Value q, Value scale) {
  using P = arith::CmpIPredicate;
  using F = arith::CmpFPredicate;
  FloatType f32 = b.getF32Type();
  IntegerOps i32{b, loc, b.getI32Type()};
  auto bitsOf = [&](Value v) -> Value {
    return arith::BitcastOp::create(b, loc, i32.type, v);
  };
  auto floatOf = [&](Value v) -> Value {
    return arith::BitcastOp::create(b, loc, f32, v);
  };
  auto constant = [&](float v) -> Value {
    return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(v));
  };
  auto mul = [&](Value x, Value y) -> Value {
    return arith::MulFOp::create(b, loc, x, y);
  };
  auto add = [&](Value x, Value y) -> Value {
    return arith::AddFOp::create(b, loc, x, y);
  };
  auto sub = [&](Value x, Value y) -> Value {
    return arith::SubFOp::create(b, loc, x, y);
  };
  auto cmp = [&](F predicate, Value x, Value y) -> Value {
    return arith::CmpFOp::create(b, loc, predicate, x, y);
  };
  Value zero = constant(0.0f);

  // The scale as ±m * 2^e, m in [1, 2); a subnormal scale is made normal by
  // 2^64 first (exactly). m = mHigh + mLow, 12 significant bits each.
  Value scaleAbs = i32.bitAnd(bitsOf(scale), i32.c(0x7FFFFFFF));
  Value scaleSubnormal = i32.cmp(P::ult, scaleAbs, i32.c(0x00800000));
  Value normalScale = arith::SelectOp::create(
      b, loc, scaleSubnormal, mul(scale, constant(0x1p64f)), scale);
  Value normalBits = bitsOf(normalScale);
  Value exponent =
      i32.sub(i32.sub(i32.bitAnd(i32.shr(normalBits, i32.c(23)), i32.c(0xFF)),
                      i32.c(127)),
              i32.select(scaleSubnormal, i32.c(64), i32.c(0)));
  Value m = floatOf(
      i32.bitOr(i32.bitAnd(normalBits, i32.c(0x807FFFFF)), i32.c(0x3F800000)));
  Value mHigh = floatOf(i32.bitAnd(bitsOf(m), i32.c(0xFFFFF000)));
  Value mLow = sub(m, mHigh);

  // q * m exactly as high + low (each product of at most 4 and 12 bits, in
  // the normal range for fp8 q); their sum rounded, with its exact error
  // (Fast2Sum: |high| >= |low|), then rounded to odd.
  Value high = mul(q, mHigh), low = mul(q, mLow);
  Value sum = add(high, low);
  Value error = sub(low, sub(sum, high));
  Value oddSum = makeOdd(b, loc, sum, cmp(F::ONE, error, zero),
                         arith::XOrIOp::create(b, loc, cmp(F::OLT, error, zero),
                                               cmp(F::OLT, sum, zero)));

  // Times 2^e: exact in the normal range; below it (or beyond it), rounded
  // again, to odd as well: whether it was exact and which way it went are
  // read from scaling it back, 2^-e in two factors that f32 holds.
  Value scaled = mul(oddSum, buildPowerOfTwo(b, loc, exponent));
  Value minusE = i32.sub(i32.c(0), exponent);
  Value half = arith::ShRSIOp::create(b, loc, minusE, i32.c(1));
  Value back = mul(mul(scaled, buildPowerOfTwo(b, loc, half)),
                   buildPowerOfTwo(b, loc, i32.sub(minusE, half)));
  Value result = makeOdd(b, loc, scaled, cmp(F::ONE, back, oddSum),
                         cmp(F::OGT, math::AbsFOp::create(b, loc, back),
                             math::AbsFOp::create(b, loc, oddSum)));

  // Zeros, infinities and NaN (of either operand): their product is exact.
  Value qAbs = i32.bitAnd(bitsOf(q), i32.c(0x7FFFFFFF));
  auto isSpecial = [&](Value magnitude) -> Value {
    return arith::OrIOp::create(b, loc, i32.cmp(P::eq, magnitude, i32.c(0)),
                                i32.cmp(P::uge, magnitude, i32.c(0x7F800000)));
  };
  Value special =
      arith::OrIOp::create(b, loc, isSpecial(qAbs), isSpecial(scaleAbs));
  return arith::SelectOp::create(b, loc, special, mul(q, scale), result);
}

/// The reference encoders of precrt/numerics.h, for fp8 and (stochastic
/// rounding only; arith.truncf rounds to nearest) bf16 and f16 (encodeNearestEven,
/// encodeStochastic) without branches: the significand and exponent of |x|,
/// the bits dropped at that exponent (more below the normal range), the
/// rounding decision, then packing with saturation. Shift amounts are
/// clamped below the width, where LLVM's shifts would be poison.
Value mlir::prec::encodeLowPrecisionFloat(OpBuilder &b, Location loc,
                                          Value value, FloatType to,
                                          Value random) {
  using P = arith::CmpIPredicate;
  const NarrowFormat &format = *getNarrowFormat(to);
  if (!random && format.saturates)
    return SaturatingTruncFOp::create(b, loc, to, value);
  IntegerOps i32{b, loc, b.getI32Type()}, i64{b, loc, b.getI64Type()};
  const int m = format.mantissaBits;

  Value bits = arith::BitcastOp::create(b, loc, b.getI32Type(), value);
  Value absBits = i32.bitAnd(bits, i32.c(0x7FFFFFFF));
  Value sign =
      i32.shl(i32.shr(bits, i32.c(31)), i32.c(m + format.exponentBits));
  Value biased = i32.shr(absBits, i32.c(23));
  Value fraction = i32.bitAnd(absBits, i32.c(0x7FFFFF));
  Value isF32Subnormal = i32.cmp(P::eq, biased, i32.c(0));
  Value significand = i32.select(isF32Subnormal, fraction,
                                 i32.bitOr(fraction, i32.c(0x800000)));
  Value exponent =
      i32.select(isF32Subnormal, i32.c(-126), i32.sub(biased, i32.c(127)));
  Value belowNormal = i32.sub(i32.c(format.minNormalExponent()), exponent);
  Value drop = i64.sext(
      i32.add(i32.c(23 - m), i32.maxS(belowNormal, i32.c(0))));

  Value wideSignificand = i64.zext(significand);
  Value shift = i64.minS(drop, i64.c(63));
  Value kept = i64.shr(wideSignificand, shift);
  Value remainder = i64.bitAnd(
      wideSignificand, i64.sub(i64.shl(i64.c(1), shift), i64.c(1)));
  Value roundUp;
  if (!random) {
    // Above half a spacing, or exactly half with an odd kept part.
    Value half = i64.shl(i64.c(1), i64.sub(shift, i64.c(1)));
    Value odd = i64.cmp(P::ne, i64.bitAnd(kept, i64.c(1)), i64.c(0));
    roundUp = arith::OrIOp::create(
        b, loc, i64.cmp(P::ugt, remainder, half),
        arith::AndIOp::create(b, loc, i64.cmp(P::eq, remainder, half), odd));
  } else {
    // Up iff random < floor(frac * 2^32), frac = remainder / 2^drop.
    Value left = i64.shl(remainder,
                         i64.maxS(i64.sub(i64.c(32), shift), i64.c(0)));
    Value right = i64.shr(
        remainder,
        i64.minS(i64.maxS(i64.sub(drop, i64.c(32)), i64.c(0)), i64.c(63)));
    Value threshold = i64.select(i64.cmp(P::sle, drop, i64.c(32)), left, right);
    roundUp = i64.cmp(P::ult, i64.zext(random), threshold);
  }
  kept = i64.add(kept, i64.zext(roundUp));

  // A carry out of the mantissa lands in the exponent; beyond the largest
  // finite value the result saturates.
  Value wideExponent = i64.sext(exponent);
  Value normalBits = i64.add(
      i64.shl(i64.add(wideExponent, i64.c(format.exponentBias - 1)),
              i64.c(m)),
      kept);
  Value saturated =
      i64.select(i64.cmp(P::sgt, normalBits, i64.c(format.maxFiniteBits)),
                 i64.c(format.overflowBits()), normalBits);
  Value magnitude = i32.trunc(i64.select(
      i64.cmp(P::slt, wideExponent, i64.c(format.minNormalExponent())), kept,
      saturated));

  Value finite = i32.bitOr(sign, magnitude);
  Value infinite = i32.bitOr(sign, i32.c(format.overflowBits()));
  Value isNaN = i32.cmp(P::ugt, absBits, i32.c(0x7F800000));
  Value isInfinite = i32.cmp(P::eq, absBits, i32.c(0x7F800000));
  Value encoded =
      i32.select(isNaN, i32.c(format.canonicalNaNBits),
                 i32.select(isInfinite, infinite, finite));
  Value narrow = arith::TruncIOp::create(
      b, loc, b.getIntegerType(getWidth(format)), encoded);
  return arith::BitcastOp::create(b, loc, to, narrow);
}

/// The reference decoder of precrt/numerics.h: normal values rebias their
/// exponent, subnormals are mantissa * 2^(minNormalExponent - mantissaBits)
/// (exact in f32), specials per the format.
Value mlir::prec::decodeLowPrecisionFloat(OpBuilder &b, Location loc,
                                          Value value) {
  using P = arith::CmpIPredicate;
  const NarrowFormat &format = *getNarrowFormat(value.getType());
  IntegerOps i32{b, loc, b.getI32Type()};
  const int m = format.mantissaBits;
  const int64_t mantissaMask = (int64_t(1) << m) - 1;
  const int64_t exponentMask = (int64_t(1) << format.exponentBits) - 1;

  Value word = i32.zext(
      arith::BitcastOp::create(b, loc, b.getI8Type(), value).getResult());
  Value sign = i32.shl(
      i32.bitAnd(i32.shr(word, i32.c(m + format.exponentBits)), i32.c(1)),
      i32.c(31));
  Value mantissa = i32.bitAnd(word, i32.c(mantissaMask));
  Value exponentField = i32.bitAnd(i32.shr(word, i32.c(m)), i32.c(exponentMask));

  Value normal = i32.bitOr(
      sign,
      i32.bitOr(
          i32.shl(i32.add(exponentField, i32.c(127 - format.exponentBias)),
                  i32.c(23)),
          i32.shl(mantissa, i32.c(23 - m))));
  FloatType f32 = b.getF32Type();
  Value step = arith::ConstantOp::create(
      b, loc, f32,
      b.getFloatAttr(f32, std::ldexp(1.0, format.minNormalExponent() - m)));
  Value subnormalMagnitude = arith::MulFOp::create(
      b, loc, arith::UIToFPOp::create(b, loc, f32, mantissa), step);
  Value subnormal = i32.bitOr(
      sign, arith::BitcastOp::create(b, loc, b.getI32Type(), subnormalMagnitude)
                .getResult());
  Value nan = i32.bitOr(sign, i32.c(0x7FC00000));

  Value allOnes = i32.cmp(P::eq, exponentField, i32.c(exponentMask));
  Value special;
  if (format.ieeeSpecials) {
    special = allOnes;
    nan = i32.select(i32.cmp(P::eq, mantissa, i32.c(0)),
                     i32.bitOr(sign, i32.c(0x7F800000)), nan);
  } else {
    special = arith::AndIOp::create(
        b, loc, allOnes, i32.cmp(P::eq, mantissa, i32.c(mantissaMask)));
  }
  Value decoded = i32.select(
      special, nan,
      i32.select(i32.cmp(P::eq, exponentField, i32.c(0)), subnormal, normal));
  return arith::BitcastOp::create(b, loc, f32, decoded);
}

/// A power-of-two scale (f8E8M0FNU, bits e: 2^(e - 127), 0xFF is NaN) as
/// f32, exactly: 2^-127 is an f32 subnormal.
Value mlir::prec::decodeScale(OpBuilder &b, Location loc, Value value) {
  using P = arith::CmpIPredicate;
  IntegerOps i32{b, loc, b.getI32Type()};
  Value bits = i32.zext(
      arith::BitcastOp::create(b, loc, b.getI8Type(), value).getResult());
  Value decoded = i32.select(
      i32.cmp(P::eq, bits, i32.c(0xFF)), i32.c(0x7FC00000),
      i32.select(i32.cmp(P::eq, bits, i32.c(0)), i32.c(0x00400000),
                 i32.shl(bits, i32.c(23))));
  return arith::BitcastOp::create(b, loc, b.getF32Type(), decoded);
}

/// The f32 a value is rounded from: exact for f32 and narrower, rounded to
/// odd from wider types (so that one more rounding to a type of at most 22
/// significand bits is the correct rounding of the value itself).
static Value toF32ForNarrowing(OpBuilder &b, Location loc, Value value) {
  auto from = cast<FloatType>(value.getType());
  FloatType f32 = b.getF32Type();
  if (from == f32)
    return value;
  if (isBitManipulatedFloatType(from))
    return decodeLowPrecisionFloat(b, loc, value);
  if (floatTypeContains(f32, from))
    return arith::ExtFOp::create(b, loc, f32, value);
  return buildRoundToOddF32(b, loc, value);
}

Value mlir::prec::convertFloatStochastic(OpBuilder &b, Location loc,
                                         Value value, FloatType to,
                                         Value random) {
  auto from = cast<FloatType>(value.getType());
  FloatType f32 = b.getF32Type();
  if (floatTypeContains(to, from) || floatTypeContains(to, f32))
    return convertFloat(b, loc, value, to);
  if (!getNarrowFormat(to))
    return convertFloat(b, loc, value, to); // tf32 and the like: rejected earlier
  return encodeLowPrecisionFloat(b, loc, toF32ForNarrowing(b, loc, value), to,
                                 random);
}

Value mlir::prec::buildQuotientForRounding(OpBuilder &b, Location loc,
                                           Value value, double divisor,
                                           FloatType target) {
  if (divisor == 1.0)
    return value;
  auto type = cast<FloatType>(value.getType());
  auto constant = [&](FloatType t, double v) -> Value {
    return arith::ConstantOp::create(b, loc, t, b.getFloatAttr(t, v));
  };
  int exponent;
  bool powerOfTwo = std::frexp(divisor, &exponent) == 0.5;
  FloatType f32 = b.getF32Type(), f64 = b.getF64Type();
  FloatType exact = getExactDivisionType(type, divisor);
  if (powerOfTwo ||
      (exact == f32 && type == f32 && target == f32) || type.getWidth() > 64)
    return arith::DivFOp::create(b, loc, convertFloat(b, loc, value, exact),
                                 constant(exact, divisor));
  if (type.getWidth() == 64 && target.getWidth() == 64)
    return arith::DivFOp::create(b, loc, value, constant(f64, divisor));
  return buildQuotientRoundedToOdd(b, loc, convertFloat(b, loc, value, f64),
                                   divisor);
}
