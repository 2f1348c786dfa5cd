// Gradient rules of elementwise code against central differences on every
// coordinate of every argument, in f64: the arith and math ops of the rule
// table inside a linalg.generic with broadcast operands, and the same ops
// on tensors, and integer powers.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/check_finite_differences.py prec-run %s %t pointwise more_math trigonometric on_tensors powers | FileCheck %s
// CHECK: finite differences: 45 values compared ({{[0-9]+}} that 0 would fail), 0 outside tolerance

// The checker must be able to fail: a gradient off by 1e-4 (1 + |g|) fails
// on every coordinate.
// RUN: rm -rf %t.bad && mkdir -p %t.bad
// RUN: not %python %S/Inputs/check_finite_differences.py prec-run %s %t.bad pointwise --perturb-gradient | FileCheck %s --check-prefix=BAD
// BAD: finite differences (gradient perturbed): 15 values compared ({{[0-9]+}} that 0 would fail), 15 outside tolerance

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>

// Every rule of the table that a smooth function can exercise, on a and b
// (2x3) and c broadcast along the rows.
func.func private @pointwise(%a: tensor<2x3xf64>, %b: tensor<2x3xf64>, %c: tensor<3xf64>)
    -> tensor<f64> attributes {prec.differentiable} {
  %empty = tensor.empty() : tensor<2x3xf64>
  %v = linalg.generic {indexing_maps = [#id, #id, #row, #id],
                       iterator_types = ["parallel", "parallel"]}
      ins(%a, %b, %c : tensor<2x3xf64>, tensor<2x3xf64>, tensor<3xf64>)
      outs(%empty : tensor<2x3xf64>) {
  ^bb0(%x: f64, %y: f64, %z: f64, %out: f64):
    %one = arith.constant 1.0 : f64
    %two = arith.constant 2.0 : f64
    %e = math.exp %x : f64
    %yy = arith.mulf %y, %y : f64
    %yy1 = arith.addf %yy, %one : f64
    %l = math.log %yy1 : f64
    %xz = arith.mulf %x, %z : f64
    %t = math.tanh %xz : f64
    %ymz = arith.subf %y, %z : f64
    %r = math.erf %ymz : f64
    // sigmoid(x) = 1 / (1 + exp(-x))
    %nx = arith.negf %x : f64
    %enx = math.exp %nx : f64
    %den = arith.addf %one, %enx : f64
    %sig = arith.divf %one, %den : f64
    %mx = arith.maximumf %x, %y : f64
    %mn = arith.minimumf %x, %z : f64
    %gt = arith.cmpf ogt, %x, %z : f64
    %s = arith.select %gt, %xz, %y : f64
    %f = math.fma %x, %y, %z : f64
    %xp = arith.addf %two, %x : f64
    %q = math.sqrt %xp : f64
    %yp = arith.addf %two, %y : f64
    %rq = math.rsqrt %yp : f64
    // Exact for the checker's inputs (f32 values, moved by f32 steps).
    %n = arith.truncf %z : f64 to f32
    %w = arith.extf %n : f32 to f64
    %zw = arith.mulf %w, %sig : f64
    %s1 = arith.addf %e, %l : f64
    %s2 = arith.addf %s1, %t : f64
    %s3 = arith.addf %s2, %r : f64
    %s4 = arith.mulf %s3, %mx : f64
    %s5 = arith.addf %s4, %mn : f64
    %s6 = arith.divf %s5, %yp : f64
    %s7 = arith.addf %s6, %s : f64
    %s8 = arith.addf %s7, %f : f64
    %s9 = arith.mulf %s8, %q : f64
    %s10 = arith.addf %s9, %rq : f64
    %s11 = arith.subf %s10, %zw : f64
    linalg.yield %s11 : f64
  } -> tensor<2x3xf64>
  %zero = arith.constant 0.0 : f64
  %init = tensor.empty() : tensor<f64>
  %acc = linalg.fill ins(%zero : f64) outs(%init : tensor<f64>) -> tensor<f64>
  // The squares make every coordinate's gradient depend on all values.
  %sq = arith.mulf %v, %v : tensor<2x3xf64>
  %sum = linalg.reduce ins(%sq : tensor<2x3xf64>) outs(%acc : tensor<f64>) dimensions = [0, 1]
    (%in: f64, %sum_in: f64) {
      %add = arith.addf %in, %sum_in : f64
      linalg.yield %add : f64
    }
  return %sum : tensor<f64>
}

// The other math rules, on a 4-vector, with an init the body reads.
func.func private @more_math(%a: tensor<4xf64>, %b: tensor<4xf64>) -> tensor<f64>
    attributes {prec.differentiable} {
  %v = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                       iterator_types = ["parallel"]}
      ins(%a : tensor<4xf64>) outs(%b : tensor<4xf64>) {
  ^bb0(%x: f64, %y: f64):
    %two = arith.constant 2.0 : f64
    %e2 = math.exp2 %x : f64
    %em1 = math.expm1 %y : f64
    %xp = arith.addf %x, %two : f64
    %l2 = math.log2 %xp : f64
    %l1p = math.log1p %y : f64
    %ab = math.absf %x : f64
    %sn = math.sin %y : f64
    %cs = math.cos %x : f64
    %pw = math.powf %xp, %y : f64
    %mxn = arith.maxnumf %x, %y : f64
    %mnn = arith.minnumf %x, %y : f64
    %s1 = arith.mulf %e2, %em1 : f64
    %s2 = arith.addf %s1, %l2 : f64
    %s3 = arith.mulf %s2, %l1p : f64
    %s4 = arith.addf %s3, %ab : f64
    %s5 = arith.mulf %s4, %sn : f64
    %s6 = arith.addf %s5, %cs : f64
    %s7 = arith.mulf %s6, %pw : f64
    %s8 = arith.addf %s7, %mxn : f64
    %s9 = arith.mulf %s8, %mnn : f64
    linalg.yield %s9 : f64
  } -> tensor<4xf64>
  %sum = prec.reduce %v dims = [0] reduction = <sum> acc_dtype = f64
           : tensor<4xf64> -> tensor<f64>
  return %sum : tensor<f64>
}

// The inverse trigonometric and the hyperbolic functions (PyTorch's atan,
// atan2, asinh, ...), their arguments kept inside their domains: the
// inputs lie in [-1, 1].
func.func private @trigonometric(%a: tensor<4xf64>, %b: tensor<4xf64>) -> tensor<f64>
    attributes {prec.differentiable} {
  %v = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                       iterator_types = ["parallel"]}
      ins(%a : tensor<4xf64>) outs(%b : tensor<4xf64>) {
  ^bb0(%x: f64, %y: f64):
    %half = arith.constant 0.5 : f64
    %two = arith.constant 2.0 : f64
    %three = arith.constant 3.0 : f64
    %xh = arith.mulf %x, %half : f64
    %yh = arith.mulf %y, %half : f64
    %x3 = arith.mulf %x, %three : f64
    %x2 = arith.addf %x, %two : f64
    %y2 = arith.addf %y, %two : f64
    %tn = math.tan %x : f64
    %as = math.asin %xh : f64
    %ac = math.acos %yh : f64
    %at = math.atan %x3 : f64
    %a2 = math.atan2 %x, %y2 : f64
    %sh = math.sinh %x : f64
    %ch = math.cosh %y : f64
    %ash = math.asinh %y : f64
    %ach = math.acosh %x2 : f64
    %ath = math.atanh %yh : f64
    %s1 = arith.mulf %tn, %ac : f64
    %s2 = arith.addf %s1, %as : f64
    %s3 = arith.mulf %s2, %at : f64
    %s4 = arith.addf %s3, %a2 : f64
    %s5 = arith.mulf %sh, %ch : f64
    %s6 = arith.addf %s4, %s5 : f64
    %s7 = arith.mulf %ash, %ach : f64
    %s8 = arith.addf %s6, %s7 : f64
    %s9 = arith.mulf %s8, %ath : f64
    linalg.yield %s9 : f64
  } -> tensor<4xf64>
  %sum = prec.reduce %v dims = [0] reduction = <sum> acc_dtype = f64
           : tensor<4xf64> -> tensor<f64>
  return %sum : tensor<f64>
}

// The same table on tensors, outside any linalg op.
func.func private @on_tensors(%a: tensor<3xf64>, %b: tensor<3xf64>) -> tensor<f64>
    attributes {prec.differentiable} {
  %e = math.exp %a : tensor<3xf64>
  %t = math.tanh %b : tensor<3xf64>
  %two = arith.constant dense<2.0> : tensor<3xf64>
  %t2 = arith.addf %t, %two : tensor<3xf64>
  %q = arith.divf %e, %t2 : tensor<3xf64>
  %m = arith.maximumf %q, %a : tensor<3xf64>
  %s = math.sin %m : tensor<3xf64>
  %p = arith.mulf %s, %b : tensor<3xf64>
  %sum = prec.reduce %p dims = [0] reduction = <sum> acc_dtype = f64
           : tensor<3xf64> -> tensor<f64>
  return %sum : tensor<f64>
}

// Integer powers as PyTorch exports x**2 and x**3 (math.fpowi with an i64
// exponent), in a body and on tensors; the exponent gets no gradient.
func.func private @powers(%a: tensor<4xf64>, %b: tensor<4xf64>) -> tensor<f64>
    attributes {prec.differentiable} {
  %e = tensor.empty() : tensor<4xf64>
  %v = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>,
                                        affine_map<(d0) -> (d0)>],
                       iterator_types = ["parallel"]}
      ins(%a, %b : tensor<4xf64>, tensor<4xf64>) outs(%e : tensor<4xf64>) {
  ^bb0(%x: f64, %y: f64, %out: f64):
    %c2 = arith.constant 2 : i64
    %c3 = arith.constant 3 : i64
    %cm1 = arith.constant -1 : i32
    %three = arith.constant 3.0 : f64
    %sq = math.fpowi %x, %c2 : f64, i64
    %cu = math.fpowi %y, %c3 : f64, i64
    %ys = arith.addf %y, %three : f64
    %inv = math.fpowi %ys, %cm1 : f64, i32
    %s1 = arith.mulf %sq, %cu : f64
    %s2 = arith.addf %s1, %inv : f64
    linalg.yield %s2 : f64
  } -> tensor<4xf64>
  %n = arith.constant dense<[2, 3, 1, 4]> : tensor<4xi64>
  %t = math.fpowi %a, %n : tensor<4xf64>, tensor<4xi64>
  %vt = arith.mulf %v, %t : tensor<4xf64>
  %sum = prec.reduce %vt dims = [0] reduction = <sum> acc_dtype = f64
           : tensor<4xf64> -> tensor<f64>
  return %sum : tensor<f64>
}
