//===- ReportTraffic.cpp - bytes moved per collective and kernel ----------===//
//
// A wire dtype, an accumulation dtype or a fused optimizer changes how many
// bytes a step moves over the network and through memory. This pass states
// those bytes per op, from the types alone, in the form the runtime's own
// counters (precrtCompiledGetTraffic) report what it moved, so that the two
// can be compared.
//
//===----------------------------------------------------------------------===//

#include "prec/Dialect/Prec/IR/PrecOps.h"
#include "prec/Dialect/Prec/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/Path.h"

#include <map>

namespace mlir::prec {
#define GEN_PASS_DEF_PRECREPORTTRAFFIC
#include "prec/Dialect/Prec/Transforms/Passes.h.inc"
} // namespace mlir::prec

using namespace mlir;
using namespace mlir::prec;

namespace {

/// How many times `op` runs per call of its function: the product of the
/// static trip counts of the loops around it, or nullopt when a loop's is
/// not known. `loops` is set to how many loops enclose it.
std::optional<int64_t> getRunsPerCall(Operation *op, int &loops) {
  int64_t runs = 1;
  loops = 0;
  bool known = true;
  for (auto loop = op->getParentOfType<LoopLikeOpInterface>(); loop;
       loop = loop->getParentOfType<LoopLikeOpInterface>()) {
    ++loops;
    std::optional<APInt> trips = loop.getStaticTripCount();
    if (!trips)
      known = false;
    else
      runs *= trips->getSExtValue();
  }
  if (!known)
    return std::nullopt;
  return runs;
}

/// Bytes of a statically shaped tensor, or nullopt.
std::optional<int64_t> tensorBytes(Type type) {
  auto shaped = dyn_cast<RankedTensorType>(type);
  if (!shaped || !shaped.hasStaticShape() ||
      !shaped.getElementType().isIntOrFloat())
    return std::nullopt;
  int64_t elementBytes =
      (shaped.getElementType().getIntOrFloatBitWidth() + 7) / 8;
  return shaped.getNumElements() * elementBytes;
}

/// The payload one rank of a group of `groupSize` sends and receives for a
/// transport of `count` elements of `elementBytes`, as the runtime's
/// backends move it (the same figure both ways). `exact` is false when it
/// is only a bound: an all-reduce's chunks differ by one element when
/// `groupSize` does not divide `count`, and which ranks hold the longer
/// ones depends on the backend.
int64_t transportBytes(TransportKind kind, int64_t count, int64_t elementBytes,
                       int64_t groupSize, bool &exact) {
  exact = true;
  int64_t peers = groupSize - 1;
  switch (kind) {
  case TransportKind::AllGather:
    return peers * count * elementBytes;
  case TransportKind::AllToAll:
  case TransportKind::ReduceScatter:
    return peers * (count / groupSize) * elementBytes;
  case TransportKind::AllReduce:
    exact = count % groupSize == 0 || groupSize == 1;
    return 2 * peers * llvm::divideCeil(count, groupSize) * elementBytes;
  }
  llvm_unreachable("unknown transport kind");
}

/// Which links a transport's group uses on a grid with
/// `prec.inter_host_axes`: all its ranks on one host, each on another host
/// (its axes of more than one rank all cross hosts), or both (one-level
/// collectives over both levels); nullopt on a grid without a topology.
enum class LinkClass { InsideHosts, AcrossHosts, Both };

std::optional<LinkClass> getLinkClass(shard::GridOp grid,
                                      ArrayRef<int16_t> gridAxes) {
  ArrayRef<int16_t> interHost = getInterHostAxes(grid);
  if (interHost.empty())
    return std::nullopt;
  SmallVector<int16_t> axes(gridAxes);
  if (axes.empty())
    for (int16_t axis = 0; axis < grid.getRank(); ++axis)
      axes.push_back(axis);
  bool inside = false, across = false;
  for (int16_t axis : axes) {
    if (grid.getShape()[axis] == 1)
      continue;
    (llvm::is_contained(interHost, axis) ? across : inside) = true;
  }
  if (across && inside)
    return LinkClass::Both;
  return across ? LinkClass::AcrossHosts : LinkClass::InsideHosts;
}

/// What a function moves per call.
struct Traffic {
  int64_t transports = 0, sent = 0, received = 0;
  /// Of `sent`, the bytes to ranks on other hosts, known while every
  /// transport is on a grid with a topology and on one level of it.
  int64_t sentAcrossHosts = 0;
  bool onHostTopology = false, linkClassesKnown = true;
  int64_t kernels = 0, read = 0, written = 0;
  bool allKnown = true, loopsUnknown = false, bounded = false;
  /// Per transport kind: how many run, and the bytes each rank sends.
  std::map<TransportKind, std::pair<int64_t, int64_t>> byKind;
  /// At how many places of a call (its own ops and its callees', loops not
  /// counted) each all_gather of the source runs: an inlined copy keeps its
  /// location.
  std::map<std::string, int64_t> gathersBySource;
  /// The functions called, callees' callees included.
  llvm::SetVector<StringRef> callees;

  void add(const Traffic &other, int64_t runs) {
    transports += runs * other.transports;
    sent += runs * other.sent;
    received += runs * other.received;
    sentAcrossHosts += runs * other.sentAcrossHosts;
    onHostTopology |= other.onHostTopology;
    linkClassesKnown &= other.linkClassesKnown;
    kernels += runs * other.kernels;
    read += runs * other.read;
    written += runs * other.written;
    allKnown &= other.allKnown;
    loopsUnknown |= other.loopsUnknown;
    bounded |= other.bounded;
    for (auto &[kind, counts] : other.byKind) {
      byKind[kind].first += runs * counts.first;
      byKind[kind].second += runs * counts.second;
    }
    for (auto &[source, count] : other.gathersBySource)
      gathersBySource[source] += count;
    callees.insert(other.callees.begin(), other.callees.end());
  }
};

/// The source position an op came from: the callee's position of an
/// inlined op, without the call sites.
std::string getSourcePosition(Location loc) {
  while (auto callSite = dyn_cast<CallSiteLoc>(loc))
    loc = callSite.getCallee();
  if (auto fused = dyn_cast<FusedLoc>(loc))
    if (!fused.getLocations().empty())
      return getSourcePosition(fused.getLocations().front());
  std::string text;
  llvm::raw_string_ostream os(text);
  if (auto file = dyn_cast<FileLineColLoc>(loc))
    os << llvm::sys::path::filename(file.getFilename().getValue()) << ":"
       << file.getLine() << ":" << file.getColumn();
  else
    os << loc;
  return text;
}

/// The traffic of one call of `func`, callees included; `emit` remarks
/// each op of `func` itself. `active` holds the functions being summed, so
/// that recursion stops.
Traffic summarize(func::FuncOp func, bool emit,
                  llvm::SmallPtrSetImpl<Operation *> &active) {
  Traffic traffic;
  active.insert(func);
  func.walk([&](Operation *op) {
    int loops = 0;
    std::optional<int64_t> runsPerCall = getRunsPerCall(op, loops);
    int64_t runs = runsPerCall.value_or(1);
    // A callee's traffic counts once per call (the pass runs on every
    // function, so each remarks its own ops).
    if (auto call = dyn_cast<func::CallOp>(op)) {
      auto callee = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
          op, call.getCalleeAttr());
      if (!callee || callee.isExternal() || active.contains(callee))
        return;
      traffic.loopsUnknown |= loops && !runsPerCall;
      Traffic called = summarize(callee, /*emit=*/false, active);
      traffic.callees.insert(callee.getSymName());
      traffic.add(called, runs);
      return;
    }
    if (!isa<TransportOp>(op)) {
      auto kernel = dyn_cast<linalg::LinalgOp>(op);
      if (!kernel || !kernel.hasPureTensorSemantics())
        return;
    }
    // An op in loops is stated per iteration and counted in the totals
    // once per run of it in a call.
    std::string perIteration;
    if (loops)
      perIteration = runsPerCall ? " per iteration, " +
                                       std::to_string(*runsPerCall) +
                                       " iterations per call"
                                 : " per iteration of a loop of unknown "
                                   "trip count";
    if (auto transport = dyn_cast<TransportOp>(op)) {
      auto inputType = cast<RankedTensorType>(transport.getInput().getType());
      auto grid = SymbolTable::lookupNearestSymbolFrom<shard::GridOp>(
          op, transport.getGridAttr());
      int64_t groupSize =
          grid ? getCollectiveGroupSize(grid, transport.getGridAxes())
               : ShapedType::kDynamic;
      if (!inputType.hasStaticShape() || ShapedType::isDynamic(groupSize) ||
          groupSize <= 0) {
        traffic.allKnown = false;
        if (emit)
          op->emitRemark() << "traffic: "
                           << stringifyTransportKind(transport.getKind())
                           << " with a dynamic size or group: bytes not "
                              "known statically";
        return;
      }
      Type elementType = inputType.getElementType();
      int64_t elementBytes = (elementType.getIntOrFloatBitWidth() + 7) / 8;
      std::string elementName;
      llvm::raw_string_ostream(elementName) << elementType;
      bool exact = true;
      int64_t bytes =
          transportBytes(transport.getKind(), inputType.getNumElements(),
                         elementBytes, groupSize, exact);
      traffic.loopsUnknown |= loops && !runsPerCall;
      traffic.bounded |= !exact;
      traffic.transports += runs;
      traffic.sent += runs * bytes;
      traffic.received += runs * bytes;
      std::optional<LinkClass> links =
          getLinkClass(grid, transport.getGridAxes());
      traffic.onHostTopology |= links.has_value();
      traffic.linkClassesKnown &= links != LinkClass::Both;
      if (links == LinkClass::AcrossHosts)
        traffic.sentAcrossHosts += runs * bytes;
      auto &kind = traffic.byKind[transport.getKind()];
      kind.first += runs;
      kind.second += runs * bytes;
      if (transport.getKind() == TransportKind::AllGather)
        traffic.gathersBySource[getSourcePosition(op->getLoc())] += 1;
      if (!emit)
        return;
      StringRef bound = exact ? "" : "at most ";
      op->emitRemark() << "traffic: "
                       << stringifyTransportKind(transport.getKind()) << " of "
                       << inputType.getNumElements() << " x " << elementName
                       << " over " << groupSize << " ranks: each rank sends "
                       << bound << bytes << " bytes and receives " << bound
                       << bytes << " bytes"
                       << (!links                           ? ""
                           : links == LinkClass::AcrossHosts ? ", across hosts"
                           : links == LinkClass::InsideHosts
                               ? ", inside its host"
                               : ", to ranks inside its host and on others")
                       << perIteration;
      return;
    }
    auto kernel = cast<linalg::LinalgOp>(op);
    int64_t kernelRead = 0, kernelWritten = 0;
    bool known = true;
    for (OpOperand &operand : op->getOpOperands()) {
      std::optional<int64_t> bytes = tensorBytes(operand.get().getType());
      bool isInit = kernel.isDpsInit(&operand);
      // An output is read only where the body uses its value (a sum's
      // accumulator), not where it merely names the destination.
      bool isRead = !isInit || kernel.payloadUsesValueFromOperand(&operand);
      if (!bytes) {
        known &= !isa<ShapedType>(operand.get().getType());
        continue;
      }
      if (isRead)
        kernelRead += *bytes;
      if (isInit)
        kernelWritten += *bytes;
    }
    if (!known) {
      traffic.allKnown = false;
      if (emit)
        op->emitRemark() << "traffic: kernel with dynamic shapes: bytes not "
                            "known statically";
      return;
    }
    traffic.loopsUnknown |= loops && !runsPerCall;
    traffic.kernels += runs;
    traffic.read += runs * kernelRead;
    traffic.written += runs * kernelWritten;
    if (emit)
      op->emitRemark() << "traffic: kernel reads " << kernelRead
                       << " bytes and writes " << kernelWritten << " bytes"
                       << perIteration;
  });
  active.erase(func);
  return traffic;
}

struct ReportTrafficPass
    : public prec::impl::PrecReportTrafficBase<ReportTrafficPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return markAllAnalysesPreserved();
    // Callees are read, never changed: the pipelines run this pass where
    // no other pass changes functions (lib/Pipelines/Pipelines.cpp).
    llvm::SmallPtrSet<Operation *, 4> active;
    Traffic traffic = summarize(func, /*emit=*/true, active);

    InFlightDiagnostic remark = func.emitRemark();
    remark << "traffic: @" << func.getSymName() << ": "
           << traffic.transports << " transports, each rank sends "
           << traffic.sent << " bytes";
    if (traffic.onHostTopology && traffic.linkClassesKnown)
      remark << " (" << traffic.sentAcrossHosts << " across hosts)";
    remark << " and receives " << traffic.received << " bytes; "
           << traffic.kernels << " kernels read " << traffic.read
           << " bytes and write " << traffic.written << " bytes"
           << (traffic.allKnown ? "" : " (ops of unknown size left out)")
           << (traffic.loopsUnknown ? " (ops in loops of unknown trip count "
                                      "counted once)"
                                    : " per call");
    if (!traffic.callees.empty()) {
      remark << ", callees included (";
      llvm::interleaveComma(traffic.callees, remark,
                            [&](StringRef name) { remark << "@" << name; });
      remark << ")";
    }
    if (!traffic.byKind.empty()) {
      remark << "; by kind:";
      llvm::interleave(
          traffic.byKind, remark,
          [&](const auto &entry) {
            remark << " " << stringifyTransportKind(entry.first) << " "
                   << entry.second.first << " x, "
                   << (entry.first == TransportKind::AllReduce &&
                               traffic.bounded
                           ? "at most "
                           : "")
                   << entry.second.second << " bytes";
          },
          ",");
    }
    // One gather of the source at several places of a step: the backward
    // calls the forward (or holds an inlined copy of it) and gathers the
    // weights again, rather than keeping what the forward gathered.
    for (auto &[source, count] : traffic.gathersBySource)
      if (count > 1)
        remark.attachNote()
            << "the all_gather of " << source << " runs at " << count
            << " places per call: the backward re-runs the forward's "
               "gathers rather than keeping the gathered values";
    markAllAnalysesPreserved();
  }
};

} // namespace
