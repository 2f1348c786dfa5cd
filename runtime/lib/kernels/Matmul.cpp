//===- Matmul.cpp - contractions of compiled code -------------------------===//
//
// The contractions of a training step at library speed, under prec's
// precision contract: inputs extended exactly to f32, products and partial
// sums in f32 (the initial C included), a narrow C rounded once to nearest
// even at the end.
//
// OpenBLAS is opened at run time, as NCCL and the CUDA driver are: programs
// compiled ahead of time link no BLAS and still run, with the builtin kernel,
// where none is installed. Its sgemm keeps subnormals (it never sets the
// flush-to-zero or denormals-are-zero modes). A contraction of two bf16
// operands runs precrt's own kernel instead (Bf16Gemm.h), whose sum has one
// order on every host, as sgemm's cannot: OpenBLAS's bf16 gemm (sbgemm)
// flushes subnormals on CPUs with AVX512_BF16 and sums in another order
// elsewhere.
//
//===----------------------------------------------------------------------===//

#include "kernels/Matmul.h"

#include "core/DynamicLibrary.h"
#include "kernels/Bf16Gemm.h"
#include "precrt/numerics.h"

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace precrt {
namespace kernels {
namespace {

// The CBLAS constants (cblas.h), which every implementation shares.
constexpr int kCblasRowMajor = 101;
constexpr int kCblasNoTrans = 111;
constexpr int kCblasTrans = 112;

using SgemmFn = void (*)(int order, int transA, int transB, int m, int n, int k,
                         float alpha, const float *a, int lda, const float *b,
                         int ldb, float beta, float *c, int ldc);

struct Blas {
  SgemmFn sgemm = nullptr;
  std::string name;
};

const Blas &blas() {
  static const Blas loaded = [] {
    Blas result;
    const char *choice = std::getenv("PRECRT_BLAS_LIBRARY");
    if (choice && std::strcmp(choice, "none") == 0) {
      result.name = "builtin (PRECRT_BLAS_LIBRARY=none)";
      return result;
    }
    // OpenBLAS picks its kernels by CPU at load time, and its AVX-512
    // kernels sum in another order than its AVX2 ones: pinning the AVX2
    // kernels wherever they run makes a gemm's bits the same on every such
    // host (docs/Runtime.md, "The same numbers on every host"). The user's
    // own OPENBLAS_CORETYPE wins.
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
      setenv("OPENBLAS_CORETYPE", "Haswell", /*overwrite=*/0);
    DynamicLibrary library("OpenBLAS", "PRECRT_BLAS_LIBRARY",
                           "libopenblas.so.0");
    SgemmFn sgemm;
    if (!library.resolve("cblas_sgemm", &sgemm)) {
      result.name = "builtin (" + library.failure() + ")";
      return result;
    }
    // One thread per call: prec-run runs a rank per thread, and OpenBLAS's
    // own threads would oversubscribe the cores the ranks share.
    if (auto setThreads =
            library.resolveOptional<void (*)(int)>("openblas_set_num_threads"))
      setThreads(1);
    result.sgemm = sgemm;
    auto config = library.resolveOptional<char *(*)()>("openblas_get_config");
    result.name = config ? config() : "OpenBLAS";
    return result;
  }();
  return loaded;
}

size_t elementBytes(precrt_dtype_t dtype) {
  switch (dtype) {
  case PRECRT_DTYPE_F32:
    return 4;
  case PRECRT_DTYPE_F8E4M3FN:
  case PRECRT_DTYPE_F8E5M2:
    return 1;
  default:
    return 2;
  }
}

float load(precrt_dtype_t dtype, const char *element) {
  switch (dtype) {
  case PRECRT_DTYPE_F32: {
    float value;
    std::memcpy(&value, element, sizeof value);
    return value;
  }
  case PRECRT_DTYPE_BF16: {
    // The 16 high bits of an f32: exact for every value, subnormals and NaN
    // payloads included.
    uint16_t bits;
    std::memcpy(&bits, element, sizeof bits);
    uint32_t wide = uint32_t(bits) << 16;
    float value;
    std::memcpy(&value, &wide, sizeof value);
    return value;
  }
  case PRECRT_DTYPE_F16: {
    uint16_t bits;
    std::memcpy(&bits, element, sizeof bits);
    return numerics::f16ToFloat(bits);
  }
  case PRECRT_DTYPE_F8E4M3FN:
    return numerics::f8E4M3FNToFloat(uint8_t(*element));
  default:
    return numerics::f8E5M2ToFloat(uint8_t(*element));
  }
}

void store(precrt_dtype_t dtype, char *element, float value) {
  switch (dtype) {
  case PRECRT_DTYPE_F32:
    std::memcpy(element, &value, sizeof value);
    return;
  case PRECRT_DTYPE_BF16: {
    uint16_t bits = numerics::floatToBF16(value);
    std::memcpy(element, &bits, sizeof bits);
    return;
  }
  default: {
    uint16_t bits = numerics::floatToF16(value);
    std::memcpy(element, &bits, sizeof bits);
    return;
  }
  }
}

/// A rows x cols f32 matrix as sgemm reads it: row-major with leading
/// dimension `ld`, transposed or not.
struct BlasMatrix {
  const float *data;
  int ld;
  bool transposed;
};

/// `operand` (batch `index`) as sgemm can read it in place: f32, one unit
/// stride, a leading dimension BLAS accepts. A stride along a dimension of
/// size 1 is never used, so it does not matter.
bool viewInPlace(const MatrixOperand &operand, int64_t index, int64_t rows,
                 int64_t cols, BlasMatrix &view) {
  if (operand.dtype != PRECRT_DTYPE_F32)
    return false;
  const float *data =
      static_cast<const float *>(operand.data) + index * operand.batchStride;
  int64_t rowStride = operand.rowStride, colStride = operand.colStride;
  if ((cols == 1 || colStride == 1) &&
      (rows == 1 || (rowStride >= cols && rowStride <= INT_MAX))) {
    view = {data, int(rows == 1 ? std::max<int64_t>(cols, 1) : rowStride),
            false};
    return true;
  }
  if ((rows == 1 || rowStride == 1) &&
      (cols == 1 || (colStride >= rows && colStride <= INT_MAX))) {
    view = {data, int(cols == 1 ? std::max<int64_t>(rows, 1) : colStride),
            true};
    return true;
  }
  return false;
}

/// Copies `operand` (batch `index`) into `packed`, rows x cols row-major
/// f32, extending exactly.
void pack(const MatrixOperand &operand, int64_t index, int64_t rows,
          int64_t cols, std::vector<float> &packed) {
  // Grown only: resizing down and up again would zero the difference on
  // every call of a step that alternates shapes.
  if (packed.size() < size_t(rows * cols))
    packed.resize(size_t(rows * cols));
  auto bytes = int64_t(elementBytes(operand.dtype));
  const char *base = static_cast<const char *>(operand.data) +
                     index * operand.batchStride * bytes;
  for (int64_t i = 0; i < rows; ++i) {
    float *row = packed.data() + i * cols;
    const char *source = base + i * operand.rowStride * bytes;
    if (operand.dtype == PRECRT_DTYPE_F32 && operand.colStride == 1) {
      std::memcpy(row, source, size_t(cols) * sizeof(float));
      continue;
    }
    if (operand.dtype == PRECRT_DTYPE_BF16 && operand.colStride == 1) {
      // The common case of a step (bf16 weights and activations), in a loop
      // the compiler vectorizes.
      for (int64_t j = 0; j < cols; ++j) {
        uint16_t bits;
        std::memcpy(&bits, source + 2 * j, sizeof bits);
        uint32_t wide = uint32_t(bits) << 16;
        std::memcpy(row + j, &wide, sizeof wide);
      }
      continue;
    }
    for (int64_t j = 0; j < cols; ++j)
      row[j] = load(operand.dtype, source + j * operand.colStride * bytes);
  }
}

/// `operand` (batch `index`) packed into `packed` for sgemm, along the
/// dimension the source is contiguous in: a transposed operand (a weight
/// in the backward) is packed as the contiguous matrix it is and handed
/// to sgemm transposed.
BlasMatrix packForBlas(const MatrixOperand &operand, int64_t index,
                       int64_t rows, int64_t cols, std::vector<float> &packed) {
  bool transposed = !(cols == 1 || operand.colStride == 1) &&
                    (rows == 1 || operand.rowStride == 1);
  MatrixOperand source = operand;
  if (transposed) {
    std::swap(source.rowStride, source.colStride);
    std::swap(rows, cols);
  }
  pack(source, index, rows, cols, packed);
  return {packed.data(), int(std::max<int64_t>(cols, 1)), transposed};
}

/// C += A x B on row-major f32 matrices of leading dimensions k, n, n: the
/// kernel where no BLAS is loaded. Each C element sums its products in
/// order of p after its initial value.
void builtinKernel(int64_t m, int64_t n, int64_t k, const float *a,
                   const float *b, float *c) {
  constexpr int64_t kRows = 4;
  int64_t i = 0;
  for (; i + kRows <= m; i += kRows) {
    float *c0 = c + i * n, *c1 = c0 + n, *c2 = c1 + n, *c3 = c2 + n;
    for (int64_t p = 0; p < k; ++p) {
      const float *bp = b + p * n;
      float a0 = a[i * k + p], a1 = a[(i + 1) * k + p], a2 = a[(i + 2) * k + p],
            a3 = a[(i + 3) * k + p];
      for (int64_t j = 0; j < n; ++j) {
        c0[j] += a0 * bp[j];
        c1[j] += a1 * bp[j];
        c2[j] += a2 * bp[j];
        c3[j] += a3 * bp[j];
      }
    }
  }
  for (; i < m; ++i) {
    float *ci = c + i * n;
    for (int64_t p = 0; p < k; ++p) {
      float ai = a[i * k + p];
      const float *bp = b + p * n;
      for (int64_t j = 0; j < n; ++j)
        ci[j] += ai * bp[j];
    }
  }
}

bool isSupportedOutput(precrt_dtype_t dtype) {
  return dtype == PRECRT_DTYPE_F32 || dtype == PRECRT_DTYPE_BF16 ||
         dtype == PRECRT_DTYPE_F16;
}

bool isSupportedInput(precrt_dtype_t dtype) {
  return isSupportedOutput(dtype) || dtype == PRECRT_DTYPE_F8E4M3FN ||
         dtype == PRECRT_DTYPE_F8E5M2;
}

/// Buffers reused across calls of a rank (thread): a step's matmuls have few
/// distinct shapes.
struct Scratch {
  std::vector<float> a, b, c;
};
thread_local Scratch scratch;

/// `operand` (batch `index`) as the bf16 kernel reads it.
Bf16Matrix bf16View(const MatrixOperand &operand, int64_t index) {
  return {static_cast<const uint16_t *>(operand.data) +
              index * operand.batchStride,
          operand.rowStride, operand.colStride};
}

} // namespace

const char *matmulKernelName() {
  static const std::string name = [] {
    Bf16GemmKernel kernel;
    std::string message;
    std::string bf16 =
        selectedBf16GemmKernel(kernel, message) == PRECRT_SUCCESS
            ? bf16GemmKernelName(kernel)
            : message;
    return blas().name + "; bf16 x bf16: " + bf16;
  }();
  return name.c_str();
}

precrt_status_t matmul(int64_t batch, int64_t m, int64_t n, int64_t k,
                       const MatrixOperand &a, const MatrixOperand &b,
                       const MatrixOperand &c, std::string &message) {
  if (!isSupportedInput(a.dtype) || !isSupportedInput(b.dtype) ||
      !isSupportedOutput(c.dtype)) {
    message = "matmul: expected f32, bf16, f16 or fp8 inputs and an f32, "
              "bf16 or f16 output, got dtypes " +
              std::to_string(int(a.dtype)) + ", " +
              std::to_string(int(b.dtype)) + " -> " +
              std::to_string(int(c.dtype));
    return PRECRT_ERROR_INVALID_ARGUMENT;
  }
  if (batch < 0 || m < 0 || n < 0 || k < 0) {
    message = "matmul: negative size " + std::to_string(batch) + "x" +
              std::to_string(m) + "x" + std::to_string(n) + "x" +
              std::to_string(k);
    return PRECRT_ERROR_INVALID_ARGUMENT;
  }
  if (batch == 0 || m == 0 || n == 0)
    return PRECRT_SUCCESS;
  // A transposed output (contiguous columns: a weight's gradient computed
  // in the weight's layout) is the row-major C^T = B^T A^T, which sgemm
  // writes in place.
  if (n > 1 && c.colStride != 1 && (m == 1 || c.rowStride == 1)) {
    auto transposed = [](MatrixOperand operand) {
      std::swap(operand.rowStride, operand.colStride);
      return operand;
    };
    return matmul(batch, n, m, k, transposed(b), transposed(a), transposed(c),
                  message);
  }

  // Two bf16 operands: precrt's kernel, the same bits on every host.
  bool bf16Operands =
      a.dtype == PRECRT_DTYPE_BF16 && b.dtype == PRECRT_DTYPE_BF16;
  Bf16GemmKernel bf16Kernel = Bf16GemmKernel::Scalar;
  if (bf16Operands) {
    precrt_status_t status = selectedBf16GemmKernel(bf16Kernel, message);
    if (status != PRECRT_SUCCESS)
      return status;
  }
  const Blas &library = blas();
  bool useBlas = !bf16Operands && library.sgemm && m <= INT_MAX &&
                 n <= INT_MAX && k <= INT_MAX && m * n <= INT_MAX;
  size_t cBytes = elementBytes(c.dtype);
  for (int64_t index = 0; index < batch; ++index) {
    BlasMatrix aView, bView, cView;
    // C in place when the kernel can write it (f32 with unit column
    // stride), otherwise through an f32 copy rounded back once.
    bool cInPlace = (useBlas || bf16Operands) &&
                    viewInPlace(c, index, m, n, cView) && !cView.transposed;
    float *cData;
    int64_t ldc;
    if (cInPlace) {
      cData = const_cast<float *>(cView.data);
      ldc = cView.ld;
    } else {
      pack(c, index, m, n, scratch.c);
      cData = scratch.c.data();
      ldc = n;
    }

    if (k > 0) {
      if (bf16Operands) {
        bf16Gemm(bf16Kernel, m, n, k, bf16View(a, index), bf16View(b, index),
                 cData, ldc);
      } else if (useBlas) {
        if (!viewInPlace(a, index, m, k, aView))
          aView = packForBlas(a, index, m, k, scratch.a);
        if (!viewInPlace(b, index, k, n, bView))
          bView = packForBlas(b, index, k, n, scratch.b);
        library.sgemm(kCblasRowMajor,
                      aView.transposed ? kCblasTrans : kCblasNoTrans,
                      bView.transposed ? kCblasTrans : kCblasNoTrans, int(m),
                      int(n), int(k), 1.0f, aView.data, aView.ld, bView.data,
                      bView.ld, 1.0f, cData, int(ldc));
      } else {
        pack(a, index, m, k, scratch.a);
        pack(b, index, k, n, scratch.b);
        builtinKernel(m, n, k, scratch.a.data(), scratch.b.data(), cData);
      }
    }

    if (!cInPlace) {
      char *base = static_cast<char *>(const_cast<void *>(c.data)) +
                   index * c.batchStride * int64_t(cBytes);
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j)
          store(c.dtype,
                base + (i * c.rowStride + j * c.colStride) * int64_t(cBytes),
                cData[i * ldc + j]);
    }
  }
  return PRECRT_SUCCESS;
}

} // namespace kernels
} // namespace precrt
