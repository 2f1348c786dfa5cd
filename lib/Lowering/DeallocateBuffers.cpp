//===- DeallocateBuffers.cpp - free local buffers after their last use ----===//
//
// A buffer is local when every use of it and of its views is an op of its
// own block or nested in one, and none of them lets it out: no return, no
// yield, no call that returns buffers, no op that makes a buffer from it
// other than a view. Its last use in the block is then where it dies. One
// walk over the uses of each buffer finds that point, so the pass is linear
// in the size of the program; upstream's deallocation handles the rest.
//
//===----------------------------------------------------------------------===//

#include "prec/Dialect/Prec/IR/PrecDialect.h"
#include "prec/Lowering/Passes.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "mlir/Pass/PassManager.h"

namespace mlir::prec {
#define GEN_PASS_DEF_PRECDEALLOCATEBUFFERS
#include "prec/Lowering/Passes.h.inc"
} // namespace mlir::prec

using namespace mlir;
using namespace mlir::prec;

namespace {

/// Whether `user` may see a buffer (or its address) without letting it out
/// of its block or freeing it: no return, yield or branch (the buffer would
/// live on in the successor), no call that returns buffers, no free.
bool keepsBufferLocal(Operation *user) {
  if (user->hasTrait<OpTrait::ReturnLike>() ||
      isa<RegionBranchTerminatorOpInterface>(user) ||
      user->getNumSuccessors() != 0)
    return false;
  if (auto call = dyn_cast<CallOpInterface>(user))
    return llvm::none_of(call->getResultTypes(), llvm::IsaPred<BaseMemRefType>);
  auto effects = dyn_cast<MemoryEffectOpInterface>(user);
  return !effects || !effects.hasEffect<MemoryEffects::Free>();
}

/// Whether a value of `type` cannot hold a buffer's address: scalars and
/// vectors of numbers (element values, sizes, offsets).
bool isPlainNumber(Type type) {
  return isa<IntegerType, IndexType, FloatType>(getElementTypeOrSelf(type)) &&
         (type.isIntOrIndexOrFloat() || isa<VectorType>(type));
}

/// The last op of `block` that uses `buffer`, one of its views or its
/// address (the runtime reads and writes buffers it gets as integers), the
/// op itself or one holding the use; failure if the buffer is not local.
/// Null when nothing uses it. Each value is visited once. `exit`, if given,
/// may take the buffer itself (not a view of it) out of the block.
FailureOr<Operation *> findLastLocalUse(Value buffer, Block *block,
                                        Operation *exit = nullptr) {
  Operation *last = nullptr;
  SmallVector<Value> aliases{buffer};
  SmallVector<Value> addresses;
  DenseSet<Value> visited{buffer};
  auto noteUse = [&](Operation *user) {
    Operation *inBlock = block->findAncestorOpInBlock(*user);
    if (inBlock && (!last || last->isBeforeInBlock(inBlock)))
      last = inBlock;
    return inBlock != nullptr;
  };
  auto enqueue = [&](SmallVectorImpl<Value> &list, Value value) {
    if (visited.insert(value).second)
      list.push_back(value);
  };
  while (!aliases.empty() || !addresses.empty()) {
    if (!addresses.empty()) {
      // Integers computed from an address carry it on; stored to memory or
      // turned into a pointer, it is out of sight.
      Value address = addresses.pop_back_val();
      for (OpOperand &use : address.getUses()) {
        Operation *user = use.getOwner();
        if (!keepsBufferLocal(user) || !noteUse(user) ||
            isa<memref::StoreOp, vector::StoreOp>(user))
          return failure();
        for (Value result : user->getResults()) {
          if (!result.getType().isIntOrIndex())
            return failure();
          enqueue(addresses, result);
        }
      }
      continue;
    }
    Value alias = aliases.pop_back_val();
    for (Operation *user : alias.getUsers()) {
      if (user == exit && alias == buffer)
        continue;
      if (!keepsBufferLocal(user) || !noteUse(user))
        return failure();
      if (isa<memref::ExtractAlignedPointerAsIndexOp>(user)) {
        enqueue(addresses, user->getResult(0));
        continue;
      }
      for (Value result : user->getResults()) {
        if (isPlainNumber(result.getType()))
          continue;
        if (!isa<BaseMemRefType>(result.getType()) ||
            (!isa<ViewLikeOpInterface>(user) &&
             !isa<memref::ExtractStridedMetadataOp>(user)))
          return failure();
        enqueue(aliases, result);
      }
    }
  }
  return last;
}

/// The local buffers of `module` whose allocation is a heap allocation.
SmallVector<memref::AllocOp> findLocalBuffers(ModuleOp module) {
  SmallVector<memref::AllocOp> local;
  module.walk([&](memref::AllocOp alloc) {
    // Only static shapes: canonicalization rebuilds an allocation whose
    // dynamic sizes are constants, and would drop the stand-in's tag.
    if (alloc.getType().hasStaticShape() && alloc.getSymbolOperands().empty() &&
        succeeded(findLastLocalUse(alloc.getResult(), alloc->getBlock())))
      local.push_back(alloc);
  });
  return local;
}

/// Whether `function` is left with nothing for upstream's deallocation to
/// do once its local buffers are hidden: one block, and every buffer it
/// creates other than local ones and views is a fresh allocation it returns,
/// once and directly, which its caller then owns. A training step that
/// returns one updated shard per layer is such a function; upstream would
/// retain its L results in one `bufferization.dealloc` and simplify that
/// in time quadratic in L, to nothing.
bool onlyReturnsFreshBuffers(func::FuncOp function) {
  if (!function.getBody().hasOneBlock())
    return false;
  Block &body = function.getBody().front();
  auto returnOp = dyn_cast<func::ReturnOp>(body.getTerminator());
  if (!returnOp)
    return false;

  DenseSet<Value> returned;
  for (Value result : returnOp.getOperands()) {
    if (!isa<BaseMemRefType>(result.getType()))
      continue;
    auto alloc = result.getDefiningOp<memref::AllocOp>();
    if (!alloc || alloc->getBlock() != &body ||
        !returned.insert(result).second ||
        failed(findLastLocalUse(result, &body, returnOp)))
      return false;
  }
  WalkResult walk = function.getBody().walk([&](Operation *op) {
    for (Region &region : op->getRegions())
      for (Block &block : region)
        if (llvm::any_of(block.getArgumentTypes(),
                         llvm::IsaPred<BaseMemRefType>))
          return WalkResult::interrupt();
    for (Value result : op->getResults()) {
      if (!isa<BaseMemRefType>(result.getType()) || returned.contains(result))
        continue;
      bool hidden = op->hasAttr(PrecDialect::kLocalBufferAttrName);
      if (!hidden &&
          !isa<ViewLikeOpInterface, memref::ExtractStridedMetadataOp,
               memref::GetGlobalOp>(op))
        return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return !walk.wasInterrupted();
}

struct PrecDeallocateBuffersPass
    : public prec::impl::PrecDeallocateBuffersBase<PrecDeallocateBuffersPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();

    // Upstream's deallocation takes no IR that frees buffers already (it
    // cannot tell who owns them): say so here, with the pass's name, rather
    // than let its message name an op the user never wrote. The pass's tag
    // for hidden buffers is its own too.
    WalkResult unexpected = module.walk([](Operation *op) {
      if (isa<memref::DeallocOp>(op)) {
        op->emitOpError()
            << "in the input of prec-deallocate-buffers: expected bufferized "
               "IR without deallocations (the pass inserts them all; run it "
               "once)";
        return WalkResult::interrupt();
      }
      if (op->hasAttr(PrecDialect::kLocalBufferAttrName)) {
        op->emitOpError() << "in the input of prec-deallocate-buffers: '"
                          << PrecDialect::kLocalBufferAttrName
                          << "' is the pass's own mark, not an input";
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (unexpected.wasInterrupted())
      return signalPassFailure();

    // Upstream's deallocation leaves stack allocations alone: local buffers
    // become tagged ones while it runs on the rest.
    for (memref::AllocOp alloc : findLocalBuffers(module)) {
      OpBuilder builder(alloc);
      auto standIn = memref::AllocaOp::create(
          builder, alloc.getLoc(), alloc.getType(), alloc.getDynamicSizes(),
          alloc.getSymbolOperands(), alloc.getAlignmentAttr());
      standIn->setAttr(PrecDialect::kLocalBufferAttrName,
                       builder.getUnitAttr());
      alloc.replaceAllUsesWith(standIn.getResult());
      alloc.erase();
    }

    // Functions that leave upstream nothing to do sit its pipeline out as
    // private declarations; their bodies come back afterwards.
    struct SetAside {
      func::FuncOp function;
      std::unique_ptr<Region> body;
      SymbolTable::Visibility visibility;
    };
    SmallVector<SetAside> setAside;
    for (auto function : module.getOps<func::FuncOp>()) {
      if (function.isExternal() || !onlyReturnsFreshBuffers(function))
        continue;
      auto body = std::make_unique<Region>();
      body->takeBody(function.getBody());
      setAside.push_back({function, std::move(body), function.getVisibility()});
      function.setPrivate();
    }

    OpPassManager upstream(ModuleOp::getOperationName());
    bufferization::BufferDeallocationPipelineOptions options;
    bufferization::buildBufferDeallocationPipeline(upstream, options);
    LogicalResult ran = runPipeline(upstream, module);
    for (SetAside &aside : setAside) {
      aside.function.getBody().takeBody(*aside.body);
      aside.function.setVisibility(aside.visibility);
    }
    if (failed(ran))
      return signalPassFailure();

    // Back to heap buffers, each freed after its last use (found again: the
    // pipeline's canonicalization may have removed uses or whole buffers).
    SmallVector<memref::AllocaOp> standIns;
    module.walk([&](memref::AllocaOp alloca) {
      if (alloca->hasAttr(PrecDialect::kLocalBufferAttrName))
        standIns.push_back(alloca);
    });
    for (memref::AllocaOp standIn : standIns) {
      OpBuilder builder(standIn);
      auto alloc = memref::AllocOp::create(
          builder, standIn.getLoc(), standIn.getType(),
          standIn.getDynamicSizes(), standIn.getSymbolOperands(),
          standIn.getAlignmentAttr());
      standIn.replaceAllUsesWith(alloc.getResult());
      standIn.erase();
      FailureOr<Operation *> last =
          findLastLocalUse(alloc.getResult(), alloc->getBlock());
      if (failed(last)) {
        alloc.emitOpError() << "stopped being local during deallocation";
        return signalPassFailure();
      }
      builder.setInsertionPointAfter(*last ? *last : alloc.getOperation());
      memref::DeallocOp::create(builder, alloc.getLoc(), alloc.getResult());
    }
  }
};

} // namespace
