// Gradient rule of the named linalg.softmax, dx = y (dy - sum_d dy y),
// along either dimension, against central differences on every coordinate
// of every argument, in f64. The pipelines decompose the named op after
// the backward is generated (prec-decompose-aggregate-ops), so the forward
// runs upstream's decomposition and the backward the rule.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/check_finite_differences.py prec-run %s %t softmax_named | FileCheck %s
// CHECK: finite differences: 22 values compared ({{[0-9]+}} that 0 would fail), 0 outside tolerance

// The checker must be able to fail: a gradient off by 1e-4 (1 + |g|) fails
// on every coordinate.
// RUN: rm -rf %t.bad && mkdir -p %t.bad
// RUN: not %python %S/Inputs/check_finite_differences.py prec-run %s %t.bad softmax_named --perturb-gradient | FileCheck %s --check-prefix=BAD
// BAD: finite differences (gradient perturbed): 22 values compared ({{[0-9]+}} that 0 would fail), 22 outside tolerance

// The rule is the one the backward uses: no generic reductions of the
// decomposition are differentiated.
// RUN: echo 'func.func private @softmax_named_backward(tensor<2x4xf64>, tensor<2x4xf64>, tensor<3x2xf64>, tensor<f64>) -> (tensor<2x4xf64>, tensor<2x4xf64>, tensor<3x2xf64>)' > %t.decl
// RUN: cat %s %t.decl | prec-opt --prec-generate-backward | FileCheck %s --check-prefix=RULE
// RULE-LABEL: func.func private @softmax_named_backward(
// RULE-NOT: arith.maximumf
// RULE-NOT: math.exp
// RULE: return

// sum(p * softmax(x)) over the rows of x and sum(softmax(z)^2) over the
// columns of z: the second is nonlinear in y, so dy depends on z too.
func.func private @softmax_named(%x: tensor<2x4xf64>, %p: tensor<2x4xf64>, %z: tensor<3x2xf64>)
    -> tensor<f64> attributes {prec.differentiable} {
  %e24 = tensor.empty() : tensor<2x4xf64>
  %y = linalg.softmax dimension(1) ins(%x : tensor<2x4xf64>) outs(%e24 : tensor<2x4xf64>) -> tensor<2x4xf64>
  %py = arith.mulf %y, %p : tensor<2x4xf64>
  %a = prec.reduce %py dims = [0, 1] reduction = <sum> acc_dtype = f64 : tensor<2x4xf64> -> tensor<f64>
  %e32 = tensor.empty() : tensor<3x2xf64>
  %w = linalg.softmax dimension(0) ins(%z : tensor<3x2xf64>) outs(%e32 : tensor<3x2xf64>) -> tensor<3x2xf64>
  %ww = arith.mulf %w, %w : tensor<3x2xf64>
  %b = prec.reduce %ww dims = [0, 1] reduction = <sum> acc_dtype = f64 : tensor<3x2xf64> -> tensor<f64>
  %l = arith.addf %a, %b : tensor<f64>
  return %l : tensor<f64>
}
