// The optimizer in the reduce-scatter's last kernel: with fuse-kernels (the
// default) the kernel that sums the received wire chunks in f32 and
// averages also updates master weights and state and writes the next
// step's bf16 shard; without it, the unpack kernel writes the gradient and
// the optimizer kernel reads it back. Both must give the same bits.
// RUN: rm -rf %t && mkdir -p %t/fused %t/unfused
// RUN: prec-opt %s --prec-lower-to-cpu | FileCheck %s --check-prefix=FUSED
// RUN: prec-opt %s --prec-lower-to-cpu=fuse-kernels=false | FileCheck %s --check-prefix=UNFUSED
// RUN: prec-run %s --scalar 6=0.01 --scalar 7=3 --output-dir %t/fused --print none
// RUN: prec-run %s --fuse-kernels=false --scalar 6=0.01 --scalar 7=3 --output-dir %t/unfused --print none
// RUN: for f in %t/unfused/*.bin; do cmp $f %t/fused/$(basename $f) || exit 1; done
// RUN: ls %t/fused | FileCheck %s --check-prefix=FILES
// The step changed the weights (a no-op would compare equal too).
// RUN: not cmp %t/fused/rank0_arg0.bin %t/fused/rank0_result0.bin
// RUN: not cmp %t/fused/rank0_arg4.bin %t/fused/rank0_result4.bin

// Fused: the pack kernel of the bf16 reduce-scatter; one kernel that sums
// the received bf16 chunks in f32, averages, squares the state and runs
// AdamW; one that averages the f32 reduce-scatter and runs SGD. Unfused:
// six (pack, unpack, square, AdamW, average, SGD).
// FUSED-LABEL: llvm.func @step(
// FUSED-COUNT-3: llvm.call @step_kernel
// FUSED-NOT: llvm.call @step_kernel
// FUSED: llvm.return
// UNFUSED-LABEL: llvm.func @step(
// UNFUSED-COUNT-6: llvm.call @step_kernel
// UNFUSED-NOT: llvm.call @step_kernel
// UNFUSED: llvm.return

// FILES-COUNT-4: rank{{[0-3]}}_result4.bin

shard.grid @dp(shape = 4)

func.func @step(%w: tensor<4x8xf32>, %g: tensor<16x8xf32>, %m: tensor<4x8xf32>,
                %v: tensor<4x8xf32>, %w2: tensor<4x8xf32>, %g2: tensor<16x8xf32>,
                %lr: f32, %t: f32)
    -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xbf16>,
        tensor<4x8xf32>) {
  // bf16 wire, f32 sum: all-to-all, then the unpack kernel.
  %grad = prec.reduce_scatter %g on @dp scatter_axis = 0 reduction = <avg>
            forward_dtype = bf16 acc_dtype = f32 : tensor<16x8xf32> -> tensor<4x8xf32>
  // The second-moment state is non-negative.
  %v2 = arith.mulf %v, %v : tensor<4x8xf32>
  %adam:4 = prec.adamw %w, %grad, %m, %v2, %lr, %t beta1 = 0.9 beta2 = 0.99 eps = 1.0e-3
              weight_decay = 0.1 : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xbf16>
  // f32 on the wire and in the sum: the backend's reduce-scatter, then a
  // kernel that divides by 4.
  %grad2 = prec.reduce_scatter %g2 on @dp scatter_axis = 0 reduction = <avg>
             : tensor<16x8xf32> -> tensor<4x8xf32>
  %sgd = prec.sgd %w2, %grad2, %lr weight_decay = 0.5 : tensor<4x8xf32>, tensor<4x8xf32>
  return %adam#0, %adam#1, %adam#2, %adam#3, %sgd
    : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xbf16>,
      tensor<4x8xf32>
}
