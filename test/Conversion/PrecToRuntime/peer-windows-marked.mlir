// RUN: prec-opt %s --convert-prec-to-runtime | FileCheck %s

// The conversion follows the plan marked on the transports and makes none
// of its own: a marked transport goes through a window, an unmarked one
// that would fit does not, and a marked one that does not fit (here the
// gathered tensor is returned) takes the runtime's collective.
#map = affine_map<(d0) -> (d0)>
shard.grid @dp(shape = 2)
// CHECK-LABEL: func.func @marked
// CHECK: call @precrtCompiledWindow(
// CHECK: call @precrtCompiledWindowFence(
// CHECK-NOT: precrtCompiledCollective
// CHECK: return
func.func @marked(%x: tensor<8xf32>) -> tensor<16xf32> {
  %e = tensor.empty() : tensor<8xbf16>
  %packed = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]}
      ins(%x : tensor<8xf32>) outs(%e : tensor<8xbf16>) {
  ^bb0(%in: f32, %out: bf16):
    %t = arith.truncf %in : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<8xbf16>
  %g = prec.transport <all_gather> %packed on @dp {prec.through_peer_window} : tensor<8xbf16> -> tensor<16xbf16>
  %init = tensor.empty() : tensor<16xf32>
  %w = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]}
      ins(%g : tensor<16xbf16>) outs(%init : tensor<16xf32>) {
  ^bb0(%in: bf16, %out: f32):
    %t = arith.extf %in : bf16 to f32
    linalg.yield %t : f32
  } -> tensor<16xf32>
  return %w : tensor<16xf32>
}
// CHECK-LABEL: func.func @unmarked
// CHECK-NOT: precrtCompiledWindow
// CHECK: call @precrtCompiledCollective(
// CHECK-NOT: precrtCompiledWindow
// CHECK: return
func.func @unmarked(%x: tensor<8xf32>) -> tensor<16xf32> {
  %e = tensor.empty() : tensor<8xbf16>
  %packed = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]}
      ins(%x : tensor<8xf32>) outs(%e : tensor<8xbf16>) {
  ^bb0(%in: f32, %out: bf16):
    %t = arith.truncf %in : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<8xbf16>
  %g = prec.transport <all_gather> %packed on @dp : tensor<8xbf16> -> tensor<16xbf16>
  %init = tensor.empty() : tensor<16xf32>
  %w = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]}
      ins(%g : tensor<16xbf16>) outs(%init : tensor<16xf32>) {
  ^bb0(%in: bf16, %out: f32):
    %t = arith.extf %in : bf16 to f32
    linalg.yield %t : f32
  } -> tensor<16xf32>
  return %w : tensor<16xf32>
}
// CHECK-LABEL: func.func @marked_returned
// CHECK-NOT: precrtCompiledWindow
// CHECK: call @precrtCompiledCollective(
// CHECK-NOT: precrtCompiledWindow
// CHECK: return
func.func @marked_returned(%x: tensor<8xf32>) -> tensor<16xbf16> {
  %e = tensor.empty() : tensor<8xbf16>
  %packed = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]}
      ins(%x : tensor<8xf32>) outs(%e : tensor<8xbf16>) {
  ^bb0(%in: f32, %out: bf16):
    %t = arith.truncf %in : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<8xbf16>
  %g = prec.transport <all_gather> %packed on @dp {prec.through_peer_window} : tensor<8xbf16> -> tensor<16xbf16>
  return %g : tensor<16xbf16>
}
