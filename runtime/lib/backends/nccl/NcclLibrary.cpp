//===- NcclLibrary.cpp - NCCL, loaded at run time -------------------------===//

#include "backends/nccl/NcclLibrary.h"

#include "core/Error.h"

#include <cstdlib>
#include <dlfcn.h>
#include <string>

namespace precrt {
namespace nccl {
namespace {

struct LoadResult {
  NcclApi api{};
  bool loaded = false;
  std::string failure;
};

template <typename Function>
bool resolve(void *library, const char *name, Function *slot,
             std::string *failure) {
  *slot = reinterpret_cast<Function>(dlsym(library, name));
  if (!*slot)
    *failure = std::string("NCCL unavailable: the library lacks ") + name;
  return *slot != nullptr;
}

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
  const char *path = std::getenv("PRECRT_NCCL_LIBRARY");
  if (!path || !*path)
    path = "libnccl.so.2";
  void *handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char *reason = dlerror();
    result.failure = std::string("NCCL unavailable: cannot load ") + path +
                     " (" + (reason ? reason : "unknown reason") +
                     "); set PRECRT_NCCL_LIBRARY to its path";
    return result;
  }
  NcclApi &api = result.api;
  std::string &failure = result.failure;
  if (!resolve(handle, "ncclGetVersion", &api.ncclGetVersion, &failure))
    return result;
  if (api.ncclGetVersion(&api.version) != ncclSuccess ||
      api.version < kMinimumVersion) {
    failure = "NCCL unavailable: version " + versionText(api.version) +
              " is older than the " + versionText(kMinimumVersion) +
              " precrt needs";
    return result;
  }
  bool ok =
      resolve(handle, "ncclGetErrorString", &api.ncclGetErrorString,
              &failure) &&
      resolve(handle, "ncclGetLastError", &api.ncclGetLastError, &failure) &&
      resolve(handle, "ncclGetUniqueId", &api.ncclGetUniqueId, &failure) &&
      resolve(handle, "ncclCommInitRank", &api.ncclCommInitRank, &failure) &&
      resolve(handle, "ncclCommSplit", &api.ncclCommSplit, &failure) &&
      resolve(handle, "ncclCommDestroy", &api.ncclCommDestroy, &failure) &&
      resolve(handle, "ncclCommAbort", &api.ncclCommAbort, &failure) &&
      resolve(handle, "ncclCommGetAsyncError", &api.ncclCommGetAsyncError,
              &failure) &&
      resolve(handle, "ncclAllGather", &api.ncclAllGather, &failure) &&
      resolve(handle, "ncclReduceScatter", &api.ncclReduceScatter,
              &failure) &&
      resolve(handle, "ncclAllReduce", &api.ncclAllReduce, &failure) &&
      resolve(handle, "ncclBroadcast", &api.ncclBroadcast, &failure) &&
      resolve(handle, "ncclSend", &api.ncclSend, &failure) &&
      resolve(handle, "ncclRecv", &api.ncclRecv, &failure) &&
      resolve(handle, "ncclGroupStart", &api.ncclGroupStart, &failure) &&
      resolve(handle, "ncclGroupEnd", &api.ncclGroupEnd, &failure);
  result.loaded = ok;
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
