//===- FakeCublasLt.cpp - cuBLASLt on the host, for tests -----------------===//
//
// A test double of libcublasLt.so with the entry points precrt resolves, for
// the test CUDA driver (FakeCudaDriver.cpp), whose "device" memory is host
// memory. It is strict where prec's contract and cuBLASLt are, and says why
// on stderr ("fake cuBLASLt: ...") when it refuses:
//
// - every call needs a current CUDA context;
// - A, B, C, D and the workspace must lie inside live device allocations of
//   the test driver, over the whole extent their layouts describe;
// - the descriptors must agree: A and B of one type (f32, bf16, f16), C and D
//   of one type (f32 or A's), or fp8 A and B (E4M3 or E5M2, not both E5M2)
//   with C and D f32, bf16 or f16, op(A) rows x op(B) columns equal to D's,
//   op(A) columns equal to op(B) rows, leading dimensions at least the rows,
//   equal batch counts, C and D one layout;
// - the compute type must be CUBLAS_COMPUTE_32F and the scale type
//   CUDA_R_32F: TF32 and the other _FAST_ types round the inputs, which
//   prec's contract does not allow;
// - an algorithm for a bf16 or f16 D must not sum split-K partial results in
//   D's type (the heuristic records the preference's reduction schemes);
// - unless FAKE_CUBLASLT_REDUCED_PRECISION=1 (a test whose program allows
//   #prec.reduced_precision): then CUBLAS_COMPUTE_32F_FAST_TF32 with f32
//   inputs rounds each input to TF32 (10 explicit mantissa bits, to nearest
//   even), and an algorithm that may sum in a bf16 or f16 D splits k in two
//   halves, each summed in f32 and rounded to D's type, then added in it;
// - an fp8 gemm needs what cuBLASLt's does: A transposed and B not ("TN"),
//   leading dimensions of A and B that are multiples of 16, a device of
//   compute capability 8.9 or later (FAKE_CUDA_COMPUTE_CAPABILITY, default
//   9.0, as the test driver reads it) and both scale pointers in device
//   memory; scale pointers with other types are refused;
// - every operand must be aligned as the heuristic was told
//   (CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_*_BYTES, 256 unless set), since the
//   algorithm it picks may rely on it.
//
// The product runs in stream order (fakeCudaEnqueue), in f32: with
// alpha = 1 (prec's calls), each element of D is beta * C plus the products
// in order of k, the loop kernels' order; otherwise alpha * sum + beta * C.
// An fp8 gemm sums the products of the fp8 values (exact in f32) in order
// of k and gives (scaleA * scaleB) * sum + beta * C. D is rounded once to
// its type.
//
// Environment: FAKE_CUBLASLT_VERSION (default 130100, i.e. 13.1.0) is what
// cublasLtGetVersion reports; FAKE_CUBLASLT_LOG=1 prints one line per gemm
// on stderr.
//
//===----------------------------------------------------------------------===//

#include "DriverSymbols.h"
#include "precrt/numerics.h"

#include <algorithm>
#include <atomic>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <link.h>
#include <mutex>
#include <set>
#include <string>
#include <vector>

namespace {

using cublasStatus_t = int;
constexpr cublasStatus_t kSuccess = 0;
constexpr cublasStatus_t kNotInitialized = 1;
constexpr cublasStatus_t kInvalidValue = 7;
constexpr cublasStatus_t kExecutionFailed = 13;
constexpr cublasStatus_t kNotSupported = 15;

constexpr int kR32F = 0, kR16F = 2, kR16BF = 14, kR8FE4M3 = 28, kR8FE5M2 = 29;
constexpr int kCompute32F = 68, kCompute32FFastTF32 = 77;
constexpr int kOpN = 0, kOpT = 1;
constexpr uint32_t kReduceInPlace = 1, kReduceOutputType = 4;
constexpr uint64_t kAlgoMagic = 0xFA4EB1A5;

struct Handle {
  int unused;
};
struct MatmulDesc {
  int computeType, scaleType;
  int32_t transa = kOpN, transb = kOpN;
  const void *aScale = nullptr, *bScale = nullptr;
};
struct Layout {
  int type;
  uint64_t rows, cols;
  int64_t ld;
  int32_t order = 0;
  int32_t batchCount = 1;
  int64_t batchStride = 0;
};
struct Preference {
  uint64_t maxWorkspace = 0;
  uint32_t reductionMask = 0x7;
  /// CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_{A,B,C,D}_BYTES.
  uint32_t alignment[4] = {256, 256, 256, 256};
};

/// Every object the double hands out, freed when it is unloaded if the
/// caller has not destroyed it: precrt keeps a handle per device for the
/// life of the process, and tests stop midway on purpose.
template <typename T> struct Owned {
  std::mutex mutex;
  std::set<T *> live;
  T *add(T *object) {
    std::lock_guard<std::mutex> lock(mutex);
    live.insert(object);
    return object;
  }
  void destroy(T *object) {
    {
      std::lock_guard<std::mutex> lock(mutex);
      live.erase(object);
    }
    delete object;
  }
  ~Owned() {
    for (T *object : live)
      delete object;
  }
};
Owned<Handle> ownedHandles;
Owned<MatmulDesc> ownedDescs;
Owned<Layout> ownedLayouts;
Owned<Preference> ownedPreferences;

std::atomic<int> gemms{0};
std::atomic<int> handles{0};
std::atomic<int> heuristicQueries{0};

using precrt_fakes::findDriverSymbol;

template <typename Function> Function driverFunction(const char *name) {
  return reinterpret_cast<Function>(findDriverSymbol(name));
}

cublasStatus_t refuse(cublasStatus_t status, const char *format, ...)
    __attribute__((format(printf, 2, 3)));
/// The latest refusal's message, for tests (fakeCublasLtLastRefusal).
thread_local char lastRefusal[512];

cublasStatus_t refuse(cublasStatus_t status, const char *format, ...) {
  va_list args;
  va_start(args, format);
  std::vsnprintf(lastRefusal, sizeof(lastRefusal), format, args);
  va_end(args);
  std::fprintf(stderr, "fake cuBLASLt: %s\n", lastRefusal);
  return status;
}

bool hasContext(const char *call) {
  auto depth = driverFunction<int (*)()>("fakeCudaThreadContextDepth");
  if (!depth || depth() > 0)
    return true;
  refuse(kNotInitialized, "%s with no current CUDA context", call);
  return false;
}

bool onDevice(const char *what, const void *pointer, size_t bytes) {
  auto check =
      driverFunction<int (*)(const void *, size_t)>("fakeCudaIsDeviceMemory");
  if (!check || check(pointer, bytes))
    return true;
  refuse(kInvalidValue, "%s: %zu bytes at %p are not device memory", what,
         bytes, pointer);
  return false;
}

bool isFp8(int type) { return type == kR8FE4M3 || type == kR8FE5M2; }

size_t typeBytes(int type) {
  return type == kR32F ? 4 : isFp8(type) ? 1 : 2;
}

const char *typeName(int type) {
  switch (type) {
  case kR32F:
    return "CUDA_R_32F";
  case kR16F:
    return "CUDA_R_16F";
  case kR16BF:
    return "CUDA_R_16BF";
  case kR8FE4M3:
    return "CUDA_R_8F_E4M3";
  case kR8FE5M2:
    return "CUDA_R_8F_E5M2";
  default:
    return "an unsupported type";
  }
}

float loadElement(const void *data, int type, int64_t index) {
  using namespace precrt::numerics;
  const char *bytes = static_cast<const char *>(data);
  if (type == kR32F) {
    float value;
    std::memcpy(&value, bytes + 4 * index, 4);
    return value;
  }
  if (isFp8(type))
    return float(decode(uint8_t(bytes[index]),
                        type == kR8FE4M3 ? kF8E4M3FN : kF8E5M2));
  uint16_t bits;
  std::memcpy(&bits, bytes + 2 * index, 2);
  return float(decode(bits, type == kR16F ? kF16 : kBF16));
}

void storeElement(void *data, int type, int64_t index, float value) {
  using namespace precrt::numerics;
  char *bytes = static_cast<char *>(data);
  if (type == kR32F) {
    std::memcpy(bytes + 4 * index, &value, 4);
    return;
  }
  auto bits = uint16_t(encodeNearestEven(value, type == kR16F ? kF16 : kBF16));
  std::memcpy(bytes + 2 * index, &bits, 2);
}

/// Elements a layout spans from its first one.
size_t extent(const Layout &layout) {
  if (layout.rows == 0 || layout.cols == 0)
    return 0;
  return size_t(layout.batchCount - 1) * size_t(layout.batchStride) +
         size_t(layout.cols - 1) * size_t(layout.ld) + layout.rows;
}

/// Whether the test allows what a program's #prec.reduced_precision does.
bool reducedPrecisionAllowed() {
  const char *value = std::getenv("FAKE_CUBLASLT_REDUCED_PRECISION");
  return value && std::strcmp(value, "1") == 0;
}

/// The problem the descriptors describe, checked as cuBLASLt would (and as
/// prec's contract needs).
cublasStatus_t checkProblem(const MatmulDesc &desc, const Layout &a,
                            const Layout &b, const Layout &c, const Layout &d) {
  if (desc.computeType == kCompute32FFastTF32 && reducedPrecisionAllowed()) {
    if (a.type != kR32F || b.type != kR32F)
      return refuse(kNotSupported,
                    "CUBLAS_COMPUTE_32F_FAST_TF32 with %s x %s inputs",
                    typeName(a.type), typeName(b.type));
  } else if (desc.computeType != kCompute32F) {
    return refuse(kNotSupported,
                  "compute type %d is not CUBLAS_COMPUTE_32F (68): TF32 and "
                  "the other reduced-precision compute types round the "
                  "inputs",
                  desc.computeType);
  }
  if (desc.scaleType != kR32F)
    return refuse(kNotSupported, "scale type %s with CUBLAS_COMPUTE_32F",
                  typeName(desc.scaleType));
  for (const Layout *layout : {&a, &b, &c, &d})
    if (layout->type != kR32F && layout->type != kR16F &&
        layout->type != kR16BF &&
        !(isFp8(layout->type) && (layout == &a || layout == &b)))
      return refuse(kNotSupported,
                    "matrix type %d is not one the test "
                    "double computes",
                    layout->type);
  bool fp8 = isFp8(a.type) || isFp8(b.type);
  if (fp8) {
    if (!isFp8(a.type) || !isFp8(b.type) ||
        (a.type == kR8FE5M2 && b.type == kR8FE5M2))
      return refuse(kNotSupported, "fp8 gemm of A %s and B %s",
                    typeName(a.type), typeName(b.type));
    if (c.type != d.type)
      return refuse(kNotSupported, "fp8 gemm with C %s and D %s",
                    typeName(c.type), typeName(d.type));
    if (desc.transa != kOpT || desc.transb != kOpN)
      return refuse(kNotSupported,
                    "fp8 gemm with TRANSA %d and TRANSB %d: cuBLASLt's fp8 "
                    "kernels take A transposed and B not (TN)",
                    desc.transa, desc.transb);
    if (a.ld % 16 != 0 || b.ld % 16 != 0)
      return refuse(kNotSupported,
                    "fp8 gemm with leading dimensions %lld (A) and %lld "
                    "(B): they must be multiples of 16",
                    (long long)a.ld, (long long)b.ld);
    if (!desc.aScale || !desc.bScale)
      return refuse(kInvalidValue, "fp8 gemm without %s scale pointer",
                    !desc.aScale ? "A's" : "B's");
    const char *capability = std::getenv("FAKE_CUDA_COMPUTE_CAPABILITY");
    double version = capability ? std::atof(capability) : 9.0;
    if (version < 8.85)
      return refuse(kNotSupported,
                    "fp8 gemm on a device of compute capability %s (8.9 "
                    "or later has fp8 tensor cores)",
                    capability);
  } else {
    if (a.type != b.type)
      return refuse(kNotSupported, "A is %s and B %s", typeName(a.type),
                    typeName(b.type));
    if (c.type != d.type || (d.type != kR32F && d.type != a.type))
      return refuse(kNotSupported, "A and B %s with C %s and D %s",
                    typeName(a.type), typeName(c.type), typeName(d.type));
  }
  const char *names[] = {"A", "B", "C", "D"};
  const Layout *layouts[] = {&a, &b, &c, &d};
  for (int i = 0; i < 4; ++i) {
    const Layout &layout = *layouts[i];
    if (layout.order != 0)
      return refuse(kNotSupported, "%s: only column-major layouts", names[i]);
    if (layout.ld < int64_t(std::max<uint64_t>(layout.rows, 1)))
      return refuse(kInvalidValue,
                    "%s: leading dimension %lld is less than its %llu rows",
                    names[i], (long long)layout.ld,
                    (unsigned long long)layout.rows);
    if (layout.batchCount != d.batchCount)
      return refuse(kInvalidValue, "%s: batch count %d, D's is %d", names[i],
                    layout.batchCount, d.batchCount);
    if (layout.batchStride < 0)
      return refuse(kNotSupported, "%s: negative batch stride", names[i]);
  }
  if (desc.transa != kOpN && desc.transa != kOpT)
    return refuse(kInvalidValue, "TRANSA %d", desc.transa);
  if (desc.transb != kOpN && desc.transb != kOpT)
    return refuse(kInvalidValue, "TRANSB %d", desc.transb);
  uint64_t aRows = desc.transa == kOpN ? a.rows : a.cols;
  uint64_t aCols = desc.transa == kOpN ? a.cols : a.rows;
  uint64_t bRows = desc.transb == kOpN ? b.rows : b.cols;
  uint64_t bCols = desc.transb == kOpN ? b.cols : b.rows;
  if (aRows != d.rows || bCols != d.cols || aCols != bRows)
    return refuse(kInvalidValue,
                  "op(A) is %llu x %llu and op(B) %llu x %llu for a D of "
                  "%llu x %llu",
                  (unsigned long long)aRows, (unsigned long long)aCols,
                  (unsigned long long)bRows, (unsigned long long)bCols,
                  (unsigned long long)d.rows, (unsigned long long)d.cols);
  if (c.rows != d.rows || c.cols != d.cols)
    return refuse(kInvalidValue, "C is %llu x %llu and D %llu x %llu",
                  (unsigned long long)c.rows, (unsigned long long)c.cols,
                  (unsigned long long)d.rows, (unsigned long long)d.cols);
  if (!fp8 && (desc.aScale || desc.bScale))
    return refuse(kInvalidValue,
                  "A or B scale pointers with %s inputs (fp8 only)",
                  typeName(a.type));
  return kSuccess;
}

/// One gemm, as captured when it was enqueued.
struct Gemm {
  MatmulDesc desc;
  Layout a, b, c, d;
  const void *aData, *bData, *cData;
  void *dData;
  float alpha, beta;
  /// Split-K partial sums in D's type (a bf16 or f16 D whose algorithm
  /// allows it, under FAKE_CUBLASLT_REDUCED_PRECISION=1).
  bool splitInOutputType;
};

/// `value` rounded to TF32: 10 explicit mantissa bits, to nearest even
/// (f32's exponent range, so only the low 13 bits go).
float roundToTf32(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, 4);
  if ((bits & 0x7f800000u) != 0x7f800000u) {
    uint32_t lsb = (bits >> 13) & 1u;
    bits += 0xfffu + lsb;
    bits &= ~0x1fffu;
  }
  std::memcpy(&value, &bits, 4);
  return value;
}

/// `value` rounded to the type of a layout (bf16 or f16), as a float.
float roundTo(int type, float value) {
  uint8_t bytes[4];
  storeElement(bytes, type, 0, value);
  return loadElement(bytes, type, 0);
}

void runGemm(void *data) {
  Gemm *gemm = static_cast<Gemm *>(data);
  const Layout &a = gemm->a, &b = gemm->b, &c = gemm->c, &d = gemm->d;
  uint64_t k = gemm->desc.transa == kOpN ? a.cols : a.rows;
  bool tf32 = gemm->desc.computeType == kCompute32FFastTF32;
  auto input = [&](const void *data, int type, int64_t index) {
    float value = loadElement(data, type, index);
    return tf32 ? roundToTf32(value) : value;
  };
  // The products from `begin` to `end` in order of k, summed in f32 from
  // `sum`.
  auto products = [&](float sum, uint64_t begin, uint64_t end, int64_t aBase,
                      int64_t bBase, uint64_t i, uint64_t j) {
    for (uint64_t p = begin; p < end; ++p) {
      int64_t aIndex = gemm->desc.transa == kOpN ? i + p * a.ld : p + i * a.ld;
      int64_t bIndex = gemm->desc.transb == kOpN ? p + j * b.ld : j + p * b.ld;
      float product = input(gemm->aData, a.type, aBase + aIndex) *
                      input(gemm->bData, b.type, bBase + bIndex);
      sum = sum + product;
    }
    return sum;
  };
  // The scales as they are when the gemm runs, in stream order.
  bool fp8 = isFp8(a.type);
  float scale = 0.0f;
  if (fp8) {
    float aScale, bScale;
    std::memcpy(&aScale, gemm->desc.aScale, 4);
    std::memcpy(&bScale, gemm->desc.bScale, 4);
    scale = aScale * bScale;
  }
  std::vector<float> column(d.rows);
  for (int32_t batch = 0; batch < d.batchCount; ++batch) {
    int64_t aBase = batch * a.batchStride, bBase = batch * b.batchStride;
    int64_t cBase = batch * c.batchStride, dBase = batch * d.batchStride;
    for (uint64_t j = 0; j < d.cols; ++j) {
      for (uint64_t i = 0; i < d.rows; ++i) {
        // With alpha = 1, C first and then the products in order of k:
        // the order of the loop kernels of prec's GPU and CPU pipelines,
        // one of the orders cuBLASLt may take.
        float initial = loadElement(gemm->cData, c.type, cBase + i + j * c.ld);
        bool fromC = gemm->alpha == 1.0f;
        float start = fromC ? gemm->beta * initial : 0.0f;
        if (gemm->splitInOutputType && fromC && k >= 2) {
          // Two split-K halves, each rounded to D's type and added in it.
          float first = roundTo(d.type, products(start, 0, k / 2, aBase,
                                                 bBase, i, j));
          float second = roundTo(d.type, products(0.0f, k / 2, k, aBase,
                                                  bBase, i, j));
          column[i] = first + second;
          continue;
        }
        if (fp8) {
          // scaleA * scaleB * (alpha * sum), then beta * C.
          float sum = products(0.0f, 0, k, aBase, bBase, i, j);
          column[i] = scale * (gemm->alpha * sum) + gemm->beta * initial;
          continue;
        }
        float sum = products(start, 0, k, aBase, bBase, i, j);
        column[i] = fromC ? sum : gemm->alpha * sum + gemm->beta * initial;
      }
      // C is read whole before D is written: they may be one buffer.
      for (uint64_t i = 0; i < d.rows; ++i)
        storeElement(gemm->dData, d.type, dBase + i + j * d.ld, column[i]);
    }
  }
  delete gemm;
}

bool logGemms() {
  const char *value = std::getenv("FAKE_CUBLASLT_LOG");
  return value && std::strcmp(value, "1") == 0;
}

} // namespace

extern "C" {

size_t cublasLtGetVersion() {
  const char *value = std::getenv("FAKE_CUBLASLT_VERSION");
  return value ? size_t(std::atoll(value)) : 130100;
}

const char *cublasLtGetStatusString(cublasStatus_t status) {
  switch (status) {
  case kSuccess:
    return "the operation completed successfully";
  case kNotInitialized:
    return "the library was not initialized";
  case kInvalidValue:
    return "an invalid value was used as an argument";
  case kNotSupported:
    return "the functionality requested is not supported";
  default:
    return "an error occurred";
  }
}

/// Gemms enqueued and handles created so far (tests check that the
/// cuBLASLt path ran, and that handles are made once per device).
int fakeCublasLtGemms() { return gemms.load(); }
int fakeCublasLtHandles() { return handles.load(); }
/// Calls of cublasLtMatmulAlgoGetHeuristic (tests check that a gemm's plan
/// is made once).
int fakeCublasLtHeuristicQueries() { return heuristicQueries.load(); }
/// Why the calling thread's latest call was refused ("" if none was).
const char *fakeCublasLtLastRefusal() { return lastRefusal; }

cublasStatus_t cublasLtCreate(Handle **handle) {
  if (!hasContext("cublasLtCreate"))
    return kNotInitialized;
  *handle = ownedHandles.add(new Handle());
  ++handles;
  return kSuccess;
}
cublasStatus_t cublasLtDestroy(Handle *handle) {
  ownedHandles.destroy(handle);
  return kSuccess;
}

cublasStatus_t cublasLtMatmulDescCreate(MatmulDesc **desc, int computeType,
                                        int scaleType) {
  *desc = ownedDescs.add(new MatmulDesc{computeType, scaleType});
  return kSuccess;
}
cublasStatus_t cublasLtMatmulDescDestroy(MatmulDesc *desc) {
  ownedDescs.destroy(desc);
  return kSuccess;
}
cublasStatus_t cublasLtMatmulDescSetAttribute(MatmulDesc *desc, int attribute,
                                              const void *buffer,
                                              size_t bytes) {
  auto set = [&](auto *field) {
    if (!buffer || bytes != sizeof(*field))
      return refuse(kInvalidValue,
                    "matmul attribute %d given %zu bytes, takes %zu", attribute,
                    bytes, sizeof(*field));
    std::memcpy(field, buffer, bytes);
    return kSuccess;
  };
  switch (attribute) {
  case 0:
    return set(&desc->computeType);
  case 1:
    return set(&desc->scaleType);
  case 3:
    return set(&desc->transa);
  case 4:
    return set(&desc->transb);
  case 17:
    return set(&desc->aScale);
  case 18:
    return set(&desc->bScale);
  case 25: {
    int8_t fastAccumulation = 0;
    if (cublasStatus_t status = set(&fastAccumulation))
      return status;
    // prec's contract: fp8 partial sums promoted to f32 periodically.
    if (fastAccumulation != 0)
      return refuse(kInvalidValue, "CUBLASLT_MATMUL_DESC_FAST_ACCUM on: fp8 "
                                   "partial sums would not be promoted to "
                                   "f32");
    return kSuccess;
  }
  default:
    return refuse(kNotSupported,
                  "matmul attribute %d is not one the test double models",
                  attribute);
  }
}

cublasStatus_t cublasLtMatrixLayoutCreate(Layout **layout, int type,
                                          uint64_t rows, uint64_t cols,
                                          int64_t ld) {
  *layout = ownedLayouts.add(new Layout{type, rows, cols, ld});
  return kSuccess;
}
cublasStatus_t cublasLtMatrixLayoutDestroy(Layout *layout) {
  ownedLayouts.destroy(layout);
  return kSuccess;
}
cublasStatus_t cublasLtMatrixLayoutSetAttribute(Layout *layout, int attribute,
                                                const void *buffer,
                                                size_t bytes) {
  auto set = [&](auto *field) {
    if (!buffer || bytes != sizeof(*field))
      return refuse(kInvalidValue,
                    "layout attribute %d given %zu bytes, takes %zu", attribute,
                    bytes, sizeof(*field));
    std::memcpy(field, buffer, bytes);
    return kSuccess;
  };
  switch (attribute) {
  case 1:
    return set(&layout->order);
  case 5:
    return set(&layout->batchCount);
  case 6:
    return set(&layout->batchStride);
  default:
    return refuse(kNotSupported,
                  "layout attribute %d is not one the test double models",
                  attribute);
  }
}

cublasStatus_t cublasLtMatmulPreferenceCreate(Preference **preference) {
  *preference = ownedPreferences.add(new Preference());
  return kSuccess;
}
cublasStatus_t cublasLtMatmulPreferenceDestroy(Preference *preference) {
  ownedPreferences.destroy(preference);
  return kSuccess;
}
cublasStatus_t cublasLtMatmulPreferenceSetAttribute(Preference *preference,
                                                    int attribute,
                                                    const void *buffer,
                                                    size_t bytes) {
  auto set = [&](auto *field) {
    if (!buffer || bytes != sizeof(*field))
      return refuse(kInvalidValue,
                    "preference attribute %d given %zu bytes, takes %zu",
                    attribute, bytes, sizeof(*field));
    std::memcpy(field, buffer, bytes);
    return kSuccess;
  };
  switch (attribute) {
  case 1:
    return set(&preference->maxWorkspace);
  case 3:
    return set(&preference->reductionMask);
  case 5:
  case 6:
  case 7:
  case 8:
    return set(&preference->alignment[attribute - 5]);
  default:
    return refuse(kNotSupported,
                  "preference attribute %d is not one the test double "
                  "models",
                  attribute);
  }
}

/// One algorithm: it needs 1 MiB of workspace where the preference allows
/// it, and may use every reduction scheme the preference allows.
struct HeuristicResult {
  uint64_t algo[8];
  size_t workspaceSize;
  cublasStatus_t state;
  float wavesCount;
  int reserved[4];
};

cublasStatus_t cublasLtMatmulAlgoGetHeuristic(Handle *handle, MatmulDesc *desc,
                                              Layout *a, Layout *b, Layout *c,
                                              Layout *d, Preference *preference,
                                              int requested,
                                              HeuristicResult *results,
                                              int *returned) {
  ++heuristicQueries;
  if (!hasContext("cublasLtMatmulAlgoGetHeuristic"))
    return kNotInitialized;
  if (!handle || !desc || !a || !b || !c || !d || !preference ||
      requested <= 0 || !results || !returned)
    return refuse(kInvalidValue, "cublasLtMatmulAlgoGetHeuristic: a null "
                                 "argument or no room for a result");
  *returned = 0;
  if (cublasStatus_t status = checkProblem(*desc, *a, *b, *c, *d))
    return status;
  HeuristicResult &result = results[0];
  std::memset(&result, 0, sizeof(result));
  result.algo[0] = kAlgoMagic;
  result.algo[1] = preference->reductionMask;
  // The alignments the algorithm assumes, as the heuristic was told.
  for (int i = 0; i < 4; ++i)
    result.algo[2 + i] = preference->alignment[i];
  result.workspaceSize =
      std::min<uint64_t>(preference->maxWorkspace, uint64_t(1) << 20);
  result.state = kSuccess;
  result.wavesCount = 1.0f;
  *returned = 1;
  return kSuccess;
}

cublasStatus_t cublasLtMatmul(Handle *handle, MatmulDesc *desc,
                              const void *alpha, const void *aData, Layout *a,
                              const void *bData, Layout *b, const void *beta,
                              const void *cData, Layout *c, void *dData,
                              Layout *d, const uint64_t *algo, void *workspace,
                              size_t workspaceBytes, void *stream) {
  if (!hasContext("cublasLtMatmul"))
    return kNotInitialized;
  if (!handle || !desc || !alpha || !beta || !a || !b || !c || !d)
    return refuse(kInvalidValue, "cublasLtMatmul: a null argument");
  if (cublasStatus_t status = checkProblem(*desc, *a, *b, *c, *d))
    return status;
  if (!algo || algo[0] != kAlgoMagic)
    return refuse(kInvalidValue,
                  "cublasLtMatmul: no algorithm from the heuristic");
  bool splitInOutputType =
      d->type != kR32F && (algo[1] & (kReduceInPlace | kReduceOutputType));
  if (splitInOutputType && !reducedPrecisionAllowed())
    return refuse(kInvalidValue,
                  "the algorithm may sum split-K partial results in D's "
                  "type %s (reduction schemes 0x%llx): prec sums in f32",
                  typeName(d->type), (unsigned long long)algo[1]);
  if (cData == dData && (c->ld != d->ld || c->batchStride != d->batchStride))
    return refuse(kInvalidValue, "C and D are one buffer of two layouts");
  const char *names[] = {"A", "B", "C", "D"};
  const void *pointers[] = {aData, bData, cData, dData};
  for (int i = 0; i < 4; ++i)
    if (reinterpret_cast<uintptr_t>(pointers[i]) % algo[2 + i] != 0)
      return refuse(kInvalidValue,
                    "%s at %p is not aligned to the %llu bytes the "
                    "algorithm assumes (CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_%s_"
                    "BYTES)",
                    names[i], pointers[i], (unsigned long long)algo[2 + i],
                    names[i]);
  const Layout *layouts[] = {a, b, c, d};
  for (int i = 0; i < 4; ++i)
    if (!onDevice(names[i], pointers[i],
                  extent(*layouts[i]) * typeBytes(layouts[i]->type)))
      return kInvalidValue;
  if (isFp8(a->type) && (!onDevice("A's scale", desc->aScale, 4) ||
                         !onDevice("B's scale", desc->bScale, 4)))
    return kInvalidValue;
  size_t needed = std::min<uint64_t>(uint64_t(1) << 20, workspaceBytes);
  if (workspaceBytes > 0 && !onDevice("workspace", workspace, needed))
    return kInvalidValue;
  if (!stream)
    return refuse(kInvalidValue, "cublasLtMatmul on the legacy stream");
  auto enqueue = driverFunction<void (*)(void *, void (*)(void *), void *)>(
      "fakeCudaEnqueue");
  if (!enqueue)
    return refuse(kExecutionFailed, "the test CUDA driver is not loaded");
  float alphaValue, betaValue;
  std::memcpy(&alphaValue, alpha, 4);
  std::memcpy(&betaValue, beta, 4);
  if (logGemms())
    std::fprintf(stderr,
                 "fake cuBLASLt: gemm %s%s %s%s -> %s, D %llu x %llu (ld "
                 "%lld), k %llu, batch %d%s%s\n",
                 typeName(a->type), desc->transa == kOpT ? "^T" : "",
                 typeName(b->type), desc->transb == kOpT ? "^T" : "",
                 typeName(d->type), (unsigned long long)d->rows,
                 (unsigned long long)d->cols, (long long)d->ld,
                 (unsigned long long)(desc->transa == kOpN ? a->cols : a->rows),
                 d->batchCount,
                 desc->computeType == kCompute32FFastTF32 ? ", TF32" : "",
                 splitInOutputType ? ", split-K sums in D's type" : "");
  ++gemms;
  enqueue(stream, runGemm,
          new Gemm{*desc, *a, *b, *c, *d, aData, bData, cData, dData,
                   alphaValue, betaValue, bool(splitInOutputType)});
  return kSuccess;
}

} // extern "C"
