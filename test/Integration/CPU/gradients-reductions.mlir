// Gradient rules of broadcasts and of reductions along dimensions (sum,
// mean, max, min; linalg.reduce and linalg.generic with reduction
// iterators, transposed operands, an init that receives a gradient)
// against central differences on every coordinate, in f64.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/check_finite_differences.py prec-run %s %t reductions | FileCheck %s
// CHECK: finite differences: 19 values compared ({{[0-9]+}} that 0 would fail), 0 outside tolerance

#id = affine_map<(d0, d1) -> (d0, d1)>
#rows = affine_map<(d0, d1) -> (d0)>
#cols = affine_map<(d0, d1) -> (d1)>
#transposed = affine_map<(d0, d1) -> (d1, d0)>

func.func private @reductions(%x: tensor<3x4xf64>, %bias: tensor<4xf64>, %init: tensor<3xf64>)
    -> tensor<f64> attributes {prec.differentiable} {
  %zero = arith.constant 0.0 : f64
  %ninf = arith.constant 0xFFF0000000000000 : f64
  %inf = arith.constant 0x7FF0000000000000 : f64
  // y = x * bias, the bias broadcast along the rows by linalg.broadcast.
  %e34 = tensor.empty() : tensor<3x4xf64>
  %bb = linalg.broadcast ins(%bias : tensor<4xf64>) outs(%e34 : tensor<3x4xf64>) dimensions = [0]
  %y = arith.mulf %x, %bb : tensor<3x4xf64>

  // Row sums into an init that is an argument: d(init) = g.
  %rowsum = linalg.generic {indexing_maps = [#id, #rows], iterator_types = ["parallel", "reduction"]}
      ins(%y : tensor<3x4xf64>) outs(%init : tensor<3xf64>) {
  ^bb0(%in: f64, %acc: f64):
    %s = arith.addf %acc, %in : f64
    linalg.yield %s : f64
  } -> tensor<3xf64>

  // Column maxima of y (linalg.reduce).
  %e4 = tensor.empty() : tensor<4xf64>
  %m0 = linalg.fill ins(%ninf : f64) outs(%e4 : tensor<4xf64>) -> tensor<4xf64>
  %colmax = linalg.reduce ins(%y : tensor<3x4xf64>) outs(%m0 : tensor<4xf64>) dimensions = [0]
    (%in: f64, %acc: f64) {
      %m = arith.maximumf %in, %acc : f64
      linalg.yield %m : f64
    }

  // Row minima of exp(x) - x, reading x transposed: the iteration runs over
  // (column, row) and reduces the columns.
  %e3 = tensor.empty() : tensor<3xf64>
  %n0 = linalg.fill ins(%inf : f64) outs(%e3 : tensor<3xf64>) -> tensor<3xf64>
  %rowmin = linalg.generic {indexing_maps = [#transposed, #cols], iterator_types = ["reduction", "parallel"]}
      ins(%x : tensor<3x4xf64>) outs(%n0 : tensor<3xf64>) {
  ^bb0(%in: f64, %acc: f64):
    %ex = math.exp %in : f64
    %h = arith.subf %ex, %in : f64
    %m = arith.minimumf %acc, %h : f64
    linalg.yield %m : f64
  } -> tensor<3xf64>

  // The mean of all y^2: a sum then a division.
  %s0 = tensor.empty() : tensor<f64>
  %z0 = linalg.fill ins(%zero : f64) outs(%s0 : tensor<f64>) -> tensor<f64>
  %sumsq = linalg.generic {indexing_maps = [#id, affine_map<(d0, d1) -> ()>],
                           iterator_types = ["reduction", "reduction"]}
      ins(%y : tensor<3x4xf64>) outs(%z0 : tensor<f64>) {
  ^bb0(%in: f64, %acc: f64):
    %sq = arith.mulf %in, %in : f64
    %s = arith.addf %sq, %acc : f64
    linalg.yield %s : f64
  } -> tensor<f64>
  %twelve = arith.constant dense<12.0> : tensor<f64>
  %mean = arith.divf %sumsq, %twelve : tensor<f64>

  // Nonlinear in each reduced value, so every path's gradient is distinct.
  %r2 = arith.mulf %rowsum, %rowsum : tensor<3xf64>
  %m1 = arith.mulf %rowmin, %rowsum : tensor<3xf64>
  %rs = arith.addf %r2, %m1 : tensor<3xf64>
  %a = prec.reduce %rs dims = [0] reduction = <sum> acc_dtype = f64 : tensor<3xf64> -> tensor<f64>
  %c3 = math.exp %colmax : tensor<4xf64>
  %cb = arith.mulf %c3, %bias : tensor<4xf64>
  %b = prec.reduce %cb dims = [0] reduction = <sum> acc_dtype = f64 : tensor<4xf64> -> tensor<f64>
  %ab = arith.addf %a, %b : tensor<f64>
  %m2 = arith.mulf %mean, %mean : tensor<f64>
  %total = arith.addf %ab, %m2 : tensor<f64>
  return %total : tensor<f64>
}
