// RUN: prec-opt %s --pass-pipeline='builtin.module(func.func(prec-plan-peer-windows))' --split-input-file | FileCheck %s --check-prefixes=CHECK,PLAN
// RUN: prec-opt %s --pass-pipeline='builtin.module(canonicalize, func.func(prec-plan-peer-windows))' --split-input-file | FileCheck %s --check-prefixes=CHECK,CANON

// Transports that fit a window: one kernel writes the wire buffer (possibly
// collapsed to it), only kernels read what arrives (an all_to_all's through
// its expansion to [N, ...]), and no other collective runs in between.
#map = affine_map<(d0) -> (d0)>
#map2 = affine_map<(d0, d1) -> (d0, d1)>
shard.grid @dp(shape = 4)
// CHECK-LABEL: func.func @all_gather
// CHECK: prec.transport <all_gather> %{{.*}} on @dp {prec.through_peer_window}
func.func @all_gather(%x: tensor<8xf32>) -> tensor<32xf32> {
  %e = tensor.empty() : tensor<8xbf16>
  %packed = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]}
      ins(%x : tensor<8xf32>) outs(%e : tensor<8xbf16>) {
  ^bb0(%in: f32, %out: bf16):
    %t = arith.truncf %in : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<8xbf16>
  %g = prec.transport <all_gather> %packed on @dp : tensor<8xbf16> -> tensor<32xbf16>
  %init = tensor.empty() : tensor<32xf32>
  %w = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]}
      ins(%g : tensor<32xbf16>) outs(%init : tensor<32xf32>) {
  ^bb0(%in: bf16, %out: f32):
    %t = arith.extf %in : bf16 to f32
    linalg.yield %t : f32
  } -> tensor<32xf32>
  return %w : tensor<32xf32>
}
// CHECK-LABEL: func.func @all_to_all_flattened
// CHECK: prec.transport <all_to_all> %{{.*}} on @dp {prec.through_peer_window}
func.func @all_to_all_flattened(%x: tensor<4x16xf32>) -> tensor<16xf32> {
  %e = tensor.empty() : tensor<4x16xbf16>
  %packed = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x16xf32>) outs(%e : tensor<4x16xbf16>) {
  ^bb0(%in: f32, %out: bf16):
    %t = arith.truncf %in : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<4x16xbf16>
  %flat = tensor.collapse_shape %packed [[0, 1]] : tensor<4x16xbf16> into tensor<64xbf16>
  %r = prec.transport <all_to_all> %flat on @dp : tensor<64xbf16> -> tensor<64xbf16>
  %chunks = tensor.expand_shape %r [[0, 1]] output_shape [4, 16] : tensor<64xbf16> into tensor<4x16xbf16>
  %init = tensor.empty() : tensor<16xf32>
  %sum = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0)>],
                         iterator_types = ["parallel", "reduction"]}
      ins(%chunks : tensor<4x16xbf16>) outs(%init : tensor<16xf32>) {
  ^bb0(%in: bf16, %acc: f32):
    %w = arith.extf %in : bf16 to f32
    %s = arith.addf %acc, %w : f32
    linalg.yield %s : f32
  } -> tensor<16xf32>
  return %sum : tensor<16xf32>
}

// -----

// Transports that do not fit, each for one reason; a mark on one of them
// is removed.
#map = affine_map<(d0) -> (d0)>
shard.grid @dp(shape = 2)
shard.grid @rows(shape = 1x2)
// CHECK-LABEL: func.func @returned
// CHECK-NOT: prec.through_peer_window
// CHECK-LABEL: func.func @argument
func.func @returned(%x: tensor<8xf32>) -> tensor<16xbf16> {
  %e = tensor.empty() : tensor<8xbf16>
  %packed = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]}
      ins(%x : tensor<8xf32>) outs(%e : tensor<8xbf16>) {
  ^bb0(%in: f32, %out: bf16):
    %t = arith.truncf %in : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<8xbf16>
  // A received tensor that is returned outlives its window's slot.
  %g = prec.transport <all_gather> %packed on @dp {prec.through_peer_window} : tensor<8xbf16> -> tensor<16xbf16>
  return %g : tensor<16xbf16>
}
// CHECK-NOT: prec.through_peer_window
// CHECK-LABEL: func.func @read_after_collective
func.func @argument(%x: tensor<8xbf16>) -> tensor<16xf32> {
  // No kernel writes the wire buffer.
  %g = prec.transport <all_gather> %x on @dp : tensor<8xbf16> -> tensor<16xbf16>
  %init = tensor.empty() : tensor<16xf32>
  %w = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]}
      ins(%g : tensor<16xbf16>) outs(%init : tensor<16xf32>) {
  ^bb0(%in: bf16, %out: f32):
    %t = arith.extf %in : bf16 to f32
    linalg.yield %t : f32
  } -> tensor<16xf32>
  return %w : tensor<16xf32>
}
// CHECK-NOT: prec.through_peer_window
// CHECK-LABEL: func.func @read_in_loop
func.func @read_after_collective(%x: tensor<8xf32>, %y: tensor<8xbf16>) -> (tensor<16xf32>, tensor<16xbf16>) {
  %e = tensor.empty() : tensor<8xbf16>
  %packed = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]}
      ins(%x : tensor<8xf32>) outs(%e : tensor<8xbf16>) {
  ^bb0(%in: f32, %out: bf16):
    %t = arith.truncf %in : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<8xbf16>
  %g = prec.transport <all_gather> %packed on @dp : tensor<8xbf16> -> tensor<16xbf16>
  // The peers may rewrite the slot of %g once every rank is past this
  // collective: a read after it could see their next values.
  %other = prec.transport <all_gather> %y on @dp : tensor<8xbf16> -> tensor<16xbf16>
  %init = tensor.empty() : tensor<16xf32>
  %w = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]}
      ins(%g : tensor<16xbf16>) outs(%init : tensor<16xf32>) {
  ^bb0(%in: bf16, %out: f32):
    %t = arith.extf %in : bf16 to f32
    linalg.yield %t : f32
  } -> tensor<16xf32>
  return %w, %other : tensor<16xf32>, tensor<16xbf16>
}
// CHECK-NOT: prec.through_peer_window
// CHECK-LABEL: func.func @copied
func.func @read_in_loop(%x: tensor<8xf32>, %n: index) -> tensor<16xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %e = tensor.empty() : tensor<8xbf16>
  %packed = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]}
      ins(%x : tensor<8xf32>) outs(%e : tensor<8xbf16>) {
  ^bb0(%in: f32, %out: bf16):
    %t = arith.truncf %in : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<8xbf16>
  %g = prec.transport <all_gather> %packed on @dp : tensor<8xbf16> -> tensor<16xbf16>
  %init = tensor.empty() : tensor<16xf32>
  // A reader in another block: the loop may run a collective before it.
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %init) -> tensor<16xf32> {
    %w = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]}
        ins(%g : tensor<16xbf16>) outs(%acc : tensor<16xf32>) {
    ^bb0(%in: bf16, %out: f32):
      %t = arith.extf %in : bf16 to f32
      %s = arith.addf %t, %out : f32
      linalg.yield %s : f32
    } -> tensor<16xf32>
    scf.yield %w : tensor<16xf32>
  }
  return %r : tensor<16xf32>
}
// CHECK-NOT: prec.through_peer_window
// CHECK-LABEL: func.func @all_reduce
func.func @copied(%x: tensor<8xf32>) -> tensor<16xbf16> {
  %e = tensor.empty() : tensor<8xbf16>
  %packed = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]}
      ins(%x : tensor<8xf32>) outs(%e : tensor<8xbf16>) {
  ^bb0(%in: f32, %out: bf16):
    %t = arith.truncf %in : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<8xbf16>
  %g = prec.transport <all_gather> %packed on @dp : tensor<8xbf16> -> tensor<16xbf16>
  // A kernel that only moves data may be removed or folded into its
  // readers later: the view would outlive the reads seen here.
  %init = tensor.empty() : tensor<16xbf16>
  %copy = linalg.copy ins(%g : tensor<16xbf16>) outs(%init : tensor<16xbf16>) -> tensor<16xbf16>
  return %copy : tensor<16xbf16>
}
// CHECK-NOT: prec.through_peer_window
// CHECK-LABEL: func.func @one_rank
func.func @all_reduce(%x: tensor<8xf32>) -> tensor<8xf32> {
  // Only gathers and all_to_alls go through windows.
  %e = tensor.empty() : tensor<8xbf16>
  %packed = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]}
      ins(%x : tensor<8xf32>) outs(%e : tensor<8xbf16>) {
  ^bb0(%in: f32, %out: bf16):
    %t = arith.truncf %in : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<8xbf16>
  %s = prec.transport <all_reduce> %packed on @dp reduction = <sum> : tensor<8xbf16> -> tensor<8xbf16>
  %init = tensor.empty() : tensor<8xf32>
  %w = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]}
      ins(%s : tensor<8xbf16>) outs(%init : tensor<8xf32>) {
  ^bb0(%in: bf16, %out: f32):
    %t = arith.extf %in : bf16 to f32
    linalg.yield %t : f32
  } -> tensor<8xf32>
  return %w : tensor<8xf32>
}
// CHECK-NOT: prec.through_peer_window
// CHECK: return
func.func @one_rank(%x: tensor<8xf32>) -> tensor<8xf32> {
  // A group of one rank (axis 0 of a 1x2 grid) has no peers.
  %e = tensor.empty() : tensor<8xbf16>
  %packed = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]}
      ins(%x : tensor<8xf32>) outs(%e : tensor<8xbf16>) {
  ^bb0(%in: f32, %out: bf16):
    %t = arith.truncf %in : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<8xbf16>
  %g = prec.transport <all_gather> %packed on @rows grid_axes = [0] : tensor<8xbf16> -> tensor<8xbf16>
  %init = tensor.empty() : tensor<8xf32>
  %w = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]}
      ins(%g : tensor<8xbf16>) outs(%init : tensor<8xf32>) {
  ^bb0(%in: bf16, %out: f32):
    %t = arith.extf %in : bf16 to f32
    linalg.yield %t : f32
  } -> tensor<8xf32>
  return %w : tensor<8xf32>
}

// -----

// A kernel whose body folds to a copy (bf16 -> f32 -> bf16 is exact). The
// readers are judged as they are: on its own the pass takes it for a kernel,
// after the canonicalizer (as prec-lower-to-cpu runs it) the kernel is gone
// and the gathered tensor is returned.
#map = affine_map<(d0) -> (d0)>
shard.grid @dp(shape = 2)
// CHECK-LABEL: func.func @folded_copy
// PLAN: prec.transport <all_gather> %{{.*}} on @dp {prec.through_peer_window}
// CANON-NOT: prec.through_peer_window
// CANON: return
func.func @folded_copy(%x: tensor<8xf32>) -> tensor<16xbf16> {
  %e = tensor.empty() : tensor<8xbf16>
  %packed = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]}
      ins(%x : tensor<8xf32>) outs(%e : tensor<8xbf16>) {
  ^bb0(%in: f32, %out: bf16):
    %t = arith.truncf %in : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<8xbf16>
  %g = prec.transport <all_gather> %packed on @dp : tensor<8xbf16> -> tensor<16xbf16>
  %init = tensor.empty() : tensor<16xbf16>
  %copy = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]}
      ins(%g : tensor<16xbf16>) outs(%init : tensor<16xbf16>) {
  ^bb0(%in: bf16, %out: bf16):
    %w = arith.extf %in : bf16 to f32
    %n = arith.truncf %w : f32 to bf16
    linalg.yield %n : bf16
  } -> tensor<16xbf16>
  return %copy : tensor<16xbf16>
}
