// Exported by utils/torch-export/export_models.py.
#map = affine_map<(d0) -> (d0)>
#map1 = affine_map<(d0, d1, d2) -> (d0, d1)>
#map2 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#map3 = affine_map<(d0, d1) -> (d0)>
#map4 = affine_map<(d0, d1) -> (d0, d1)>
#map5 = affine_map<(d0, d1, d2) -> (d1, d2)>
#map6 = affine_map<(d0, d1, d2) -> (d0, d1, 0)>
#map7 = affine_map<(d0, d1, d2) -> (d2)>
#map8 = affine_map<(d0, d1) -> (d1)>
#map9 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#map10 = affine_map<(d0, d1, d2, d3) -> (d0, 0, d2, d3)>
#map11 = affine_map<(d0, d1, d2, d3) -> ()>
#map12 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
#map13 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>
#map14 = affine_map<(d0, d1) -> (d0, 0)>
#map15 = affine_map<(d0) -> ()>
#map16 = affine_map<() -> ()>
module {
  func.func @loss(%arg0: tensor<16x8xf64> {prec.name = "wte.weight"}, %arg1: tensor<4x8xf64> {prec.name = "wpe.weight"}, %arg2: tensor<8xf64> {prec.name = "h.0.ln_1.weight"}, %arg3: tensor<8xf64> {prec.name = "h.0.ln_1.bias"}, %arg4: tensor<24x8xf64> {prec.name = "h.0.attn.c_attn.weight"}, %arg5: tensor<24xf64> {prec.name = "h.0.attn.c_attn.bias"}, %arg6: tensor<8x8xf64> {prec.name = "h.0.attn.c_proj.weight"}, %arg7: tensor<8xf64> {prec.name = "h.0.attn.c_proj.bias"}, %arg8: tensor<8xf64> {prec.name = "h.0.ln_2.weight"}, %arg9: tensor<8xf64> {prec.name = "h.0.ln_2.bias"}, %arg10: tensor<32x8xf64> {prec.name = "h.0.fc.weight"}, %arg11: tensor<32xf64> {prec.name = "h.0.fc.bias"}, %arg12: tensor<8x32xf64> {prec.name = "h.0.proj.weight"}, %arg13: tensor<8xf64> {prec.name = "h.0.proj.bias"}, %arg14: tensor<8xf64> {prec.name = "h.1.ln_1.weight"}, %arg15: tensor<8xf64> {prec.name = "h.1.ln_1.bias"}, %arg16: tensor<24x8xf64> {prec.name = "h.1.attn.c_attn.weight"}, %arg17: tensor<24xf64> {prec.name = "h.1.attn.c_attn.bias"}, %arg18: tensor<8x8xf64> {prec.name = "h.1.attn.c_proj.weight"}, %arg19: tensor<8xf64> {prec.name = "h.1.attn.c_proj.bias"}, %arg20: tensor<8xf64> {prec.name = "h.1.ln_2.weight"}, %arg21: tensor<8xf64> {prec.name = "h.1.ln_2.bias"}, %arg22: tensor<32x8xf64> {prec.name = "h.1.fc.weight"}, %arg23: tensor<32xf64> {prec.name = "h.1.fc.bias"}, %arg24: tensor<8x32xf64> {prec.name = "h.1.proj.weight"}, %arg25: tensor<8xf64> {prec.name = "h.1.proj.bias"}, %arg26: tensor<8xf64> {prec.name = "ln_f.weight"}, %arg27: tensor<8xf64> {prec.name = "ln_f.bias"}, %arg28: tensor<1x4xi64> {prec.name = "idx"}, %arg29: tensor<1x4xi64> {prec.name = "targets"}) -> tensor<f64> {
    %c-100_i64 = arith.constant -100 : i64
    %c0_i64 = arith.constant 0 : i64
    %c4 = arith.constant 4 : index
    %c16 = arith.constant 16 : index
    %cst = arith.constant 0.000000e+00 : f64
    %cst_0 = arith.constant 0xFFF0000000000000 : f64
    %cst_1 = arith.constant 1.000000e+00 : f64
    %cst_2 = arith.constant 5.000000e-01 : f64
    %cst_3 = arith.constant dense<0.000000e+00> : tensor<f64>
    %cst_4 = arith.constant dense<0xFFF0000000000000> : tensor<f64>
    %cst_5 = arith.constant dense_resource<torch_tensor_1_1_4_4_torch.float64_1> : tensor<1x1x4x4xf64>
    %cst_6 = arith.constant dense_resource<torch_tensor_1_1_4_4_torch.float64> : tensor<1x1x4x4xf64>
    %cst_7 = arith.constant 1.000000e-05 : f64
    %cst_8 = arith.constant 8.000000e+00 : f64
    %cst_9 = arith.constant 1.4142135623730951 : f64
    %cst_10 = arith.constant dense<0> : tensor<i64>
    %0 = tensor.empty() : tensor<4xi64>
    %1 = linalg.generic {indexing_maps = [#map], iterator_types = ["parallel"]} outs(%0 : tensor<4xi64>) {
    ^bb0(%out: i64):
      %164 = linalg.index 0 : index
      %165 = arith.index_cast %164 : index to i64
      linalg.yield %165 : i64
    } -> tensor<4xi64>
    %2 = tensor.empty() : tensor<1x4x8xf64>
    %3 = linalg.generic {indexing_maps = [#map1, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg28 : tensor<1x4xi64>) outs(%2 : tensor<1x4x8xf64>) {
    ^bb0(%in: i64, %out: f64):
      %164 = arith.index_cast %in : i64 to index
      %165 = linalg.index 2 : index
      %166 = arith.cmpi slt, %164, %c16 : index
      cf.assert %166, "index must be smaller than dim size"
      %167 = arith.cmpi sge, %in, %c0_i64 : i64
      cf.assert %167, "index must be larger or equal to 0"
      %extracted = tensor.extract %arg0[%164, %165] : tensor<16x8xf64>
      linalg.yield %extracted : f64
    } -> tensor<1x4x8xf64>
    %4 = tensor.empty() : tensor<4x8xf64>
    %5 = linalg.generic {indexing_maps = [#map3, #map4], iterator_types = ["parallel", "parallel"]} ins(%1 : tensor<4xi64>) outs(%4 : tensor<4x8xf64>) {
    ^bb0(%in: i64, %out: f64):
      %164 = arith.index_cast %in : i64 to index
      %165 = linalg.index 1 : index
      %166 = arith.cmpi slt, %164, %c4 : index
      cf.assert %166, "index must be smaller than dim size"
      %167 = arith.cmpi sge, %in, %c0_i64 : i64
      cf.assert %167, "index must be larger or equal to 0"
      %extracted = tensor.extract %arg1[%164, %165] : tensor<4x8xf64>
      linalg.yield %extracted : f64
    } -> tensor<4x8xf64>
    %6 = linalg.generic {indexing_maps = [#map2, #map5, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%3, %5 : tensor<1x4x8xf64>, tensor<4x8xf64>) outs(%2 : tensor<1x4x8xf64>) {
    ^bb0(%in: f64, %in_71: f64, %out: f64):
      %164 = arith.addf %in, %in_71 : f64
      linalg.yield %164 : f64
    } -> tensor<1x4x8xf64>
    %7 = tensor.empty() : tensor<1x4x1xf64>
    %8 = linalg.fill ins(%cst : f64) outs(%7 : tensor<1x4x1xf64>) -> tensor<1x4x1xf64>
    %9 = linalg.generic {indexing_maps = [#map2, #map6], iterator_types = ["parallel", "parallel", "reduction"]} ins(%6 : tensor<1x4x8xf64>) outs(%8 : tensor<1x4x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %164 = arith.addf %in, %out : f64
      linalg.yield %164 : f64
    } -> tensor<1x4x1xf64>
    %10 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%9 : tensor<1x4x1xf64>) outs(%7 : tensor<1x4x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %164 = arith.divf %in, %cst_8 : f64
      linalg.yield %164 : f64
    } -> tensor<1x4x1xf64>
    %11 = linalg.generic {indexing_maps = [#map2, #map6, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%6, %10 : tensor<1x4x8xf64>, tensor<1x4x1xf64>) outs(%2 : tensor<1x4x8xf64>) {
    ^bb0(%in: f64, %in_71: f64, %out: f64):
      %164 = arith.subf %in, %in_71 : f64
      linalg.yield %164 : f64
    } -> tensor<1x4x8xf64>
    %12 = linalg.generic {indexing_maps = [#map2, #map2, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%11, %11 : tensor<1x4x8xf64>, tensor<1x4x8xf64>) outs(%2 : tensor<1x4x8xf64>) {
    ^bb0(%in: f64, %in_71: f64, %out: f64):
      %164 = arith.mulf %in, %in_71 : f64
      linalg.yield %164 : f64
    } -> tensor<1x4x8xf64>
    %13 = linalg.generic {indexing_maps = [#map2, #map6], iterator_types = ["parallel", "parallel", "reduction"]} ins(%12 : tensor<1x4x8xf64>) outs(%8 : tensor<1x4x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %164 = arith.addf %in, %out : f64
      linalg.yield %164 : f64
    } -> tensor<1x4x1xf64>
    %14 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%13 : tensor<1x4x1xf64>) outs(%7 : tensor<1x4x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %164 = arith.divf %in, %cst_8 : f64
      linalg.yield %164 : f64
    } -> tensor<1x4x1xf64>
    %15 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%14 : tensor<1x4x1xf64>) outs(%7 : tensor<1x4x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %164 = arith.addf %in, %cst_7 : f64
      linalg.yield %164 : f64
    } -> tensor<1x4x1xf64>
    %16 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%15 : tensor<1x4x1xf64>) outs(%7 : tensor<1x4x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %164 = math.rsqrt %in : f64
      linalg.yield %164 : f64
    } -> tensor<1x4x1xf64>
    %17 = linalg.generic {indexing_maps = [#map2, #map6, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%11, %16 : tensor<1x4x8xf64>, tensor<1x4x1xf64>) outs(%2 : tensor<1x4x8xf64>) {
    ^bb0(%in: f64, %in_71: f64, %out: f64):
      %164 = arith.mulf %in, %in_71 : f64
      linalg.yield %164 : f64
    } -> tensor<1x4x8xf64>
    %18 = linalg.generic {indexing_maps = [#map2, #map7, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%17, %arg2 : tensor<1x4x8xf64>, tensor<8xf64>) outs(%2 : tensor<1x4x8xf64>) {
    ^bb0(%in: f64, %in_71: f64, %out: f64):
      %164 = arith.mulf %in, %in_71 : f64
      linalg.yield %164 : f64
    } -> tensor<1x4x8xf64>
    %19 = linalg.generic {indexing_maps = [#map2, #map7, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%18, %arg3 : tensor<1x4x8xf64>, tensor<8xf64>) outs(%2 : tensor<1x4x8xf64>) {
    ^bb0(%in: f64, %in_71: f64, %out: f64):
      %164 = arith.addf %in, %in_71 : f64
      linalg.yield %164 : f64
    } -> tensor<1x4x8xf64>
    %collapsed = tensor.collapse_shape %19 [[0, 1], [2]] : tensor<1x4x8xf64> into tensor<4x8xf64>
    %20 = tensor.empty() : tensor<8x24xf64>
    %transposed = linalg.transpose ins(%arg4 : tensor<24x8xf64>) outs(%20 : tensor<8x24xf64>) permutation = [1, 0] 
    %21 = tensor.empty() : tensor<4x24xf64>
    %22 = linalg.fill ins(%cst : f64) outs(%21 : tensor<4x24xf64>) -> tensor<4x24xf64>
    %23 = linalg.matmul ins(%collapsed, %transposed : tensor<4x8xf64>, tensor<8x24xf64>) outs(%22 : tensor<4x24xf64>) -> tensor<4x24xf64>
    %24 = linalg.generic {indexing_maps = [#map8, #map4], iterator_types = ["parallel", "parallel"]} ins(%arg5 : tensor<24xf64>) outs(%21 : tensor<4x24xf64>) {
    ^bb0(%in: f64, %out: f64):
      linalg.yield %in : f64
    } -> tensor<4x24xf64>
    %25 = linalg.generic {indexing_maps = [#map4, #map4, #map4], iterator_types = ["parallel", "parallel"]} ins(%23, %24 : tensor<4x24xf64>, tensor<4x24xf64>) outs(%21 : tensor<4x24xf64>) {
    ^bb0(%in: f64, %in_71: f64, %out: f64):
      %164 = arith.addf %in, %in_71 : f64
      linalg.yield %164 : f64
    } -> tensor<4x24xf64>
    %expanded = tensor.expand_shape %25 [[0, 1], [2]] output_shape [1, 4, 24] : tensor<4x24xf64> into tensor<1x4x24xf64>
    %extracted_slice = tensor.extract_slice %expanded[0, 0, 0] [1, 4, 8] [1, 1, 1] : tensor<1x4x24xf64> to tensor<1x4x8xf64>
    %extracted_slice_11 = tensor.extract_slice %expanded[0, 0, 8] [1, 4, 8] [1, 1, 1] : tensor<1x4x24xf64> to tensor<1x4x8xf64>
    %extracted_slice_12 = tensor.extract_slice %expanded[0, 0, 16] [1, 4, 8] [1, 1, 1] : tensor<1x4x24xf64> to tensor<1x4x8xf64>
    %expanded_13 = tensor.expand_shape %extracted_slice_11 [[0], [1], [2, 3]] output_shape [1, 4, 2, 4] : tensor<1x4x8xf64> into tensor<1x4x2x4xf64>
    %expanded_14 = tensor.expand_shape %extracted_slice [[0], [1], [2, 3]] output_shape [1, 4, 2, 4] : tensor<1x4x8xf64> into tensor<1x4x2x4xf64>
    %26 = tensor.empty() : tensor<1x2x4x4xf64>
    %transposed_15 = linalg.transpose ins(%expanded_14 : tensor<1x4x2x4xf64>) outs(%26 : tensor<1x2x4x4xf64>) permutation = [0, 2, 1, 3] 
    %expanded_16 = tensor.expand_shape %extracted_slice_12 [[0], [1], [2, 3]] output_shape [1, 4, 2, 4] : tensor<1x4x8xf64> into tensor<1x4x2x4xf64>
    %transposed_17 = linalg.transpose ins(%expanded_16 : tensor<1x4x2x4xf64>) outs(%26 : tensor<1x2x4x4xf64>) permutation = [0, 2, 1, 3] 
    %transposed_18 = linalg.transpose ins(%expanded_13 : tensor<1x4x2x4xf64>) outs(%26 : tensor<1x2x4x4xf64>) permutation = [0, 2, 3, 1] 
    %collapsed_19 = tensor.collapse_shape %transposed_15 [[0, 1], [2], [3]] : tensor<1x2x4x4xf64> into tensor<2x4x4xf64>
    %collapsed_20 = tensor.collapse_shape %transposed_18 [[0, 1], [2], [3]] : tensor<1x2x4x4xf64> into tensor<2x4x4xf64>
    %27 = tensor.empty() : tensor<2x4x4xf64>
    %28 = linalg.fill ins(%cst : f64) outs(%27 : tensor<2x4x4xf64>) -> tensor<2x4x4xf64>
    %29 = linalg.batch_matmul ins(%collapsed_19, %collapsed_20 : tensor<2x4x4xf64>, tensor<2x4x4xf64>) outs(%28 : tensor<2x4x4xf64>) -> tensor<2x4x4xf64>
    %expanded_21 = tensor.expand_shape %29 [[0, 1], [2], [3]] output_shape [1, 2, 4, 4] : tensor<2x4x4xf64> into tensor<1x2x4x4xf64>
    %30 = linalg.generic {indexing_maps = [#map9, #map9], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%expanded_21 : tensor<1x2x4x4xf64>) outs(%26 : tensor<1x2x4x4xf64>) {
    ^bb0(%in: f64, %out: f64):
      %164 = arith.mulf %in, %cst_2 : f64
      linalg.yield %164 : f64
    } -> tensor<1x2x4x4xf64>
    %31 = tensor.empty() : tensor<1x1x4x4xi1>
    %32 = linalg.generic {indexing_maps = [#map9, #map9], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%cst_6 : tensor<1x1x4x4xf64>) outs(%31 : tensor<1x1x4x4xi1>) {
    ^bb0(%in: f64, %out: i1):
      %164 = arith.cmpf oeq, %in, %cst : f64
      linalg.yield %164 : i1
    } -> tensor<1x1x4x4xi1>
    %33 = linalg.generic {indexing_maps = [#map10, #map11, #map9, #map9], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%32, %cst_4, %30 : tensor<1x1x4x4xi1>, tensor<f64>, tensor<1x2x4x4xf64>) outs(%26 : tensor<1x2x4x4xf64>) {
    ^bb0(%in: i1, %in_71: f64, %in_72: f64, %out: f64):
      %164 = arith.select %in, %in_71, %in_72 : f64
      linalg.yield %164 : f64
    } -> tensor<1x2x4x4xf64>
    %34 = tensor.empty() : tensor<1x2x4xi64>
    %35 = linalg.fill ins(%c0_i64 : i64) outs(%34 : tensor<1x2x4xi64>) -> tensor<1x2x4xi64>
    %36 = tensor.empty() : tensor<1x2x4xf64>
    %37 = linalg.fill ins(%cst_0 : f64) outs(%36 : tensor<1x2x4xf64>) -> tensor<1x2x4xf64>
    %38:2 = linalg.generic {indexing_maps = [#map9, #map12, #map12], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%33 : tensor<1x2x4x4xf64>) outs(%37, %35 : tensor<1x2x4xf64>, tensor<1x2x4xi64>) {
    ^bb0(%in: f64, %out: f64, %out_71: i64):
      %164 = linalg.index 3 : index
      %165 = arith.index_cast %164 : index to i64
      %166 = arith.maximumf %in, %out : f64
      %167 = arith.cmpf ogt, %in, %out : f64
      %168 = arith.select %167, %165, %out_71 : i64
      linalg.yield %166, %168 : f64, i64
    } -> (tensor<1x2x4xf64>, tensor<1x2x4xi64>)
    %expanded_22 = tensor.expand_shape %38#0 [[0], [1], [2, 3]] output_shape [1, 2, 4, 1] : tensor<1x2x4xf64> into tensor<1x2x4x1xf64>
    %39 = linalg.generic {indexing_maps = [#map9, #map13, #map9], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%33, %expanded_22 : tensor<1x2x4x4xf64>, tensor<1x2x4x1xf64>) outs(%26 : tensor<1x2x4x4xf64>) {
    ^bb0(%in: f64, %in_71: f64, %out: f64):
      %164 = arith.subf %in, %in_71 : f64
      linalg.yield %164 : f64
    } -> tensor<1x2x4x4xf64>
    %40 = linalg.generic {indexing_maps = [#map9, #map9], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%39 : tensor<1x2x4x4xf64>) outs(%26 : tensor<1x2x4x4xf64>) {
    ^bb0(%in: f64, %out: f64):
      %164 = math.exp %in : f64
      linalg.yield %164 : f64
    } -> tensor<1x2x4x4xf64>
    %41 = tensor.empty() : tensor<1x2x4x1xf64>
    %42 = linalg.fill ins(%cst : f64) outs(%41 : tensor<1x2x4x1xf64>) -> tensor<1x2x4x1xf64>
    %43 = linalg.generic {indexing_maps = [#map9, #map13], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%40 : tensor<1x2x4x4xf64>) outs(%42 : tensor<1x2x4x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %164 = arith.addf %in, %out : f64
      linalg.yield %164 : f64
    } -> tensor<1x2x4x1xf64>
    %44 = linalg.generic {indexing_maps = [#map9, #map13, #map9], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%40, %43 : tensor<1x2x4x4xf64>, tensor<1x2x4x1xf64>) outs(%26 : tensor<1x2x4x4xf64>) {
    ^bb0(%in: f64, %in_71: f64, %out: f64):
      %164 = arith.divf %in, %in_71 : f64
      linalg.yield %164 : f64
    } -> tensor<1x2x4x4xf64>
    %collapsed_23 = tensor.collapse_shape %44 [[0, 1], [2], [3]] : tensor<1x2x4x4xf64> into tensor<2x4x4xf64>
    %collapsed_24 = tensor.collapse_shape %transposed_17 [[0, 1], [2], [3]] : tensor<1x2x4x4xf64> into tensor<2x4x4xf64>
    %45 = linalg.batch_matmul ins(%collapsed_23, %collapsed_24 : tensor<2x4x4xf64>, tensor<2x4x4xf64>) outs(%28 : tensor<2x4x4xf64>) -> tensor<2x4x4xf64>
    %expanded_25 = tensor.expand_shape %45 [[0, 1], [2], [3]] output_shape [1, 2, 4, 4] : tensor<2x4x4xf64> into tensor<1x2x4x4xf64>
    %46 = tensor.empty() : tensor<1x4x2x4xf64>
    %transposed_26 = linalg.transpose ins(%expanded_25 : tensor<1x2x4x4xf64>) outs(%46 : tensor<1x4x2x4xf64>) permutation = [0, 2, 1, 3] 
    %collapsed_27 = tensor.collapse_shape %transposed_26 [[0, 1], [2, 3]] : tensor<1x4x2x4xf64> into tensor<4x8xf64>
    %47 = tensor.empty() : tensor<8x8xf64>
    %transposed_28 = linalg.transpose ins(%arg6 : tensor<8x8xf64>) outs(%47 : tensor<8x8xf64>) permutation = [1, 0] 
    %48 = linalg.fill ins(%cst : f64) outs(%4 : tensor<4x8xf64>) -> tensor<4x8xf64>
    %49 = linalg.matmul ins(%collapsed_27, %transposed_28 : tensor<4x8xf64>, tensor<8x8xf64>) outs(%48 : tensor<4x8xf64>) -> tensor<4x8xf64>
    %50 = linalg.generic {indexing_maps = [#map8, #map4], iterator_types = ["parallel", "parallel"]} ins(%arg7 : tensor<8xf64>) outs(%4 : tensor<4x8xf64>) {
    ^bb0(%in: f64, %out: f64):
      linalg.yield %in : f64
    } -> tensor<4x8xf64>
    %51 = linalg.generic {indexing_maps = [#map4, #map4, #map4], iterator_types = ["parallel", "parallel"]} ins(%49, %50 : tensor<4x8xf64>, tensor<4x8xf64>) outs(%4 : tensor<4x8xf64>) {
    ^bb0(%in: f64, %in_71: f64, %out: f64):
      %164 = arith.addf %in, %in_71 : f64
      linalg.yield %164 : f64
    } -> tensor<4x8xf64>
    %expanded_29 = tensor.expand_shape %51 [[0, 1], [2]] output_shape [1, 4, 8] : tensor<4x8xf64> into tensor<1x4x8xf64>
    %52 = linalg.generic {indexing_maps = [#map2, #map2, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%6, %expanded_29 : tensor<1x4x8xf64>, tensor<1x4x8xf64>) outs(%2 : tensor<1x4x8xf64>) {
    ^bb0(%in: f64, %in_71: f64, %out: f64):
      %164 = arith.addf %in, %in_71 : f64
      linalg.yield %164 : f64
    } -> tensor<1x4x8xf64>
    %53 = linalg.generic {indexing_maps = [#map2, #map6], iterator_types = ["parallel", "parallel", "reduction"]} ins(%52 : tensor<1x4x8xf64>) outs(%8 : tensor<1x4x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %164 = arith.addf %in, %out : f64
      linalg.yield %164 : f64
    } -> tensor<1x4x1xf64>
    %54 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%53 : tensor<1x4x1xf64>) outs(%7 : tensor<1x4x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %164 = arith.divf %in, %cst_8 : f64
      linalg.yield %164 : f64
    } -> tensor<1x4x1xf64>
    %55 = linalg.generic {indexing_maps = [#map2, #map6, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%52, %54 : tensor<1x4x8xf64>, tensor<1x4x1xf64>) outs(%2 : tensor<1x4x8xf64>) {
    ^bb0(%in: f64, %in_71: f64, %out: f64):
      %164 = arith.subf %in, %in_71 : f64
      linalg.yield %164 : f64
    } -> tensor<1x4x8xf64>
    %56 = linalg.generic {indexing_maps = [#map2, #map2, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%55, %55 : tensor<1x4x8xf64>, tensor<1x4x8xf64>) outs(%2 : tensor<1x4x8xf64>) {
    ^bb0(%in: f64, %in_71: f64, %out: f64):
      %164 = arith.mulf %in, %in_71 : f64
      linalg.yield %164 : f64
    } -> tensor<1x4x8xf64>
    %57 = linalg.generic {indexing_maps = [#map2, #map6], iterator_types = ["parallel", "parallel", "reduction"]} ins(%56 : tensor<1x4x8xf64>) outs(%8 : tensor<1x4x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %164 = arith.addf %in, %out : f64
      linalg.yield %164 : f64
    } -> tensor<1x4x1xf64>
    %58 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%57 : tensor<1x4x1xf64>) outs(%7 : tensor<1x4x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %164 = arith.divf %in, %cst_8 : f64
      linalg.yield %164 : f64
    } -> tensor<1x4x1xf64>
    %59 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%58 : tensor<1x4x1xf64>) outs(%7 : tensor<1x4x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %164 = arith.addf %in, %cst_7 : f64
      linalg.yield %164 : f64
    } -> tensor<1x4x1xf64>
    %60 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%59 : tensor<1x4x1xf64>) outs(%7 : tensor<1x4x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %164 = math.rsqrt %in : f64
      linalg.yield %164 : f64
    } -> tensor<1x4x1xf64>
    %61 = linalg.generic {indexing_maps = [#map2, #map6, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%55, %60 : tensor<1x4x8xf64>, tensor<1x4x1xf64>) outs(%2 : tensor<1x4x8xf64>) {
    ^bb0(%in: f64, %in_71: f64, %out: f64):
      %164 = arith.mulf %in, %in_71 : f64
      linalg.yield %164 : f64
    } -> tensor<1x4x8xf64>
    %62 = linalg.generic {indexing_maps = [#map2, #map7, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%61, %arg8 : tensor<1x4x8xf64>, tensor<8xf64>) outs(%2 : tensor<1x4x8xf64>) {
    ^bb0(%in: f64, %in_71: f64, %out: f64):
      %164 = arith.mulf %in, %in_71 : f64
      linalg.yield %164 : f64
    } -> tensor<1x4x8xf64>
    %63 = linalg.generic {indexing_maps = [#map2, #map7, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%62, %arg9 : tensor<1x4x8xf64>, tensor<8xf64>) outs(%2 : tensor<1x4x8xf64>) {
    ^bb0(%in: f64, %in_71: f64, %out: f64):
      %164 = arith.addf %in, %in_71 : f64
      linalg.yield %164 : f64
    } -> tensor<1x4x8xf64>
    %collapsed_30 = tensor.collapse_shape %63 [[0, 1], [2]] : tensor<1x4x8xf64> into tensor<4x8xf64>
    %64 = tensor.empty() : tensor<8x32xf64>
    %transposed_31 = linalg.transpose ins(%arg10 : tensor<32x8xf64>) outs(%64 : tensor<8x32xf64>) permutation = [1, 0] 
    %65 = tensor.empty() : tensor<4x32xf64>
    %66 = linalg.fill ins(%cst : f64) outs(%65 : tensor<4x32xf64>) -> tensor<4x32xf64>
    %67 = linalg.matmul ins(%collapsed_30, %transposed_31 : tensor<4x8xf64>, tensor<8x32xf64>) outs(%66 : tensor<4x32xf64>) -> tensor<4x32xf64>
    %68 = linalg.generic {indexing_maps = [#map8, #map4], iterator_types = ["parallel", "parallel"]} ins(%arg11 : tensor<32xf64>) outs(%65 : tensor<4x32xf64>) {
    ^bb0(%in: f64, %out: f64):
      linalg.yield %in : f64
    } -> tensor<4x32xf64>
    %69 = linalg.generic {indexing_maps = [#map4, #map4, #map4], iterator_types = ["parallel", "parallel"]} ins(%67, %68 : tensor<4x32xf64>, tensor<4x32xf64>) outs(%65 : tensor<4x32xf64>) {
    ^bb0(%in: f64, %in_71: f64, %out: f64):
      %164 = arith.addf %in, %in_71 : f64
      linalg.yield %164 : f64
    } -> tensor<4x32xf64>
    %expanded_32 = tensor.expand_shape %69 [[0, 1], [2]] output_shape [1, 4, 32] : tensor<4x32xf64> into tensor<1x4x32xf64>
    %70 = tensor.empty() : tensor<1x4x32xf64>
    %71 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%expanded_32 : tensor<1x4x32xf64>) outs(%70 : tensor<1x4x32xf64>) {
    ^bb0(%in: f64, %out: f64):
      %164 = arith.divf %in, %cst_9 : f64
      %165 = math.erf %164 : f64
      %166 = arith.addf %165, %cst_1 : f64
      %167 = arith.mulf %166, %cst_2 : f64
      %168 = arith.mulf %in, %167 : f64
      linalg.yield %168 : f64
    } -> tensor<1x4x32xf64>
    %collapsed_33 = tensor.collapse_shape %71 [[0, 1], [2]] : tensor<1x4x32xf64> into tensor<4x32xf64>
    %72 = tensor.empty() : tensor<32x8xf64>
    %transposed_34 = linalg.transpose ins(%arg12 : tensor<8x32xf64>) outs(%72 : tensor<32x8xf64>) permutation = [1, 0] 
    %73 = linalg.matmul ins(%collapsed_33, %transposed_34 : tensor<4x32xf64>, tensor<32x8xf64>) outs(%48 : tensor<4x8xf64>) -> tensor<4x8xf64>
    %74 = linalg.generic {indexing_maps = [#map8, #map4], iterator_types = ["parallel", "parallel"]} ins(%arg13 : tensor<8xf64>) outs(%4 : tensor<4x8xf64>) {
    ^bb0(%in: f64, %out: f64):
      linalg.yield %in : f64
    } -> tensor<4x8xf64>
    %75 = linalg.generic {indexing_maps = [#map4, #map4, #map4], iterator_types = ["parallel", "parallel"]} ins(%73, %74 : tensor<4x8xf64>, tensor<4x8xf64>) outs(%4 : tensor<4x8xf64>) {
    ^bb0(%in: f64, %in_71: f64, %out: f64):
      %164 = arith.addf %in, %in_71 : f64
      linalg.yield %164 : f64
    } -> tensor<4x8xf64>
    %expanded_35 = tensor.expand_shape %75 [[0, 1], [2]] output_shape [1, 4, 8] : tensor<4x8xf64> into tensor<1x4x8xf64>
    %76 = linalg.generic {indexing_maps = [#map2, #map2, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%52, %expanded_35 : tensor<1x4x8xf64>, tensor<1x4x8xf64>) outs(%2 : tensor<1x4x8xf64>) {
    ^bb0(%in: f64, %in_71: f64, %out: f64):
      %164 = arith.addf %in, %in_71 : f64
      linalg.yield %164 : f64
    } -> tensor<1x4x8xf64>
    %77 = linalg.generic {indexing_maps = [#map2, #map6], iterator_types = ["parallel", "parallel", "reduction"]} ins(%76 : tensor<1x4x8xf64>) outs(%8 : tensor<1x4x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %164 = arith.addf %in, %out : f64
      linalg.yield %164 : f64
    } -> tensor<1x4x1xf64>
    %78 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%77 : tensor<1x4x1xf64>) outs(%7 : tensor<1x4x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %164 = arith.divf %in, %cst_8 : f64
      linalg.yield %164 : f64
    } -> tensor<1x4x1xf64>
    %79 = linalg.generic {indexing_maps = [#map2, #map6, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%76, %78 : tensor<1x4x8xf64>, tensor<1x4x1xf64>) outs(%2 : tensor<1x4x8xf64>) {
    ^bb0(%in: f64, %in_71: f64, %out: f64):
      %164 = arith.subf %in, %in_71 : f64
      linalg.yield %164 : f64
    } -> tensor<1x4x8xf64>
    %80 = linalg.generic {indexing_maps = [#map2, #map2, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%79, %79 : tensor<1x4x8xf64>, tensor<1x4x8xf64>) outs(%2 : tensor<1x4x8xf64>) {
    ^bb0(%in: f64, %in_71: f64, %out: f64):
      %164 = arith.mulf %in, %in_71 : f64
      linalg.yield %164 : f64
    } -> tensor<1x4x8xf64>
    %81 = linalg.generic {indexing_maps = [#map2, #map6], iterator_types = ["parallel", "parallel", "reduction"]} ins(%80 : tensor<1x4x8xf64>) outs(%8 : tensor<1x4x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %164 = arith.addf %in, %out : f64
      linalg.yield %164 : f64
    } -> tensor<1x4x1xf64>
    %82 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%81 : tensor<1x4x1xf64>) outs(%7 : tensor<1x4x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %164 = arith.divf %in, %cst_8 : f64
      linalg.yield %164 : f64
    } -> tensor<1x4x1xf64>
    %83 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%82 : tensor<1x4x1xf64>) outs(%7 : tensor<1x4x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %164 = arith.addf %in, %cst_7 : f64
      linalg.yield %164 : f64
    } -> tensor<1x4x1xf64>
    %84 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%83 : tensor<1x4x1xf64>) outs(%7 : tensor<1x4x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %164 = math.rsqrt %in : f64
      linalg.yield %164 : f64
    } -> tensor<1x4x1xf64>
    %85 = linalg.generic {indexing_maps = [#map2, #map6, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%79, %84 : tensor<1x4x8xf64>, tensor<1x4x1xf64>) outs(%2 : tensor<1x4x8xf64>) {
    ^bb0(%in: f64, %in_71: f64, %out: f64):
      %164 = arith.mulf %in, %in_71 : f64
      linalg.yield %164 : f64
    } -> tensor<1x4x8xf64>
    %86 = linalg.generic {indexing_maps = [#map2, #map7, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%85, %arg14 : tensor<1x4x8xf64>, tensor<8xf64>) outs(%2 : tensor<1x4x8xf64>) {
    ^bb0(%in: f64, %in_71: f64, %out: f64):
      %164 = arith.mulf %in, %in_71 : f64
      linalg.yield %164 : f64
    } -> tensor<1x4x8xf64>
    %87 = linalg.generic {indexing_maps = [#map2, #map7, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%86, %arg15 : tensor<1x4x8xf64>, tensor<8xf64>) outs(%2 : tensor<1x4x8xf64>) {
    ^bb0(%in: f64, %in_71: f64, %out: f64):
      %164 = arith.addf %in, %in_71 : f64
      linalg.yield %164 : f64
    } -> tensor<1x4x8xf64>
    %collapsed_36 = tensor.collapse_shape %87 [[0, 1], [2]] : tensor<1x4x8xf64> into tensor<4x8xf64>
    %transposed_37 = linalg.transpose ins(%arg16 : tensor<24x8xf64>) outs(%20 : tensor<8x24xf64>) permutation = [1, 0] 
    %88 = linalg.matmul ins(%collapsed_36, %transposed_37 : tensor<4x8xf64>, tensor<8x24xf64>) outs(%22 : tensor<4x24xf64>) -> tensor<4x24xf64>
    %89 = linalg.generic {indexing_maps = [#map8, #map4], iterator_types = ["parallel", "parallel"]} ins(%arg17 : tensor<24xf64>) outs(%21 : tensor<4x24xf64>) {
    ^bb0(%in: f64, %out: f64):
      linalg.yield %in : f64
    } -> tensor<4x24xf64>
    %90 = linalg.generic {indexing_maps = [#map4, #map4, #map4], iterator_types = ["parallel", "parallel"]} ins(%88, %89 : tensor<4x24xf64>, tensor<4x24xf64>) outs(%21 : tensor<4x24xf64>) {
    ^bb0(%in: f64, %in_71: f64, %out: f64):
      %164 = arith.addf %in, %in_71 : f64
      linalg.yield %164 : f64
    } -> tensor<4x24xf64>
    %expanded_38 = tensor.expand_shape %90 [[0, 1], [2]] output_shape [1, 4, 24] : tensor<4x24xf64> into tensor<1x4x24xf64>
    %extracted_slice_39 = tensor.extract_slice %expanded_38[0, 0, 0] [1, 4, 8] [1, 1, 1] : tensor<1x4x24xf64> to tensor<1x4x8xf64>
    %extracted_slice_40 = tensor.extract_slice %expanded_38[0, 0, 8] [1, 4, 8] [1, 1, 1] : tensor<1x4x24xf64> to tensor<1x4x8xf64>
    %extracted_slice_41 = tensor.extract_slice %expanded_38[0, 0, 16] [1, 4, 8] [1, 1, 1] : tensor<1x4x24xf64> to tensor<1x4x8xf64>
    %expanded_42 = tensor.expand_shape %extracted_slice_40 [[0], [1], [2, 3]] output_shape [1, 4, 2, 4] : tensor<1x4x8xf64> into tensor<1x4x2x4xf64>
    %expanded_43 = tensor.expand_shape %extracted_slice_39 [[0], [1], [2, 3]] output_shape [1, 4, 2, 4] : tensor<1x4x8xf64> into tensor<1x4x2x4xf64>
    %transposed_44 = linalg.transpose ins(%expanded_43 : tensor<1x4x2x4xf64>) outs(%26 : tensor<1x2x4x4xf64>) permutation = [0, 2, 1, 3] 
    %expanded_45 = tensor.expand_shape %extracted_slice_41 [[0], [1], [2, 3]] output_shape [1, 4, 2, 4] : tensor<1x4x8xf64> into tensor<1x4x2x4xf64>
    %transposed_46 = linalg.transpose ins(%expanded_45 : tensor<1x4x2x4xf64>) outs(%26 : tensor<1x2x4x4xf64>) permutation = [0, 2, 1, 3] 
    %transposed_47 = linalg.transpose ins(%expanded_42 : tensor<1x4x2x4xf64>) outs(%26 : tensor<1x2x4x4xf64>) permutation = [0, 2, 3, 1] 
    %collapsed_48 = tensor.collapse_shape %transposed_44 [[0, 1], [2], [3]] : tensor<1x2x4x4xf64> into tensor<2x4x4xf64>
    %collapsed_49 = tensor.collapse_shape %transposed_47 [[0, 1], [2], [3]] : tensor<1x2x4x4xf64> into tensor<2x4x4xf64>
    %91 = linalg.batch_matmul ins(%collapsed_48, %collapsed_49 : tensor<2x4x4xf64>, tensor<2x4x4xf64>) outs(%28 : tensor<2x4x4xf64>) -> tensor<2x4x4xf64>
    %expanded_50 = tensor.expand_shape %91 [[0, 1], [2], [3]] output_shape [1, 2, 4, 4] : tensor<2x4x4xf64> into tensor<1x2x4x4xf64>
    %92 = linalg.generic {indexing_maps = [#map9, #map9], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%expanded_50 : tensor<1x2x4x4xf64>) outs(%26 : tensor<1x2x4x4xf64>) {
    ^bb0(%in: f64, %out: f64):
      %164 = arith.mulf %in, %cst_2 : f64
      linalg.yield %164 : f64
    } -> tensor<1x2x4x4xf64>
    %93 = linalg.generic {indexing_maps = [#map9, #map9], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%cst_5 : tensor<1x1x4x4xf64>) outs(%31 : tensor<1x1x4x4xi1>) {
    ^bb0(%in: f64, %out: i1):
      %164 = arith.cmpf oeq, %in, %cst : f64
      linalg.yield %164 : i1
    } -> tensor<1x1x4x4xi1>
    %94 = linalg.generic {indexing_maps = [#map10, #map11, #map9, #map9], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%93, %cst_4, %92 : tensor<1x1x4x4xi1>, tensor<f64>, tensor<1x2x4x4xf64>) outs(%26 : tensor<1x2x4x4xf64>) {
    ^bb0(%in: i1, %in_71: f64, %in_72: f64, %out: f64):
      %164 = arith.select %in, %in_71, %in_72 : f64
      linalg.yield %164 : f64
    } -> tensor<1x2x4x4xf64>
    %95:2 = linalg.generic {indexing_maps = [#map9, #map12, #map12], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%94 : tensor<1x2x4x4xf64>) outs(%37, %35 : tensor<1x2x4xf64>, tensor<1x2x4xi64>) {
    ^bb0(%in: f64, %out: f64, %out_71: i64):
      %164 = linalg.index 3 : index
      %165 = arith.index_cast %164 : index to i64
      %166 = arith.maximumf %in, %out : f64
      %167 = arith.cmpf ogt, %in, %out : f64
      %168 = arith.select %167, %165, %out_71 : i64
      linalg.yield %166, %168 : f64, i64
    } -> (tensor<1x2x4xf64>, tensor<1x2x4xi64>)
    %expanded_51 = tensor.expand_shape %95#0 [[0], [1], [2, 3]] output_shape [1, 2, 4, 1] : tensor<1x2x4xf64> into tensor<1x2x4x1xf64>
    %96 = linalg.generic {indexing_maps = [#map9, #map13, #map9], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%94, %expanded_51 : tensor<1x2x4x4xf64>, tensor<1x2x4x1xf64>) outs(%26 : tensor<1x2x4x4xf64>) {
    ^bb0(%in: f64, %in_71: f64, %out: f64):
      %164 = arith.subf %in, %in_71 : f64
      linalg.yield %164 : f64
    } -> tensor<1x2x4x4xf64>
    %97 = linalg.generic {indexing_maps = [#map9, #map9], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%96 : tensor<1x2x4x4xf64>) outs(%26 : tensor<1x2x4x4xf64>) {
    ^bb0(%in: f64, %out: f64):
      %164 = math.exp %in : f64
      linalg.yield %164 : f64
    } -> tensor<1x2x4x4xf64>
    %98 = linalg.generic {indexing_maps = [#map9, #map13], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%97 : tensor<1x2x4x4xf64>) outs(%42 : tensor<1x2x4x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %164 = arith.addf %in, %out : f64
      linalg.yield %164 : f64
    } -> tensor<1x2x4x1xf64>
    %99 = linalg.generic {indexing_maps = [#map9, #map13, #map9], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%97, %98 : tensor<1x2x4x4xf64>, tensor<1x2x4x1xf64>) outs(%26 : tensor<1x2x4x4xf64>) {
    ^bb0(%in: f64, %in_71: f64, %out: f64):
      %164 = arith.divf %in, %in_71 : f64
      linalg.yield %164 : f64
    } -> tensor<1x2x4x4xf64>
    %collapsed_52 = tensor.collapse_shape %99 [[0, 1], [2], [3]] : tensor<1x2x4x4xf64> into tensor<2x4x4xf64>
    %collapsed_53 = tensor.collapse_shape %transposed_46 [[0, 1], [2], [3]] : tensor<1x2x4x4xf64> into tensor<2x4x4xf64>
    %100 = linalg.batch_matmul ins(%collapsed_52, %collapsed_53 : tensor<2x4x4xf64>, tensor<2x4x4xf64>) outs(%28 : tensor<2x4x4xf64>) -> tensor<2x4x4xf64>
    %expanded_54 = tensor.expand_shape %100 [[0, 1], [2], [3]] output_shape [1, 2, 4, 4] : tensor<2x4x4xf64> into tensor<1x2x4x4xf64>
    %transposed_55 = linalg.transpose ins(%expanded_54 : tensor<1x2x4x4xf64>) outs(%46 : tensor<1x4x2x4xf64>) permutation = [0, 2, 1, 3] 
    %collapsed_56 = tensor.collapse_shape %transposed_55 [[0, 1], [2, 3]] : tensor<1x4x2x4xf64> into tensor<4x8xf64>
    %transposed_57 = linalg.transpose ins(%arg18 : tensor<8x8xf64>) outs(%47 : tensor<8x8xf64>) permutation = [1, 0] 
    %101 = linalg.matmul ins(%collapsed_56, %transposed_57 : tensor<4x8xf64>, tensor<8x8xf64>) outs(%48 : tensor<4x8xf64>) -> tensor<4x8xf64>
    %102 = linalg.generic {indexing_maps = [#map8, #map4], iterator_types = ["parallel", "parallel"]} ins(%arg19 : tensor<8xf64>) outs(%4 : tensor<4x8xf64>) {
    ^bb0(%in: f64, %out: f64):
      linalg.yield %in : f64
    } -> tensor<4x8xf64>
    %103 = linalg.generic {indexing_maps = [#map4, #map4, #map4], iterator_types = ["parallel", "parallel"]} ins(%101, %102 : tensor<4x8xf64>, tensor<4x8xf64>) outs(%4 : tensor<4x8xf64>) {
    ^bb0(%in: f64, %in_71: f64, %out: f64):
      %164 = arith.addf %in, %in_71 : f64
      linalg.yield %164 : f64
    } -> tensor<4x8xf64>
    %expanded_58 = tensor.expand_shape %103 [[0, 1], [2]] output_shape [1, 4, 8] : tensor<4x8xf64> into tensor<1x4x8xf64>
    %104 = linalg.generic {indexing_maps = [#map2, #map2, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%76, %expanded_58 : tensor<1x4x8xf64>, tensor<1x4x8xf64>) outs(%2 : tensor<1x4x8xf64>) {
    ^bb0(%in: f64, %in_71: f64, %out: f64):
      %164 = arith.addf %in, %in_71 : f64
      linalg.yield %164 : f64
    } -> tensor<1x4x8xf64>
    %105 = linalg.generic {indexing_maps = [#map2, #map6], iterator_types = ["parallel", "parallel", "reduction"]} ins(%104 : tensor<1x4x8xf64>) outs(%8 : tensor<1x4x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %164 = arith.addf %in, %out : f64
      linalg.yield %164 : f64
    } -> tensor<1x4x1xf64>
    %106 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%105 : tensor<1x4x1xf64>) outs(%7 : tensor<1x4x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %164 = arith.divf %in, %cst_8 : f64
      linalg.yield %164 : f64
    } -> tensor<1x4x1xf64>
    %107 = linalg.generic {indexing_maps = [#map2, #map6, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%104, %106 : tensor<1x4x8xf64>, tensor<1x4x1xf64>) outs(%2 : tensor<1x4x8xf64>) {
    ^bb0(%in: f64, %in_71: f64, %out: f64):
      %164 = arith.subf %in, %in_71 : f64
      linalg.yield %164 : f64
    } -> tensor<1x4x8xf64>
    %108 = linalg.generic {indexing_maps = [#map2, #map2, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%107, %107 : tensor<1x4x8xf64>, tensor<1x4x8xf64>) outs(%2 : tensor<1x4x8xf64>) {
    ^bb0(%in: f64, %in_71: f64, %out: f64):
      %164 = arith.mulf %in, %in_71 : f64
      linalg.yield %164 : f64
    } -> tensor<1x4x8xf64>
    %109 = linalg.generic {indexing_maps = [#map2, #map6], iterator_types = ["parallel", "parallel", "reduction"]} ins(%108 : tensor<1x4x8xf64>) outs(%8 : tensor<1x4x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %164 = arith.addf %in, %out : f64
      linalg.yield %164 : f64
    } -> tensor<1x4x1xf64>
    %110 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%109 : tensor<1x4x1xf64>) outs(%7 : tensor<1x4x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %164 = arith.divf %in, %cst_8 : f64
      linalg.yield %164 : f64
    } -> tensor<1x4x1xf64>
    %111 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%110 : tensor<1x4x1xf64>) outs(%7 : tensor<1x4x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %164 = arith.addf %in, %cst_7 : f64
      linalg.yield %164 : f64
    } -> tensor<1x4x1xf64>
    %112 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%111 : tensor<1x4x1xf64>) outs(%7 : tensor<1x4x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %164 = math.rsqrt %in : f64
      linalg.yield %164 : f64
    } -> tensor<1x4x1xf64>
    %113 = linalg.generic {indexing_maps = [#map2, #map6, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%107, %112 : tensor<1x4x8xf64>, tensor<1x4x1xf64>) outs(%2 : tensor<1x4x8xf64>) {
    ^bb0(%in: f64, %in_71: f64, %out: f64):
      %164 = arith.mulf %in, %in_71 : f64
      linalg.yield %164 : f64
    } -> tensor<1x4x8xf64>
    %114 = linalg.generic {indexing_maps = [#map2, #map7, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%113, %arg20 : tensor<1x4x8xf64>, tensor<8xf64>) outs(%2 : tensor<1x4x8xf64>) {
    ^bb0(%in: f64, %in_71: f64, %out: f64):
      %164 = arith.mulf %in, %in_71 : f64
      linalg.yield %164 : f64
    } -> tensor<1x4x8xf64>
    %115 = linalg.generic {indexing_maps = [#map2, #map7, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%114, %arg21 : tensor<1x4x8xf64>, tensor<8xf64>) outs(%2 : tensor<1x4x8xf64>) {
    ^bb0(%in: f64, %in_71: f64, %out: f64):
      %164 = arith.addf %in, %in_71 : f64
      linalg.yield %164 : f64
    } -> tensor<1x4x8xf64>
    %collapsed_59 = tensor.collapse_shape %115 [[0, 1], [2]] : tensor<1x4x8xf64> into tensor<4x8xf64>
    %transposed_60 = linalg.transpose ins(%arg22 : tensor<32x8xf64>) outs(%64 : tensor<8x32xf64>) permutation = [1, 0] 
    %116 = linalg.matmul ins(%collapsed_59, %transposed_60 : tensor<4x8xf64>, tensor<8x32xf64>) outs(%66 : tensor<4x32xf64>) -> tensor<4x32xf64>
    %117 = linalg.generic {indexing_maps = [#map8, #map4], iterator_types = ["parallel", "parallel"]} ins(%arg23 : tensor<32xf64>) outs(%65 : tensor<4x32xf64>) {
    ^bb0(%in: f64, %out: f64):
      linalg.yield %in : f64
    } -> tensor<4x32xf64>
    %118 = linalg.generic {indexing_maps = [#map4, #map4, #map4], iterator_types = ["parallel", "parallel"]} ins(%116, %117 : tensor<4x32xf64>, tensor<4x32xf64>) outs(%65 : tensor<4x32xf64>) {
    ^bb0(%in: f64, %in_71: f64, %out: f64):
      %164 = arith.addf %in, %in_71 : f64
      linalg.yield %164 : f64
    } -> tensor<4x32xf64>
    %expanded_61 = tensor.expand_shape %118 [[0, 1], [2]] output_shape [1, 4, 32] : tensor<4x32xf64> into tensor<1x4x32xf64>
    %119 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%expanded_61 : tensor<1x4x32xf64>) outs(%70 : tensor<1x4x32xf64>) {
    ^bb0(%in: f64, %out: f64):
      %164 = arith.divf %in, %cst_9 : f64
      %165 = math.erf %164 : f64
      %166 = arith.addf %165, %cst_1 : f64
      %167 = arith.mulf %166, %cst_2 : f64
      %168 = arith.mulf %in, %167 : f64
      linalg.yield %168 : f64
    } -> tensor<1x4x32xf64>
    %collapsed_62 = tensor.collapse_shape %119 [[0, 1], [2]] : tensor<1x4x32xf64> into tensor<4x32xf64>
    %transposed_63 = linalg.transpose ins(%arg24 : tensor<8x32xf64>) outs(%72 : tensor<32x8xf64>) permutation = [1, 0] 
    %120 = linalg.matmul ins(%collapsed_62, %transposed_63 : tensor<4x32xf64>, tensor<32x8xf64>) outs(%48 : tensor<4x8xf64>) -> tensor<4x8xf64>
    %121 = linalg.generic {indexing_maps = [#map8, #map4], iterator_types = ["parallel", "parallel"]} ins(%arg25 : tensor<8xf64>) outs(%4 : tensor<4x8xf64>) {
    ^bb0(%in: f64, %out: f64):
      linalg.yield %in : f64
    } -> tensor<4x8xf64>
    %122 = linalg.generic {indexing_maps = [#map4, #map4, #map4], iterator_types = ["parallel", "parallel"]} ins(%120, %121 : tensor<4x8xf64>, tensor<4x8xf64>) outs(%4 : tensor<4x8xf64>) {
    ^bb0(%in: f64, %in_71: f64, %out: f64):
      %164 = arith.addf %in, %in_71 : f64
      linalg.yield %164 : f64
    } -> tensor<4x8xf64>
    %expanded_64 = tensor.expand_shape %122 [[0, 1], [2]] output_shape [1, 4, 8] : tensor<4x8xf64> into tensor<1x4x8xf64>
    %123 = linalg.generic {indexing_maps = [#map2, #map2, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%104, %expanded_64 : tensor<1x4x8xf64>, tensor<1x4x8xf64>) outs(%2 : tensor<1x4x8xf64>) {
    ^bb0(%in: f64, %in_71: f64, %out: f64):
      %164 = arith.addf %in, %in_71 : f64
      linalg.yield %164 : f64
    } -> tensor<1x4x8xf64>
    %124 = linalg.generic {indexing_maps = [#map2, #map6], iterator_types = ["parallel", "parallel", "reduction"]} ins(%123 : tensor<1x4x8xf64>) outs(%8 : tensor<1x4x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %164 = arith.addf %in, %out : f64
      linalg.yield %164 : f64
    } -> tensor<1x4x1xf64>
    %125 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%124 : tensor<1x4x1xf64>) outs(%7 : tensor<1x4x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %164 = arith.divf %in, %cst_8 : f64
      linalg.yield %164 : f64
    } -> tensor<1x4x1xf64>
    %126 = linalg.generic {indexing_maps = [#map2, #map6, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%123, %125 : tensor<1x4x8xf64>, tensor<1x4x1xf64>) outs(%2 : tensor<1x4x8xf64>) {
    ^bb0(%in: f64, %in_71: f64, %out: f64):
      %164 = arith.subf %in, %in_71 : f64
      linalg.yield %164 : f64
    } -> tensor<1x4x8xf64>
    %127 = linalg.generic {indexing_maps = [#map2, #map2, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%126, %126 : tensor<1x4x8xf64>, tensor<1x4x8xf64>) outs(%2 : tensor<1x4x8xf64>) {
    ^bb0(%in: f64, %in_71: f64, %out: f64):
      %164 = arith.mulf %in, %in_71 : f64
      linalg.yield %164 : f64
    } -> tensor<1x4x8xf64>
    %128 = linalg.generic {indexing_maps = [#map2, #map6], iterator_types = ["parallel", "parallel", "reduction"]} ins(%127 : tensor<1x4x8xf64>) outs(%8 : tensor<1x4x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %164 = arith.addf %in, %out : f64
      linalg.yield %164 : f64
    } -> tensor<1x4x1xf64>
    %129 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%128 : tensor<1x4x1xf64>) outs(%7 : tensor<1x4x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %164 = arith.divf %in, %cst_8 : f64
      linalg.yield %164 : f64
    } -> tensor<1x4x1xf64>
    %130 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%129 : tensor<1x4x1xf64>) outs(%7 : tensor<1x4x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %164 = arith.addf %in, %cst_7 : f64
      linalg.yield %164 : f64
    } -> tensor<1x4x1xf64>
    %131 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%130 : tensor<1x4x1xf64>) outs(%7 : tensor<1x4x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %164 = math.rsqrt %in : f64
      linalg.yield %164 : f64
    } -> tensor<1x4x1xf64>
    %132 = linalg.generic {indexing_maps = [#map2, #map6, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%126, %131 : tensor<1x4x8xf64>, tensor<1x4x1xf64>) outs(%2 : tensor<1x4x8xf64>) {
    ^bb0(%in: f64, %in_71: f64, %out: f64):
      %164 = arith.mulf %in, %in_71 : f64
      linalg.yield %164 : f64
    } -> tensor<1x4x8xf64>
    %133 = linalg.generic {indexing_maps = [#map2, #map7, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%132, %arg26 : tensor<1x4x8xf64>, tensor<8xf64>) outs(%2 : tensor<1x4x8xf64>) {
    ^bb0(%in: f64, %in_71: f64, %out: f64):
      %164 = arith.mulf %in, %in_71 : f64
      linalg.yield %164 : f64
    } -> tensor<1x4x8xf64>
    %134 = linalg.generic {indexing_maps = [#map2, #map7, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%133, %arg27 : tensor<1x4x8xf64>, tensor<8xf64>) outs(%2 : tensor<1x4x8xf64>) {
    ^bb0(%in: f64, %in_71: f64, %out: f64):
      %164 = arith.addf %in, %in_71 : f64
      linalg.yield %164 : f64
    } -> tensor<1x4x8xf64>
    %135 = tensor.empty() : tensor<8x16xf64>
    %transposed_65 = linalg.transpose ins(%arg0 : tensor<16x8xf64>) outs(%135 : tensor<8x16xf64>) permutation = [1, 0] 
    %collapsed_66 = tensor.collapse_shape %134 [[0, 1], [2]] : tensor<1x4x8xf64> into tensor<4x8xf64>
    %136 = tensor.empty() : tensor<4x16xf64>
    %137 = linalg.fill ins(%cst : f64) outs(%136 : tensor<4x16xf64>) -> tensor<4x16xf64>
    %138 = linalg.matmul ins(%collapsed_66, %transposed_65 : tensor<4x8xf64>, tensor<8x16xf64>) outs(%137 : tensor<4x16xf64>) -> tensor<4x16xf64>
    %collapsed_67 = tensor.collapse_shape %arg29 [[0, 1]] : tensor<1x4xi64> into tensor<4xi64>
    %139 = linalg.fill ins(%c0_i64 : i64) outs(%0 : tensor<4xi64>) -> tensor<4xi64>
    %140 = tensor.empty() : tensor<4xf64>
    %141 = linalg.fill ins(%cst_0 : f64) outs(%140 : tensor<4xf64>) -> tensor<4xf64>
    %142:2 = linalg.generic {indexing_maps = [#map4, #map3, #map3], iterator_types = ["parallel", "reduction"]} ins(%138 : tensor<4x16xf64>) outs(%141, %139 : tensor<4xf64>, tensor<4xi64>) {
    ^bb0(%in: f64, %out: f64, %out_71: i64):
      %164 = linalg.index 1 : index
      %165 = arith.index_cast %164 : index to i64
      %166 = arith.maximumf %in, %out : f64
      %167 = arith.cmpf ogt, %in, %out : f64
      %168 = arith.select %167, %165, %out_71 : i64
      linalg.yield %166, %168 : f64, i64
    } -> (tensor<4xf64>, tensor<4xi64>)
    %expanded_68 = tensor.expand_shape %142#0 [[0, 1]] output_shape [4, 1] : tensor<4xf64> into tensor<4x1xf64>
    %143 = linalg.generic {indexing_maps = [#map4, #map14, #map4], iterator_types = ["parallel", "parallel"]} ins(%138, %expanded_68 : tensor<4x16xf64>, tensor<4x1xf64>) outs(%136 : tensor<4x16xf64>) {
    ^bb0(%in: f64, %in_71: f64, %out: f64):
      %164 = arith.subf %in, %in_71 : f64
      linalg.yield %164 : f64
    } -> tensor<4x16xf64>
    %144 = linalg.generic {indexing_maps = [#map4, #map4], iterator_types = ["parallel", "parallel"]} ins(%143 : tensor<4x16xf64>) outs(%136 : tensor<4x16xf64>) {
    ^bb0(%in: f64, %out: f64):
      %164 = math.exp %in : f64
      linalg.yield %164 : f64
    } -> tensor<4x16xf64>
    %145 = tensor.empty() : tensor<4x1xf64>
    %146 = linalg.fill ins(%cst : f64) outs(%145 : tensor<4x1xf64>) -> tensor<4x1xf64>
    %147 = linalg.generic {indexing_maps = [#map4, #map14], iterator_types = ["parallel", "reduction"]} ins(%144 : tensor<4x16xf64>) outs(%146 : tensor<4x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %164 = arith.addf %in, %out : f64
      linalg.yield %164 : f64
    } -> tensor<4x1xf64>
    %148 = linalg.generic {indexing_maps = [#map4, #map4], iterator_types = ["parallel", "parallel"]} ins(%147 : tensor<4x1xf64>) outs(%145 : tensor<4x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %164 = math.log %in : f64
      linalg.yield %164 : f64
    } -> tensor<4x1xf64>
    %149 = linalg.generic {indexing_maps = [#map4, #map14, #map4], iterator_types = ["parallel", "parallel"]} ins(%143, %148 : tensor<4x16xf64>, tensor<4x1xf64>) outs(%136 : tensor<4x16xf64>) {
    ^bb0(%in: f64, %in_71: f64, %out: f64):
      %164 = arith.subf %in, %in_71 : f64
      linalg.yield %164 : f64
    } -> tensor<4x16xf64>
    %150 = tensor.empty() : tensor<4xi1>
    %151 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%collapsed_67 : tensor<4xi64>) outs(%150 : tensor<4xi1>) {
    ^bb0(%in: i64, %out: i1):
      %164 = arith.cmpi ne, %in, %c-100_i64 : i64
      linalg.yield %164 : i1
    } -> tensor<4xi1>
    %152 = linalg.generic {indexing_maps = [#map, #map, #map15, #map], iterator_types = ["parallel"]} ins(%151, %collapsed_67, %cst_10 : tensor<4xi1>, tensor<4xi64>, tensor<i64>) outs(%0 : tensor<4xi64>) {
    ^bb0(%in: i1, %in_71: i64, %in_72: i64, %out: i64):
      %164 = arith.select %in, %in_71, %in_72 : i64
      linalg.yield %164 : i64
    } -> tensor<4xi64>
    %expanded_69 = tensor.expand_shape %152 [[0, 1]] output_shape [4, 1] : tensor<4xi64> into tensor<4x1xi64>
    %153 = linalg.generic {indexing_maps = [#map4, #map4], iterator_types = ["parallel", "parallel"]} ins(%expanded_69 : tensor<4x1xi64>) outs(%146 : tensor<4x1xf64>) {
    ^bb0(%in: i64, %out: f64):
      %164 = linalg.index 0 : index
      %165 = arith.index_cast %in : i64 to index
      %166 = arith.cmpi slt, %165, %c16 : index
      cf.assert %166, "index must be smaller than dim size"
      %167 = arith.cmpi sge, %in, %c0_i64 : i64
      cf.assert %167, "index must be larger or equal to 0"
      %extracted = tensor.extract %149[%164, %165] : tensor<4x16xf64>
      linalg.yield %extracted : f64
    } -> tensor<4x1xf64>
    %collapsed_70 = tensor.collapse_shape %153 [[0, 1]] : tensor<4x1xf64> into tensor<4xf64>
    %154 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%collapsed_70 : tensor<4xf64>) outs(%140 : tensor<4xf64>) {
    ^bb0(%in: f64, %out: f64):
      %164 = arith.negf %in : f64
      linalg.yield %164 : f64
    } -> tensor<4xf64>
    %155 = linalg.generic {indexing_maps = [#map, #map, #map15, #map], iterator_types = ["parallel"]} ins(%151, %154, %cst_3 : tensor<4xi1>, tensor<4xf64>, tensor<f64>) outs(%140 : tensor<4xf64>) {
    ^bb0(%in: i1, %in_71: f64, %in_72: f64, %out: f64):
      %164 = arith.select %in, %in_71, %in_72 : f64
      linalg.yield %164 : f64
    } -> tensor<4xf64>
    %156 = tensor.empty() : tensor<i64>
    %157 = linalg.fill ins(%c0_i64 : i64) outs(%156 : tensor<i64>) -> tensor<i64>
    %158 = linalg.generic {indexing_maps = [#map, #map15], iterator_types = ["reduction"]} ins(%151 : tensor<4xi1>) outs(%157 : tensor<i64>) {
    ^bb0(%in: i1, %out: i64):
      %164 = arith.extui %in : i1 to i64
      %165 = arith.addi %164, %out : i64
      linalg.yield %165 : i64
    } -> tensor<i64>
    %159 = tensor.empty() : tensor<f64>
    %160 = linalg.generic {indexing_maps = [#map16, #map16], iterator_types = []} ins(%158 : tensor<i64>) outs(%159 : tensor<f64>) {
    ^bb0(%in: i64, %out: f64):
      %164 = arith.sitofp %in : i64 to f64
      linalg.yield %164 : f64
    } -> tensor<f64>
    %161 = linalg.fill ins(%cst : f64) outs(%159 : tensor<f64>) -> tensor<f64>
    %162 = linalg.generic {indexing_maps = [#map, #map15], iterator_types = ["reduction"]} ins(%155 : tensor<4xf64>) outs(%161 : tensor<f64>) {
    ^bb0(%in: f64, %out: f64):
      %164 = arith.addf %in, %out : f64
      linalg.yield %164 : f64
    } -> tensor<f64>
    %163 = linalg.generic {indexing_maps = [#map16, #map16, #map16], iterator_types = []} ins(%162, %160 : tensor<f64>, tensor<f64>) outs(%159 : tensor<f64>) {
    ^bb0(%in: f64, %in_71: f64, %out: f64):
      %164 = arith.divf %in, %in_71 : f64
      linalg.yield %164 : f64
    } -> tensor<f64>
    return %163 : tensor<f64>
  }
}

{-#
  dialect_resources: {
    builtin: {
      torch_tensor_1_1_4_4_torch.float64_1: "0x08000000000000000000F03F000000000000000000000000000000000000000000000000000000000000F03F000000000000F03F00000000000000000000000000000000000000000000F03F000000000000F03F000000000000F03F0000000000000000000000000000F03F000000000000F03F000000000000F03F000000000000F03F",
      torch_tensor_1_1_4_4_torch.float64: "0x08000000000000000000F03F000000000000000000000000000000000000000000000000000000000000F03F000000000000F03F00000000000000000000000000000000000000000000F03F000000000000F03F000000000000F03F0000000000000000000000000000F03F000000000000F03F000000000000F03F000000000000F03F"
    }
  }
#-}
