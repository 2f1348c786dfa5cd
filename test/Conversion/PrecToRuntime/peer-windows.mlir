// RUN: prec-opt %s --pass-pipeline="builtin.module(canonicalize, func.func(prec-plan-peer-windows), convert-prec-to-runtime)" --split-input-file | FileCheck %s
// RUN: prec-opt %s --convert-prec-to-runtime --split-input-file | FileCheck %s --check-prefix=OFF

// A direct reduce-scatter's all_to_all: the pack kernel writes its segment of
// the window, the fence replaces the transport, and the sum reads block
// `rank` of every segment in place.
#map = affine_map<(d0) -> (d0)>
shard.grid @dp(shape = 4)
func.func @all_to_all(%x: tensor<64xf32>) -> tensor<16xf32> {
  %e = tensor.empty() : tensor<64xbf16>
  %packed = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]}
      ins(%x : tensor<64xf32>) outs(%e : tensor<64xbf16>) {
  ^bb0(%in: f32, %out: bf16):
    %t = arith.truncf %in : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<64xbf16>
  %r = prec.transport <all_to_all> %packed on @dp : tensor<64xbf16> -> tensor<64xbf16>
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
// CHECK-DAG: func.func private @precrtCompiledWindow(i64, i32, index, i32, index) -> !llvm.ptr
// CHECK-DAG: func.func private @precrtCompiledGroupRank(i32, index, i32, index) -> i64
// CHECK-DAG: func.func private @precrtCompiledWindowFence(i32, index, i64, i32, i32, index, i32, index) -> i32
// CHECK-LABEL: func.func @all_to_all
// CHECK-NOT: precrtCompiledCollective
// CHECK: %[[PTR:.*]] = call @precrtCompiledWindow(%c128_i64,
// CHECK: %[[BYTES:.*]] = builtin.unrealized_conversion_cast %{{.*}} : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> to memref<512xi8>
// CHECK: %[[RANK64:.*]] = call @precrtCompiledGroupRank(
// CHECK: %[[RANK:.*]] = arith.index_cast %[[RANK64]]
// CHECK: %[[SLOT:.*]] = memref.view %[[BYTES]][%{{.*}}][] : memref<512xi8> to memref<4x64xbf16>
// CHECK: %[[OWN:.*]] = memref.subview %[[SLOT]][%[[RANK]], 0] [1, 64] [1, 1]
// CHECK: %[[DEST:.*]] = bufferization.to_tensor %[[OWN]] restrict writable
// CHECK: %[[PACKED:.*]] = linalg.generic {{.*}} outs(%[[DEST]] : tensor<64xbf16>)
// CHECK: bufferization.materialize_in_destination %[[PACKED]] in restrict writable %[[OWN]]
// CHECK: %[[ADDRESS:.*]] = memref.extract_aligned_pointer_as_index %[[BYTES]]
// CHECK: call @precrtCompiledWindowFence(%c1_i32{{.*}}, %[[ADDRESS]], %c64_i64, %c3_i32,
// CHECK: %[[OFFSET:.*]] = arith.muli %[[RANK]], %c16
// CHECK: %[[BLOCKS:.*]] = memref.subview %[[SLOT]][0, %[[OFFSET]]] [4, 16] [1, 1] : memref<4x64xbf16> to memref<4x16xbf16, strided<[64, 1], offset: ?>>
// CHECK: %[[CHUNKS:.*]] = bufferization.to_tensor %[[BLOCKS]] restrict :
// CHECK: linalg.generic {{.*}} ins(%[[CHUNKS]] : tensor<4x16xbf16>)
// OFF-LABEL: func.func @all_to_all
// OFF-NOT: precrtCompiledWindow
// OFF: call @precrtCompiledCollective

// -----

// An all_gather whose gathered buffer a kernel widens: the gathered tensor
// is the whole slot.
#map = affine_map<(d0) -> (d0)>
shard.grid @dp(shape = 2)
func.func @all_gather(%x: tensor<8xf32>) -> tensor<16xf32> {
  %e = tensor.empty() : tensor<8xbf16>
  %packed = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]}
      ins(%x : tensor<8xf32>) outs(%e : tensor<8xbf16>) {
  ^bb0(%in: f32, %out: bf16):
    %t = arith.truncf %in : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<8xbf16>
  %g = prec.transport <all_gather> %packed on @dp : tensor<8xbf16> -> tensor<16xbf16>
  %init = tensor.empty() : tensor<16xf32>
  %w = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]}
      ins(%g : tensor<16xbf16>) outs(%init : tensor<16xf32>) {
  ^bb0(%in: bf16, %out: f32):
    %t = arith.extf %in : bf16 to f32
    linalg.yield %t : f32
  } -> tensor<16xf32>
  return %w : tensor<16xf32>
}
// CHECK-LABEL: func.func @all_gather
// CHECK: %[[BYTES:.*]] = builtin.unrealized_conversion_cast {{.*}} to memref<32xi8>
// CHECK: call @precrtCompiledWindowFence(%c0_i32{{.*}}, %{{.*}}, %c8_i64,
// CHECK: %[[ALL:.*]] = memref.view %[[BYTES]][%{{.*}}][] : memref<32xi8> to memref<16xbf16>
// CHECK: %[[GATHERED:.*]] = bufferization.to_tensor %[[ALL]] restrict :
// CHECK: linalg.generic {{.*}} ins(%[[GATHERED]] : tensor<16xbf16>)

// -----

// Received tensors that outlive their reads, or wire buffers something else
// reads, keep the runtime's own buffers.
#map = affine_map<(d0) -> (d0)>
shard.grid @dp(shape = 2)
// The gathered tensor is returned: a later collective could overwrite it.
func.func @returned(%x: tensor<8xf32>) -> tensor<16xbf16> {
  %e = tensor.empty() : tensor<8xbf16>
  %packed = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]}
      ins(%x : tensor<8xf32>) outs(%e : tensor<8xbf16>) {
  ^bb0(%in: f32, %out: bf16):
    %t = arith.truncf %in : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<8xbf16>
  %g = prec.transport <all_gather> %packed on @dp : tensor<8xbf16> -> tensor<16xbf16>
  return %g : tensor<16xbf16>
}
// The wire buffer is an argument: no kernel writes it.
func.func @argument(%x: tensor<8xbf16>) -> tensor<16xf32> {
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
// Another collective runs between the transport and the kernel that reads
// what it received.
func.func @read_after_collective(%x: tensor<8xf32>, %y: tensor<8xbf16>) -> (tensor<16xf32>, tensor<16xbf16>) {
  %e = tensor.empty() : tensor<8xbf16>
  %packed = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]}
      ins(%x : tensor<8xf32>) outs(%e : tensor<8xbf16>) {
  ^bb0(%in: f32, %out: bf16):
    %t = arith.truncf %in : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<8xbf16>
  %g = prec.transport <all_gather> %packed on @dp : tensor<8xbf16> -> tensor<16xbf16>
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
// A kernel that only copies what it reads: the canonicalizer may replace it
// by its input, which would then be returned.
func.func @copied(%x: tensor<8xf32>) -> tensor<16xbf16> {
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
    linalg.yield %in : bf16
  } -> tensor<16xbf16>
  return %copy : tensor<16xbf16>
}
// A kernel whose body folds to a copy (bf16 -> f32 -> bf16 is exact): the
// canonicalizer would make it a copy and then remove it.
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
// CHECK-NOT: precrtCompiledWindow
// CHECK-LABEL: func.func @returned
// CHECK: call @precrtCompiledCollective
// CHECK-LABEL: func.func @argument
// CHECK: call @precrtCompiledCollective
// CHECK-LABEL: func.func @read_after_collective
// CHECK-COUNT-2: call @precrtCompiledCollective
// CHECK-LABEL: func.func @copied
// CHECK: call @precrtCompiledCollective
// CHECK-LABEL: func.func @folded_copy
// CHECK: call @precrtCompiledCollective
