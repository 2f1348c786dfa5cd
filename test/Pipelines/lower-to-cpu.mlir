// RUN: prec-opt %s --prec-lower-to-cpu | FileCheck %s
// RUN: prec-opt %prec_src/examples/fsdp_step.mlir --prec-lower-to-cpu | FileCheck %s --check-prefix=EXAMPLE

// The whole step reaches the LLVM dialect: kernels as loops, communication
// as runtime calls, nothing of prec, linalg, tensor or memref left. The
// gather, returned, moves through the runtime's buffers; the reduce-scatter's
// all_to_all, whose pack and sum kernels read and write in place, through a
// peer window.
shard.grid @dp(shape = 4)

// CHECK-DAG: llvm.func @precrtCompiledCollective(i32, i64, i64, i64, i32, i32, i32, i64, i32, i64) -> i32
// CHECK-DAG: llvm.func @precrtCompiledWindow(i64, i32, i64, i32, i64) -> !llvm.ptr
// CHECK-LABEL: llvm.func @step
// CHECK: llvm.call @precrtCompiledCollective
// CHECK: llvm.call @precrtCompiledWindow(
// CHECK: llvm.call @precrtCompiledWindowFence
// CHECK-NOT: prec.
// CHECK-NOT: linalg.
func.func @step(%w: tensor<2x4xf32>, %g: tensor<8x4xf32>, %lr: f32)
    -> (tensor<2x4xf32>, tensor<8x4xbf16>) {
  %full = prec.all_gather %w on @dp gather_axis = 0 forward_dtype = bf16
            : tensor<2x4xf32> -> tensor<8x4xbf16>
  %grad = prec.reduce_scatter %g on @dp scatter_axis = 0 reduction = <avg>
            forward_dtype = bf16 acc_dtype = f32 : tensor<8x4xf32> -> tensor<2x4xf32>
  %next = prec.sgd %w, %grad, %lr : tensor<2x4xf32>, tensor<2x4xf32>
  return %next, %full : tensor<2x4xf32>, tensor<8x4xbf16>
}

// The example's backward function is generated on the way and, its
// gradients being read by the step's SGD kernels, inlined into the step;
// bucketing leaves one gather of both weight shards in each of the forward
// and the backward computation and one reduce-scatter of both gradients
// (runtime calls, or fences of peer windows). The private forward function
// and the kernels are internal to the LLVM module, for LLVM to inline; the
// entry point stays external.
// EXAMPLE-LABEL: llvm.func internal @mlp_loss(
// EXAMPLE-COUNT-1: llvm.call @precrtCompiled{{Collective|WindowFence}}(
// EXAMPLE-NOT: llvm.call @precrtCompiled{{Collective|WindowFence}}(
// EXAMPLE-NOT: @mlp_loss_backward
// EXAMPLE-LABEL: llvm.func @train_step(
// EXAMPLE: llvm.call @mlp_loss(
// EXAMPLE-COUNT-3: llvm.call @precrtCompiled{{Collective|WindowFence}}(
// EXAMPLE-NOT: llvm.call @precrtCompiled{{Collective|WindowFence}}(
// EXAMPLE-NOT: @mlp_loss_backward
// EXAMPLE-NOT: prec.
