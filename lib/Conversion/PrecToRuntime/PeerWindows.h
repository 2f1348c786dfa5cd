//===- PeerWindows.h - Transports through a peer window ---------*- C++ -*-===//
//
// prec-plan-peer-windows marks the transports that fit a peer window and
// convert-prec-to-runtime lowers the marked ones through it; both read the
// conditions from here.
//
//===----------------------------------------------------------------------===//

#ifndef LIB_CONVERSION_PRECTORUNTIME_PEERWINDOWS_H
#define LIB_CONVERSION_PRECTORUNTIME_PEERWINDOWS_H

#include "prec/Dialect/Prec/IR/PrecOps.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

namespace mlir::prec {

/// What a transport through a peer window needs: the kernel that writes the
/// wire buffer and the ops that read what arrives.
struct PeerWindowPlan {
  shard::GridOp grid;
  linalg::LinalgOp producer;
  /// A collapse of the producer's result into the flat wire buffer, or null.
  tensor::CollapseShapeOp flatten;
  /// all_to_all: the reshapes of the received buffer to [N, chunk shape].
  SmallVector<tensor::ExpandShapeOp> expansions;
  int64_t groupSize = 1;
};

/// The plan for `op` if it can run through a peer window: an all_gather or
/// all_to_all over more than one rank of a static grid whose wire buffer is
/// the fresh result of one kernel used by nothing else, whose received
/// buffer only kernels read (none that only moves data), and with no other
/// collective from that kernel to its last reader, all in one block.
/// Otherwise failure, and `whyNot` (if given) says which condition fails.
/// The readers are taken as they are: the canonicalizer must have run.
FailureOr<PeerWindowPlan> planPeerWindow(TransportOp op,
                                         std::string *whyNot = nullptr);

} // namespace mlir::prec

#endif // LIB_CONVERSION_PRECTORUNTIME_PEERWINDOWS_H
