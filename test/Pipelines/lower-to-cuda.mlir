// RUN: prec-opt %s --prec-lower-to-cuda="format=isa" > %t.mlir
// RUN: FileCheck %s --check-prefix=HOST < %t.mlir
// The PTX is an escaped string in the gpu.binary: one instruction per line.
// RUN: sed -e 's/\\0A/\n/g' -e 's/\\09/ /g' %t.mlir | FileCheck %s --check-prefix=PTX
// RUN: prec-opt %prec_src/examples/fsdp_step.mlir --prec-lower-to-cuda="format=isa chip=sm_80 features=+ptx70" \
// RUN:   | sed -e 's/\\0A/\n/g' -e 's/\\09/ /g' | FileCheck %s --check-prefix=EXAMPLE

// A gradient reduce-scatter with f16 on the wire and f16 partial sums (the
// backend's reduction), averaged over 8 ranks with FSDP's divide factors:
// pre-divide by 4 in the pack kernel, post-divide by 2 in the unpack kernel.
shard.grid @dp(shape = 8)

func.func @reduce_gradients(%g: tensor<1024x16xf32>) -> tensor<128x16xf32> {
  %r = prec.reduce_scatter %g on @dp scatter_axis = 0 reduction = <avg>
         forward_dtype = f16 acc_dtype = f16 : tensor<1024x16xf32> -> tensor<128x16xf32>
  return %r : tensor<128x16xf32>
}

// Host: the rank's stream first, then pack kernel, collective and unpack
// kernel on it, in this order; buffers in device memory, freed in stream
// order; no synchronization.
// HOST-LABEL: llvm.func @reduce_gradients(
// HOST:         %[[STREAM:.*]] = llvm.call @precrtCompiledGpuStream() : () -> !llvm.ptr
// HOST:         llvm.call @precrtCompiledGpuMaxBlocks
// HOST:         llvm.call @mgpuMemAlloc({{.*}}, %[[STREAM]], {{.*}})
// HOST:         gpu.launch_func <%[[STREAM]] : !llvm.ptr> @[[PACK:[a-z_0-9]+]]::
// HOST:         llvm.call @precrtCompiledCollectiveOnStream({{.*}}, %[[STREAM]])
// HOST:         gpu.launch_func <%[[STREAM]] : !llvm.ptr> @[[UNPACK:[a-z_0-9]+]]::
// HOST:         llvm.call @mgpuMemFree({{.*}}, %[[STREAM]])
// HOST-NOT:     mgpuStreamSynchronize
// HOST:         llvm.return
// HOST:       gpu.binary @[[PACK]] [#gpu.object<#nvvm.target<O = 3, chip = "sm_90", features = "+ptx80">
// HOST-NOT:   memref.
// HOST-NOT:   linalg.
// HOST-NOT:   prec.

// Pack: 16-byte loads of f32, the divisor 4 as a multiplication by 0.25
// (0f3E800000), conversions in pairs, 16-byte stores of f16, in a grid-stride
// loop; then the scalar tail. Unpack: 16-byte loads of f16, the divisor 2 as
// a multiplication by 0.5 (0f3F000000), 16-byte stores of f32. No division.
// PTX:       .target sm_90
// PTX-NOT:   div.rn
// PTX:       .entry reduce_gradients_kernel(
// PTX:         ld.global.v4.b32
// PTX:         mul.rn.f32 {{.*}}0f3E800000
// PTX:         cvt.rn.f16x2.f32
// PTX:         st.global.v4.b32
// PTX:         cvt.rn.f16.f32
// PTX:         st.global.b16
// PTX:       .entry reduce_gradients_kernel(
// PTX:         ld.global.v4.b32
// PTX:         mul.rn.f32 {{.*}}0f3F000000
// PTX:         st.global.v4.b32
// PTX-NOT:   div.rn

// The example's optimizer update and weight casts pair their bf16
// conversions too; math lowers to instructions, not libdevice calls.
// EXAMPLE:     .target sm_80
// EXAMPLE:     cvt.rn.bf16x2.f32
// EXAMPLE-NOT: __nv_
// EXAMPLE-NOT: sqrt.approx
