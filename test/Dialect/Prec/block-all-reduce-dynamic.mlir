// RUN: prec-opt %s --prec-block-all-reduce=block-bytes=64 | FileCheck %s

// An all_reduce of dynamic shape is left whole: its blocks and rest are not
// known when the pass runs (prec-decompose-collectives then rejects it with
// its own message).
shard.grid @dp(shape = 4)

// CHECK-LABEL: func.func @dynamic
// CHECK-NOT: scf.for
// CHECK: prec.all_reduce %{{.*}} : tensor<?xf32> -> tensor<?xf32>
// CHECK-NOT: scf.for
func.func @dynamic(%x: tensor<?xf32>) -> tensor<?xf32> {
  %0 = prec.all_reduce %x on @dp forward_dtype = bf16 acc_dtype = f32
         : tensor<?xf32> -> tensor<?xf32>
  return %0 : tensor<?xf32>
}
