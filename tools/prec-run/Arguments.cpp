//===- Arguments.cpp - where prec-run's arguments come from ---------------===//

#include "Arguments.h"
#include "Options.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/GlobPattern.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <cstring>
#include <fstream>
#include <limits>
#include <optional>
#include <unistd.h>

using namespace mlir;
using namespace mlir::prec;

namespace prec_run {
namespace {

llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

/// `pattern` with %r replaced by the rank and, when `step` is given, %s by
/// the step.
std::string substituteRank(StringRef pattern, int32_t rank,
                           std::optional<int> step = std::nullopt) {
  std::string result;
  for (size_t i = 0; i < pattern.size(); ++i) {
    char next = i + 1 < pattern.size() ? pattern[i + 1] : 0;
    if (pattern[i] == '%' && next == 'r') {
      result += std::to_string(rank);
      ++i;
    } else if (pattern[i] == '%' && next == 's' && step) {
      result += std::to_string(*step);
      ++i;
    } else {
      result += pattern[i];
    }
  }
  return result;
}

/// The token dtypes of --data.
struct TokenType {
  StringRef name;
  size_t bytes;
  bool isFloat;
  bool isUnsigned;
};
constexpr TokenType kTokenTypes[] = {
    {"u8", 1, false, true},   {"u16", 2, false, true},
    {"u32", 4, false, true},  {"i8", 1, false, false},
    {"i16", 2, false, false}, {"i32", 4, false, false},
    {"i64", 8, false, false}, {"bool", 1, false, true},
    {"f32", 4, true, false},  {"f64", 8, true, false}};

/// The token dtype of argument `spec`'s own elements; none for 16- and
/// 8-bit floats, which a stream cannot hold.
std::optional<StringRef> getOwnTokenType(const ValueSpec &spec) {
  switch (spec.element) {
  case ElementKind::F64:
    return StringRef("f64");
  case ElementKind::F32:
    return StringRef("f32");
  case ElementKind::I64:
    return StringRef("i64");
  case ElementKind::I32:
    return StringRef("i32");
  case ElementKind::I16:
    return StringRef("i16");
  case ElementKind::I8:
    return StringRef("i8");
  case ElementKind::I1:
    return StringRef("bool");
  default:
    return std::nullopt;
  }
}

const TokenType *lookupTokenType(StringRef name) {
  for (const TokenType &type : kTokenTypes)
    if (type.name == name)
      return &type;
  return nullptr;
}

/// The values an integer argument holds: prec.range, else its type's.
std::pair<int64_t, int64_t> getValidRange(const ValueSpec &spec) {
  if (spec.range)
    return *spec.range;
  if (spec.element == ElementKind::I1)
    return {0, 2};
  if (spec.element == ElementKind::I64)
    return {std::numeric_limits<int64_t>::min(),
            std::numeric_limits<int64_t>::max()};
  unsigned bits = 8 * spec.elementBytes();
  return {-(int64_t(1) << (bits - 1)), int64_t(1) << (bits - 1)};
}

/// Checks that integer argument `spec`'s values in `data` lie in its range
/// (its type's, or prec.range); `where` says whose they are.
llvm::Error checkIntegerValues(const ValueSpec &spec, const void *data,
                               const Twine &where) {
  if (!isIntegerKind(spec.element))
    return llvm::Error::success();
  auto [lo, hi] = getValidRange(spec);
  bool isBool = spec.element == ElementKind::I1;
  for (int64_t i = 0, n = spec.numElements(); i < n; ++i) {
    int64_t value = isBool ? static_cast<const uint8_t *>(data)[i]
                           : readInteger(spec, data, i);
    if (value < lo || (value >= hi && hi != std::numeric_limits<int64_t>::max()))
      return makeError(where + ": element " + Twine(i) + " is " + Twine(value) +
                       ", outside [" + Twine(lo) + ", " + Twine(hi) + ")" +
                       (spec.range ? " (its prec.range)" : ""));
  }
  return llvm::Error::success();
}

/// Whether `path` can hold the contents of argument `index`: a readable
/// file of exactly its size.
LogicalResult checkArgumentFile(const ValueSpec &spec, unsigned index,
                                const std::string &path, std::string &error) {
  llvm::sys::fs::file_status status;
  if (std::error_code code = llvm::sys::fs::status(path, status)) {
    error = "cannot open " + path + " for argument " + std::to_string(index) +
            ": " + code.message();
    return failure();
  }
  if (llvm::sys::fs::is_directory(status)) {
    error = path + " is a directory, not the contents of argument " +
            std::to_string(index);
    return failure();
  }
  if (status.getSize() != spec.bytes()) {
    error = path + " has " + std::to_string(status.getSize()) +
            " bytes, argument " + std::to_string(index) + " (" + spec.typeName +
            ") needs " + std::to_string(spec.bytes());
    return failure();
  }
  return success();
}

/// Parses --max-memory: bytes with an optional binary K, M, G or T suffix.
std::optional<uint64_t> parseByteSize(StringRef text) {
  unsigned shift = 0;
  if (!text.empty()) {
    switch (llvm::toUpper(text.back())) {
    case 'K':
      shift = 10;
      break;
    case 'M':
      shift = 20;
      break;
    case 'G':
      shift = 30;
      break;
    case 'T':
      shift = 40;
      break;
    }
  }
  if (shift)
    text = text.drop_back();
  uint64_t value;
  if (text.getAsInteger(10, value) || value > (UINT64_MAX >> shift))
    return std::nullopt;
  return value << shift;
}

} // namespace

std::string describeArgument(const EntrySignature &signature, unsigned i) {
  const ValueSpec &spec = signature.arguments[i];
  return "argument " + std::to_string(i) + " '" + spec.name + "' (" +
         spec.typeName + ")";
}

static std::string listArgumentNames(const EntrySignature &signature) {
  std::string names;
  for (const ValueSpec &spec : signature.arguments)
    names += (names.empty() ? "" : ", ") + spec.name;
  return names.empty() ? "none" : names;
}

LogicalResult resolveArguments(const EntrySignature &signature,
                               StringRef option, StringRef key, bool allowGlob,
                               SmallVectorImpl<unsigned> &indices,
                               std::string &error) {
  unsigned count = signature.arguments.size();
  unsigned index;
  if (!key.getAsInteger(10, index)) {
    if (index >= count) {
      error = (option + ": argument index " + Twine(index) +
               " out of range: the entry function has " + Twine(count) +
               " arguments")
                  .str();
      return failure();
    }
    indices.push_back(index);
    return success();
  }
  bool isGlob = allowGlob && key.find_first_of("*?[") != StringRef::npos;
  std::optional<llvm::GlobPattern> pattern;
  if (isGlob) {
    llvm::Expected<llvm::GlobPattern> created = llvm::GlobPattern::create(key);
    if (!created) {
      error = (option + ": " + llvm::toString(created.takeError())).str();
      return failure();
    }
    pattern = std::move(*created);
  }
  for (auto [i, spec] : llvm::enumerate(signature.arguments))
    if (pattern ? pattern->match(spec.name) : spec.name == key)
      indices.push_back(i);
  if (!indices.empty())
    return success();
  error = (option + ": " + (isGlob ? "no argument name matches '" + key + "'"
                                   : "no argument named '" + key + "'") +
           "; the arguments of @" + signature.name + " are " +
           listArgumentNames(signature) + " (--list-args lists them)")
              .str();
  return failure();
}

LogicalResult parseArgumentOptions(const EntrySignature &signature,
                                   ArgumentPlan &plan) {
  plan.seed = seed;
  auto fail = [](const Twine &message) {
    llvm::errs() << "prec-run: error: " << message << "\n";
    return failure();
  };
  auto describe = [&](unsigned i) { return describeArgument(signature, i); };
  auto nameOf = [&](unsigned i) -> const std::string & {
    return signature.arguments[i].name;
  };
  // The one argument `key` names (a position or a name).
  auto resolveOne = [&](StringRef option, StringRef key) -> FailureOr<unsigned> {
    SmallVector<unsigned, 1> indices;
    std::string error;
    if (failed(resolveArguments(signature, option, key, /*allowGlob=*/false,
                                indices, error))) {
      (void)fail(error);
      return failure();
    }
    return indices.front();
  };
  // The option that gave each argument its value.
  std::map<unsigned, std::string> givenBy;
  auto claim = [&](unsigned i, const std::string &option) {
    auto [it, inserted] = givenBy.try_emplace(i, option);
    if (inserted)
      return success();
    return fail(describe(i) + " is given twice: " + it->second + " and " +
                option);
  };

  for (StringRef entry : scalarArgs) {
    std::string option = ("--scalar " + entry).str();
    auto [key, value] = entry.split('=');
    if (key.empty() || !entry.contains('='))
      return fail("expected --scalar NAME=NUMBER or INDEX=NUMBER, got '" +
                  entry + "'");
    FailureOr<unsigned> i = resolveOne(option, key);
    if (failed(i) || failed(claim(*i, option)))
      return failure();
    if (signature.arguments[*i].isBuffer)
      return fail(option + ": " + describe(*i) +
                  " is a tensor: give its contents with --arg " + nameOf(*i) +
                  "=PATH or --zeros " + nameOf(*i));
    std::string problem;
    if (failed(parseScalar(signature.arguments[*i], value, plan.scalars[*i],
                           problem)))
      return fail(option + ": " + describe(*i) + ": " + problem + ", got '" +
                  value + "'");
  }
  for (StringRef entry : fileArgs) {
    std::string option = ("--arg " + entry).str();
    auto [key, path] = entry.split('=');
    if (key.empty() || path.empty())
      return fail("expected --arg NAME=PATH or INDEX=PATH, got '" + entry +
                  "'");
    FailureOr<unsigned> i = resolveOne(option, key);
    if (failed(i) || failed(claim(*i, option)))
      return failure();
    if (!signature.arguments[*i].isBuffer)
      return fail(option + ": " + describe(*i) +
                  " is a scalar: give it with --scalar " + nameOf(*i) +
                  "=VALUE");
    plan.files[*i] = path.str();
    // A path without %r is the same file on every rank: check it once.
    std::string problem;
    if (!path.contains("%r") &&
        failed(checkArgumentFile(signature.arguments[*i], *i, path.str(),
                                 problem)))
      return fail(problem);
  }
  for (StringRef entry : dataArgs) {
    std::string option = ("--data " + entry).str();
    auto [key, path] = entry.split('=');
    auto [name, dtype] = key.split(':');
    if (name.empty() || path.empty() || (key.contains(':') && dtype.empty()))
      return fail("expected --data NAME=PATH or NAME:DTYPE=PATH, got '" +
                  entry + "'");
    FailureOr<unsigned> i = resolveOne(option, name);
    if (failed(i) || failed(claim(*i, option)))
      return failure();
    const ValueSpec &spec = signature.arguments[*i];
    if (!spec.isBuffer)
      return fail(option + ": " + describe(*i) +
                  " is a scalar: give it with --scalar " + nameOf(*i) +
                  "=VALUE");
    if (signature.feedsBack(*i))
      return fail(option + ": " + describe(*i) +
                  " is state a result feeds back, not data a step reads");
    DataSource source;
    source.path = path.str();
    source.perStep = path.contains("%s");
    std::optional<StringRef> own = getOwnTokenType(spec);
    if (dtype.empty()) {
      if (!own)
        return fail(option + ": " + describe(*i) +
                    " has elements a token stream does not hold: give the "
                    "stream's dtype (NAME:f32=PATH)");
      dtype = *own;
    }
    const TokenType *type = lookupTokenType(dtype);
    if (!type)
      return fail(option + ": unknown dtype '" + dtype +
                  "' (u8, u16, u32, i8, i16, i32, i64, bool, f32, f64)");
    if (type->isFloat && isIntegerKind(spec.element))
      return fail(option + ": " + describe(*i) + " holds integers, not " +
                  dtype + " values");
    source.dtype = dtype.str();
    source.tokenBytes = type->bytes;
    plan.data[*i] = std::move(source);
  }
  if (!loadPath.empty()) {
    auto file = SafeTensorsFile::open(loadPath);
    if (!file)
      return fail("--load: " + llvm::toString(file.takeError()));
    auto loader = CheckpointLoader::create(
        signature, std::move(*file),
        [&](unsigned i) {
          auto it = givenBy.find(i);
          return it == givenBy.end() ? std::string() : it->second;
        });
    if (!loader)
      return fail("--load: " + llvm::toString(loader.takeError()));
    plan.checkpoint = std::move(*loader);
    for (unsigned i = 0; i < signature.arguments.size(); ++i)
      if (plan.checkpoint->fills(i) || plan.checkpoint->zeroes(i))
        givenBy[i] = plan.checkpoint->fills(i) ? "--load " + loadPath
                                               : "--load (zeros)";
  }
  for (StringRef key : zeroArgs) {
    std::string option = ("--zeros " + key).str();
    SmallVector<unsigned> indices;
    std::string error;
    if (failed(resolveArguments(signature, option, key, /*allowGlob=*/true,
                                indices, error)))
      return fail(error);
    for (unsigned i : indices) {
      if (!signature.arguments[i].isBuffer)
        return fail(option + ": " + describe(i) +
                    " is a scalar: give it with --scalar " + nameOf(i) +
                    "=VALUE");
      // Optimizer state --load leaves at zero may be named again.
      if (plan.checkpoint && plan.checkpoint->zeroes(i))
        givenBy.erase(i);
      if (failed(claim(i, option)))
        return failure();
      plan.zeros.insert(i);
    }
  }
  for (StringRef key : replicatedArgs) {
    std::string option = ("--replicate " + key).str();
    SmallVector<unsigned> indices;
    std::string error;
    if (failed(resolveArguments(signature, option, key, /*allowGlob=*/true,
                                indices, error)))
      return fail(error);
    for (unsigned i : indices) {
      if (!signature.arguments[i].isBuffer)
        return fail(option + ": " + describe(i) +
                    " is a scalar, the same on every rank already");
      if (auto it = givenBy.find(i); it != givenBy.end())
        return fail(option + ": " + describe(i) + " is given by " +
                    it->second + ", not generated from the seed");
      plan.replicated.insert(i);
    }
  }
  for (auto [i, spec] : llvm::enumerate(signature.arguments)) {
    if (spec.isBuffer || plan.scalars.count(i))
      continue;
    if (plan.checkpoint && plan.checkpoint->fills(i)) {
      plan.checkpoint->initializeArgument(0, i, &plan.scalars[i]);
      continue;
    }
    if (spec.defaultValue.empty())
      return fail(describe(i) + " is a scalar: give it with --scalar " +
                  spec.name + "=VALUE");
    std::string problem;
    if (failed(parseScalar(spec, spec.defaultValue, plan.scalars[i], problem)))
      return fail(describe(i) + ": its prec.default: " + problem + ", got '" +
                  spec.defaultValue + "'");
  }
  // The streams of --data, for the ranks of this process: files that
  // exist, hold whole tokens and at least one window (one file per step:
  // each step's, exactly the argument).
  for (auto &[i, source] : plan.data) {
    const ValueSpec &spec = signature.arguments[i];
    uint64_t window = spec.numElements() * source.tokenBytes;
    for (int32_t rank : plan.ranksHere)
      for (int step = 0; step < (source.perStep ? numSteps : 1); ++step) {
        std::string path = substituteRank(source.path, rank, step);
        std::string where = "--data " + spec.name + ": " + path;
        llvm::sys::fs::file_status status;
        if (std::error_code code = llvm::sys::fs::status(path, status))
          return fail("cannot open " + where + ": " + code.message());
        if (llvm::sys::fs::is_directory(status))
          return fail(where + " is a directory");
        uint64_t size = status.getSize();
        if (source.perStep && size != window)
          return fail(where + " has " + Twine(size) + " bytes, " +
                      describe(i) + " needs " + Twine(window) + " (" +
                      Twine(spec.numElements()) + " " + source.dtype +
                      " tokens)");
        if (!source.perStep && size % source.tokenBytes)
          return fail(where + " has " + Twine(size) +
                      " bytes, not a whole number of " + source.dtype +
                      " tokens of " + Twine(source.tokenBytes) + " bytes");
        if (!source.perStep && size < window)
          return fail(where + " holds " + Twine(size / source.tokenBytes) +
                      " " + source.dtype + " tokens, fewer than the " +
                      Twine(spec.numElements()) + " of one window of " +
                      describe(i));
      }
  }
  return success();
}

llvm::Error readStepData(const EntrySignature &signature,
                         const ArgumentPlan &plan, unsigned index, int step,
                         int32_t rank, void *data) {
  const ValueSpec &spec = signature.arguments[index];
  const DataSource &source = plan.data.at(index);
  std::string path = substituteRank(source.path, rank, step);
  int64_t count = spec.numElements();
  size_t windowBytes = count * source.tokenBytes;
  const uint8_t *tokens;
  std::unique_ptr<llvm::MemoryBuffer> stepFile;
  int64_t window = 0;
  if (source.perStep) {
    auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                              /*RequiresNullTerminator=*/false);
    if (!buffer)
      return makeError("--data " + spec.name + ": cannot open " + path + ": " +
                       buffer.getError().message());
    stepFile = std::move(*buffer);
    if (stepFile->getBufferSize() != windowBytes)
      return makeError("--data " + spec.name + ": " + path + " has " +
                       Twine(stepFile->getBufferSize()) + " bytes, expected " +
                       Twine(windowBytes));
    tokens = reinterpret_cast<const uint8_t *>(stepFile->getBufferStart());
  } else {
    const llvm::MemoryBuffer *stream;
    {
      std::lock_guard<std::mutex> lock(source.streams->mutex);
      std::unique_ptr<llvm::MemoryBuffer> &buffer =
          source.streams->buffers[path];
      if (!buffer) {
        auto opened = llvm::MemoryBuffer::getFile(
            path, /*IsText=*/false, /*RequiresNullTerminator=*/false);
        if (!opened)
          return makeError("--data " + spec.name + ": cannot open " + path +
                           ": " + opened.getError().message());
        buffer = std::move(*opened);
      }
      stream = buffer.get();
    }
    // Whole windows only: window k holds tokens [k n, (k + 1) n).
    int64_t windows = stream->getBufferSize() / windowBytes;
    if (windows == 0)
      return makeError("--data " + spec.name + ": " + path +
                       " holds fewer tokens than one window of " +
                       Twine(count));
    window = (static_cast<int64_t>(step) * plan.worldRanks + rank) % windows;
    tokens = reinterpret_cast<const uint8_t *>(stream->getBufferStart()) +
             window * windowBytes;
  }
  const TokenType &type = *lookupTokenType(source.dtype);
  for (int64_t i = 0; i < count; ++i) {
    const uint8_t *token = tokens + i * type.bytes;
    if (type.isFloat) {
      double value;
      if (type.bytes == 8) {
        std::memcpy(&value, token, 8);
      } else {
        float narrow;
        std::memcpy(&narrow, token, 4);
        value = narrow;
      }
      writeElement(spec, data, i, value);
      continue;
    }
    uint64_t raw = 0;
    std::memcpy(&raw, token, type.bytes); // little-endian host
    int64_t value = static_cast<int64_t>(raw);
    if (!type.isUnsigned && type.bytes < 8) {
      unsigned shift = 64 - 8 * type.bytes;
      value = static_cast<int64_t>(raw << shift) >> shift;
    }
    if (!isIntegerKind(spec.element)) {
      writeElement(spec, data, i, static_cast<double>(value));
      continue;
    }
    auto [lo, hi] = getValidRange(spec);
    if (value < lo ||
        (value >= hi && hi != std::numeric_limits<int64_t>::max()))
      return makeError(
          "--data " + spec.name + ": step " + Twine(step) + " of rank " +
          Twine(rank) + " reads token " + Twine(value) + " at " + path +
          " element " + Twine((source.perStep ? 0 : window * count) + i) +
          ", outside [" + Twine(lo) + ", " + Twine(hi) + ")" +
          (spec.range ? " (the argument's prec.range)" : ""));
    writeInteger(spec, data, i, value);
  }
  return llvm::Error::success();
}

llvm::Error initializeArgument(const EntrySignature &signature,
                               const ArgumentPlan &plan, unsigned index,
                               int32_t rank, void *data) {
  const ValueSpec &spec = signature.arguments[index];
  if (!spec.isBuffer) {
    auto it = plan.scalars.find(index);
    if (it == plan.scalars.end())
      return makeError(describeArgument(signature, index) +
                       " is a scalar: give it with --scalar " + spec.name +
                       "=VALUE");
    std::memcpy(data, &it->second, sizeof(it->second));
    return llvm::Error::success();
  }
  if (plan.zeros.count(index)) {
    std::memset(data, 0, spec.bytes());
    return llvm::Error::success();
  }
  if (plan.checkpoint &&
      (plan.checkpoint->fills(index) || plan.checkpoint->zeroes(index))) {
    plan.checkpoint->initializeArgument(rank, index, data);
    return llvm::Error::success();
  }
  if (plan.data.count(index))
    return readStepData(signature, plan, index, /*step=*/0, rank, data);
  if (auto it = plan.files.find(index); it != plan.files.end()) {
    std::string path = substituteRank(it->second, rank);
    std::string error;
    if (failed(checkArgumentFile(spec, index, path, error)))
      return makeError(error);
    std::ifstream in(path, std::ios::binary);
    in.read(static_cast<char *>(data), spec.bytes());
    if (!in)
      return makeError("cannot read " + path + " for argument " +
                       llvm::Twine(index));
    return checkIntegerValues(spec, data,
                              path + " for " + describeArgument(signature,
                                                                index));
  }
  // A tensor's `prec.default` (optimizer state: zeros) wins over the
  // generator.
  if (!spec.defaultValue.empty()) {
    for (int64_t i = 0, e = spec.numElements(); i < e; ++i) {
      if (isIntegerKind(spec.element))
        writeInteger(spec, data, i, std::stoll(spec.defaultValue));
      else
        writeElement(spec, data, i, std::stod(spec.defaultValue));
    }
    return llvm::Error::success();
  }
  generateArgument(spec, plan.seed, index, rank, plan.replicated.count(index),
                   data);
  return llvm::Error::success();
}

llvm::Error writeRaw(const std::string &path, const void *data, size_t bytes) {
  std::error_code code;
  llvm::raw_fd_ostream out(path, code);
  if (!code) {
    out.write(static_cast<const char *>(data), bytes);
    out.close();
    code = out.error();
    // An error left set would be fatal when the stream is destroyed.
    out.clear_error();
  }
  if (code)
    return makeError("cannot write " + path + ": " + code.message());
  return llvm::Error::success();
}

LogicalResult checkMemory(const EntrySignature &signature,
                          int64_t ranksInProcess) {
  uint64_t limit;
  std::string limitName;
  if (!maxMemory.empty()) {
    std::optional<uint64_t> parsed = parseByteSize(maxMemory);
    if (!parsed) {
      llvm::errs() << "prec-run: error: expected --max-memory as bytes with "
                      "an optional K, M, G or T suffix, got '"
                   << maxMemory << "'\n";
      return failure();
    }
    limit = *parsed;
    limitName = "--max-memory " + maxMemory;
  } else {
    long pages = sysconf(_SC_PHYS_PAGES), pageSize = sysconf(_SC_PAGESIZE);
    if (pages <= 0 || pageSize <= 0)
      return success(); // Unknown: nothing to compare with.
    limit = static_cast<uint64_t>(pages) * static_cast<uint64_t>(pageSize);
    limitName = "the machine's memory; --max-memory changes the limit";
  }
  // Each spec is at most 2^48 bytes and there are at most a few thousand of
  // them per rank, so the sum cannot overflow; the product is checked.
  uint64_t perRank = 0;
  for (const ValueSpec &spec : signature.arguments)
    perRank += spec.isBuffer ? spec.bytes() : 8;
  for (const ValueSpec &spec : signature.results)
    perRank += spec.isBuffer ? spec.bytes() : 8;
  auto ranks = static_cast<uint64_t>(ranksInProcess);
  if (ranks == 0 || perRank <= limit / ranks)
    return success();
  llvm::errs() << "prec-run: error: the arguments and results of "
               << ranksInProcess << " rank(s) in this process take " << perRank
               << " bytes each, more than " << limit << " bytes (" << limitName
               << ")\n";
  return failure();
}

} // namespace prec_run
