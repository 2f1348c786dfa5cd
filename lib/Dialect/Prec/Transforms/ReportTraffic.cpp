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

struct ReportTrafficPass
    : public prec::impl::PrecReportTrafficBase<ReportTrafficPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return markAllAnalysesPreserved();
    int64_t transports = 0, sent = 0, received = 0;
    int64_t kernels = 0, read = 0, written = 0;
    bool allKnown = true, loopsUnknown = false;

    func.walk([&](Operation *op) {
      if (!isa<TransportOp>(op)) {
        auto kernel = dyn_cast<linalg::LinalgOp>(op);
        if (!kernel || !kernel.hasPureTensorSemantics())
          return;
      }
      // An op in loops is stated per iteration and counted in the totals
      // once per run of it in a call.
      int loops = 0;
      std::optional<int64_t> runsPerCall = getRunsPerCall(op, loops);
      std::string perIteration;
      if (loops)
        perIteration = runsPerCall ? " per iteration, " +
                                         std::to_string(*runsPerCall) +
                                         " iterations per call"
                                   : " per iteration of a loop of unknown "
                                     "trip count";
      int64_t runs = runsPerCall.value_or(1);
      if (auto transport = dyn_cast<TransportOp>(op)) {
        auto inputType = cast<RankedTensorType>(transport.getInput().getType());
        auto grid = SymbolTable::lookupNearestSymbolFrom<shard::GridOp>(
            op, transport.getGridAttr());
        int64_t groupSize =
            grid ? getCollectiveGroupSize(grid, transport.getGridAxes())
                 : ShapedType::kDynamic;
        if (!inputType.hasStaticShape() || ShapedType::isDynamic(groupSize) ||
            groupSize <= 0) {
          allKnown = false;
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
        loopsUnknown |= loops && !runsPerCall;
        transports += runs;
        sent += runs * bytes;
        received += runs * bytes;
        StringRef bound = exact ? "" : "at most ";
        op->emitRemark() << "traffic: "
                         << stringifyTransportKind(transport.getKind())
                         << " of " << inputType.getNumElements() << " x "
                         << elementName << " over " << groupSize
                         << " ranks: each rank sends " << bound << bytes
                         << " bytes and receives " << bound << bytes << " bytes"
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
        allKnown = false;
        op->emitRemark() << "traffic: kernel with dynamic shapes: bytes not "
                            "known statically";
        return;
      }
      loopsUnknown |= loops && !runsPerCall;
      kernels += runs;
      read += runs * kernelRead;
      written += runs * kernelWritten;
      op->emitRemark() << "traffic: kernel reads " << kernelRead
                       << " bytes and writes " << kernelWritten << " bytes"
                       << perIteration;
    });

    func.emitRemark() << "traffic: @" << func.getSymName() << ": " << transports
                      << " transports, each rank sends " << sent
                      << " bytes and receives " << received << " bytes; "
                      << kernels << " kernels read " << read
                      << " bytes and write " << written << " bytes"
                      << (allKnown ? "" : " (ops of unknown size left out)")
                      << (loopsUnknown ? " (ops in loops of unknown trip count "
                                         "counted once)"
                                       : " per call");
    markAllAnalysesPreserved();
  }
};

} // namespace
