//===- Traffic.cpp - what a rank's step moved, as the runtime counted it --===//

#include "Traffic.h"

#include "precrt/compiled.h"

#include "llvm/Support/FormatVariadic.h"

#include <vector>

namespace {

const char *const transportNames[] = {"all_gather", "all_to_all",
                                      "reduce_scatter", "all_reduce"};

/// The calling thread's records of its last step, and how many collectives
/// completed (more than the records when the log overflowed).
std::vector<precrt_compiled_traffic_t> getRecords(int64_t &completed) {
  completed = precrtCompiledGetTraffic(nullptr, 0);
  std::vector<precrt_compiled_traffic_t> records(
      std::min<int64_t>(completed, PRECRT_COMPILED_TRAFFIC_RECORDS));
  precrtCompiledGetTraffic(records.data(), int64_t(records.size()));
  return records;
}

} // namespace

std::string prec_run::summarizeTraffic(int32_t rank,
                                       const std::string &compilerTotal) {
  int64_t completed;
  std::vector<precrt_compiled_traffic_t> records = getRecords(completed);
  int64_t counts[4] = {}, bytes[4] = {};
  uint64_t sent = 0, received = 0;
  bool uncounted = false;
  for (const precrt_compiled_traffic_t &record : records) {
    if (record.transport >= 0 && record.transport < 4) {
      ++counts[record.transport];
      bytes[record.transport] += record.bytes_sent;
    }
    sent += record.bytes_sent;
    received += record.bytes_received;
    uncounted |= record.backend == PRECRT_BACKEND_NCCL;
  }
  std::string text =
      llvm::formatv("rank {0}: traffic per step, as the runtime counted the "
                    "last one:",
                    rank)
          .str();
  bool first = true;
  for (int kind = 0; kind < 4; ++kind) {
    if (!counts[kind])
      continue;
    text += llvm::formatv("{0} {1} {2} x, {3} bytes", first ? "" : ",",
                          transportNames[kind], counts[kind], bytes[kind])
                .str();
    first = false;
  }
  text += llvm::formatv("{0} {1} collectives, sent {2} bytes, received {3} "
                        "bytes",
                        first ? "" : ";", completed, sent, received)
              .str();
  if (completed > int64_t(records.size()))
    text += llvm::formatv(" (the first {0} collectives)", records.size()).str();
  if (uncounted)
    text += " (nccl: not counted)";
  if (!compilerTotal.empty())
    text += "\n  compiler (prec-report-traffic): " + compilerTotal;
  return text;
}

std::string prec_run::describeTraffic(int32_t rank) {
  int64_t completed;
  std::vector<precrt_compiled_traffic_t> records = getRecords(completed);

  std::string text =
      llvm::formatv("rank {0}: traffic of the last step, as the runtime "
                    "counted it:\n",
                    rank)
          .str();
  uint64_t sent = 0, received = 0;
  for (auto [index, record] : llvm::enumerate(records)) {
    const char *transport = record.transport >= 0 && record.transport < 4
                                ? transportNames[record.transport]
                                : "unknown transport";
    const char *dtype =
        precrtDtypeName(static_cast<precrt_dtype_t>(record.dtype));
    const char *backend =
        precrtBackendName(static_cast<precrt_backend_t>(record.backend));
    text +=
        llvm::formatv(
            "  #{0} {1} of {2} x {3} over {4} ranks ({5}): "
            "sent {6} bytes, received {7} bytes{8}\n",
            index, transport, record.send_count, dtype ? dtype : "?",
            record.group_size, backend ? backend : "?", record.bytes_sent,
            record.bytes_received,
            record.backend == PRECRT_BACKEND_NCCL ? " (nccl: not counted)" : "")
            .str();
    sent += record.bytes_sent;
    received += record.bytes_received;
  }
  text += llvm::formatv("  total: {0} collectives, sent {1} bytes, received "
                        "{2} bytes",
                        completed, sent, received)
              .str();
  if (completed > int64_t(records.size()))
    text += llvm::formatv(" (the first {0} collectives)", records.size()).str();
  return text;
}
