// The optimizer half of an FSDP step whose gradients share buckets: 16
// layers of 1024 x 1024 f32 master weights on 4 ranks (a 256 x 1024 shard
// each), reduce-scattered with a bf16 wire and an f32 sum and applied by
// SGD. prec-bucket-collectives puts them in two buckets (at most 25 MiB of
// wire each), larger than a block of prec-block-reduce-scatter: the
// buckets are cut alone and the optimizers read the reduced buckets after
// the loops. docs/performance.md, "Fused optimizer on large shards".
shard.grid @dp(shape = 4)
func.func @step(%w0: tensor<256x1024xf32>, %g0: tensor<1024x1024xf32>, %w1: tensor<256x1024xf32>, %g1: tensor<1024x1024xf32>, %w2: tensor<256x1024xf32>, %g2: tensor<1024x1024xf32>, %w3: tensor<256x1024xf32>, %g3: tensor<1024x1024xf32>, %w4: tensor<256x1024xf32>, %g4: tensor<1024x1024xf32>, %w5: tensor<256x1024xf32>, %g5: tensor<1024x1024xf32>, %w6: tensor<256x1024xf32>, %g6: tensor<1024x1024xf32>, %w7: tensor<256x1024xf32>, %g7: tensor<1024x1024xf32>, %w8: tensor<256x1024xf32>, %g8: tensor<1024x1024xf32>, %w9: tensor<256x1024xf32>, %g9: tensor<1024x1024xf32>, %w10: tensor<256x1024xf32>, %g10: tensor<1024x1024xf32>, %w11: tensor<256x1024xf32>, %g11: tensor<1024x1024xf32>, %w12: tensor<256x1024xf32>, %g12: tensor<1024x1024xf32>, %w13: tensor<256x1024xf32>, %g13: tensor<1024x1024xf32>, %w14: tensor<256x1024xf32>, %g14: tensor<1024x1024xf32>, %w15: tensor<256x1024xf32>, %g15: tensor<1024x1024xf32>, %lr: f32) -> (tensor<256x1024xf32>, tensor<256x1024xf32>, tensor<256x1024xf32>, tensor<256x1024xf32>, tensor<256x1024xf32>, tensor<256x1024xf32>, tensor<256x1024xf32>, tensor<256x1024xf32>, tensor<256x1024xf32>, tensor<256x1024xf32>, tensor<256x1024xf32>, tensor<256x1024xf32>, tensor<256x1024xf32>, tensor<256x1024xf32>, tensor<256x1024xf32>, tensor<256x1024xf32>) {
  %r0 = prec.reduce_scatter %g0 on @dp scatter_axis = 0 reduction = <avg> forward_dtype = bf16 acc_dtype = f32 : tensor<1024x1024xf32> -> tensor<256x1024xf32>
  %n0 = prec.sgd %w0, %r0, %lr weight_decay = 0.01 : tensor<256x1024xf32>, tensor<256x1024xf32>
  %r1 = prec.reduce_scatter %g1 on @dp scatter_axis = 0 reduction = <avg> forward_dtype = bf16 acc_dtype = f32 : tensor<1024x1024xf32> -> tensor<256x1024xf32>
  %n1 = prec.sgd %w1, %r1, %lr weight_decay = 0.01 : tensor<256x1024xf32>, tensor<256x1024xf32>
  %r2 = prec.reduce_scatter %g2 on @dp scatter_axis = 0 reduction = <avg> forward_dtype = bf16 acc_dtype = f32 : tensor<1024x1024xf32> -> tensor<256x1024xf32>
  %n2 = prec.sgd %w2, %r2, %lr weight_decay = 0.01 : tensor<256x1024xf32>, tensor<256x1024xf32>
  %r3 = prec.reduce_scatter %g3 on @dp scatter_axis = 0 reduction = <avg> forward_dtype = bf16 acc_dtype = f32 : tensor<1024x1024xf32> -> tensor<256x1024xf32>
  %n3 = prec.sgd %w3, %r3, %lr weight_decay = 0.01 : tensor<256x1024xf32>, tensor<256x1024xf32>
  %r4 = prec.reduce_scatter %g4 on @dp scatter_axis = 0 reduction = <avg> forward_dtype = bf16 acc_dtype = f32 : tensor<1024x1024xf32> -> tensor<256x1024xf32>
  %n4 = prec.sgd %w4, %r4, %lr weight_decay = 0.01 : tensor<256x1024xf32>, tensor<256x1024xf32>
  %r5 = prec.reduce_scatter %g5 on @dp scatter_axis = 0 reduction = <avg> forward_dtype = bf16 acc_dtype = f32 : tensor<1024x1024xf32> -> tensor<256x1024xf32>
  %n5 = prec.sgd %w5, %r5, %lr weight_decay = 0.01 : tensor<256x1024xf32>, tensor<256x1024xf32>
  %r6 = prec.reduce_scatter %g6 on @dp scatter_axis = 0 reduction = <avg> forward_dtype = bf16 acc_dtype = f32 : tensor<1024x1024xf32> -> tensor<256x1024xf32>
  %n6 = prec.sgd %w6, %r6, %lr weight_decay = 0.01 : tensor<256x1024xf32>, tensor<256x1024xf32>
  %r7 = prec.reduce_scatter %g7 on @dp scatter_axis = 0 reduction = <avg> forward_dtype = bf16 acc_dtype = f32 : tensor<1024x1024xf32> -> tensor<256x1024xf32>
  %n7 = prec.sgd %w7, %r7, %lr weight_decay = 0.01 : tensor<256x1024xf32>, tensor<256x1024xf32>
  %r8 = prec.reduce_scatter %g8 on @dp scatter_axis = 0 reduction = <avg> forward_dtype = bf16 acc_dtype = f32 : tensor<1024x1024xf32> -> tensor<256x1024xf32>
  %n8 = prec.sgd %w8, %r8, %lr weight_decay = 0.01 : tensor<256x1024xf32>, tensor<256x1024xf32>
  %r9 = prec.reduce_scatter %g9 on @dp scatter_axis = 0 reduction = <avg> forward_dtype = bf16 acc_dtype = f32 : tensor<1024x1024xf32> -> tensor<256x1024xf32>
  %n9 = prec.sgd %w9, %r9, %lr weight_decay = 0.01 : tensor<256x1024xf32>, tensor<256x1024xf32>
  %r10 = prec.reduce_scatter %g10 on @dp scatter_axis = 0 reduction = <avg> forward_dtype = bf16 acc_dtype = f32 : tensor<1024x1024xf32> -> tensor<256x1024xf32>
  %n10 = prec.sgd %w10, %r10, %lr weight_decay = 0.01 : tensor<256x1024xf32>, tensor<256x1024xf32>
  %r11 = prec.reduce_scatter %g11 on @dp scatter_axis = 0 reduction = <avg> forward_dtype = bf16 acc_dtype = f32 : tensor<1024x1024xf32> -> tensor<256x1024xf32>
  %n11 = prec.sgd %w11, %r11, %lr weight_decay = 0.01 : tensor<256x1024xf32>, tensor<256x1024xf32>
  %r12 = prec.reduce_scatter %g12 on @dp scatter_axis = 0 reduction = <avg> forward_dtype = bf16 acc_dtype = f32 : tensor<1024x1024xf32> -> tensor<256x1024xf32>
  %n12 = prec.sgd %w12, %r12, %lr weight_decay = 0.01 : tensor<256x1024xf32>, tensor<256x1024xf32>
  %r13 = prec.reduce_scatter %g13 on @dp scatter_axis = 0 reduction = <avg> forward_dtype = bf16 acc_dtype = f32 : tensor<1024x1024xf32> -> tensor<256x1024xf32>
  %n13 = prec.sgd %w13, %r13, %lr weight_decay = 0.01 : tensor<256x1024xf32>, tensor<256x1024xf32>
  %r14 = prec.reduce_scatter %g14 on @dp scatter_axis = 0 reduction = <avg> forward_dtype = bf16 acc_dtype = f32 : tensor<1024x1024xf32> -> tensor<256x1024xf32>
  %n14 = prec.sgd %w14, %r14, %lr weight_decay = 0.01 : tensor<256x1024xf32>, tensor<256x1024xf32>
  %r15 = prec.reduce_scatter %g15 on @dp scatter_axis = 0 reduction = <avg> forward_dtype = bf16 acc_dtype = f32 : tensor<1024x1024xf32> -> tensor<256x1024xf32>
  %n15 = prec.sgd %w15, %r15, %lr weight_decay = 0.01 : tensor<256x1024xf32>, tensor<256x1024xf32>
  return %n0, %n1, %n2, %n3, %n4, %n5, %n6, %n7, %n8, %n9, %n10, %n11, %n12, %n13, %n14, %n15 : tensor<256x1024xf32>, tensor<256x1024xf32>, tensor<256x1024xf32>, tensor<256x1024xf32>, tensor<256x1024xf32>, tensor<256x1024xf32>, tensor<256x1024xf32>, tensor<256x1024xf32>, tensor<256x1024xf32>, tensor<256x1024xf32>, tensor<256x1024xf32>, tensor<256x1024xf32>, tensor<256x1024xf32>, tensor<256x1024xf32>, tensor<256x1024xf32>, tensor<256x1024xf32>
}
