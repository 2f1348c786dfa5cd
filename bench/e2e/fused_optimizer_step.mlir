// The optimizer half of an FSDP step on large shards: 8 layers of
// 4096 x 4096 f32 master weights on 4 ranks (a 1024 x 4096 shard each), the
// gradients reduce-scattered with a bf16 wire and an f32 sum, averaged, and
// applied by SGD. With fuse-kernels (the default) each layer's summing
// kernel also runs SGD; with fuse-kernels=false the gradient is written and
// read back. docs/performance.md, "Fused optimizer on large shards".
shard.grid @dp(shape = 4)

func.func @step(%w0: tensor<1024x4096xf32>, %g0: tensor<4096x4096xf32>, %w1: tensor<1024x4096xf32>, %g1: tensor<4096x4096xf32>, %w2: tensor<1024x4096xf32>, %g2: tensor<4096x4096xf32>, %w3: tensor<1024x4096xf32>, %g3: tensor<4096x4096xf32>, %w4: tensor<1024x4096xf32>, %g4: tensor<4096x4096xf32>, %w5: tensor<1024x4096xf32>, %g5: tensor<4096x4096xf32>, %w6: tensor<1024x4096xf32>, %g6: tensor<4096x4096xf32>, %w7: tensor<1024x4096xf32>, %g7: tensor<4096x4096xf32>, %lr: f32) -> (tensor<1024x4096xf32>, tensor<1024x4096xf32>, tensor<1024x4096xf32>, tensor<1024x4096xf32>, tensor<1024x4096xf32>, tensor<1024x4096xf32>, tensor<1024x4096xf32>, tensor<1024x4096xf32>) {
  %r0 = prec.reduce_scatter %g0 on @dp scatter_axis = 0 reduction = <avg>
          forward_dtype = bf16 acc_dtype = f32 : tensor<4096x4096xf32> -> tensor<1024x4096xf32>
  %n0 = prec.sgd %w0, %r0, %lr weight_decay = 0.01 : tensor<1024x4096xf32>, tensor<1024x4096xf32>
  %r1 = prec.reduce_scatter %g1 on @dp scatter_axis = 0 reduction = <avg>
          forward_dtype = bf16 acc_dtype = f32 : tensor<4096x4096xf32> -> tensor<1024x4096xf32>
  %n1 = prec.sgd %w1, %r1, %lr weight_decay = 0.01 : tensor<1024x4096xf32>, tensor<1024x4096xf32>
  %r2 = prec.reduce_scatter %g2 on @dp scatter_axis = 0 reduction = <avg>
          forward_dtype = bf16 acc_dtype = f32 : tensor<4096x4096xf32> -> tensor<1024x4096xf32>
  %n2 = prec.sgd %w2, %r2, %lr weight_decay = 0.01 : tensor<1024x4096xf32>, tensor<1024x4096xf32>
  %r3 = prec.reduce_scatter %g3 on @dp scatter_axis = 0 reduction = <avg>
          forward_dtype = bf16 acc_dtype = f32 : tensor<4096x4096xf32> -> tensor<1024x4096xf32>
  %n3 = prec.sgd %w3, %r3, %lr weight_decay = 0.01 : tensor<1024x4096xf32>, tensor<1024x4096xf32>
  %r4 = prec.reduce_scatter %g4 on @dp scatter_axis = 0 reduction = <avg>
          forward_dtype = bf16 acc_dtype = f32 : tensor<4096x4096xf32> -> tensor<1024x4096xf32>
  %n4 = prec.sgd %w4, %r4, %lr weight_decay = 0.01 : tensor<1024x4096xf32>, tensor<1024x4096xf32>
  %r5 = prec.reduce_scatter %g5 on @dp scatter_axis = 0 reduction = <avg>
          forward_dtype = bf16 acc_dtype = f32 : tensor<4096x4096xf32> -> tensor<1024x4096xf32>
  %n5 = prec.sgd %w5, %r5, %lr weight_decay = 0.01 : tensor<1024x4096xf32>, tensor<1024x4096xf32>
  %r6 = prec.reduce_scatter %g6 on @dp scatter_axis = 0 reduction = <avg>
          forward_dtype = bf16 acc_dtype = f32 : tensor<4096x4096xf32> -> tensor<1024x4096xf32>
  %n6 = prec.sgd %w6, %r6, %lr weight_decay = 0.01 : tensor<1024x4096xf32>, tensor<1024x4096xf32>
  %r7 = prec.reduce_scatter %g7 on @dp scatter_axis = 0 reduction = <avg>
          forward_dtype = bf16 acc_dtype = f32 : tensor<4096x4096xf32> -> tensor<1024x4096xf32>
  %n7 = prec.sgd %w7, %r7, %lr weight_decay = 0.01 : tensor<1024x4096xf32>, tensor<1024x4096xf32>
  return %n0, %n1, %n2, %n3, %n4, %n5, %n6, %n7 : tensor<1024x4096xf32>, tensor<1024x4096xf32>, tensor<1024x4096xf32>, tensor<1024x4096xf32>, tensor<1024x4096xf32>, tensor<1024x4096xf32>, tensor<1024x4096xf32>, tensor<1024x4096xf32>
}
