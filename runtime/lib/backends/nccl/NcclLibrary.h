//===- NcclLibrary.h - NCCL, loaded at run time -----------------*- C++ -*-===//
//
// precrt never links NCCL: libnccl.so.2 is opened with dlopen (its version
// checked before anything else is resolved), as IREE's
// nccl_dynamic_symbols.h does. The handful of NCCL types used are declared
// here with the values of nccl.h, so the library builds without NCCL.
//
//===----------------------------------------------------------------------===//

#ifndef PRECRT_LIB_BACKENDS_NCCL_NCCLLIBRARY_H
#define PRECRT_LIB_BACKENDS_NCCL_NCCLLIBRARY_H

#include "gpu/CudaDriver.h"
#include "precrt/precrt.h"

#include <cstddef>

namespace precrt {
namespace nccl {

using ncclResult_t = int;
using ncclDataType_t = int;
using ncclRedOp_t = int;
using ncclComm_t = struct ncclComm *;
/// cudaStream_t and CUstream are the same type.
using cudaStream_t = cuda::CUstream;
struct ncclUniqueId {
  char internal[128];
};

constexpr ncclResult_t ncclSuccess = 0;
constexpr ncclResult_t ncclInProgress = 7;

constexpr ncclDataType_t ncclUint8 = 1;
constexpr ncclDataType_t ncclFloat16 = 6;
constexpr ncclDataType_t ncclFloat32 = 7;
constexpr ncclDataType_t ncclFloat64 = 8;
constexpr ncclDataType_t ncclBfloat16 = 9;
constexpr ncclDataType_t ncclFloat8e4m3 = 10;
constexpr ncclDataType_t ncclFloat8e5m2 = 11;

constexpr ncclRedOp_t ncclSum = 0;
constexpr ncclRedOp_t ncclMax = 2;
constexpr ncclRedOp_t ncclMin = 3;
constexpr ncclRedOp_t ncclAvg = 4;

/// ncclConfig_t as of NCCL 2.18. NCCL reads `size` and `version` first and
/// accepts the layouts of older versions.
struct ncclConfig {
  size_t size;
  unsigned magic;
  unsigned version;
  int blocking;
  int cgaClusterSize;
  int minCTAs;
  int maxCTAs;
  const char *netName;
  int splitShare;
};
constexpr unsigned ncclConfigMagic = 0xcafebeef;
/// NCCL_CONFIG_UNDEF_INT: NCCL's default for the field.
constexpr int ncclConfigUndefined = -2147483647 - 1;

/// ncclCommSplit arrived in NCCL 2.18; fp8 types in 2.24.
constexpr int kMinimumVersion = 21800;
constexpr int kFloat8Version = 22400;

struct NcclApi {
  ncclResult_t (*ncclGetVersion)(int *);
  const char *(*ncclGetErrorString)(ncclResult_t);
  const char *(*ncclGetLastError)(ncclComm_t);
  ncclResult_t (*ncclGetUniqueId)(ncclUniqueId *);
  ncclResult_t (*ncclCommInitRank)(ncclComm_t *, int, ncclUniqueId, int);
  ncclResult_t (*ncclCommInitRankConfig)(ncclComm_t *, int, ncclUniqueId, int,
                                         ncclConfig *);
  ncclResult_t (*ncclCommSplit)(ncclComm_t, int, int, ncclComm_t *,
                                ncclConfig *);
  ncclResult_t (*ncclCommDestroy)(ncclComm_t);
  ncclResult_t (*ncclCommAbort)(ncclComm_t);
  ncclResult_t (*ncclCommGetAsyncError)(ncclComm_t, ncclResult_t *);
  ncclResult_t (*ncclAllGather)(const void *, void *, size_t, ncclDataType_t,
                                ncclComm_t, cudaStream_t);
  ncclResult_t (*ncclReduceScatter)(const void *, void *, size_t,
                                    ncclDataType_t, ncclRedOp_t, ncclComm_t,
                                    cudaStream_t);
  ncclResult_t (*ncclAllReduce)(const void *, void *, size_t, ncclDataType_t,
                                ncclRedOp_t, ncclComm_t, cudaStream_t);
  ncclResult_t (*ncclBroadcast)(const void *, void *, size_t, ncclDataType_t,
                                int, ncclComm_t, cudaStream_t);
  ncclResult_t (*ncclSend)(const void *, size_t, ncclDataType_t, int,
                           ncclComm_t, cudaStream_t);
  ncclResult_t (*ncclRecv)(void *, size_t, ncclDataType_t, int, ncclComm_t,
                           cudaStream_t);
  ncclResult_t (*ncclGroupStart)();
  ncclResult_t (*ncclGroupEnd)();

  int version;
};

/// The loaded library, or nullptr with the reason as the calling thread's
/// error (PRECRT_ERROR_UNAVAILABLE). PRECRT_NCCL_LIBRARY overrides the path.
const NcclApi *library();

} // namespace nccl
} // namespace precrt

#endif // PRECRT_LIB_BACKENDS_NCCL_NCCLLIBRARY_H
