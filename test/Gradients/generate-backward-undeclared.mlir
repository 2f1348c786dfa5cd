// A module that calls @loss_backward without declaring it: prec-opt declares
// it from @loss, marked prec.differentiable, before the first pass, and
// prec-generate-backward fills it in.
// RUN: prec-opt %s --prec-generate-backward | FileCheck %s --enable-var-scope
// Without a pass, the declaration alone: the output is a valid module.
// RUN: prec-opt %s | prec-opt | FileCheck %s --check-prefix=DECLARED
// The forward function is named in the pass option instead of marked.
// RUN: sed 's/ attributes {prec.differentiable}//' %s > %t.unmarked.mlir
// RUN: prec-opt %t.unmarked.mlir --prec-generate-backward="functions=loss" | FileCheck %s --enable-var-scope
// RUN: prec-opt %t.unmarked.mlir --pass-pipeline="builtin.module(prec-generate-backward{functions=loss})" | FileCheck %s --enable-var-scope
// Neither: the error says what would generate it.
// RUN: not prec-opt %t.unmarked.mlir --prec-generate-backward 2>&1 | FileCheck %s --check-prefix=UNMARKED
// RUN: not prec-opt %t.unmarked.mlir 2>&1 | FileCheck %s --check-prefix=UNMARKED
// Functions named in the option are the ones differentiated, marked or not.
// RUN: not prec-opt %s --prec-generate-backward="functions=grad" 2>&1 | FileCheck %s --check-prefix=OTHER

// CHECK-LABEL: func.func private @loss(
// CHECK-LABEL: func.func private @loss_backward
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>, %[[DL:.*]]: tensor<f32>) -> tensor<4xf32>
// CHECK-SAME: prec.backward_of = @loss
// CHECK: return
// CHECK-LABEL: func.func @grad
// CHECK: call @loss_backward

// DECLARED: func.func private @loss(
// DECLARED-NEXT: arith.mulf
// DECLARED: func.func private @loss_backward(tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
// DECLARED-NEXT: func.func @grad

// UNMARKED: generate-backward-undeclared.mlir.tmp.unmarked.mlir:[[# @LINE + 12]]:8: error: '@loss_backward' is called but not declared; give @loss the unit attribute 'prec.differentiable' to generate it
// UNMARKED-NOT: error
// OTHER: generate-backward-undeclared.mlir:[[# @LINE + 10]]:8: error: '@loss_backward' is called but not declared; name loss in prec-generate-backward's option functions=grad to generate it

func.func private @loss(%x: tensor<4xf32>) -> tensor<f32> attributes {prec.differentiable} {
  %s = arith.mulf %x, %x : tensor<4xf32>
  %l = prec.reduce %s dims = [0] : tensor<4xf32> -> tensor<f32>
  return %l : tensor<f32>
}

func.func @grad(%x: tensor<4xf32>) -> tensor<4xf32> {
  %one = arith.constant dense<1.0> : tensor<f32>
  %g = call @loss_backward(%x, %one) : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  return %g : tensor<4xf32>
}
