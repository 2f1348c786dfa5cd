//===- Printing.cpp - what prec-run prints --------------------------------===//

#include "Printing.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cstring>

using namespace mlir;
using namespace mlir::prec;

namespace prec_run {

std::string formatElement(const ValueSpec &spec, const void *data, int64_t i) {
  if (isIntegerKind(spec.element))
    return std::to_string(readInteger(spec, data, i));
  return llvm::formatv("{0}", llvm::format("%.8g", readElement(spec, data, i)))
      .str();
}

std::string formatValues(const ValueSpec &spec, const void *data,
                         bool allValues) {
  std::string text;
  llvm::raw_string_ostream os(text);
  int64_t n = spec.isBuffer ? spec.numElements() : 1;
  double sum = 0;
  for (int64_t i = 0; i < n; ++i)
    sum += readElement(spec, data, i);
  int64_t shown = allValues ? n : std::min<int64_t>(n, 4);
  os << spec.typeName << " = [";
  for (int64_t i = 0; i < shown; ++i)
    os << (i ? ", " : "") << formatElement(spec, data, i);
  if (shown < n)
    os << ", ...";
  os << "]";
  if (!allValues && n > 1)
    os << " sum " << llvm::format("%.8g", sum);
  return text;
}

std::string describeProfile(int32_t rank, const RankProfile &rankProfile) {
  const precrt_profile_t &profile = rankProfile.counters;
  double stepSeconds = rankProfile.stepSeconds;
  int steps = rankProfile.steps;
  auto ms = [&](double seconds) { return seconds * 1e3 / steps; };
  double accounted = profile.seconds[PRECRT_PROFILE_GEMM] +
                     profile.seconds[PRECRT_PROFILE_COMPUTE_KERNEL] +
                     profile.seconds[PRECRT_PROFILE_PACK_KERNEL] +
                     profile.seconds[PRECRT_PROFILE_COLLECTIVE];
  auto part = [&](StringRef name, precrt_profile_kind_t kind) {
    double seconds = profile.seconds[kind];
    return llvm::formatv("  {0,-26}{1,9:f3} ms {2,5:f1}% {3,6} calls\n", name,
                         ms(seconds),
                         stepSeconds > 0 ? 100 * seconds / stepSeconds : 0.0,
                         profile.calls[kind] / steps)
        .str();
  };
  std::string text =
      llvm::formatv("rank {0}: profile, per step of {1} (gemm: {2}):\n", rank,
                    steps, precrtCompiledMatmulKernel())
          .str();
  text += llvm::formatv("  {0,-26}{1,9:f3} ms\n", "step", ms(stepSeconds));
  text += part("gemm (precrtCompiledMatmul)", PRECRT_PROFILE_GEMM);
  text += part("compute kernels", PRECRT_PROFILE_COMPUTE_KERNEL);
  text += part("pack/unpack kernels", PRECRT_PROFILE_PACK_KERNEL);
  text += part("collectives", PRECRT_PROFILE_COLLECTIVE);
  text += part("  of which waiting", PRECRT_PROFILE_WAIT);
  // Started transports move on the communication thread, beside the rest:
  // not part of the step's sum. Their exposed part is in the collectives.
  if (profile.calls[PRECRT_PROFILE_BACKGROUND] > 0)
    text += part("started transports (bg)", PRECRT_PROFILE_BACKGROUND);
  double rest = stepSeconds - accounted;
  text += llvm::formatv("  {0,-26}{1,9:f3} ms {2,5:f1}%\n", "other host code",
                        ms(rest),
                        stepSeconds > 0 ? 100 * rest / stepSeconds : 0.0);
  text += llvm::formatv("  {0,-26}{1,9} bytes", "peak buffers in use",
                        rankProfile.peakBufferBytes);
  return text;
}

bool reportOutcome(size_t rank, const RankOutcome &outcome) {
  // One write per rank: the processes of mpirun share stdout and stderr.
  std::string lines;
  for (const std::string &line : outcome.lines)
    lines += line + "\n";
  llvm::outs() << lines;
  llvm::outs().flush();
  if (outcome.error.empty())
    return false;
  // One write: the processes of mpirun share stderr.
  llvm::errs() << "prec-run: error: rank " + std::to_string(rank) + ": " +
                      outcome.error + "\n";
  return true;
}

} // namespace prec_run
