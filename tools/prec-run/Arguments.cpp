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
#include <optional>
#include <unistd.h>

using namespace mlir;
using namespace mlir::prec;

namespace prec_run {
namespace {

llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

std::string substituteRank(StringRef pattern, int32_t rank) {
  std::string result;
  for (size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] == '%' && i + 1 < pattern.size() && pattern[i + 1] == 'r') {
      result += std::to_string(rank);
      ++i;
    } else {
      result += pattern[i];
    }
  }
  return result;
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
    if (spec.defaultValue.empty())
      return fail(describe(i) + " is a scalar: give it with --scalar " +
                  spec.name + "=VALUE");
    std::string problem;
    if (failed(parseScalar(spec, spec.defaultValue, plan.scalars[i], problem)))
      return fail(describe(i) + ": its prec.default: " + problem + ", got '" +
                  spec.defaultValue + "'");
  }
  return success();
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
