// Steps of the form prec-fully-shard gives (docs/Prec.md, `prec.shard`),
// written by hand for the checkpoint tests: a parameter of 10 rows sharded
// over the 4 ranks of a group (3 rows each; the last rank's last two are
// padding), its AdamW-style first moment, an unsharded bias and a step
// counter, all fed back; the loss is the sum of the new weights over every
// rank. Each step, elementwise in f32:
//   exp_avg' = 0.75 exp_avg + w,  w' = w - lr exp_avg',  b' = b + lr,
//   step' = step + 1.
// @fsdp_step shards over all 4 ranks; @hsdp_step over axis 1 of a 2x2 grid
// (5 rows in blocks of 3 on 2 ranks, each block on both replicas);
// @solo_step holds 3 rows on a grid of one rank.

shard.grid @fsdp(shape = 4)
shard.grid @hsdp(shape = 2x2)
shard.grid @solo(shape = 1)

func.func @fsdp_step(
    %w: tensor<3x4xf32> {prec.name = "h.0.weight",
        prec.shard = {grid = @fsdp, grid_axes = [0], dim = 0 : i64, size = 10 : i64}},
    %b: tensor<4xf32> {prec.name = "h.0.bias"},
    %m: tensor<3x4xf32> {prec.name = "exp_avg.h.0.weight",
        prec.shard = {grid = @fsdp, grid_axes = [0], dim = 0 : i64, size = 10 : i64}},
    %step: f32 {prec.name = "step", prec.default = 0.0 : f32},
    %lr: f32 {prec.name = "lr", prec.default = 0.5 : f32})
    -> (tensor<3x4xf32>, tensor<4xf32>, tensor<3x4xf32>, f32, tensor<f32> {prec.name = "loss"}) {
  %beta = arith.constant dense<0.75> : tensor<3x4xf32>
  %lrs = tensor.splat %lr : tensor<3x4xf32>
  %mb = arith.mulf %beta, %m : tensor<3x4xf32>
  %m2 = arith.addf %mb, %w : tensor<3x4xf32>
  %d = arith.mulf %lrs, %m2 : tensor<3x4xf32>
  %w2 = arith.subf %w, %d : tensor<3x4xf32>
  %lrb = tensor.splat %lr : tensor<4xf32>
  %b2 = arith.addf %b, %lrb : tensor<4xf32>
  %one = arith.constant 1.0 : f32
  %step2 = arith.addf %step, %one : f32
  %s = prec.reduce %w2 dims = [0, 1] reduction = <sum> acc_dtype = f32
         : tensor<3x4xf32> -> tensor<f32>
  %loss = prec.all_reduce %s on @fsdp reduction = <sum> : tensor<f32> -> tensor<f32>
  return %w2, %b2, %m2, %step2, %loss
      : tensor<3x4xf32>, tensor<4xf32>, tensor<3x4xf32>, f32, tensor<f32>
}

func.func @hsdp_step(
    %w: tensor<3x4xf32> {prec.name = "h.0.weight",
        prec.shard = {grid = @hsdp, grid_axes = [1], dim = 0 : i64, size = 5 : i64}},
    %b: tensor<4xf32> {prec.name = "h.0.bias"},
    %m: tensor<3x4xf32> {prec.name = "exp_avg.h.0.weight",
        prec.shard = {grid = @hsdp, grid_axes = [1], dim = 0 : i64, size = 5 : i64}},
    %step: f32 {prec.name = "step", prec.default = 0.0 : f32},
    %lr: f32 {prec.name = "lr", prec.default = 0.5 : f32})
    -> (tensor<3x4xf32>, tensor<4xf32>, tensor<3x4xf32>, f32, tensor<f32> {prec.name = "loss"}) {
  %beta = arith.constant dense<0.75> : tensor<3x4xf32>
  %lrs = tensor.splat %lr : tensor<3x4xf32>
  %mb = arith.mulf %beta, %m : tensor<3x4xf32>
  %m2 = arith.addf %mb, %w : tensor<3x4xf32>
  %d = arith.mulf %lrs, %m2 : tensor<3x4xf32>
  %w2 = arith.subf %w, %d : tensor<3x4xf32>
  %lrb = tensor.splat %lr : tensor<4xf32>
  %b2 = arith.addf %b, %lrb : tensor<4xf32>
  %one = arith.constant 1.0 : f32
  %step2 = arith.addf %step, %one : f32
  %s = prec.reduce %w2 dims = [0, 1] reduction = <sum> acc_dtype = f32
         : tensor<3x4xf32> -> tensor<f32>
  %loss = prec.all_reduce %s on @hsdp reduction = <sum> : tensor<f32> -> tensor<f32>
  return %w2, %b2, %m2, %step2, %loss
      : tensor<3x4xf32>, tensor<4xf32>, tensor<3x4xf32>, f32, tensor<f32>
}

func.func @solo_step(
    %w: tensor<3x4xf32> {prec.name = "h.0.weight",
        prec.shard = {grid = @solo, grid_axes = [0], dim = 0 : i64, size = 3 : i64}},
    %b: tensor<4xf32> {prec.name = "h.0.bias"},
    %m: tensor<3x4xf32> {prec.name = "exp_avg.h.0.weight",
        prec.shard = {grid = @solo, grid_axes = [0], dim = 0 : i64, size = 3 : i64}},
    %step: f32 {prec.name = "step", prec.default = 0.0 : f32},
    %lr: f32 {prec.name = "lr", prec.default = 0.5 : f32})
    -> (tensor<3x4xf32>, tensor<4xf32>, tensor<3x4xf32>, f32, tensor<f32> {prec.name = "loss"}) {
  %beta = arith.constant dense<0.75> : tensor<3x4xf32>
  %lrs = tensor.splat %lr : tensor<3x4xf32>
  %mb = arith.mulf %beta, %m : tensor<3x4xf32>
  %m2 = arith.addf %mb, %w : tensor<3x4xf32>
  %d = arith.mulf %lrs, %m2 : tensor<3x4xf32>
  %w2 = arith.subf %w, %d : tensor<3x4xf32>
  %lrb = tensor.splat %lr : tensor<4xf32>
  %b2 = arith.addf %b, %lrb : tensor<4xf32>
  %one = arith.constant 1.0 : f32
  %step2 = arith.addf %step, %one : f32
  %s = prec.reduce %w2 dims = [0, 1] reduction = <sum> acc_dtype = f32
         : tensor<3x4xf32> -> tensor<f32>
  %loss = prec.all_reduce %s on @solo reduction = <sum> : tensor<f32> -> tensor<f32>
  return %w2, %b2, %m2, %step2, %loss
      : tensor<3x4xf32>, tensor<4xf32>, tensor<3x4xf32>, f32, tensor<f32>
}
