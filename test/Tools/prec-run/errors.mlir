// Every mistake in running a program is a message and exit code 1, never a
// crash or a hang.
// RUN: not prec-run %s 2>&1 | FileCheck %s --check-prefix=SCALAR
// SCALAR: prec-run: error: argument 1 's' (f32) is a scalar: give it with --scalar s=VALUE
// SCALAR-NOT: compiled
// RUN: not prec-run %s --scalar 1=fast 2>&1 | FileCheck %s --check-prefix=SYNTAX
// SYNTAX: prec-run: error: --scalar 1=fast: argument 1 's' (f32): expected a number, got 'fast'
// RUN: not prec-run %s --scalar 1 2>&1 | FileCheck %s --check-prefix=NOVALUE
// NOVALUE: prec-run: error: expected --scalar NAME=NUMBER or INDEX=NUMBER, got '1'
// RUN: not prec-run %s --scalar 1= 2>&1 | FileCheck %s --check-prefix=EMPTY
// EMPTY: prec-run: error: --scalar 1=: argument 1 's' (f32): expected a number, got ''
// RUN: not prec-run %s --scalar 7=1 2>&1 | FileCheck %s --check-prefix=RANGE
// RANGE: prec-run: error: --scalar 7=1: argument index 7 out of range: the entry function has 2 arguments
// RUN: printf 'abc' > %t.bin
// RUN: not prec-run %s --scalar 1=1 --arg 0=%t.bin 2>&1 | FileCheck %s --check-prefix=SIZE
// SIZE: prec-run: error: {{.*}} has 3 bytes, argument 0 (tensor<8xf32>) needs 32
// SIZE-NOT: compiled
// RUN: not prec-run %s --scalar 1=1 --arg 0=%S 2>&1 | FileCheck %s --check-prefix=DIRECTORY
// DIRECTORY: prec-run: error: {{.*}}prec-run is a directory, not the contents of argument 0

// Every argument takes one value, of its own kind.
// RUN: not prec-run %s --scalar 1=1 --scalar 0=5 2>&1 | FileCheck %s --check-prefix=TENSOR
// TENSOR: prec-run: error: --scalar 0=5: argument 0 'x' (tensor<8xf32>) is a tensor: give its contents with --arg x=PATH or --zeros x
// RUN: not prec-run %s --scalar 1=1 --arg 1=%t.bin 2>&1 | FileCheck %s --check-prefix=TWICE
// TWICE: prec-run: error: argument 1 's' (f32) is given twice: --scalar 1=1 and --arg 1={{.*}}
// RUN: not prec-run %s --arg 1=%t.bin 2>&1 | FileCheck %s --check-prefix=NOT-A-TENSOR
// NOT-A-TENSOR: prec-run: error: --arg 1={{.*}}: argument 1 's' (f32) is a scalar: give it with --scalar s=VALUE
// RUN: not prec-run %s --scalar 1=1 --replicate 1 2>&1 | FileCheck %s --check-prefix=REPLICATE
// REPLICATE: prec-run: error: --replicate 1: argument 1 's' (f32) is a scalar, the same on every rank already

// The ranks must be those of the grid, checked before compiling.
// RUN: not prec-run %s --scalar 1=1 --ranks 3 2>&1 | FileCheck %s --check-prefix=RANKS
// RANKS: prec-run: error: grid @dp has shape 4 (4 ranks), but the run has 3 ranks (--ranks 3): run 4 ranks, or make the program for 3 (a step from prec-fully-shard: mesh=3; from python -m prec_torch: --mesh 3)
// RANKS-NOT: compiled
// RUN: not prec-run %s --scalar 1=1 --ranks -1 2>&1 | FileCheck %s --check-prefix=NEGATIVE
// NEGATIVE: prec-run: error: --ranks must be positive (or 0 for the size of the module's grid), got -1
// RUN: not prec-run %s --scalar 1=1 --ranks 100000 2>&1 | FileCheck %s --check-prefix=THREADS
// THREADS: prec-run: error: 100000 ranks: the local backend runs every rank as a thread of one process, at most 1024; run more under mpirun
// RUN: not prec-run %s --scalar 1=1 --backend mpi 2>&1 | FileCheck %s --check-prefix=STANDALONE
// STANDALONE: prec-run: error: grid @dp has shape 4 (4 ranks), but the run has 1 rank (one process: start it under mpirun)
// RUN: not env OMPI_COMM_WORLD_SIZE=4 prec-run %s --scalar 1=1 2>&1 | FileCheck %s --check-prefix=LAUNCHED
// LAUNCHED: prec-run: error: started by mpirun as one of 4 processes, but the local backend runs every rank in one process: add --backend mpi
// RUN: not prec-run %s --scalar 1=1 --timeout-ms=-5 2>&1 | FileCheck %s --check-prefix=TIMEOUT
// TIMEOUT: prec-run: error: --timeout-ms must not be negative, got -5
// RUN: not prec-run %s --scalar 1=1 --vector-bits=100 2>&1 | FileCheck %s --check-prefix=VECTOR-BITS
// The pipeline's passes validate the lowering's options, before anything runs.
// VECTOR-BITS: error: prec-hint-vector-width: vector-bits must be a power of two of at least 8, got 100
// RUN: not prec-run %s --scalar 1=1 --all-reduce-block-bytes=-4096 2>&1 | FileCheck %s --check-prefix=BLOCK-BYTES
// BLOCK-BYTES: error: prec-block-all-reduce: expected block-bytes >= 0 (0: all_reduces stay whole), got -4096
// RUN: not prec-run %s --scalar 1=1 --reduce-scatter-block-bytes=-1 2>&1 | FileCheck %s --check-prefix=RS-BLOCK-BYTES
// RS-BLOCK-BYTES: error: prec-block-reduce-scatter: expected block-bytes >= 0 (0: reduce_scatters stay whole), got -1
// A write that fails is a message, not a fatal stream error.
// RUN: rm -rf %t.full && mkdir %t.full && ln -s /dev/full %t.full/rank0_arg0.bin
// RUN: not prec-run %s --scalar 1=1 --output-dir %t.full 2>&1 | FileCheck %s --check-prefix=FULL
// FULL: prec-run: error: rank 0: cannot write {{.*}}rank0_arg0.bin: {{.+}}
// FULL-NOT: LLVM ERROR
// RUN: touch %t.file
// RUN: not prec-run %s --scalar 1=1 --output-dir %t.file/out 2>&1 | FileCheck %s --check-prefix=OUTDIR
// OUTDIR: prec-run: error: cannot create --output-dir {{.*}}file/out: {{.+}}
// RUN: not prec-run %s --scalar 1=1 --arg 0=%t.missing%r 2>&1 | FileCheck %s --check-prefix=MISSING
// A rank's own failure is reported before the others' echoes of it.
// RUN: printf '%32s' '' > %t.r0.bin && cp %t.r0.bin %t.r1.bin && cp %t.r0.bin %t.r2.bin
// RUN: not prec-run %s --scalar 1=1 --arg 0=%t.r%r.bin 2>&1 | FileCheck %s --check-prefix=CAUSE
// CAUSE-NOT: error
// CAUSE: prec-run: error: rank 3: cannot open {{.*}}r3.bin for argument 0
// CAUSE: exited while the others waited
// MISSING: cannot open {{.*}}missing0 for argument 0
// RUN: not prec-run %s --scalar 1=1 --backend=carrier-pigeon 2>&1 | FileCheck %s --check-prefix=BACKEND
// BACKEND: prec-run: error: --backend must be local, mpi or nccl, got 'carrier-pigeon'
// RUN: not prec-run %s --scalar 1=1 --steps 0 2>&1 | FileCheck %s --check-prefix=STEPS
// STEPS: prec-run: error: --steps must be at least 1
// RUN: not prec-run %s --scalar 1=1 --entry nowhere 2>&1 | FileCheck %s --check-prefix=ENTRY
// ENTRY: error: no function @nowhere to run
// RUN: not prec-run %S/Inputs/two-entries.mlir 2>&1 | FileCheck %s --check-prefix=TWO
// TWO: prec-run: error: several public functions: choose one with --entry (public functions: @first, @second)
// RUN: not prec-run %S/Inputs/two-entries.mlir --entry third 2>&1 | FileCheck %s --check-prefix=THIRD
// THIRD: prec-run: error: no function @third to run (public functions: @first, @second)
// THIRD-NOT: builtin.module
// RUN: not prec-run %S/Inputs/dynamic.mlir 2>&1 | FileCheck %s --check-prefix=DYNAMIC
// DYNAMIC: error: cannot run @dynamic: argument 0 has type 'tensor<?xf32>'; expected a float, integer (i1, i8, i16, i32, i64) or index scalar, or a tensor/memref of static shape
// RUN: not prec-run %S/Inputs/invalid.mlir 2>&1 | FileCheck %s --check-prefix=INVALID
// INVALID: error: 'prec.all_gather' op expected result dimension 0 to be 32 (8 x group size 4), got 16
// What the entry does not reach is not compiled.
// RUN: prec-run %S/Inputs/mixed-functions.mlir --entry run --ranks 2 --print values | FileCheck %s --check-prefix=REACHED
// REACHED: rank 0: result 0: tensor<4xf32> = [
// RUN: not prec-run %S/Inputs/unrunnable.mlir --entry strided 2>&1 | FileCheck %s --check-prefix=LAYOUT
// LAYOUT: error: cannot run @strided: argument 0 has type 'memref<4xf32, strided<[2], offset: 2>>'; expected an identity layout: prec-run passes contiguous buffers
// RUN: not prec-run %S/Inputs/unrunnable.mlir --entry huge 2>&1 | FileCheck %s --check-prefix=HUGE
// HUGE: error: cannot run @huge: argument 0 has type 'tensor<1152921504606846976xf32>'; expected at most 281474976710656 bytes (256 TiB)
// Within the 256 TiB cap but beyond the machine (4 TiB in, 4 TiB out), or
// beyond --max-memory: refused before anything is allocated.
// RUN: not prec-run %S/Inputs/unrunnable.mlir --entry large --ranks 1 2>&1 | FileCheck %s --check-prefix=LARGE
// LARGE: prec-run: error: the arguments and results of 1 rank(s) in this process take 8796093022208 bytes each, more than {{[0-9]+}} bytes (the machine's memory; --max-memory changes the limit)
// RUN: not prec-run %s --scalar 1=2 --max-memory 511 2>&1 | FileCheck %s --check-prefix=CAP
// CAP: prec-run: error: the arguments and results of 4 rank(s) in this process take 168 bytes each, more than 511 bytes (--max-memory 511)
// RUN: not prec-run %s --scalar 1=2 --max-memory 1Q 2>&1 | FileCheck %s --check-prefix=CAPSYNTAX
// CAPSYNTAX: prec-run: error: expected --max-memory as bytes with an optional K, M, G or T suffix, got '1Q'
// RUN: prec-run %s --scalar 1=2 --max-memory 1K | FileCheck %s --check-prefix=CAPOK
// CAPOK: rank 3: result 0: tensor<32xf32>
// RUN: not prec-run %S/Inputs/unrunnable.mlir --entry declared 2>&1 | FileCheck %s --check-prefix=DECLARED
// DECLARED: prec-run: error: @declared is a declaration: it has no body to run
// RUN: echo "" > %t.empty.mlir
// RUN: not prec-run %t.empty.mlir 2>&1 | FileCheck %s --check-prefix=EMPTYMODULE
// EMPTYMODULE: prec-run: error: no public function with a body to run (public functions: none)
// RUN: not prec-run %s.does-not-exist 2>&1 | FileCheck %s --check-prefix=NOFILE
// NOFILE: prec-run: error: cannot open input file
// A working run for contrast.
// RUN: prec-run %s --scalar 1=2 --replicate 0 --print values | FileCheck %s --check-prefix=OK
// OK: rank 0: result 0: tensor<32xf32> = [
// OK: rank 3: result 0: tensor<32xf32> = [

shard.grid @dp(shape = 4)

func.func @scaled_gather(%x: tensor<8xf32>, %s: f32) -> tensor<32xf32> {
  %0 = prec.all_gather %x on @dp gather_axis = 0 : tensor<8xf32> -> tensor<32xf32>
  return %0 : tensor<32xf32>
}
