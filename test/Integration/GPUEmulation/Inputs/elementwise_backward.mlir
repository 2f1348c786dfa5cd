// A generated backward whose kernels use the transcendental functions of
// the elementwise gradient rules: rsqrt (RMSNorm), erf (exact GELU), tanh
// (tanh GELU, with the cube as PyTorch exports it: math.fpowi), exp (SiLU,
// softmax), log and the named linalg.softmax.

#id = affine_map<(t, f) -> (t, f)>
#rows = affine_map<(t, f) -> (t)>
#cols = affine_map<(t, f) -> (f)>

func.func private @loss(%x: tensor<4x16xf32>, %w: tensor<16xf32>) -> tensor<f32>
    attributes {prec.differentiable} {
  %zero = arith.constant 0.0 : f32
  %e4 = tensor.empty() : tensor<4xf32>
  %z4 = linalg.fill ins(%zero : f32) outs(%e4 : tensor<4xf32>) -> tensor<4xf32>
  %ss = linalg.generic {indexing_maps = [#id, #rows], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4x16xf32>) outs(%z4 : tensor<4xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %sq = arith.mulf %v, %v : f32
    %s = arith.addf %acc, %sq : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  %e = tensor.empty() : tensor<4x16xf32>
  // RMSNorm(x) * w, then GELU (erf form) plus GELU (tanh form) plus SiLU.
  %h = linalg.generic {indexing_maps = [#id, #rows, #cols, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %ss, %w : tensor<4x16xf32>, tensor<4xf32>, tensor<16xf32>) outs(%e : tensor<4x16xf32>) {
  ^bb0(%v: f32, %s: f32, %g: f32, %out: f32):
    %width = arith.constant 16.0 : f32
    %eps = arith.constant 1.0e-6 : f32
    %mean = arith.divf %s, %width : f32
    %me = arith.addf %mean, %eps : f32
    %r = math.rsqrt %me : f32
    %vr = arith.mulf %v, %r : f32
    %n = arith.mulf %vr, %g : f32
    %half = arith.constant 0.5 : f32
    %one = arith.constant 1.0 : f32
    %isqrt2 = arith.constant 0.70710678 : f32
    %a = arith.mulf %n, %isqrt2 : f32
    %erf = math.erf %a : f32
    %erf1 = arith.addf %erf, %one : f32
    %gelu0 = arith.mulf %n, %erf1 : f32
    %gelu = arith.mulf %gelu0, %half : f32
    %c = arith.constant 0.79788456 : f32
    %k = arith.constant 0.044715 : f32
    %three = arith.constant 3 : i64
    %n3 = math.fpowi %n, %three : f32, i64
    %kn3 = arith.mulf %k, %n3 : f32
    %inner0 = arith.addf %n, %kn3 : f32
    %inner = arith.mulf %c, %inner0 : f32
    %t = math.tanh %inner : f32
    %t1 = arith.addf %t, %one : f32
    %tg0 = arith.mulf %n, %t1 : f32
    %tgelu = arith.mulf %tg0, %half : f32
    %nn = arith.negf %n : f32
    %en = math.exp %nn : f32
    %d = arith.addf %one, %en : f32
    %silu = arith.divf %n, %d : f32
    %sum0 = arith.addf %gelu, %tgelu : f32
    %sum1 = arith.addf %sum0, %silu : f32
    linalg.yield %sum1 : f32
  } -> tensor<4x16xf32>
  // softmax over the features, and the log of one plus its square.
  %p = linalg.softmax dimension(1) ins(%h : tensor<4x16xf32>) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  %q = linalg.map ins(%p, %h : tensor<4x16xf32>, tensor<4x16xf32>) outs(%e : tensor<4x16xf32>)
    (%pv: f32, %hv: f32, %out: f32) {
      %one = arith.constant 1.0 : f32
      %hh = arith.mulf %hv, %hv : f32
      %l1 = arith.addf %hh, %one : f32
      %lg = math.log %l1 : f32
      %r = arith.mulf %pv, %lg : f32
      linalg.yield %r : f32
    }
  %l = prec.reduce %q dims = [0, 1] reduction = <sum> acc_dtype = f32
         : tensor<4x16xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// Filled in by prec-generate-backward.
func.func private @loss_backward(tensor<4x16xf32>, tensor<16xf32>, tensor<f32>)
    -> (tensor<4x16xf32>, tensor<16xf32>)

func.func @gradients(%x: tensor<4x16xf32>, %w: tensor<16xf32>)
    -> (tensor<4x16xf32>, tensor<16xf32>, tensor<f32>) {
  %l = func.call @loss(%x, %w) : (tensor<4x16xf32>, tensor<16xf32>) -> tensor<f32>
  %seed = arith.constant dense<1.0> : tensor<f32>
  %d:2 = func.call @loss_backward(%x, %w, %seed)
           : (tensor<4x16xf32>, tensor<16xf32>, tensor<f32>) -> (tensor<4x16xf32>, tensor<16xf32>)
  return %d#0, %d#1, %l : tensor<4x16xf32>, tensor<16xf32>, tensor<f32>
}
