// RUN: prec-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(prec-schedule-transports))' | FileCheck %s --check-prefixes=CHECK,AHEAD1
// RUN: prec-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(prec-schedule-transports{prefetch=2}))' | FileCheck %s --check-prefixes=CHECK,AHEAD2
// RUN: prec-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(prec-schedule-transports{prefetch=0}))' | FileCheck %s --check-prefixes=CHECK,AHEAD0
// RUN: not prec-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(prec-schedule-transports{prefetch=-1}))' 2>&1 | FileCheck %s --check-prefix=NEGATIVE

// Three layers whose gathers the program issues up front. With the budget of
// one, each gather starts when the one before is waited for, so it moves
// while the layer before computes; with two, two are in flight from the
// start; with none, every start stays where its transport was.

// NEGATIVE: prec-schedule-transports: expected prefetch >= 0, got -1

shard.grid @dp(shape = 4)

// CHECK-LABEL: func @layers
func.func @layers(%w0: tensor<8xbf16>, %w1: tensor<8xbf16>, %w2: tensor<8xbf16>,
                  %x: tensor<32xbf16>) -> tensor<32xbf16> {
  %g0 = prec.transport <all_gather> %w0 on @dp : tensor<8xbf16> -> tensor<32xbf16>
  %g1 = prec.transport <all_gather> %w1 on @dp : tensor<8xbf16> -> tensor<32xbf16>
  %g2 = prec.transport <all_gather> %w2 on @dp : tensor<8xbf16> -> tensor<32xbf16>
  %h0 = arith.mulf %x, %g0 : tensor<32xbf16>
  %h1 = arith.mulf %h0, %g1 : tensor<32xbf16>
  %h2 = arith.mulf %h1, %g2 : tensor<32xbf16>
  return %h2 : tensor<32xbf16>
}
// AHEAD1:      %[[S0:.*]] = prec.transport_start <all_gather> %arg0
// AHEAD1-NEXT: %[[G0:.*]] = prec.transport_wait %[[S0]]
// AHEAD1-NEXT: %[[S1:.*]] = prec.transport_start <all_gather> %arg1
// AHEAD1-NEXT: %[[H0:.*]] = arith.mulf %arg3, %[[G0]]
// AHEAD1-NEXT: %[[G1:.*]] = prec.transport_wait %[[S1]]
// AHEAD1-NEXT: %[[S2:.*]] = prec.transport_start <all_gather> %arg2
// AHEAD1-NEXT: %[[H1:.*]] = arith.mulf %[[H0]], %[[G1]]
// AHEAD1-NEXT: %[[G2:.*]] = prec.transport_wait %[[S2]]
// AHEAD1-NEXT: arith.mulf %[[H1]], %[[G2]]

// AHEAD2:      %[[S0:.*]] = prec.transport_start <all_gather> %arg0
// AHEAD2-NEXT: %[[S1:.*]] = prec.transport_start <all_gather> %arg1
// AHEAD2-NEXT: %[[G0:.*]] = prec.transport_wait %[[S0]]
// AHEAD2-NEXT: %[[S2:.*]] = prec.transport_start <all_gather> %arg2
// AHEAD2-NEXT: %[[H0:.*]] = arith.mulf %arg3, %[[G0]]
// AHEAD2-NEXT: %[[G1:.*]] = prec.transport_wait %[[S1]]
// AHEAD2-NEXT: %[[H1:.*]] = arith.mulf %[[H0]], %[[G1]]
// AHEAD2-NEXT: %[[G2:.*]] = prec.transport_wait %[[S2]]
// AHEAD2-NEXT: arith.mulf %[[H1]], %[[G2]]

// AHEAD0:      prec.transport_start <all_gather> %arg0
// AHEAD0-NEXT: prec.transport_start <all_gather> %arg1
// AHEAD0-NEXT: prec.transport_start <all_gather> %arg2
// AHEAD0-NEXT: prec.transport_wait
// AHEAD0-NEXT: arith.mulf

// -----

// Gradients: each reduce_scatter starts, with the kernel that packs its
// wire buffer, as soon as its gradient exists, and is waited for where the
// optimizer reads it. The pack of %g1 stays below the call it needs.

shard.grid @dp(shape = 4)
func.func private @opaque(tensor<64xf32>) -> tensor<64xf32>

// CHECK-LABEL: func @gradients
func.func @gradients(%a: tensor<64xf32>, %b: tensor<64xf32>)
    -> (tensor<16xf32>, tensor<16xf32>) {
  %g0 = arith.mulf %a, %a : tensor<64xf32>
  %c = func.call @opaque(%b) : (tensor<64xf32>) -> tensor<64xf32>
  %g1 = arith.mulf %c, %b : tensor<64xf32>
  %p0 = arith.truncf %g0 : tensor<64xf32> to tensor<64xbf16>
  %r0 = prec.transport <reduce_scatter> %p0 on @dp reduction = <sum> : tensor<64xbf16> -> tensor<16xbf16>
  %p1 = arith.truncf %g1 : tensor<64xf32> to tensor<64xbf16>
  %r1 = prec.transport <reduce_scatter> %p1 on @dp reduction = <sum> : tensor<64xbf16> -> tensor<16xbf16>
  %u0 = arith.extf %r0 : tensor<16xbf16> to tensor<16xf32>
  %u1 = arith.extf %r1 : tensor<16xbf16> to tensor<16xf32>
  return %u0, %u1 : tensor<16xf32>, tensor<16xf32>
}
// CHECK:      %[[G0:.*]] = arith.mulf %arg0, %arg0
// CHECK-NEXT: %[[P0:.*]] = arith.truncf %[[G0]]
// CHECK-NEXT: %[[S0:.*]] = prec.transport_start <reduce_scatter> %[[P0]]
// CHECK-NEXT: %[[C:.*]] = call @opaque(%arg1)
// CHECK-NEXT: %[[G1:.*]] = arith.mulf %[[C]], %arg1
// CHECK-NEXT: %[[P1:.*]] = arith.truncf %[[G1]]
// CHECK-NEXT: %[[S1:.*]] = prec.transport_start <reduce_scatter> %[[P1]]
// CHECK-NEXT: %[[R0:.*]] = prec.transport_wait %[[S0]]
// CHECK-NEXT: arith.extf %[[R0]]
// CHECK-NEXT: %[[R1:.*]] = prec.transport_wait %[[S1]]
// CHECK-NEXT: arith.extf %[[R1]]

// -----

// A result nothing reads before the block ends is waited for at its
// terminator; a transport planned for a peer window keeps its place, whole.

shard.grid @dp(shape = 4)

// CHECK-LABEL: func @returned
func.func @returned(%w: tensor<8xbf16>, %v: tensor<8xbf16>, %x: tensor<32xbf16>)
    -> (tensor<32xbf16>, tensor<32xbf16>, tensor<32xbf16>) {
  %g = prec.transport <all_gather> %w on @dp : tensor<8xbf16> -> tensor<32xbf16>
  %h = prec.transport <all_gather> %v on @dp {prec.through_peer_window} : tensor<8xbf16> -> tensor<32xbf16>
  %y = arith.mulf %x, %h : tensor<32xbf16>
  return %g, %h, %y : tensor<32xbf16>, tensor<32xbf16>, tensor<32xbf16>
}
// CHECK:      %[[S:.*]] = prec.transport_start <all_gather> %arg0
// CHECK-NEXT: %[[H:.*]] = prec.transport <all_gather> %arg1 on @dp {prec.through_peer_window}
// CHECK-NEXT: %[[Y:.*]] = arith.mulf %arg2, %[[H]]
// CHECK-NEXT: %[[G:.*]] = prec.transport_wait %[[S]]
// CHECK-NEXT: return %[[G]], %[[H]], %[[Y]]

// -----

// Inside a loop the schedule is the loop body's own.

shard.grid @dp(shape = 4)

// CHECK-LABEL: func @loop
func.func @loop(%w: tensor<8xbf16>, %x: tensor<32xbf16>) -> tensor<32xbf16> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %x) -> tensor<32xbf16> {
    %g = prec.transport <all_gather> %w on @dp : tensor<8xbf16> -> tensor<32xbf16>
    %y = arith.addf %acc, %acc : tensor<32xbf16>
    %z = arith.mulf %y, %g : tensor<32xbf16>
    scf.yield %z : tensor<32xbf16>
  }
  return %r : tensor<32xbf16>
}
// CHECK:      scf.for
// CHECK-NEXT:   %[[S:.*]] = prec.transport_start <all_gather> %arg0
// CHECK-NEXT:   %[[Y:.*]] = arith.addf
// CHECK-NEXT:   %[[G:.*]] = prec.transport_wait %[[S]]
// CHECK-NEXT:   arith.mulf %[[Y]], %[[G]]

// -----

// The reshapes and slices a result is read through move down to their
// readers, and the wait with them.

shard.grid @dp(shape = 4)

// CHECK-LABEL: func @views
func.func @views(%w: tensor<8xbf16>, %x: tensor<4x8xbf16>) -> (tensor<4x8xbf16>, tensor<16xbf16>) {
  %g = prec.transport <all_gather> %w on @dp : tensor<8xbf16> -> tensor<32xbf16>
  %m = tensor.expand_shape %g [[0, 1]] output_shape [4, 8] : tensor<32xbf16> into tensor<4x8xbf16>
  %s = tensor.extract_slice %g[16] [16] [1] : tensor<32xbf16> to tensor<16xbf16>
  %y = arith.addf %x, %x : tensor<4x8xbf16>
  %z = arith.mulf %y, %m : tensor<4x8xbf16>
  return %z, %s : tensor<4x8xbf16>, tensor<16xbf16>
}
// CHECK:      %[[S:.*]] = prec.transport_start <all_gather> %arg0
// CHECK-NEXT: %[[Y:.*]] = arith.addf
// CHECK-NEXT: %[[G:.*]] = prec.transport_wait %[[S]]
// CHECK-NEXT: %[[M:.*]] = tensor.expand_shape %[[G]]
// CHECK-NEXT: arith.mulf %[[Y]], %[[M]]
// CHECK-NEXT: tensor.extract_slice %[[G]][16] [16] [1]
// CHECK-NEXT: return

// -----

// Two levels. A gather's second level moves down with the unpacking to the
// layer that reads it, so that its first level is waited for there and the
// budget holds the next layer's first level to one ahead. A reduction's
// second level starts as soon as its first has delivered: that wait goes
// before the next start, after the compute between them.

shard.grid @hosts(shape = 2x2) {prec.inter_host_axes = array<i16: 0>}

// CHECK-LABEL: func @two_level
func.func @two_level(%w0: tensor<8xbf16>, %w1: tensor<8xbf16>, %x: tensor<32xbf16>,
                     %g0: tensor<32xf32>, %g1: tensor<32xf32>)
    -> (tensor<32xbf16>, tensor<8xf32>, tensor<8xf32>) {
  %a0 = prec.transport <all_gather> %w0 on @hosts grid_axes = [0] : tensor<8xbf16> -> tensor<16xbf16>
  %b0 = prec.transport <all_gather> %a0 on @hosts grid_axes = [1] : tensor<16xbf16> -> tensor<32xbf16>
  %a1 = prec.transport <all_gather> %w1 on @hosts grid_axes = [0] : tensor<8xbf16> -> tensor<16xbf16>
  %b1 = prec.transport <all_gather> %a1 on @hosts grid_axes = [1] : tensor<16xbf16> -> tensor<32xbf16>
  %h0 = arith.mulf %x, %b0 : tensor<32xbf16>
  %h1 = arith.mulf %h0, %b1 : tensor<32xbf16>
  %r0 = prec.transport <reduce_scatter> %g0 on @hosts grid_axes = [1] reduction = <sum> : tensor<32xf32> -> tensor<16xf32>
  %s0 = prec.transport <reduce_scatter> %r0 on @hosts grid_axes = [0] reduction = <sum> : tensor<16xf32> -> tensor<8xf32>
  %d1 = arith.addf %g1, %g1 : tensor<32xf32>
  %r1 = prec.transport <reduce_scatter> %d1 on @hosts grid_axes = [1] reduction = <sum> : tensor<32xf32> -> tensor<16xf32>
  %s1 = prec.transport <reduce_scatter> %r1 on @hosts grid_axes = [0] reduction = <sum> : tensor<16xf32> -> tensor<8xf32>
  return %h1, %s0, %s1 : tensor<32xbf16>, tensor<8xf32>, tensor<8xf32>
}
// The reductions' inputs are arguments: they start first, in order; the
// first one's first level is waited for before the second one starts, after
// the addition between them.
// AHEAD1:      %[[R0:.*]] = prec.transport_start <reduce_scatter> %arg3 on @hosts grid_axes = [1]
// AHEAD1-NEXT: %[[D1:.*]] = arith.addf %arg4, %arg4
// AHEAD1-NEXT: %[[WR0:.*]] = prec.transport_wait %[[R0]]
// AHEAD1-NEXT: %[[S0:.*]] = prec.transport_start <reduce_scatter> %[[WR0]] on @hosts grid_axes = [0]
// AHEAD1-NEXT: %[[R1:.*]] = prec.transport_start <reduce_scatter> %[[D1]] on @hosts grid_axes = [1]
// AHEAD1-NEXT: %[[WR1:.*]] = prec.transport_wait %[[R1]]
// AHEAD1-NEXT: %[[S1:.*]] = prec.transport_start <reduce_scatter> %[[WR1]] on @hosts grid_axes = [0]
// AHEAD1-NEXT: %[[A0:.*]] = prec.transport_start <all_gather> %arg0 on @hosts grid_axes = [0]
// AHEAD1-NEXT: %[[WA0:.*]] = prec.transport_wait %[[A0]]
// AHEAD1-NEXT: %[[B0:.*]] = prec.transport_start <all_gather> %[[WA0]] on @hosts grid_axes = [1]
// AHEAD1-NEXT: %[[WB0:.*]] = prec.transport_wait %[[B0]]
// AHEAD1-NEXT: %[[A1:.*]] = prec.transport_start <all_gather> %arg1 on @hosts grid_axes = [0]
// AHEAD1-NEXT: %[[H0:.*]] = arith.mulf %arg2, %[[WB0]]
// AHEAD1-NEXT: %[[WA1:.*]] = prec.transport_wait %[[A1]]
// AHEAD1-NEXT: %[[B1:.*]] = prec.transport_start <all_gather> %[[WA1]] on @hosts grid_axes = [1]
// AHEAD1-NEXT: %[[WB1:.*]] = prec.transport_wait %[[B1]]
// AHEAD1-NEXT: arith.mulf %[[H0]], %[[WB1]]
// AHEAD1-NEXT: prec.transport_wait %[[S0]]
// AHEAD1-NEXT: prec.transport_wait %[[S1]]

// -----

// A gather of values computed from a reduction's result is not the
// reduction's next level: the gathers keep their order and budget.

shard.grid @dp(shape = 4)

// CHECK-LABEL: func @gather_of_update
func.func @gather_of_update(%w: tensor<32xbf16>, %v: tensor<8xbf16>, %x: tensor<32xbf16>) -> (tensor<32xbf16>, tensor<32xbf16>) {
  %a = prec.transport <all_gather> %v on @dp : tensor<8xbf16> -> tensor<32xbf16>
  %y = arith.mulf %x, %a : tensor<32xbf16>
  %r = prec.transport <reduce_scatter> %w on @dp reduction = <sum> : tensor<32xbf16> -> tensor<8xbf16>
  %upd = arith.negf %r : tensor<8xbf16>
  %b = prec.transport <all_gather> %upd on @dp : tensor<8xbf16> -> tensor<32xbf16>
  %z = arith.mulf %y, %b : tensor<32xbf16>
  return %y, %z : tensor<32xbf16>, tensor<32xbf16>
}
// CHECK: prec.transport_start <all_gather> %arg1
// CHECK: %[[R:.*]] = prec.transport_wait
// CHECK: %[[U:.*]] = arith.negf
// CHECK: prec.transport_start <all_gather> %[[U]]
