// RUN: prec-opt %s --prec-block-all-reduce=block-bytes=1024 | FileCheck %s --enable-var-scope
// RUN: prec-opt %s --prec-block-all-reduce=block-bytes=0 | FileCheck %s --check-prefix=OFF
// RUN: prec-opt %s --prec-block-all-reduce=block-bytes=1024 --prec-lower-to-cpu | FileCheck %s --check-prefix=LOWER
// RUN: not prec-opt %s --prec-block-all-reduce=block-bytes=-1 2>&1 | FileCheck %s --check-prefix=NEGATIVE
// NEGATIVE: error: prec-block-all-reduce: expected block-bytes >= 0 (0: all_reduces stay whole), got -1

// OFF-NOT: scf.for

shard.grid @dp(shape = 4)
shard.grid @hsdp(shape = 2x3)
shard.grid @single(shape = 1)
shard.grid @hosts(shape = 2x2) {prec.inter_host_axes = array<i16: 0>}

// Every function lowers to LLVM after blocking.
// LOWER-LABEL: llvm.func @blocked
// LOWER-NOT: prec.
// LOWER-NOT: scf.

// 8 x 100 f32 on 4 ranks, blocks of at most 1024 bytes: 256 elements (a
// multiple of 16 x 4), three full blocks in a loop and the last 32 elements
// after it, each an all_reduce with the original's attributes.
// CHECK-LABEL: func.func @blocked
// CHECK-SAME: (%[[X:.*]]: tensor<8x100xf32>)
// CHECK: %[[FLAT:.*]] = tensor.collapse_shape %[[X]] {{\[\[}}0, 1]] : tensor<8x100xf32> into tensor<800xf32>
// CHECK: %[[INIT:.*]] = tensor.empty() : tensor<800xf32>
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[END:.*]] = arith.constant 768 : index
// CHECK-DAG: %[[STEP:.*]] = arith.constant 256 : index
// CHECK: %[[LOOP:.*]] = scf.for %[[I:.*]] = %[[C0]] to %[[END]] step %[[STEP]] iter_args(%[[ACC:.*]] = %[[INIT]])
// CHECK:   %[[BLOCK:.*]] = tensor.extract_slice %[[FLAT]][%[[I]]] [256] [1] : tensor<800xf32> to tensor<256xf32>
// CHECK:   %[[SUM:.*]] = prec.all_reduce %[[BLOCK]] on @dp forward_dtype = bf16 {{.*}}acc_dtype = f32 pre_divisor = 2.0{{.*}} post_divisor = 2.0{{.*}} : tensor<256xf32> -> tensor<256xf32>
// CHECK:   %[[INS:.*]] = tensor.insert_slice %[[SUM]] into %[[ACC]][%[[I]]] [256] [1] : tensor<256xf32> into tensor<800xf32>
// CHECK:   scf.yield %[[INS]]
// CHECK: %[[REST:.*]] = tensor.extract_slice %[[FLAT]][768] [32] [1] : tensor<800xf32> to tensor<32xf32>
// CHECK: %[[LAST:.*]] = prec.all_reduce %[[REST]] on @dp forward_dtype = bf16 {{.*}}acc_dtype = f32 pre_divisor = 2.0{{.*}} post_divisor = 2.0{{.*}} : tensor<32xf32> -> tensor<32xf32>
// CHECK: %[[ALL:.*]] = tensor.insert_slice %[[LAST]] into %[[LOOP]][768] [32] [1]
// CHECK: %[[R:.*]] = tensor.expand_shape %[[ALL]] {{\[\[}}0, 1]] output_shape [8, 100]
// CHECK: return %[[R]]
func.func @blocked(%x: tensor<8x100xf32>) -> tensor<8x100xf32> {
  %0 = prec.all_reduce %x on @dp forward_dtype = bf16
         acc_dtype = f32 pre_divisor = 2.0 post_divisor = 2.0
         : tensor<8x100xf32> -> tensor<8x100xf32>
  return %0 : tensor<8x100xf32>
}

// An average of a bf16 input into an f32 result (2 bytes: blocks of at
// most 512 elements) over a group of 3 (axis 1 of @hsdp: blocks are
// multiples of 48, 480 elements), with a count that is a multiple of the
// block: no rest.
// CHECK-LABEL: func.func @exact_multiple
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[END:.*]] = arith.constant 960 : index
// CHECK-DAG: %[[STEP:.*]] = arith.constant 480 : index
// CHECK: scf.for %{{.*}} = %[[C0]] to %[[END]] step %[[STEP]]
// CHECK:   prec.all_reduce %{{.*}} on @hsdp grid_axes = [1] reduction = <avg> {{.*}} : tensor<480xbf16> -> tensor<480xf32>
// CHECK-NOT: prec.all_reduce
// CHECK: return
func.func @exact_multiple(%x: tensor<960xbf16>) -> tensor<960xf32> {
  %0 = prec.all_reduce %x on @hsdp grid_axes = [1] reduction = <avg>
         acc_dtype = f32 : tensor<960xbf16> -> tensor<960xf32>
  return %0 : tensor<960xf32>
}

// Not cut: no larger than one block; the ring (acc_dtype is the wire
// dtype); stochastic rounding (its random bits follow the element's place);
// a group of one rank; a scaled fp8 wire (its scale is the whole tensor's);
// a bf16 all_reduce into bf16 and an f32 one with a bf16 result (the
// gathered slices are the result: no kernel writes a block in place); fp8
// partial sums between hosts (each rank's scale is its whole slice's).
// Dynamic shapes: block-all-reduce-dynamic.mlir.
// CHECK-LABEL: func.func @whole
// CHECK-NOT: scf.for
// CHECK: prec.all_reduce %{{.*}} : tensor<256xf32> -> tensor<256xf32>
// CHECK: prec.all_reduce %{{.*}} : tensor<4096xf32> -> tensor<4096xf32>
// CHECK: prec.all_reduce %{{.*}} rounding = <stochastic>{{.*}} : tensor<4096xf32> -> tensor<4096xf32>
// CHECK: prec.all_reduce %{{.*}} : tensor<4096xf32> -> tensor<4096xf32>
// CHECK: prec.all_reduce %{{.*}} scaling = <dynamic>{{.*}} : tensor<4096xf32> -> tensor<4096xf32>
// CHECK: prec.all_reduce %{{.*}} : tensor<4096xbf16> -> tensor<4096xbf16>
// CHECK: prec.all_reduce %{{.*}} : tensor<4096xf32> -> tensor<4096xbf16>
// CHECK: prec.all_reduce %{{.*}} inter_host_scaling = <dynamic> : tensor<4096xf32> -> tensor<4096xf32>
// CHECK-NOT: scf.for
func.func @whole(%small: tensor<256xf32>, %x: tensor<4096xf32>, %seed: i64,
                  %h: tensor<4096xbf16>)
    -> (tensor<256xf32>, tensor<4096xf32>, tensor<4096xf32>, tensor<4096xf32>,
        tensor<4096xf32>, tensor<4096xbf16>, tensor<4096xbf16>, tensor<4096xf32>) {
  %0 = prec.all_reduce %small on @dp forward_dtype = bf16 acc_dtype = f32
         : tensor<256xf32> -> tensor<256xf32>
  %1 = prec.all_reduce %x on @dp forward_dtype = f32 acc_dtype = f32
         : tensor<4096xf32> -> tensor<4096xf32>
  %2 = prec.all_reduce %x on @dp forward_dtype = bf16 rounding = <stochastic>
         seed %seed acc_dtype = f32 : tensor<4096xf32> -> tensor<4096xf32>
  %3 = prec.all_reduce %x on @single forward_dtype = bf16
         acc_dtype = f32 : tensor<4096xf32> -> tensor<4096xf32>
  %4 = prec.all_reduce %x on @dp forward_dtype = f8E4M3FN scaling = <dynamic>
         acc_dtype = f32 : tensor<4096xf32> -> tensor<4096xf32>
  %5 = prec.all_reduce %h on @dp acc_dtype = f32
         : tensor<4096xbf16> -> tensor<4096xbf16>
  %6 = prec.all_reduce %x on @dp forward_dtype = bf16 acc_dtype = f32
         : tensor<4096xf32> -> tensor<4096xbf16>
  %7 = prec.all_reduce %x on @hosts forward_dtype = bf16 acc_dtype = f32
         inter_host_dtype = f8E4M3FN inter_host_scaling = <dynamic>
         : tensor<4096xf32> -> tensor<4096xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7
    : tensor<256xf32>, tensor<4096xf32>, tensor<4096xf32>, tensor<4096xf32>,
      tensor<4096xf32>, tensor<4096xbf16>, tensor<4096xbf16>, tensor<4096xf32>
}
