// RUN: prec-opt %s --split-input-file --convert-shard-to-prec -verify-diagnostics
// RUN: echo "module {}" | not prec-opt --convert-shard-to-prec="policy=bf16" 2>&1 | FileCheck %s --check-prefix=OPTION

// OPTION: error: expected a #prec.policy attribute as the policy option, got 'bf16'

shard.grid @grid(shape = 4)

func.func @product(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'shard.all_reduce' op has no prec form for reduction 'product': expected sum, average, max or min}}
  %0 = shard.all_reduce %x on @grid grid_axes = [0] reduction = product : tensor<8xf32> -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

shard.grid @grid(shape = 4)

func.func @integers(%x: tensor<8xi32>) -> tensor<8xi32> {
  // expected-error @+1 {{'shard.all_reduce' op has no prec form: expected a statically shaped float tensor as its input, got 'tensor<8xi32>'}}
  %0 = shard.all_reduce %x on @grid grid_axes = [0] : tensor<8xi32> -> tensor<8xi32>
  return %0 : tensor<8xi32>
}

// -----

shard.grid @grid(shape = 4)

func.func @broadcast(%x: tensor<8xf32>) -> tensor<8xf32> {
  %root = arith.constant 0 : index
  // expected-error @+1 {{'shard.broadcast' op has no prec form: convert-shard-to-prec converts all_reduce, all_gather, reduce_scatter, all_to_all and all_slice}}
  %0 = shard.broadcast %x on @grid grid_axes = [0] root = [0] : (tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

shard.grid @grid(shape = 4)

func.func @fp8_policy(%x: tensor<8xf32>) -> tensor<32xf32>
    attributes {prec.policy = #prec.policy<param = f8E4M3FN>} {
  // expected-error @+1 {{'shard.all_gather' op cannot take 'f8E4M3FN' from the policy's 'param' entry: an fp8 collective needs a scaling mode}}
  %0 = shard.all_gather %x on @grid grid_axes = [0] gather_axis = 0 : tensor<8xf32> -> tensor<32xf32>
  return %0 : tensor<32xf32>
}

// -----

// An embedding table split on dim 0 by upstream, read in a body at global
// token ids: shard-partition leaves captured values as they are, so the body
// would read this rank's rows as if they were the whole table.
shard.grid @grid(shape = 4)

func.func @captured_shard(%table: tensor<4x8xf32>, %ids: tensor<4xi64>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  // expected-error @+1 {{'linalg.generic' op reads a tensor captured from outside its body that may differ between ranks: shard-partition does not partition captured values, so the body would index this rank's shard as the whole tensor; pass it as an operand, or gather it first}}
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%ids : tensor<4xi64>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%id: i64, %out: f32):
    %i = arith.index_cast %id : i64 to index
    %j = linalg.index 1 : index
    // expected-note @+1 {{captured here}}
    %v = tensor.extract %table[%i, %j] : tensor<4x8xf32>
    linalg.yield %v : f32
  } -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}
