// A backward function the module calls without declaring it: prec-run
// declares it from the forward function marked prec.differentiable, and
// prec-generate-backward fills it in. The gradient of sum(x * x) is 2 x,
// exact in f32 for these x.
// RUN: prec-run %s --ranks 1 --print values | FileCheck %s
// CHECK: rank 0: result 0: tensor<4xf32> = [2, -4, 1, 6]

// The forward function is not marked: the error says what would generate it.
// RUN: sed 's/ attributes {prec.differentiable}//' %s > %t.unmarked.mlir
// RUN: not prec-run %t.unmarked.mlir --ranks 1 2>&1 | FileCheck %s --check-prefix=UNMARKED
// UNMARKED: error: '@loss_backward' is called but not declared; give @loss the unit attribute 'prec.differentiable' to generate it

func.func private @loss(%x: tensor<4xf32>) -> tensor<f32> attributes {prec.differentiable} {
  %s = arith.mulf %x, %x : tensor<4xf32>
  %l = prec.reduce %s dims = [0] : tensor<4xf32> -> tensor<f32>
  return %l : tensor<f32>
}

func.func @grad() -> tensor<4xf32> {
  %x = arith.constant dense<[1.0, -2.0, 0.5, 3.0]> : tensor<4xf32>
  %one = arith.constant dense<1.0> : tensor<f32>
  %g = call @loss_backward(%x, %one) : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  return %g : tensor<4xf32>
}
