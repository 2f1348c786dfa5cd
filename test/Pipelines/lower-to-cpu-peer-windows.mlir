// RUN: prec-opt %s --prec-lower-to-cpu | FileCheck %s

// A rank query between a gather and the kernel that reads it is no
// collective: the gather goes through a peer window, and
// prec-check-peer-windows accepts the read.
#map = affine_map<(d0) -> (d0)>
shard.grid @dp(shape = 2)
// CHECK-LABEL: llvm.func @gather_and_rank
// CHECK: llvm.call @precrtCompiledWindow(
// CHECK: llvm.call @precrtCompiledWindowFence(
// CHECK: llvm.call @precrtCompiledGridRank(
// CHECK-NOT: llvm.call @precrtCompiledCollective(
func.func @gather_and_rank(%x: tensor<8xf32>) -> (tensor<16xf32>, index) {
  %g = prec.all_gather %x on @dp gather_axis = 0 forward_dtype = bf16
         : tensor<8xf32> -> tensor<16xbf16>
  %idx = shard.process_linear_index on @dp : index
  %init = tensor.empty() : tensor<16xf32>
  %w = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]}
      ins(%g : tensor<16xbf16>) outs(%init : tensor<16xf32>) {
  ^bb0(%in: bf16, %out: f32):
    %t = arith.extf %in : bf16 to f32
    linalg.yield %t : f32
  } -> tensor<16xf32>
  return %w, %idx : tensor<16xf32>, index
}
