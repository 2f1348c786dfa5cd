// RUN: prec-opt %s --convert-prec-to-runtime | FileCheck %s --enable-var-scope

shard.grid @hsdp(shape = 4x8)

// Constants the runtime reads: the grid shape and the axes of each group.
// CHECK-DAG: memref.global "private" constant @__prec_grid_hsdp : memref<2xi64> = dense<[4, 8]>
// CHECK-DAG: memref.global "private" constant @__prec_grid_hsdp_axes_1 : memref<1xi32> = dense<1>
// CHECK-DAG: func.func private @precrtCompiledCollective(i32, index, index, i64, i32, i32, i32, index, i32, index) -> i32
// CHECK-NOT: shard.grid

// CHECK-LABEL: func @shard_axis
// CHECK-SAME: (%[[X:.*]]: tensor<64xbf16>)
// CHECK: %[[IN:.*]] = bufferization.to_buffer %[[X]] read_only : tensor<64xbf16> to memref<64xbf16>
// CHECK: %[[OUT:.*]] = memref.alloc() {alignment = 64 : i64} : memref<64xbf16>
// CHECK: %[[SHAPE:.*]] = memref.get_global @__prec_grid_hsdp : memref<2xi64>
// CHECK: %[[AXES:.*]] = memref.get_global @__prec_grid_hsdp_axes_1 : memref<1xi32>
// CHECK-DAG: %[[AXESP:.*]] = memref.extract_aligned_pointer_as_index %[[AXES]]
// CHECK-DAG: %[[INP:.*]] = memref.extract_aligned_pointer_as_index %[[IN]]
// CHECK-DAG: %[[OUTP:.*]] = memref.extract_aligned_pointer_as_index %[[OUT]]
// CHECK-DAG: %[[SHAPEP:.*]] = memref.extract_aligned_pointer_as_index %[[SHAPE]]
// Transport 1 = all_to_all, dtype 3 = bf16, 64 elements, 2-D grid, 1 axis.
// CHECK-DAG: %[[KIND:.*]] = arith.constant 1 : i32
// CHECK-DAG: %[[BF16:.*]] = arith.constant 3 : i32
// CHECK-DAG: %[[COUNT:.*]] = arith.constant 64 : i64
// CHECK: call @precrtCompiledCollective(%[[KIND]], %[[INP]], %[[OUTP]], %[[COUNT]], %[[BF16]], %{{.*}}, %{{.*}}, %[[SHAPEP]], %{{.*}}, %[[AXESP]])
// CHECK: %[[R:.*]] = bufferization.to_tensor %[[OUT]] restrict writable : memref<64xbf16> to tensor<64xbf16>
// CHECK: return %[[R]]
// CHECK-NOT: prec.transport
func.func @shard_axis(%x: tensor<64xbf16>) -> tensor<64xbf16> {
  %0 = prec.transport <all_to_all> %x on @hsdp grid_axes = [1] : tensor<64xbf16> -> tensor<64xbf16>
  return %0 : tensor<64xbf16>
}

// All axes: no axes global, a null axes pointer; reduction 0 = sum, transport
// 2 = reduce_scatter, dtype 1 = f32.
// CHECK-LABEL: func @whole_grid
// CHECK-DAG: %[[NULL:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[RS:.*]] = arith.constant 2 : i32
// CHECK-DAG: %[[F32:.*]] = arith.constant 1 : i32
// CHECK-DAG: %[[SUM:.*]] = arith.constant 0 : i32
// CHECK-DAG: %[[NONE:.*]] = arith.constant 0 : i32
// CHECK: call @precrtCompiledCollective(%[[RS]], %{{.*}}, %{{.*}}, %{{.*}}, %[[F32]], %[[SUM]], %{{.*}}, %{{.*}}, %[[NONE]], %[[NULL]])
// CHECK: bufferization.to_tensor %{{.*}} : memref<2xf32> to tensor<2xf32>
func.func @whole_grid(%x: tensor<64xf32>) -> tensor<2xf32> {
  %0 = prec.transport <reduce_scatter> %x on @hsdp reduction = <sum> : tensor<64xf32> -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
