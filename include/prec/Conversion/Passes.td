//===- Passes.td - prec conversion passes -------------------*- tablegen -*-===//

#ifndef PREC_CONVERSION_PASSES_TD
#define PREC_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertPrecToRuntime : Pass<"convert-prec-to-runtime", "mlir::ModuleOp"> {
  let summary = "lower prec.transport to calls into the precrt runtime";
  let description = [{
    Each `prec.transport` becomes a call to `precrtCompiledCollective` (see
    `runtime/include/precrt/compiled.h`, whose symbol name and enum values
    the conversion uses directly) on the aligned pointers of its input
    buffer and of a freshly allocated result buffer, with the grid shape and
    axes as constant globals. The tensors are bridged with
    `bufferization.to_buffer` / `bufferization.to_tensor`, so the pass runs
    before one-shot bufferization, which then places the buffers.

    ```mlir
    %r = prec.transport <all_gather> %x on @dp : tensor<8xbf16> -> tensor<32xbf16>
    ```
    becomes
    ```mlir
    %in = bufferization.to_buffer %x read_only : tensor<8xbf16> to memref<8xbf16>
    %out = memref.alloc() {alignment = 64 : i64} : memref<32xbf16>
    ...
    %status = call @precrtCompiledCollective(%c0_i32, %inptr, %outptr, %c8_i64, %c3_i32, ...)
    %r = bufferization.to_tensor %out restrict writable : memref<32xbf16> to tensor<32xbf16>
    ```
    Failures are recorded by the runtime per rank and reported by the
    driver after the program returns (see the header). `shard.grid` symbols
    that nothing refers to any more are erased: their shapes now live in the
    constant globals.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::bufferization::BufferizationDialect",
    "::mlir::func::FuncDialect",
    "::mlir::memref::MemRefDialect",
  ];
}

def ConvertPrecToLinalg : Pass<"convert-prec-to-linalg", "mlir::func::FuncOp"> {
  let summary = "lower prec's local ops (cast, reduce, sgd, adamw) to linalg";
  let description = [{
    The ops that do not communicate become `linalg.generic` kernels on
    tensors: `prec.cast` an elementwise conversion (round-to-nearest-even),
    `prec.reduce` a reduction in its `acc_dtype` followed by the conversion
    to the result type, and `prec.sgd` / `prec.adamw` one fused kernel each
    that reads the gradient, updates the master (and state) and writes the
    optional low-precision shard in the same loop.

    Stochastic rounding and fp8 conversions are rejected naming the op.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

#endif // PREC_CONVERSION_PASSES_TD
