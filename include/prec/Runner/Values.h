//===- Values.h - the values an entry function takes and returns -*- C++
//-*-===//
//
// The arguments and results of a program's entry function as the runner
// passes them: dense row-major buffers of static shape, and scalars. Also
// how the runner writes, reads, generates and parses their elements, so that
// every embedder initializes arguments exactly as prec-run does.
//
//===----------------------------------------------------------------------===//

#ifndef PREC_RUNNER_VALUES_H
#define PREC_RUNNER_VALUES_H

#include "mlir/IR/Types.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <utility>
#include <string>

namespace mlir {
namespace prec {

/// The element types (and scalar types) an entry function may use.
enum class ElementKind {
  F64,
  F32,
  F16,
  BF16,
  F8E4M3FN,
  F8E5M2,
  F8E8M0FNU, // block scales: 2^(bits - 127)
  I64,
  I32,
  I16,
  I8,
  I1, // a byte, 0 or 1
};

/// How an argument is one rank's block of a larger tensor (`prec.shard`):
/// dimension `dim` of the full tensor has `size` elements, split in blocks
/// of ceil(size / G) over the G ranks of a group of grid `grid` (the ranks
/// that differ only in their coordinates on `gridAxes`); rows at or beyond
/// `size` are padding. Ranks that differ on other axes hold the same block.
struct ShardSpec {
  std::string grid;
  /// The grid's shape; empty when it is not static.
  llvm::SmallVector<int64_t> gridShape;
  /// Empty: every axis.
  llvm::SmallVector<int64_t> gridAxes;
  int64_t dim = 0;
  int64_t size = 0;

  /// The number of ranks in a group.
  int64_t getGroupSize() const;
  /// The index of world rank `rank` in its group (its coordinates on the
  /// group's axes, row-major in the order listed).
  int64_t getGroupIndex(int64_t rank) const;
  /// Whether `rank` is in the first replica: coordinate 0 on every other
  /// axis. Its group holds the whole tensor once.
  bool isFirstReplica(int64_t rank) const;
};

/// One argument or result of an entry function.
struct ValueSpec {
  bool isBuffer = false;
  ElementKind element = ElementKind::F32;
  llvm::SmallVector<int64_t> shape; // buffers only
  /// The type as written in the function (`tensor<8xf32>`, `f32`): values
  /// of the same type name feed each other across steps.
  std::string typeName;
  /// An index scalar: a size or a position, never negative.
  bool isIndex = false;
  /// The name it goes by: the function's `prec.name` (arguments: or the
  /// SSA name in the source), else `argN` or `resultN`.
  std::string name;
  /// A scalar argument's `prec.default`, as text parseScalar reads; empty
  /// when the program states none.
  std::string defaultValue;
  /// An argument's `prec.shard`.
  std::optional<ShardSpec> shard;
  /// An integer argument's `prec.range`: its values lie in [first, second).
  std::optional<std::pair<int64_t, int64_t>> range;

  int64_t numElements() const;
  size_t elementBytes() const;
  size_t bytes() const { return elementBytes() * numElements(); }
};

/// Largest buffer the runner accepts as an argument or result (256 TiB): a
/// larger one is a mistake, and the product of its extents may overflow.
constexpr int64_t kMaxBufferBytes = int64_t(1) << 48;

/// The spec of an entry function's argument or result type; failure with
/// what is wrong with `type` in `problem`.
mlir::FailureOr<ValueSpec> getValueSpec(mlir::Type type, std::string &problem);

/// Element `i` of `data` (elements of `spec`'s kind) as a double.
double readElement(const ValueSpec &spec, const void *data, int64_t i);

/// Writes `value` into element `i` of `data`, rounded as the runtime's
/// reference conversions round (16- and 8-bit floats through f32).
void writeElement(const ValueSpec &spec, void *data, int64_t i, double value);

/// Element `i` of integer `data` (an integer or boolean kind), exactly.
int64_t readInteger(const ValueSpec &spec, const void *data, int64_t i);
/// Writes `value` into element `i` of integer `data`, truncated to its width.
void writeInteger(const ValueSpec &spec, void *data, int64_t i, int64_t value);

/// Whether `kind` is an integer (or boolean) kind.
bool isIntegerKind(ElementKind kind);

/// The values generateArgument draws for integer `spec`: its `prec.range`,
/// else [0, 2) for i1 and [0, 64) for wider integers.
std::pair<int64_t, int64_t> getGeneratedRange(const ValueSpec &spec);

/// Fills the buffer `data` of argument `index` of `rank` with values drawn
/// from `seed`: floats uniform in [-1, 1) (24 bits: exact f32 values),
/// integers uniform in getGeneratedRange; `replicated` gives every rank the
/// same values.
void generateArgument(const ValueSpec &spec, uint64_t seed, unsigned index,
                      int32_t rank, bool replicated, void *data);

/// Parses `text` as the value of scalar argument `spec` into the 8 bytes it
/// is passed in: integers exactly and in range, floats as numbers that stay
/// finite and non-zero in the argument's type.
mlir::LogicalResult parseScalar(const ValueSpec &spec, llvm::StringRef text,
                                int64_t &storage, std::string &problem);

} // namespace prec
} // namespace mlir

#endif // PREC_RUNNER_VALUES_H
