// RUN: prec-opt %s --prec-lower-to-cuda="format=isa" | FileCheck %s

// fp8 wires, scales and stochastic rounding lower for the GPU: the kernels
// convert with the integer arithmetic of the CPU path (no fp8 type reaches
// NVPTX), the rank that keys a collective's stochastic rounding comes from
// the runtime on the host, and the amax reduction and fp8 gather are
// runtime collectives on the stream.
shard.grid @dp(shape = 4)

// CHECK: llvm.func @precrtCompiledGridRank(i64) -> i64
// CHECK-LABEL: llvm.func @step
// CHECK: llvm.call @precrtCompiledGridRank(
// CHECK: llvm.call @precrtCompiledCollectiveOnStream
// The stochastic pack kernel's PTX multiplies by Philox's constants
// (0xD2511F53 = 3528531795); no fp8 conversion instruction appears.
// CHECK: gpu.binary {{.*}}3528531795
// CHECK-NOT: e4m3
func.func @step(%w: tensor<16x64xf32>, %g: tensor<64x64xf32>, %seed: i64)
    -> (tensor<64x64xbf16>, tensor<16x64xf32>) {
  %0 = prec.all_gather %w on @dp gather_axis = 0 forward_dtype = f8E4M3FN
         scaling = <dynamic> : tensor<16x64xf32> -> tensor<64x64xbf16>
  %1 = prec.reduce_scatter %g on @dp scatter_axis = 0 reduction = <avg>
         forward_dtype = bf16 rounding = <stochastic> seed %seed acc_dtype = f32
         : tensor<64x64xf32> -> tensor<16x64xf32>
  return %0, %1 : tensor<64x64xbf16>, tensor<16x64xf32>
}
