// RUN: prec-opt %s --convert-prec-to-runtime | FileCheck %s
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
// CHECK: %[[IN:.*]] = bufferization.to_buffer %[[W]] read_only : tensor<8xbf16> to memref<8xbf16>
// CHECK: %[[OUT:.*]] = memref.alloc() {alignment = 64 : i64} : memref<32xbf16>
// CHECK-DAG: %[[INP:.*]] = memref.extract_aligned_pointer_as_index %[[IN]]
// CHECK-DAG: %[[OUTP:.*]] = memref.extract_aligned_pointer_as_index %[[OUT]]
// Transport 0 = all_gather, 8 elements of dtype 3 = bf16.
// CHECK: %[[H:.*]] = call @precrtCompiledCollectiveStart(%c0_i32{{[_0-9]*}}, %[[INP]], %[[OUTP]], %c8_i64, %c3_i32{{[_0-9]*}}, %c0_i32{{[_0-9]*}}, %c1_i32{{[_0-9]*}}, %{{.*}}, %c0_i32{{[_0-9]*}}, %{{.*}})
// CHECK: %[[Y:.*]] = arith.addf %[[X]], %[[X]]
// CHECK: %[[IN2:.*]] = bufferization.to_buffer %[[W]] read_only
// CHECK: %[[INP2:.*]] = memref.extract_aligned_pointer_as_index %[[IN2]]
// CHECK: %[[OUTP2:.*]] = memref.extract_aligned_pointer_as_index %[[OUT]]
// CHECK: call @precrtCompiledCollectiveWait(%[[H]], %[[INP2]], %[[OUTP2]])
// CHECK: %[[G:.*]] = bufferization.to_tensor %[[OUT]] restrict writable : memref<32xbf16> to tensor<32xbf16>
// CHECK: arith.mulf %[[Y]], %[[G]]
// CHECK-NOT: prec.transport

// After bufferization the input's buffer is the argument itself at both
// calls: the wait keeps it alive and unwritten.
// BUFFERS-LABEL: func @gather_while_computing
// BUFFERS-SAME: (%[[W:.*]]: memref<8xbf16{{.*}}>, %{{.*}}: memref<32xbf16{{.*}}>)
// BUFFERS: %[[INP:.*]] = memref.extract_aligned_pointer_as_index %[[W]]
// BUFFERS: call @precrtCompiledCollectiveStart(%{{.*}}, %[[INP]],
// BUFFERS: %[[INP2:.*]] = memref.extract_aligned_pointer_as_index %[[W]]
// BUFFERS: call @precrtCompiledCollectiveWait(%{{.*}}, %[[INP2]],
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
// BUFFERS: %[[PP:.*]] = memref.extract_aligned_pointer_as_index %[[P]]
// BUFFERS: call @precrtCompiledCollectiveStart(%{{.*}}, %[[PP]],
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
