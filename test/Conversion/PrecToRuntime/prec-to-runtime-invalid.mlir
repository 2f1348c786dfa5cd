// RUN: prec-opt %s --convert-prec-to-runtime -verify-diagnostics

// The runtime call takes an element count and the received buffer is
// allocated here: shapes must be static.
shard.grid @dp(shape = 4)
func.func @dynamic(%x: tensor<?xf32>) -> tensor<?xf32> {
  // expected-error @+1 {{expected tensors of static shape, got 'tensor<?xf32>' -> 'tensor<?xf32>'}}
  %0 = prec.transport <all_reduce> %x on @dp reduction = <sum> : tensor<?xf32> -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

