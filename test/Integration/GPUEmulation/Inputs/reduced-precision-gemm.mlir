// Two contractions whose results show what the gemm computed: 256 terms of
// 1 + 2^-12 times 1 (256 + 2^-4 in f32, 256 with TF32 inputs, which keep 10
// mantissa bits), and the bf16 terms 1, 3 * 2^-10, 3 * 2^-10, 0 times 1
// (1 + 2^-7 rounded once; 1 when two split-K halves are rounded to bf16 and
// added in it). The program allows both below the contraction contract.
module attributes {prec.reduced_precision = #prec.reduced_precision<tf32, output_type_reduction>} {
  func.func @main() -> (tensor<1x1xf32>, tensor<1x1xbf16>) {
    %a = arith.constant dense<1.000244140625> : tensor<1x256xf32>
    %b = arith.constant dense<1.0> : tensor<256x1xf32>
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<1x1xf32>
    %z = linalg.fill ins(%zero : f32) outs(%e : tensor<1x1xf32>) -> tensor<1x1xf32>
    %c = linalg.matmul ins(%a, %b : tensor<1x256xf32>, tensor<256x1xf32>)
           outs(%z : tensor<1x1xf32>) -> tensor<1x1xf32>
    %x = arith.constant dense<[[1.0, 0.0029296875, 0.0029296875, 0.0]]> : tensor<1x4xbf16>
    %y = arith.constant dense<1.0> : tensor<4x1xbf16>
    %zero16 = arith.constant 0.0 : bf16
    %e16 = tensor.empty() : tensor<1x1xbf16>
    %z16 = linalg.fill ins(%zero16 : bf16) outs(%e16 : tensor<1x1xbf16>) -> tensor<1x1xbf16>
    %d = linalg.matmul ins(%x, %y : tensor<1x4xbf16>, tensor<4x1xbf16>)
           outs(%z16 : tensor<1x1xbf16>) -> tensor<1x1xbf16>
    return %c, %d : tensor<1x1xf32>, tensor<1x1xbf16>
  }
}
