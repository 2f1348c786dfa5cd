// RUN: prec-opt %s --prec-lower-to-cuda="format=isa" \
// RUN:     --mlir-print-ir-after=gpu-kernel-outlining -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=FUSED
// RUN: prec-opt %s --prec-lower-to-cuda="format=isa fuse-kernels=false" \
// RUN:     --mlir-print-ir-after=gpu-kernel-outlining -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=UNFUSED
// The PTX is an escaped string in the gpu.binary: one instruction per line.
// RUN: prec-opt %s --prec-lower-to-cuda="format=isa" \
// RUN:   | sed -e 's/\\0A/\n/g' -e 's/\\09/ /g' | FileCheck %s --check-prefix=PTX

// Kernel fusion in the GPU pipeline: the SGD step runs in the unpack kernel
// of the gradient's reduce-scatter (bf16 on the wire, summed in f32 by the
// unpack kernel, averaged over 4 ranks), one launch where fuse-kernels=false
// makes two.
shard.grid @dp(shape = 4)

func.func @step(%w: tensor<64xf32>, %g: tensor<256xf32>, %lr: f32) -> tensor<64xf32> {
  %grad = prec.reduce_scatter %g on @dp scatter_axis = 0 reduction = <avg>
            forward_dtype = bf16 acc_dtype = f32 : tensor<256xf32> -> tensor<64xf32>
  %next = prec.sgd %w, %grad, %lr : tensor<64xf32>, tensor<64xf32>
  return %next : tensor<64xf32>
}

// Fused: the pack kernel, the collective, and one kernel that reads the
// weights (an argument, a device buffer), the four received chunks and the
// learning rate (a scalar parameter), and writes the new weights.
// FUSED-LABEL: func.func @step(
// FUSED-SAME:    %[[W:[a-z0-9]+]]: memref<64xf32>, %[[G:[a-z0-9]+]]: memref<256xf32>, %[[LR:[a-z0-9]+]]: f32)
// FUSED:         gpu.launch_func {{.*}} @[[PACK:[a-z_0-9]+]]::@{{.*}} args(%[[G]] : memref<256xf32>
// FUSED:         call @precrtCompiledCollectiveOnStream
// FUSED:         %[[NEW:.*]], %{{.*}} = gpu.alloc async {{.*}} : memref<64xf32>
// FUSED:         gpu.launch_func {{.*}} @[[UNPACK:[a-z_0-9]+]]::@{{.*}} args(%[[W]] : memref<64xf32>, %[[C0:.*]] : memref<64xbf16, strided<[1]>>, %[[C1:.*]] : memref<64xbf16, strided<[1], offset: 64>>, %[[C2:.*]] : memref<64xbf16, strided<[1], offset: 128>>, %[[C3:.*]] : memref<64xbf16, strided<[1], offset: 192>>, %[[NEW]] : memref<64xf32>, %[[LR]] : f32)
// FUSED-NOT:     gpu.launch_func
// FUSED:         return %[[NEW]]
// FUSED:       gpu.module @[[PACK]]
// FUSED:       gpu.module @[[UNPACK]]
// FUSED-NEXT:    gpu.func @{{.*}}(%[[KW:.*]]: memref<64xf32>, %[[K0:.*]]: memref<64xbf16, strided<[1]>>, %{{.*}}: memref<64xbf16, strided<[1], offset: 64>>, %{{.*}}: memref<64xbf16, strided<[1], offset: 128>>, %{{.*}}: memref<64xbf16, strided<[1], offset: 192>>, %[[KNEW:.*]]: memref<64xf32>, %[[KLR:.*]]: f32) kernel
// The vectorized loop: the chunks summed in f32 in rank order, the average
// (a multiplication by the exact inverse of 4), then SGD.
// FUSED:         scf.for
// FUSED:           %[[VW:.*]] = vector.load %[[KW]]
// FUSED:           %[[V0:.*]] = vector.load %[[K0]]
// FUSED:           %[[E0:.*]] = arith.extf %[[V0]] : vector<8xbf16> to vector<8xf32>
// FUSED:           %[[S0:.*]] = arith.addf %[[E0]]
// FUSED-COUNT-3:   arith.addf
// FUSED-NEXT:      %[[AVG:.*]] = arith.mulf %{{.*}}, %{{.*}} : vector<8xf32>
// FUSED-NEXT:      %[[VLR:.*]] = vector.broadcast %[[KLR]] : f32 to vector<8xf32>
// FUSED-NEXT:      %[[STEP:.*]] = arith.mulf %[[VLR]], %[[AVG]]
// FUSED-NEXT:      %[[UPD:.*]] = arith.subf %[[VW]], %[[STEP]]
// FUSED-NEXT:      vector.store %[[UPD]], %[[KNEW]]
// FUSED:         gpu.return
// FUSED-NOT:   gpu.module

// Unfused: the unpack kernel writes the gradient, the SGD kernel reads it.
// UNFUSED-LABEL: func.func @step(
// UNFUSED-COUNT-3: gpu.launch_func
// UNFUSED-NOT:     gpu.launch_func
// UNFUSED:         return
// UNFUSED-COUNT-3: gpu.module
// UNFUSED-NOT:     gpu.module

// The PTX has two kernels; the second converts the bf16 chunks, averages, updates
// and stores the weights 16 bytes at a time.
// PTX:     .entry
// PTX:     .entry
// PTX:     cvt.f32.bf16
// PTX:     add.rn.f32
// PTX:     mul.rn.f32 {{.*}}, 0f{{3|B}}E800000;
// PTX:     st.global.v4.b32
// PTX:     ret;
// PTX-NOT: .entry

// Launches per step of the examples (docs/performance.md, "Kernels per
// step"); each function runs once per step. Contractions go to cuBLASLt
// (gemm-contractions, the default) or are loop kernels.
// RUN: prec-opt %prec_src/examples/fsdp_step.mlir --prec-lower-to-cuda="format=isa" \
// RUN:   | grep -c 'gpu.launch_func' | FileCheck %s --check-prefix=FSDP-FUSED
// RUN: prec-opt %prec_src/examples/fsdp_step.mlir --prec-lower-to-cuda="format=isa fuse-kernels=false" \
// RUN:   | grep -c 'gpu.launch_func' | FileCheck %s --check-prefix=FSDP-UNFUSED
// RUN: prec-opt %prec_src/examples/transformer_block_step.mlir --prec-lower-to-cuda="format=isa" \
// RUN:   | grep -c 'gpu.launch_func' | FileCheck %s --check-prefix=BLOCK-FUSED
// RUN: prec-opt %prec_src/examples/transformer_block_step.mlir --prec-lower-to-cuda="format=isa fuse-kernels=false" \
// RUN:   | grep -c 'gpu.launch_func' | FileCheck %s --check-prefix=BLOCK-UNFUSED
// FSDP-FUSED: {{^}}37{{$}}
// FSDP-UNFUSED: {{^}}47{{$}}
// BLOCK-FUSED: {{^}}104{{$}}
// BLOCK-UNFUSED: {{^}}132{{$}}
// RUN: prec-opt %prec_src/examples/fsdp_step.mlir --prec-lower-to-cuda="format=isa gemm-contractions=false" \
// RUN:   | grep -c 'gpu.launch_func' | FileCheck %s --check-prefix=FSDP-LOOPS-FUSED
// RUN: prec-opt %prec_src/examples/fsdp_step.mlir --prec-lower-to-cuda="format=isa fuse-kernels=false gemm-contractions=false" \
// RUN:   | grep -c 'gpu.launch_func' | FileCheck %s --check-prefix=FSDP-LOOPS-UNFUSED
// RUN: prec-opt %prec_src/examples/transformer_block_step.mlir --prec-lower-to-cuda="format=isa gemm-contractions=false" \
// RUN:   | grep -c 'gpu.launch_func' | FileCheck %s --check-prefix=BLOCK-LOOPS-FUSED
// RUN: prec-opt %prec_src/examples/transformer_block_step.mlir --prec-lower-to-cuda="format=isa fuse-kernels=false gemm-contractions=false" \
// RUN:   | grep -c 'gpu.launch_func' | FileCheck %s --check-prefix=BLOCK-LOOPS-UNFUSED
// FSDP-LOOPS-FUSED: {{^}}44{{$}}
// FSDP-LOOPS-UNFUSED: {{^}}58{{$}}
// BLOCK-LOOPS-FUSED: {{^}}120{{$}}
// BLOCK-LOOPS-UNFUSED: {{^}}148{{$}}
