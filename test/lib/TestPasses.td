//===- TestPasses.td - prec's test-only passes -------------*- tablegen -*-===//
//
// Passes that exist for prec's tests alone. They are built and registered
// only with PREC_INCLUDE_TESTS (prec-opt and prec-run of a test build), and
// are not part of the reference in docs/reference.
//
//===----------------------------------------------------------------------===//

#ifndef PREC_TEST_LIB_TESTPASSES_TD
#define PREC_TEST_LIB_TESTPASSES_TD

include "mlir/Pass/PassBase.td"

def PrecEmulateGPUKernels
    : Pass<"prec-emulate-gpu-kernels", "mlir::ModuleOp"> {
  let summary = "for tests: run outlined GPU kernels on the host, launched "
                "through the driver";
  let description = [{
    A test-only pass of `prec-lower-to-cuda-emulation` (docs/GPU.md,
    "Running the GPU code without a GPU"); it is no backend for users. It
    runs after `gpu-kernel-outlining`, where every kernel prec's mapping
    produced is a `gpu.func` and the host launches it with
    `gpu.launch_func` on the rank's stream, and keeps both sides as they
    are, except for where the kernel body runs:

    - each kernel `@m::@k` becomes a host function
      `@__prec_emulated_m_k(!llvm.ptr params, !llvm.ptr launch)` whose body
      is the kernel's, run once per thread in loops over the blocks and
      threads of the launch (`gpu.block_id`, `gpu.thread_id`,
      `gpu.block_dim`, `gpu.grid_dim` and `gpu.global_id` become the loop
      variables and the launch's sizes). Every `memref.load`/`store` and
      `vector.load`/`store` of the body first checks that it is inside its
      buffer, and calls the driver's `outOfBounds(message)` (which reports
      the kernel and ends the process) if not; before any thread runs,
      every buffer argument is given to the driver, which refuses the
      launch unless the buffer lies in device memory;
    - each `gpu.launch_func` becomes the call that upstream's translation
      would emit, `mgpuLaunchKernel(function, grid, block, shared memory,
      stream, params, nullptr, count)`, on the same stream, with the host
      function as the kernel: `params[i]` points to argument `i` (a memref
      as its descriptor, an `index` as an i64), and `extra` is
      `{0x50524543, {count, size of each argument}, nullptr}` so that the
      driver can copy the arguments at the launch and run the kernel later,
      in stream order. The call is made only when
      `@__prec_emulated_kernels_ready()` says the driver takes emulated
      kernels: the first call in the process loads the marker image
      `"prec-emulated-kernels"` through `mgpuModuleLoad`, which the test
      driver takes and a CUDA driver rejects as an invalid image; rejected,
      it writes `emulated kernels need the test CUDA driver ...` on stderr
      and no launch is made, so that no real driver is handed a host
      function.

    The driver calls the function as `kernel(params, launch)`, `launch`
    pointing to `{i64 grid[3]; i64 block[3]; i32 (*inDeviceMemory)(launch,
    i64 address, i64 bytes); void (*outOfBounds)(const char *message);}`
    (the test driver in runtime/test/fakes).
    Kernels that need threads to run at the same time (`gpu.barrier`,
    shuffles, subgroup operations) or shared or private memory are
    rejected: threads run one after another.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::func::FuncDialect",
    "::mlir::LLVM::LLVMDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect",
  ];
}

#endif // PREC_TEST_LIB_TESTPASSES_TD
