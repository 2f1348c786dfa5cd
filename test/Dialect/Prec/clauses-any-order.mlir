// RUN: prec-opt %s -cse | FileCheck %s --enable-var-scope

// The two orders of docs/Prec.md's example are the same op: CSE keeps one.
shard.grid @dp(shape = 4)
// CHECK-LABEL: func.func @same_op
// CHECK: %[[W:.*]] = prec.all_gather %{{[^ ]*}} on @dp gather_axis = 0 forward_dtype = f8E4M3FN backward_dtype = bf16 scaling = <dynamic> : tensor<16x64xf32> -> tensor<64x64xbf16>
// CHECK-NOT: prec.all_gather
// CHECK: return %[[W]], %[[W]]
func.func @same_op(%w_shard: tensor<16x64xf32>) -> (tensor<64x64xbf16>, tensor<64x64xbf16>) {
  %w = prec.all_gather %w_shard on @dp gather_axis = 0 forward_dtype = f8E4M3FN
         scaling = <dynamic> backward_dtype = bf16 : tensor<16x64xf32> -> tensor<64x64xbf16>
  %w2 = prec.all_gather %w_shard on @dp backward_dtype = bf16 scaling = <dynamic>
          forward_dtype = f8E4M3FN gather_axis = 0 : tensor<16x64xf32> -> tensor<64x64xbf16>
  return %w, %w2 : tensor<64x64xbf16>, tensor<64x64xbf16>
}
