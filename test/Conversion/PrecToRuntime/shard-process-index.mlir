// RUN: prec-opt %s --split-input-file --convert-prec-to-runtime | FileCheck %s --enable-var-scope

// The coordinates of the calling rank on a 2x3 grid, row-major: axis 1 is
// rank % 3, axis 0 is (rank / 3) % 2. The runtime checks that the world has
// the grid's 6 ranks.
// CHECK-LABEL: func.func @multi_index(
// CHECK: %[[SIZE:.*]] = arith.constant 6 : i64
// CHECK: %[[RANK64:.*]] = call @precrtCompiledGridRank(%[[SIZE]]) : (i64) -> i64
// CHECK: %[[RANK:.*]] = arith.index_castui %[[RANK64]] : i64 to index
// CHECK: %[[C1:.*]] = arith.constant 1 : index
// CHECK: %[[D1:.*]] = arith.divui %[[RANK]], %[[C1]] : index
// CHECK: %[[C3:.*]] = arith.constant 3 : index
// CHECK: %[[I1:.*]] = arith.remui %[[D1]], %[[C3]] : index
// CHECK: %[[C3B:.*]] = arith.constant 3 : index
// CHECK: %[[D0:.*]] = arith.divui %[[RANK]], %[[C3B]] : index
// CHECK: %[[C2:.*]] = arith.constant 2 : index
// CHECK: %[[I0:.*]] = arith.remui %[[D0]], %[[C2]] : index
// CHECK: %[[S1:.*]] = arith.constant 3 : index
// CHECK: %[[S0:.*]] = arith.constant 2 : index
// CHECK: return %[[I1]], %[[I0]], %[[S1]], %[[S0]]
// CHECK-NOT: shard.grid
shard.grid @grid(shape = 2x3)
func.func @multi_index() -> (index, index, index, index) {
  %i:2 = shard.process_multi_index on @grid axes = [1, 0] : index, index
  %s:2 = shard.grid_shape @grid axes = [1, 0] : index, index
  return %i#0, %i#1, %s#0, %s#1 : index, index, index, index
}

// -----

// No axes: all of them.
// CHECK-LABEL: func.func @all_axes(
// CHECK-COUNT-2: arith.remui
// CHECK-NOT: shard.
shard.grid @grid(shape = 2x2)
func.func @all_axes() -> (index, index, index, index) {
  %i:2 = shard.process_multi_index on @grid : index, index
  %s:2 = shard.grid_shape @grid : index, index
  return %i#0, %i#1, %s#0, %s#1 : index, index, index, index
}
