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
// CHECK-DAG: %[[SHAPE:.*]] = memref.get_global @__prec_grid_hsdp : memref<2xi64>
// CHECK-DAG: %[[AXES:.*]] = memref.get_global @__prec_grid_hsdp_axes_1 : memref<1xi32>
// CHECK-DAG: %[[AXESP:.*]] = memref.extract_aligned_pointer_as_index %[[AXES]]
// CHECK-DAG: %[[INP:.*]] = memref.extract_aligned_pointer_as_index %[[IN]]
// CHECK-DAG: %[[OUTP:.*]] = memref.extract_aligned_pointer_as_index %[[OUT]]
// CHECK-DAG: %[[SHAPEP:.*]] = memref.extract_aligned_pointer_as_index %[[SHAPE]]
// Transport 1 = all_to_all, dtype 3 = bf16, 64 elements, 2-D grid, 1 axis
// (constants are named by their values).
// CHECK: call @precrtCompiledCollective(%c1_i32{{[_0-9]*}}, %[[INP]], %[[OUTP]], %c64_i64{{[_0-9]*}}, %c3_i32{{[_0-9]*}}, %c0_i32{{[_0-9]*}}, %c2_i32{{[_0-9]*}}, %[[SHAPEP]], %c1_i32{{[_0-9]*}}, %[[AXESP]])
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
// CHECK: %[[NULL:.*]] = arith.constant 0 : index
// CHECK: call @precrtCompiledCollective(%c2_i32{{[_0-9]*}}, %{{.*}}, %{{.*}}, %c64_i64{{[_0-9]*}}, %c1_i32{{[_0-9]*}}, %c0_i32{{[_0-9]*}}, %c2_i32{{[_0-9]*}}, %{{.*}}, %c0_i32{{[_0-9]*}}, %[[NULL]])
// CHECK: bufferization.to_tensor %{{.*}} : memref<2xf32> to tensor<2xf32>
func.func @whole_grid(%x: tensor<64xf32>) -> tensor<2xf32> {
  %0 = prec.transport <reduce_scatter> %x on @hsdp reduction = <sum> : tensor<64xf32> -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// A bucket's members are read through slices of the received tensor: each
// member gets a tensor of its own, a view of the received buffer, so that
// bufferization does not see them as aliases of one another.
// CHECK-LABEL: func @bucket_members
// CHECK: %[[OUT:.*]] = memref.alloc() {alignment = 64 : i64} : memref<16xbf16>
// CHECK: call @precrtCompiledCollective
// CHECK-NEXT: %[[ROWS:.*]] = memref.expand_shape %[[OUT]] {{\[}}[0, 1]] output_shape [4, 4] : memref<16xbf16> into memref<4x4xbf16>
// CHECK-NEXT: %[[V0:.*]] = memref.subview %[[ROWS]][0, 0] [4, 1] [1, 1] : memref<4x4xbf16> to memref<4x1xbf16, strided<[4, 1]>>
// CHECK-NEXT: %[[M0:.*]] = bufferization.to_tensor %[[V0]] restrict writable : memref<4x1xbf16, strided<[4, 1]>> to tensor<4x1xbf16>
// CHECK-NEXT: %[[V1:.*]] = memref.subview %[[ROWS]][0, 1] [4, 3] [1, 1] : memref<4x4xbf16> to memref<4x3xbf16, strided<[4, 1], offset: 1>>
// CHECK-NEXT: %[[M1:.*]] = bufferization.to_tensor %[[V1]] restrict writable : memref<4x3xbf16, strided<[4, 1], offset: 1>> to tensor<4x3xbf16>
// CHECK-NEXT: return %[[M0]], %[[M1]]
func.func @bucket_members(%x: tensor<4xbf16>) -> (tensor<4x1xbf16>, tensor<4x3xbf16>) {
  %0 = prec.transport <all_gather> %x on @hsdp grid_axes = [0] : tensor<4xbf16> -> tensor<16xbf16>
  %1 = tensor.expand_shape %0 [[0, 1]] output_shape [4, 4] : tensor<16xbf16> into tensor<4x4xbf16>
  %2 = tensor.extract_slice %1[0, 0] [4, 1] [1, 1] : tensor<4x4xbf16> to tensor<4x1xbf16>
  %3 = tensor.extract_slice %1[0, 1] [4, 3] [1, 1] : tensor<4x4xbf16> to tensor<4x3xbf16>
  return %2, %3 : tensor<4x1xbf16>, tensor<4x3xbf16>
}

// Members are taken where the received tensor is, not where a slice is: a
// slice in a loop that writes into it must read the received values on
// every iteration, which bufferization then ensures with a copy.
// CHECK-LABEL: func @members_in_loop
// CHECK: call @precrtCompiledCollective
// CHECK-NEXT: %[[V0:.*]] = memref.subview
// CHECK-NEXT: %[[M0:.*]] = bufferization.to_tensor %[[V0]] restrict writable
// CHECK-NEXT: %[[V1:.*]] = memref.subview
// CHECK-NEXT: %[[M1:.*]] = bufferization.to_tensor %[[V1]] restrict writable
// CHECK: scf.for
// CHECK:   linalg.add ins(%[[M0]], %[[M1]] : tensor<8xbf16>, tensor<8xbf16>) outs(%[[M0]] : tensor<8xbf16>)
func.func @members_in_loop(%x: tensor<4xbf16>, %n: index, %init: tensor<8xbf16>) -> tensor<8xbf16> {
  %0 = prec.transport <all_gather> %x on @hsdp grid_axes = [0] : tensor<4xbf16> -> tensor<16xbf16>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %init) -> tensor<8xbf16> {
    %a = tensor.extract_slice %0[0] [8] [1] : tensor<16xbf16> to tensor<8xbf16>
    %b = tensor.extract_slice %0[8] [8] [1] : tensor<16xbf16> to tensor<8xbf16>
    %t = linalg.add ins(%a, %b : tensor<8xbf16>, tensor<8xbf16>) outs(%a : tensor<8xbf16>) -> tensor<8xbf16>
    %s = linalg.add ins(%acc, %t : tensor<8xbf16>, tensor<8xbf16>) outs(%acc : tensor<8xbf16>) -> tensor<8xbf16>
    scf.yield %s : tensor<8xbf16>
  }
  return %r : tensor<8xbf16>
}

// Slices that may overlap stay slices of one tensor: `restrict` members
// would claim that they do not alias.
// CHECK-LABEL: func @overlapping_members
// CHECK: %[[R:.*]] = bufferization.to_tensor %{{.*}} restrict writable : memref<16xbf16> to tensor<16xbf16>
// CHECK: tensor.extract_slice %[[R]][0] [8] [1]
// CHECK: tensor.extract_slice %[[R]][4] [8] [1]
// CHECK-NOT: memref.subview
// CHECK: return
func.func @overlapping_members(%x: tensor<4xbf16>) -> (tensor<8xbf16>, tensor<8xbf16>) {
  %0 = prec.transport <all_gather> %x on @hsdp grid_axes = [0] : tensor<4xbf16> -> tensor<16xbf16>
  %1 = tensor.extract_slice %0[0] [8] [1] : tensor<16xbf16> to tensor<8xbf16>
  %2 = tensor.extract_slice %0[4] [8] [1] : tensor<16xbf16> to tensor<8xbf16>
  return %1, %2 : tensor<8xbf16>, tensor<8xbf16>
}

// A received tensor that is also read whole, or sliced only once, stays one
// tensor.
// CHECK-LABEL: func @read_whole
// CHECK: %[[R:.*]] = bufferization.to_tensor %{{.*}} restrict writable : memref<16xbf16> to tensor<16xbf16>
// CHECK: tensor.extract_slice %[[R]][0] [8] [1]
// CHECK: tensor.extract_slice %[[R]][8] [8] [1]
// CHECK-NOT: memref.subview
// CHECK-LABEL: func @one_slice
func.func @read_whole(%x: tensor<4xbf16>) -> (tensor<8xbf16>, tensor<8xbf16>, tensor<16xbf16>) {
  %0 = prec.transport <all_gather> %x on @hsdp grid_axes = [0] : tensor<4xbf16> -> tensor<16xbf16>
  %1 = tensor.extract_slice %0[0] [8] [1] : tensor<16xbf16> to tensor<8xbf16>
  %2 = tensor.extract_slice %0[8] [8] [1] : tensor<16xbf16> to tensor<8xbf16>
  return %1, %2, %0 : tensor<8xbf16>, tensor<8xbf16>, tensor<16xbf16>
}

// CHECK: tensor.extract_slice
// CHECK-NOT: memref.subview
// CHECK: return
func.func @one_slice(%x: tensor<4xbf16>) -> tensor<8xbf16> {
  %0 = prec.transport <all_gather> %x on @hsdp grid_axes = [0] : tensor<4xbf16> -> tensor<16xbf16>
  %1 = tensor.extract_slice %0[0] [8] [1] : tensor<16xbf16> to tensor<8xbf16>
  return %1 : tensor<8xbf16>
}

// Slices of the received tensor itself, right after it.
// CHECK-LABEL: func @direct_slices
// CHECK: call @precrtCompiledCollective
// CHECK-NEXT: %[[V0:.*]] = memref.subview %{{.*}}[0] [4] [1] : memref<16xf32> to memref<4xf32, strided<[1]>>
// CHECK-NEXT: %[[M0:.*]] = bufferization.to_tensor %[[V0]] restrict writable
// CHECK-NEXT: %[[V1:.*]] = memref.subview %{{.*}}[4] [12] [1] : memref<16xf32> to memref<12xf32, strided<[1], offset: 4>>
// CHECK-NEXT: %[[M1:.*]] = bufferization.to_tensor %[[V1]] restrict writable
// CHECK-NEXT: return %[[M0]], %[[M1]]
func.func @direct_slices(%x: tensor<64xf32>) -> (tensor<4xf32>, tensor<12xf32>) {
  %0 = prec.transport <reduce_scatter> %x on @hsdp grid_axes = [0] reduction = <sum> : tensor<64xf32> -> tensor<16xf32>
  %1 = tensor.extract_slice %0[0] [4] [1] : tensor<16xf32> to tensor<4xf32>
  %2 = tensor.extract_slice %0[4] [12] [1] : tensor<16xf32> to tensor<12xf32>
  return %1, %2 : tensor<4xf32>, tensor<12xf32>
}
