// A loop that carries a collective's result into its next iteration lowers
// for the CPU (test/Tools/prec-run/collective-in-loop.mlir runs it), but not
// yet for the GPU: its buffers would be freed with the host's free(). The
// GPU pipeline rejects it at bufferization.
// RUN: prec-opt %s --prec-lower-to-cpu -o /dev/null
// RUN: not prec-opt %s --prec-lower-to-cuda=format=isa -o /dev/null 2>&1 | FileCheck %s
// CHECK: lower-to-cuda-loop-carried.mlir:[[# @LINE + 9]]:5: error: Yield operand #0 is not equivalent to the corresponding iter bbArg

shard.grid @dp(shape = 4)

func.func @step(%g: tensor<8xf32>, %n: index) -> tensor<8xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %g) -> tensor<8xf32> {
    %s = prec.all_reduce %acc on @dp reduction = <sum> : tensor<8xf32> -> tensor<8xf32>
    scf.yield %s : tensor<8xf32>
  }
  return %r : tensor<8xf32>
}
