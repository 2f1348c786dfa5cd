//===- GPUHostToRuntime.cpp - device buffers and the rank's stream --------===//
//
// After kernels are gpu.launch ops, what stays on the host is bookkeeping:
// buffers, launches, collectives. All of it is enqueued on one stream per
// rank, the runtime's compute stream, so the host never waits for the GPU
// inside a step; the runtime orders each collective's own stream against it
// with events.
//
//===----------------------------------------------------------------------===//

#include "prec/Conversion/ContractionsToRuntime/Gemm.h"
#include "prec/Conversion/Passes.h"
#include "prec/Dialect/Prec/IR/PrecAttrs.h"
#include "prec/Dialect/Prec/IR/PrecDialect.h"

#include "precrt/compiled.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Transforms/RegionUtils.h"

namespace mlir::prec {
#define GEN_PASS_DEF_PRECGPUHOSTTORUNTIME
#include "prec/Conversion/Passes.h.inc"
} // namespace mlir::prec

using namespace mlir;
using namespace mlir::prec;

namespace {

/// Declares `name` once per module.
func::FuncOp getOrDeclare(ModuleOp module, StringRef name, FunctionType type) {
  if (auto existing = module.lookupSymbol<func::FuncOp>(name))
    return existing;
  OpBuilder builder = OpBuilder::atBlockBegin(module.getBody());
  auto declaration = func::FuncOp::create(builder, module.getLoc(), name, type);
  declaration.setPrivate();
  return declaration;
}

/// The runtime's collective entry points on host buffers, each with its
/// form on the stream.
constexpr std::pair<llvm::StringLiteral, llvm::StringLiteral>
    kCollectivesOnStream[] = {
        {PRECRT_COMPILED_COLLECTIVE_SYMBOL,
         PRECRT_COMPILED_COLLECTIVE_ON_STREAM_SYMBOL},
        {PRECRT_COMPILED_COLLECTIVE_START_SYMBOL,
         PRECRT_COMPILED_COLLECTIVE_START_ON_STREAM_SYMBOL},
        {PRECRT_COMPILED_COLLECTIVE_WAIT_SYMBOL,
         PRECRT_COMPILED_COLLECTIVE_WAIT_ON_STREAM_SYMBOL},
};

/// The form on the stream of a collective call (a transport, or either half
/// of a started one); empty for other ops.
StringRef getCollectiveOnStream(Operation *op) {
  auto call = dyn_cast<func::CallOp>(op);
  if (!call)
    return {};
  for (auto [onHost, onStream] : kCollectivesOnStream)
    if (call.getCallee() == onHost)
      return onStream;
  return {};
}

bool isCollectiveCall(Operation *op) {
  return !getCollectiveOnStream(op).empty();
}

bool isMatmulCall(Operation *op) {
  auto call = dyn_cast<func::CallOp>(op);
  return call && (call.getCallee() == PRECRT_COMPILED_MATMUL_SYMBOL ||
                  call.getCallee() == kScaledGemmSymbol);
}

/// A runtime call that does GPU work on device buffers, on the stream.
bool isRuntimeGPUCall(Operation *op) {
  return isCollectiveCall(op) || isMatmulCall(op);
}

/// Whether `function` is GPU code: an entry point (the driver passes it
/// device buffers) or a function that launches kernels, allocates buffers
/// or runs collectives. Other private functions (the deallocation helper)
/// are host code on host memory and stay as they are.
bool doesGPUWork(func::FuncOp function) {
  return function.isPublic() ||
         function
             .walk([](Operation *op) {
               return isa<gpu::LaunchOp, memref::AllocOp>(op) ||
                              isRuntimeGPUCall(op)
                          ? WalkResult::interrupt()
                          : WalkResult::advance();
             })
             .wasInterrupted();
}

/// The buffer `value` is a view of.
Value getRootBuffer(Value value) {
  while (auto view = value.getDefiningOp<ViewLikeOpInterface>())
    value = view.getViewSource();
  return value;
}

/// The buffers whose elements `op` (and what it holds) reads or writes.
SmallVector<Value> getAccessedBuffers(Operation *op) {
  SmallVector<Value> buffers;
  op->walk([&](Operation *nested) {
    if (auto load = dyn_cast<memref::LoadOp>(nested))
      buffers.push_back(load.getMemRef());
    else if (auto store = dyn_cast<memref::StoreOp>(nested))
      buffers.push_back(store.getMemRef());
    else if (auto load = dyn_cast<vector::LoadOp>(nested))
      buffers.push_back(load.getBase());
    else if (auto store = dyn_cast<vector::StoreOp>(nested))
      buffers.push_back(store.getBase());
  });
  return buffers;
}

/// Whether `op` holds host work of its own (launches, calls, buffers) and so
/// must stay on the host, its regions processed one op at a time.
bool holdsHostWork(Operation *op) {
  return op
      ->walk([](Operation *nested) {
        return isa<gpu::LaunchOp, func::CallOp, memref::AllocOp,
                   memref::DeallocOp>(nested)
                   ? WalkResult::interrupt()
                   : WalkResult::advance();
      })
      .wasInterrupted();
}

/// The host's GPU work of one function, enqueued on the rank's stream.
class HostRewriter {
public:
  HostRewriter(ModuleOp module, func::FuncOp function)
      : module(module), function(function),
        builder(OpBuilder::atBlockBegin(&function.getBody().front())) {}

  LogicalResult run() {
    if (!doesGPUWork(function))
      return success();
    classifyBuffers();
    if (failed(moveElementAccessesToDevice(function.getBody().front())))
      return failure();

    SmallVector<Operation *> work;
    function.walk([&](Operation *op) {
      if (op->getParentOfType<gpu::LaunchOp>())
        return;
      if (auto alloc = dyn_cast<memref::AllocOp>(op)) {
        if (deviceBuffers.contains(alloc.getResult()))
          work.push_back(op);
      } else if (auto dealloc = dyn_cast<memref::DeallocOp>(op)) {
        if (deviceBuffers.contains(getRootBuffer(dealloc.getMemref())))
          work.push_back(op);
      } else if (isa<gpu::LaunchOp, memref::CopyOp>(op) ||
                 isRuntimeGPUCall(op)) {
        work.push_back(op);
      } else if (auto call = dyn_cast<func::CallOp>(op)) {
        if (callsGPUCode(call))
          work.push_back(op);
      }
    });
    createStream();
    for (Operation *op : work)
      if (failed(rewrite(op)))
        return failure();
    return success();
  }

private:
  /// Arguments and the buffers GPU functions return are device buffers by
  /// convention; an allocation is one when a kernel, a collective, a GPU
  /// function or the caller sees it, otherwise it is the host's own
  /// bookkeeping (deallocation metadata).
  void classifyBuffers() {
    for (BlockArgument argument : function.getArguments())
      if (isa<MemRefType>(argument.getType()))
        deviceBuffers.insert(argument);
    function.walk([&](Operation *op) {
      if (auto alloc = dyn_cast<memref::AllocOp>(op)) {
        if (reachesDevice(alloc.getResult()))
          deviceBuffers.insert(alloc.getResult());
      } else if (auto call = dyn_cast<func::CallOp>(op)) {
        if (callsGPUCode(call))
          for (Value result : call.getResults())
            if (isa<MemRefType>(result.getType()))
              deviceBuffers.insert(result);
      }
    });
  }

  bool callsGPUCode(func::CallOp call) {
    auto callee = module.lookupSymbol<func::FuncOp>(call.getCallee());
    return callee && !callee.isExternal() && doesGPUWork(callee);
  }

  /// Whether `buffer`, through any value made from it, reaches a kernel, a
  /// collective, GPU code or the caller. Values that leave the block by a
  /// branch count as reaching the device: only data buffers travel that way.
  bool reachesDevice(Value buffer) {
    SmallVector<Value> worklist{buffer};
    DenseSet<Value> visited{buffer};
    while (!worklist.empty()) {
      Value value = worklist.pop_back_val();
      for (Operation *user : value.getUsers()) {
        if (user->getParentOfType<gpu::LaunchOp>() ||
            isa<gpu::LaunchOp, func::ReturnOp>(user) ||
            isRuntimeGPUCall(user) || user->getNumSuccessors() != 0)
          return true;
        if (auto call = dyn_cast<func::CallOp>(user))
          if (callsGPUCode(call))
            return true;
        // Views, selects and addresses (the runtime takes buffers as
        // integers) carry the buffer on.
        for (Value result : user->getResults())
          if (isa<BaseMemRefType>(result.getType()) ||
              isa<memref::ExtractAlignedPointerAsIndexOp>(user))
            if (visited.insert(result).second)
              worklist.push_back(result);
      }
    }
    return false;
  }

  /// Moves host loops over device buffer elements (what upstream's loop
  /// mapping leaves sequential: a reduction over every dimension) into
  /// one-thread launches. Fails on host code that needs an element's value
  /// or mixes host and device buffers.
  LogicalResult moveElementAccessesToDevice(Block &block) {
    for (Operation &op : llvm::make_early_inc_range(block)) {
      if (isa<gpu::LaunchOp>(op))
        continue;
      SmallVector<Value> accessed = getAccessedBuffers(&op);
      if (accessed.empty())
        continue;
      if (holdsHostWork(&op)) {
        for (Region &region : op.getRegions())
          for (Block &nested : region)
            if (failed(moveElementAccessesToDevice(nested)))
              return failure();
        continue;
      }
      size_t onDevice = llvm::count_if(accessed, [&](Value buffer) {
        return deviceBuffers.contains(getRootBuffer(buffer));
      });
      if (onDevice == 0)
        continue;
      if (onDevice != accessed.size())
        return op.emitOpError()
               << "accesses both host and device buffers; GPU code keeps "
                  "tensor data on the device";
      if (op.getNumResults() != 0)
        return op.emitOpError()
               << "reads a device buffer for the host; on the GPU, host code "
                  "can only pass buffers on";
      OpBuilder launchBuilder(&op);
      Value one = arith::ConstantIndexOp::create(launchBuilder, op.getLoc(), 1);
      auto launch = gpu::LaunchOp::create(launchBuilder, op.getLoc(), one, one,
                                          one, one, one, one);
      launchBuilder.setInsertionPointToStart(&launch.getBody().front());
      auto terminator = gpu::TerminatorOp::create(launchBuilder, op.getLoc());
      op.moveBefore(terminator);
    }
    return success();
  }

  void createStream() {
    Location loc = function.getLoc();
    auto pointer = LLVM::LLVMPointerType::get(builder.getContext());
    func::FuncOp getStream =
        getOrDeclare(module, PRECRT_COMPILED_GPU_STREAM_SYMBOL,
                     builder.getFunctionType({}, {pointer}));
    stream = func::CallOp::create(builder, loc, getStream).getResult(0);
    // gpu-to-llvm represents a token as the stream it orders work on, so
    // every op made async on this token runs on the runtime's stream.
    token = UnrealizedConversionCastOp::create(
                builder, loc, gpu::AsyncTokenType::get(builder.getContext()),
                stream)
                .getResult(0);
  }

  LogicalResult rewrite(Operation *op) {
    builder.setInsertionPoint(op);
    Type tokenType = token.getType();
    if (auto alloc = dyn_cast<memref::AllocOp>(op)) {
      auto deviceAlloc = gpu::AllocOp::create(
          builder, alloc.getLoc(), alloc.getType(), tokenType, token,
          alloc.getDynamicSizes(), alloc.getSymbolOperands(),
          /*hostShared=*/false);
      alloc.replaceAllUsesWith(deviceAlloc.getMemref());
      alloc.erase();
      return success();
    }
    if (auto dealloc = dyn_cast<memref::DeallocOp>(op)) {
      gpu::DeallocOp::create(builder, dealloc.getLoc(), tokenType, token,
                             dealloc.getMemref());
      dealloc.erase();
      return success();
    }
    if (auto copy = dyn_cast<memref::CopyOp>(op))
      return copy.emitOpError()
             << "is left on the host; prec-map-elementwise-to-gpu maps "
                "copies to kernels";
    if (auto launch = dyn_cast<gpu::LaunchOp>(op))
      return rewriteLaunch(launch);
    auto call = cast<func::CallOp>(op);
    if (StringRef onStream = getCollectiveOnStream(call); !onStream.empty())
      return rewriteOnStream(call, onStream);
    if (isMatmulCall(call))
      return rewriteMatmul(call);
    return rewriteGPUCall(call);
  }

  /// Whether an op in `region` may write `buffer`: a use that declares a
  /// write of it, or one that does not say (a view, an unknown op).
  static bool mayWriteInRegion(Value buffer, Region &region) {
    return llvm::any_of(buffer.getUsers(), [&](Operation *user) {
      if (!region.isAncestor(user->getParentRegion()))
        return false;
      auto effects = dyn_cast<MemoryEffectOpInterface>(user);
      return !effects ||
             effects.getEffectOnValue<MemoryEffects::Write>(buffer).has_value();
    });
  }

  /// CUDA launches at most 65535 blocks along y and z. Upstream's mapping
  /// of contractions puts tile counts there, which grow with the tensor: a
  /// launch whose y or z size may exceed the limit gets the limit (or its
  /// size, if smaller), and its body loops over the block ids it stands
  /// for, `id, id + limit, ...`, seeing the full size as the grid's.
  LogicalResult fitGridLimits(gpu::LaunchOp launch) {
    constexpr int64_t kMaxGridYZ = 65535;
    Block &body = launch.getBody().front();
    if (!launch.getBody().hasOneBlock())
      return success();
    for (int dim = 1; dim < 3; ++dim) {
      OpOperand &sizeOperand = dim == 1 ? launch.getGridSizeYMutable()
                                        : launch.getGridSizeZMutable();
      Value size = sizeOperand.get();
      std::optional<int64_t> known = getConstantIntValue(size);
      if (known && *known <= kMaxGridYZ)
        continue;
      Location loc = launch.getLoc();
      builder.setInsertionPoint(launch);
      Value limit = arith::ConstantIndexOp::create(builder, loc, kMaxGridYZ);
      Value launched = arith::MinUIOp::create(builder, loc, size, limit);
      sizeOperand.set(launched);

      Value id = dim == 1 ? launch.getBlockIds().y : launch.getBlockIds().z;
      Value gridSize =
          dim == 1 ? launch.getGridSize().y : launch.getGridSize().z;
      OpBuilder bodyBuilder = OpBuilder::atBlockBegin(&body);
      auto loop = scf::ForOp::create(bodyBuilder, loc, id, size, launched);
      Block *loopBody = loop.getBody();
      for (Operation &op : llvm::make_early_inc_range(
               llvm::make_range(std::next(Block::iterator(loop)),
                                Block::iterator(body.getTerminator()))))
        op.moveBefore(loopBody->getTerminator());
      id.replaceUsesWithIf(loop.getInductionVar(), [&](OpOperand &use) {
        return loop->isProperAncestor(use.getOwner());
      });
      gridSize.replaceAllUsesWith(size);
    }
    return success();
  }

  /// `value`, a view of the global `root` (or `root` itself), as the same
  /// view of a device copy of `root`, made once per root (`deviceCopyOf`)
  /// and recorded in `deviceCopies` to be freed after its user.
  Value getDeviceCopy(Value value, Value root,
                      DenseMap<Value, Value> &deviceCopyOf,
                      SmallVectorImpl<Value> &deviceCopies) {
    Location loc = value.getLoc();
    Value &copy = deviceCopyOf[root];
    if (!copy) {
      auto type = cast<MemRefType>(root.getType());
      copy = gpu::AllocOp::create(builder, loc, type, token.getType(), token,
                                  {}, {}, /*hostShared=*/false)
                 .getMemref();
      gpu::MemcpyOp::create(builder, loc, token.getType(), token, copy, root);
      deviceCopies.push_back(copy);
    }
    // The same views, of the copy.
    SmallVector<Operation *> views;
    for (Value view = value; view != root;
         view = cast<ViewLikeOpInterface>(view.getDefiningOp()).getViewSource())
      views.push_back(view.getDefiningOp());
    IRMapping mapping;
    mapping.map(root, copy);
    for (Operation *view : llvm::reverse(views))
      builder.clone(*view, mapping);
    return mapping.lookup(value);
  }

  /// A call of GPU code, whose buffer arguments are device buffers by
  /// convention: a constant global it is passed (the seed a step hands its
  /// generated backward function) goes as a device copy, freed after the
  /// call.
  LogicalResult rewriteGPUCall(func::CallOp call) {
    SmallVector<Value> deviceCopies;
    DenseMap<Value, Value> deviceCopyOf;
    for (OpOperand &operand : call->getOpOperands()) {
      Value value = operand.get();
      if (!isa<BaseMemRefType>(value.getType()))
        continue;
      Value root = getRootBuffer(value);
      auto getGlobal = root.getDefiningOp<memref::GetGlobalOp>();
      if (!getGlobal)
        continue;
      auto global = SymbolTable::lookupNearestSymbolFrom<memref::GlobalOp>(
          getGlobal, getGlobal.getNameAttr());
      if (!global || !global.getConstant())
        return call.emitOpError()
               << "passes the mutable global " << getGlobal.getNameAttr()
               << " to GPU code, which works on device copies of globals "
                  "and may only read them";
      operand.set(getDeviceCopy(value, root, deviceCopyOf, deviceCopies));
    }
    builder.setInsertionPointAfter(call);
    for (Value copy : deviceCopies)
      gpu::DeallocOp::create(builder, call.getLoc(), token.getType(), token,
                             copy);
    return success();
  }

  /// The launch, async on the stream, reading device copies of the globals
  /// it uses, directly or through views (the elementwise mapping captures a
  /// collapsed or expanded view of a multi-dimensional or rank-0 global).
  LogicalResult rewriteLaunch(gpu::LaunchOp launch) {
    if (failed(fitGridLimits(launch)))
      return failure();
    builder.setInsertionPoint(launch);
    Location loc = launch.getLoc();
    SetVector<Value> captured;
    getUsedValuesDefinedAbove(launch.getBody(), captured);
    SmallVector<Value> deviceCopies;
    DenseMap<Value, Value> deviceCopyOf;
    for (Value value : captured) {
      if (value.getDefiningOp<memref::AllocaOp>())
        return launch.emitOpError()
               << "reads a host stack buffer; buffers of GPU code are "
                  "allocated with memref.alloc";
      Value root = getRootBuffer(value);
      auto getGlobal = root.getDefiningOp<memref::GetGlobalOp>();
      if (!getGlobal || !isa<BaseMemRefType>(value.getType()))
        continue;
      // The kernel gets a device copy: what it wrote would be lost.
      auto global = SymbolTable::lookupNearestSymbolFrom<memref::GlobalOp>(
          getGlobal, getGlobal.getNameAttr());
      if ((!global || !global.getConstant()) &&
          mayWriteInRegion(value, launch.getBody()))
        return launch.emitOpError()
               << "writes the mutable global " << getGlobal.getNameAttr()
               << "; GPU code works on device copies of globals, so it "
                  "may only read them";
      replaceAllUsesInRegionWith(
          value, getDeviceCopy(value, root, deviceCopyOf, deviceCopies),
          launch.getBody());
    }

    if (launch.getAsyncToken()) {
      launch.getAsyncDependenciesMutable().append(token);
    } else {
      auto async = gpu::LaunchOp::create(
          builder, loc, launch.getGridSizeX(), launch.getGridSizeY(),
          launch.getGridSizeZ(), launch.getBlockSizeX(), launch.getBlockSizeY(),
          launch.getBlockSizeZ(), launch.getDynamicSharedMemorySize(),
          token.getType(), token);
      async.getBody().takeBody(launch.getBody());
      launch.erase();
      launch = async;
    }
    builder.setInsertionPointAfter(launch);
    for (Value copy : deviceCopies)
      gpu::DeallocOp::create(builder, loc, token.getType(), token, copy);
    return success();
  }

  /// precrtCompiledMatmul -> precrtCompiledGpuMatmul, with the bits of the
  /// reduced precision convert-contractions-to-runtime put on the call. An
  /// operand in a constant global (a weight the program holds as a
  /// constant) is read from a device copy, freed after the call: the gemm
  /// takes operands by address, and cuBLASLt reads only device memory.
  LogicalResult rewriteMatmul(func::CallOp call) {
    SmallVector<Value> deviceCopies;
    DenseMap<Value, Value> deviceCopyOf;
    builder.setInsertionPoint(call);
    for (OpOperand &operand : call->getOpOperands()) {
      unsigned index = operand.getOperandNumber();
      // An address: the buffer's aligned pointer, plus its offset.
      SmallVector<arith::AddIOp> offsets;
      Value address = operand.get();
      while (auto add = address.getDefiningOp<arith::AddIOp>()) {
        offsets.push_back(add);
        address = add.getLhs();
      }
      auto pointer =
          address.getDefiningOp<memref::ExtractAlignedPointerAsIndexOp>();
      if (!pointer)
        continue;
      Value root = getRootBuffer(pointer.getSource());
      auto getGlobal = root.getDefiningOp<memref::GetGlobalOp>();
      if (!getGlobal)
        continue;
      auto global = SymbolTable::lookupNearestSymbolFrom<memref::GlobalOp>(
          getGlobal, getGlobal.getNameAttr());
      // C (the 16th argument: batch, m, n, k, then dtype, address and
      // strides of A, B and C) is written.
      constexpr unsigned kCAddress = 15;
      if (!global || !global.getConstant() || index == kCAddress)
        return call.emitOpError()
               << "multiplies into or out of the global "
               << getGlobal.getNameAttr()
               << " on the GPU, which works on device copies of globals "
                  "and may only read constant ones";
      // This call's own address of the copy: the pointer and its offsets
      // may be shared with other users, which keep reading the global.
      IRMapping mapping;
      mapping.map(pointer.getSource(),
                  getDeviceCopy(pointer.getSource(), root, deviceCopyOf,
                                deviceCopies));
      Value copied = builder.clone(*pointer, mapping)->getResult(0);
      for (arith::AddIOp add : llvm::reverse(offsets)) {
        mapping.map(add.getLhs(), copied);
        copied = builder.clone(*add, mapping)->getResult(0);
      }
      operand.set(copied);
    }
    Operation *next = call->getNextNode();
    if (failed(rewriteMatmulOnStream(call)))
      return failure();
    builder.setInsertionPoint(next);
    for (Value copy : deviceCopies)
      gpu::DeallocOp::create(builder, copy.getLoc(), token.getType(), token,
                             copy);
    return success();
  }

  /// The gemm call on the stream, with null scales unless it is the scaled
  /// form, and the program's reduced-precision bits.
  LogicalResult rewriteMatmulOnStream(func::CallOp call) {
    auto reduced = call->getAttrOfType<ReducedPrecisionAttr>(
        PrecDialect::kReducedPrecisionAttrName);
    static_assert(
        uint32_t(ReducedPrecision::tf32) == PRECRT_REDUCED_PRECISION_TF32 &&
            uint32_t(ReducedPrecision::output_type_reduction) ==
                PRECRT_REDUCED_PRECISION_OUTPUT_TYPE_REDUCTION &&
            uint32_t(ReducedPrecision::fp8_accumulation) ==
                PRECRT_REDUCED_PRECISION_FP8_ACCUMULATION,
        "#prec.reduced_precision and precrt_reduced_precision_t agree");
    SmallVector<Value> extra;
    // No scales (null addresses), except on the scaled fp8 form, which
    // carries their addresses.
    if (call.getCallee() != kScaledGemmSymbol)
      extra.assign(
          2, arith::ConstantIndexOp::create(builder, call.getLoc(), 0));
    extra.push_back(arith::ConstantIntOp::create(
        builder, call.getLoc(), builder.getI32Type(),
        reduced ? int64_t(reduced.getValue()) : 0));
    return rewriteOnStream(call, PRECRT_COMPILED_GPU_MATMUL_SYMBOL, extra);
  }

  /// The collective or gemm on device buffers as the runtime's entry point
  /// `name`, which takes `call`'s operands, then `extra`, then the stream to
  /// order it on.
  LogicalResult rewriteOnStream(func::CallOp call, StringRef name,
                                ValueRange extra = {}) {
    SmallVector<Value> operands(call.getOperands());
    llvm::append_range(operands, extra);
    operands.push_back(stream);
    SmallVector<Type> types(call.getOperandTypes());
    llvm::append_range(types, extra.getTypes());
    types.push_back(stream.getType());
    func::FuncOp onStream = getOrDeclare(
        module, name, builder.getFunctionType(types, call.getResultTypes()));
    auto replacement =
        func::CallOp::create(builder, call.getLoc(), onStream, operands);
    call.replaceAllUsesWith(replacement.getResults());
    call.erase();
    return success();
  }

  ModuleOp module;
  func::FuncOp function;
  OpBuilder builder;
  /// Device buffers of the function: arguments and allocations, never views.
  DenseSet<Value> deviceBuffers;
  Value stream;
  Value token;
};

struct PrecGPUHostToRuntimePass
    : public prec::impl::PrecGPUHostToRuntimeBase<PrecGPUHostToRuntimePass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    // An outlined launch has lost the body this pass rewrites around; left
    // as it is, it would run off the rank's stream.
    WalkResult outlined = module.walk([](gpu::LaunchFuncOp launch) {
      launch.emitOpError()
          << "in the input of prec-gpu-host-to-runtime: expected kernels as "
             "'gpu.launch' (run the pass before gpu-kernel-outlining)";
      return WalkResult::interrupt();
    });
    if (outlined.wasInterrupted())
      return signalPassFailure();
    for (auto function :
         llvm::make_early_inc_range(module.getOps<func::FuncOp>()))
      if (!function.isExternal() &&
          failed(HostRewriter(module, function).run()))
        return signalPassFailure();
    // The scaled gemm's callee is no runtime function: every call of it is
    // precrtCompiledGpuMatmul now.
    if (auto scaled = module.lookupSymbol<func::FuncOp>(kScaledGemmSymbol);
        scaled && scaled.isExternal() &&
        SymbolTable::symbolKnownUseEmpty(scaled, module))
      scaled.erase();
  }
};

} // namespace
