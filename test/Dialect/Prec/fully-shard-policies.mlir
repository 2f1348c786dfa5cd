// A parameter's policy, field by field: its argument's prec.policy, then the
// first matching param-dtypes / reduce-dtypes entry (a glob over names or
// rank:N), then param-dtype / reduce-dtype, then the module's prec.policy,
// then its own type. fp8 gathers get dynamic scaling.
// RUN: prec-opt %s --prec-fully-shard="mesh=2 param-dtypes=rank:2=f8E4M3FN,norm.*=f16 reduce-dtypes=fc.*=bf16 param-dtype=bf16" | FileCheck %s
// RUN: prec-opt %s --prec-fully-shard="mesh=2" | FileCheck %s --check-prefix=MODULE

// CHECK-LABEL: func.func private @loss_sharded(
// The argument's own policy wins over every option.
// CHECK: prec.all_gather %arg0 on @fsdp grid_axes = [0] gather_axis = 0 forward_dtype = f16 backward_dtype = f64 :
// rank:2 picks the matrix; fc.* its reduce dtype.
// CHECK: prec.all_gather %arg1 on @fsdp grid_axes = [0] gather_axis = 0 forward_dtype = f8E4M3FN backward_dtype = bf16 scaling = <dynamic> :
// norm.* picks the vector; reduce falls back to the module's policy.
// CHECK: prec.all_gather %arg2 on @fsdp grid_axes = [0] gather_axis = 0 forward_dtype = f16 backward_dtype = f32 :
// Only param-dtype applies; reduce from the module.
// CHECK: prec.all_gather %arg3 on @fsdp grid_axes = [0] gather_axis = 0 forward_dtype = bf16 backward_dtype = f32 :

// MODULE-LABEL: func.func private @loss_sharded(
// MODULE: prec.all_gather %arg0 {{.*}} forward_dtype = f16 backward_dtype = f64 :
// MODULE: prec.all_gather %arg1 {{.*}} forward_dtype = f32 backward_dtype = f32 :
// MODULE: prec.all_gather %arg2 {{.*}} forward_dtype = f32 backward_dtype = f32 :
// MODULE: prec.all_gather %arg3 {{.*}} forward_dtype = f32 backward_dtype = f32 :
module attributes {prec.policy = #prec.policy<param = f32, reduce = f32>} {
  func.func @loss(%e: tensor<4xf32> {prec.name = "emb", prec.policy = #prec.policy<param = f16, reduce = f64>},
                  %w: tensor<4x4xf32> {prec.name = "fc.weight"},
                  %n: tensor<4xf32> {prec.name = "norm.weight"},
                  %b: tensor<4xf32> {prec.name = "head.bias"}) -> tensor<f32> {
    %0 = arith.addf %e, %n : tensor<4xf32>
    %1 = arith.addf %0, %b : tensor<4xf32>
    %s = prec.reduce %1 dims = [0] reduction = <sum> : tensor<4xf32> -> tensor<f32>
    %t = prec.reduce %w dims = [0, 1] reduction = <sum> : tensor<4x4xf32> -> tensor<f32>
    %l = arith.addf %s, %t : tensor<f32>
    return %l : tensor<f32>
  }
}
