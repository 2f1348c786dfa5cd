//===- Traffic.cpp - what a rank's step moved, as the runtime counted it --===//

#include "Traffic.h"

#include "precrt/compiled.h"

#include "llvm/ADT/STLExtras.h"
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

/// "sent S bytes, received R bytes", with what of them crossed hosts where
/// `acrossHosts` (the step moved bytes between hosts).
std::string formatBytes(uint64_t sent, uint64_t received, uint64_t sentAcross,
                        uint64_t receivedAcross, bool acrossHosts) {
  if (!acrossHosts)
    return llvm::formatv("sent {0} bytes, received {1} bytes", sent, received)
        .str();
  return llvm::formatv("sent {0} bytes ({1} to other hosts), received {2} "
                       "bytes ({3} from other hosts)",
                       sent, sentAcross, received, receivedAcross)
      .str();
}

/// Whether any of `records` moved bytes between hosts.
bool crossesHosts(const std::vector<precrt_compiled_traffic_t> &records) {
  return llvm::any_of(records, [](const precrt_compiled_traffic_t &record) {
    return record.bytes_sent_across_hosts || record.bytes_received_across_hosts;
  });
}

} // namespace

std::string prec_run::summarizeTraffic(int32_t rank,
                                       const std::string &compilerTotal) {
  int64_t completed;
  std::vector<precrt_compiled_traffic_t> records = getRecords(completed);
  int64_t counts[4] = {}, bytes[4] = {};
  uint64_t sent = 0, received = 0, sentAcross = 0, receivedAcross = 0;
  bool uncounted = false;
  for (const precrt_compiled_traffic_t &record : records) {
    if (record.transport >= 0 && record.transport < 4) {
      ++counts[record.transport];
      bytes[record.transport] += record.bytes_sent;
    }
    sent += record.bytes_sent;
    received += record.bytes_received;
    sentAcross += record.bytes_sent_across_hosts;
    receivedAcross += record.bytes_received_across_hosts;
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
  text += llvm::formatv("{0} {1} collectives, {2}", first ? "" : ";",
                        completed,
                        formatBytes(sent, received, sentAcross, receivedAcross,
                                    crossesHosts(records)))
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
  uint64_t sent = 0, received = 0, sentAcross = 0, receivedAcross = 0;
  bool acrossHosts = crossesHosts(records);
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
            "  #{0} {1} of {2} x {3} over {4} ranks ({5}): {6}{7}\n",
            index, transport, record.send_count, dtype ? dtype : "?",
            record.group_size, backend ? backend : "?",
            formatBytes(record.bytes_sent, record.bytes_received,
                        record.bytes_sent_across_hosts,
                        record.bytes_received_across_hosts, acrossHosts),
            record.backend == PRECRT_BACKEND_NCCL ? " (nccl: not counted)" : "")
            .str();
    sent += record.bytes_sent;
    received += record.bytes_received;
    sentAcross += record.bytes_sent_across_hosts;
    receivedAcross += record.bytes_received_across_hosts;
  }
  text += llvm::formatv("  total: {0} collectives, {1}", completed,
                        formatBytes(sent, received, sentAcross, receivedAcross,
                                    acrossHosts))
              .str();
  if (completed > int64_t(records.size()))
    text += llvm::formatv(" (the first {0} collectives)", records.size()).str();
  return text;
}
