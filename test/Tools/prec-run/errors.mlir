// Every mistake in running a program is a message and exit code 1, never a
// crash or a hang.
// RUN: not prec-run %s 2>&1 | FileCheck %s --check-prefix=SCALAR
// SCALAR: prec-run: error: rank 0: argument 1 (f32) is a scalar: give it with --scalar 1=VALUE
// RUN: not prec-run %s --scalar 1=fast 2>&1 | FileCheck %s --check-prefix=SYNTAX
// SYNTAX: prec-run: error: expected --scalar INDEX=NUMBER, got '1=fast'
// RUN: not prec-run %s --scalar 7=1 2>&1 | FileCheck %s --check-prefix=RANGE
// RANGE: prec-run: error: argument index 7 out of range: the entry function has 2 arguments
// RUN: printf 'abc' > %t.bin
// RUN: not prec-run %s --scalar 1=1 --arg 0=%t.bin 2>&1 | FileCheck %s --check-prefix=SIZE
// SIZE: has 3 bytes, argument 0 (tensor<8xf32>) needs 32
// RUN: not prec-run %s --scalar 1=1 --arg 0=%t.missing%r 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: cannot open {{.*}}missing0 for argument 0
// RUN: not prec-run %s --scalar 1=1 --backend=carrier-pigeon 2>&1 | FileCheck %s --check-prefix=BACKEND
// BACKEND: prec-run: error: --backend must be local, mpi or nccl, got 'carrier-pigeon'
// RUN: not prec-run %s --scalar 1=1 --steps 0 2>&1 | FileCheck %s --check-prefix=STEPS
// STEPS: prec-run: error: --steps must be at least 1
// RUN: not prec-run %s --scalar 1=1 --entry nowhere 2>&1 | FileCheck %s --check-prefix=ENTRY
// ENTRY: error: no function @nowhere to run
// RUN: not prec-run %S/Inputs/two-entries.mlir 2>&1 | FileCheck %s --check-prefix=TWO
// TWO: error: several public functions (@first, @second): choose one with --entry
// RUN: not prec-run %S/Inputs/dynamic.mlir 2>&1 | FileCheck %s --check-prefix=DYNAMIC
// DYNAMIC: error: cannot run @dynamic: argument 0 has type 'tensor<?xf32>'; expected a float, i32, i64 or index scalar, or a tensor/memref of static shape
// RUN: not prec-run %S/Inputs/invalid.mlir 2>&1 | FileCheck %s --check-prefix=INVALID
// INVALID: error: 'prec.all_gather' op expected result dimension 0 to be 32 (8 x group size 4), got 16
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
