// Exported by utils/torch-export/export_models.py.
#map = affine_map<(d0, d1, d2) -> (d0, d1)>
#map1 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#map2 = affine_map<(d0, d1, d2) -> (d0, d1, 0)>
#map3 = affine_map<(d0, d1, d2) -> (d2)>
#map4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#map5 = affine_map<(d0, d1, d2, d3) -> (d0, 0, d2, d3)>
#map6 = affine_map<(d0) -> (d0)>
#map7 = affine_map<(d0, d1) -> (0, d1)>
#map8 = affine_map<(d0, d1) -> (d0, 0)>
#map9 = affine_map<(d0, d1) -> (d0, d1)>
#map10 = affine_map<(d0, d1) -> ()>
#map11 = affine_map<(d0, d1, d2, d3) -> (d2, d3)>
#map12 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
#map13 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>
#map14 = affine_map<(d0, d1) -> (d0)>
#map15 = affine_map<(d0) -> ()>
#map16 = affine_map<() -> ()>
module {
  func.func @loss(%arg0: tensor<16x8xf64> {prec.name = "embed.weight"}, %arg1: tensor<8xf64> {prec.name = "layers.0.attn_norm.weight"}, %arg2: tensor<8x8xf64> {prec.name = "layers.0.wq.weight"}, %arg3: tensor<8x8xf64> {prec.name = "layers.0.wk.weight"}, %arg4: tensor<8x8xf64> {prec.name = "layers.0.wv.weight"}, %arg5: tensor<8x8xf64> {prec.name = "layers.0.wo.weight"}, %arg6: tensor<8xf64> {prec.name = "layers.0.ffn_norm.weight"}, %arg7: tensor<16x8xf64> {prec.name = "layers.0.w1.weight"}, %arg8: tensor<16x8xf64> {prec.name = "layers.0.w3.weight"}, %arg9: tensor<8x16xf64> {prec.name = "layers.0.w2.weight"}, %arg10: tensor<8xf64> {prec.name = "layers.1.attn_norm.weight"}, %arg11: tensor<8x8xf64> {prec.name = "layers.1.wq.weight"}, %arg12: tensor<8x8xf64> {prec.name = "layers.1.wk.weight"}, %arg13: tensor<8x8xf64> {prec.name = "layers.1.wv.weight"}, %arg14: tensor<8x8xf64> {prec.name = "layers.1.wo.weight"}, %arg15: tensor<8xf64> {prec.name = "layers.1.ffn_norm.weight"}, %arg16: tensor<16x8xf64> {prec.name = "layers.1.w1.weight"}, %arg17: tensor<16x8xf64> {prec.name = "layers.1.w3.weight"}, %arg18: tensor<8x16xf64> {prec.name = "layers.1.w2.weight"}, %arg19: tensor<8xf64> {prec.name = "norm.weight"}, %arg20: tensor<16x8xf64> {prec.name = "output.weight"}, %arg21: tensor<1x4xi64> {prec.name = "idx"}, %arg22: tensor<1x4xi64> {prec.name = "targets"}) -> tensor<f64> {
    %c-100_i64 = arith.constant -100 : i64
    %c2_i64 = arith.constant 2 : i64
    %c0_i64 = arith.constant 0 : i64
    %c16 = arith.constant 16 : index
    %cst = arith.constant 0.000000e+00 : f64
    %cst_0 = arith.constant 0xFFF0000000000000 : f64
    %true = arith.constant true
    %cst_1 = arith.constant 1.000000e+00 : f64
    %cst_2 = arith.constant dense<0.000000e+00> : tensor<1x2x4x4xf64>
    %cst_3 = arith.constant dense<0.000000e+00> : tensor<f64>
    %cst_4 = arith.constant dense<0xFFF0000000000000> : tensor<f64>
    %cst_5 = arith.constant dense<true> : tensor<4x4xi1>
    %cst_6 = arith.constant 0.70710678118654757 : f64
    %cst_7 = arith.constant 9.9999999999999995E-7 : f64
    %cst_8 = arith.constant dense_resource<torch_tensor_1_1_4_4_torch.float64_1> : tensor<1x1x4x4xf64>
    %cst_9 = arith.constant dense_resource<torch_tensor_1_1_4_4_torch.float64> : tensor<1x1x4x4xf64>
    %cst_10 = arith.constant 8.000000e+00 : f64
    %cst_11 = arith.constant dense<0> : tensor<i64>
    %0 = tensor.empty() : tensor<1x4x8xf64>
    %1 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg21 : tensor<1x4xi64>) outs(%0 : tensor<1x4x8xf64>) {
    ^bb0(%in: i64, %out: f64):
      %162 = arith.index_cast %in : i64 to index
      %163 = linalg.index 2 : index
      %164 = arith.cmpi slt, %162, %c16 : index
      cf.assert %164, "index must be smaller than dim size"
      %165 = arith.cmpi sge, %in, %c0_i64 : i64
      cf.assert %165, "index must be larger or equal to 0"
      %extracted = tensor.extract %arg0[%162, %163] : tensor<16x8xf64>
      linalg.yield %extracted : f64
    } -> tensor<1x4x8xf64>
    %2 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%1 : tensor<1x4x8xf64>) outs(%0 : tensor<1x4x8xf64>) {
    ^bb0(%in: f64, %out: f64):
      %162 = math.fpowi %in, %c2_i64 : f64, i64
      linalg.yield %162 : f64
    } -> tensor<1x4x8xf64>
    %3 = tensor.empty() : tensor<1x4x1xf64>
    %4 = linalg.fill ins(%cst : f64) outs(%3 : tensor<1x4x1xf64>) -> tensor<1x4x1xf64>
    %5 = linalg.generic {indexing_maps = [#map1, #map2], iterator_types = ["parallel", "parallel", "reduction"]} ins(%2 : tensor<1x4x8xf64>) outs(%4 : tensor<1x4x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %162 = arith.addf %in, %out : f64
      linalg.yield %162 : f64
    } -> tensor<1x4x1xf64>
    %6 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%5 : tensor<1x4x1xf64>) outs(%3 : tensor<1x4x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %162 = arith.divf %in, %cst_10 : f64
      linalg.yield %162 : f64
    } -> tensor<1x4x1xf64>
    %7 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%6 : tensor<1x4x1xf64>) outs(%3 : tensor<1x4x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %162 = arith.addf %in, %cst_7 : f64
      linalg.yield %162 : f64
    } -> tensor<1x4x1xf64>
    %8 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%7 : tensor<1x4x1xf64>) outs(%3 : tensor<1x4x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %162 = math.rsqrt %in : f64
      linalg.yield %162 : f64
    } -> tensor<1x4x1xf64>
    %9 = linalg.generic {indexing_maps = [#map1, #map2, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%1, %8 : tensor<1x4x8xf64>, tensor<1x4x1xf64>) outs(%0 : tensor<1x4x8xf64>) {
    ^bb0(%in: f64, %in_87: f64, %out: f64):
      %162 = arith.mulf %in, %in_87 : f64
      linalg.yield %162 : f64
    } -> tensor<1x4x8xf64>
    %10 = linalg.generic {indexing_maps = [#map1, #map3, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%9, %arg1 : tensor<1x4x8xf64>, tensor<8xf64>) outs(%0 : tensor<1x4x8xf64>) {
    ^bb0(%in: f64, %in_87: f64, %out: f64):
      %162 = arith.mulf %in, %in_87 : f64
      linalg.yield %162 : f64
    } -> tensor<1x4x8xf64>
    %11 = tensor.empty() : tensor<8x8xf64>
    %transposed = linalg.transpose ins(%arg2 : tensor<8x8xf64>) outs(%11 : tensor<8x8xf64>) permutation = [1, 0] 
    %collapsed = tensor.collapse_shape %10 [[0, 1], [2]] : tensor<1x4x8xf64> into tensor<4x8xf64>
    %12 = tensor.empty() : tensor<4x8xf64>
    %13 = linalg.fill ins(%cst : f64) outs(%12 : tensor<4x8xf64>) -> tensor<4x8xf64>
    %14 = linalg.matmul ins(%collapsed, %transposed : tensor<4x8xf64>, tensor<8x8xf64>) outs(%13 : tensor<4x8xf64>) -> tensor<4x8xf64>
    %expanded = tensor.expand_shape %14 [[0, 1], [2, 3]] output_shape [1, 4, 2, 4] : tensor<4x8xf64> into tensor<1x4x2x4xf64>
    %15 = tensor.empty() : tensor<1x2x4x4xf64>
    %transposed_12 = linalg.transpose ins(%expanded : tensor<1x4x2x4xf64>) outs(%15 : tensor<1x2x4x4xf64>) permutation = [0, 2, 1, 3] 
    %transposed_13 = linalg.transpose ins(%arg3 : tensor<8x8xf64>) outs(%11 : tensor<8x8xf64>) permutation = [1, 0] 
    %16 = linalg.matmul ins(%collapsed, %transposed_13 : tensor<4x8xf64>, tensor<8x8xf64>) outs(%13 : tensor<4x8xf64>) -> tensor<4x8xf64>
    %expanded_14 = tensor.expand_shape %16 [[0, 1], [2, 3]] output_shape [1, 4, 2, 4] : tensor<4x8xf64> into tensor<1x4x2x4xf64>
    %transposed_15 = linalg.transpose ins(%expanded_14 : tensor<1x4x2x4xf64>) outs(%15 : tensor<1x2x4x4xf64>) permutation = [0, 2, 1, 3] 
    %transposed_16 = linalg.transpose ins(%arg4 : tensor<8x8xf64>) outs(%11 : tensor<8x8xf64>) permutation = [1, 0] 
    %17 = linalg.matmul ins(%collapsed, %transposed_16 : tensor<4x8xf64>, tensor<8x8xf64>) outs(%13 : tensor<4x8xf64>) -> tensor<4x8xf64>
    %expanded_17 = tensor.expand_shape %17 [[0, 1], [2, 3]] output_shape [1, 4, 2, 4] : tensor<4x8xf64> into tensor<1x4x2x4xf64>
    %transposed_18 = linalg.transpose ins(%expanded_17 : tensor<1x4x2x4xf64>) outs(%15 : tensor<1x2x4x4xf64>) permutation = [0, 2, 1, 3] 
    %18 = linalg.generic {indexing_maps = [#map4, #map5, #map4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%transposed_12, %cst_9 : tensor<1x2x4x4xf64>, tensor<1x1x4x4xf64>) outs(%15 : tensor<1x2x4x4xf64>) {
    ^bb0(%in: f64, %in_87: f64, %out: f64):
      %162 = arith.mulf %in, %in_87 : f64
      linalg.yield %162 : f64
    } -> tensor<1x2x4x4xf64>
    %extracted_slice = tensor.extract_slice %transposed_12[0, 0, 0, 0] [1, 2, 4, 2] [1, 1, 1, 1] : tensor<1x2x4x4xf64> to tensor<1x2x4x2xf64>
    %extracted_slice_19 = tensor.extract_slice %transposed_12[0, 0, 0, 2] [1, 2, 4, 2] [1, 1, 1, 1] : tensor<1x2x4x4xf64> to tensor<1x2x4x2xf64>
    %19 = tensor.empty() : tensor<1x2x4x2xf64>
    %20 = linalg.generic {indexing_maps = [#map4, #map4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%extracted_slice_19 : tensor<1x2x4x2xf64>) outs(%19 : tensor<1x2x4x2xf64>) {
    ^bb0(%in: f64, %out: f64):
      %162 = arith.negf %in : f64
      linalg.yield %162 : f64
    } -> tensor<1x2x4x2xf64>
    %concat = tensor.concat dim(3) %20, %extracted_slice : (tensor<1x2x4x2xf64>, tensor<1x2x4x2xf64>) -> tensor<1x2x4x4xf64>
    %21 = linalg.generic {indexing_maps = [#map4, #map5, #map4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%concat, %cst_8 : tensor<1x2x4x4xf64>, tensor<1x1x4x4xf64>) outs(%15 : tensor<1x2x4x4xf64>) {
    ^bb0(%in: f64, %in_87: f64, %out: f64):
      %162 = arith.mulf %in, %in_87 : f64
      linalg.yield %162 : f64
    } -> tensor<1x2x4x4xf64>
    %22 = linalg.generic {indexing_maps = [#map4, #map4, #map4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%18, %21 : tensor<1x2x4x4xf64>, tensor<1x2x4x4xf64>) outs(%15 : tensor<1x2x4x4xf64>) {
    ^bb0(%in: f64, %in_87: f64, %out: f64):
      %162 = arith.addf %in, %in_87 : f64
      linalg.yield %162 : f64
    } -> tensor<1x2x4x4xf64>
    %23 = linalg.generic {indexing_maps = [#map4, #map5, #map4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%transposed_15, %cst_9 : tensor<1x2x4x4xf64>, tensor<1x1x4x4xf64>) outs(%15 : tensor<1x2x4x4xf64>) {
    ^bb0(%in: f64, %in_87: f64, %out: f64):
      %162 = arith.mulf %in, %in_87 : f64
      linalg.yield %162 : f64
    } -> tensor<1x2x4x4xf64>
    %extracted_slice_20 = tensor.extract_slice %transposed_15[0, 0, 0, 0] [1, 2, 4, 2] [1, 1, 1, 1] : tensor<1x2x4x4xf64> to tensor<1x2x4x2xf64>
    %extracted_slice_21 = tensor.extract_slice %transposed_15[0, 0, 0, 2] [1, 2, 4, 2] [1, 1, 1, 1] : tensor<1x2x4x4xf64> to tensor<1x2x4x2xf64>
    %24 = linalg.generic {indexing_maps = [#map4, #map4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%extracted_slice_21 : tensor<1x2x4x2xf64>) outs(%19 : tensor<1x2x4x2xf64>) {
    ^bb0(%in: f64, %out: f64):
      %162 = arith.negf %in : f64
      linalg.yield %162 : f64
    } -> tensor<1x2x4x2xf64>
    %concat_22 = tensor.concat dim(3) %24, %extracted_slice_20 : (tensor<1x2x4x2xf64>, tensor<1x2x4x2xf64>) -> tensor<1x2x4x4xf64>
    %25 = linalg.generic {indexing_maps = [#map4, #map5, #map4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%concat_22, %cst_8 : tensor<1x2x4x4xf64>, tensor<1x1x4x4xf64>) outs(%15 : tensor<1x2x4x4xf64>) {
    ^bb0(%in: f64, %in_87: f64, %out: f64):
      %162 = arith.mulf %in, %in_87 : f64
      linalg.yield %162 : f64
    } -> tensor<1x2x4x4xf64>
    %26 = linalg.generic {indexing_maps = [#map4, #map4, #map4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%23, %25 : tensor<1x2x4x4xf64>, tensor<1x2x4x4xf64>) outs(%15 : tensor<1x2x4x4xf64>) {
    ^bb0(%in: f64, %in_87: f64, %out: f64):
      %162 = arith.addf %in, %in_87 : f64
      linalg.yield %162 : f64
    } -> tensor<1x2x4x4xf64>
    %27 = linalg.generic {indexing_maps = [#map4, #map4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%22 : tensor<1x2x4x4xf64>) outs(%15 : tensor<1x2x4x4xf64>) {
    ^bb0(%in: f64, %out: f64):
      %162 = arith.mulf %in, %cst_6 : f64
      linalg.yield %162 : f64
    } -> tensor<1x2x4x4xf64>
    %28 = tensor.empty() : tensor<4xi64>
    %29 = linalg.generic {indexing_maps = [#map6], iterator_types = ["parallel"]} outs(%28 : tensor<4xi64>) {
    ^bb0(%out: i64):
      %162 = linalg.index 0 : index
      %163 = arith.index_cast %162 : index to i64
      linalg.yield %163 : i64
    } -> tensor<4xi64>
    %expanded_23 = tensor.expand_shape %29 [[0, 1]] output_shape [1, 4] : tensor<4xi64> into tensor<1x4xi64>
    %expanded_24 = tensor.expand_shape %29 [[0, 1]] output_shape [4, 1] : tensor<4xi64> into tensor<4x1xi64>
    %30 = tensor.empty() : tensor<4x4xi64>
    %31 = linalg.generic {indexing_maps = [#map7, #map8, #map9], iterator_types = ["parallel", "parallel"]} ins(%expanded_23, %expanded_24 : tensor<1x4xi64>, tensor<4x1xi64>) outs(%30 : tensor<4x4xi64>) {
    ^bb0(%in: i64, %in_87: i64, %out: i64):
      %162 = arith.subi %in, %in_87 : i64
      linalg.yield %162 : i64
    } -> tensor<4x4xi64>
    %32 = tensor.empty() : tensor<4x4xi1>
    %33 = linalg.generic {indexing_maps = [#map9, #map9], iterator_types = ["parallel", "parallel"]} ins(%31 : tensor<4x4xi64>) outs(%32 : tensor<4x4xi1>) {
    ^bb0(%in: i64, %out: i1):
      %162 = arith.cmpi sle, %in, %c0_i64 : i64
      linalg.yield %162 : i1
    } -> tensor<4x4xi1>
    %34 = linalg.generic {indexing_maps = [#map9, #map9, #map9], iterator_types = ["parallel", "parallel"]} ins(%33, %cst_5 : tensor<4x4xi1>, tensor<4x4xi1>) outs(%32 : tensor<4x4xi1>) {
    ^bb0(%in: i1, %in_87: i1, %out: i1):
      %162 = arith.andi %in, %in_87 : i1
      linalg.yield %162 : i1
    } -> tensor<4x4xi1>
    %35 = tensor.empty() : tensor<4x4xf64>
    %36 = linalg.generic {indexing_maps = [#map9, #map10, #map10, #map9], iterator_types = ["parallel", "parallel"]} ins(%34, %cst_3, %cst_4 : tensor<4x4xi1>, tensor<f64>, tensor<f64>) outs(%35 : tensor<4x4xf64>) {
    ^bb0(%in: i1, %in_87: f64, %in_88: f64, %out: f64):
      %162 = arith.select %in, %in_87, %in_88 : f64
      linalg.yield %162 : f64
    } -> tensor<4x4xf64>
    %transposed_25 = linalg.transpose ins(%26 : tensor<1x2x4x4xf64>) outs(%15 : tensor<1x2x4x4xf64>) permutation = [0, 1, 3, 2] 
    %37 = linalg.generic {indexing_maps = [#map4, #map4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%transposed_25 : tensor<1x2x4x4xf64>) outs(%15 : tensor<1x2x4x4xf64>) {
    ^bb0(%in: f64, %out: f64):
      %162 = arith.mulf %in, %cst_6 : f64
      linalg.yield %162 : f64
    } -> tensor<1x2x4x4xf64>
    %collapsed_26 = tensor.collapse_shape %27 [[0, 1], [2], [3]] : tensor<1x2x4x4xf64> into tensor<2x4x4xf64>
    %collapsed_27 = tensor.collapse_shape %37 [[0, 1], [2], [3]] : tensor<1x2x4x4xf64> into tensor<2x4x4xf64>
    %38 = tensor.empty() : tensor<2x4x4xf64>
    %39 = linalg.fill ins(%cst : f64) outs(%38 : tensor<2x4x4xf64>) -> tensor<2x4x4xf64>
    %40 = linalg.batch_matmul ins(%collapsed_26, %collapsed_27 : tensor<2x4x4xf64>, tensor<2x4x4xf64>) outs(%39 : tensor<2x4x4xf64>) -> tensor<2x4x4xf64>
    %expanded_28 = tensor.expand_shape %40 [[0, 1], [2], [3]] output_shape [1, 2, 4, 4] : tensor<2x4x4xf64> into tensor<1x2x4x4xf64>
    %41 = linalg.generic {indexing_maps = [#map4, #map11, #map4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%expanded_28, %36 : tensor<1x2x4x4xf64>, tensor<4x4xf64>) outs(%15 : tensor<1x2x4x4xf64>) {
    ^bb0(%in: f64, %in_87: f64, %out: f64):
      %162 = arith.addf %in, %in_87 : f64
      linalg.yield %162 : f64
    } -> tensor<1x2x4x4xf64>
    %42 = tensor.empty() : tensor<1x2x4xi64>
    %43 = linalg.fill ins(%c0_i64 : i64) outs(%42 : tensor<1x2x4xi64>) -> tensor<1x2x4xi64>
    %44 = tensor.empty() : tensor<1x2x4xf64>
    %45 = linalg.fill ins(%cst_0 : f64) outs(%44 : tensor<1x2x4xf64>) -> tensor<1x2x4xf64>
    %46:2 = linalg.generic {indexing_maps = [#map4, #map12, #map12], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%41 : tensor<1x2x4x4xf64>) outs(%45, %43 : tensor<1x2x4xf64>, tensor<1x2x4xi64>) {
    ^bb0(%in: f64, %out: f64, %out_87: i64):
      %162 = linalg.index 3 : index
      %163 = arith.index_cast %162 : index to i64
      %164 = arith.maximumf %in, %out : f64
      %165 = arith.cmpf ogt, %in, %out : f64
      %166 = arith.select %165, %163, %out_87 : i64
      linalg.yield %164, %166 : f64, i64
    } -> (tensor<1x2x4xf64>, tensor<1x2x4xi64>)
    %expanded_29 = tensor.expand_shape %46#0 [[0], [1], [2, 3]] output_shape [1, 2, 4, 1] : tensor<1x2x4xf64> into tensor<1x2x4x1xf64>
    %47 = linalg.generic {indexing_maps = [#map4, #map13, #map4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%41, %expanded_29 : tensor<1x2x4x4xf64>, tensor<1x2x4x1xf64>) outs(%15 : tensor<1x2x4x4xf64>) {
    ^bb0(%in: f64, %in_87: f64, %out: f64):
      %162 = arith.subf %in, %in_87 : f64
      linalg.yield %162 : f64
    } -> tensor<1x2x4x4xf64>
    %48 = linalg.generic {indexing_maps = [#map4, #map4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%47 : tensor<1x2x4x4xf64>) outs(%15 : tensor<1x2x4x4xf64>) {
    ^bb0(%in: f64, %out: f64):
      %162 = math.exp %in : f64
      linalg.yield %162 : f64
    } -> tensor<1x2x4x4xf64>
    %49 = tensor.empty() : tensor<1x2x4x1xf64>
    %50 = linalg.fill ins(%cst : f64) outs(%49 : tensor<1x2x4x1xf64>) -> tensor<1x2x4x1xf64>
    %51 = linalg.generic {indexing_maps = [#map4, #map13], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%48 : tensor<1x2x4x4xf64>) outs(%50 : tensor<1x2x4x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %162 = arith.addf %in, %out : f64
      linalg.yield %162 : f64
    } -> tensor<1x2x4x1xf64>
    %52 = linalg.generic {indexing_maps = [#map4, #map13, #map4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%48, %51 : tensor<1x2x4x4xf64>, tensor<1x2x4x1xf64>) outs(%15 : tensor<1x2x4x4xf64>) {
    ^bb0(%in: f64, %in_87: f64, %out: f64):
      %162 = arith.divf %in, %in_87 : f64
      linalg.yield %162 : f64
    } -> tensor<1x2x4x4xf64>
    %53 = tensor.empty() : tensor<1x2x4x4xi1>
    %54 = linalg.generic {indexing_maps = [#map4, #map4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%41 : tensor<1x2x4x4xf64>) outs(%53 : tensor<1x2x4x4xi1>) {
    ^bb0(%in: f64, %out: i1):
      %162 = arith.cmpf oeq, %in, %cst_0 : f64
      linalg.yield %162 : i1
    } -> tensor<1x2x4x4xi1>
    %55 = tensor.empty() : tensor<1x2x4x1xi1>
    %56 = linalg.fill ins(%true : i1) outs(%55 : tensor<1x2x4x1xi1>) -> tensor<1x2x4x1xi1>
    %57 = linalg.generic {indexing_maps = [#map4, #map13], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%54 : tensor<1x2x4x4xi1>) outs(%56 : tensor<1x2x4x1xi1>) {
    ^bb0(%in: i1, %out: i1):
      %162 = arith.andi %in, %out : i1
      linalg.yield %162 : i1
    } -> tensor<1x2x4x1xi1>
    %58 = linalg.generic {indexing_maps = [#map13, #map4, #map4, #map4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%57, %cst_2, %52 : tensor<1x2x4x1xi1>, tensor<1x2x4x4xf64>, tensor<1x2x4x4xf64>) outs(%15 : tensor<1x2x4x4xf64>) {
    ^bb0(%in: i1, %in_87: f64, %in_88: f64, %out: f64):
      %162 = arith.select %in, %in_87, %in_88 : f64
      linalg.yield %162 : f64
    } -> tensor<1x2x4x4xf64>
    %collapsed_30 = tensor.collapse_shape %58 [[0, 1], [2], [3]] : tensor<1x2x4x4xf64> into tensor<2x4x4xf64>
    %collapsed_31 = tensor.collapse_shape %transposed_18 [[0, 1], [2], [3]] : tensor<1x2x4x4xf64> into tensor<2x4x4xf64>
    %59 = linalg.batch_matmul ins(%collapsed_30, %collapsed_31 : tensor<2x4x4xf64>, tensor<2x4x4xf64>) outs(%39 : tensor<2x4x4xf64>) -> tensor<2x4x4xf64>
    %expanded_32 = tensor.expand_shape %59 [[0, 1], [2], [3]] output_shape [1, 2, 4, 4] : tensor<2x4x4xf64> into tensor<1x2x4x4xf64>
    %60 = tensor.empty() : tensor<1x4x2x4xf64>
    %transposed_33 = linalg.transpose ins(%expanded_32 : tensor<1x2x4x4xf64>) outs(%60 : tensor<1x4x2x4xf64>) permutation = [0, 2, 1, 3] 
    %transposed_34 = linalg.transpose ins(%arg5 : tensor<8x8xf64>) outs(%11 : tensor<8x8xf64>) permutation = [1, 0] 
    %collapsed_35 = tensor.collapse_shape %transposed_33 [[0, 1], [2, 3]] : tensor<1x4x2x4xf64> into tensor<4x8xf64>
    %61 = linalg.matmul ins(%collapsed_35, %transposed_34 : tensor<4x8xf64>, tensor<8x8xf64>) outs(%13 : tensor<4x8xf64>) -> tensor<4x8xf64>
    %expanded_36 = tensor.expand_shape %61 [[0, 1], [2]] output_shape [1, 4, 8] : tensor<4x8xf64> into tensor<1x4x8xf64>
    %62 = linalg.generic {indexing_maps = [#map1, #map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%1, %expanded_36 : tensor<1x4x8xf64>, tensor<1x4x8xf64>) outs(%0 : tensor<1x4x8xf64>) {
    ^bb0(%in: f64, %in_87: f64, %out: f64):
      %162 = arith.addf %in, %in_87 : f64
      linalg.yield %162 : f64
    } -> tensor<1x4x8xf64>
    %63 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%62 : tensor<1x4x8xf64>) outs(%0 : tensor<1x4x8xf64>) {
    ^bb0(%in: f64, %out: f64):
      %162 = math.fpowi %in, %c2_i64 : f64, i64
      linalg.yield %162 : f64
    } -> tensor<1x4x8xf64>
    %64 = linalg.generic {indexing_maps = [#map1, #map2], iterator_types = ["parallel", "parallel", "reduction"]} ins(%63 : tensor<1x4x8xf64>) outs(%4 : tensor<1x4x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %162 = arith.addf %in, %out : f64
      linalg.yield %162 : f64
    } -> tensor<1x4x1xf64>
    %65 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%64 : tensor<1x4x1xf64>) outs(%3 : tensor<1x4x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %162 = arith.divf %in, %cst_10 : f64
      linalg.yield %162 : f64
    } -> tensor<1x4x1xf64>
    %66 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%65 : tensor<1x4x1xf64>) outs(%3 : tensor<1x4x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %162 = arith.addf %in, %cst_7 : f64
      linalg.yield %162 : f64
    } -> tensor<1x4x1xf64>
    %67 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%66 : tensor<1x4x1xf64>) outs(%3 : tensor<1x4x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %162 = math.rsqrt %in : f64
      linalg.yield %162 : f64
    } -> tensor<1x4x1xf64>
    %68 = linalg.generic {indexing_maps = [#map1, #map2, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%62, %67 : tensor<1x4x8xf64>, tensor<1x4x1xf64>) outs(%0 : tensor<1x4x8xf64>) {
    ^bb0(%in: f64, %in_87: f64, %out: f64):
      %162 = arith.mulf %in, %in_87 : f64
      linalg.yield %162 : f64
    } -> tensor<1x4x8xf64>
    %69 = linalg.generic {indexing_maps = [#map1, #map3, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%68, %arg6 : tensor<1x4x8xf64>, tensor<8xf64>) outs(%0 : tensor<1x4x8xf64>) {
    ^bb0(%in: f64, %in_87: f64, %out: f64):
      %162 = arith.mulf %in, %in_87 : f64
      linalg.yield %162 : f64
    } -> tensor<1x4x8xf64>
    %70 = tensor.empty() : tensor<8x16xf64>
    %transposed_37 = linalg.transpose ins(%arg7 : tensor<16x8xf64>) outs(%70 : tensor<8x16xf64>) permutation = [1, 0] 
    %collapsed_38 = tensor.collapse_shape %69 [[0, 1], [2]] : tensor<1x4x8xf64> into tensor<4x8xf64>
    %71 = tensor.empty() : tensor<4x16xf64>
    %72 = linalg.fill ins(%cst : f64) outs(%71 : tensor<4x16xf64>) -> tensor<4x16xf64>
    %73 = linalg.matmul ins(%collapsed_38, %transposed_37 : tensor<4x8xf64>, tensor<8x16xf64>) outs(%72 : tensor<4x16xf64>) -> tensor<4x16xf64>
    %expanded_39 = tensor.expand_shape %73 [[0, 1], [2]] output_shape [1, 4, 16] : tensor<4x16xf64> into tensor<1x4x16xf64>
    %74 = tensor.empty() : tensor<1x4x16xf64>
    %75 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%expanded_39 : tensor<1x4x16xf64>) outs(%74 : tensor<1x4x16xf64>) {
    ^bb0(%in: f64, %out: f64):
      %162 = arith.negf %in : f64
      %163 = math.exp %162 : f64
      %164 = arith.addf %163, %cst_1 : f64
      %165 = arith.divf %cst_1, %164 : f64
      linalg.yield %165 : f64
    } -> tensor<1x4x16xf64>
    %76 = linalg.generic {indexing_maps = [#map1, #map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%expanded_39, %75 : tensor<1x4x16xf64>, tensor<1x4x16xf64>) outs(%74 : tensor<1x4x16xf64>) {
    ^bb0(%in: f64, %in_87: f64, %out: f64):
      %162 = arith.mulf %in, %in_87 : f64
      linalg.yield %162 : f64
    } -> tensor<1x4x16xf64>
    %transposed_40 = linalg.transpose ins(%arg8 : tensor<16x8xf64>) outs(%70 : tensor<8x16xf64>) permutation = [1, 0] 
    %77 = linalg.matmul ins(%collapsed_38, %transposed_40 : tensor<4x8xf64>, tensor<8x16xf64>) outs(%72 : tensor<4x16xf64>) -> tensor<4x16xf64>
    %expanded_41 = tensor.expand_shape %77 [[0, 1], [2]] output_shape [1, 4, 16] : tensor<4x16xf64> into tensor<1x4x16xf64>
    %78 = linalg.generic {indexing_maps = [#map1, #map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%76, %expanded_41 : tensor<1x4x16xf64>, tensor<1x4x16xf64>) outs(%74 : tensor<1x4x16xf64>) {
    ^bb0(%in: f64, %in_87: f64, %out: f64):
      %162 = arith.mulf %in, %in_87 : f64
      linalg.yield %162 : f64
    } -> tensor<1x4x16xf64>
    %79 = tensor.empty() : tensor<16x8xf64>
    %transposed_42 = linalg.transpose ins(%arg9 : tensor<8x16xf64>) outs(%79 : tensor<16x8xf64>) permutation = [1, 0] 
    %collapsed_43 = tensor.collapse_shape %78 [[0, 1], [2]] : tensor<1x4x16xf64> into tensor<4x16xf64>
    %80 = linalg.matmul ins(%collapsed_43, %transposed_42 : tensor<4x16xf64>, tensor<16x8xf64>) outs(%13 : tensor<4x8xf64>) -> tensor<4x8xf64>
    %expanded_44 = tensor.expand_shape %80 [[0, 1], [2]] output_shape [1, 4, 8] : tensor<4x8xf64> into tensor<1x4x8xf64>
    %81 = linalg.generic {indexing_maps = [#map1, #map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%62, %expanded_44 : tensor<1x4x8xf64>, tensor<1x4x8xf64>) outs(%0 : tensor<1x4x8xf64>) {
    ^bb0(%in: f64, %in_87: f64, %out: f64):
      %162 = arith.addf %in, %in_87 : f64
      linalg.yield %162 : f64
    } -> tensor<1x4x8xf64>
    %82 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%81 : tensor<1x4x8xf64>) outs(%0 : tensor<1x4x8xf64>) {
    ^bb0(%in: f64, %out: f64):
      %162 = math.fpowi %in, %c2_i64 : f64, i64
      linalg.yield %162 : f64
    } -> tensor<1x4x8xf64>
    %83 = linalg.generic {indexing_maps = [#map1, #map2], iterator_types = ["parallel", "parallel", "reduction"]} ins(%82 : tensor<1x4x8xf64>) outs(%4 : tensor<1x4x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %162 = arith.addf %in, %out : f64
      linalg.yield %162 : f64
    } -> tensor<1x4x1xf64>
    %84 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%83 : tensor<1x4x1xf64>) outs(%3 : tensor<1x4x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %162 = arith.divf %in, %cst_10 : f64
      linalg.yield %162 : f64
    } -> tensor<1x4x1xf64>
    %85 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%84 : tensor<1x4x1xf64>) outs(%3 : tensor<1x4x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %162 = arith.addf %in, %cst_7 : f64
      linalg.yield %162 : f64
    } -> tensor<1x4x1xf64>
    %86 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%85 : tensor<1x4x1xf64>) outs(%3 : tensor<1x4x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %162 = math.rsqrt %in : f64
      linalg.yield %162 : f64
    } -> tensor<1x4x1xf64>
    %87 = linalg.generic {indexing_maps = [#map1, #map2, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%81, %86 : tensor<1x4x8xf64>, tensor<1x4x1xf64>) outs(%0 : tensor<1x4x8xf64>) {
    ^bb0(%in: f64, %in_87: f64, %out: f64):
      %162 = arith.mulf %in, %in_87 : f64
      linalg.yield %162 : f64
    } -> tensor<1x4x8xf64>
    %88 = linalg.generic {indexing_maps = [#map1, #map3, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%87, %arg10 : tensor<1x4x8xf64>, tensor<8xf64>) outs(%0 : tensor<1x4x8xf64>) {
    ^bb0(%in: f64, %in_87: f64, %out: f64):
      %162 = arith.mulf %in, %in_87 : f64
      linalg.yield %162 : f64
    } -> tensor<1x4x8xf64>
    %transposed_45 = linalg.transpose ins(%arg11 : tensor<8x8xf64>) outs(%11 : tensor<8x8xf64>) permutation = [1, 0] 
    %collapsed_46 = tensor.collapse_shape %88 [[0, 1], [2]] : tensor<1x4x8xf64> into tensor<4x8xf64>
    %89 = linalg.matmul ins(%collapsed_46, %transposed_45 : tensor<4x8xf64>, tensor<8x8xf64>) outs(%13 : tensor<4x8xf64>) -> tensor<4x8xf64>
    %expanded_47 = tensor.expand_shape %89 [[0, 1], [2, 3]] output_shape [1, 4, 2, 4] : tensor<4x8xf64> into tensor<1x4x2x4xf64>
    %transposed_48 = linalg.transpose ins(%expanded_47 : tensor<1x4x2x4xf64>) outs(%15 : tensor<1x2x4x4xf64>) permutation = [0, 2, 1, 3] 
    %transposed_49 = linalg.transpose ins(%arg12 : tensor<8x8xf64>) outs(%11 : tensor<8x8xf64>) permutation = [1, 0] 
    %90 = linalg.matmul ins(%collapsed_46, %transposed_49 : tensor<4x8xf64>, tensor<8x8xf64>) outs(%13 : tensor<4x8xf64>) -> tensor<4x8xf64>
    %expanded_50 = tensor.expand_shape %90 [[0, 1], [2, 3]] output_shape [1, 4, 2, 4] : tensor<4x8xf64> into tensor<1x4x2x4xf64>
    %transposed_51 = linalg.transpose ins(%expanded_50 : tensor<1x4x2x4xf64>) outs(%15 : tensor<1x2x4x4xf64>) permutation = [0, 2, 1, 3] 
    %transposed_52 = linalg.transpose ins(%arg13 : tensor<8x8xf64>) outs(%11 : tensor<8x8xf64>) permutation = [1, 0] 
    %91 = linalg.matmul ins(%collapsed_46, %transposed_52 : tensor<4x8xf64>, tensor<8x8xf64>) outs(%13 : tensor<4x8xf64>) -> tensor<4x8xf64>
    %expanded_53 = tensor.expand_shape %91 [[0, 1], [2, 3]] output_shape [1, 4, 2, 4] : tensor<4x8xf64> into tensor<1x4x2x4xf64>
    %transposed_54 = linalg.transpose ins(%expanded_53 : tensor<1x4x2x4xf64>) outs(%15 : tensor<1x2x4x4xf64>) permutation = [0, 2, 1, 3] 
    %92 = linalg.generic {indexing_maps = [#map4, #map5, #map4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%transposed_48, %cst_9 : tensor<1x2x4x4xf64>, tensor<1x1x4x4xf64>) outs(%15 : tensor<1x2x4x4xf64>) {
    ^bb0(%in: f64, %in_87: f64, %out: f64):
      %162 = arith.mulf %in, %in_87 : f64
      linalg.yield %162 : f64
    } -> tensor<1x2x4x4xf64>
    %extracted_slice_55 = tensor.extract_slice %transposed_48[0, 0, 0, 0] [1, 2, 4, 2] [1, 1, 1, 1] : tensor<1x2x4x4xf64> to tensor<1x2x4x2xf64>
    %extracted_slice_56 = tensor.extract_slice %transposed_48[0, 0, 0, 2] [1, 2, 4, 2] [1, 1, 1, 1] : tensor<1x2x4x4xf64> to tensor<1x2x4x2xf64>
    %93 = linalg.generic {indexing_maps = [#map4, #map4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%extracted_slice_56 : tensor<1x2x4x2xf64>) outs(%19 : tensor<1x2x4x2xf64>) {
    ^bb0(%in: f64, %out: f64):
      %162 = arith.negf %in : f64
      linalg.yield %162 : f64
    } -> tensor<1x2x4x2xf64>
    %concat_57 = tensor.concat dim(3) %93, %extracted_slice_55 : (tensor<1x2x4x2xf64>, tensor<1x2x4x2xf64>) -> tensor<1x2x4x4xf64>
    %94 = linalg.generic {indexing_maps = [#map4, #map5, #map4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%concat_57, %cst_8 : tensor<1x2x4x4xf64>, tensor<1x1x4x4xf64>) outs(%15 : tensor<1x2x4x4xf64>) {
    ^bb0(%in: f64, %in_87: f64, %out: f64):
      %162 = arith.mulf %in, %in_87 : f64
      linalg.yield %162 : f64
    } -> tensor<1x2x4x4xf64>
    %95 = linalg.generic {indexing_maps = [#map4, #map4, #map4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%92, %94 : tensor<1x2x4x4xf64>, tensor<1x2x4x4xf64>) outs(%15 : tensor<1x2x4x4xf64>) {
    ^bb0(%in: f64, %in_87: f64, %out: f64):
      %162 = arith.addf %in, %in_87 : f64
      linalg.yield %162 : f64
    } -> tensor<1x2x4x4xf64>
    %96 = linalg.generic {indexing_maps = [#map4, #map5, #map4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%transposed_51, %cst_9 : tensor<1x2x4x4xf64>, tensor<1x1x4x4xf64>) outs(%15 : tensor<1x2x4x4xf64>) {
    ^bb0(%in: f64, %in_87: f64, %out: f64):
      %162 = arith.mulf %in, %in_87 : f64
      linalg.yield %162 : f64
    } -> tensor<1x2x4x4xf64>
    %extracted_slice_58 = tensor.extract_slice %transposed_51[0, 0, 0, 0] [1, 2, 4, 2] [1, 1, 1, 1] : tensor<1x2x4x4xf64> to tensor<1x2x4x2xf64>
    %extracted_slice_59 = tensor.extract_slice %transposed_51[0, 0, 0, 2] [1, 2, 4, 2] [1, 1, 1, 1] : tensor<1x2x4x4xf64> to tensor<1x2x4x2xf64>
    %97 = linalg.generic {indexing_maps = [#map4, #map4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%extracted_slice_59 : tensor<1x2x4x2xf64>) outs(%19 : tensor<1x2x4x2xf64>) {
    ^bb0(%in: f64, %out: f64):
      %162 = arith.negf %in : f64
      linalg.yield %162 : f64
    } -> tensor<1x2x4x2xf64>
    %concat_60 = tensor.concat dim(3) %97, %extracted_slice_58 : (tensor<1x2x4x2xf64>, tensor<1x2x4x2xf64>) -> tensor<1x2x4x4xf64>
    %98 = linalg.generic {indexing_maps = [#map4, #map5, #map4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%concat_60, %cst_8 : tensor<1x2x4x4xf64>, tensor<1x1x4x4xf64>) outs(%15 : tensor<1x2x4x4xf64>) {
    ^bb0(%in: f64, %in_87: f64, %out: f64):
      %162 = arith.mulf %in, %in_87 : f64
      linalg.yield %162 : f64
    } -> tensor<1x2x4x4xf64>
    %99 = linalg.generic {indexing_maps = [#map4, #map4, #map4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%96, %98 : tensor<1x2x4x4xf64>, tensor<1x2x4x4xf64>) outs(%15 : tensor<1x2x4x4xf64>) {
    ^bb0(%in: f64, %in_87: f64, %out: f64):
      %162 = arith.addf %in, %in_87 : f64
      linalg.yield %162 : f64
    } -> tensor<1x2x4x4xf64>
    %100 = linalg.generic {indexing_maps = [#map4, #map4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%95 : tensor<1x2x4x4xf64>) outs(%15 : tensor<1x2x4x4xf64>) {
    ^bb0(%in: f64, %out: f64):
      %162 = arith.mulf %in, %cst_6 : f64
      linalg.yield %162 : f64
    } -> tensor<1x2x4x4xf64>
    %transposed_61 = linalg.transpose ins(%99 : tensor<1x2x4x4xf64>) outs(%15 : tensor<1x2x4x4xf64>) permutation = [0, 1, 3, 2] 
    %101 = linalg.generic {indexing_maps = [#map4, #map4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%transposed_61 : tensor<1x2x4x4xf64>) outs(%15 : tensor<1x2x4x4xf64>) {
    ^bb0(%in: f64, %out: f64):
      %162 = arith.mulf %in, %cst_6 : f64
      linalg.yield %162 : f64
    } -> tensor<1x2x4x4xf64>
    %collapsed_62 = tensor.collapse_shape %100 [[0, 1], [2], [3]] : tensor<1x2x4x4xf64> into tensor<2x4x4xf64>
    %collapsed_63 = tensor.collapse_shape %101 [[0, 1], [2], [3]] : tensor<1x2x4x4xf64> into tensor<2x4x4xf64>
    %102 = linalg.batch_matmul ins(%collapsed_62, %collapsed_63 : tensor<2x4x4xf64>, tensor<2x4x4xf64>) outs(%39 : tensor<2x4x4xf64>) -> tensor<2x4x4xf64>
    %expanded_64 = tensor.expand_shape %102 [[0, 1], [2], [3]] output_shape [1, 2, 4, 4] : tensor<2x4x4xf64> into tensor<1x2x4x4xf64>
    %103 = linalg.generic {indexing_maps = [#map4, #map11, #map4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%expanded_64, %36 : tensor<1x2x4x4xf64>, tensor<4x4xf64>) outs(%15 : tensor<1x2x4x4xf64>) {
    ^bb0(%in: f64, %in_87: f64, %out: f64):
      %162 = arith.addf %in, %in_87 : f64
      linalg.yield %162 : f64
    } -> tensor<1x2x4x4xf64>
    %104:2 = linalg.generic {indexing_maps = [#map4, #map12, #map12], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%103 : tensor<1x2x4x4xf64>) outs(%45, %43 : tensor<1x2x4xf64>, tensor<1x2x4xi64>) {
    ^bb0(%in: f64, %out: f64, %out_87: i64):
      %162 = linalg.index 3 : index
      %163 = arith.index_cast %162 : index to i64
      %164 = arith.maximumf %in, %out : f64
      %165 = arith.cmpf ogt, %in, %out : f64
      %166 = arith.select %165, %163, %out_87 : i64
      linalg.yield %164, %166 : f64, i64
    } -> (tensor<1x2x4xf64>, tensor<1x2x4xi64>)
    %expanded_65 = tensor.expand_shape %104#0 [[0], [1], [2, 3]] output_shape [1, 2, 4, 1] : tensor<1x2x4xf64> into tensor<1x2x4x1xf64>
    %105 = linalg.generic {indexing_maps = [#map4, #map13, #map4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%103, %expanded_65 : tensor<1x2x4x4xf64>, tensor<1x2x4x1xf64>) outs(%15 : tensor<1x2x4x4xf64>) {
    ^bb0(%in: f64, %in_87: f64, %out: f64):
      %162 = arith.subf %in, %in_87 : f64
      linalg.yield %162 : f64
    } -> tensor<1x2x4x4xf64>
    %106 = linalg.generic {indexing_maps = [#map4, #map4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%105 : tensor<1x2x4x4xf64>) outs(%15 : tensor<1x2x4x4xf64>) {
    ^bb0(%in: f64, %out: f64):
      %162 = math.exp %in : f64
      linalg.yield %162 : f64
    } -> tensor<1x2x4x4xf64>
    %107 = linalg.generic {indexing_maps = [#map4, #map13], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%106 : tensor<1x2x4x4xf64>) outs(%50 : tensor<1x2x4x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %162 = arith.addf %in, %out : f64
      linalg.yield %162 : f64
    } -> tensor<1x2x4x1xf64>
    %108 = linalg.generic {indexing_maps = [#map4, #map13, #map4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%106, %107 : tensor<1x2x4x4xf64>, tensor<1x2x4x1xf64>) outs(%15 : tensor<1x2x4x4xf64>) {
    ^bb0(%in: f64, %in_87: f64, %out: f64):
      %162 = arith.divf %in, %in_87 : f64
      linalg.yield %162 : f64
    } -> tensor<1x2x4x4xf64>
    %109 = linalg.generic {indexing_maps = [#map4, #map4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%103 : tensor<1x2x4x4xf64>) outs(%53 : tensor<1x2x4x4xi1>) {
    ^bb0(%in: f64, %out: i1):
      %162 = arith.cmpf oeq, %in, %cst_0 : f64
      linalg.yield %162 : i1
    } -> tensor<1x2x4x4xi1>
    %110 = linalg.generic {indexing_maps = [#map4, #map13], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%109 : tensor<1x2x4x4xi1>) outs(%56 : tensor<1x2x4x1xi1>) {
    ^bb0(%in: i1, %out: i1):
      %162 = arith.andi %in, %out : i1
      linalg.yield %162 : i1
    } -> tensor<1x2x4x1xi1>
    %111 = linalg.generic {indexing_maps = [#map13, #map4, #map4, #map4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%110, %cst_2, %108 : tensor<1x2x4x1xi1>, tensor<1x2x4x4xf64>, tensor<1x2x4x4xf64>) outs(%15 : tensor<1x2x4x4xf64>) {
    ^bb0(%in: i1, %in_87: f64, %in_88: f64, %out: f64):
      %162 = arith.select %in, %in_87, %in_88 : f64
      linalg.yield %162 : f64
    } -> tensor<1x2x4x4xf64>
    %collapsed_66 = tensor.collapse_shape %111 [[0, 1], [2], [3]] : tensor<1x2x4x4xf64> into tensor<2x4x4xf64>
    %collapsed_67 = tensor.collapse_shape %transposed_54 [[0, 1], [2], [3]] : tensor<1x2x4x4xf64> into tensor<2x4x4xf64>
    %112 = linalg.batch_matmul ins(%collapsed_66, %collapsed_67 : tensor<2x4x4xf64>, tensor<2x4x4xf64>) outs(%39 : tensor<2x4x4xf64>) -> tensor<2x4x4xf64>
    %expanded_68 = tensor.expand_shape %112 [[0, 1], [2], [3]] output_shape [1, 2, 4, 4] : tensor<2x4x4xf64> into tensor<1x2x4x4xf64>
    %transposed_69 = linalg.transpose ins(%expanded_68 : tensor<1x2x4x4xf64>) outs(%60 : tensor<1x4x2x4xf64>) permutation = [0, 2, 1, 3] 
    %transposed_70 = linalg.transpose ins(%arg14 : tensor<8x8xf64>) outs(%11 : tensor<8x8xf64>) permutation = [1, 0] 
    %collapsed_71 = tensor.collapse_shape %transposed_69 [[0, 1], [2, 3]] : tensor<1x4x2x4xf64> into tensor<4x8xf64>
    %113 = linalg.matmul ins(%collapsed_71, %transposed_70 : tensor<4x8xf64>, tensor<8x8xf64>) outs(%13 : tensor<4x8xf64>) -> tensor<4x8xf64>
    %expanded_72 = tensor.expand_shape %113 [[0, 1], [2]] output_shape [1, 4, 8] : tensor<4x8xf64> into tensor<1x4x8xf64>
    %114 = linalg.generic {indexing_maps = [#map1, #map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%81, %expanded_72 : tensor<1x4x8xf64>, tensor<1x4x8xf64>) outs(%0 : tensor<1x4x8xf64>) {
    ^bb0(%in: f64, %in_87: f64, %out: f64):
      %162 = arith.addf %in, %in_87 : f64
      linalg.yield %162 : f64
    } -> tensor<1x4x8xf64>
    %115 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%114 : tensor<1x4x8xf64>) outs(%0 : tensor<1x4x8xf64>) {
    ^bb0(%in: f64, %out: f64):
      %162 = math.fpowi %in, %c2_i64 : f64, i64
      linalg.yield %162 : f64
    } -> tensor<1x4x8xf64>
    %116 = linalg.generic {indexing_maps = [#map1, #map2], iterator_types = ["parallel", "parallel", "reduction"]} ins(%115 : tensor<1x4x8xf64>) outs(%4 : tensor<1x4x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %162 = arith.addf %in, %out : f64
      linalg.yield %162 : f64
    } -> tensor<1x4x1xf64>
    %117 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%116 : tensor<1x4x1xf64>) outs(%3 : tensor<1x4x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %162 = arith.divf %in, %cst_10 : f64
      linalg.yield %162 : f64
    } -> tensor<1x4x1xf64>
    %118 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%117 : tensor<1x4x1xf64>) outs(%3 : tensor<1x4x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %162 = arith.addf %in, %cst_7 : f64
      linalg.yield %162 : f64
    } -> tensor<1x4x1xf64>
    %119 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%118 : tensor<1x4x1xf64>) outs(%3 : tensor<1x4x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %162 = math.rsqrt %in : f64
      linalg.yield %162 : f64
    } -> tensor<1x4x1xf64>
    %120 = linalg.generic {indexing_maps = [#map1, #map2, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%114, %119 : tensor<1x4x8xf64>, tensor<1x4x1xf64>) outs(%0 : tensor<1x4x8xf64>) {
    ^bb0(%in: f64, %in_87: f64, %out: f64):
      %162 = arith.mulf %in, %in_87 : f64
      linalg.yield %162 : f64
    } -> tensor<1x4x8xf64>
    %121 = linalg.generic {indexing_maps = [#map1, #map3, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%120, %arg15 : tensor<1x4x8xf64>, tensor<8xf64>) outs(%0 : tensor<1x4x8xf64>) {
    ^bb0(%in: f64, %in_87: f64, %out: f64):
      %162 = arith.mulf %in, %in_87 : f64
      linalg.yield %162 : f64
    } -> tensor<1x4x8xf64>
    %transposed_73 = linalg.transpose ins(%arg16 : tensor<16x8xf64>) outs(%70 : tensor<8x16xf64>) permutation = [1, 0] 
    %collapsed_74 = tensor.collapse_shape %121 [[0, 1], [2]] : tensor<1x4x8xf64> into tensor<4x8xf64>
    %122 = linalg.matmul ins(%collapsed_74, %transposed_73 : tensor<4x8xf64>, tensor<8x16xf64>) outs(%72 : tensor<4x16xf64>) -> tensor<4x16xf64>
    %expanded_75 = tensor.expand_shape %122 [[0, 1], [2]] output_shape [1, 4, 16] : tensor<4x16xf64> into tensor<1x4x16xf64>
    %123 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%expanded_75 : tensor<1x4x16xf64>) outs(%74 : tensor<1x4x16xf64>) {
    ^bb0(%in: f64, %out: f64):
      %162 = arith.negf %in : f64
      %163 = math.exp %162 : f64
      %164 = arith.addf %163, %cst_1 : f64
      %165 = arith.divf %cst_1, %164 : f64
      linalg.yield %165 : f64
    } -> tensor<1x4x16xf64>
    %124 = linalg.generic {indexing_maps = [#map1, #map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%expanded_75, %123 : tensor<1x4x16xf64>, tensor<1x4x16xf64>) outs(%74 : tensor<1x4x16xf64>) {
    ^bb0(%in: f64, %in_87: f64, %out: f64):
      %162 = arith.mulf %in, %in_87 : f64
      linalg.yield %162 : f64
    } -> tensor<1x4x16xf64>
    %transposed_76 = linalg.transpose ins(%arg17 : tensor<16x8xf64>) outs(%70 : tensor<8x16xf64>) permutation = [1, 0] 
    %125 = linalg.matmul ins(%collapsed_74, %transposed_76 : tensor<4x8xf64>, tensor<8x16xf64>) outs(%72 : tensor<4x16xf64>) -> tensor<4x16xf64>
    %expanded_77 = tensor.expand_shape %125 [[0, 1], [2]] output_shape [1, 4, 16] : tensor<4x16xf64> into tensor<1x4x16xf64>
    %126 = linalg.generic {indexing_maps = [#map1, #map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%124, %expanded_77 : tensor<1x4x16xf64>, tensor<1x4x16xf64>) outs(%74 : tensor<1x4x16xf64>) {
    ^bb0(%in: f64, %in_87: f64, %out: f64):
      %162 = arith.mulf %in, %in_87 : f64
      linalg.yield %162 : f64
    } -> tensor<1x4x16xf64>
    %transposed_78 = linalg.transpose ins(%arg18 : tensor<8x16xf64>) outs(%79 : tensor<16x8xf64>) permutation = [1, 0] 
    %collapsed_79 = tensor.collapse_shape %126 [[0, 1], [2]] : tensor<1x4x16xf64> into tensor<4x16xf64>
    %127 = linalg.matmul ins(%collapsed_79, %transposed_78 : tensor<4x16xf64>, tensor<16x8xf64>) outs(%13 : tensor<4x8xf64>) -> tensor<4x8xf64>
    %expanded_80 = tensor.expand_shape %127 [[0, 1], [2]] output_shape [1, 4, 8] : tensor<4x8xf64> into tensor<1x4x8xf64>
    %128 = linalg.generic {indexing_maps = [#map1, #map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%114, %expanded_80 : tensor<1x4x8xf64>, tensor<1x4x8xf64>) outs(%0 : tensor<1x4x8xf64>) {
    ^bb0(%in: f64, %in_87: f64, %out: f64):
      %162 = arith.addf %in, %in_87 : f64
      linalg.yield %162 : f64
    } -> tensor<1x4x8xf64>
    %129 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%128 : tensor<1x4x8xf64>) outs(%0 : tensor<1x4x8xf64>) {
    ^bb0(%in: f64, %out: f64):
      %162 = math.fpowi %in, %c2_i64 : f64, i64
      linalg.yield %162 : f64
    } -> tensor<1x4x8xf64>
    %130 = linalg.generic {indexing_maps = [#map1, #map2], iterator_types = ["parallel", "parallel", "reduction"]} ins(%129 : tensor<1x4x8xf64>) outs(%4 : tensor<1x4x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %162 = arith.addf %in, %out : f64
      linalg.yield %162 : f64
    } -> tensor<1x4x1xf64>
    %131 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%130 : tensor<1x4x1xf64>) outs(%3 : tensor<1x4x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %162 = arith.divf %in, %cst_10 : f64
      linalg.yield %162 : f64
    } -> tensor<1x4x1xf64>
    %132 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%131 : tensor<1x4x1xf64>) outs(%3 : tensor<1x4x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %162 = arith.addf %in, %cst_7 : f64
      linalg.yield %162 : f64
    } -> tensor<1x4x1xf64>
    %133 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%132 : tensor<1x4x1xf64>) outs(%3 : tensor<1x4x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %162 = math.rsqrt %in : f64
      linalg.yield %162 : f64
    } -> tensor<1x4x1xf64>
    %134 = linalg.generic {indexing_maps = [#map1, #map2, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%128, %133 : tensor<1x4x8xf64>, tensor<1x4x1xf64>) outs(%0 : tensor<1x4x8xf64>) {
    ^bb0(%in: f64, %in_87: f64, %out: f64):
      %162 = arith.mulf %in, %in_87 : f64
      linalg.yield %162 : f64
    } -> tensor<1x4x8xf64>
    %135 = linalg.generic {indexing_maps = [#map1, #map3, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%134, %arg19 : tensor<1x4x8xf64>, tensor<8xf64>) outs(%0 : tensor<1x4x8xf64>) {
    ^bb0(%in: f64, %in_87: f64, %out: f64):
      %162 = arith.mulf %in, %in_87 : f64
      linalg.yield %162 : f64
    } -> tensor<1x4x8xf64>
    %transposed_81 = linalg.transpose ins(%arg20 : tensor<16x8xf64>) outs(%70 : tensor<8x16xf64>) permutation = [1, 0] 
    %collapsed_82 = tensor.collapse_shape %135 [[0, 1], [2]] : tensor<1x4x8xf64> into tensor<4x8xf64>
    %136 = linalg.matmul ins(%collapsed_82, %transposed_81 : tensor<4x8xf64>, tensor<8x16xf64>) outs(%72 : tensor<4x16xf64>) -> tensor<4x16xf64>
    %collapsed_83 = tensor.collapse_shape %arg22 [[0, 1]] : tensor<1x4xi64> into tensor<4xi64>
    %137 = linalg.fill ins(%c0_i64 : i64) outs(%28 : tensor<4xi64>) -> tensor<4xi64>
    %138 = tensor.empty() : tensor<4xf64>
    %139 = linalg.fill ins(%cst_0 : f64) outs(%138 : tensor<4xf64>) -> tensor<4xf64>
    %140:2 = linalg.generic {indexing_maps = [#map9, #map14, #map14], iterator_types = ["parallel", "reduction"]} ins(%136 : tensor<4x16xf64>) outs(%139, %137 : tensor<4xf64>, tensor<4xi64>) {
    ^bb0(%in: f64, %out: f64, %out_87: i64):
      %162 = linalg.index 1 : index
      %163 = arith.index_cast %162 : index to i64
      %164 = arith.maximumf %in, %out : f64
      %165 = arith.cmpf ogt, %in, %out : f64
      %166 = arith.select %165, %163, %out_87 : i64
      linalg.yield %164, %166 : f64, i64
    } -> (tensor<4xf64>, tensor<4xi64>)
    %expanded_84 = tensor.expand_shape %140#0 [[0, 1]] output_shape [4, 1] : tensor<4xf64> into tensor<4x1xf64>
    %141 = linalg.generic {indexing_maps = [#map9, #map8, #map9], iterator_types = ["parallel", "parallel"]} ins(%136, %expanded_84 : tensor<4x16xf64>, tensor<4x1xf64>) outs(%71 : tensor<4x16xf64>) {
    ^bb0(%in: f64, %in_87: f64, %out: f64):
      %162 = arith.subf %in, %in_87 : f64
      linalg.yield %162 : f64
    } -> tensor<4x16xf64>
    %142 = linalg.generic {indexing_maps = [#map9, #map9], iterator_types = ["parallel", "parallel"]} ins(%141 : tensor<4x16xf64>) outs(%71 : tensor<4x16xf64>) {
    ^bb0(%in: f64, %out: f64):
      %162 = math.exp %in : f64
      linalg.yield %162 : f64
    } -> tensor<4x16xf64>
    %143 = tensor.empty() : tensor<4x1xf64>
    %144 = linalg.fill ins(%cst : f64) outs(%143 : tensor<4x1xf64>) -> tensor<4x1xf64>
    %145 = linalg.generic {indexing_maps = [#map9, #map8], iterator_types = ["parallel", "reduction"]} ins(%142 : tensor<4x16xf64>) outs(%144 : tensor<4x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %162 = arith.addf %in, %out : f64
      linalg.yield %162 : f64
    } -> tensor<4x1xf64>
    %146 = linalg.generic {indexing_maps = [#map9, #map9], iterator_types = ["parallel", "parallel"]} ins(%145 : tensor<4x1xf64>) outs(%143 : tensor<4x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %162 = math.log %in : f64
      linalg.yield %162 : f64
    } -> tensor<4x1xf64>
    %147 = linalg.generic {indexing_maps = [#map9, #map8, #map9], iterator_types = ["parallel", "parallel"]} ins(%141, %146 : tensor<4x16xf64>, tensor<4x1xf64>) outs(%71 : tensor<4x16xf64>) {
    ^bb0(%in: f64, %in_87: f64, %out: f64):
      %162 = arith.subf %in, %in_87 : f64
      linalg.yield %162 : f64
    } -> tensor<4x16xf64>
    %148 = tensor.empty() : tensor<4xi1>
    %149 = linalg.generic {indexing_maps = [#map6, #map6], iterator_types = ["parallel"]} ins(%collapsed_83 : tensor<4xi64>) outs(%148 : tensor<4xi1>) {
    ^bb0(%in: i64, %out: i1):
      %162 = arith.cmpi ne, %in, %c-100_i64 : i64
      linalg.yield %162 : i1
    } -> tensor<4xi1>
    %150 = linalg.generic {indexing_maps = [#map6, #map6, #map15, #map6], iterator_types = ["parallel"]} ins(%149, %collapsed_83, %cst_11 : tensor<4xi1>, tensor<4xi64>, tensor<i64>) outs(%28 : tensor<4xi64>) {
    ^bb0(%in: i1, %in_87: i64, %in_88: i64, %out: i64):
      %162 = arith.select %in, %in_87, %in_88 : i64
      linalg.yield %162 : i64
    } -> tensor<4xi64>
    %expanded_85 = tensor.expand_shape %150 [[0, 1]] output_shape [4, 1] : tensor<4xi64> into tensor<4x1xi64>
    %151 = linalg.generic {indexing_maps = [#map9, #map9], iterator_types = ["parallel", "parallel"]} ins(%expanded_85 : tensor<4x1xi64>) outs(%144 : tensor<4x1xf64>) {
    ^bb0(%in: i64, %out: f64):
      %162 = linalg.index 0 : index
      %163 = arith.index_cast %in : i64 to index
      %164 = arith.cmpi slt, %163, %c16 : index
      cf.assert %164, "index must be smaller than dim size"
      %165 = arith.cmpi sge, %in, %c0_i64 : i64
      cf.assert %165, "index must be larger or equal to 0"
      %extracted = tensor.extract %147[%162, %163] : tensor<4x16xf64>
      linalg.yield %extracted : f64
    } -> tensor<4x1xf64>
    %collapsed_86 = tensor.collapse_shape %151 [[0, 1]] : tensor<4x1xf64> into tensor<4xf64>
    %152 = linalg.generic {indexing_maps = [#map6, #map6], iterator_types = ["parallel"]} ins(%collapsed_86 : tensor<4xf64>) outs(%138 : tensor<4xf64>) {
    ^bb0(%in: f64, %out: f64):
      %162 = arith.negf %in : f64
      linalg.yield %162 : f64
    } -> tensor<4xf64>
    %153 = linalg.generic {indexing_maps = [#map6, #map6, #map15, #map6], iterator_types = ["parallel"]} ins(%149, %152, %cst_3 : tensor<4xi1>, tensor<4xf64>, tensor<f64>) outs(%138 : tensor<4xf64>) {
    ^bb0(%in: i1, %in_87: f64, %in_88: f64, %out: f64):
      %162 = arith.select %in, %in_87, %in_88 : f64
      linalg.yield %162 : f64
    } -> tensor<4xf64>
    %154 = tensor.empty() : tensor<i64>
    %155 = linalg.fill ins(%c0_i64 : i64) outs(%154 : tensor<i64>) -> tensor<i64>
    %156 = linalg.generic {indexing_maps = [#map6, #map15], iterator_types = ["reduction"]} ins(%149 : tensor<4xi1>) outs(%155 : tensor<i64>) {
    ^bb0(%in: i1, %out: i64):
      %162 = arith.extui %in : i1 to i64
      %163 = arith.addi %162, %out : i64
      linalg.yield %163 : i64
    } -> tensor<i64>
    %157 = tensor.empty() : tensor<f64>
    %158 = linalg.generic {indexing_maps = [#map16, #map16], iterator_types = []} ins(%156 : tensor<i64>) outs(%157 : tensor<f64>) {
    ^bb0(%in: i64, %out: f64):
      %162 = arith.sitofp %in : i64 to f64
      linalg.yield %162 : f64
    } -> tensor<f64>
    %159 = linalg.fill ins(%cst : f64) outs(%157 : tensor<f64>) -> tensor<f64>
    %160 = linalg.generic {indexing_maps = [#map6, #map15], iterator_types = ["reduction"]} ins(%153 : tensor<4xf64>) outs(%159 : tensor<f64>) {
    ^bb0(%in: f64, %out: f64):
      %162 = arith.addf %in, %out : f64
      linalg.yield %162 : f64
    } -> tensor<f64>
    %161 = linalg.generic {indexing_maps = [#map16, #map16, #map16], iterator_types = []} ins(%160, %158 : tensor<f64>, tensor<f64>) outs(%157 : tensor<f64>) {
    ^bb0(%in: f64, %in_87: f64, %out: f64):
      %162 = arith.divf %in, %in_87 : f64
      linalg.yield %162 : f64
    } -> tensor<f64>
    return %161 : tensor<f64>
  }
}

{-#
  dialect_resources: {
    builtin: {
      torch_tensor_1_1_4_4_torch.float64_1: "0x080000000000000000000000000000000000000000000000000000000000000000000000EE0C098F54EDEA3F07E815E9CA7A843FEE0C098F54EDEA3F07E815E9CA7A843F46B4D1EAF618ED3F6758A5CD877A943F46B4D1EAF618ED3F6758A5CD877A943F5BD5B66D3810C23FC66796F123B79E3F5BD5B66D3810C23FC66796F123B79E3F",
      torch_tensor_1_1_4_4_torch.float64: "0x08000000000000000000F03F000000000000F03F000000000000F03F000000000000F03F8C06B50F284AE13FAA97AD2497FFEF3F8C06B50F284AE13FAA97AD2497FFEF3F0572535726A2DABF968D65955CFEEF3F0572535726A2DABF968D65955CFEEF3FD2E585BE04AEEFBFF65C355A50FCEF3FD2E585BE04AEEFBFF65C355A50FCEF3F"
    }
  }
#-}
