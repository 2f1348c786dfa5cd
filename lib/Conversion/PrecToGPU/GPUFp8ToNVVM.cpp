//===- GPUFp8ToNVVM.cpp - fp8 rounding through PTX's cvt ------------------===//
//
// sm_89 and later convert two f32 values to fp8 in one instruction,
// cvt.rn.satfinite.{e4m3x2,e5m2x2}.f32. Its rounding (to nearest even), its
// saturation (finite values beyond the largest finite one and infinities
// become the largest finite value, sign kept) and its subnormal results are
// the runtime's rule; the NaN it produces is only specified to be a NaN, so
// a select puts the reference's canonical NaN in its place.
//
//===----------------------------------------------------------------------===//

#include "prec/Conversion/Passes.h"

#include "prec/Dialect/Prec/IR/PrecOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"

#include "precrt/numerics.h"

namespace mlir::prec {
#define GEN_PASS_DEF_PRECGPUFP8TONVVM
#include "prec/Conversion/Passes.h.inc"
} // namespace mlir::prec

using namespace mlir;
using namespace mlir::prec;

namespace {

/// The number after `prefix` in `text` (`sm_90a` -> 90, `+ptx80` -> 80), or
/// 0 when there is none.
unsigned parseVersionAfter(StringRef text, StringRef prefix) {
  size_t at = text.find(prefix);
  if (at == StringRef::npos)
    return 0;
  StringRef digits = text.drop_front(at + prefix.size());
  digits = digits.take_while([](char c) { return c >= '0' && c <= '9'; });
  unsigned version = 0;
  if (digits.empty() || digits.getAsInteger(10, version))
    return 0;
  return version;
}

/// Whether every target of `module` has the conversion: NVVM targets of
/// sm_90 or later with PTX 7.8 or later, or sm_89 with PTX 8.1 or later
/// (NVPTX's requirements for the instruction; without a `+ptx` feature it
/// emits PTX 6.0, and it cannot select the instruction below them).
bool targetsHaveFp8Conversion(gpu::GPUModuleOp module) {
  ArrayAttr targets = module.getTargetsAttr();
  if (!targets || targets.empty())
    return false;
  return llvm::all_of(targets, [](Attribute attr) {
    auto target = dyn_cast<NVVM::NVVMTargetAttr>(attr);
    if (!target)
      return false;
    unsigned sm = parseVersionAfter(target.getChip(), "sm_");
    unsigned ptx = parseVersionAfter(target.getFeatures(), "+ptx");
    return (sm >= 90 && ptx >= 78) || (sm >= 89 && ptx >= 81);
  });
}

/// prec.saturating_truncf as PTX's paired conversion. Element 2i goes in
/// operand `b` (the low byte of the pair), element 2i + 1 in `a` (the high
/// byte), so the pairs, bitcast to bytes on little-endian NVPTX, keep the
/// elements' order; an odd last element is converted beside a zero.
struct SaturatingTruncFToNVVM : OpRewritePattern<SaturatingTruncFOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(SaturatingTruncFOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type fp8 = getElementTypeOrSelf(op.getType());
    auto vectorType = dyn_cast<VectorType>(op.getIn().getType());
    if (vectorType && (vectorType.getRank() != 1 || vectorType.isScalable()))
      return rewriter.notifyMatchFailure(op, "not a fixed 1-D vector");
    int64_t count = vectorType ? vectorType.getNumElements() : 1;
    Type i8 = rewriter.getI8Type(), i16 = rewriter.getI16Type();

    auto element = [&](int64_t index) -> Value {
      if (!vectorType)
        return op.getIn();
      return vector::ExtractOp::create(rewriter, loc, op.getIn(), index);
    };
    auto convertPair = [&](Value high, Value low) -> Value {
      return NVVM::ConvertF32x2ToF8x2Op::create(
          rewriter, loc, i16, high, low, NVVM::FPRoundingMode::RN,
          NVVM::SaturationMode::SATFINITE, /*relu=*/false, fp8);
    };

    SmallVector<Value> pairs;
    for (int64_t i = 0; i + 1 < count; i += 2)
      pairs.push_back(convertPair(element(i + 1), element(i)));
    Value bytes;
    if (count % 2 == 1) {
      Value zero = arith::ConstantOp::create(rewriter, loc,
                                             rewriter.getF32FloatAttr(0.0f));
      Value last = arith::TruncIOp::create(
          rewriter, loc, i8, convertPair(zero, element(count - 1)));
      if (!vectorType) {
        bytes = last;
      } else {
        auto withoutLast = VectorType::get({count - 1}, i8);
        Value init = arith::ConstantOp::create(
            rewriter, loc, rewriter.getZeroAttr(VectorType::get({count}, i8)));
        if (!pairs.empty()) {
          Value packed = vector::FromElementsOp::create(
              rewriter, loc, VectorType::get({count / 2}, i16), pairs);
          Value split =
              vector::BitCastOp::create(rewriter, loc, withoutLast, packed);
          init = vector::InsertStridedSliceOp::create(
              rewriter, loc, split, init, /*offsets=*/ArrayRef<int64_t>{0},
              /*strides=*/ArrayRef<int64_t>{1});
        }
        bytes = vector::InsertOp::create(rewriter, loc, last, init, count - 1);
      }
    } else {
      Value packed = vector::FromElementsOp::create(
          rewriter, loc, VectorType::get({count / 2}, i16), pairs);
      bytes = vector::BitCastOp::create(rewriter, loc,
                                        VectorType::get({count}, i8), packed);
    }

    // The instruction's NaN is some NaN of the format; the reference's is
    // the canonical one (positive; 0x7E for f8E5M2).
    const precrt::numerics::NarrowFormat &format =
        isa<Float8E4M3FNType>(fp8) ? precrt::numerics::kF8E4M3FN
                                   : precrt::numerics::kF8E5M2;
    Type byteType = vectorType ? Type(VectorType::get({count}, i8)) : i8;
    auto nanAttr = rewriter.getIntegerAttr(i8, format.canonicalNaNBits);
    Value nan =
        vectorType
            ? arith::ConstantOp::create(
                  rewriter, loc,
                  SplatElementsAttr::get(cast<VectorType>(byteType), nanAttr))
            : arith::ConstantOp::create(rewriter, loc, nanAttr);
    Value isNaN = arith::CmpFOp::create(
        rewriter, loc, arith::CmpFPredicate::UNO, op.getIn(), op.getIn());
    bytes = arith::SelectOp::create(rewriter, loc, isNaN, nan, bytes);
    rewriter.replaceOpWithNewOp<arith::BitcastOp>(op, op.getType(), bytes);
    return success();
  }
};

struct PrecGPUFp8ToNVVMPass
    : public prec::impl::PrecGPUFp8ToNVVMBase<PrecGPUFp8ToNVVMPass> {
  void runOnOperation() override {
    if (!targetsHaveFp8Conversion(getOperation()))
      return;
    RewritePatternSet patterns(&getContext());
    patterns.add<SaturatingTruncFToNVVM>(&getContext());
    walkAndApplyPatterns(getOperation(), std::move(patterns));
  }
};

} // namespace
