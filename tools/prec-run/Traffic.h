//===- Traffic.h - what a rank's step moved, as the runtime counted it ----===//

#ifndef PREC_TOOLS_PREC_RUN_TRAFFIC_H
#define PREC_TOOLS_PREC_RUN_TRAFFIC_H

#include <cstdint>
#include <string>

namespace prec_run {

/// The compiled collectives the calling rank ran since the last
/// precrtCompiledResetTraffic (prec-run resets it before every step, so:
/// the last step), one line each in call order with the payload bytes the
/// runtime's counters saw, then their sum. The wording follows the remarks
/// of prec-report-traffic, so that the two can be read side by side.
std::string describeTraffic(int32_t rank);

/// The same collectives summed per kind, on one line, with the compiler's
/// figure for the entry function beside them: `compilerTotal`, the
/// function remark of prec-report-traffic ("N transports, each rank sends
/// S bytes ..."), callees included; empty when there was none.
std::string summarizeTraffic(int32_t rank, const std::string &compilerTotal);

} // namespace prec_run

#endif // PREC_TOOLS_PREC_RUN_TRAFFIC_H
