//===- IntegerOps.h - integer arithmetic for kernel builders ----*- C++ -*-===//
//
// Internal to MLIRPrecUtils: the short integer arithmetic the codecs, the
// random streams and the scales are written in.
//
//===----------------------------------------------------------------------===//

#ifndef PREC_LIB_DIALECT_PREC_UTILS_INTEGEROPS_H
#define PREC_LIB_DIALECT_PREC_UTILS_INTEGEROPS_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/TypeUtilities.h"

namespace mlir::prec::detail {

/// Integer arithmetic on scalars of one width, short enough that the bit
/// manipulation below reads like the runtime's C++ reference.
struct IntegerOps {
  OpBuilder &b;
  Location loc;
  /// An integer type, or a vector of one (constants are then splats).
  Type type;

  Value c(int64_t value) {
    auto element = cast<IntegerType>(getElementTypeOrSelf(type));
    auto attr = IntegerAttr::get(element, APInt(element.getWidth(),
                                                static_cast<uint64_t>(value),
                                                /*isSigned=*/false,
                                                /*implicitTrunc=*/true));
    if (auto vector = dyn_cast<VectorType>(type))
      return arith::ConstantOp::create(b, loc,
                                       SplatElementsAttr::get(vector, attr));
    return arith::ConstantOp::create(b, loc, attr);
  }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value sub(Value x, Value y) { return arith::SubIOp::create(b, loc, x, y); }
  Value bitAnd(Value x, Value y) { return arith::AndIOp::create(b, loc, x, y); }
  Value bitOr(Value x, Value y) { return arith::OrIOp::create(b, loc, x, y); }
  Value bitXor(Value x, Value y) { return arith::XOrIOp::create(b, loc, x, y); }
  Value shl(Value x, Value y) { return arith::ShLIOp::create(b, loc, x, y); }
  Value shr(Value x, Value y) { return arith::ShRUIOp::create(b, loc, x, y); }
  Value minS(Value x, Value y) { return arith::MinSIOp::create(b, loc, x, y); }
  Value maxS(Value x, Value y) { return arith::MaxSIOp::create(b, loc, x, y); }
  Value cmp(arith::CmpIPredicate predicate, Value x, Value y) {
    return arith::CmpIOp::create(b, loc, predicate, x, y);
  }
  Value select(Value condition, Value x, Value y) {
    return arith::SelectOp::create(b, loc, condition, x, y);
  }
  /// A value of another width: zero-extended, sign-extended or truncated.
  Value zext(Value x) { return arith::ExtUIOp::create(b, loc, type, x); }
  Value sext(Value x) { return arith::ExtSIOp::create(b, loc, type, x); }
  Value trunc(Value x) { return arith::TruncIOp::create(b, loc, type, x); }
};

/// `type`'s shape (scalar or vector) with the element type `element`.
inline Type withElementType(Type type, Type element) {
  if (auto vector = dyn_cast<VectorType>(type))
    return vector.clone(element);
  return element;
}

} // namespace mlir::prec::detail

#endif // PREC_LIB_DIALECT_PREC_UTILS_INTEGEROPS_H
