// A called declaration that nothing defines (here a backward function whose
// forward lacks prec.differentiable) is reported at the declaration, not as
// the JIT's missing symbol.
// RUN: not prec-run %s --ranks 1 2>&1 | FileCheck %s
// CHECK: undefined-callee.mlir:[[# @LINE + 3]]:1: error: @loss_backward is called but has no body, and neither the runtime nor a library loaded by prec-run defines it
// CHECK-NOT: JIT

func.func private @loss_backward(tensor<4xf32>) -> tensor<4xf32>

func.func @step(%x: tensor<4xf32>) -> tensor<4xf32> {
  %g = call @loss_backward(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %g : tensor<4xf32>
}
