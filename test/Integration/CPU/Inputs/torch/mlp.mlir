// Exported by utils/torch-export/export_models.py.
#map = affine_map<(d0, d1) -> (d1)>
#map1 = affine_map<(d0, d1) -> (d0, d1)>
#map2 = affine_map<(d0, d1) -> (d0, 0)>
#map3 = affine_map<(d0, d1) -> ()>
#map4 = affine_map<() -> ()>
module {
  func.func @loss(%arg0: tensor<16x8xf64> {prec.name = "fc1.weight"}, %arg1: tensor<16xf64> {prec.name = "fc1.bias"}, %arg2: tensor<16xf64> {prec.name = "norm.weight"}, %arg3: tensor<16xf64> {prec.name = "norm.bias"}, %arg4: tensor<8x16xf64> {prec.name = "fc2.weight"}, %arg5: tensor<8xf64> {prec.name = "fc2.bias"}, %arg6: tensor<4x8xf64> {prec.name = "x", prec.no_grad}, %arg7: tensor<4x8xf64> {prec.name = "target", prec.no_grad}) -> tensor<f64> {
    %c2_i64 = arith.constant 2 : i64
    %cst = arith.constant 0.000000e+00 : f64
    %c3_i64 = arith.constant 3 : i64
    %cst_0 = arith.constant 4.471500e-02 : f64
    %cst_1 = arith.constant 0.7977240352174656 : f64
    %cst_2 = arith.constant 1.000000e+00 : f64
    %cst_3 = arith.constant 5.000000e-01 : f64
    %cst_4 = arith.constant 1.000000e-05 : f64
    %cst_5 = arith.constant 1.600000e+01 : f64
    %cst_6 = arith.constant 3.200000e+01 : f64
    %0 = tensor.empty() : tensor<8x16xf64>
    %transposed = linalg.transpose ins(%arg0 : tensor<16x8xf64>) outs(%0 : tensor<8x16xf64>) permutation = [1, 0] 
    %1 = tensor.empty() : tensor<4x16xf64>
    %2 = linalg.fill ins(%cst : f64) outs(%1 : tensor<4x16xf64>) -> tensor<4x16xf64>
    %3 = linalg.matmul ins(%arg6, %transposed : tensor<4x8xf64>, tensor<8x16xf64>) outs(%2 : tensor<4x16xf64>) -> tensor<4x16xf64>
    %4 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel"]} ins(%arg1 : tensor<16xf64>) outs(%1 : tensor<4x16xf64>) {
    ^bb0(%in: f64, %out: f64):
      linalg.yield %in : f64
    } -> tensor<4x16xf64>
    %5 = linalg.generic {indexing_maps = [#map1, #map1, #map1], iterator_types = ["parallel", "parallel"]} ins(%3, %4 : tensor<4x16xf64>, tensor<4x16xf64>) outs(%1 : tensor<4x16xf64>) {
    ^bb0(%in: f64, %in_8: f64, %out: f64):
      %32 = arith.addf %in, %in_8 : f64
      linalg.yield %32 : f64
    } -> tensor<4x16xf64>
    %6 = tensor.empty() : tensor<4x1xf64>
    %7 = linalg.fill ins(%cst : f64) outs(%6 : tensor<4x1xf64>) -> tensor<4x1xf64>
    %8 = linalg.generic {indexing_maps = [#map1, #map2], iterator_types = ["parallel", "reduction"]} ins(%5 : tensor<4x16xf64>) outs(%7 : tensor<4x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %32 = arith.addf %in, %out : f64
      linalg.yield %32 : f64
    } -> tensor<4x1xf64>
    %9 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel"]} ins(%8 : tensor<4x1xf64>) outs(%6 : tensor<4x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %32 = arith.divf %in, %cst_5 : f64
      linalg.yield %32 : f64
    } -> tensor<4x1xf64>
    %10 = linalg.generic {indexing_maps = [#map1, #map2, #map1], iterator_types = ["parallel", "parallel"]} ins(%5, %9 : tensor<4x16xf64>, tensor<4x1xf64>) outs(%1 : tensor<4x16xf64>) {
    ^bb0(%in: f64, %in_8: f64, %out: f64):
      %32 = arith.subf %in, %in_8 : f64
      linalg.yield %32 : f64
    } -> tensor<4x16xf64>
    %11 = linalg.generic {indexing_maps = [#map1, #map1, #map1], iterator_types = ["parallel", "parallel"]} ins(%10, %10 : tensor<4x16xf64>, tensor<4x16xf64>) outs(%1 : tensor<4x16xf64>) {
    ^bb0(%in: f64, %in_8: f64, %out: f64):
      %32 = arith.mulf %in, %in_8 : f64
      linalg.yield %32 : f64
    } -> tensor<4x16xf64>
    %12 = linalg.generic {indexing_maps = [#map1, #map2], iterator_types = ["parallel", "reduction"]} ins(%11 : tensor<4x16xf64>) outs(%7 : tensor<4x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %32 = arith.addf %in, %out : f64
      linalg.yield %32 : f64
    } -> tensor<4x1xf64>
    %13 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel"]} ins(%12 : tensor<4x1xf64>) outs(%6 : tensor<4x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %32 = arith.divf %in, %cst_5 : f64
      linalg.yield %32 : f64
    } -> tensor<4x1xf64>
    %14 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel"]} ins(%13 : tensor<4x1xf64>) outs(%6 : tensor<4x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %32 = arith.addf %in, %cst_4 : f64
      linalg.yield %32 : f64
    } -> tensor<4x1xf64>
    %15 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel"]} ins(%14 : tensor<4x1xf64>) outs(%6 : tensor<4x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %32 = math.rsqrt %in : f64
      linalg.yield %32 : f64
    } -> tensor<4x1xf64>
    %16 = linalg.generic {indexing_maps = [#map1, #map2, #map1], iterator_types = ["parallel", "parallel"]} ins(%10, %15 : tensor<4x16xf64>, tensor<4x1xf64>) outs(%1 : tensor<4x16xf64>) {
    ^bb0(%in: f64, %in_8: f64, %out: f64):
      %32 = arith.mulf %in, %in_8 : f64
      linalg.yield %32 : f64
    } -> tensor<4x16xf64>
    %17 = linalg.generic {indexing_maps = [#map1, #map, #map1], iterator_types = ["parallel", "parallel"]} ins(%16, %arg2 : tensor<4x16xf64>, tensor<16xf64>) outs(%1 : tensor<4x16xf64>) {
    ^bb0(%in: f64, %in_8: f64, %out: f64):
      %32 = arith.mulf %in, %in_8 : f64
      linalg.yield %32 : f64
    } -> tensor<4x16xf64>
    %18 = linalg.generic {indexing_maps = [#map1, #map, #map1], iterator_types = ["parallel", "parallel"]} ins(%17, %arg3 : tensor<4x16xf64>, tensor<16xf64>) outs(%1 : tensor<4x16xf64>) {
    ^bb0(%in: f64, %in_8: f64, %out: f64):
      %32 = arith.addf %in, %in_8 : f64
      linalg.yield %32 : f64
    } -> tensor<4x16xf64>
    %19 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel"]} ins(%18 : tensor<4x16xf64>) outs(%1 : tensor<4x16xf64>) {
    ^bb0(%in: f64, %out: f64):
      %32 = math.fpowi %in, %c3_i64 : f64, i64
      %33 = arith.mulf %32, %cst_0 : f64
      %34 = arith.addf %in, %33 : f64
      %35 = arith.mulf %34, %cst_1 : f64
      %36 = math.tanh %35 : f64
      %37 = arith.addf %36, %cst_2 : f64
      %38 = arith.mulf %37, %cst_3 : f64
      %39 = arith.mulf %in, %38 : f64
      linalg.yield %39 : f64
    } -> tensor<4x16xf64>
    %20 = tensor.empty() : tensor<16x8xf64>
    %transposed_7 = linalg.transpose ins(%arg4 : tensor<8x16xf64>) outs(%20 : tensor<16x8xf64>) permutation = [1, 0] 
    %21 = tensor.empty() : tensor<4x8xf64>
    %22 = linalg.fill ins(%cst : f64) outs(%21 : tensor<4x8xf64>) -> tensor<4x8xf64>
    %23 = linalg.matmul ins(%19, %transposed_7 : tensor<4x16xf64>, tensor<16x8xf64>) outs(%22 : tensor<4x8xf64>) -> tensor<4x8xf64>
    %24 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel"]} ins(%arg5 : tensor<8xf64>) outs(%21 : tensor<4x8xf64>) {
    ^bb0(%in: f64, %out: f64):
      linalg.yield %in : f64
    } -> tensor<4x8xf64>
    %25 = linalg.generic {indexing_maps = [#map1, #map1, #map1], iterator_types = ["parallel", "parallel"]} ins(%23, %24 : tensor<4x8xf64>, tensor<4x8xf64>) outs(%21 : tensor<4x8xf64>) {
    ^bb0(%in: f64, %in_8: f64, %out: f64):
      %32 = arith.addf %in, %in_8 : f64
      linalg.yield %32 : f64
    } -> tensor<4x8xf64>
    %26 = linalg.generic {indexing_maps = [#map1, #map1, #map1], iterator_types = ["parallel", "parallel"]} ins(%25, %arg7 : tensor<4x8xf64>, tensor<4x8xf64>) outs(%21 : tensor<4x8xf64>) {
    ^bb0(%in: f64, %in_8: f64, %out: f64):
      %32 = arith.subf %in, %in_8 : f64
      linalg.yield %32 : f64
    } -> tensor<4x8xf64>
    %27 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel"]} ins(%26 : tensor<4x8xf64>) outs(%21 : tensor<4x8xf64>) {
    ^bb0(%in: f64, %out: f64):
      %32 = math.fpowi %in, %c2_i64 : f64, i64
      linalg.yield %32 : f64
    } -> tensor<4x8xf64>
    %28 = tensor.empty() : tensor<f64>
    %29 = linalg.fill ins(%cst : f64) outs(%28 : tensor<f64>) -> tensor<f64>
    %30 = linalg.generic {indexing_maps = [#map1, #map3], iterator_types = ["reduction", "reduction"]} ins(%27 : tensor<4x8xf64>) outs(%29 : tensor<f64>) {
    ^bb0(%in: f64, %out: f64):
      %32 = arith.addf %in, %out : f64
      linalg.yield %32 : f64
    } -> tensor<f64>
    %31 = linalg.generic {indexing_maps = [#map4, #map4], iterator_types = []} ins(%30 : tensor<f64>) outs(%28 : tensor<f64>) {
    ^bb0(%in: f64, %out: f64):
      %32 = arith.divf %in, %cst_6 : f64
      linalg.yield %32 : f64
    } -> tensor<f64>
    return %31 : tensor<f64>
  }
}
