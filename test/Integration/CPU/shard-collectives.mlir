// Upstream shard collectives through convert-shard-to-prec under a policy
// with a bf16 wire (and f32 accumulation, the default), on a 2x2 grid with
// groups over axes [0], [1], [0, 1] and [1, 0], against a float64 reference
// computed in Python from shard's own definitions of the collectives.
// RUN: rm -rf %t && mkdir -p %t
// RUN: prec-opt %s --convert-shard-to-prec="policy='#prec.policy<param = bf16, reduce = bf16>'" -o %t/converted.mlir
// RUN: prec-run %t/converted.mlir --output-dir %t --print none
// RUN: %python %S/Inputs/check_shard_collectives.py %t

shard.grid @grid(shape = 2x2)

func.func @step(%x: tensor<4x4xf32>)
    -> (tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x16xf32>,
        tensor<1x4xf32>, tensor<2x8xf32>, tensor<4x4xf32>) {
  %sum0 = shard.all_reduce %x on @grid grid_axes = [0]
            : tensor<4x4xf32> -> tensor<4x4xf32>
  %avg1 = shard.all_reduce %x on @grid grid_axes = [1] reduction = average
            : tensor<4x4xf32> -> tensor<4x4xf32>
  %max01 = shard.all_reduce %x on @grid grid_axes = [0, 1] reduction = max
             : tensor<4x4xf32> -> tensor<4x4xf32>
  %gather10 = shard.all_gather %x on @grid grid_axes = [1, 0] gather_axis = 1
                : tensor<4x4xf32> -> tensor<4x16xf32>
  %scatter01 = shard.reduce_scatter %x on @grid grid_axes = [0, 1]
                 scatter_axis = 0 : tensor<4x4xf32> -> tensor<1x4xf32>
  %exchange1 = shard.all_to_all %x on @grid grid_axes = [1] split_axis = 0
                 concat_axis = 1 : tensor<4x4xf32> -> tensor<2x8xf32>
  %min10 = shard.all_reduce %x on @grid grid_axes = [1, 0] reduction = min
             : tensor<4x4xf32> -> tensor<4x4xf32>
  return %sum0, %avg1, %max01, %gather10, %scatter01, %exchange1, %min10
    : tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x16xf32>,
      tensor<1x4xf32>, tensor<2x8xf32>, tensor<4x4xf32>
}
