// RUN: prec-opt %s --split-input-file --prec-bufferize-entry-boundaries | FileCheck %s --enable-var-scope
// RUN: prec-opt %s --split-input-file --prec-bufferize-entry-boundaries \
// RUN:   --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" \
// RUN:   | FileCheck %s --check-prefix=BUF --enable-var-scope

// A function nothing calls takes and returns identity-layout buffers; its
// body reads them through restrict tensors, writable by default as upstream
// treats function arguments, and the attribute that says otherwise is
// consumed. Scalars stay as they are.

// CHECK-LABEL: func.func @entry
// CHECK-SAME:    (%[[A:.*]]: memref<4xf32>, %[[B:.*]]: memref<2x?xbf16>, %[[S:.*]]: f32)
// CHECK-SAME:    -> (memref<4xf32>, f32)
// CHECK-NEXT:  %[[TA:.*]] = bufferization.to_tensor %[[A]] restrict writable : memref<4xf32> to tensor<4xf32>
// CHECK-NEXT:  %[[TB:.*]] = bufferization.to_tensor %[[B]] restrict : memref<2x?xbf16> to tensor<2x?xbf16>
// CHECK:       %[[NEW:.*]] = tensor.insert %[[S]] into %[[TA]]
// CHECK:       tensor.dim %[[TB]]
// CHECK:       %[[OUT:.*]] = bufferization.to_buffer %[[NEW]] read_only : tensor<4xf32> to memref<4xf32>
// CHECK-NEXT:  return %[[OUT]], %{{.*}} : memref<4xf32>, f32

// In-place updates of a writable argument need no copy; the read-only one
// would not be written anyway.
// BUF-LABEL: func.func @entry
// BUF-SAME:    (%[[A:.*]]: memref<4xf32>, %[[B:.*]]: memref<2x?xbf16>, %[[S:.*]]: f32)
// BUF-NOT:     memref.alloc
// BUF:         memref.store %[[S]], %[[A]]
// BUF:         return %[[A]], %{{.*}} : memref<4xf32>, f32
func.func @entry(%a: tensor<4xf32>, %b: tensor<2x?xbf16> {bufferization.writable = false},
                 %s: f32) -> (tensor<4xf32>, f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %new = tensor.insert %s into %a[%c0] : tensor<4xf32>
  %n = tensor.dim %b, %c1 : tensor<2x?xbf16>
  %i = arith.index_cast %n : index to i32
  %f = arith.sitofp %i : i32 to f32
  return %new, %f : tensor<4xf32>, f32
}

// -----

// An argument marked not writable is copied before it is written.

// CHECK-LABEL: func.func @read_only_argument
// CHECK-NEXT:  bufferization.to_tensor %{{.*}} restrict : memref<4xf32>
// BUF-LABEL: func.func @read_only_argument
// BUF-SAME:    (%[[A:.*]]: memref<4xf32>
// BUF:         %[[COPY:.*]] = memref.alloc
// BUF:         memref.copy %[[A]], %[[COPY]]
// BUF:         memref.store %{{.*}}, %[[COPY]]
func.func @read_only_argument(%a: tensor<4xf32> {bufferization.writable = false},
                              %s: f32) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %new = tensor.insert %s into %a[%c0] : tensor<4xf32>
  return %new : tensor<4xf32>
}

// -----

// A called function keeps its tensor signature for upstream's module
// analysis, and so do calls of it; the caller nothing calls is converted.

// CHECK-LABEL: func.func private @callee
// CHECK-SAME:    (%{{.*}}: tensor<4xf32>) -> tensor<4xf32>
// CHECK-LABEL: func.func @caller
// CHECK-SAME:    (%[[A:.*]]: memref<4xf32>) -> memref<4xf32>
// CHECK:       %[[R:.*]] = call @callee(%{{.*}}) : (tensor<4xf32>) -> tensor<4xf32>
// CHECK:       bufferization.to_buffer %[[R]] read_only
func.func private @callee(%a: tensor<4xf32>) -> tensor<4xf32> {
  return %a : tensor<4xf32>
}
func.func @caller(%a: tensor<4xf32>) -> tensor<4xf32> {
  %r = call @callee(%a) : (tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// Arguments returned as they are, one of them twice, and an explicitly
// writable one: the same buffers come back, as upstream returns them.

// CHECK-LABEL: func.func @returns_arguments
// CHECK-SAME:    (%[[A:.*]]: memref<4xf32>, %[[B:.*]]: memref<4xf32>)
// CHECK-NOT:     bufferization.writable
// CHECK-NEXT:  bufferization.to_tensor %[[A]] restrict writable
// CHECK-NEXT:  bufferization.to_tensor %[[B]] restrict writable
// BUF-LABEL: func.func @returns_arguments
// BUF-SAME:    (%[[A:.*]]: memref<4xf32>, %[[B:.*]]: memref<4xf32>)
// BUF-NEXT:    return %[[B]], %[[A]], %[[B]] : memref<4xf32>, memref<4xf32>, memref<4xf32>
func.func @returns_arguments(%a: tensor<4xf32>,
                             %b: tensor<4xf32> {bufferization.writable = true})
    -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  return %b, %a, %b : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// A returned slice of an argument has a layout the identity-layout result
// cannot take: it is copied, as upstream copies it.

// CHECK-LABEL: func.func @returns_slice
// BUF-LABEL: func.func @returns_slice
// BUF-SAME:    (%[[A:.*]]: memref<8xf32>) -> memref<4xf32>
// BUF:         %[[VIEW:.*]] = memref.subview %[[A]][2] [4] [1]
// BUF:         %[[COPY:.*]] = memref.alloc
// BUF:         memref.copy %[[VIEW]], %[[COPY]]
// BUF:         return %[[COPY]] : memref<4xf32>
func.func @returns_slice(%a: tensor<8xf32>) -> tensor<4xf32> {
  %s = tensor.extract_slice %a[2] [4] [1] : tensor<8xf32> to tensor<4xf32>
  return %s : tensor<4xf32>
}
