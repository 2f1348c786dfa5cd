//===- NcclLibrary.cpp - NCCL, loaded at run time -------------------------===//

#include "backends/nccl/NcclLibrary.h"

#include "core/DynamicLibrary.h"
#include "core/Error.h"

#include <string>

namespace precrt {
namespace nccl {
namespace {

struct LoadResult {
  NcclApi api{};
  bool loaded = false;
  std::string failure;
};

std::string versionText(int code) {
  // NCCL_VERSION: major * 10000 + minor * 100 + patch since 2.9, major * 1000
  // + minor * 100 + patch before.
  int major = code >= 10000 ? code / 10000 : code / 1000;
  int minor = code >= 10000 ? code / 100 % 100 : code / 100 % 10;
  return std::to_string(major) + "." + std::to_string(minor) + "." +
         std::to_string(code % 100);
}

LoadResult load() {
  LoadResult result;
  DynamicLibrary library("NCCL", "PRECRT_NCCL_LIBRARY", "libnccl.so.2");
  NcclApi &api = result.api;
  // The version first: an older NCCL may lack later entry points.
  if (!library.resolve("ncclGetVersion", &api.ncclGetVersion)) {
    result.failure = library.failure() + "; set PRECRT_NCCL_LIBRARY to its path";
    return result;
  }
  if (api.ncclGetVersion(&api.version) != ncclSuccess ||
      api.version < kMinimumVersion) {
    library.refuse("version " + versionText(api.version) +
                   " is older than the " + versionText(kMinimumVersion) +
                   " precrt needs");
    result.failure = library.failure();
    return result;
  }
  result.loaded =
      library.resolve("ncclGetErrorString", &api.ncclGetErrorString) &&
      library.resolve("ncclGetLastError", &api.ncclGetLastError) &&
      library.resolve("ncclGetUniqueId", &api.ncclGetUniqueId) &&
      library.resolve("ncclCommInitRank", &api.ncclCommInitRank) &&
      library.resolve("ncclCommInitRankConfig", &api.ncclCommInitRankConfig) &&
      library.resolve("ncclCommSplit", &api.ncclCommSplit) &&
      library.resolve("ncclCommDestroy", &api.ncclCommDestroy) &&
      library.resolve("ncclCommAbort", &api.ncclCommAbort) &&
      library.resolve("ncclCommGetAsyncError", &api.ncclCommGetAsyncError) &&
      library.resolve("ncclAllGather", &api.ncclAllGather) &&
      library.resolve("ncclReduceScatter", &api.ncclReduceScatter) &&
      library.resolve("ncclAllReduce", &api.ncclAllReduce) &&
      library.resolve("ncclBroadcast", &api.ncclBroadcast) &&
      library.resolve("ncclSend", &api.ncclSend) &&
      library.resolve("ncclRecv", &api.ncclRecv) &&
      library.resolve("ncclGroupStart", &api.ncclGroupStart) &&
      library.resolve("ncclGroupEnd", &api.ncclGroupEnd);
  if (!result.loaded)
    result.failure = library.failure();
  return result;
}

} // namespace

const NcclApi *library() {
  static const LoadResult loaded = load();
  if (!loaded.loaded) {
    fail(PRECRT_ERROR_UNAVAILABLE, "%s", loaded.failure.c_str());
    return nullptr;
  }
  return &loaded.api;
}

} // namespace nccl
} // namespace precrt
