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
