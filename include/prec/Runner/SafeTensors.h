//===- SafeTensors.h - read and write safetensors files ---------*- C++ -*-===//
//
// The checkpoint format of PyTorch's ecosystem (safetensors.torch): an 8-byte
// little-endian header length, a JSON header that maps each tensor's name to
// its dtype, shape and byte range in the data that follows
// ({"w": {"dtype": "F32", "shape": [2, 3], "data_offsets": [0, 24]}}, and an
// optional "__metadata__" of strings), then the tensors, little-endian in C
// order. A file is checked as a whole when it is opened: a truncated or
// malformed one is an error that says what is wrong, never a crash.
//
//===----------------------------------------------------------------------===//

#ifndef PREC_RUNNER_SAFETENSORS_H
#define PREC_RUNNER_SAFETENSORS_H

#include "prec/Runner/Values.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mlir {
namespace prec {

/// One tensor of a safetensors file.
struct SafeTensor {
  std::string name;
  /// The file's dtype: "F32", "BF16", "I64", "BOOL", ...
  std::string dtype;
  llvm::SmallVector<int64_t> shape;
  /// The tensor's bytes (in the opened file's buffer).
  llvm::ArrayRef<uint8_t> data;

  int64_t numElements() const;
};

/// The safetensors dtype of an element kind ("F32", "BOOL", "F8_E4M3").
llvm::StringRef getSafeTensorsDtype(ElementKind kind);
/// The bytes of an element of a safetensors dtype; none for a dtype this
/// reader does not know.
std::optional<size_t> getSafeTensorsDtypeBytes(llvm::StringRef dtype);

/// "[10, 16]".
std::string formatShape(llvm::ArrayRef<int64_t> shape);

/// A safetensors file, read and checked whole.
class SafeTensorsFile {
public:
  /// Opens and checks `path`: the header's length and JSON, each tensor's
  /// dtype, shape and byte range (within the data, of the size its dtype
  /// and shape give).
  static llvm::Expected<std::unique_ptr<SafeTensorsFile>>
  open(llvm::StringRef path);
  /// The same for a file's contents already in memory; `path` names it in
  /// messages.
  static llvm::Expected<std::unique_ptr<SafeTensorsFile>>
  parse(std::unique_ptr<llvm::MemoryBuffer> buffer, llvm::StringRef path);

  llvm::StringRef getPath() const { return path; }
  /// The tensor named `name`, or null.
  const SafeTensor *lookup(llvm::StringRef name) const;
  /// Every tensor, in the order of their data.
  llvm::ArrayRef<SafeTensor> getTensors() const { return tensors; }
  const std::map<std::string, std::string> &getMetadata() const {
    return metadata;
  }

private:
  std::string path;
  std::unique_ptr<llvm::MemoryBuffer> buffer;
  std::vector<SafeTensor> tensors;
  llvm::StringMap<size_t> byName;
  std::map<std::string, std::string> metadata;
};

/// A tensor to write: `data` holds its elements, little-endian, C order.
struct SafeTensorToWrite {
  std::string name;
  std::string dtype;
  llvm::SmallVector<int64_t> shape;
  llvm::ArrayRef<uint8_t> data;
};

/// Writes `tensors` (distinct names, data of the size dtype and shape give)
/// and `metadata` to `path` as safetensors: the header lists them sorted by
/// name, as safetensors.torch.save_file does, padded with spaces to a
/// multiple of 8 bytes.
llvm::Error
writeSafeTensors(llvm::StringRef path,
                 llvm::ArrayRef<SafeTensorToWrite> tensors,
                 const std::map<std::string, std::string> &metadata = {});

} // namespace prec
} // namespace mlir

#endif // PREC_RUNNER_SAFETENSORS_H
