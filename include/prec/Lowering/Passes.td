//===- Passes.td - prec's lowering machinery ---------------*- tablegen -*-===//
//
// Passes that are not about prec's semantics but about turning a lowered
// program into code that runs well: kernels fused and their callees
// inlined, aggregate linalg ops decomposed, transposes folded into gemms,
// buffers at function boundaries, buffer deallocation, kernels outlined into
// functions and their profiling, fp8 and 16-bit float arithmetic expanded.
// The pipelines run them after every prec collective has been decomposed;
// they apply to any linalg program.
//
//===----------------------------------------------------------------------===//

#ifndef PREC_LOWERING_PASSES_TD
#define PREC_LOWERING_PASSES_TD

include "mlir/Pass/PassBase.td"

def PrecBufferizeEntryBoundaries
    : Pass<"prec-bufferize-entry-boundaries", "mlir::ModuleOp"> {
  let summary = "give the functions nothing in the module refers to memref signatures";
  let description = [{
    One-shot module bufferization relates every tensor result of a function
    to every tensor argument, to tell its callers which results alias which
    arguments. A training step of L layers takes and returns a shard per
    layer, so that is L x L alias queries: about a second at 4096 layers,
    for information no caller in the module can use when none calls it.

    This pass bufferizes the boundary of each function that nothing in the
    module refers to, with the conventions one-shot bufferization uses in
    prec's pipelines (`bufferize-function-boundaries`,
    `function-boundary-type-conversion=identity-layout-map`): each ranked
    tensor argument becomes a memref with the identity layout, read inside
    through a `restrict` tensor that is writable unless the argument carries
    `bufferization.writable = false`, and each returned tensor leaves
    through a `read_only` `to_buffer` (the function does not write it after
    the return; the caller owns it as it would upstream's result). The body
    stays on tensors for one-shot bufferization, and the calling convention
    is the one upstream would give when one-shot bufferization runs next
    with those options, as it does in prec's pipelines:

    ```mlir
    func.func @step(%shard: tensor<16xf32>) -> tensor<16xf32> {
      ...
      return %next : tensor<16xf32>
    }
    ```
    becomes
    ```mlir
    func.func @step(%arg0: memref<16xf32>) -> memref<16xf32> {
      %shard = bufferization.to_tensor %arg0 restrict writable
          : memref<16xf32> to tensor<16xf32>
      ...
      %0 = bufferization.to_buffer %next read_only
          : tensor<16xf32> to memref<16xf32>
      return %0 : memref<16xf32>
    }
    ```

    Functions that are called or otherwise referred to by symbol (also by
    themselves), declared without a body, hold more than one block, or have
    an unranked or encoded tensor or a `bufferization.buffer_layout`
    argument are left to upstream, and so is every function of a module
    holding an op that may be an unknown symbol table (the references
    cannot be told there).
  }];
  let dependentDialects = [
    "::mlir::bufferization::BufferizationDialect",
    "::mlir::memref::MemRefDialect",
  ];
}

def PrecContractFp8WithScales
    : InterfacePass<"prec-contract-fp8-with-scales",
                    "mlir::FunctionOpInterface"> {
  let summary = "contract dequantized fp8 operands as fp8 data and scales";
  let description = [{
    A contraction the gemm computes (as `convert-contractions-to-runtime`
    tells them), without a batch loop and with an f32 output, whose two
    inputs are each the result of a `prec.dequantize` into f32 or bf16 with
    a per-tensor f32 scale (`dynamic` or `delayed`), directly or through a
    2-D `linalg.transpose`, becomes a `linalg.generic` that reads the fp8
    tensors and the two scales:

    ```mlir
    %a = prec.dequantize %qa scale %sa scaling = <dynamic>
           : tensor<16x64xf8E4M3FN>, tensor<f32> -> tensor<16x64xbf16>
    %b = prec.dequantize %qb scale %sb scaling = <dynamic>
           : tensor<32x64xf8E4M3FN>, tensor<f32> -> tensor<32x64xbf16>
    %bt = linalg.transpose ins(%b : tensor<32x64xbf16>) outs(...) permutation = [1, 0]
    %c = linalg.matmul ins(%a, %bt : ...) outs(%init : tensor<16x32xf32>)
    ```
    becomes a `linalg.generic` of `%qa`, `%qb` (read as `[n, k]`), `%sa`
    and `%sb` whose body is `out + (ext(qa) * sa) * (ext(qb) * sb)` in f32;
    `convert-contractions-to-runtime{gpu}` hands it to cuBLASLt's fp8 gemm
    with the scales (which computes `sa * sb` times the sum of the exact fp8
    products), and anything else computes it as written. Either way each
    dequantized element is kept in f32 rather than rounded to the
    dequantization's type: more precise than the program, which the
    contract allows.

    Only what cuBLASLt's fp8 gemm takes is rewritten: both fp8 tensors 2-D
    with k their innermost dimension, a multiple of 16 elements long, a
    row-major output whose n is a multiple of 16, and not both f8E5M2. An
    f16 dequantization is left alone: its rounding overflows where f32 does
    not, and the program's infinities are its values. cuBLASLt multiplies
    the sum by `sa * sb`, which differs from the program's terms only where
    that product leaves f32's range while the terms do not (terms within a
    factor 2^18, the largest product of two fp8 values, of f32's limits). The GPU pipeline runs it for chips with fp8 tensor
    cores (sm_89 and later) when contractions go to cuBLASLt.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::linalg::LinalgDialect",
  ];
}

def PrecFoldTransposes
    : InterfacePass<"prec-fold-transposes", "mlir::FunctionOpInterface"> {
  let summary = "read the sources of transposes in the gemms that read them";
  let description = [{
    torch-mlir lowers `nn.Linear` to a `linalg.transpose` of the weight and a
    matmul, and the generated backward transposes the weight's extension
    back for the matmul of the input's gradient. Each transpose would be a
    strided copy of a whole weight, held until its last reader; the gemm
    (`convert-contractions-to-runtime`) reads any layout of an operand
    through its strides.

    On tensors, before bufferization, a reindexing kernel (a
    `linalg.transpose`, or a `linalg.generic` of one input and output,
    indexed by permutations, whose body yields the input element or its
    `arith.extf`) is folded into its readers when every reader is an input
    of a contraction the gemm computes (as `convert-contractions-to-runtime`
    tells them: two inputs, one m, n and k loop, a body `out + ext(a) *
    ext(b)`) or another such kernel whose readers fold. Each contraction
    becomes a `linalg.generic` that reads the source with its indexing map
    composed with the permutations (a transpose of a transpose reads the
    source as it is), and extends it in its body where an `arith.extf` was
    folded: one at most along a path, of an f32 input of a contraction into
    f32, from a type the gemm takes (bf16, f16, fp8). The folded kernels
    are erased and never get a buffer; the source lives until the last
    reader, as bufferization sees it. Values do not change: the gemm reads
    the same elements, and extends its inputs exactly to f32 itself.

    A kernel with any other reader (an elementwise kernel, a reshape, a
    contraction's output, a function's return) is left as it is, and so are
    its readers' reads of it, with one exception: a result of an
    all-parallel kernel that copies one of its inputs (the yielded value is
    the input element or its `arith.extf`, both indexed by permutations),
    whatever the kernel's other results and readers, is read from that
    input by each gemm that reads it. `prec-fuse-kernels` makes such
    kernels: the widening of a bf16 gradient read by the matmul of the
    input's gradient and by a bias's reduction becomes one kernel of two
    results, which the gemm would otherwise read in f32, at f32 speed.

    The weight's gradient comes out the other way round: a contraction in
    the transposed layout, rounded to the weight's type, then transposed.
    First, a `linalg.transpose` of a contraction's result, directly or
    through elementwise kernels (one input and output, identity maps, a
    `tensor.empty` output, no other reader), is computed by the contraction
    itself: its output map permuted by the transpose, its initial value (a
    splat constant or a `linalg.fill` of a `tensor.empty`) of the transposed
    shape, the elementwise kernels on the transposed shape. The gemm writes
    such an output (contiguous columns) in place, as the row-major product
    of the transposed inputs. A contraction whose result has another reader,
    or whose initial value is anything else, keeps its transpose.

    ```mlir
    %wt = linalg.transpose ins(%w : tensor<64x16xbf16>)
        outs(%e0 : tensor<16x64xbf16>) permutation = [1, 0]
    %wt32 = linalg.generic {indexing_maps = [#id, #id], ...}
        ins(%wt : tensor<16x64xbf16>) outs(%e1 : tensor<16x64xf32>) {
    ^bb0(%in: bf16, %out: f32):
      %0 = arith.extf %in : bf16 to f32
      linalg.yield %0 : f32
    } -> tensor<16x64xf32>
    %y = linalg.matmul ins(%x, %wt32 : tensor<8x16xf32>, tensor<16x64xf32>)
        outs(%z0 : tensor<8x64xf32>) -> tensor<8x64xf32>
    %w32 = linalg.transpose ins(%wt32 : tensor<16x64xf32>)
        outs(%e2 : tensor<64x16xf32>) permutation = [1, 0]
    %dx = linalg.matmul ins(%g, %w32 : tensor<8x64xf32>, tensor<64x16xf32>)
        outs(%z1 : tensor<8x16xf32>) -> tensor<8x16xf32>
    ```
    becomes
    ```mlir
    %y = linalg.generic {indexing_maps = [
        affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>,
        affine_map<(m, n, k) -> (m, n)>], ...}
        ins(%x, %w : tensor<8x16xf32>, tensor<64x16xbf16>) outs(%z0 ...) {
    ^bb0(%a: f32, %b: bf16, %c: f32):
      %b32 = arith.extf %b : bf16 to f32
      %0 = arith.mulf %a, %b32 : f32
      %1 = arith.addf %c, %0 : f32
      linalg.yield %1 : f32
    } -> tensor<8x64xf32>
    %dx = linalg.generic {indexing_maps = [
        affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>,
        affine_map<(m, n, k) -> (m, n)>], ...}
        ins(%g, %w : tensor<8x64xf32>, tensor<64x16xbf16>) outs(%z1 ...) {
      ... the same body ...
    } -> tensor<8x16xf32>
    ```
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::linalg::LinalgDialect",
  ];
}

def PrecDeallocateBuffers : Pass<"prec-deallocate-buffers", "mlir::ModuleOp"> {
  let summary = "free each local buffer after its last use, in linear time";
  let description = [{
    Upstream's ownership-based deallocation frees every buffer a block owns
    at the end of that block, in one `bufferization.dealloc` that the
    simplification and lowering passes then take apart buffer by buffer
    against every other. A training step is one long block with a few
    buffers per layer, so that costs time quadratic in the layers, and it
    keeps every intermediate buffer alive until the step returns.

    Most buffers of a lowered step are local: allocated in a block and used
    only by ops in it (or nested in them), through views at most, never
    returned, yielded or handed to a call that returns buffers. This pass
    frees each local buffer right after the last op of its block that uses
    it, and leaves only the others (results, loop-carried accumulators) to
    upstream's pipeline (`buildBufferDeallocationPipeline`), which it runs
    on the module with the local buffers hidden from it:

    ```mlir
    %a = memref.alloc() : memref<64xf32>
    linalg.fill ins(%zero : f32) outs(%a : memref<64xf32>)
    linalg.generic ... ins(%a ...) outs(%out ...)
    // ... a thousand more layers
    ```
    becomes
    ```mlir
    %a = memref.alloc() : memref<64xf32>
    linalg.fill ins(%zero : f32) outs(%a : memref<64xf32>)
    linalg.generic ... ins(%a ...) outs(%out ...)
    memref.dealloc %a : memref<64xf32>
    ```

    A function left with nothing for upstream once its local buffers are
    hidden (one block, and every other buffer it creates is a fresh
    allocation it returns, once and directly, for the caller to own) sits
    the pipeline out: a step returning one updated shard per layer would
    otherwise be retained by one `bufferization.dealloc` of L results that
    upstream simplifies, in time quadratic in L, to nothing.

    The input must not free buffers itself (`memref.dealloc`), as upstream's
    deallocation requires; such IR, the pass's own output included, is
    rejected with an error at the first deallocation, as is the mark the
    pass puts on the buffers it hides (`prec.local_buffer`).
  }];
  let dependentDialects = [
    "::mlir::bufferization::BufferizationDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect",
  ];
}

def PrecOutlineKernels : Pass<"prec-outline-kernels", "mlir::ModuleOp"> {
  let summary = "move each kernel on buffers into a private function of its own";
  let description = [{
    Every linalg op on buffers, and every loop nest on buffers that only
    loads, stores and computes (no calls, allocations or launches: the
    scatter-add of a gather's gradient) in a function that calls others,
    becomes a call of a private function
    (`<function>_kernel`, uniqued) that holds it; its operands and the
    values its body uses from above become the function's arguments, except
    constants, which are cloned into the function so that LLVM still sees
    them (a division by a constant 4 stays a multiplication by 0.25).
    Kernels of the same structure (equal bodies and argument types) share
    one function: a step of L identical layers gets a few functions rather
    than one per kernel, which keeps the module, the symbol lookups of the
    conversions after this pass and LLVM's work proportional to the distinct
    kernels.

    Lowering a kernel to loops and the loops to a CFG splits the block that
    holds it, and each split moves every later op of the block: on a
    training step of thousands of kernels in one block, that is quadratic in
    time and, because the dialect conversion journals every move, in memory.
    A kernel in a function of its own splits only that function, so
    `prec-lower-to-cpu` runs in time linear in the layers.

    LLVM then sees kernels (loop nests that do the work) and host functions
    (those that call kernels or other host functions: one basic block of
    thousands of calls per step), and the pass tells it which is which
    through `passthrough` attributes. Kernels are `noinline`: inlined into
    the host, LLVM's loop passes go quadratic in the step's size. Host
    functions are `optnone`: scheduling a block of that size after register
    allocation is quadratic too, and the host computes almost nothing (what
    floating point it has rounds as IEEE says either way). A 12-layer
    GPT-2-sized step lowers and JIT-compiles in 20 s of CPU instead of 58
    (docs/performance.md, "A 12-layer GPT-2 exported from PyTorch").

    ```mlir
    func.func @step(%a: memref<64xf32>, %s: f32) {
      linalg.fill ins(%s : f32) outs(%a : memref<64xf32>)
      return
    }
    ```
    becomes
    ```mlir
    func.func @step(%a: memref<64xf32>, %s: f32) {
      call @step_kernel(%s, %a) : (f32, memref<64xf32>) -> ()
      return
    }
    func.func private @step_kernel(%s: f32, %a: memref<64xf32>) {
      linalg.fill ins(%s : f32) outs(%a : memref<64xf32>)
      return
    }
    ```
  }];
  let dependentDialects = ["::mlir::func::FuncDialect"];
}

def PrecCheckPeerWindows
    : Pass<"prec-check-peer-windows", "mlir::ModuleOp"> {
  let summary = "check that peer windows are read only before the next "
                "collective";
  let description = [{
    After bufferization: every use of a peer window's slot (the memref
    marked `prec.peer_window` that `convert-prec-to-runtime` makes of a
    transport `prec-plan-peer-windows` marked), of its views, of its
    address and of what ops without effects compute from them (selects,
    address arithmetic) lies in the slot's block, before the next collective after its fence: a
    runtime collective or fence, or a call of any function but the
    runtime's entry points that do not communicate
    (`prec/Conversion/RuntimeCalls.h`). Later than
    that, a peer may already be rewriting the slot for its next use, and
    the read would see those values. `prec-plan-peer-windows` only plans
    windows whose reads satisfy this; the check turns any later pass that
    moves a read, or lets a view out of the block, into an error at the
    offending op instead of silently wrong values.
  }];
}

def PrecProfileKernels : Pass<"prec-profile-kernels", "mlir::ModuleOp"> {
  let summary = "time every outlined kernel, as compute or pack/unpack work";
  let description = [{
    For `prec-run --profile` (prec-lower-to-cpu's `profile` option): every
    call of an outlined kernel (`prec-outline-kernels`) gets the runtime's
    clock around it, and its time goes to one of two kinds of
    `runtime/include/precrt/compiled.h`: a pack or unpack kernel when one of
    its buffers is (a view of) a buffer a collective sends from or receives
    into, a compute kernel otherwise. The runtime times gemms, collectives
    and the waiting inside them itself.

    ```mlir
    call @step_kernel(%s, %a) : (f32, memref<64xf32>) -> ()
    ```
    becomes
    ```mlir
    %t = call @precrtCompiledProfileStart() : () -> i64
    call @step_kernel(%s, %a) : (f32, memref<64xf32>) -> ()
    %kind = arith.constant 1 : i32
    call @precrtCompiledProfileStop(%kind, %t) : (i32, i64) -> ()
    ```
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::func::FuncDialect",
  ];
}

def PrecHintVectorWidth : Pass<"prec-hint-vector-width", "mlir::ModuleOp"> {
  let summary = "vectorize loops that convert between widths by their narrowest type";
  let description = [{
    LLVM's loop vectorizer sizes a loop's vectors by its widest element
    type: a kernel that reads f32 and writes fp8 runs 8 lanes on AVX2 and
    stores 8 bytes at a time, narrowing each vector with shuffles of its
    own. Sized by the narrowest type instead (32 lanes), the f32 vectors
    narrow together (`vpackusdw`, `vpackuswb`) into one 32-byte store, with
    fewer instructions per element. This pass gives each innermost `scf.for`
    whose memory accesses have elements of different widths an LLVM
    vectorize-width hint (`loop_annotation`, which the lowering carries to
    the loop's latch branch and LLVM IR's `llvm.loop.vectorize.width`): the
    lanes of `vector-bits` of the narrowest element (a power of two, at most
    64). Only loops that store to consecutive elements of the innermost
    dimension, and load from consecutive elements or from one position, are
    hinted, and only their consecutive accesses count: gathers (a table
    lookup, a block scale read by `j floordiv 32`) keep LLVM's choice.
    Results do not change. A loop that stores to one position on every
    iteration is a reduction through memory (how `convert-linalg-to-loops`
    writes `linalg.reduce` and matmuls), and a width hint would let LLVM
    reassociate its floating-point sum: it is never hinted, nor is a loop
    with carried values or other memory effects. Elsewhere the vectorizer
    keeps the loop's semantics at any width. Loops of a constant trip count
    below 16 are left to LLVM too: its vectorizer optimizes those for size,
    adds no runtime alias checks, and reports a hinted loop it cannot
    vectorize without them as a warning (a loop over a row of 13 elements).

    ```mlir
    scf.for %j = %c0 to %c1024 step %c1 {
      %x = memref.load %in[%j] : memref<1024xf32>
      %q = prec.saturating_truncf %x : f32 to f8E4M3FN
      memref.store %q, %out[%j] : memref<1024xf8E4M3FN>
    }
    ```
    gets `{loop_annotation = #llvm.loop_annotation<vectorize =
    #llvm.loop_vectorize<width = 32 : i32>>}`.
  }];
  let options = [
    Option<"vectorBits", "vector-bits", "int64_t", "256",
           "bits of the target's vector registers (256: AVX2)">,
  ];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def PrecInternalizeFunctions
    : Pass<"prec-internalize-functions", "mlir::ModuleOp"> {
  let summary = "give private functions internal linkage in LLVM";
  let description = [{
    Every private function with a body (the outlined kernels, a program's
    forward and generated backward functions) gets `llvm.linkage =
    #llvm.linkage<internal>`, which the conversion to LLVM keeps, where
    it would otherwise give every function external linkage: the symbol
    visibility MLIR knows is lost on the way to LLVM. An external function
    must be compiled as it is, and the JIT's execution engine adds a packed
    wrapper (`_mlir_<name>`) for each one; an internal one LLVM may inline
    into its callers and then drop, and gets no wrapper. Public functions
    and declarations keep external linkage, so the entry points a runner
    looks up and the runtime's symbols are unchanged.

    ```mlir
    func.func private @step_kernel(%s: f32, %a: memref<64xf32>) { ... }
    ```
    becomes
    ```mlir
    func.func private @step_kernel(%s: f32, %a: memref<64xf32>)
        attributes {llvm.linkage = #llvm.linkage<internal>} { ... }
    ```
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def PrecExpandFp8Arith : Pass<"prec-expand-fp8-arith"> {
  let summary = "fp8 extensions and truncations as integer arithmetic";
  let description = [{
    LLVM has no fp8 types: `arith.extf` from and `arith.truncf` to
    `f8E4M3FN` and `f8E5M2` (in a user's linalg body, such as a matmul
    whose operand is a gathered fp8 weight) become the bit manipulation
    prec's own kernels use, bit for bit the runtime's reference: exact
    decoding, and rounding to nearest even that saturates to the largest
    finite value (infinities included) and gives the format's NaN for NaN,
    the fp8 rule of docs/Prec.md. `prec.saturating_truncf`, the rounding
    prec's kernels use, becomes the same arithmetic, on scalars or vectors.
    Both pipelines run it once the kernels are scalar code (after the loops
    on CPUs, in the GPU modules before NVVM, after `prec-gpu-fp8-to-nvvm`
    has taken the conversions PTX does in one instruction; in the emulated
    GPU path, on the vectorized kernels turned host functions).

    ```mlir
    %w = arith.extf %q : f8E4M3FN to f32
    ```
    becomes
    ```mlir
    %b = arith.bitcast %q : f8E4M3FN to i8
    // ... integer ops that rebias the exponent, subnormals scaled exactly
    %w = arith.bitcast %bits : i32 to f32
    ```

    Conversions round where the program says: the pass first drops
    `fastmath` flags from `arith.extf` and `arith.truncf` (upstream's
    emulation of bf16 arithmetic marks them `contract`, which lets folding
    remove the rounding between two bf16 ops).

    With `include-16-bit`, `arith.truncf` from f32 to bf16 and f16 that
    rounds to nearest even gives the runtime's canonical NaN (`floatToBF16`,
    `floatToF16`) in a form that vectorizes at full width. To bf16 it
    becomes 32-bit integer arithmetic, and a NaN is replaced by the
    canonical NaN's bits before the rounding, so the loop selects on i32
    lanes (upstream's `arith-expand` selects on the bf16 result, which x86
    without native bf16 performs lane by lane: docs/performance-history.md,
    "Pack kernel against memcpy"). To f16 the truncation stays (one instruction on x86 with F16C)
    and a select on the f16 result replaces a NaN, whose sign and payload
    LLVM's truncation keeps, by the canonical one.
  }];
  let options = [
    Option<"include16Bit", "include-16-bit", "bool", /*default=*/"false",
           "also f32 to bf16 and f16 truncations, with the canonical NaN">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::prec::PrecDialect"];
}

def PrecMathToIntrinsics : Pass<"prec-math-to-intrinsics"> {
  let summary = "sqrt, fma and fabs as the LLVM intrinsics, correctly rounded";
  let description = [{
    `math.sqrt`, `math.fma` and `math.absf` on f32 and f64 (scalars and
    vectors) become `llvm.call_intrinsic` of `llvm.sqrt`, `llvm.fma` and
    `llvm.fabs`, which x86 lowers to one correctly rounded instruction
    (`vsqrtps`, `vfmadd`; a correctly rounded `fmaf` call on a CPU without
    FMA) and NVPTX to `sqrt.rn`, `fma.rn` and `abs`. Upstream would lower
    them to libm calls on the CPU (`convert-math-to-libm`: a call per
    element, which keeps a kernel's loop scalar) and to libdevice calls on
    the GPU (`convert-gpu-to-nvvm`: `__nv_sqrtf`, which links only where
    the CUDA toolkit is installed, so a kernel compiled to PTX by a machine
    with only the driver could not load). The values are the same: both
    round correctly. Other math ops keep upstream's lowering.

    ```mlir
    %r = math.sqrt %v : vector<8xf32>
    ```
    becomes
    ```mlir
    %r = llvm.call_intrinsic "llvm.sqrt"(%v) : (vector<8xf32>) -> vector<8xf32>
    ```
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def PrecFillSplatDestinations
    : Pass<"prec-fill-splat-destinations", "mlir::func::FuncOp"> {
  let summary = "splat constant destinations as fills of fresh tensors";
  let description = [{
    A destination-style op on tensors (a contraction, an elementwise
    kernel) whose destination is a splat constant, such as a contraction's
    zero initial value, bufferizes to a copy of a global constant of the
    whole tensor into a fresh buffer: as many bytes read as written, a
    global of that size in the binary, and the canonicalizer shares one
    such constant between every layer. This pass gives each such
    destination its own `linalg.fill` of a `tensor.empty`, created before
    the op, which bufferizes to an allocation and a fill that only writes.
    Both pipelines run it just before one-shot bufferization (after the
    canonicalizer, which would fold the fills back). The values are the
    same.

    ```mlir
    %zero = arith.constant dense<0.0> : tensor<512x2048xf32>
    %r = linalg.matmul ins(%a, %b : ...) outs(%zero : tensor<512x2048xf32>)
    ```
    becomes
    ```mlir
    %c0 = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<512x2048xf32>
    %f = linalg.fill ins(%c0 : f32) outs(%e : tensor<512x2048xf32>)
    %r = linalg.matmul ins(%a, %b : ...) outs(%f : tensor<512x2048xf32>)
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
}

def PrecApproximateMath : Pass<"prec-approximate-math"> {
  let summary = "tanh as a rational approximation in f32 arithmetic";
  let description = [{
    LLVM lowers `math.tanh` to a call of libm's `tanhf` per element, which
    keeps the loop around it (a GELU in every MLP of a transformer) from
    vectorizing. This pass replaces every f32 `math.tanh` (scalar or vector)
    by upstream's polynomial approximation (`populatePolynomialApproximateTanhPattern`,
    a clamped 13/6 rational function, Eigen's): `arith` and `math.fma` ops,
    which vectorize and round the same way on every target (the same bits
    on any x86-64 CPU and in the emulated GPU's kernels). Its error against the exact tanh is
    bounded in docs/Prec.md ("Math functions") and tested. Both pipelines
    run it after the gradients are generated (the backward differentiates
    `math.tanh` by its own rule) and before the kernels are fused.

    ```mlir
    %y = math.tanh %x : f32
    ```
    becomes `arith.minimumf`/`maximumf` (the clamp), two `math.fma` chains
    (numerator and denominator), `arith.divf` and a select for tiny `|x|`.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::vector::VectorDialect"];
}

def PrecDecomposeAggregateOps
    : Pass<"prec-decompose-aggregate-ops", "mlir::func::FuncOp"> {
  let summary = "linalg ops without a loop form as the ops they are made of";
  let description = [{
    `linalg.softmax` has no loops of its own: upstream defines it by its
    decomposition (`AggregatedOpInterface`), a max reduction, `exp(x - max)`,
    a sum reduction and a division, as `linalg.generic` ops that the rest of
    the pipelines lower like any other kernel. This pass replaces every op
    on tensors that implements the interface by that decomposition. Both
    pipelines run it after the gradients are generated, so that the
    generated backward differentiates the named op by its own rule.

    ```mlir
    %y = linalg.softmax dimension(1) ins(%x : tensor<2x4xf32>)
           outs(%init : tensor<2x4xf32>) -> tensor<2x4xf32>
    ```
    becomes four `linalg.generic` ops (and their `linalg.fill` inits).
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::tensor::TensorDialect"];
}

def PrecInlineKernelCallees
    : Pass<"prec-inline-kernel-callees", "mlir::ModuleOp"> {
  let summary = "inline calls whose results are kernels read by kernels";
  let description = [{
    Inlines (upstream's `inlineCall`) each `func.call` of a private,
    one-block function when one of the call's results is read by a
    `linalg.generic` of the caller (directly or through static reshapes) and
    the value the callee returns for it is a `linalg.generic`'s result
    (directly or through static reshapes and slices). Such a pair of kernels
    could fuse but for the call between them: in a training step, the unpack
    kernel of a generated backward function's gradient reduce-scatter and
    the optimizer step of the caller. `prec-fuse-kernels` fuses within a
    block; with the callee's body in the caller's block it can.

    Inlining moves operations and changes none of them, so every value is bit
    for bit what the call computed; a callee's `prec.reduced_precision` goes
    onto its contractions (and the ops with regions that may hold some)
    first, so that they keep what it allowed them. Only private callees are inlined (nothing
    outside the module calls them, so a callee left without calls is erased);
    only one-block callees (their body fits any caller's block, a loop's
    included); never a function into itself. Other calls stay: they gain
    nothing from it and each inlined copy grows the caller.

    Before:
    ```mlir
    func.func private @loss_backward(...) -> tensor<16x64xf32> {
      ...
      %g = linalg.generic ... // the reduce-scatter's unpack kernel
      return %g : tensor<16x64xf32>
    }
    %grad = call @loss_backward(...)
    %w = linalg.generic ins(%master, %grad ...) // sgd
    ```
    After: `@loss_backward`'s body in the caller, `%w` reading `%g`.
  }];
}

def PrecFuseKernels : Pass<"prec-fuse-kernels", "mlir::func::FuncOp"> {
  let summary = "fuse each elementwise kernel into its only consumer";
  let description = [{
    Runs upstream's elementwise producer-consumer fusion of `linalg.generic`
    kernels on tensors (`linalg::populateElementwiseOpsFusionPatterns`),
    limited to producers whose result has one use and consumers that read
    each of its elements once (the operand's indexing map a permutation),
    so that no computation is duplicated: the consumer reads the producer's
    inputs and computes the producer's body in registers, and the
    intermediate tensor, a pass over memory to write it and one to read it
    back, disappear. A contraction reads each element of a factor once per
    row or column of the other, so its producers stay kernels of their own
    and it stays the multiply-add `convert-contractions-to-runtime` takes.

    Two rewrites bring more producers to that form, neither computing
    anything twice:

    - a kernel read only through pairwise disjoint static slices (the unpack
      kernel of a bucketed collective, read member by member), each slice
      read by one kernel, becomes one kernel per slice that computes just
      that slice (`tensor::replaceExtractSliceWithTiledProducer`): the
      slices are disjoint, so every element is still computed once;
    - a static `tensor.expand_shape` between a single-use elementwise kernel
      and the one kernel that reads it moves above the producer (upstream's
      reshape propagation by expansion), so that the two kernels meet.

    The fused body is the producer's body followed by the consumer's, with
    the same operations in the same order: results are bit for bit those of
    the unfused kernels. A kernel that accumulates into the tensor a loop
    carries (`ins(%acc, %g) outs(%acc)`, yielded as the next `%acc`) keeps
    that init, although upstream's patterns give an init the body does not
    read a `tensor.empty`: the loop would otherwise carry a fresh tensor,
    which bufferizes to an allocation per iteration and which
    `prec-lower-to-cuda` does not lower. What this fuses in a training step:

    - the unpack kernel of a reduce-scatter (sum the wire chunks in
      `acc_dtype`, divide, cast) into the `prec.sgd` / `prec.adamw` kernel
      that reads the gradient, which then also updates master weights and
      state and writes the next step's low-precision shard: the optimizer
      runs in the reduce-scatter's last kernel. For a bucket, each member's
      optimizer kernel reads its own slice of the received chunks. With
      `prec-inline-kernel-callees` before it, this includes a reduce-scatter
      in a generated backward function;
    - a `prec.cast` kernel into the pack kernel of the collective it feeds,
      or an unpack kernel into the cast of its result.

    Before:
    ```mlir
    %g = linalg.generic {...} ins(%c0, %c1 : tensor<8xbf16>, tensor<8xbf16>)
           outs(%e : tensor<8xf32>) { ...sum in f32, divide... }
    %w:2 = linalg.generic {...} ins(%master, %g : tensor<8xf32>, tensor<8xf32>)
           outs(...) { ...sgd... }
    ```
    After: one `linalg.generic` reading `%c0`, `%c1` and `%master`.

    A bucket (the members 8 elements each):
    ```mlir
    %g = linalg.generic ... ins(%received : tensor<16xf32>) { ...divide... }
    %g0 = tensor.extract_slice %g[0] [8] [1]
    %g1 = tensor.extract_slice %g[8] [8] [1]
    %w0 = linalg.generic ins(%master0, %g0 ...) { ...sgd... }
    %w1 = linalg.generic ins(%master1, %g1 ...) { ...sgd... }
    ```
    After: `%w0` reads `tensor.extract_slice %received[0] [8] [1]` and
    divides and updates in one kernel; `%w1` likewise the other half.
  }];
  let dependentDialects = [
    "::mlir::linalg::LinalgDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

#endif // PREC_LOWERING_PASSES_TD
