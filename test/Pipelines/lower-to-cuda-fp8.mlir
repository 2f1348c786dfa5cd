// RUN: prec-opt %s --prec-lower-to-cuda="format=isa" | FileCheck %s
// RUN: prec-opt %s --prec-lower-to-cuda="format=isa" \
// RUN:   | sed -e 's/\\0A/\n/g' -e 's/\\09/ /g' | FileCheck %s --check-prefix=SM90
// RUN: prec-opt %s --prec-lower-to-cuda="format=isa chip=sm_80 features=+ptx70" \
// RUN:   | sed -e 's/\\0A/\n/g' -e 's/\\09/ /g' | FileCheck %s --check-prefix=SM80
// sm_89 has the instruction from PTX 8.1; with PTX 7.8 it keeps the integer
// arithmetic (NVPTX could not select the instruction there).
// RUN: prec-opt %s --prec-lower-to-cuda="format=isa chip=sm_89 features=+ptx81" \
// RUN:   | sed -e 's/\\0A/\n/g' -e 's/\\09/ /g' | FileCheck %s --check-prefix=SM90
// RUN: prec-opt %s --prec-lower-to-cuda="format=isa chip=sm_89 features=+ptx78" \
// RUN:   | sed -e 's/\\0A/\n/g' -e 's/\\09/ /g' | FileCheck %s --check-prefix=SM80

// fp8 wires, scales and stochastic rounding lower for the GPU: no fp8 type
// reaches NVPTX, the rank that keys a collective's stochastic rounding
// comes from the runtime on the host, and the amax reduction and fp8
// gather are runtime collectives on the stream. Rounding to nearest is
// PTX's paired conversion on sm_90 (with the canonical NaN selected in),
// the integer arithmetic of the CPU path on sm_80; stochastic rounding is
// integer arithmetic on both.
shard.grid @dp(shape = 4)

// CHECK: llvm.func @precrtCompiledGridRank(i64) -> i64
// CHECK-LABEL: llvm.func @step
// CHECK: llvm.call @precrtCompiledGridRank(
// CHECK: llvm.call @precrtCompiledCollectiveOnStream
// The stochastic pack kernel's PTX multiplies by Philox's constants
// (0xD2511F53 = 3528531795).
// CHECK: gpu.binary {{.*}}3528531795

// SM90: .target sm_{{89|90}}
// SM90: cvt.rn.satfinite.e4m3x2.f32
// SM90: cvt.rn.satfinite.e5m2x2.f32
// SM80: .target sm_{{80|89}}
// SM80-NOT: cvt.rn.satfinite
// SM80-NOT: e4m3x2
// SM80-NOT: e5m2x2
func.func @step(%w: tensor<16x64xf32>, %g: tensor<64x64xf32>, %seed: i64)
    -> (tensor<64x64xbf16>, tensor<16x64xf32>) {
  %0 = prec.all_gather %w on @dp gather_axis = 0 forward_dtype = f8E4M3FN
         scaling = <dynamic> : tensor<16x64xf32> -> tensor<64x64xbf16>
  %1 = prec.reduce_scatter %g on @dp scatter_axis = 0 reduction = <avg>
         forward_dtype = bf16 rounding = <stochastic> seed %seed acc_dtype = f32
         : tensor<64x64xf32> -> tensor<16x64xf32>
  return %0, %1 : tensor<64x64xbf16>, tensor<16x64xf32>
}

// A cast to f8E5M2 of 37 elements: the vector loop and the scalar tail.
func.func @cast_e5m2(%x: tensor<37xf32>) -> tensor<37xf8E5M2> {
  %0 = prec.cast %x : tensor<37xf32> to tensor<37xf8E5M2>
  return %0 : tensor<37xf8E5M2>
}
