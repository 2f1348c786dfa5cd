// Two ranks: the first gather is read by a kernel whose body folds to a copy
// and chosen by an scf.if (a select after bufferization), then returned
// while two more gathers of the same segment size follow
// (test/Integration/CPU/peer-windows.test).
#map = affine_map<(d0, d1) -> (d0, d1)>
shard.grid @dp(shape = 2)
func.func @step(%a: tensor<2x4xf32>, %b: tensor<2x4xf32>, %c: tensor<2x4xf32>, %other: tensor<4x4xbf16>, %k: i32)
    -> (tensor<4x4xbf16>, tensor<4x4xf32>) {
  %cst = arith.constant 123457 : i32
  %flag = arith.cmpi ne, %k, %cst : i32
  %g1 = prec.all_gather %a on @dp gather_axis = 0 forward_dtype = bf16
          : tensor<2x4xf32> -> tensor<4x4xbf16>
  %i1 = tensor.empty() : tensor<4x4xbf16>
  %copy = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]}
      ins(%g1 : tensor<4x4xbf16>) outs(%i1 : tensor<4x4xbf16>) {
  ^bb0(%in: bf16, %out: bf16):
    %w = arith.extf %in : bf16 to f32
    %t = arith.truncf %w : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<4x4xbf16>
  %sel = scf.if %flag -> tensor<4x4xbf16> {
    scf.yield %copy : tensor<4x4xbf16>
  } else {
    scf.yield %other : tensor<4x4xbf16>
  }
  %g2 = prec.all_gather %b on @dp gather_axis = 0 forward_dtype = bf16
          : tensor<2x4xf32> -> tensor<4x4xf32>
  %s = tensor.extract_slice %g2[0, 0] [2, 4] [1, 1] : tensor<4x4xf32> to tensor<2x4xf32>
  %c2 = arith.addf %s, %c : tensor<2x4xf32>
  %g3 = prec.all_gather %c2 on @dp gather_axis = 0 forward_dtype = bf16
          : tensor<2x4xf32> -> tensor<4x4xf32>
  return %sel, %g3 : tensor<4x4xbf16>, tensor<4x4xf32>
}
