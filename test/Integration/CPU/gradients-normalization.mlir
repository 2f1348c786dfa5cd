// Softmax, RMSNorm, LayerNorm, SiLU and GELU (erf and tanh forms) as a
// frontend writes them in linalg, differentiated by the elementwise and
// reduction rules alone, against central differences on every coordinate
// of every argument, in f64.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/check_finite_differences.py prec-run %s %t softmax rms_norm layer_norm activations | FileCheck %s
// CHECK: finite differences: 76 values compared ({{[0-9]+}} that 0 would fail), 0 outside tolerance

#id = affine_map<(d0, d1) -> (d0, d1)>
#rows = affine_map<(d0, d1) -> (d0)>
#cols = affine_map<(d0, d1) -> (d1)>

// sum(p * softmax(x)) with softmax over the rows: the max is subtracted
// for range (its gradient cancels, which the rules must reproduce).
func.func private @softmax(%x: tensor<2x4xf64>, %p: tensor<2x4xf64>) -> tensor<f64>
    attributes {prec.differentiable} {
  %zero = arith.constant 0.0 : f64
  %ninf = arith.constant 0xFFF0000000000000 : f64
  %e2 = tensor.empty() : tensor<2xf64>
  %m0 = linalg.fill ins(%ninf : f64) outs(%e2 : tensor<2xf64>) -> tensor<2xf64>
  %max = linalg.reduce ins(%x : tensor<2x4xf64>) outs(%m0 : tensor<2xf64>) dimensions = [1]
    (%in: f64, %acc: f64) {
      %m = arith.maximumf %in, %acc : f64
      linalg.yield %m : f64
    }
  %e24 = tensor.empty() : tensor<2x4xf64>
  %exp = linalg.generic {indexing_maps = [#id, #rows, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %max : tensor<2x4xf64>, tensor<2xf64>) outs(%e24 : tensor<2x4xf64>) {
  ^bb0(%v: f64, %m: f64, %out: f64):
    %d = arith.subf %v, %m : f64
    %e = math.exp %d : f64
    linalg.yield %e : f64
  } -> tensor<2x4xf64>
  %s0 = linalg.fill ins(%zero : f64) outs(%e2 : tensor<2xf64>) -> tensor<2xf64>
  %sum = linalg.reduce ins(%exp : tensor<2x4xf64>) outs(%s0 : tensor<2xf64>) dimensions = [1]
    (%in: f64, %acc: f64) {
      %s = arith.addf %in, %acc : f64
      linalg.yield %s : f64
    }
  %y = linalg.generic {indexing_maps = [#id, #rows, #id], iterator_types = ["parallel", "parallel"]}
      ins(%exp, %sum : tensor<2x4xf64>, tensor<2xf64>) outs(%e24 : tensor<2x4xf64>) {
  ^bb0(%e: f64, %s: f64, %out: f64):
    %q = arith.divf %e, %s : f64
    linalg.yield %q : f64
  } -> tensor<2x4xf64>
  %py = arith.mulf %y, %p : tensor<2x4xf64>
  %l = prec.reduce %py dims = [0, 1] reduction = <sum> acc_dtype = f64 : tensor<2x4xf64> -> tensor<f64>
  return %l : tensor<f64>
}

// sum(p * RMSNorm(x) * w): x / sqrt(mean(x^2) + eps) * w over the rows.
func.func private @rms_norm(%x: tensor<2x4xf64>, %w: tensor<4xf64>, %p: tensor<2x4xf64>)
    -> tensor<f64> attributes {prec.differentiable} {
  %zero = arith.constant 0.0 : f64
  %e2 = tensor.empty() : tensor<2xf64>
  %s0 = linalg.fill ins(%zero : f64) outs(%e2 : tensor<2xf64>) -> tensor<2xf64>
  %sumsq = linalg.generic {indexing_maps = [#id, #rows], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<2x4xf64>) outs(%s0 : tensor<2xf64>) {
  ^bb0(%v: f64, %acc: f64):
    %sq = arith.mulf %v, %v : f64
    %s = arith.addf %acc, %sq : f64
    linalg.yield %s : f64
  } -> tensor<2xf64>
  %e24 = tensor.empty() : tensor<2x4xf64>
  %y = linalg.generic {indexing_maps = [#id, #rows, #cols, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %sumsq, %w : tensor<2x4xf64>, tensor<2xf64>, tensor<4xf64>) outs(%e24 : tensor<2x4xf64>) {
  ^bb0(%v: f64, %ss: f64, %g: f64, %out: f64):
    %n = arith.constant 4.0 : f64
    %eps = arith.constant 1.0e-5 : f64
    %mean = arith.divf %ss, %n : f64
    %me = arith.addf %mean, %eps : f64
    %r = math.rsqrt %me : f64
    %vr = arith.mulf %v, %r : f64
    %o = arith.mulf %vr, %g : f64
    linalg.yield %o : f64
  } -> tensor<2x4xf64>
  %py = arith.mulf %y, %p : tensor<2x4xf64>
  %l = prec.reduce %py dims = [0, 1] reduction = <sum> acc_dtype = f64 : tensor<2x4xf64> -> tensor<f64>
  return %l : tensor<f64>
}

// sum(p * LayerNorm(x)): (x - mean) / sqrt(var + eps) * gamma + beta.
func.func private @layer_norm(%x: tensor<2x4xf64>, %gamma: tensor<4xf64>, %beta: tensor<4xf64>,
                              %p: tensor<2x4xf64>) -> tensor<f64> attributes {prec.differentiable} {
  %zero = arith.constant 0.0 : f64
  %e2 = tensor.empty() : tensor<2xf64>
  %s0 = linalg.fill ins(%zero : f64) outs(%e2 : tensor<2xf64>) -> tensor<2xf64>
  %sum = linalg.reduce ins(%x : tensor<2x4xf64>) outs(%s0 : tensor<2xf64>) dimensions = [1]
    (%in: f64, %acc: f64) {
      %s = arith.addf %in, %acc : f64
      linalg.yield %s : f64
    }
  %e24 = tensor.empty() : tensor<2x4xf64>
  %centered = linalg.generic {indexing_maps = [#id, #rows, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %sum : tensor<2x4xf64>, tensor<2xf64>) outs(%e24 : tensor<2x4xf64>) {
  ^bb0(%v: f64, %s: f64, %out: f64):
    %n = arith.constant 4.0 : f64
    %mean = arith.divf %s, %n : f64
    %c = arith.subf %v, %mean : f64
    linalg.yield %c : f64
  } -> tensor<2x4xf64>
  %v0 = linalg.fill ins(%zero : f64) outs(%e2 : tensor<2xf64>) -> tensor<2xf64>
  %sumsq = linalg.generic {indexing_maps = [#id, #rows], iterator_types = ["parallel", "reduction"]}
      ins(%centered : tensor<2x4xf64>) outs(%v0 : tensor<2xf64>) {
  ^bb0(%c: f64, %acc: f64):
    %sq = arith.mulf %c, %c : f64
    %s = arith.addf %acc, %sq : f64
    linalg.yield %s : f64
  } -> tensor<2xf64>
  %y = linalg.generic {indexing_maps = [#id, #rows, #cols, #cols, #id], iterator_types = ["parallel", "parallel"]}
      ins(%centered, %sumsq, %gamma, %beta : tensor<2x4xf64>, tensor<2xf64>, tensor<4xf64>, tensor<4xf64>)
      outs(%e24 : tensor<2x4xf64>) {
  ^bb0(%c: f64, %ss: f64, %g: f64, %b: f64, %out: f64):
    %n = arith.constant 4.0 : f64
    %eps = arith.constant 1.0e-5 : f64
    %var = arith.divf %ss, %n : f64
    %ve = arith.addf %var, %eps : f64
    %r = math.rsqrt %ve : f64
    %cr = arith.mulf %c, %r : f64
    %o = math.fma %cr, %g, %b : f64
    linalg.yield %o : f64
  } -> tensor<2x4xf64>
  %py = arith.mulf %y, %p : tensor<2x4xf64>
  %l = prec.reduce %py dims = [0, 1] reduction = <sum> acc_dtype = f64 : tensor<2x4xf64> -> tensor<f64>
  return %l : tensor<f64>
}

// sum(p * (SiLU(x) + GELU_erf(x) + GELU_tanh(x))), by linalg.map and named
// elementwise ops.
func.func private @activations(%x: tensor<2x4xf64>, %p: tensor<2x4xf64>) -> tensor<f64>
    attributes {prec.differentiable} {
  %e24 = tensor.empty() : tensor<2x4xf64>
  // SiLU(x) = x * sigmoid(x) = x / (1 + exp(-x))
  %silu = linalg.map ins(%x : tensor<2x4xf64>) outs(%e24 : tensor<2x4xf64>)
    (%v: f64, %o: f64) {
      %one = arith.constant 1.0 : f64
      %n = arith.negf %v : f64
      %e = math.exp %n : f64
      %d = arith.addf %one, %e : f64
      %s = arith.divf %v, %d : f64
      linalg.yield %s : f64
    }
  // GELU(x) = x/2 (1 + erf(x / sqrt 2))
  %gelu = linalg.map ins(%x : tensor<2x4xf64>) outs(%e24 : tensor<2x4xf64>)
    (%v: f64, %o: f64) {
      %half = arith.constant 0.5 : f64
      %one = arith.constant 1.0 : f64
      %rsqrt2 = arith.constant 0.70710678118654752 : f64
      %a = arith.mulf %v, %rsqrt2 : f64
      %e = math.erf %a : f64
      %b = arith.addf %one, %e : f64
      %h = arith.mulf %v, %half : f64
      %g = arith.mulf %h, %b : f64
      linalg.yield %g : f64
    }
  // GELU, tanh form: x/2 (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))), with
  // the cube by linalg.mul and the tanh by linalg.tanh.
  %sq = linalg.mul ins(%x, %x : tensor<2x4xf64>, tensor<2x4xf64>) outs(%e24 : tensor<2x4xf64>) -> tensor<2x4xf64>
  %cube = linalg.mul ins(%sq, %x : tensor<2x4xf64>, tensor<2x4xf64>) outs(%e24 : tensor<2x4xf64>) -> tensor<2x4xf64>
  %inner = linalg.map ins(%x, %cube : tensor<2x4xf64>, tensor<2x4xf64>) outs(%e24 : tensor<2x4xf64>)
    (%v: f64, %c: f64, %o: f64) {
      %k = arith.constant 0.044715 : f64
      %s = arith.constant 0.79788456080286536 : f64
      %kc = arith.mulf %k, %c : f64
      %t = arith.addf %v, %kc : f64
      %u = arith.mulf %s, %t : f64
      linalg.yield %u : f64
    }
  %th = linalg.tanh ins(%inner : tensor<2x4xf64>) outs(%e24 : tensor<2x4xf64>) -> tensor<2x4xf64>
  %gelu2 = linalg.map ins(%x, %th : tensor<2x4xf64>, tensor<2x4xf64>) outs(%e24 : tensor<2x4xf64>)
    (%v: f64, %t: f64, %o: f64) {
      %half = arith.constant 0.5 : f64
      %one = arith.constant 1.0 : f64
      %b = arith.addf %one, %t : f64
      %h = arith.mulf %v, %half : f64
      %g = arith.mulf %h, %b : f64
      linalg.yield %g : f64
    }
  %a1 = arith.addf %silu, %gelu : tensor<2x4xf64>
  %a2 = arith.addf %a1, %gelu2 : tensor<2x4xf64>
  %py = arith.mulf %a2, %p : tensor<2x4xf64>
  %l = prec.reduce %py dims = [0, 1] reduction = <sum> acc_dtype = f64 : tensor<2x4xf64> -> tensor<f64>
  return %l : tensor<f64>
}
