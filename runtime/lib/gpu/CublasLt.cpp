//===- CublasLt.cpp - cuBLASLt, loaded at run time ------------------------===//

#include "gpu/CublasLt.h"

#include "core/DynamicLibrary.h"
#include "core/Error.h"

#include <cstdlib>
#include <memory>
#include <string>

namespace precrt {
namespace cublaslt {
namespace {

struct LoadResult {
  CublasLtApi api{};
  bool loaded = false;
  std::string failure;
};

std::string versionText(size_t code) {
  return std::to_string(code / 10000) + "." + std::to_string(code / 100 % 100) +
         "." + std::to_string(code % 100);
}

LoadResult load() {
  LoadResult result;
  // CUDA 13's soname first, then CUDA 12's (PyTorch's wheels ship either);
  // PRECRT_CUBLASLT_LIBRARY names one path and nothing else is tried.
  auto library = std::make_unique<DynamicLibrary>(
      "cuBLASLt", "PRECRT_CUBLASLT_LIBRARY", "libcublasLt.so.13");
  const char *path = std::getenv("PRECRT_CUBLASLT_LIBRARY");
  if (!library->isOpen() && !(path && *path)) {
    auto older = std::make_unique<DynamicLibrary>(
        "cuBLASLt", "PRECRT_CUBLASLT_LIBRARY", "libcublasLt.so.12");
    if (older->isOpen())
      library = std::move(older);
  }
  CublasLtApi &api = result.api;
  if (!library->resolve("cublasLtGetVersion", &api.cublasLtGetVersion)) {
    result.failure = library->failure() +
                     (path && *path ? "" : " (nor libcublasLt.so.12)") +
                     "; set PRECRT_CUBLASLT_LIBRARY to its path, or lower "
                     "with gemm-contractions=false to run contractions as "
                     "loop kernels";
    return result;
  }
  api.version = api.cublasLtGetVersion();
  if (api.version < kMinimumVersion) {
    library->refuse("version " + versionText(api.version) +
                    " is older than the " + versionText(kMinimumVersion) +
                    " precrt needs");
    result.failure = library->failure();
    return result;
  }
  result.loaded = library->resolve("cublasLtGetStatusString",
                                   &api.cublasLtGetStatusString) &&
                  library->resolve("cublasLtCreate", &api.cublasLtCreate) &&
                  library->resolve("cublasLtDestroy", &api.cublasLtDestroy) &&
                  library->resolve("cublasLtMatmulDescCreate",
                                   &api.cublasLtMatmulDescCreate) &&
                  library->resolve("cublasLtMatmulDescDestroy",
                                   &api.cublasLtMatmulDescDestroy) &&
                  library->resolve("cublasLtMatmulDescSetAttribute",
                                   &api.cublasLtMatmulDescSetAttribute) &&
                  library->resolve("cublasLtMatrixLayoutCreate",
                                   &api.cublasLtMatrixLayoutCreate) &&
                  library->resolve("cublasLtMatrixLayoutDestroy",
                                   &api.cublasLtMatrixLayoutDestroy) &&
                  library->resolve("cublasLtMatrixLayoutSetAttribute",
                                   &api.cublasLtMatrixLayoutSetAttribute) &&
                  library->resolve("cublasLtMatmulPreferenceCreate",
                                   &api.cublasLtMatmulPreferenceCreate) &&
                  library->resolve("cublasLtMatmulPreferenceDestroy",
                                   &api.cublasLtMatmulPreferenceDestroy) &&
                  library->resolve("cublasLtMatmulPreferenceSetAttribute",
                                   &api.cublasLtMatmulPreferenceSetAttribute) &&
                  library->resolve("cublasLtMatmulAlgoGetHeuristic",
                                   &api.cublasLtMatmulAlgoGetHeuristic) &&
                  library->resolve("cublasLtMatmul", &api.cublasLtMatmul);
  if (!result.loaded)
    result.failure = library->failure();
  return result;
}

} // namespace

const CublasLtApi *library() {
  static const LoadResult loaded = load();
  if (!loaded.loaded) {
    fail(PRECRT_ERROR_UNAVAILABLE, "%s", loaded.failure.c_str());
    return nullptr;
  }
  return &loaded.api;
}

} // namespace cublaslt
} // namespace precrt
