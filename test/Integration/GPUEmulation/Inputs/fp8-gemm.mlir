// An activation and a weight ([n, k]) quantized to fp8 with per-tensor
// power-of-two scales and dequantized to bf16 for a linear layer: the
// dequantized values are exact in bf16, so a gemm of the fp8 data with the
// scales and the bf16 gemm of the dequantized values sum the same products.
// The program allows fp8 tensor cores' accumulation.
module attributes {prec.reduced_precision = #prec.reduced_precision<fp8_accumulation>} {
func.func @main(%a: tensor<8x32xf32>, %w: tensor<16x32xf32>) -> tensor<8x16xf32> {
  %sa = arith.constant dense<0.5> : tensor<f32>
  %sw = arith.constant dense<0.25> : tensor<f32>
  %qa = prec.quantize %a scale %sa scaling = <dynamic> : tensor<8x32xf32>, tensor<f32> -> tensor<8x32xf8E4M3FN>
  %qw = prec.quantize %w scale %sw scaling = <dynamic> : tensor<16x32xf32>, tensor<f32> -> tensor<16x32xf8E5M2>
  %da = prec.dequantize %qa scale %sa scaling = <dynamic> : tensor<8x32xf8E4M3FN>, tensor<f32> -> tensor<8x32xbf16>
  %dw = prec.dequantize %qw scale %sw scaling = <dynamic> : tensor<16x32xf8E5M2>, tensor<f32> -> tensor<16x32xbf16>
  %e = tensor.empty() : tensor<32x16xbf16>
  %wt = linalg.transpose ins(%dw : tensor<16x32xbf16>) outs(%e : tensor<32x16xbf16>) permutation = [1, 0]
  %zero = arith.constant 0.0 : f32
  %ce = tensor.empty() : tensor<8x16xf32>
  %init = linalg.fill ins(%zero : f32) outs(%ce : tensor<8x16xf32>) -> tensor<8x16xf32>
  %c = linalg.matmul ins(%da, %wt : tensor<8x32xbf16>, tensor<32x16xbf16>) outs(%init : tensor<8x16xf32>) -> tensor<8x16xf32>
  return %c : tensor<8x16xf32>
}
}
