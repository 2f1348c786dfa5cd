// The Float8Linear form: the weight travels and stays f8E4M3FN, the matmul
// reads the fp8 bytes (extended to f32 by prec-expand-fp8-arith) and the
// product is rescaled once by the scale that came with them. On 1, 2, 4
// and 8 ranks against Inputs/check_fp8_linear.py: the fp8 weight modelled bit
// for bit, the f32 accumulation within its rounding bound, and the result
// within the fp8 quantization bound of the exact float64 product.
// RUN: rm -rf %t && mkdir -p %t
// RUN: for n in 1 2 4 8; do \
// RUN:   rows=$((16 / n)); mkdir -p %t/$n; \
// RUN:   sed -e "s/shape = 4/shape = $n/" -e "s/4x16xf/${rows}x16xf/g" %s > %t/$n.mlir && \
// RUN:   prec-run %t/$n.mlir --output-dir %t/$n --print none && \
// RUN:   %python %S/Inputs/check_fp8_linear.py %t/$n $n || exit 1; \
// RUN: done

shard.grid @dp(shape = 4)

func.func @linear(%w_shard: tensor<4x16xf32>, %x: tensor<8x16xbf16>)
    -> (tensor<8x16xf32>, tensor<16x16xf8E4M3FN>, tensor<f32>) {
  // One scale for the whole weight: the amax over all shards.
  %a = prec.amax %w_shard : tensor<4x16xf32> -> tensor<f32>
  %m = prec.all_reduce %a on @dp reduction = <max> : tensor<f32> -> tensor<f32>
  %s = prec.scale_from_amax %m element_type = f8E4M3FN : tensor<f32> -> tensor<f32>
  %q = prec.quantize %w_shard scale %s scaling = <dynamic>
         : tensor<4x16xf32>, tensor<f32> -> tensor<4x16xf8E4M3FN>
  %w8 = prec.all_gather %q on @dp gather_axis = 0
          : tensor<4x16xf8E4M3FN> -> tensor<16x16xf8E4M3FN>
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<8x16xf32>
  %acc0 = linalg.fill ins(%zero : f32) outs(%init : tensor<8x16xf32>) -> tensor<8x16xf32>
  %acc = linalg.matmul ins(%x, %w8 : tensor<8x16xbf16>, tensor<16x16xf8E4M3FN>)
                       outs(%acc0 : tensor<8x16xf32>) -> tensor<8x16xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>,
                                        affine_map<(i, j) -> ()>,
                                        affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%acc, %s : tensor<8x16xf32>, tensor<f32>) outs(%init : tensor<8x16xf32>) {
  ^bb0(%v: f32, %k: f32, %o: f32):
    %p = arith.mulf %v, %k : f32
    linalg.yield %p : f32
  } -> tensor<8x16xf32>
  return %y, %w8, %s : tensor<8x16xf32>, tensor<16x16xf8E4M3FN>, tensor<f32>
}
