//===- RandomStreams.cpp - the stochastic roundings' words ----------------===//

#include "prec/Dialect/Prec/Utils/RandomStreams.h"

#include "IntegerOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Shard/IR/ShardOps.h"

using namespace mlir;
using namespace mlir::prec;
using mlir::prec::detail::IntegerOps;

Value mlir::prec::buildPhiloxWord(OpBuilder &b, Location loc, Value seed,
                                  Value index) {
  IntegerOps i32{b, loc, b.getI32Type()}, i64{b, loc, b.getI64Type()};
  Value block = i64.shr(index, i64.c(2));
  Value c0 = i32.trunc(block), c1 = i32.trunc(i64.shr(block, i64.c(32)));
  Value c2 = i32.c(0), c3 = i32.c(0);
  Value key0 = i32.trunc(seed), key1 = i32.trunc(i64.shr(seed, i64.c(32)));
  for (int round = 0; round < 10; ++round) {
    auto product0 =
        arith::MulUIExtendedOp::create(b, loc, i32.c(0xD2511F53), c0);
    auto product1 =
        arith::MulUIExtendedOp::create(b, loc, i32.c(0xCD9E8D57), c2);
    Value next0 = i32.bitXor(i32.bitXor(product1.getHigh(), c1), key0);
    Value next2 = i32.bitXor(i32.bitXor(product0.getHigh(), c3), key1);
    c1 = product1.getLow();
    c3 = product0.getLow();
    c0 = next0;
    c2 = next2;
    key0 = i32.add(key0, i32.c(0x9E3779B9));
    key1 = i32.add(key1, i32.c(0xBB67AE85));
  }
  Value lane = i64.bitAnd(index, i64.c(3));
  using P = arith::CmpIPredicate;
  Value low = i32.select(i64.cmp(P::eq, lane, i64.c(0)), c0, c1);
  Value high = i32.select(i64.cmp(P::eq, lane, i64.c(2)), c2, c3);
  return i32.select(i64.cmp(P::ult, lane, i64.c(2)), low, high);
}


Value mlir::prec::buildArrivalWord(OpBuilder &b, Location loc, Value key,
                                   Value index) {
  Value offset = arith::ConstantOp::create(
      b, loc, b.getI64IntegerAttr(static_cast<int64_t>(1ull << 63)));
  return buildPhiloxWord(b, loc, key,
                         arith::AddIOp::create(b, loc, index, offset));
}

Value mlir::prec::buildRankRoundingKey(OpBuilder &b, Location loc,
                                       FlatSymbolRefAttr grid, Value seed) {
  IntegerOps i64{b, loc, b.getI64Type()};
  Value rank = shard::ProcessLinearIndexOp::create(b, loc, grid);
  Value wideRank =
      arith::IndexCastUIOp::create(b, loc, b.getI64Type(), rank);
  return i64.add(seed, arith::MulIOp::create(
                           b, loc, wideRank,
                           i64.c(static_cast<int64_t>(0x9E3779B97F4A7C15ull))));
}
