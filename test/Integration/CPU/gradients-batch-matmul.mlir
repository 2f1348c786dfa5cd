// Gradient rule of linalg.batch_matmul (each matrix of the batch its own
// product, so that each batch's operands get their own gradient) against
// central differences on every coordinate, in f64; with an init that is an
// argument, which receives the result's gradient.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/check_finite_differences.py prec-run %s %t batch_matmul | FileCheck %s
// CHECK: finite differences: 52 values compared ({{[0-9]+}} that 0 would fail), 0 outside tolerance

// The checker must be able to fail: a gradient off by 1e-4 (1 + |g|) fails
// on every coordinate.
// RUN: rm -rf %t.bad && mkdir -p %t.bad
// RUN: not %python %S/Inputs/check_finite_differences.py prec-run %s %t.bad batch_matmul --perturb-gradient | FileCheck %s --check-prefix=BAD
// BAD: finite differences (gradient perturbed): 52 values compared ({{[0-9]+}} that 0 would fail), 52 outside tolerance

func.func private @batch_matmul(%a: tensor<2x3x4xf64>, %b: tensor<2x4x2xf64>,
                                %c: tensor<2x3x2xf64>) -> tensor<f64>
    attributes {prec.differentiable} {
  // p[k] = c[k] + a[k] b[k], then a nonlinear function of p, so that every
  // coordinate's gradient depends on its own batch's values only.
  %p = linalg.batch_matmul ins(%a, %b : tensor<2x3x4xf64>, tensor<2x4x2xf64>)
                           outs(%c : tensor<2x3x2xf64>) -> tensor<2x3x2xf64>
  %q = arith.mulf %p, %p : tensor<2x3x2xf64>
  %e = math.exp %p : tensor<2x3x2xf64>
  %s = arith.addf %q, %e : tensor<2x3x2xf64>
  %l = prec.reduce %s dims = [0, 1, 2] reduction = <sum> acc_dtype = f64
         : tensor<2x3x2xf64> -> tensor<f64>
  return %l : tensor<f64>
}
