// prec-lower-to-cpu cuts a direct all_reduce into a wider result, with more
// elements than a block of all-reduce-block-bytes (default 1 MiB) of input,
// into a loop over blocks (prec-block-all-reduce);
// all-reduce-block-bytes=0 leaves it whole.
// RUN: prec-opt %s --prec-lower-to-cpu --mlir-print-ir-after=prec-block-all-reduce -o /dev/null 2>&1 | FileCheck %s
// RUN: prec-opt %s --prec-lower-to-cpu=all-reduce-block-bytes=0 --mlir-print-ir-after=prec-decompose-collectives -o /dev/null 2>&1 | FileCheck %s --check-prefix=WHOLE
// RUN: prec-opt %s --prec-lower-to-cpu | FileCheck %s --check-prefix=LOWER
// RUN: prec-opt %s --prec-lower-to-cpu=peer-windows=false | FileCheck %s --check-prefix=MESSAGES

shard.grid @dp(shape = 4)

// 4 MiB of f32: four blocks of 262144 elements (1 MiB), no rest.
// CHECK-LABEL: func.func @large
// CHECK-DAG: %[[END:.*]] = arith.constant 1048576 : index
// CHECK-DAG: %[[STEP:.*]] = arith.constant 262144 : index
// CHECK: scf.for %{{.*}} = %{{.*}} to %[[END]] step %[[STEP]]
// CHECK: prec.all_reduce %{{.*}} : tensor<262144xf32> -> tensor<262144xf32>
// CHECK-NOT: prec.all_reduce
// CHECK: return

// WHOLE-LABEL: func.func @large
// WHOLE-NOT: scf.for
// WHOLE: prec.transport <all_to_all> %{{.*}} : tensor<1048576xbf16> -> tensor<1048576xbf16>
// WHOLE-NOT: scf.for

// The loop runs the two transports of a block, through peer windows (the
// kernels write and read the wire buffers in place), or without them
// through the runtime's own buffers.
// LOWER-LABEL: llvm.func @large
// LOWER: ^bb{{[0-9]+}}(%{{.*}}: i64
// LOWER-COUNT-2: llvm.call @precrtCompiledWindowFence
// LOWER: llvm.br ^bb
// MESSAGES-LABEL: llvm.func @large
// MESSAGES: ^bb{{[0-9]+}}(%{{.*}}: i64
// MESSAGES-COUNT-2: llvm.call @precrtCompiledCollective
// MESSAGES: llvm.br ^bb
func.func @large(%x: tensor<1048576xf32>) -> tensor<1048576xf32> {
  %0 = prec.all_reduce %x on @dp forward_dtype = bf16 acc_dtype = f32
         : tensor<1048576xf32> -> tensor<1048576xf32>
  return %0 : tensor<1048576xf32>
}
