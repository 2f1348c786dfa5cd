//===- SafeTensors.cpp - read and write safetensors files -----------------===//

#include "prec/Runner/SafeTensors.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::prec;

namespace {

llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

struct DtypeInfo {
  llvm::StringLiteral name;
  size_t bytes;
};

/// The dtypes of safetensors (0.5) whose elements are whole bytes.
constexpr DtypeInfo kDtypes[] = {
    {"F64", 8},     {"F32", 4},     {"F16", 2},     {"BF16", 2},
    {"F8_E4M3", 1}, {"F8_E5M2", 1}, {"F8_E8M0", 1}, {"I64", 8},
    {"I32", 4},     {"I16", 2},     {"I8", 1},      {"U64", 8},
    {"U32", 4},     {"U16", 2},     {"U8", 1},      {"BOOL", 1}};

/// Bounds the header so that a corrupt length is not read as a request for
/// exabytes (safetensors itself allows 100 MB).
constexpr uint64_t kMaxHeaderBytes = 100'000'000;

} // namespace

int64_t SafeTensor::numElements() const {
  int64_t n = 1;
  for (int64_t extent : shape)
    n *= extent;
  return n;
}

llvm::StringRef prec::getSafeTensorsDtype(ElementKind kind) {
  switch (kind) {
  case ElementKind::F64:
    return "F64";
  case ElementKind::F32:
    return "F32";
  case ElementKind::F16:
    return "F16";
  case ElementKind::BF16:
    return "BF16";
  case ElementKind::F8E4M3FN:
    return "F8_E4M3";
  case ElementKind::F8E5M2:
    return "F8_E5M2";
  case ElementKind::F8E8M0FNU:
    return "F8_E8M0";
  case ElementKind::I64:
    return "I64";
  case ElementKind::I32:
    return "I32";
  case ElementKind::I16:
    return "I16";
  case ElementKind::I8:
    return "I8";
  case ElementKind::I1:
    return "BOOL";
  }
  return "";
}

std::optional<size_t> prec::getSafeTensorsDtypeBytes(llvm::StringRef dtype) {
  for (const DtypeInfo &info : kDtypes)
    if (info.name == dtype)
      return info.bytes;
  return std::nullopt;
}

std::string prec::formatShape(llvm::ArrayRef<int64_t> shape) {
  std::string text = "[";
  for (auto [i, extent] : llvm::enumerate(shape))
    text += (i ? ", " : "") + std::to_string(extent);
  return text + "]";
}

llvm::Expected<std::unique_ptr<SafeTensorsFile>>
SafeTensorsFile::open(llvm::StringRef path) {
  if (llvm::sys::fs::is_directory(path))
    return makeError(path + " is a directory, not a safetensors file");
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                  /*RequiresNullTerminator=*/false);
  if (!buffer)
    return makeError("cannot open " + path + ": " +
                     buffer.getError().message());
  return parse(std::move(*buffer), path);
}

llvm::Expected<std::unique_ptr<SafeTensorsFile>>
SafeTensorsFile::parse(std::unique_ptr<llvm::MemoryBuffer> buffer,
                       llvm::StringRef path) {
  auto fail = [&](const llvm::Twine &what) {
    return makeError(path + ": not a valid safetensors file: " + what);
  };
  llvm::StringRef bytes = buffer->getBuffer();
  if (bytes.size() < 8)
    return fail("expected at least the 8 bytes of the header's length, got " +
                llvm::Twine(bytes.size()) + " bytes");
  uint64_t headerBytes = llvm::support::endian::read64le(bytes.data());
  if (headerBytes > kMaxHeaderBytes)
    return fail("the header's length is " + llvm::Twine(headerBytes) +
                " bytes, more than the " + llvm::Twine(kMaxHeaderBytes) +
                " a header may have");
  if (headerBytes > bytes.size() - 8)
    return fail("the header's length is " + llvm::Twine(headerBytes) +
                " bytes, but only " + llvm::Twine(bytes.size() - 8) +
                " bytes follow (truncated?)");
  llvm::StringRef headerText = bytes.substr(8, headerBytes);
  llvm::ArrayRef<uint8_t> data(reinterpret_cast<const uint8_t *>(bytes.data()) +
                                   8 + headerBytes,
                               bytes.size() - 8 - headerBytes);
  llvm::Expected<llvm::json::Value> header = llvm::json::parse(headerText);
  if (!header)
    return fail("its header is not JSON: " +
                llvm::toString(header.takeError()));
  const llvm::json::Object *object = header->getAsObject();
  if (!object)
    return fail("expected its header to be a JSON object");

  std::unique_ptr<SafeTensorsFile> file(new SafeTensorsFile);
  file->path = path.str();
  for (const auto &[key, value] : *object) {
    std::string name = key.str();
    if (name == "__metadata__") {
      const llvm::json::Object *metadata = value.getAsObject();
      if (!metadata)
        return fail("expected \"__metadata__\" to be an object of strings");
      for (const auto &[metaKey, metaValue] : *metadata) {
        std::optional<llvm::StringRef> text = metaValue.getAsString();
        if (!text)
          return fail("expected \"__metadata__\" to be an object of strings, "
                      "got a non-string for \"" +
                      metaKey.str() + "\"");
        file->metadata[metaKey.str()] = text->str();
      }
      continue;
    }
    auto invalid = [&](const llvm::Twine &what) {
      return fail("tensor '" + name + "': " + what);
    };
    const llvm::json::Object *entry = value.getAsObject();
    if (!entry)
      return invalid("expected an object with dtype, shape and data_offsets");
    SafeTensor tensor;
    tensor.name = name;
    std::optional<llvm::StringRef> dtype = entry->getString("dtype");
    if (!dtype)
      return invalid("expected a string \"dtype\"");
    tensor.dtype = dtype->str();
    std::optional<size_t> elementBytes = getSafeTensorsDtypeBytes(*dtype);
    if (!elementBytes)
      return invalid("unknown dtype \"" + *dtype + "\"");
    const llvm::json::Array *shape = entry->getArray("shape");
    if (!shape)
      return invalid("expected an array \"shape\"");
    int64_t expectedBytes = static_cast<int64_t>(*elementBytes);
    for (const llvm::json::Value &extent : *shape) {
      std::optional<int64_t> integer = extent.getAsInteger();
      if (!integer || *integer < 0)
        return invalid("expected \"shape\" to hold non-negative integers");
      tensor.shape.push_back(*integer);
      if (llvm::MulOverflow(expectedBytes, *integer, expectedBytes) ||
          expectedBytes > kMaxBufferBytes)
        return invalid("its shape " + formatShape(tensor.shape) +
                       " has more than 256 TiB");
    }
    const llvm::json::Array *offsets = entry->getArray("data_offsets");
    std::optional<int64_t> begin, end;
    if (offsets && offsets->size() == 2) {
      begin = (*offsets)[0].getAsInteger();
      end = (*offsets)[1].getAsInteger();
    }
    if (!begin || !end || *begin < 0 || *end < *begin)
      return invalid("expected \"data_offsets\" to be [begin, end] with 0 <= "
                     "begin <= end");
    if (static_cast<uint64_t>(*end) > data.size())
      return invalid("its data_offsets [" + llvm::Twine(*begin) + ", " +
                     llvm::Twine(*end) + "] end beyond the " +
                     llvm::Twine(data.size()) +
                     " bytes of data in the file (truncated?)");
    if (*end - *begin != expectedBytes)
      return invalid("its data_offsets [" + llvm::Twine(*begin) + ", " +
                     llvm::Twine(*end) + "] hold " +
                     llvm::Twine(*end - *begin) + " bytes, its dtype " +
                     tensor.dtype + " and shape " + formatShape(tensor.shape) +
                     " need " + llvm::Twine(expectedBytes));
    tensor.data = data.slice(*begin, *end - *begin);
    file->tensors.push_back(std::move(tensor));
  }
  // Tensors must not share bytes: sorted by offset, each ends before the
  // next begins.
  llvm::sort(file->tensors, [&](const SafeTensor &a, const SafeTensor &b) {
    return a.data.data() < b.data.data();
  });
  for (size_t i = 1; i < file->tensors.size(); ++i) {
    const SafeTensor &previous = file->tensors[i - 1],
                     &tensor = file->tensors[i];
    if (previous.data.end() > tensor.data.begin())
      return fail("the data of tensors '" + previous.name + "' and '" +
                  tensor.name + "' overlap");
  }
  for (auto [i, tensor] : llvm::enumerate(file->tensors))
    file->byName[tensor.name] = i;
  file->buffer = std::move(buffer);
  return std::move(file);
}

const SafeTensor *SafeTensorsFile::lookup(llvm::StringRef name) const {
  auto it = byName.find(name);
  return it == byName.end() ? nullptr : &tensors[it->second];
}

llvm::Error
prec::writeSafeTensors(llvm::StringRef path,
                       llvm::ArrayRef<SafeTensorToWrite> tensors,
                       const std::map<std::string, std::string> &metadata) {
  std::vector<const SafeTensorToWrite *> sorted;
  for (const SafeTensorToWrite &tensor : tensors)
    sorted.push_back(&tensor);
  llvm::sort(sorted,
             [](const SafeTensorToWrite *a, const SafeTensorToWrite *b) {
               return a->name < b->name;
             });
  llvm::json::Object header;
  if (!metadata.empty()) {
    llvm::json::Object meta;
    for (const auto &[key, value] : metadata)
      meta[key] = value;
    header["__metadata__"] = std::move(meta);
  }
  int64_t offset = 0;
  for (auto [i, tensor] : llvm::enumerate(sorted)) {
    if (i && sorted[i - 1]->name == tensor->name)
      return makeError("cannot write " + path + ": tensor '" + tensor->name +
                       "' is given twice");
    std::optional<size_t> elementBytes =
        getSafeTensorsDtypeBytes(tensor->dtype);
    int64_t bytes = elementBytes ? static_cast<int64_t>(*elementBytes) : 0;
    for (int64_t extent : tensor->shape)
      bytes *= extent;
    if (!elementBytes || bytes != static_cast<int64_t>(tensor->data.size()))
      return makeError("cannot write " + path + ": tensor '" + tensor->name +
                       "' has " + llvm::Twine(tensor->data.size()) +
                       " bytes, not those of dtype " + tensor->dtype +
                       " and shape " + formatShape(tensor->shape));
    llvm::json::Array shape;
    for (int64_t extent : tensor->shape)
      shape.push_back(extent);
    header[tensor->name] = llvm::json::Object{
        {"dtype", tensor->dtype},
        {"shape", std::move(shape)},
        {"data_offsets", llvm::json::Array{offset, offset + bytes}}};
    offset += bytes;
  }
  std::string text;
  llvm::raw_string_ostream(text) << llvm::json::Value(std::move(header));
  // The data starts 8-byte aligned, as safetensors writes it.
  text.append((8 - text.size() % 8) % 8, ' ');

  std::error_code code;
  llvm::raw_fd_ostream out(path, code);
  if (!code) {
    char length[8];
    llvm::support::endian::write64le(length, text.size());
    out.write(length, 8);
    out << text;
    for (const SafeTensorToWrite *tensor : sorted)
      out.write(reinterpret_cast<const char *>(tensor->data.data()),
                tensor->data.size());
    out.close();
    code = out.error();
    out.clear_error();
  }
  if (code)
    return makeError("cannot write " + path + ": " + code.message());
  return llvm::Error::success();
}
