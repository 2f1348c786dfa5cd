// RUN: prec-opt %s --convert-prec-to-runtime | FileCheck %s
// RUN: prec-opt %s --convert-prec-to-runtime --canonicalize --convert-elementwise-to-linalg --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" | FileCheck %s --check-prefix=CANON
// RUN: prec-opt %s --convert-prec-to-runtime --convert-elementwise-to-linalg --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" | FileCheck %s --check-prefix=BUFFERS

// A started transport: the runtime's start where the start was, its wait
// where the wait is; the received buffer becomes a tensor only after the
// wait, and the wait reads the input's buffer again, so that nothing writes
// or frees it while the data moves.

shard.grid @dp(shape = 4)

// CHECK-DAG: func.func private @precrtCompiledCollectiveStart(i32, index, index, i64, i32, i32, i32, index, i32, index) -> i64
// CHECK-DAG: func.func private @precrtCompiledCollectiveWait(i64, index, index) -> i32

// CHECK-LABEL: func @gather_while_computing
// CHECK-SAME: (%[[W:.*]]: tensor<8xbf16>, %[[X:.*]]: tensor<32xbf16>)
// The input's buffer at any offset (a slice is not copied), its first
// element's address the aligned pointer plus the offset in bytes.
// CHECK: %[[IN:.*]] = bufferization.to_buffer %[[W]] read_only : tensor<8xbf16> to memref<8xbf16, strided<[1], offset: ?>>
// CHECK: %[[OUT:.*]] = memref.alloc() {alignment = 64 : i64} : memref<32xbf16>
// CHECK-DAG: %[[INP:.*]] = memref.extract_aligned_pointer_as_index %[[IN]]
// CHECK-DAG: %{{.*}}, %[[OFF:.*]], %{{.*}}, %{{.*}} = memref.extract_strided_metadata %[[IN]]
// CHECK-DAG: %[[OFFB:.*]] = arith.muli %[[OFF]], %c2
// CHECK-DAG: %[[ADDR:.*]] = arith.addi %[[INP]], %[[OFFB]]
// CHECK-DAG: %[[OUTP:.*]] = memref.extract_aligned_pointer_as_index %[[OUT]]
// Transport 0 = all_gather, 8 elements of dtype 3 = bf16.
// CHECK: %[[H:.*]] = call @precrtCompiledCollectiveStart(%c0_i32{{[_0-9]*}}, %[[ADDR]], %[[OUTP]], %c8_i64, %c3_i32{{[_0-9]*}}, %c0_i32{{[_0-9]*}}, %c1_i32{{[_0-9]*}}, %{{.*}}, %c0_i32{{[_0-9]*}}, %{{.*}})
// CHECK: %[[Y:.*]] = arith.addf %[[X]], %[[X]]
// CHECK: %[[IN2:.*]] = bufferization.to_buffer %[[W]] read_only
// CHECK: %[[INP2:.*]] = memref.extract_aligned_pointer_as_index %[[IN2]]
// CHECK: %{{.*}}, %[[OFF2:.*]], %{{.*}}, %{{.*}} = memref.extract_strided_metadata %[[IN2]]
// CHECK: %[[OFFB2:.*]] = arith.muli %[[OFF2]]
// CHECK: %[[ADDR2:.*]] = arith.addi %[[INP2]], %[[OFFB2]]
// CHECK: %[[OUTP2:.*]] = memref.extract_aligned_pointer_as_index %[[OUT]]
// CHECK: call @precrtCompiledCollectiveWait(%[[H]], %[[ADDR2]], %[[OUTP2]])
// CHECK: %[[G:.*]] = bufferization.to_tensor %[[OUT]] restrict writable : memref<32xbf16> to tensor<32xbf16>
// CHECK: arith.mulf %[[Y]], %[[G]]
// CHECK-NOT: prec.transport

// After bufferization the input's buffer is the argument itself at both
// calls: the wait keeps it alive and unwritten.
// BUFFERS-LABEL: func @gather_while_computing
// BUFFERS-SAME: (%[[W:.*]]: memref<8xbf16{{.*}}>, %{{.*}}: memref<32xbf16{{.*}}>)
// BUFFERS-NOT: memref.copy
// BUFFERS: %[[C:.*]] = memref.cast %[[W]]
// BUFFERS: memref.extract_aligned_pointer_as_index %[[C]]
// BUFFERS: call @precrtCompiledCollectiveStart
// BUFFERS: %[[C2:.*]] = memref.cast %[[W]]
// BUFFERS: memref.extract_aligned_pointer_as_index %[[C2]]
// BUFFERS: call @precrtCompiledCollectiveWait
func.func @gather_while_computing(%w: tensor<8xbf16>, %x: tensor<32xbf16>) -> tensor<32xbf16> {
  %s = prec.transport_start <all_gather> %w on @dp : tensor<8xbf16> -> !prec.in_flight<tensor<32xbf16>>
  %y = arith.addf %x, %x : tensor<32xbf16>
  %g = prec.transport_wait %s : !prec.in_flight<tensor<32xbf16>>
  %z = arith.mulf %y, %g : tensor<32xbf16>
  return %z : tensor<32xbf16>
}

// The wire buffer stays unwritten until the wait: a kernel that could have
// written in place into it (its tensor has no reader after the start) gets
// a buffer of its own.
// BUFFERS-LABEL: func @wire_buffer_kept
// BUFFERS: %[[P:.*]] = memref.alloc() {{.*}} : memref<8xbf16>
// BUFFERS: linalg.generic {{.*}} outs(%[[P]] :
// BUFFERS: %[[PC:.*]] = memref.cast %[[P]]
// BUFFERS: memref.extract_aligned_pointer_as_index %[[PC]]
// BUFFERS: call @precrtCompiledCollectiveStart
// BUFFERS-NOT: outs(%[[P]] :
// BUFFERS: call @precrtCompiledCollectiveWait
#id = affine_map<(d0) -> (d0)>
func.func @wire_buffer_kept(%x: tensor<8xf32>) -> (tensor<32xbf16>, tensor<8xbf16>) {
  %e = tensor.empty() : tensor<8xbf16>
  %p = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<8xf32>) outs(%e : tensor<8xbf16>) {
  ^bb0(%a: f32, %b: bf16):
    %t = arith.truncf %a : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<8xbf16>
  %s = prec.transport_start <all_gather> %p on @dp : tensor<8xbf16> -> !prec.in_flight<tensor<32xbf16>>
  %q = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<8xf32>) outs(%p : tensor<8xbf16>) {
  ^bb0(%a: f32, %b: bf16):
    %d = arith.addf %a, %a : f32
    %t = arith.truncf %d : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<8xbf16>
  %g = prec.transport_wait %s : !prec.in_flight<tensor<32xbf16>>
  return %g, %q : tensor<32xbf16>, tensor<8xbf16>
}

// A slice of a larger tensor (one microbatch's rows) may bufferize to a
// strided view: it is read through one contiguous copy, the same buffer at
// the start and at the wait (a copy per read would be two buffers, and the
// runtime would refuse the wait).
// BUFFERS-LABEL: func @slice_in_place
// BUFFERS: %[[VIEW:.*]] = memref.subview
// BUFFERS: %[[COPY:.*]] = memref.alloc() {{.*}} : memref<8xf32>
// BUFFERS: memref.copy %[[VIEW]], %[[COPY]]
// BUFFERS: %[[C1:.*]] = memref.cast %[[COPY]]
// BUFFERS: memref.extract_aligned_pointer_as_index %[[C1]]
// BUFFERS: call @precrtCompiledCollectiveStart
// BUFFERS-NOT: memref.copy
// BUFFERS: %[[C2:.*]] = memref.cast %[[COPY]]
// BUFFERS: memref.extract_aligned_pointer_as_index %[[C2]]
// BUFFERS: call @precrtCompiledCollectiveWait
// BUFFERS-NOT: memref.copy
// BUFFERS: return
func.func @slice_in_place(%x: tensor<4x8xf32>, %i: index) -> tensor<2xf32> {
  %row = tensor.extract_slice %x[%i, 0] [1, 8] [1, 1] : tensor<4x8xf32> to tensor<8xf32>
  %s = prec.transport_start <reduce_scatter> %row on @dp reduction = <sum> : tensor<8xf32> -> !prec.in_flight<tensor<2xf32>>
  %g = prec.transport_wait %s : !prec.in_flight<tensor<2xf32>>
  return %g : tensor<2xf32>
}

// The canonicalizer folds the wait's second read of a received buffer into
// the buffer: such a buffer becomes read-only, so that a write after the
// start (the insert_slice) goes to a copy, not into the buffer being sent.
// CANON-LABEL: func @received_then_written
// CANON: %[[RECV:.*]] = memref.alloc() {{.*}} : memref<16xf32>
// CANON: call @precrtCompiledCollectiveWait
// CANON: call @precrtCompiledCollectiveStart
// CANON-NOT: memref.copy %{{[^,]*}}, %[[RECV]] :
// CANON-NOT: outs(%[[RECV]] :
// CANON-NOT: memref.subview %[[RECV]][
// CANON: call @precrtCompiledCollectiveWait
shard.grid @hosts(shape = 2x2)
func.func @received_then_written(%w: tensor<32xf32>, %x: tensor<8xf32>) -> (tensor<16xf32>, tensor<8xf32>) {
  %s1 = prec.transport_start <reduce_scatter> %w on @hosts grid_axes = [1] reduction = <sum> : tensor<32xf32> -> !prec.in_flight<tensor<16xf32>>
  %r1 = prec.transport_wait %s1 : !prec.in_flight<tensor<16xf32>>
  %s2 = prec.transport_start <reduce_scatter> %r1 on @hosts grid_axes = [0] reduction = <sum> : tensor<16xf32> -> !prec.in_flight<tensor<8xf32>>
  %u = tensor.insert_slice %x into %r1[0] [8] [1] : tensor<8xf32> into tensor<16xf32>
  %r2 = prec.transport_wait %s2 : !prec.in_flight<tensor<8xf32>>
  return %u, %r2 : tensor<16xf32>, tensor<8xf32>
}
