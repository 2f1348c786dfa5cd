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
    A received tensor read only through static slices (possibly after
    reshapes) of disjoint parts, such as a bucket unpacked into its members,
    becomes one `to_tensor` per slice of a memref view of the received
    buffer, all taken where the received tensor was. The code after
    bufferization is the same; what changes is that one-shot bufferization
    no longer sees the members as aliases of one tensor, whose conflict
    analysis visits every alias at every use and would cost O(members^2).

    A transport `prec-plan-peer-windows` marked `prec.through_peer_window`
    goes through a peer window instead: the kernel that writes its wire
    buffer writes the rank's segment of a buffer the runtime owns
    (`precrtCompiledWindow`, made a memref in the LLVM dialect so that no
    deallocation takes it), `precrtCompiledWindowFence` replaces the
    transport, and the readers read views of the peers' segments in place
    (docs/Prec.md, "Peer windows"). A marked transport that does not fit a
    window (the conditions of `prec-plan-peer-windows`) is an error.

    A `prec.transport_start` becomes `precrtCompiledCollectiveStart` with the
    same operands, which returns a handle, and its `prec.transport_wait`
    becomes `precrtCompiledCollectiveWait` on that handle and the two
    buffers' pointers. The wait takes the input's buffer with a second
    `to_buffer`, a read of the input tensor there, so that bufferization
    neither writes nor frees it while the data moves; the received buffer
    becomes a tensor after the wait.

    `shard.process_linear_index`, `shard.process_multi_index` and
    `shard.grid_shape` of a grid of static shape over the whole world (what
    upstream's partitioning leaves) take their values from the calling
    rank's world index (`precrtCompiledWorldRank`), row-major as the runtime
    numbers a grid's ranks, and from the grid's shape.

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
    "::mlir::LLVM::LLVMDialect",
  ];
}

def PrecPlanPeerWindows
    : InterfacePass<"prec-plan-peer-windows", "mlir::FunctionOpInterface"> {
  let summary = "mark the transports that go through a peer window";
  let description = [{
    Marks `prec.through_peer_window` on each all_gather or all_to_all that
    `convert-prec-to-runtime` can lower through a peer window, and removes
    it from every other transport. The plan belongs with that conversion: a
    window is the runtime's memory, and its lowering reads the plan. A
    transport fits when it runs over more than one rank of a static grid,
    and

    - its wire buffer is the fresh result of one kernel of its block (a
      `linalg` op whose destination is a `tensor.empty` of its own, possibly
      collapsed to the flat buffer) that nothing else reads;
    - its received buffer is read only by kernels of its block, as inputs,
      through static slices and reshapes (an all_to_all's only through its
      expansion to `[N, ...]`), never returned, yielded or stored, and by no
      kernel that only moves data (a copy, transpose or broadcast), which
      later passes may remove or fold into its readers;
    - no other collective runs from that kernel to the last read: no
      transport, and no call but the runtime's entry points that do not
      communicate (`prec/Conversion/RuntimeCalls.h`).

    The readers are judged as they are, so the pass runs after
    `canonicalize` (prec-lower-to-cpu runs both with `peer-windows`), with
    nothing in between that moves a read. `prec-check-peer-windows` checks
    the windows again after bufferization.

    ```mlir
    %p = linalg.generic ... outs(%e : tensor<8xbf16>) -> tensor<8xbf16>
    %g = prec.transport <all_gather> %p on @dp : tensor<8xbf16> -> tensor<16xbf16>
    %w = linalg.generic ... ins(%g : tensor<16xbf16>) ...
    ```
    becomes
    ```mlir
    %g = prec.transport <all_gather> %p on @dp {prec.through_peer_window} : tensor<8xbf16> -> tensor<16xbf16>
    ```
    while a gather that is returned, or read after the next collective,
    stays unmarked.
  }];
}

def PrecScheduleTransports
    : InterfacePass<"prec-schedule-transports", "mlir::FunctionOpInterface"> {
  let summary = "start transports early and wait for them late, so that "
                "communication overlaps compute";
  let description = [{
    Splits every `prec.transport` into a `prec.transport_start` and a
    `prec.transport_wait` and moves the two apart within their block, as
    FSDP2 schedules its collectives:

    - each wait goes right before the first op that reads the result (the
      block's terminator, if nothing else does); the effect-free ops that
      compute from the result alone (its unpacking: reshapes, slices,
      casts, the sum of received chunks) move down to their own first
      readers first, so the wait sits at the first op that also needs
      something else (a layer's matmul, an optimizer);
    - each start goes as early as its wire buffer can be packed: the
      kernels that pack it (ops without memory effects, in the block) move
      up with it, to right after the last value they need. A reduce_scatter
      of a gradient thus starts as soon as the backward function has
      computed that gradient, and its wait sits at the optimizer that reads
      it.
    - all_gathers are held back by a budget: the start of the `i`-th
      all_gather of a block goes no earlier than the wait of the
      `(i - prefetch)`-th, and never above the all_gather before it, so at
      most `prefetch` gathers are in flight beyond the one being computed
      with (FSDP2's default is one), in program order. The
      forward function gathers the next layer's parameters while it
      computes this layer; a start never moves past its own wait.
      `prefetch=0` keeps each all_gather's start where the transport was.

    A transport whose input is another's result (the two levels of a
    two-level collective): a gather's second level moves down with the
    unpacking. A reduction's second level (a reduction on the same grid over
    other axes, whose input is computed from the first level's result
    alone) starts right after the first level's wait, which goes right
    before the next start after the first level's own; any other transport
    that reads a result is scheduled as its kind is.

    Only the places change, and the runtime runs a rank's transports in
    the order they start, so the values are those of the synchronous
    program, bit for bit. Transports marked for a peer window keep their
    place, synchronous. The buffers of a started transport live until its
    wait: the budget bounds the gathered parameters alive at once; a
    reduce_scatter's buffers live from its start to the optimizer.

    ```mlir
    %g = prec.transport <all_gather> %p on @dp : tensor<8xbf16> -> tensor<16xbf16>
    %y = linalg.generic ... ins(%x ...)   // does not read %g
    %z = linalg.generic ... ins(%g ...)
    ```
    becomes
    ```mlir
    %s = prec.transport_start <all_gather> %p on @dp : tensor<8xbf16> -> !prec.in_flight<tensor<16xbf16>>
    %y = linalg.generic ... ins(%x ...)
    %g = prec.transport_wait %s : !prec.in_flight<tensor<16xbf16>>
    %z = linalg.generic ... ins(%g ...)
    ```
  }];
  let options = [
    Option<"prefetch", "prefetch", "int64_t", /*default=*/"1",
           "how many all_gathers of a block may be in flight ahead of the "
           "one whose result is being used (0: none is started early)">,
  ];
}

def ConvertContractionsToRuntime
    : Pass<"convert-contractions-to-runtime", "mlir::ModuleOp"> {
  let summary = "run matmuls on buffers through precrt's gemm";
  let description = [{
    Each contraction on buffers that a gemm computes (`linalg.matmul`, its
    transposed forms given by `indexing_maps`, `linalg.batch_matmul` and
    its transposed forms, and any `linalg.generic` of the same shape: one
    batch loop at most, one m, n and k loop, operands indexed by
    permutations of their loops, a body `out + ext(a) * ext(b)`) becomes a
    call of `precrtCompiledMatmul` (`runtime/include/precrt/compiled.h`) on
    the operands' addresses and their strides along the batch, row and
    column loops, so a transposed operand costs nothing.

    It converts only what the gemm's contract (inputs of f32, bf16, f16,
    f8E4M3FN or f8E5M2 extended exactly to f32, products and sums in f32)
    computes as linalg specifies, or more precisely; the rest stays for
    `convert-linalg-to-loops`: other element types (f64, integers, an fp8
    output), inputs that linalg rounds to a narrower output type first,
    bodies other than a multiply-add, more than one loop of a kind, and
    outputs that may overlap an input. The contract, and the kernel that
    runs the call, are in docs/Prec.md, "Contractions".

    A `linalg.transpose` into a buffer that only feeds the contraction (and
    is then deallocated), with nothing between them that may write or free
    its source, is folded into the strides of the operand and erased, the
    free of its source moved after the call (on tensors,
    `prec-fold-transposes` has folded those that several gemms read, a
    weight's in the forward and the backward):

    ```mlir
    linalg.transpose ins(%w : memref<64x16xbf16>) outs(%wt : memref<16x64xbf16>) permutation = [1, 0]
    linalg.matmul ins(%g, %wt : memref<8x16xf32>, memref<16x64xbf16>)
                  outs(%out : memref<8x64xf32>)
    ```
    becomes
    ```mlir
    %base, %offset, %sizes:2, %strides:2 = memref.extract_strided_metadata %w ...
    ...
    %status = call @precrtCompiledMatmul(%c1, %c8, %c64, %c16,
        %c1_i32, %g_ptr, %c0, %c16, %c1,              // A: f32, row-major
        %c3_i32, %w_ptr, %c0, %c1, %c16,              // B = w^T: bf16, column-major
        %c1_i32, %out_ptr, %c0, %c64, %c1)            // C: f32
        : (i64, i64, i64, i64, i32, index, i64, i64, i64, ...) -> i32
    ```

    With `gpu`, only the contractions cuBLASLt computes under the same
    contract become calls (which `prec-gpu-host-to-runtime` then turns into
    `precrtCompiledGpuMatmul` on the compute stream): A and B of one type
    (f32, bf16 or f16), C f32 or of theirs, and every operand with a
    static unit stride along its rows or its columns (a transpose is folded
    only where its source has one). Inputs of two types, or fp8, are first
    widened exactly into a buffer of the narrowest type that holds both
    (fp8 to bf16 or f16, bf16 with f16 to f32) by an elementwise kernel.
    The rest (f64, integers, an fp8 output, dynamic shapes to widen, views
    without a unit stride) stays for the GPU's loop kernels. What
    `prec-contract-fp8-with-scales` makes of two scaled fp8 operands (fp8
    inputs, rank-0 f32 scales read as scalars or inlined as constants, a
    body `out + (ext(a) * s_a) * (ext(b) * s_b)`, a scale of 1 folded
    away), with `fp8-gemm` (the pipeline sets it for chips with fp8 tensor
    cores) and not both f8E5M2, becomes a call of
    `prec.scaled_gemm` (precrtCompiledMatmul's arguments, then the scales'
    addresses; a constant scale is put in a constant global) where both
    inputs have a unit stride along k, C along n, and static leading
    dimensions and offsets that are multiples of 16 elements, as cuBLASLt's
    fp8 gemm needs;
    `prec-gpu-host-to-runtime` makes it `precrtCompiledGpuMatmul`. A call gets the
    `prec.reduced_precision` that holds for its contraction (its own or the
    nearest around it), the arithmetic below the contract the program
    allows cuBLASLt; the CPU's calls get none, since its gemm computes the
    contract regardless.
  }];
  let options = [
    Option<"gpu", "gpu", "bool", /*default=*/"false",
           "only the contractions cuBLASLt computes, for GPU code">,
    Option<"fp8Gemm", "fp8-gemm", "bool", /*default=*/"false",
           "with gpu: scaled fp8 contractions to cuBLASLt's fp8 gemm (chips "
           "with fp8 tensor cores)">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::func::FuncDialect",
    "::mlir::memref::MemRefDialect",
  ];
}

def ConvertPrecToLinalg : Pass<"convert-prec-to-linalg", "mlir::func::FuncOp"> {
  let summary = "lower prec's local ops (cast, reduce, quantization, sgd, adamw) to linalg";
  let description = [{
    The ops that do not communicate become `linalg.generic` kernels on
    tensors: `prec.cast` an elementwise conversion (round-to-nearest-even,
    or stochastic from its seed's Philox stream), `prec.reduce` a reduction
    in its `acc_dtype` followed by the conversion to the result type,
    `prec.amax` a reduction over the tensor or each block,
    `prec.scale_from_amax`, `prec.quantize` and `prec.dequantize`
    elementwise kernels that read each element's scale, and `prec.sgd` /
    `prec.adamw` one fused kernel each that reads the gradient, updates the
    master (and state) and writes the optional low-precision shard in the
    same loop. fp8 conversions are integer arithmetic (docs/Prec.md).

    fp8 formats other than f8E4M3FN and f8E5M2, tf32 and dynamic shapes are
    rejected naming the op.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

def ConvertShardToPrec : Pass<"convert-shard-to-prec", "mlir::ModuleOp"> {
  let summary = "upstream shard collectives become prec collectives under a "
                "#prec.policy";
  let description = [{
    Runs after upstream's `sharding-propagation` and `shard-partition`. Each
    `shard` collective that has a prec form becomes that prec collective on
    the same grid and the same grid axes, in the same order (the order of
    `grid_axes` is the order of the group, last axis fastest, in both
    dialects):

    | shard | prec |
    | --- | --- |
    | `shard.all_reduce` | `prec.all_reduce` |
    | `shard.all_gather` (`gather_axis`) | `prec.all_gather` (`gather_axis`) |
    | `shard.reduce_scatter` (`scatter_axis`) | `prec.reduce_scatter` (`scatter_axis`) |
    | `shard.all_to_all` (`split_axis`, `concat_axis`) | `prec.all_to_all` |
    | `shard.all_slice` | `shard.process_multi_index` + `tensor.extract_slice` (upstream's lowering) |

    Reduction kinds `sum`, `max`, `min` and `average` (prec's `avg`) map one
    to one; the others are rejected naming the op and the kind. A collective
    over no grid axes is a group of one: its result is its input (converted
    to the result element type with `prec.cast` if that differs; an
    `all_slice`'s with `tensor.cast` where its type has less static shape).
    `shard` ops without a prec form (`broadcast`, `gather`, `scatter`,
    `reduce`, `send`, `recv`, `shift`, `update_halo`) and collectives on
    other than statically ranked float tensors are errors.
    `shard.process_multi_index`,
    `shard.process_linear_index` and `shard.grid_shape` stay: prec's
    runtime lowering (`convert-prec-to-runtime`) gives them their values.

    A gather's gradient sums (`grad_reduction = sum`): a replicated result
    of the partitioned program is the whole value on every rank, never a
    rank's local loss, so the gradient is the exact transpose (see
    docs/Prec.md). A linalg body that
    reads a tensor captured from outside it that may differ between ranks
    is an error: shard-partition does not partition captures.

    The dtypes come from a `#prec.policy`, with the vocabulary and rules of
    `prec-apply-policy`: gathers of parameters (an argument, or a piece of
    one that slices, gathers and casts made) move `param`, gathers of
    activations their own dtype, and every gather takes `reduce` as its
    gradient's wire dtype; reductions move `reduce`; accumulation follows the
    default rules (f32 for a bf16 wire). The policy is the function's
    `prec.policy` attribute, else its module's, else the `policy` option,
    which is then also recorded on the module so that the pipeline's
    `prec-apply-policy` applies its `output` entry. Without a policy the
    dtypes are prec's defaults, which are at least as precise as shard's
    (shard reduces in the result type).

    ```mlir
    %r = shard.all_reduce %x on @grid grid_axes = [1] reduction = average
           : tensor<4x4xf32> -> tensor<4x4xf32>
    ```
    becomes, under `#prec.policy<reduce = bf16>`,
    ```mlir
    %r = prec.all_reduce %x on @grid grid_axes = [1] reduction = <avg>
           forward_dtype = bf16 : tensor<4x4xf32> -> tensor<4x4xf32>
    ```
  }];
  let options = [
    Option<"policy", "policy", "std::string", "\"\"",
           "a #prec.policy attribute for functions and modules without one">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::prec::PrecDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

def PrecMapElementwiseToGPU
    : Pass<"prec-map-elementwise-to-gpu", "mlir::ModuleOp"> {
  let summary = "map elementwise kernels on buffers to vectorized grid-stride "
                "GPU launches";
  let description = [{
    The pack, unpack and optimizer kernels of a lowered prec program are
    elementwise: `linalg.generic` ops whose iterators are all parallel and
    whose indexing maps are identities, `linalg.fill`, `linalg.copy` and
    `memref.copy`, on contiguous buffers of static shape. Each becomes one
    `gpu.launch` shaped for memory bandwidth:

    - a grid-stride loop over the flattened buffers, with as many blocks as
      the work needs but at most what the device keeps resident at once
      (`precrtCompiledGpuMaxBlocks`, asked once per function), so one launch
      covers any size;
    - vectors of `16 / (narrowest element bytes)` elements per iteration, so
      the narrowest operand moves in 16-byte loads and stores and
      conversions come in pairs (`cvt.rn.bf16x2.f32`); a scalar loop takes
      the tail, and every element when a buffer is not 16-byte aligned (a
      view at an odd offset);
    - no division per element: a divisor that does not change across the
      kernel is inverted once per thread; a power of two is multiplied by
      its exact inverse, any other divisor gets one correction step
      (`q = x * r; q = fma(fma(-q, d, x), r, q)`), which gives the correctly
      rounded quotient whenever it and `r` are normal (Markstein); the
      rare other elements take a real division in a branch.

    Other linalg ops (contractions, broadcasts, reductions) are left to
    upstream's parallel-loop mapping.

    ```mlir
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
        ins(%grad : memref<4096xf32>) outs(%wire : memref<4096xbf16>) {
    ^bb0(%g: f32, %w: bf16):
      %s = arith.divf %g, %c4 : f32
      %t = arith.truncf %s : f32 to bf16
      linalg.yield %t : bf16
    }
    ```
    becomes a `gpu.launch` whose body loads `vector<8xf32>`, multiplies by
    `0.25`, truncates to `vector<8xbf16>` and stores, in an `scf.for` from
    the global thread index to 512 with the grid's thread count as step.
  }];
  let options = [
    Option<"threadsPerBlock", "threads-per-block", "int64_t", "256",
           "threads of each block">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::func::FuncDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::vector::VectorDialect",
  ];
}

def PrecGPUHostToRuntime
    : Pass<"prec-gpu-host-to-runtime", "mlir::ModuleOp"> {
  let summary = "keep the host's buffers on the GPU and order its GPU work on "
                "the rank's stream";
  let description = [{
    Runs after the kernels are mapped to `gpu.launch` ops and before
    `gpu-kernel-outlining` (an outlined `gpu.launch_func` in its input is an
    error). Every host function that does GPU work
    asks the runtime once for the calling rank's compute stream
    (`precrtCompiledGpuStream`) and enqueues all of it there, in program
    order:

    - `memref.alloc` / `memref.dealloc` become stream-ordered `gpu.alloc` /
      `gpu.dealloc`, so every buffer lives in device memory (the driver
      passes device buffers as arguments and receives device buffers);
    - kernel launches become `gpu.launch async` on the stream, which
      outlining then turns into `gpu.launch_func` on that stream; a launch
      whose grid may exceed CUDA's 65535 blocks along y or z (upstream's
      mapping puts the tile counts of contractions there) launches at most
      that many, and its body loops over the block ids they stand for;
    - a constant global that a kernel reads is copied to the device first;
    - each `precrtCompiledCollective` becomes
      `precrtCompiledCollectiveOnStream`, which runs the transport on its
      group's own stream between an event recorded after the pack kernel
      and one the unpack kernel waits for (docs/GPU.md); a started
      transport's `precrtCompiledCollectiveStart` and
      `precrtCompiledCollectiveWait` become their `...OnStream` forms: the
      start enqueues the transport on the group's stream, the wait makes the
      compute stream wait for it, and the kernels between the two run beside
      the transport;
    - each `precrtCompiledMatmul` (convert-contractions-to-runtime with
      `gpu`) becomes `precrtCompiledGpuMatmul`, which enqueues the gemm on
      the stream through cuBLASLt.

    The function does not wait for its work: the driver synchronizes the
    stream. Host code that would read or write a device buffer with a
    scalar load or store is rejected.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::func::FuncDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::LLVM::LLVMDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect",
  ];
}

def PrecGPUFp8ToNVVM : Pass<"prec-gpu-fp8-to-nvvm", "mlir::gpu::GPUModuleOp"> {
  let summary = "fp8 rounding in kernels through PTX's paired conversion";
  let description = [{
    In a `gpu.module` whose targets are all NVVM targets of sm_90 or later
    with PTX 7.8 or later, or sm_89 with PTX 8.1 or later (what NVPTX needs
    for the instruction; `#nvvm.target<chip = "sm_90", features = "+ptx80">`
    qualifies), `prec.saturating_truncf` on scalars and 1-D vectors
    becomes `nvvm.convert.f32x2.to.f8x2` with round to nearest and
    `satfinite`, which NVPTX emits as `cvt.rn.satfinite.e4m3x2.f32` /
    `cvt.rn.satfinite.e5m2x2.f32`: one instruction per pair of elements,
    an odd last element converted beside a zero. PTX specifies that
    `satfinite` gives the largest finite value of the input's sign for
    inputs beyond it (infinities included), as prec's fp8 rule does, and
    only *a* NaN for NaN: a select on `x != x` writes the runtime's
    canonical NaN (`0x7F` for f8E4M3FN, `0x7E` for f8E5M2), so results are
    bit for bit `precrt/numerics.h`'s. Other targets keep the op for
    `prec-expand-fp8-arith` (integer arithmetic).

    ```mlir
    %q = prec.saturating_truncf %v : vector<2xf32> to vector<2xf8E4M3FN>
    ```
    becomes
    ```mlir
    %p = nvvm.convert.f32x2.to.f8x2 %v1, %v0 {rnd = #nvvm.fp_rnd_mode<rn>,
           sat = #nvvm.sat_mode<satfinite>} : i16 (f8E4M3FN)
    %b = vector.bitcast %pairs : vector<1xi16> to vector<2xi8>
    %n = arith.cmpf uno, %v, %v : vector<2xf32>
    %s = arith.select %n, %canonical_nan, %b : vector<2xi1>, vector<2xi8>
    %q = arith.bitcast %s : vector<2xi8> to vector<2xf8E4M3FN>
    ```
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::NVVM::NVVMDialect",
    "::mlir::vector::VectorDialect",
  ];
}

def PrecRequestCInterfaces
    : Pass<"prec-request-c-interfaces", "mlir::func::FuncOp"> {
  let summary = "request the C interface of every public function definition";
  let description = [{
    Sets `llvm.emit_c_interface` on every public function with a body, so
    that the LLVM conversion adds `_mlir_ciface_<name>`, which takes and
    returns memrefs through pointers to their descriptors: a C or C++
    program compiled ahead of time calls the lowered entry points through
    it (examples/aot). Declarations keep the plain convention: they are the
    runtime's C functions, which have no wrappers. Upstream's
    `llvm-request-c-wrappers` marks declarations too, and the lowered code
    would then call `_mlir_ciface_precrt...` functions that do not exist.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

#endif // PREC_CONVERSION_PASSES_TD
