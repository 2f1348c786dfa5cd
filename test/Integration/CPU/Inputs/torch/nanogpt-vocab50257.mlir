// Exported by utils/torch-export/export_models.py --vocab 50257 --layers 1 (nanogpt.mlir).
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
  func.func @loss(%arg0: tensor<50257x8xf64> {prec.name = "wte.weight"}, %arg1: tensor<4x8xf64> {prec.name = "wpe.weight"}, %arg2: tensor<8xf64> {prec.name = "h.0.ln_1.weight"}, %arg3: tensor<8xf64> {prec.name = "h.0.ln_1.bias"}, %arg4: tensor<24x8xf64> {prec.name = "h.0.attn.c_attn.weight"}, %arg5: tensor<24xf64> {prec.name = "h.0.attn.c_attn.bias"}, %arg6: tensor<8x8xf64> {prec.name = "h.0.attn.c_proj.weight"}, %arg7: tensor<8xf64> {prec.name = "h.0.attn.c_proj.bias"}, %arg8: tensor<8xf64> {prec.name = "h.0.ln_2.weight"}, %arg9: tensor<8xf64> {prec.name = "h.0.ln_2.bias"}, %arg10: tensor<32x8xf64> {prec.name = "h.0.fc.weight"}, %arg11: tensor<32xf64> {prec.name = "h.0.fc.bias"}, %arg12: tensor<8x32xf64> {prec.name = "h.0.proj.weight"}, %arg13: tensor<8xf64> {prec.name = "h.0.proj.bias"}, %arg14: tensor<8xf64> {prec.name = "ln_f.weight"}, %arg15: tensor<8xf64> {prec.name = "ln_f.bias"}, %arg16: tensor<1x4xi64> {prec.name = "idx"}, %arg17: tensor<1x4xi64> {prec.name = "targets"}) -> tensor<f64> {
    %c-100_i64 = arith.constant -100 : i64
    %c0_i64 = arith.constant 0 : i64
    %c4 = arith.constant 4 : index
    %c50257 = arith.constant 50257 : index
    %cst = arith.constant 0.000000e+00 : f64
    %cst_0 = arith.constant 0xFFF0000000000000 : f64
    %cst_1 = arith.constant 1.000000e+00 : f64
    %cst_2 = arith.constant 5.000000e-01 : f64
    %cst_3 = arith.constant dense<0.000000e+00> : tensor<f64>
    %cst_4 = arith.constant dense<0xFFF0000000000000> : tensor<f64>
    %cst_5 = arith.constant dense_resource<torch_tensor_1_1_4_4_torch.float64> : tensor<1x1x4x4xf64>
    %cst_6 = arith.constant 1.000000e-05 : f64
    %cst_7 = arith.constant 8.000000e+00 : f64
    %cst_8 = arith.constant 1.4142135623730951 : f64
    %cst_9 = arith.constant dense<0> : tensor<i64>
    %0 = tensor.empty() : tensor<4xi64>
    %1 = linalg.generic {indexing_maps = [#map], iterator_types = ["parallel"]} outs(%0 : tensor<4xi64>) {
    ^bb0(%out: i64):
      %117 = linalg.index 0 : index
      %118 = arith.index_cast %117 : index to i64
      linalg.yield %118 : i64
    } -> tensor<4xi64>
    %2 = tensor.empty() : tensor<1x4x8xf64>
    %3 = linalg.generic {indexing_maps = [#map1, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg16 : tensor<1x4xi64>) outs(%2 : tensor<1x4x8xf64>) {
    ^bb0(%in: i64, %out: f64):
      %117 = arith.index_cast %in : i64 to index
      %118 = linalg.index 2 : index
      %119 = arith.cmpi slt, %117, %c50257 : index
      cf.assert %119, "index must be smaller than dim size"
      %120 = arith.cmpi sge, %in, %c0_i64 : i64
      cf.assert %120, "index must be larger or equal to 0"
      %extracted = tensor.extract %arg0[%117, %118] : tensor<50257x8xf64>
      linalg.yield %extracted : f64
    } -> tensor<1x4x8xf64>
    %4 = tensor.empty() : tensor<4x8xf64>
    %5 = linalg.generic {indexing_maps = [#map3, #map4], iterator_types = ["parallel", "parallel"]} ins(%1 : tensor<4xi64>) outs(%4 : tensor<4x8xf64>) {
    ^bb0(%in: i64, %out: f64):
      %117 = arith.index_cast %in : i64 to index
      %118 = linalg.index 1 : index
      %119 = arith.cmpi slt, %117, %c4 : index
      cf.assert %119, "index must be smaller than dim size"
      %120 = arith.cmpi sge, %in, %c0_i64 : i64
      cf.assert %120, "index must be larger or equal to 0"
      %extracted = tensor.extract %arg1[%117, %118] : tensor<4x8xf64>
      linalg.yield %extracted : f64
    } -> tensor<4x8xf64>
    %6 = linalg.generic {indexing_maps = [#map2, #map5, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%3, %5 : tensor<1x4x8xf64>, tensor<4x8xf64>) outs(%2 : tensor<1x4x8xf64>) {
    ^bb0(%in: f64, %in_41: f64, %out: f64):
      %117 = arith.addf %in, %in_41 : f64
      linalg.yield %117 : f64
    } -> tensor<1x4x8xf64>
    %7 = tensor.empty() : tensor<1x4x1xf64>
    %8 = linalg.fill ins(%cst : f64) outs(%7 : tensor<1x4x1xf64>) -> tensor<1x4x1xf64>
    %9 = linalg.generic {indexing_maps = [#map2, #map6], iterator_types = ["parallel", "parallel", "reduction"]} ins(%6 : tensor<1x4x8xf64>) outs(%8 : tensor<1x4x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %117 = arith.addf %in, %out : f64
      linalg.yield %117 : f64
    } -> tensor<1x4x1xf64>
    %10 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%9 : tensor<1x4x1xf64>) outs(%7 : tensor<1x4x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %117 = arith.divf %in, %cst_7 : f64
      linalg.yield %117 : f64
    } -> tensor<1x4x1xf64>
    %11 = linalg.generic {indexing_maps = [#map2, #map6, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%6, %10 : tensor<1x4x8xf64>, tensor<1x4x1xf64>) outs(%2 : tensor<1x4x8xf64>) {
    ^bb0(%in: f64, %in_41: f64, %out: f64):
      %117 = arith.subf %in, %in_41 : f64
      linalg.yield %117 : f64
    } -> tensor<1x4x8xf64>
    %12 = linalg.generic {indexing_maps = [#map2, #map2, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%11, %11 : tensor<1x4x8xf64>, tensor<1x4x8xf64>) outs(%2 : tensor<1x4x8xf64>) {
    ^bb0(%in: f64, %in_41: f64, %out: f64):
      %117 = arith.mulf %in, %in_41 : f64
      linalg.yield %117 : f64
    } -> tensor<1x4x8xf64>
    %13 = linalg.generic {indexing_maps = [#map2, #map6], iterator_types = ["parallel", "parallel", "reduction"]} ins(%12 : tensor<1x4x8xf64>) outs(%8 : tensor<1x4x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %117 = arith.addf %in, %out : f64
      linalg.yield %117 : f64
    } -> tensor<1x4x1xf64>
    %14 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%13 : tensor<1x4x1xf64>) outs(%7 : tensor<1x4x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %117 = arith.divf %in, %cst_7 : f64
      linalg.yield %117 : f64
    } -> tensor<1x4x1xf64>
    %15 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%14 : tensor<1x4x1xf64>) outs(%7 : tensor<1x4x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %117 = arith.addf %in, %cst_6 : f64
      linalg.yield %117 : f64
    } -> tensor<1x4x1xf64>
    %16 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%15 : tensor<1x4x1xf64>) outs(%7 : tensor<1x4x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %117 = math.rsqrt %in : f64
      linalg.yield %117 : f64
    } -> tensor<1x4x1xf64>
    %17 = linalg.generic {indexing_maps = [#map2, #map6, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%11, %16 : tensor<1x4x8xf64>, tensor<1x4x1xf64>) outs(%2 : tensor<1x4x8xf64>) {
    ^bb0(%in: f64, %in_41: f64, %out: f64):
      %117 = arith.mulf %in, %in_41 : f64
      linalg.yield %117 : f64
    } -> tensor<1x4x8xf64>
    %18 = linalg.generic {indexing_maps = [#map2, #map7, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%17, %arg2 : tensor<1x4x8xf64>, tensor<8xf64>) outs(%2 : tensor<1x4x8xf64>) {
    ^bb0(%in: f64, %in_41: f64, %out: f64):
      %117 = arith.mulf %in, %in_41 : f64
      linalg.yield %117 : f64
    } -> tensor<1x4x8xf64>
    %19 = linalg.generic {indexing_maps = [#map2, #map7, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%18, %arg3 : tensor<1x4x8xf64>, tensor<8xf64>) outs(%2 : tensor<1x4x8xf64>) {
    ^bb0(%in: f64, %in_41: f64, %out: f64):
      %117 = arith.addf %in, %in_41 : f64
      linalg.yield %117 : f64
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
    ^bb0(%in: f64, %in_41: f64, %out: f64):
      %117 = arith.addf %in, %in_41 : f64
      linalg.yield %117 : f64
    } -> tensor<4x24xf64>
    %expanded = tensor.expand_shape %25 [[0, 1], [2]] output_shape [1, 4, 24] : tensor<4x24xf64> into tensor<1x4x24xf64>
    %extracted_slice = tensor.extract_slice %expanded[0, 0, 0] [1, 4, 8] [1, 1, 1] : tensor<1x4x24xf64> to tensor<1x4x8xf64>
    %extracted_slice_10 = tensor.extract_slice %expanded[0, 0, 8] [1, 4, 8] [1, 1, 1] : tensor<1x4x24xf64> to tensor<1x4x8xf64>
    %extracted_slice_11 = tensor.extract_slice %expanded[0, 0, 16] [1, 4, 8] [1, 1, 1] : tensor<1x4x24xf64> to tensor<1x4x8xf64>
    %expanded_12 = tensor.expand_shape %extracted_slice_10 [[0], [1], [2, 3]] output_shape [1, 4, 2, 4] : tensor<1x4x8xf64> into tensor<1x4x2x4xf64>
    %expanded_13 = tensor.expand_shape %extracted_slice [[0], [1], [2, 3]] output_shape [1, 4, 2, 4] : tensor<1x4x8xf64> into tensor<1x4x2x4xf64>
    %26 = tensor.empty() : tensor<1x2x4x4xf64>
    %transposed_14 = linalg.transpose ins(%expanded_13 : tensor<1x4x2x4xf64>) outs(%26 : tensor<1x2x4x4xf64>) permutation = [0, 2, 1, 3] 
    %expanded_15 = tensor.expand_shape %extracted_slice_11 [[0], [1], [2, 3]] output_shape [1, 4, 2, 4] : tensor<1x4x8xf64> into tensor<1x4x2x4xf64>
    %transposed_16 = linalg.transpose ins(%expanded_15 : tensor<1x4x2x4xf64>) outs(%26 : tensor<1x2x4x4xf64>) permutation = [0, 2, 1, 3] 
    %transposed_17 = linalg.transpose ins(%expanded_12 : tensor<1x4x2x4xf64>) outs(%26 : tensor<1x2x4x4xf64>) permutation = [0, 2, 3, 1] 
    %collapsed_18 = tensor.collapse_shape %transposed_14 [[0, 1], [2], [3]] : tensor<1x2x4x4xf64> into tensor<2x4x4xf64>
    %collapsed_19 = tensor.collapse_shape %transposed_17 [[0, 1], [2], [3]] : tensor<1x2x4x4xf64> into tensor<2x4x4xf64>
    %27 = tensor.empty() : tensor<2x4x4xf64>
    %28 = linalg.fill ins(%cst : f64) outs(%27 : tensor<2x4x4xf64>) -> tensor<2x4x4xf64>
    %29 = linalg.batch_matmul ins(%collapsed_18, %collapsed_19 : tensor<2x4x4xf64>, tensor<2x4x4xf64>) outs(%28 : tensor<2x4x4xf64>) -> tensor<2x4x4xf64>
    %expanded_20 = tensor.expand_shape %29 [[0, 1], [2], [3]] output_shape [1, 2, 4, 4] : tensor<2x4x4xf64> into tensor<1x2x4x4xf64>
    %30 = linalg.generic {indexing_maps = [#map9, #map9], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%expanded_20 : tensor<1x2x4x4xf64>) outs(%26 : tensor<1x2x4x4xf64>) {
    ^bb0(%in: f64, %out: f64):
      %117 = arith.mulf %in, %cst_2 : f64
      linalg.yield %117 : f64
    } -> tensor<1x2x4x4xf64>
    %31 = tensor.empty() : tensor<1x1x4x4xi1>
    %32 = linalg.generic {indexing_maps = [#map9, #map9], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%cst_5 : tensor<1x1x4x4xf64>) outs(%31 : tensor<1x1x4x4xi1>) {
    ^bb0(%in: f64, %out: i1):
      %117 = arith.cmpf oeq, %in, %cst : f64
      linalg.yield %117 : i1
    } -> tensor<1x1x4x4xi1>
    %33 = linalg.generic {indexing_maps = [#map10, #map11, #map9, #map9], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%32, %cst_4, %30 : tensor<1x1x4x4xi1>, tensor<f64>, tensor<1x2x4x4xf64>) outs(%26 : tensor<1x2x4x4xf64>) {
    ^bb0(%in: i1, %in_41: f64, %in_42: f64, %out: f64):
      %117 = arith.select %in, %in_41, %in_42 : f64
      linalg.yield %117 : f64
    } -> tensor<1x2x4x4xf64>
    %34 = tensor.empty() : tensor<1x2x4xi64>
    %35 = linalg.fill ins(%c0_i64 : i64) outs(%34 : tensor<1x2x4xi64>) -> tensor<1x2x4xi64>
    %36 = tensor.empty() : tensor<1x2x4xf64>
    %37 = linalg.fill ins(%cst_0 : f64) outs(%36 : tensor<1x2x4xf64>) -> tensor<1x2x4xf64>
    %38:2 = linalg.generic {indexing_maps = [#map9, #map12, #map12], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%33 : tensor<1x2x4x4xf64>) outs(%37, %35 : tensor<1x2x4xf64>, tensor<1x2x4xi64>) {
    ^bb0(%in: f64, %out: f64, %out_41: i64):
      %117 = linalg.index 3 : index
      %118 = arith.index_cast %117 : index to i64
      %119 = arith.maximumf %in, %out : f64
      %120 = arith.cmpf ogt, %in, %out : f64
      %121 = arith.select %120, %118, %out_41 : i64
      linalg.yield %119, %121 : f64, i64
    } -> (tensor<1x2x4xf64>, tensor<1x2x4xi64>)
    %expanded_21 = tensor.expand_shape %38#0 [[0], [1], [2, 3]] output_shape [1, 2, 4, 1] : tensor<1x2x4xf64> into tensor<1x2x4x1xf64>
    %39 = linalg.generic {indexing_maps = [#map9, #map13, #map9], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%33, %expanded_21 : tensor<1x2x4x4xf64>, tensor<1x2x4x1xf64>) outs(%26 : tensor<1x2x4x4xf64>) {
    ^bb0(%in: f64, %in_41: f64, %out: f64):
      %117 = arith.subf %in, %in_41 : f64
      linalg.yield %117 : f64
    } -> tensor<1x2x4x4xf64>
    %40 = linalg.generic {indexing_maps = [#map9, #map9], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%39 : tensor<1x2x4x4xf64>) outs(%26 : tensor<1x2x4x4xf64>) {
    ^bb0(%in: f64, %out: f64):
      %117 = math.exp %in : f64
      linalg.yield %117 : f64
    } -> tensor<1x2x4x4xf64>
    %41 = tensor.empty() : tensor<1x2x4x1xf64>
    %42 = linalg.fill ins(%cst : f64) outs(%41 : tensor<1x2x4x1xf64>) -> tensor<1x2x4x1xf64>
    %43 = linalg.generic {indexing_maps = [#map9, #map13], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%40 : tensor<1x2x4x4xf64>) outs(%42 : tensor<1x2x4x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %117 = arith.addf %in, %out : f64
      linalg.yield %117 : f64
    } -> tensor<1x2x4x1xf64>
    %44 = linalg.generic {indexing_maps = [#map9, #map13, #map9], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%40, %43 : tensor<1x2x4x4xf64>, tensor<1x2x4x1xf64>) outs(%26 : tensor<1x2x4x4xf64>) {
    ^bb0(%in: f64, %in_41: f64, %out: f64):
      %117 = arith.divf %in, %in_41 : f64
      linalg.yield %117 : f64
    } -> tensor<1x2x4x4xf64>
    %collapsed_22 = tensor.collapse_shape %44 [[0, 1], [2], [3]] : tensor<1x2x4x4xf64> into tensor<2x4x4xf64>
    %collapsed_23 = tensor.collapse_shape %transposed_16 [[0, 1], [2], [3]] : tensor<1x2x4x4xf64> into tensor<2x4x4xf64>
    %45 = linalg.batch_matmul ins(%collapsed_22, %collapsed_23 : tensor<2x4x4xf64>, tensor<2x4x4xf64>) outs(%28 : tensor<2x4x4xf64>) -> tensor<2x4x4xf64>
    %expanded_24 = tensor.expand_shape %45 [[0, 1], [2], [3]] output_shape [1, 2, 4, 4] : tensor<2x4x4xf64> into tensor<1x2x4x4xf64>
    %46 = tensor.empty() : tensor<1x4x2x4xf64>
    %transposed_25 = linalg.transpose ins(%expanded_24 : tensor<1x2x4x4xf64>) outs(%46 : tensor<1x4x2x4xf64>) permutation = [0, 2, 1, 3] 
    %collapsed_26 = tensor.collapse_shape %transposed_25 [[0, 1], [2, 3]] : tensor<1x4x2x4xf64> into tensor<4x8xf64>
    %47 = tensor.empty() : tensor<8x8xf64>
    %transposed_27 = linalg.transpose ins(%arg6 : tensor<8x8xf64>) outs(%47 : tensor<8x8xf64>) permutation = [1, 0] 
    %48 = linalg.fill ins(%cst : f64) outs(%4 : tensor<4x8xf64>) -> tensor<4x8xf64>
    %49 = linalg.matmul ins(%collapsed_26, %transposed_27 : tensor<4x8xf64>, tensor<8x8xf64>) outs(%48 : tensor<4x8xf64>) -> tensor<4x8xf64>
    %50 = linalg.generic {indexing_maps = [#map8, #map4], iterator_types = ["parallel", "parallel"]} ins(%arg7 : tensor<8xf64>) outs(%4 : tensor<4x8xf64>) {
    ^bb0(%in: f64, %out: f64):
      linalg.yield %in : f64
    } -> tensor<4x8xf64>
    %51 = linalg.generic {indexing_maps = [#map4, #map4, #map4], iterator_types = ["parallel", "parallel"]} ins(%49, %50 : tensor<4x8xf64>, tensor<4x8xf64>) outs(%4 : tensor<4x8xf64>) {
    ^bb0(%in: f64, %in_41: f64, %out: f64):
      %117 = arith.addf %in, %in_41 : f64
      linalg.yield %117 : f64
    } -> tensor<4x8xf64>
    %expanded_28 = tensor.expand_shape %51 [[0, 1], [2]] output_shape [1, 4, 8] : tensor<4x8xf64> into tensor<1x4x8xf64>
    %52 = linalg.generic {indexing_maps = [#map2, #map2, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%6, %expanded_28 : tensor<1x4x8xf64>, tensor<1x4x8xf64>) outs(%2 : tensor<1x4x8xf64>) {
    ^bb0(%in: f64, %in_41: f64, %out: f64):
      %117 = arith.addf %in, %in_41 : f64
      linalg.yield %117 : f64
    } -> tensor<1x4x8xf64>
    %53 = linalg.generic {indexing_maps = [#map2, #map6], iterator_types = ["parallel", "parallel", "reduction"]} ins(%52 : tensor<1x4x8xf64>) outs(%8 : tensor<1x4x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %117 = arith.addf %in, %out : f64
      linalg.yield %117 : f64
    } -> tensor<1x4x1xf64>
    %54 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%53 : tensor<1x4x1xf64>) outs(%7 : tensor<1x4x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %117 = arith.divf %in, %cst_7 : f64
      linalg.yield %117 : f64
    } -> tensor<1x4x1xf64>
    %55 = linalg.generic {indexing_maps = [#map2, #map6, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%52, %54 : tensor<1x4x8xf64>, tensor<1x4x1xf64>) outs(%2 : tensor<1x4x8xf64>) {
    ^bb0(%in: f64, %in_41: f64, %out: f64):
      %117 = arith.subf %in, %in_41 : f64
      linalg.yield %117 : f64
    } -> tensor<1x4x8xf64>
    %56 = linalg.generic {indexing_maps = [#map2, #map2, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%55, %55 : tensor<1x4x8xf64>, tensor<1x4x8xf64>) outs(%2 : tensor<1x4x8xf64>) {
    ^bb0(%in: f64, %in_41: f64, %out: f64):
      %117 = arith.mulf %in, %in_41 : f64
      linalg.yield %117 : f64
    } -> tensor<1x4x8xf64>
    %57 = linalg.generic {indexing_maps = [#map2, #map6], iterator_types = ["parallel", "parallel", "reduction"]} ins(%56 : tensor<1x4x8xf64>) outs(%8 : tensor<1x4x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %117 = arith.addf %in, %out : f64
      linalg.yield %117 : f64
    } -> tensor<1x4x1xf64>
    %58 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%57 : tensor<1x4x1xf64>) outs(%7 : tensor<1x4x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %117 = arith.divf %in, %cst_7 : f64
      linalg.yield %117 : f64
    } -> tensor<1x4x1xf64>
    %59 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%58 : tensor<1x4x1xf64>) outs(%7 : tensor<1x4x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %117 = arith.addf %in, %cst_6 : f64
      linalg.yield %117 : f64
    } -> tensor<1x4x1xf64>
    %60 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%59 : tensor<1x4x1xf64>) outs(%7 : tensor<1x4x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %117 = math.rsqrt %in : f64
      linalg.yield %117 : f64
    } -> tensor<1x4x1xf64>
    %61 = linalg.generic {indexing_maps = [#map2, #map6, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%55, %60 : tensor<1x4x8xf64>, tensor<1x4x1xf64>) outs(%2 : tensor<1x4x8xf64>) {
    ^bb0(%in: f64, %in_41: f64, %out: f64):
      %117 = arith.mulf %in, %in_41 : f64
      linalg.yield %117 : f64
    } -> tensor<1x4x8xf64>
    %62 = linalg.generic {indexing_maps = [#map2, #map7, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%61, %arg8 : tensor<1x4x8xf64>, tensor<8xf64>) outs(%2 : tensor<1x4x8xf64>) {
    ^bb0(%in: f64, %in_41: f64, %out: f64):
      %117 = arith.mulf %in, %in_41 : f64
      linalg.yield %117 : f64
    } -> tensor<1x4x8xf64>
    %63 = linalg.generic {indexing_maps = [#map2, #map7, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%62, %arg9 : tensor<1x4x8xf64>, tensor<8xf64>) outs(%2 : tensor<1x4x8xf64>) {
    ^bb0(%in: f64, %in_41: f64, %out: f64):
      %117 = arith.addf %in, %in_41 : f64
      linalg.yield %117 : f64
    } -> tensor<1x4x8xf64>
    %collapsed_29 = tensor.collapse_shape %63 [[0, 1], [2]] : tensor<1x4x8xf64> into tensor<4x8xf64>
    %64 = tensor.empty() : tensor<8x32xf64>
    %transposed_30 = linalg.transpose ins(%arg10 : tensor<32x8xf64>) outs(%64 : tensor<8x32xf64>) permutation = [1, 0] 
    %65 = tensor.empty() : tensor<4x32xf64>
    %66 = linalg.fill ins(%cst : f64) outs(%65 : tensor<4x32xf64>) -> tensor<4x32xf64>
    %67 = linalg.matmul ins(%collapsed_29, %transposed_30 : tensor<4x8xf64>, tensor<8x32xf64>) outs(%66 : tensor<4x32xf64>) -> tensor<4x32xf64>
    %68 = linalg.generic {indexing_maps = [#map8, #map4], iterator_types = ["parallel", "parallel"]} ins(%arg11 : tensor<32xf64>) outs(%65 : tensor<4x32xf64>) {
    ^bb0(%in: f64, %out: f64):
      linalg.yield %in : f64
    } -> tensor<4x32xf64>
    %69 = linalg.generic {indexing_maps = [#map4, #map4, #map4], iterator_types = ["parallel", "parallel"]} ins(%67, %68 : tensor<4x32xf64>, tensor<4x32xf64>) outs(%65 : tensor<4x32xf64>) {
    ^bb0(%in: f64, %in_41: f64, %out: f64):
      %117 = arith.addf %in, %in_41 : f64
      linalg.yield %117 : f64
    } -> tensor<4x32xf64>
    %expanded_31 = tensor.expand_shape %69 [[0, 1], [2]] output_shape [1, 4, 32] : tensor<4x32xf64> into tensor<1x4x32xf64>
    %70 = tensor.empty() : tensor<1x4x32xf64>
    %71 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%expanded_31 : tensor<1x4x32xf64>) outs(%70 : tensor<1x4x32xf64>) {
    ^bb0(%in: f64, %out: f64):
      %117 = arith.divf %in, %cst_8 : f64
      %118 = math.erf %117 : f64
      %119 = arith.addf %118, %cst_1 : f64
      %120 = arith.mulf %119, %cst_2 : f64
      %121 = arith.mulf %in, %120 : f64
      linalg.yield %121 : f64
    } -> tensor<1x4x32xf64>
    %collapsed_32 = tensor.collapse_shape %71 [[0, 1], [2]] : tensor<1x4x32xf64> into tensor<4x32xf64>
    %72 = tensor.empty() : tensor<32x8xf64>
    %transposed_33 = linalg.transpose ins(%arg12 : tensor<8x32xf64>) outs(%72 : tensor<32x8xf64>) permutation = [1, 0] 
    %73 = linalg.matmul ins(%collapsed_32, %transposed_33 : tensor<4x32xf64>, tensor<32x8xf64>) outs(%48 : tensor<4x8xf64>) -> tensor<4x8xf64>
    %74 = linalg.generic {indexing_maps = [#map8, #map4], iterator_types = ["parallel", "parallel"]} ins(%arg13 : tensor<8xf64>) outs(%4 : tensor<4x8xf64>) {
    ^bb0(%in: f64, %out: f64):
      linalg.yield %in : f64
    } -> tensor<4x8xf64>
    %75 = linalg.generic {indexing_maps = [#map4, #map4, #map4], iterator_types = ["parallel", "parallel"]} ins(%73, %74 : tensor<4x8xf64>, tensor<4x8xf64>) outs(%4 : tensor<4x8xf64>) {
    ^bb0(%in: f64, %in_41: f64, %out: f64):
      %117 = arith.addf %in, %in_41 : f64
      linalg.yield %117 : f64
    } -> tensor<4x8xf64>
    %expanded_34 = tensor.expand_shape %75 [[0, 1], [2]] output_shape [1, 4, 8] : tensor<4x8xf64> into tensor<1x4x8xf64>
    %76 = linalg.generic {indexing_maps = [#map2, #map2, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%52, %expanded_34 : tensor<1x4x8xf64>, tensor<1x4x8xf64>) outs(%2 : tensor<1x4x8xf64>) {
    ^bb0(%in: f64, %in_41: f64, %out: f64):
      %117 = arith.addf %in, %in_41 : f64
      linalg.yield %117 : f64
    } -> tensor<1x4x8xf64>
    %77 = linalg.generic {indexing_maps = [#map2, #map6], iterator_types = ["parallel", "parallel", "reduction"]} ins(%76 : tensor<1x4x8xf64>) outs(%8 : tensor<1x4x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %117 = arith.addf %in, %out : f64
      linalg.yield %117 : f64
    } -> tensor<1x4x1xf64>
    %78 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%77 : tensor<1x4x1xf64>) outs(%7 : tensor<1x4x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %117 = arith.divf %in, %cst_7 : f64
      linalg.yield %117 : f64
    } -> tensor<1x4x1xf64>
    %79 = linalg.generic {indexing_maps = [#map2, #map6, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%76, %78 : tensor<1x4x8xf64>, tensor<1x4x1xf64>) outs(%2 : tensor<1x4x8xf64>) {
    ^bb0(%in: f64, %in_41: f64, %out: f64):
      %117 = arith.subf %in, %in_41 : f64
      linalg.yield %117 : f64
    } -> tensor<1x4x8xf64>
    %80 = linalg.generic {indexing_maps = [#map2, #map2, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%79, %79 : tensor<1x4x8xf64>, tensor<1x4x8xf64>) outs(%2 : tensor<1x4x8xf64>) {
    ^bb0(%in: f64, %in_41: f64, %out: f64):
      %117 = arith.mulf %in, %in_41 : f64
      linalg.yield %117 : f64
    } -> tensor<1x4x8xf64>
    %81 = linalg.generic {indexing_maps = [#map2, #map6], iterator_types = ["parallel", "parallel", "reduction"]} ins(%80 : tensor<1x4x8xf64>) outs(%8 : tensor<1x4x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %117 = arith.addf %in, %out : f64
      linalg.yield %117 : f64
    } -> tensor<1x4x1xf64>
    %82 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%81 : tensor<1x4x1xf64>) outs(%7 : tensor<1x4x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %117 = arith.divf %in, %cst_7 : f64
      linalg.yield %117 : f64
    } -> tensor<1x4x1xf64>
    %83 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%82 : tensor<1x4x1xf64>) outs(%7 : tensor<1x4x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %117 = arith.addf %in, %cst_6 : f64
      linalg.yield %117 : f64
    } -> tensor<1x4x1xf64>
    %84 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%83 : tensor<1x4x1xf64>) outs(%7 : tensor<1x4x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %117 = math.rsqrt %in : f64
      linalg.yield %117 : f64
    } -> tensor<1x4x1xf64>
    %85 = linalg.generic {indexing_maps = [#map2, #map6, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%79, %84 : tensor<1x4x8xf64>, tensor<1x4x1xf64>) outs(%2 : tensor<1x4x8xf64>) {
    ^bb0(%in: f64, %in_41: f64, %out: f64):
      %117 = arith.mulf %in, %in_41 : f64
      linalg.yield %117 : f64
    } -> tensor<1x4x8xf64>
    %86 = linalg.generic {indexing_maps = [#map2, #map7, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%85, %arg14 : tensor<1x4x8xf64>, tensor<8xf64>) outs(%2 : tensor<1x4x8xf64>) {
    ^bb0(%in: f64, %in_41: f64, %out: f64):
      %117 = arith.mulf %in, %in_41 : f64
      linalg.yield %117 : f64
    } -> tensor<1x4x8xf64>
    %87 = linalg.generic {indexing_maps = [#map2, #map7, #map2], iterator_types = ["parallel", "parallel", "parallel"]} ins(%86, %arg15 : tensor<1x4x8xf64>, tensor<8xf64>) outs(%2 : tensor<1x4x8xf64>) {
    ^bb0(%in: f64, %in_41: f64, %out: f64):
      %117 = arith.addf %in, %in_41 : f64
      linalg.yield %117 : f64
    } -> tensor<1x4x8xf64>
    %88 = tensor.empty() : tensor<8x50257xf64>
    %transposed_35 = linalg.transpose ins(%arg0 : tensor<50257x8xf64>) outs(%88 : tensor<8x50257xf64>) permutation = [1, 0] 
    %collapsed_36 = tensor.collapse_shape %87 [[0, 1], [2]] : tensor<1x4x8xf64> into tensor<4x8xf64>
    %89 = tensor.empty() : tensor<4x50257xf64>
    %90 = linalg.fill ins(%cst : f64) outs(%89 : tensor<4x50257xf64>) -> tensor<4x50257xf64>
    %91 = linalg.matmul ins(%collapsed_36, %transposed_35 : tensor<4x8xf64>, tensor<8x50257xf64>) outs(%90 : tensor<4x50257xf64>) -> tensor<4x50257xf64>
    %collapsed_37 = tensor.collapse_shape %arg17 [[0, 1]] : tensor<1x4xi64> into tensor<4xi64>
    %92 = linalg.fill ins(%c0_i64 : i64) outs(%0 : tensor<4xi64>) -> tensor<4xi64>
    %93 = tensor.empty() : tensor<4xf64>
    %94 = linalg.fill ins(%cst_0 : f64) outs(%93 : tensor<4xf64>) -> tensor<4xf64>
    %95:2 = linalg.generic {indexing_maps = [#map4, #map3, #map3], iterator_types = ["parallel", "reduction"]} ins(%91 : tensor<4x50257xf64>) outs(%94, %92 : tensor<4xf64>, tensor<4xi64>) {
    ^bb0(%in: f64, %out: f64, %out_41: i64):
      %117 = linalg.index 1 : index
      %118 = arith.index_cast %117 : index to i64
      %119 = arith.maximumf %in, %out : f64
      %120 = arith.cmpf ogt, %in, %out : f64
      %121 = arith.select %120, %118, %out_41 : i64
      linalg.yield %119, %121 : f64, i64
    } -> (tensor<4xf64>, tensor<4xi64>)
    %expanded_38 = tensor.expand_shape %95#0 [[0, 1]] output_shape [4, 1] : tensor<4xf64> into tensor<4x1xf64>
    %96 = linalg.generic {indexing_maps = [#map4, #map14, #map4], iterator_types = ["parallel", "parallel"]} ins(%91, %expanded_38 : tensor<4x50257xf64>, tensor<4x1xf64>) outs(%89 : tensor<4x50257xf64>) {
    ^bb0(%in: f64, %in_41: f64, %out: f64):
      %117 = arith.subf %in, %in_41 : f64
      linalg.yield %117 : f64
    } -> tensor<4x50257xf64>
    %97 = linalg.generic {indexing_maps = [#map4, #map4], iterator_types = ["parallel", "parallel"]} ins(%96 : tensor<4x50257xf64>) outs(%89 : tensor<4x50257xf64>) {
    ^bb0(%in: f64, %out: f64):
      %117 = math.exp %in : f64
      linalg.yield %117 : f64
    } -> tensor<4x50257xf64>
    %98 = tensor.empty() : tensor<4x1xf64>
    %99 = linalg.fill ins(%cst : f64) outs(%98 : tensor<4x1xf64>) -> tensor<4x1xf64>
    %100 = linalg.generic {indexing_maps = [#map4, #map14], iterator_types = ["parallel", "reduction"]} ins(%97 : tensor<4x50257xf64>) outs(%99 : tensor<4x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %117 = arith.addf %in, %out : f64
      linalg.yield %117 : f64
    } -> tensor<4x1xf64>
    %101 = linalg.generic {indexing_maps = [#map4, #map4], iterator_types = ["parallel", "parallel"]} ins(%100 : tensor<4x1xf64>) outs(%98 : tensor<4x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %117 = math.log %in : f64
      linalg.yield %117 : f64
    } -> tensor<4x1xf64>
    %102 = linalg.generic {indexing_maps = [#map4, #map14, #map4], iterator_types = ["parallel", "parallel"]} ins(%96, %101 : tensor<4x50257xf64>, tensor<4x1xf64>) outs(%89 : tensor<4x50257xf64>) {
    ^bb0(%in: f64, %in_41: f64, %out: f64):
      %117 = arith.subf %in, %in_41 : f64
      linalg.yield %117 : f64
    } -> tensor<4x50257xf64>
    %103 = tensor.empty() : tensor<4xi1>
    %104 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%collapsed_37 : tensor<4xi64>) outs(%103 : tensor<4xi1>) {
    ^bb0(%in: i64, %out: i1):
      %117 = arith.cmpi ne, %in, %c-100_i64 : i64
      linalg.yield %117 : i1
    } -> tensor<4xi1>
    %105 = linalg.generic {indexing_maps = [#map, #map, #map15, #map], iterator_types = ["parallel"]} ins(%104, %collapsed_37, %cst_9 : tensor<4xi1>, tensor<4xi64>, tensor<i64>) outs(%0 : tensor<4xi64>) {
    ^bb0(%in: i1, %in_41: i64, %in_42: i64, %out: i64):
      %117 = arith.select %in, %in_41, %in_42 : i64
      linalg.yield %117 : i64
    } -> tensor<4xi64>
    %expanded_39 = tensor.expand_shape %105 [[0, 1]] output_shape [4, 1] : tensor<4xi64> into tensor<4x1xi64>
    %106 = linalg.generic {indexing_maps = [#map4, #map4], iterator_types = ["parallel", "parallel"]} ins(%expanded_39 : tensor<4x1xi64>) outs(%99 : tensor<4x1xf64>) {
    ^bb0(%in: i64, %out: f64):
      %117 = linalg.index 0 : index
      %118 = arith.index_cast %in : i64 to index
      %119 = arith.cmpi slt, %118, %c50257 : index
      cf.assert %119, "index must be smaller than dim size"
      %120 = arith.cmpi sge, %in, %c0_i64 : i64
      cf.assert %120, "index must be larger or equal to 0"
      %extracted = tensor.extract %102[%117, %118] : tensor<4x50257xf64>
      linalg.yield %extracted : f64
    } -> tensor<4x1xf64>
    %collapsed_40 = tensor.collapse_shape %106 [[0, 1]] : tensor<4x1xf64> into tensor<4xf64>
    %107 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%collapsed_40 : tensor<4xf64>) outs(%93 : tensor<4xf64>) {
    ^bb0(%in: f64, %out: f64):
      %117 = arith.negf %in : f64
      linalg.yield %117 : f64
    } -> tensor<4xf64>
    %108 = linalg.generic {indexing_maps = [#map, #map, #map15, #map], iterator_types = ["parallel"]} ins(%104, %107, %cst_3 : tensor<4xi1>, tensor<4xf64>, tensor<f64>) outs(%93 : tensor<4xf64>) {
    ^bb0(%in: i1, %in_41: f64, %in_42: f64, %out: f64):
      %117 = arith.select %in, %in_41, %in_42 : f64
      linalg.yield %117 : f64
    } -> tensor<4xf64>
    %109 = tensor.empty() : tensor<i64>
    %110 = linalg.fill ins(%c0_i64 : i64) outs(%109 : tensor<i64>) -> tensor<i64>
    %111 = linalg.generic {indexing_maps = [#map, #map15], iterator_types = ["reduction"]} ins(%104 : tensor<4xi1>) outs(%110 : tensor<i64>) {
    ^bb0(%in: i1, %out: i64):
      %117 = arith.extui %in : i1 to i64
      %118 = arith.addi %117, %out : i64
      linalg.yield %118 : i64
    } -> tensor<i64>
    %112 = tensor.empty() : tensor<f64>
    %113 = linalg.generic {indexing_maps = [#map16, #map16], iterator_types = []} ins(%111 : tensor<i64>) outs(%112 : tensor<f64>) {
    ^bb0(%in: i64, %out: f64):
      %117 = arith.sitofp %in : i64 to f64
      linalg.yield %117 : f64
    } -> tensor<f64>
    %114 = linalg.fill ins(%cst : f64) outs(%112 : tensor<f64>) -> tensor<f64>
    %115 = linalg.generic {indexing_maps = [#map, #map15], iterator_types = ["reduction"]} ins(%108 : tensor<4xf64>) outs(%114 : tensor<f64>) {
    ^bb0(%in: f64, %out: f64):
      %117 = arith.addf %in, %out : f64
      linalg.yield %117 : f64
    } -> tensor<f64>
    %116 = linalg.generic {indexing_maps = [#map16, #map16, #map16], iterator_types = []} ins(%115, %113 : tensor<f64>, tensor<f64>) outs(%112 : tensor<f64>) {
    ^bb0(%in: f64, %in_41: f64, %out: f64):
      %117 = arith.divf %in, %in_41 : f64
      linalg.yield %117 : f64
    } -> tensor<f64>
    return %116 : tensor<f64>
  }
}

{-#
  dialect_resources: {
    builtin: {
      torch_tensor_1_1_4_4_torch.float64: "0x08000000000000000000F03F000000000000000000000000000000000000000000000000000000000000F03F000000000000F03F00000000000000000000000000000000000000000000F03F000000000000F03F000000000000F03F0000000000000000000000000000F03F000000000000F03F000000000000F03F000000000000F03F"
    }
  }
#-}
