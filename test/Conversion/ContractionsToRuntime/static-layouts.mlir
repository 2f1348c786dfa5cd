// RUN: prec-opt %s --convert-contractions-to-runtime -split-input-file | FileCheck %s --enable-var-scope

// What a buffer's type fixes (its sizes, strides and offset) reaches the
// call as constants, one per value, without canonicalization: a step of
// thousands of contractions would otherwise leave a descriptor read, index
// casts and address arithmetic per operand for the passes after it to fold.
// Only what the type leaves open is read from the descriptor.

// CHECK-LABEL: func @static_layouts
// CHECK-SAME: (%[[A:.*]]: memref<4x8xf32, strided<[16, 1], offset: 4>>, %[[B:.*]]: memref<8x3xf32>)
// CHECK: %[[C:.*]] = memref.alloc() : memref<4x3xf32>
// CHECK-NOT: memref.extract_strided_metadata
// CHECK-NOT: arith.index_cast
// CHECK-NOT: arith.muli
// CHECK-DAG: %[[AP:.*]] = memref.extract_aligned_pointer_as_index %[[A]]
// CHECK-DAG: %[[BYTES:.*]] = arith.constant 16 : index
// CHECK-DAG: %[[AADDR:.*]] = arith.addi %[[AP]], %[[BYTES]] : index
// CHECK-DAG: %[[BP:.*]] = memref.extract_aligned_pointer_as_index %[[B]]
// CHECK-DAG: %[[CP:.*]] = memref.extract_aligned_pointer_as_index %[[C]]
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0 : i64
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1 : i64
// CHECK-DAG: %[[THREE:.*]] = arith.constant 3 : i64
// CHECK-DAG: %[[FOUR:.*]] = arith.constant 4 : i64
// CHECK-DAG: %[[EIGHT:.*]] = arith.constant 8 : i64
// CHECK-DAG: %[[SIXTEEN:.*]] = arith.constant 16 : i64
// CHECK-DAG: %[[F32:.*]] = arith.constant 1 : i32
// CHECK: call @precrtCompiledMatmul(%[[ONE]], %[[FOUR]], %[[THREE]], %[[EIGHT]], %[[F32]], %[[AADDR]], %[[ZERO]], %[[SIXTEEN]], %[[ONE]], %[[F32]], %[[BP]], %[[ZERO]], %[[THREE]], %[[ONE]], %[[F32]], %[[CP]], %[[ZERO]], %[[THREE]], %[[ONE]])
// CHECK-NOT: memref.extract_strided_metadata
// CHECK: return
func.func @static_layouts(%a: memref<4x8xf32, strided<[16, 1], offset: 4>>, %b: memref<8x3xf32>) -> memref<4x3xf32> {
  %c = memref.alloc() : memref<4x3xf32>
  linalg.matmul ins(%a, %b : memref<4x8xf32, strided<[16, 1], offset: 4>>, memref<8x3xf32>) outs(%c : memref<4x3xf32>)
  return %c : memref<4x3xf32>
}

// -----

// A view whose offset is dynamic: the offset alone comes from the
// descriptor (times 4 bytes); its sizes and strides are still constants.
// CHECK-LABEL: func @dynamic_offset
// CHECK-SAME: (%[[A:.*]]: memref<4x8xf32, strided<[16, 1], offset: ?>>
// CHECK-DAG: %{{.*}}, %[[OFFSET:.*]], %{{.*}}:2, %{{.*}}:2 = memref.extract_strided_metadata %[[A]]
// CHECK-DAG: %[[AP:.*]] = memref.extract_aligned_pointer_as_index %[[A]]
// CHECK-DAG: %[[F32BYTES:.*]] = arith.constant 4 : index
// CHECK: %[[BYTES:.*]] = arith.muli %[[OFFSET]], %[[F32BYTES]] : index
// CHECK: %[[AADDR:.*]] = arith.addi %[[AP]], %[[BYTES]] : index
// CHECK-NOT: memref.extract_strided_metadata
// CHECK-NOT: arith.index_cast
// CHECK: call @precrtCompiledMatmul(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[AADDR]],
func.func @dynamic_offset(%a: memref<4x8xf32, strided<[16, 1], offset: ?>>, %b: memref<8x3xf32>) -> memref<4x3xf32> {
  %c = memref.alloc() : memref<4x3xf32>
  linalg.matmul ins(%a, %b : memref<4x8xf32, strided<[16, 1], offset: ?>>, memref<8x3xf32>) outs(%c : memref<4x3xf32>)
  return %c : memref<4x3xf32>
}
