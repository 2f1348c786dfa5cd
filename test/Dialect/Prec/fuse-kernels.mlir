// RUN: prec-opt %s --prec-fuse-kernels --split-input-file | FileCheck %s --enable-var-scope

#id = affine_map<(d0) -> (d0)>

// A cast kernel with one consumer runs inside it: one kernel reads the bf16
// values, extends and adds, in the producer's order.
// CHECK-LABEL: func @single_use
// CHECK-SAME: (%[[A:.*]]: tensor<8xbf16>, %[[B:.*]]: tensor<8xf32>)
// CHECK: %[[R:.*]] = linalg.generic {{.*}} ins(%[[A]], %[[B]] : tensor<8xbf16>, tensor<8xf32>)
// CHECK:   arith.extf
// CHECK:   arith.addf
// CHECK-NOT: linalg.generic
// CHECK: return %[[R]]
func.func @single_use(%a: tensor<8xbf16>, %b: tensor<8xf32>) -> tensor<8xf32> {
  %e0 = tensor.empty() : tensor<8xf32>
  %ext = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%a : tensor<8xbf16>) outs(%e0 : tensor<8xf32>) {
  ^bb0(%x: bf16, %o: f32):
    %y = arith.extf %x : bf16 to f32
    linalg.yield %y : f32
  } -> tensor<8xf32>
  %e1 = tensor.empty() : tensor<8xf32>
  %sum = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%ext, %b : tensor<8xf32>, tensor<8xf32>) outs(%e1 : tensor<8xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %z = arith.addf %x, %y : f32
    linalg.yield %z : f32
  } -> tensor<8xf32>
  return %sum : tensor<8xf32>
}

// -----

#id = affine_map<(d0) -> (d0)>

// Two consumers: fusing would compute the producer twice, so both stay.
// CHECK-LABEL: func @two_uses
// CHECK-COUNT-3: linalg.generic
func.func @two_uses(%a: tensor<8xbf16>) -> (tensor<8xf32>, tensor<8xf32>) {
  %e0 = tensor.empty() : tensor<8xf32>
  %ext = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%a : tensor<8xbf16>) outs(%e0 : tensor<8xf32>) {
  ^bb0(%x: bf16, %o: f32):
    %y = arith.extf %x : bf16 to f32
    linalg.yield %y : f32
  } -> tensor<8xf32>
  %e1 = tensor.empty() : tensor<8xf32>
  %neg = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%ext : tensor<8xf32>) outs(%e1 : tensor<8xf32>) {
  ^bb0(%x: f32, %o: f32):
    %z = arith.negf %x : f32
    linalg.yield %z : f32
  } -> tensor<8xf32>
  %e2 = tensor.empty() : tensor<8xf32>
  %sq = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%ext : tensor<8xf32>) outs(%e2 : tensor<8xf32>) {
  ^bb0(%x: f32, %o: f32):
    %z = arith.mulf %x, %x : f32
    linalg.yield %z : f32
  } -> tensor<8xf32>
  return %neg, %sq : tensor<8xf32>, tensor<8xf32>
}
