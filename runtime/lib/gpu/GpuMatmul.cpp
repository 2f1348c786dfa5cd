//===- GpuMatmul.cpp - Contractions of GPU code through cuBLASLt ----------===//
//
// cuBLASLt is column-major: a matrix is `rows x cols` with element (i, j) at
// i + j * ld. prec's operands come with a row and a column stride each, so
// every operand is described as a column-major matrix or the transpose of
// one (whichever has the unit stride), and a row-major C is computed as
// C^T = B^T A^T. Products and sums are f32 (CUBLAS_COMPUTE_32F, never TF32),
// split-K partial sums too (the reduction schemes that sum in a bf16 or f16
// output are excluded), and C is read and written once: D = 1 * A B + 1 * C
// in f32, rounded to C's type at the end. A program's #prec.reduced_precision
// relaxes the first two (TF32, partial sums in C's type), nothing else. fp8
// A and B go to cuBLASLt's fp8 gemm with their scales: the fp8 products are
// exact in f32, and the scales multiply the sum.
//
//===----------------------------------------------------------------------===//

#include "gpu/GpuMatmul.h"

#include "core/Error.h"
#include "gpu/CublasLt.h"
#include "gpu/GpuContext.h"
#include "precrt/compiled.h"

#include <algorithm>
#include <deque>
#include <iterator>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>

namespace precrt {
namespace cuda {
namespace {

using namespace cublaslt;

/// Workspace for split-K and stream-K kernels: 32 MiB, what NVIDIA
/// recommends for Hopper.
constexpr size_t kWorkspaceBytes = size_t(32) << 20;

/// A cuBLASLt handle and its workspace on one device, created on the first
/// gemm there and kept for the life of the process. One rank drives a
/// device, so one workspace per device is never used by two streams at once.
struct DeviceGemm {
  cublasLtHandle_t handle = nullptr;
  CUdeviceptr workspace = 0;
};

std::mutex devicesMutex;
std::map<int, DeviceGemm> devices;

precrt_status_t cublasFailure(const CublasLtApi &api, cublasStatus_t status,
                              const char *what) {
  const char *text = api.cublasLtGetStatusString(status);
  return fail(PRECRT_ERROR_BACKEND, "cuBLASLt: %s failed: %s (%d)", what,
              text ? text : "unknown status", status);
}

precrt_status_t deviceGemm(const CublasLtApi &api, ScopedContext &scope,
                           DeviceGemm *result) {
  std::lock_guard<std::mutex> lock(devicesMutex);
  int device = currentDevice();
  auto found = devices.find(device);
  if (found != devices.end()) {
    *result = found->second;
    return PRECRT_SUCCESS;
  }
  DeviceGemm created;
  if (cublasStatus_t status = api.cublasLtCreate(&created.handle))
    return cublasFailure(api, status, "cublasLtCreate");
  if (CUresult status =
          scope.api().cuMemAlloc(&created.workspace, kWorkspaceBytes)) {
    // The next gemm on the device tries again, with a handle of its own.
    api.cublasLtDestroy(created.handle);
    return driverFailure(scope.api(), status,
                         "cuMemAlloc of the gemm workspace");
  }
  devices[device] = created;
  *result = created;
  return PRECRT_SUCCESS;
}

int dataType(precrt_dtype_t dtype) {
  switch (dtype) {
  case PRECRT_DTYPE_F32:
    return CUDA_R_32F;
  case PRECRT_DTYPE_BF16:
    return CUDA_R_16BF;
  case PRECRT_DTYPE_F16:
    return CUDA_R_16F;
  case PRECRT_DTYPE_F8E4M3FN:
    return CUDA_R_8F_E4M3;
  case PRECRT_DTYPE_F8E5M2:
    return CUDA_R_8F_E5M2;
  default:
    return -1;
  }
}

bool isFp8(precrt_dtype_t dtype) {
  return dtype == PRECRT_DTYPE_F8E4M3FN || dtype == PRECRT_DTYPE_F8E5M2;
}

/// cuBLASLt's fp8 gemms need compute capability 8.9 (Ada) or later.
precrt_status_t checkFp8Device(ScopedContext &scope) {
  const DriverApi &api = scope.api();
  CUdevice device;
  if (CUresult status = api.cuDeviceGet(&device, currentDevice()))
    return driverFailure(api, status, "cuDeviceGet");
  int major = 0, minor = 0;
  if (CUresult status = api.cuDeviceGetAttribute(
          &major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device))
    return driverFailure(api, status, "cuDeviceGetAttribute");
  if (CUresult status = api.cuDeviceGetAttribute(
          &minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device))
    return driverFailure(api, status, "cuDeviceGetAttribute");
  if (major * 10 + minor >= 89)
    return PRECRT_SUCCESS;
  return fail(PRECRT_ERROR_INVALID_ARGUMENT,
              "GPU gemm of fp8 operands on a device of compute capability "
              "%d.%d: cuBLASLt's fp8 gemm needs 8.9 or later (lowered for "
              "the device's chip, prec-lower-to-cuda{chip=sm_%d%d}, fp8 "
              "operands are widened first)",
              major, minor, major, minor);
}

/// The largest power of two, at most 256, that divides `pointer`'s address:
/// cuBLASLt's heuristic assumes 256-byte aligned operands unless told, and a
/// view into a buffer starts anywhere.
uint32_t alignment(const void *pointer) {
  auto address = reinterpret_cast<uintptr_t>(pointer);
  uint32_t bytes = 256;
  while (bytes > 1 && address % bytes != 0)
    bytes /= 2;
  return bytes;
}

/// A logical matrix: `rows x cols`, element (i, j) at
/// data + batch * batchStride + i * rowStride + j * colStride.
struct Logical {
  precrt_dtype_t dtype;
  const void *data;
  int64_t rows, cols, batchStride, rowStride, colStride;

  Logical transposed() const {
    return {dtype, data, cols, rows, batchStride, colStride, rowStride};
  }
};

/// The matrix as cuBLASLt takes it: a column-major `rows x cols` matrix
/// with leading dimension `ld`, read as it is or transposed.
struct Described {
  int32_t op;
  uint64_t rows, cols;
  int64_t ld;
};

/// Column-major with leading dimension `ld` (element (i, j) at i + j * ld)
/// when the rows are contiguous; the stride of a dimension of one element
/// is free.
bool asColumnMajor(const Logical &x, uint64_t *rows, uint64_t *cols,
                   int64_t *ld) {
  if (x.rows > 1 && x.rowStride != 1)
    return false;
  int64_t leading = x.cols > 1 ? x.colStride : std::max<int64_t>(x.rows, 1);
  if (leading < std::max<int64_t>(x.rows, 1))
    return false;
  *rows = uint64_t(x.rows);
  *cols = uint64_t(x.cols);
  *ld = leading;
  return true;
}

bool describe(const Logical &x, Described *described) {
  if (asColumnMajor(x, &described->rows, &described->cols, &described->ld)) {
    described->op = CUBLAS_OP_N;
    return true;
  }
  if (asColumnMajor(x.transposed(), &described->rows, &described->cols,
                    &described->ld)) {
    described->op = CUBLAS_OP_T;
    return true;
  }
  return false;
}

/// A gemm's descriptors and the algorithm cuBLASLt's heuristic chose for
/// them, destroyed with the plan whatever the exit.
struct Plan {
  const CublasLtApi &api;
  cublasLtMatmulDesc_t matmul = nullptr;
  cublasLtMatrixLayout_t layouts[3] = {};
  cublasLtMatmulPreference_t preference = nullptr;
  cublasLtMatmulAlgo_t algo{};
  bool found = false;
  explicit Plan(const CublasLtApi &api) : api(api) {}
  Plan(const Plan &) = delete;
  Plan &operator=(const Plan &) = delete;
  ~Plan() {
    for (cublasLtMatrixLayout_t layout : layouts)
      if (layout)
        api.cublasLtMatrixLayoutDestroy(layout);
    if (matmul)
      api.cublasLtMatmulDescDestroy(matmul);
    if (preference)
      api.cublasLtMatmulPreferenceDestroy(preference);
  }
};

/// Everything a plan depends on: the device's handle, the compute type,
/// the transposes, each matrix's dtype and layout, the batch, the allowed
/// split-K reductions and the operands' alignments. fp8 scale pointers are
/// not in it: they are set on the plan's descriptor at each call.
struct PlanKey {
  cublasLtHandle_t handle;
  int32_t computeType, fp8, ops[2], dtypes[3];
  uint64_t rows[3], cols[3];
  int64_t ld[3], batchStride[3];
  int32_t batch;
  uint32_t reductions, alignments[4];
  bool operator==(const PlanKey &o) const {
    auto same = [](const auto &x, const auto &y) {
      return std::equal(std::begin(x), std::end(x), std::begin(y));
    };
    return handle == o.handle && computeType == o.computeType &&
           fp8 == o.fp8 && same(ops, o.ops) && same(dtypes, o.dtypes) &&
           same(rows, o.rows) && same(cols, o.cols) && same(ld, o.ld) &&
           same(batchStride, o.batchStride) && batch == o.batch &&
           reductions == o.reductions && same(alignments, o.alignments);
  }
};

/// A rank's plans (one thread drives one device): a step calls the same few
/// gemms at every step, and creating descriptors and asking the heuristic
/// cost more than a small gemm itself. Bounded, oldest out first, for
/// programs that call many shapes.
struct PlanCache {
  static constexpr size_t kMaxPlans = 256;
  std::deque<std::pair<PlanKey, std::unique_ptr<Plan>>> plans;
  Plan *find(const PlanKey &key) {
    for (auto &[planKey, plan] : plans)
      if (planKey == key)
        return plan.get();
    return nullptr;
  }
  Plan *add(const PlanKey &key, std::unique_ptr<Plan> plan) {
    if (plans.size() == kMaxPlans)
      plans.pop_front();
    plans.emplace_back(key, std::move(plan));
    return plans.back().second.get();
  }
};
thread_local PlanCache planCache;

/// Sets this call's fp8 scale pointers on a plan's descriptor.
precrt_status_t setScales(const CublasLtApi &api, Plan &plan,
                          const void *xScale, const void *yScale) {
  const void *scales[2] = {xScale, yScale};
  int attributes[2] = {CUBLASLT_MATMUL_DESC_A_SCALE_POINTER,
                       CUBLASLT_MATMUL_DESC_B_SCALE_POINTER};
  for (int i = 0; i < 2; ++i)
    if (cublasStatus_t status = api.cublasLtMatmulDescSetAttribute(
            plan.matmul, attributes[i], &scales[i], sizeof(scales[i])))
      return cublasFailure(api, status, "cublasLtMatmulDescSetAttribute");
  return PRECRT_SUCCESS;
}

/// Creates `key`'s descriptors and asks the heuristic for an algorithm
/// (for fp8, with the first call's scales in place).
precrt_status_t makePlan(const CublasLtApi &api, const DeviceGemm &gemm,
                         const PlanKey &key, const void *xScale,
                         const void *yScale, Plan &plan) {
  auto check = [&](cublasStatus_t status, const char *what) {
    return status == CUBLAS_STATUS_SUCCESS ? PRECRT_SUCCESS
                                           : cublasFailure(api, status, what);
  };
  if (precrt_status_t status =
          check(api.cublasLtMatmulDescCreate(
                    &plan.matmul, cublasComputeType_t(key.computeType),
                    CUDA_R_32F),
                "cublasLtMatmulDescCreate"))
    return status;
  int attributes[2] = {CUBLASLT_MATMUL_DESC_TRANSA,
                       CUBLASLT_MATMUL_DESC_TRANSB};
  for (int i = 0; i < 2; ++i)
    if (precrt_status_t status = check(
            api.cublasLtMatmulDescSetAttribute(plan.matmul, attributes[i],
                                               &key.ops[i], sizeof(int32_t)),
            "cublasLtMatmulDescSetAttribute"))
      return status;
  if (key.fp8) {
    // The scales multiply the f32 sum of the fp8 products (D = alpha *
    // scaleA * scaleB * A B + beta * C), which cuBLASLt promotes to f32
    // periodically unless fast accumulation is on: it stays off. The scale
    // pointers are set again at each call.
    int8_t fastAccumulation = 0;
    if (precrt_status_t status =
            check(api.cublasLtMatmulDescSetAttribute(
                      plan.matmul, CUBLASLT_MATMUL_DESC_FAST_ACCUM,
                      &fastAccumulation, sizeof(fastAccumulation)),
                  "cublasLtMatmulDescSetAttribute"))
      return status;
    if (precrt_status_t status = setScales(api, plan, xScale, yScale))
      return status;
  }
  for (int i = 0; i < 3; ++i) {
    if (precrt_status_t status =
            check(api.cublasLtMatrixLayoutCreate(
                      &plan.layouts[i],
                      dataType(precrt_dtype_t(key.dtypes[i])), key.rows[i],
                      key.cols[i], key.ld[i]),
                  "cublasLtMatrixLayoutCreate"))
      return status;
    if (key.batch == 1)
      continue;
    if (precrt_status_t status = check(api.cublasLtMatrixLayoutSetAttribute(
                                           plan.layouts[i],
                                           CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT,
                                           &key.batch, sizeof(key.batch)),
                                       "cublasLtMatrixLayoutSetAttribute"))
      return status;
    if (precrt_status_t status =
            check(api.cublasLtMatrixLayoutSetAttribute(
                      plan.layouts[i],
                      CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET,
                      &key.batchStride[i], sizeof(int64_t)),
                  "cublasLtMatrixLayoutSetAttribute"))
      return status;
  }
  uint64_t workspaceBytes = kWorkspaceBytes;
  if (precrt_status_t status =
          check(api.cublasLtMatmulPreferenceCreate(&plan.preference),
                "cublasLtMatmulPreferenceCreate"))
    return status;
  if (precrt_status_t status = check(
          api.cublasLtMatmulPreferenceSetAttribute(
              plan.preference, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
              &workspaceBytes, sizeof(workspaceBytes)),
          "cublasLtMatmulPreferenceSetAttribute"))
    return status;
  if (precrt_status_t status = check(
          api.cublasLtMatmulPreferenceSetAttribute(
              plan.preference, CUBLASLT_MATMUL_PREF_REDUCTION_SCHEME_MASK,
              &key.reductions, sizeof(key.reductions)),
          "cublasLtMatmulPreferenceSetAttribute"))
    return status;
  for (int i = 0; i < 4; ++i)
    if (precrt_status_t status =
            check(api.cublasLtMatmulPreferenceSetAttribute(
                      plan.preference,
                      CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES + i,
                      &key.alignments[i], sizeof(key.alignments[i])),
                  "cublasLtMatmulPreferenceSetAttribute"))
      return status;

  cublasLtMatmulHeuristicResult_t heuristic{};
  int found = 0;
  if (precrt_status_t status = check(
          api.cublasLtMatmulAlgoGetHeuristic(
              gemm.handle, plan.matmul, plan.layouts[0], plan.layouts[1],
              plan.layouts[2], plan.layouts[2], plan.preference, 1, &heuristic,
              &found),
          "cublasLtMatmulAlgoGetHeuristic"))
    return status;
  // No algorithm: no plan, and the caller says for which gemm.
  plan.found = found != 0 && heuristic.state == CUBLAS_STATUS_SUCCESS;
  plan.algo = heuristic.algo;
  return PRECRT_SUCCESS;
}

const char *operandName(int index) {
  static const char *const names[] = {"A", "B", "C"};
  return names[index];
}

} // namespace

precrt_status_t gpuMatmul(int64_t batch, int64_t m, int64_t n, int64_t k,
                          const kernels::MatrixOperand &a,
                          const kernels::MatrixOperand &b,
                          const kernels::MatrixOperand &c, const void *aScale,
                          const void *bScale, int32_t reducedPrecision,
                          void *stream) {
  constexpr int32_t kKnownReducedPrecision =
      PRECRT_REDUCED_PRECISION_TF32 |
      PRECRT_REDUCED_PRECISION_OUTPUT_TYPE_REDUCTION |
      PRECRT_REDUCED_PRECISION_FP8_ACCUMULATION;
  if (reducedPrecision & ~kKnownReducedPrecision)
    return fail(PRECRT_ERROR_INVALID_ARGUMENT,
                "GPU gemm: reduced-precision bits 0x%x are not "
                "precrt_reduced_precision_t values",
                unsigned(reducedPrecision & ~kKnownReducedPrecision));
  if (batch < 0 || m < 0 || n < 0 || k < 0)
    return fail(PRECRT_ERROR_INVALID_ARGUMENT,
                "GPU gemm of negative size %lld x %lld x %lld x %lld",
                (long long)batch, (long long)m, (long long)n, (long long)k);
  bool fp8 = isFp8(a.dtype) || isFp8(b.dtype);
  if (fp8) {
    if (!isFp8(a.dtype) || !isFp8(b.dtype) ||
        (a.dtype == PRECRT_DTYPE_F8E5M2 && b.dtype == PRECRT_DTYPE_F8E5M2) ||
        (c.dtype != PRECRT_DTYPE_F32 && c.dtype != PRECRT_DTYPE_BF16 &&
         c.dtype != PRECRT_DTYPE_F16))
      return fail(PRECRT_ERROR_INVALID_ARGUMENT,
                  "GPU gemm of dtypes %s x %s -> %s: cuBLASLt's fp8 gemm "
                  "takes A and B fp8 (f8E4M3FN or f8E5M2, not both "
                  "f8E5M2) and C f32, bf16 or f16",
                  precrtDtypeName(a.dtype), precrtDtypeName(b.dtype),
                  precrtDtypeName(c.dtype));
    if (!aScale || !bScale)
      return fail(PRECRT_ERROR_INVALID_ARGUMENT,
                  "GPU gemm of fp8 operands without %s scale",
                  !aScale ? "A's" : "B's");
    if (!(reducedPrecision & PRECRT_REDUCED_PRECISION_FP8_ACCUMULATION))
      return fail(PRECRT_ERROR_INVALID_ARGUMENT,
                  "GPU gemm of fp8 operands without the program's "
                  "permission: fp8 tensor cores keep fewer bits than f32 in "
                  "partial sums (#prec.reduced_precision<fp8_accumulation>)");
  } else {
    if (dataType(a.dtype) < 0 || a.dtype != b.dtype ||
        (c.dtype != PRECRT_DTYPE_F32 && c.dtype != a.dtype) ||
        dataType(c.dtype) < 0)
      return fail(PRECRT_ERROR_INVALID_ARGUMENT,
                  "GPU gemm of dtypes %s x %s -> %s: cuBLASLt takes A and B "
                  "of one type (f32, bf16, f16) and C f32 or of their type",
                  precrtDtypeName(a.dtype), precrtDtypeName(b.dtype),
                  precrtDtypeName(c.dtype));
    if (aScale || bScale)
      return fail(PRECRT_ERROR_INVALID_ARGUMENT,
                  "GPU gemm of %s operands with scales (only fp8 operands "
                  "have them)",
                  precrtDtypeName(a.dtype));
  }
  if (!stream)
    return fail(PRECRT_ERROR_INVALID_ARGUMENT,
                "a GPU gemm got no compute stream");
  // C += nothing.
  if (batch == 0 || m == 0 || n == 0 || k == 0)
    return PRECRT_SUCCESS;

  // cuBLASLt computes D = op(X) op(Y) + C with D column-major: C itself
  // when its rows are contiguous, else C^T = B^T A^T.
  Logical logicalA{a.dtype,       a.data,      m,          k,
                   a.batchStride, a.rowStride, a.colStride};
  Logical logicalB{b.dtype,       b.data,      k,          n,
                   b.batchStride, b.rowStride, b.colStride};
  Logical logicalC{c.dtype,       c.data,      m,          n,
                   c.batchStride, c.rowStride, c.colStride};
  Logical x = logicalA, y = logicalB, d = logicalC;
  const void *xScale = aScale, *yScale = bScale;
  uint64_t dRows, dCols;
  int64_t ldd;
  if (!asColumnMajor(d, &dRows, &dCols, &ldd)) {
    x = logicalB.transposed();
    y = logicalA.transposed();
    d = logicalC.transposed();
    std::swap(xScale, yScale);
    if (!asColumnMajor(d, &dRows, &dCols, &ldd))
      return fail(PRECRT_ERROR_INVALID_ARGUMENT,
                  "GPU gemm: C (%lld x %lld, strides %lld, %lld) has no "
                  "contiguous rows or columns",
                  (long long)m, (long long)n, (long long)c.rowStride,
                  (long long)c.colStride);
  }
  Described described[2];
  const Logical *operands[2] = {&x, &y};
  for (int i = 0; i < 2; ++i)
    if (!describe(*operands[i], &described[i]))
      return fail(PRECRT_ERROR_INVALID_ARGUMENT,
                  "GPU gemm: %s (strides %lld, %lld) has no contiguous rows "
                  "or columns",
                  operandName(operands[i]->data == a.data ? 0 : 1),
                  (long long)operands[i]->rowStride,
                  (long long)operands[i]->colStride);
  // cuBLASLt's fp8 kernels take op(X) = X^T and op(Y) = Y ("TN"): A and B
  // each with a unit stride along k.
  if (fp8 && (!asColumnMajor(x.transposed(), &described[0].rows,
                             &described[0].cols, &described[0].ld) ||
              !asColumnMajor(y, &described[1].rows, &described[1].cols,
                             &described[1].ld)))
    return fail(PRECRT_ERROR_INVALID_ARGUMENT,
                "GPU gemm of fp8 operands: A (strides %lld, %lld) and B "
                "(strides %lld, %lld) need a unit stride along k, the "
                "layout of cuBLASLt's fp8 gemm",
                (long long)a.rowStride, (long long)a.colStride,
                (long long)b.rowStride, (long long)b.colStride);
  if (fp8) {
    described[0].op = CUBLAS_OP_T;
    described[1].op = CUBLAS_OP_N;
  }

  const CublasLtApi *api = cublaslt::library();
  if (!api)
    return PRECRT_ERROR_UNAVAILABLE;
  ScopedContext scope;
  if (precrt_status_t status = scope.enter())
    return status;
  if (fp8)
    if (precrt_status_t status = checkFp8Device(scope))
      return status;
  DeviceGemm gemm;
  if (precrt_status_t status = deviceGemm(*api, scope, &gemm))
    return status;

  auto check = [&](cublasStatus_t status, const char *what) {
    return status == CUBLAS_STATUS_SUCCESS ? PRECRT_SUCCESS
                                           : cublasFailure(*api, status, what);
  };
  // TF32 only where the program allows it and the inputs are f32 (a bf16
  // or f16 input has no more bits to drop).
  bool tf32 = (reducedPrecision & PRECRT_REDUCED_PRECISION_TF32) &&
              a.dtype == PRECRT_DTYPE_F32;
  int32_t batchCount = int32_t(batch);
  if (batch > INT32_MAX)
    return fail(PRECRT_ERROR_INVALID_ARGUMENT,
                "GPU gemm: %lld batches, cuBLASLt takes at most %d",
                (long long)batch, INT32_MAX);
  struct {
    precrt_dtype_t dtype;
    uint64_t rows, cols;
    int64_t ld, batchStride;
  } layouts[3] = {{x.dtype, described[0].rows, described[0].cols,
                   described[0].ld, x.batchStride},
                  {y.dtype, described[1].rows, described[1].cols,
                   described[1].ld, y.batchStride},
                  {d.dtype, dRows, dCols, ldd, d.batchStride}};
  // Split-K partial sums in f32 only: a bf16 or f16 D would otherwise
  // take partial sums rounded to its type (INPLACE, OUTPUT_TYPE), which
  // only a program's output_type_reduction allows.
  uint32_t reductions = CUBLASLT_REDUCTION_SCHEME_COMPUTE_TYPE;
  if (c.dtype == PRECRT_DTYPE_F32)
    reductions |= CUBLASLT_REDUCTION_SCHEME_INPLACE;
  else if (reducedPrecision & PRECRT_REDUCED_PRECISION_OUTPUT_TYPE_REDUCTION)
    reductions |= CUBLASLT_REDUCTION_SCHEME_INPLACE |
                  CUBLASLT_REDUCTION_SCHEME_OUTPUT_TYPE;
  // The operands' actual alignments (A, B, C, D).
  const void *pointers[4] = {x.data, y.data, d.data, d.data};

  PlanKey key{};
  key.handle = gemm.handle;
  key.computeType = tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
  key.fp8 = fp8;
  key.ops[0] = described[0].op;
  key.ops[1] = described[1].op;
  for (int i = 0; i < 3; ++i) {
    key.dtypes[i] = layouts[i].dtype;
    key.rows[i] = layouts[i].rows;
    key.cols[i] = layouts[i].cols;
    key.ld[i] = layouts[i].ld;
    key.batchStride[i] = batch == 1 ? 0 : layouts[i].batchStride;
  }
  key.batch = batchCount;
  key.reductions = reductions;
  for (int i = 0; i < 4; ++i)
    key.alignments[i] = alignment(pointers[i]);

  Plan *plan = planCache.find(key);
  if (!plan) {
    auto created = std::make_unique<Plan>(*api);
    if (precrt_status_t status =
            makePlan(*api, gemm, key, xScale, yScale, *created))
      return status;
    if (!created->found)
      return fail(PRECRT_ERROR_BACKEND,
                  "cuBLASLt has no algorithm for a %s x %s -> %s gemm of "
                  "%lld x %lld x %lld (batch %lld) with %s accumulation",
                  precrtDtypeName(a.dtype), precrtDtypeName(b.dtype),
                  precrtDtypeName(c.dtype), (long long)m, (long long)n,
                  (long long)k, (long long)batch, tf32 ? "TF32" : "f32");
    plan = planCache.add(key, std::move(created));
  } else if (fp8) {
    if (precrt_status_t status = setScales(*api, *plan, xScale, yScale))
      return status;
  }

  float one = 1.0f;
  void *out = const_cast<void *>(d.data);
  return check(api->cublasLtMatmul(
                   gemm.handle, plan->matmul, &one, x.data, plan->layouts[0],
                   y.data, plan->layouts[1], &one, out, plan->layouts[2], out,
                   plan->layouts[2], &plan->algo,
                   reinterpret_cast<void *>(uintptr_t(gemm.workspace)),
                   kWorkspaceBytes, static_cast<cudaStream_t>(stream)),
               "cublasLtMatmul");
}

} // namespace cuda
} // namespace precrt
