//===- Values.cpp - the values an entry function takes and returns --------===//

#include "prec/Runner/Values.h"

#include "precrt/precrt.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

using namespace mlir;
using namespace mlir::prec;

namespace {

/// The runtime's dtype of a 16- or 8-bit float kind (converted through the
/// runtime's reference conversions).
precrt_dtype_t getNarrowDtype(ElementKind kind) {
  switch (kind) {
  case ElementKind::F16:
    return PRECRT_DTYPE_F16;
  case ElementKind::BF16:
    return PRECRT_DTYPE_BF16;
  case ElementKind::F8E4M3FN:
    return PRECRT_DTYPE_F8E4M3FN;
  default:
    return PRECRT_DTYPE_F8E5M2;
  }
}

FailureOr<ElementKind> getElementKind(Type type) {
  if (type.isF64())
    return ElementKind::F64;
  if (type.isF32())
    return ElementKind::F32;
  if (type.isF16())
    return ElementKind::F16;
  if (type.isBF16())
    return ElementKind::BF16;
  if (isa<Float8E4M3FNType>(type))
    return ElementKind::F8E4M3FN;
  if (isa<Float8E5M2Type>(type))
    return ElementKind::F8E5M2;
  if (isa<Float8E8M0FNUType>(type))
    return ElementKind::F8E8M0FNU;
  if (type.isIndex() || type.isInteger(64))
    return ElementKind::I64;
  if (type.isInteger(32))
    return ElementKind::I32;
  if (type.isInteger(16))
    return ElementKind::I16;
  if (type.isInteger(8))
    return ElementKind::I8;
  if (type.isInteger(1))
    return ElementKind::I1;
  return failure();
}

/// splitmix64: a small, well-mixed, reproducible generator.
uint64_t mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

/// Whether the decimal `text` has a non-zero digit before its exponent, i.e.
/// names a non-zero number (hexadecimal floats are not looked into).
bool hasNonZeroSignificand(StringRef text) {
  if (text.contains_insensitive("0x"))
    return false;
  StringRef significand =
      text.take_until([](char c) { return c == 'e' || c == 'E'; });
  return llvm::any_of(significand, [](char c) { return c >= '1' && c <= '9'; });
}

} // namespace

int64_t ValueSpec::numElements() const {
  int64_t n = 1;
  for (int64_t extent : shape)
    n *= extent;
  return n;
}

size_t ValueSpec::elementBytes() const {
  switch (element) {
  case ElementKind::F64:
  case ElementKind::I64:
    return 8;
  case ElementKind::F32:
  case ElementKind::I32:
    return 4;
  case ElementKind::F16:
  case ElementKind::BF16:
  case ElementKind::I16:
    return 2;
  case ElementKind::F8E4M3FN:
  case ElementKind::F8E5M2:
  case ElementKind::F8E8M0FNU:
  case ElementKind::I8:
  case ElementKind::I1:
    return 1;
  }
  return 0;
}

bool prec::isIntegerKind(ElementKind kind) {
  switch (kind) {
  case ElementKind::I64:
  case ElementKind::I32:
  case ElementKind::I16:
  case ElementKind::I8:
  case ElementKind::I1:
    return true;
  default:
    return false;
  }
}

int64_t prec::readInteger(const ValueSpec &spec, const void *data, int64_t i) {
  auto bytes = static_cast<const uint8_t *>(data) + i * spec.elementBytes();
  switch (spec.element) {
  case ElementKind::I64: {
    int64_t v;
    std::memcpy(&v, bytes, 8);
    return v;
  }
  case ElementKind::I32: {
    int32_t v;
    std::memcpy(&v, bytes, 4);
    return v;
  }
  case ElementKind::I16: {
    int16_t v;
    std::memcpy(&v, bytes, 2);
    return v;
  }
  case ElementKind::I8:
    return static_cast<int8_t>(bytes[0]);
  case ElementKind::I1:
    return bytes[0] & 1;
  default:
    return static_cast<int64_t>(readElement(spec, data, i));
  }
}

void prec::writeInteger(const ValueSpec &spec, void *data, int64_t i,
                        int64_t value) {
  auto bytes = static_cast<uint8_t *>(data) + i * spec.elementBytes();
  switch (spec.element) {
  case ElementKind::I64:
    std::memcpy(bytes, &value, 8);
    return;
  case ElementKind::I32: {
    auto v = static_cast<int32_t>(value);
    std::memcpy(bytes, &v, 4);
    return;
  }
  case ElementKind::I16: {
    auto v = static_cast<int16_t>(value);
    std::memcpy(bytes, &v, 2);
    return;
  }
  case ElementKind::I8:
    bytes[0] = static_cast<uint8_t>(value);
    return;
  case ElementKind::I1:
    bytes[0] = value & 1;
    return;
  default:
    writeElement(spec, data, i, static_cast<double>(value));
  }
}

std::pair<int64_t, int64_t> prec::getGeneratedRange(const ValueSpec &spec) {
  if (spec.range)
    return *spec.range;
  return {0, spec.element == ElementKind::I1 ? 2 : 64};
}

int64_t ShardSpec::getGroupSize() const {
  int64_t size = 1;
  for (auto [axis, extent] : llvm::enumerate(gridShape))
    if (gridAxes.empty() || llvm::is_contained(gridAxes, int64_t(axis)))
      size *= extent;
  return size;
}

/// The coordinates of world rank `rank` on `shape`, last axis fastest.
static SmallVector<int64_t> getCoordinates(ArrayRef<int64_t> shape,
                                           int64_t rank) {
  SmallVector<int64_t> coordinates(shape.size());
  for (int64_t d = static_cast<int64_t>(shape.size()) - 1; d >= 0; --d) {
    coordinates[d] = rank % shape[d];
    rank /= shape[d];
  }
  return coordinates;
}

int64_t ShardSpec::getGroupIndex(int64_t rank) const {
  SmallVector<int64_t> coordinates = getCoordinates(gridShape, rank);
  if (gridAxes.empty())
    return rank;
  int64_t index = 0;
  for (int64_t axis : gridAxes)
    index = index * gridShape[axis] + coordinates[axis];
  return index;
}

bool ShardSpec::isFirstReplica(int64_t rank) const {
  if (gridAxes.empty())
    return true;
  SmallVector<int64_t> coordinates = getCoordinates(gridShape, rank);
  for (auto [axis, coordinate] : llvm::enumerate(coordinates))
    if (!llvm::is_contained(gridAxes, int64_t(axis)) && coordinate != 0)
      return false;
  return true;
}

FailureOr<ValueSpec> prec::getValueSpec(Type type, std::string &problem) {
  ValueSpec spec;
  llvm::raw_string_ostream(spec.typeName) << type;
  problem = "expected a float, integer (i1, i8, i16, i32, i64) or index "
            "scalar, or a tensor/memref of static shape";
  auto shaped = dyn_cast<ShapedType>(type);
  if (shaped) {
    if (!shaped.hasStaticShape())
      return failure();
    // The runner hands the function contiguous row-major buffers.
    if (auto memref = dyn_cast<MemRefType>(type);
        memref && !memref.getLayout().isIdentity()) {
      problem = "expected an identity layout: prec-run passes contiguous "
                "buffers";
      return failure();
    }
    spec.isBuffer = true;
    spec.shape.assign(shaped.getShape().begin(), shaped.getShape().end());
    type = shaped.getElementType();
  }
  FailureOr<ElementKind> kind = getElementKind(type);
  if (failed(kind))
    return failure();
  spec.element = *kind;
  spec.isIndex = type.isIndex();
  if (llvm::is_contained(spec.shape, 0))
    return spec;
  int64_t bytes = static_cast<int64_t>(spec.elementBytes());
  for (int64_t extent : spec.shape)
    if (llvm::MulOverflow(bytes, extent, bytes) || bytes > kMaxBufferBytes) {
      problem = "expected at most " + std::to_string(kMaxBufferBytes) +
                " bytes (256 TiB)";
      return failure();
    }
  return spec;
}

double prec::readElement(const ValueSpec &spec, const void *data, int64_t i) {
  auto bytes = static_cast<const uint8_t *>(data) + i * spec.elementBytes();
  switch (spec.element) {
  case ElementKind::F64: {
    double v;
    std::memcpy(&v, bytes, 8);
    return v;
  }
  case ElementKind::F32: {
    float v;
    std::memcpy(&v, bytes, 4);
    return v;
  }
  case ElementKind::F16:
  case ElementKind::BF16:
  case ElementKind::F8E4M3FN:
  case ElementKind::F8E5M2: {
    float v;
    precrtConvert(bytes, getNarrowDtype(spec.element), &v, PRECRT_DTYPE_F32, 1);
    return v;
  }
  case ElementKind::F8E8M0FNU:
    return bytes[0] == 0xFF ? std::numeric_limits<double>::quiet_NaN()
                            : std::ldexp(1.0, int(bytes[0]) - 127);
  case ElementKind::I64: {
    int64_t v;
    std::memcpy(&v, bytes, 8);
    return static_cast<double>(v);
  }
  case ElementKind::I32: {
    int32_t v;
    std::memcpy(&v, bytes, 4);
    return v;
  }
  case ElementKind::I16:
  case ElementKind::I8:
  case ElementKind::I1:
    return static_cast<double>(readInteger(spec, data, i));
  }
  return 0;
}

void prec::writeElement(const ValueSpec &spec, void *data, int64_t i,
                        double value) {
  auto bytes = static_cast<uint8_t *>(data) + i * spec.elementBytes();
  switch (spec.element) {
  case ElementKind::F64:
    std::memcpy(bytes, &value, 8);
    return;
  case ElementKind::F32: {
    auto v = static_cast<float>(value);
    std::memcpy(bytes, &v, 4);
    return;
  }
  case ElementKind::F16:
  case ElementKind::BF16:
  case ElementKind::F8E4M3FN:
  case ElementKind::F8E5M2: {
    // Through f32, the runtime's reference conversion source; values given
    // to the runner are f32 values already (or generated as such).
    auto v = static_cast<float>(value);
    precrtConvert(&v, PRECRT_DTYPE_F32, bytes, getNarrowDtype(spec.element), 1);
    return;
  }
  case ElementKind::F8E8M0FNU: {
    // The power of two at or below |value|, within E8M0's range.
    int exponent = value == 0.0 || !std::isfinite(value)
                       ? 0
                       : std::ilogb(std::fabs(value));
    bytes[0] =
        std::isnan(value)
            ? 0xFF
            : static_cast<uint8_t>(std::clamp(exponent, -127, 127) + 127);
    return;
  }
  case ElementKind::I64: {
    auto v = static_cast<int64_t>(value);
    std::memcpy(bytes, &v, 8);
    return;
  }
  case ElementKind::I32: {
    auto v = static_cast<int32_t>(value);
    std::memcpy(bytes, &v, 4);
    return;
  }
  case ElementKind::I16:
  case ElementKind::I8:
  case ElementKind::I1:
    writeInteger(spec, data, i, static_cast<int64_t>(value));
    return;
  }
}

void prec::generateArgument(const ValueSpec &spec, uint64_t seed,
                            unsigned index, int32_t rank, bool replicated,
                            void *data) {
  uint64_t stream =
      mix(seed ^ mix(index + 1) ^ (replicated ? 0 : mix(~uint64_t(rank))));
  if (isIntegerKind(spec.element)) {
    auto [lo, hi] = getGeneratedRange(spec);
    // Uniform over the hi - lo values (the bias of a 64-bit modulo is far
    // below what a test could see).
    auto count = static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo);
    for (int64_t i = 0; i < spec.numElements(); ++i) {
      uint64_t bits = mix(stream + static_cast<uint64_t>(i));
      writeInteger(spec, data, i,
                   static_cast<int64_t>(static_cast<uint64_t>(lo) +
                                        (count ? bits % count : 0)));
    }
    return;
  }
  for (int64_t i = 0; i < spec.numElements(); ++i) {
    uint64_t bits = mix(stream + static_cast<uint64_t>(i));
    // Uniform in [-1, 1) with 24 bits: exactly an f32 value.
    double uniform = static_cast<double>(bits >> 40) * 0x1.0p-24;
    writeElement(spec, data, i, 2.0 * uniform - 1.0);
  }
}

LogicalResult prec::parseScalar(const ValueSpec &spec, StringRef text,
                                int64_t &storage, std::string &problem) {
  storage = 0;
  if (isIntegerKind(spec.element)) {
    int64_t value;
    StringRef digits = text;
    if (digits.starts_with("+") && digits.size() > 1 &&
        llvm::isDigit(digits[1]))
      digits = digits.drop_front();
    if (digits.getAsInteger(10, value)) {
      problem = "expected an integer";
      return failure();
    }
    if (spec.isIndex && value < 0) {
      problem = "expected a non-negative integer (an index is a size or a "
                "position)";
      return failure();
    }
    if (spec.element == ElementKind::I64) {
      storage = value;
      return success();
    }
    // i1 holds 0 and 1; iN the signed N-bit values.
    unsigned bits = 8 * spec.elementBytes();
    int64_t lowest = spec.element == ElementKind::I1 ? 0 : -(int64_t(1) << (bits - 1));
    int64_t highest = spec.element == ElementKind::I1 ? 1 : (int64_t(1) << (bits - 1)) - 1;
    if (value < lowest || value > highest) {
      problem = "expected an integer in the range of " + spec.typeName + " (" +
                std::to_string(lowest) + " to " + std::to_string(highest) + ")";
      return failure();
    }
    writeInteger(spec, &storage, 0, value);
    return success();
  }
  double value;
  if (text.empty() || !llvm::to_float(text, value)) {
    problem = "expected a number";
    return failure();
  }
  // A finite value must stay finite in the argument's type.
  const llvm::fltSemantics *semantics = nullptr;
  switch (spec.element) {
  case ElementKind::F32:
    semantics = &llvm::APFloat::IEEEsingle();
    break;
  case ElementKind::F16:
    semantics = &llvm::APFloat::IEEEhalf();
    break;
  case ElementKind::BF16:
    semantics = &llvm::APFloat::BFloat();
    break;
  default:
    break;
  }
  llvm::APFloat converted(value);
  bool losesInfo = false;
  llvm::APFloat::opStatus status =
      semantics
          ? converted.convert(*semantics, llvm::APFloat::rmNearestTiesToEven,
                              &losesInfo)
          : llvm::APFloat::opOK;
  // The decimal itself may lie beyond f64 (1e400 parses as infinity, 1e-400
  // as 0); only the spellings of infinity and NaN mean those values.
  std::string lower = text.lower();
  bool spellsNonFinite =
      StringRef(lower).contains("inf") || StringRef(lower).contains("nan");
  if ((std::isfinite(value) && (status & llvm::APFloat::opOverflow)) ||
      (!std::isfinite(value) && !spellsNonFinite)) {
    problem = "expected a number in the range of " + spec.typeName;
    return failure();
  }
  if (hasNonZeroSignificand(text) &&
      (value == 0.0 || (semantics && converted.isZero()))) {
    problem = "expected a number in the range of " + spec.typeName +
              " (it rounds to 0)";
    return failure();
  }
  // 16-bit floats straight from the decimal's double, rounded once (through
  // f32 first, 1.0039062500000002 would round to 1 in bf16, not 1.0078125).
  if (spec.element == ElementKind::F16 || spec.element == ElementKind::BF16) {
    auto bits =
        static_cast<uint16_t>(converted.bitcastToAPInt().getZExtValue());
    std::memcpy(&storage, &bits, sizeof(bits));
    return success();
  }
  // fp8 scalars convert as prec.cast does: saturating, through f32.
  writeElement(spec, &storage, 0, value);
  return success();
}
