// Arithmetic on bf16 (a model run in bf16, as PyTorch runs it: every op
// rounds its result to bf16) computes each op in f32 and rounds the result
// to bf16 with prec's integer conversion, not through a libcall per element.
// The values must be those of rounding after every op: the check recomputes
// each op exactly in float64 (a bf16 product, sum or quotient of bf16
// values rounds once from there; f64 has more than 2 x 8 + 2 bits, so the
// f64 result rounded to bf16 is the correctly rounded one) and compares bit
// for bit. An op chain kept in f32 (a dropped rounding between two ops)
// fails it.
// RUN: rm -rf %t && mkdir -p %t
// RUN: prec-run %s --ranks 1 --seed 3 --output-dir %t --print none
// RUN: %python %S/Inputs/check_bf16_arithmetic.py %t
// The lowered code rounds with integer arithmetic: no LLVM bf16 arithmetic
// and no truncation LLVM would turn into a libcall.
// RUN: prec-run %s --ranks 1 --dump-lowered | FileCheck %s \
// RUN:   --implicit-check-not='{{llvm.fptrunc .* to bf16}}' \
// RUN:   --implicit-check-not='{{llvm.f(add|sub|mul|div) .* : bf16}}'
// CHECK: llvm.func @per_op_rounding
// CHECK: llvm.fdiv {{.*}} : f32

#id = affine_map<(d0) -> (d0)>
func.func @per_op_rounding(%x: tensor<4096xbf16>, %y: tensor<4096xbf16>) -> tensor<4096xbf16> {
  %e = tensor.empty() : tensor<4096xbf16>
  %c = arith.constant 4.467770e-02 : bf16
  %three = arith.constant 3 : i32
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%x, %y : tensor<4096xbf16>, tensor<4096xbf16>) outs(%e : tensor<4096xbf16>) {
  ^bb0(%a: bf16, %b: bf16, %o: bf16):
    // x^3 * c + y, then / y: GELU's tanh argument has this shape.
    %m = arith.mulf %a, %a : bf16
    %m2 = arith.mulf %m, %a : bf16
    %m3 = arith.mulf %m2, %c : bf16
    %s = arith.addf %m3, %b : bf16
    %d = arith.divf %s, %b : bf16
    %n = arith.subf %d, %a : bf16
    // An integer power (PyTorch's x**3) is its multiplications, each
    // rounded to bf16 as PyTorch's bf16 pow rounds them.
    %p = math.fpowi %a, %three : bf16, i32
    %q = arith.addf %n, %p : bf16
    linalg.yield %q : bf16
  } -> tensor<4096xbf16>
  return %r : tensor<4096xbf16>
}
