// REQUIRES: ptxas
// RUN: prec-opt %s --prec-lower-to-cuda | FileCheck %s
// RUN: prec-opt %s --prec-lower-to-cuda="format=bin chip=sm_80 features=+ptx70" | FileCheck %s --check-prefix=CUBIN

// The default format embeds a fatbin built by ptxas (magic 0xBA55ED50, stored
// little-endian), with the cubin for sm_90 and the PTX for newer chips; `bin`
// embeds the cubin alone (an ELF file).
shard.grid @dp(shape = 2)

func.func @gather(%w: tensor<512xf32>) -> tensor<1024xbf16> {
  %full = prec.all_gather %w on @dp gather_axis = 0 forward_dtype = bf16
            : tensor<512xf32> -> tensor<1024xbf16>
  return %full : tensor<1024xbf16>
}

// CHECK:  gpu.binary @gather_kernel {{ *}}[#gpu.object<#nvvm.target<O = 3, chip = "sm_90", features = "+ptx80">, properties = {ISAToBinaryTimeInMs = {{[0-9]+}} : i64, LLVMIRToISATimeInMs = {{[0-9]+}} : i64}, "P\EDU\BA
// CUBIN:  gpu.binary @gather_kernel {{ *}}[#gpu.object<#nvvm.target<O = 3, chip = "sm_80", features = "+ptx70">, properties = {{{.*}}}, bin = "\7FELF

// ptxas compiles every kernel of the examples as prec-lower-to-cuda fuses
// them (an optimizer in its reduce-scatter's unpack kernel, casts in pack
// kernels), with contractions through cuBLASLt and as loop kernels: one
// cubin per launch.
// RUN: prec-opt %prec_src/examples/fsdp_step.mlir --prec-lower-to-cuda="format=bin" \
// RUN:   | grep -c 'bin = "\\7FELF' | FileCheck %s --check-prefix=FSDP-CUBINS
// RUN: prec-opt %prec_src/examples/transformer_block_step.mlir --prec-lower-to-cuda="format=bin" \
// RUN:   | grep -c 'bin = "\\7FELF' | FileCheck %s --check-prefix=BLOCK-CUBINS
// RUN: prec-opt %prec_src/examples/fsdp_step.mlir --prec-lower-to-cuda="format=bin gemm-contractions=false" \
// RUN:   | grep -c 'bin = "\\7FELF' | FileCheck %s --check-prefix=FSDP-LOOPS-CUBINS
// FSDP-CUBINS: {{^}}37{{$}}
// BLOCK-CUBINS: {{^}}104{{$}}
// FSDP-LOOPS-CUBINS: {{^}}44{{$}}
