//===- Gemm.h - contractions precrt's gemm computes -------------*- C++ -*-===//
//
// What convert-contractions-to-runtime hands to precrtCompiledMatmul, told
// from a linalg op alone (its body, element types and indexing maps), on
// tensors or buffers, so that passes before bufferization can tell which
// contractions will run as a gemm.
//
//===----------------------------------------------------------------------===//

#ifndef PREC_CONVERSION_CONTRACTIONSTORUNTIME_GEMM_H
#define PREC_CONVERSION_CONTRACTIONSTORUNTIME_GEMM_H

#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"

#include <optional>

namespace mlir::prec {

/// The callee of what convert-contractions-to-runtime{gpu} makes of a
/// contraction of scaled fp8 operands: precrtCompiledMatmul's nineteen
/// arguments, then the addresses of A's and B's scales (one f32 each).
/// prec-gpu-host-to-runtime makes it precrtCompiledGpuMatmul; nothing else
/// runs it.
inline constexpr llvm::StringLiteral kScaledGemmSymbol = "prec.scaled_gemm";

/// The runtime's dtype of an element type the gemm takes, or -1: f32, bf16
/// and f16 everywhere, fp8 as inputs only.
int32_t gemmDtype(Type type, bool input);

/// Whether the body of `op` is `out + ext(a) * ext(b)` as the gemm computes
/// it (see convert-contractions-to-runtime's description).
bool hasGemmBody(linalg::LinalgOp op);

/// The loops of a matmul-like op: one batch loop at most, one each of m, n
/// and k, every operand indexed by a permutation of its loops.
struct GemmLoops {
  std::optional<unsigned> batch;
  unsigned m, n, k;
};

/// The gemm loops of `op` when the gemm computes it: two inputs and one
/// output, a gemm body, and loops as GemmLoops says. Where its operands
/// live (tensors or buffers, and whether buffers overlap) is not looked at.
FailureOr<GemmLoops> inferGemmLoops(linalg::LinalgOp op);

} // namespace mlir::prec

#endif // PREC_CONVERSION_CONTRACTIONSTORUNTIME_GEMM_H
