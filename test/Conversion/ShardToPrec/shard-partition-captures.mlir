// RUN: prec-opt %s --pass-pipeline='builtin.module(func.func(sharding-propagation,shard-partition),convert-shard-to-prec)' -verify-diagnostics

// Through upstream's passes: an embedding table split on dim 0, read in a
// linalg body at global token ids. shard-partition gives the function this
// rank's rows and leaves the body's read as it is; convert-shard-to-prec
// rejects it at the op.
shard.grid @grid(shape = 4)

func.func @embed(%table: tensor<16x8xf32>, %ids: tensor<4xi64>) -> tensor<4x8xf32> {
  %rows = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %replicated = shard.sharding @grid split_axes = [[]] : !shard.sharding
  %split = shard.shard %table to %rows : tensor<16x8xf32>
  %all_ids = shard.shard %ids to %replicated annotate_for_users : tensor<4xi64>
  %e = tensor.empty() : tensor<4x8xf32>
  // expected-error @+1 {{'linalg.generic' op reads a tensor captured from outside its body that may differ between ranks}}
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%all_ids : tensor<4xi64>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%id: i64, %out: f32):
    %i = arith.index_cast %id : i64 to index
    %j = linalg.index 1 : index
    // expected-note @+1 {{captured here}}
    %v = tensor.extract %split[%i, %j] : tensor<16x8xf32>
    linalg.yield %v : f32
  } -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}
