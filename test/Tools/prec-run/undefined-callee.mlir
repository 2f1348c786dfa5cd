// A called declaration that nothing defines (here a backward function whose
// forward lacks prec.differentiable) is reported at the declaration, not as
// the JIT's missing symbol.
// RUN: not prec-run %s --ranks 1 2>&1 | FileCheck %s
// CHECK: undefined-callee.mlir:[[# @LINE + 7]]:1: error: @loss_backward is called but has no body, and neither the runtime nor a library loaded by prec-run defines it
// CHECK: note: to generate it as the backward function of @loss, give @loss the unit attribute 'prec.differentiable' (or name it in prec-generate-backward's option functions=loss)
// CHECK-NOT: JIT
// Dumping the lowered module needs no definitions (it may be linked later).
// RUN: prec-run %s --ranks 1 --dump-lowered | FileCheck %s --check-prefix=DUMP
// DUMP: llvm.func @loss_backward(

func.func private @loss_backward(tensor<4xf32>) -> tensor<4xf32>

func.func @step(%x: tensor<4xf32>) -> tensor<4xf32> {
  %g = call @loss_backward(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %g : tensor<4xf32>
}
