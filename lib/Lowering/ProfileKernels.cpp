//===- ProfileKernels.cpp - time each outlined kernel by kind -------------===//
//
// prec-run --profile says where a step's time goes. The runtime times its
// own entry points (gemm, collectives, waiting); this pass times the
// kernels between them, told apart by whether they touch a collective's
// buffers (pack and unpack kernels) or not (the model's own compute).
//
//===----------------------------------------------------------------------===//

#include "prec/Lowering/Passes.h"

#include "precrt/compiled.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace mlir::prec {
#define GEN_PASS_DEF_PRECPROFILEKERNELS
#include "prec/Lowering/Passes.h.inc"
} // namespace mlir::prec

using namespace mlir;
using namespace mlir::prec;

namespace {

Value rootBuffer(Value value) {
  while (auto view = value.getDefiningOp<ViewLikeOpInterface>())
    value = view.getViewSource();
  return value;
}

func::FuncOp getOrCreateDecl(ModuleOp module, StringRef name,
                             FunctionType type) {
  if (auto existing = module.lookupSymbol<func::FuncOp>(name))
    return existing;
  OpBuilder builder = OpBuilder::atBlockBegin(module.getBody());
  auto decl = func::FuncOp::create(builder, module.getLoc(), name, type);
  decl.setPrivate();
  return decl;
}

/// Whether `callee` is an outlined kernel: a private function with a body
/// that holds a linalg op, or a loop nest (a scatter-add) that
/// prec-outline-kernels marked as a kernel (`noinline`, not `optnone`).
bool isKernel(func::FuncOp callee) {
  if (!callee || !callee.isPrivate() || callee.isExternal())
    return false;
  bool holdsLinalg = false, holdsLoop = false;
  WalkResult calls = callee.walk([&](Operation *op) {
    if (isa<func::CallOp>(op))
      return WalkResult::interrupt();
    holdsLinalg |= isa<linalg::LinalgOp>(op);
    holdsLoop |= isa<scf::ForOp>(op);
    return WalkResult::advance();
  });
  if (calls.wasInterrupted())
    return false;
  if (holdsLinalg)
    return true;
  auto passthrough = callee->getAttrOfType<ArrayAttr>("passthrough");
  auto marked = [&](StringRef name) {
    return passthrough &&
           llvm::is_contained(passthrough.getValue(),
                              StringAttr::get(callee.getContext(), name));
  };
  return holdsLoop && marked("noinline") && !marked("optnone");
}

struct PrecProfileKernelsPass
    : public prec::impl::PrecProfileKernelsBase<PrecProfileKernelsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    MLIRContext *context = &getContext();
    Type i32 = IntegerType::get(context, 32),
         i64 = IntegerType::get(context, 64);
    func::FuncOp start, stop;

    for (auto function : llvm::to_vector(module.getOps<func::FuncOp>())) {
      if (function.isExternal() || isKernel(function))
        continue;
      // The buffers collectives send from and receive into, peer windows
      // included.
      DenseSet<Value> wireBuffers;
      function.walk([&](func::CallOp call) {
        if (call.getCallee() != PRECRT_COMPILED_COLLECTIVE_SYMBOL &&
            call.getCallee() != PRECRT_COMPILED_WINDOW_FENCE_SYMBOL)
          return;
        for (Value operand : call.getOperands())
          if (auto pointer =
                  operand
                      .getDefiningOp<memref::ExtractAlignedPointerAsIndexOp>())
            wireBuffers.insert(rootBuffer(pointer.getSource()));
      });

      function.walk([&](func::CallOp call) {
        if (!isKernel(symbols.lookup<func::FuncOp>(call.getCallee())))
          return;
        if (!start) {
          start = getOrCreateDecl(module, PRECRT_COMPILED_PROFILE_START_SYMBOL,
                                  FunctionType::get(context, {}, {i64}));
          stop = getOrCreateDecl(module, PRECRT_COMPILED_PROFILE_STOP_SYMBOL,
                                 FunctionType::get(context, {i32, i64}, {}));
        }
        bool touchesWire = llvm::any_of(call.getOperands(), [&](Value operand) {
          return isa<MemRefType>(operand.getType()) &&
                 wireBuffers.contains(rootBuffer(operand));
        });
        OpBuilder builder(call);
        Location loc = call.getLoc();
        Value begin = func::CallOp::create(builder, loc, start, ValueRange{})
                          .getResult(0);
        builder.setInsertionPointAfter(call);
        Value kind = arith::ConstantIntOp::create(
            builder, loc, i32,
            touchesWire ? PRECRT_PROFILE_PACK_KERNEL
                        : PRECRT_PROFILE_COMPUTE_KERNEL);
        func::CallOp::create(builder, loc, stop, ValueRange{kind, begin});
      });
    }
  }
};

} // namespace
