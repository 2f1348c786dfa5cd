// tanh is upstream's rational approximation in f32 arithmetic
// (prec-approximate-math), not a libm call: every f32 result within 5 ulp
// of the exact tanh (float64), the bf16 results within half a bf16 ulp
// plus that, and the special values exact. The inputs span every binade
// from 2^-30 to 2^5 of both signs, the clamp at 7.9988 and the switch to
// tanh(x) = x below 0.0004, subnormals, zeros, infinities and NaN.
// RUN: rm -rf %t && mkdir -p %t/host %t/baseline
// RUN: %python %S/Inputs/check_tanh.py generate %t/x.bin
// RUN: prec-run %s --ranks 1 --arg 0=%t/x.bin --output-dir %t/host --print none
// RUN: %python %S/Inputs/check_tanh.py check %t/host
// The same bits on a CPU without FMA or AVX (math.fma through libm's
// correctly rounded fmaf) as with the host's instructions.
// RUN: prec-run %s --ranks 1 --target-cpu=x86-64 --arg 0=%t/x.bin \
// RUN:   --output-dir %t/baseline --print none
// RUN: cmp %t/host/rank0_result0.bin %t/baseline/rank0_result0.bin
// RUN: cmp %t/host/rank0_result1.bin %t/baseline/rank0_result1.bin
// No call of tanhf is left.
// RUN: prec-run %s --ranks 1 --dump-lowered | FileCheck %s
// CHECK-NOT: tanhf
// CHECK: llvm.func @tanh_f32_bf16
// CHECK-NOT: tanhf

#id = affine_map<(d0) -> (d0)>
func.func @tanh_f32_bf16(%x: tensor<65536xf32>) -> (tensor<65536xf32>, tensor<65536xbf16>) {
  %e = tensor.empty() : tensor<65536xf32>
  %t = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<65536xf32>) outs(%e : tensor<65536xf32>) {
  ^bb0(%a: f32, %o: f32):
    %y = math.tanh %a : f32
    linalg.yield %y : f32
  } -> tensor<65536xf32>
  %eb = tensor.empty() : tensor<65536xbf16>
  %tb = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<65536xf32>) outs(%eb : tensor<65536xbf16>) {
  ^bb0(%a: f32, %o: bf16):
    %b = arith.truncf %a : f32 to bf16
    %y = math.tanh %b : bf16
    linalg.yield %y : bf16
  } -> tensor<65536xbf16>
  return %t, %tb : tensor<65536xf32>, tensor<65536xbf16>
}
