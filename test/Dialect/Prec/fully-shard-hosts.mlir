// prec-fully-shard over hosts (docs/Prec.md, "Topology and two-level
// collectives"): FSDP's mesh of 4 ranks on 2 hosts of 2 is the grid 2x2
// whose axis 0 crosses hosts; the parameters are sharded over both axes in
// the flat mesh's group order, and the gradients' partial sums cross hosts in
// the dtype inter-host-reduce-dtype names.
// RUN: prec-opt %s --prec-fully-shard="mesh=4 hosts=2 inter-host-reduce-dtype=bf16 param-dtype=bf16 reduce-dtype=f32" | FileCheck %s
// RUN: prec-opt %s --prec-fully-shard="mesh=4 hosts=2 inter-host-reduce-dtype=bf16 param-dtype=bf16 reduce-dtype=f32" --prec-generate-backward | FileCheck %s --check-prefix=BACKWARD
// RUN: prec-opt %s --prec-fully-shard="mesh=4 hosts=2 inter-host-reduce-dtype=bf16 reshard-after-forward=false" | FileCheck %s --check-prefix=ONCE
// RUN: prec-opt %s --prec-fully-shard="mesh=4 hosts=2" --prec-generate-backward | FileCheck %s --check-prefix=F32
// RUN: prec-opt %s --prec-fully-shard="mesh=2x2 hosts=2" | FileCheck %s --check-prefix=HSDP
// An fp8 inter-host dtype gets a scale per rank's partial sums.
// RUN: prec-opt %s --prec-fully-shard="mesh=4 hosts=2 inter-host-reduce-dtype=f8E4M3FN param-dtype=bf16 reduce-dtype=f32" --prec-generate-backward | FileCheck %s --check-prefix=FP8
// prec-error-bounds reports the gradient reduce_scatters' bf16 partial sums.
// RUN: prec-opt %s --prec-fully-shard="mesh=4 hosts=2 inter-host-reduce-dtype=bf16 param-dtype=bf16 reduce-dtype=f32" --prec-generate-backward --prec-error-bounds -o /dev/null 2>&1 | FileCheck %s --check-prefix=BOUNDS

// CHECK:       shard.grid @fsdp(shape = 2x2) {prec.inter_host_axes = array<i16: 0>}
// CHECK-LABEL: func.func private @loss_sharded(
// CHECK-SAME:    %[[W:[^:]*]]: tensor<3x8xf32> {prec.name = "fc.weight"}, %[[B:[^:]*]]: tensor<1xf32>
// CHECK:         prec.all_gather %[[W]] on @fsdp grid_axes = [0, 1] gather_axis = 0 forward_dtype = bf16 backward_dtype = f32 grad_inter_host_dtype = bf16 : tensor<3x8xf32> -> tensor<12x8xf32>
// CHECK:         prec.all_gather %[[B]] on @fsdp grid_axes = [0, 1] gather_axis = 0 forward_dtype = bf16 backward_dtype = f32 grad_inter_host_dtype = bf16 : tensor<1xf32> -> tensor<4xf32>
// CHECK-LABEL: func.func @train_step(
// CHECK-SAME:    tensor<3x8xf32> {prec.name = "fc.weight", prec.shard = {dim = 0 : i64, grid = @fsdp, grid_axes = [0, 1], size = 10 : i64}}
// CHECK-SAME:    tensor<1xf32> {prec.name = "arg1", prec.shard = {dim = 0 : i64, grid = @fsdp, grid_axes = [0, 1], size = 1 : i64}}
// The loss's mean over every rank keeps its partial sums in f32.
// CHECK:         prec.all_reduce %{{.*}} on @fsdp reduction = <avg> forward_dtype = f32 : tensor<f32> -> tensor<f32>

// BACKWARD-LABEL: func.func private @loss_sharded_backward(
// BACKWARD:         prec.reduce_scatter %{{.*}} on @fsdp grid_axes = [0, 1] scatter_axis = 0 reduction = <avg> forward_dtype = f32 backward_dtype = bf16 inter_host_dtype = bf16 : tensor<4xf32> -> tensor<1xf32>
// BACKWARD:         prec.reduce_scatter %{{.*}} on @fsdp grid_axes = [0, 1] scatter_axis = 0 reduction = <avg> forward_dtype = f32 backward_dtype = bf16 inter_host_dtype = bf16 : tensor<12x8xf32> -> tensor<3x8xf32>

// The parameters gathered once in the step, whose reduce_scatters are the
// step's own.
// ONCE-LABEL: func.func @train_step(
// ONCE:         prec.all_gather %{{.*}} on @fsdp grid_axes = [0, 1] gather_axis = 0 forward_dtype = f32 backward_dtype = f32 grad_inter_host_dtype = bf16 : tensor<3x8xf32> -> tensor<12x8xf32>
// ONCE:         prec.reduce_scatter %{{.*}} on @fsdp grid_axes = [0, 1] scatter_axis = 0 reduction = <avg> forward_dtype = f32 inter_host_dtype = bf16 : tensor<12x8xf32> -> tensor<3x8xf32>
// ONCE:         prec.reduce_scatter %{{.*}} on @fsdp grid_axes = [0, 1] scatter_axis = 0 reduction = <avg> forward_dtype = f32 inter_host_dtype = bf16 : tensor<4xf32> -> tensor<1xf32>

// Without inter-host-reduce-dtype, partial sums cross hosts in acc_dtype.
// F32:     shard.grid @fsdp(shape = 2x2) {prec.inter_host_axes = array<i16: 0>}
// F32-NOT: inter_host_dtype
// F32:     prec.reduce_scatter %{{.*}} on @fsdp grid_axes = [0, 1] scatter_axis = 0
// F32-NOT: inter_host_dtype

// FP8-LABEL: func.func private @loss_sharded(
// FP8:         prec.all_gather %{{.*}} on @fsdp grid_axes = [0, 1] gather_axis = 0 forward_dtype = bf16 backward_dtype = f32 grad_inter_host_dtype = f8E4M3FN grad_inter_host_scaling = <dynamic> : tensor<3x8xf32> -> tensor<12x8xf32>
// FP8-LABEL: func.func private @loss_sharded_backward(
// FP8:         prec.reduce_scatter %{{.*}} on @fsdp grid_axes = [0, 1] scatter_axis = 0 reduction = <avg> forward_dtype = f32 backward_dtype = bf16 inter_host_dtype = f8E4M3FN inter_host_scaling = <dynamic> : tensor<4xf32> -> tensor<1xf32>

// With HSDP the replicas are the hosts; each shards inside its host.
// HSDP:       shard.grid @fsdp(shape = 2x2) {prec.inter_host_axes = array<i16: 0>}
// HSDP-LABEL: func.func @train_step(
// HSDP-SAME:    tensor<5x8xf32> {prec.name = "fc.weight", prec.shard = {dim = 0 : i64, grid = @fsdp, grid_axes = [1], size = 10 : i64}}
// HSDP:         prec.all_reduce %{{.*}} on @fsdp grid_axes = [0] reduction = <avg> forward_dtype = f32 : tensor<5x8xf32> -> tensor<5x8xf32>

// BOUNDS: remark: prec.reduce_scatter in @loss_sharded_backward (the gradient of the prec.all_gather {{.*}}): relative error bound {{.*}}; two-level: H = 2 hosts x M = 2 ranks, partial sums across hosts in bf16, bytes per rank 8 inside hosts and 2 across; {{.*}} moves grad(arg1)
// BOUNDS: remark: prec.reduce_scatter in @loss_sharded_backward (the gradient of the prec.all_gather {{.*}}): relative error bound {{.*}}; two-level: H = 2 hosts x M = 2 ranks, partial sums across hosts in bf16, {{.*}} moves grad(fc.weight)
// BOUNDS-NOT: partial sums across hosts in bf16

func.func @loss(%w: tensor<10x8xf32> {prec.name = "fc.weight"}, %b: tensor<1xf32>,
                %x: tensor<4x8xf32> {prec.name = "x", prec.no_grad}) -> tensor<f32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<4x10xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<4x10xf32>) -> tensor<4x10xf32>
  %wt = tensor.empty() : tensor<8x10xf32>
  %t = linalg.transpose ins(%w : tensor<10x8xf32>) outs(%wt : tensor<8x10xf32>) permutation = [1, 0]
  %y = linalg.matmul ins(%x, %t : tensor<4x8xf32>, tensor<8x10xf32>) outs(%init : tensor<4x10xf32>) -> tensor<4x10xf32>
  %s = prec.reduce %y dims = [0, 1] reduction = <avg> : tensor<4x10xf32> -> tensor<f32>
  %bs = tensor.collapse_shape %b [] : tensor<1xf32> into tensor<f32>
  %l = arith.addf %s, %bs : tensor<f32>
  return %l : tensor<f32>
}
