// RUN: prec-opt %s --split-input-file --allow-unregistered-dialect \
// RUN:   --prec-bufferize-entry-boundaries | FileCheck %s

// The functions prec-bufferize-entry-boundaries leaves to upstream's module
// bufferization.

// Neither a function named by something other than a call, nor one that
// calls itself, nor a declaration, nor a function upstream has to handle
// (unranked or encoded tensors, a requested layout, several blocks) is
// touched.

// CHECK-LABEL: func.func @referenced
// CHECK-SAME:    tensor<4xf32>
// CHECK-LABEL: func.func @refers
// CHECK:         constant @referenced
// CHECK-LABEL: func.func private @declared
// CHECK-SAME:    tensor<4xf32>
// CHECK-LABEL: func.func @unranked
// CHECK-SAME:    tensor<*xf32>
// CHECK-NOT:     bufferization.to_tensor
// CHECK-LABEL: func.func @encoded
// CHECK-SAME:    tensor<4xf32, "any">
// CHECK-NOT:     bufferization.to_tensor
// CHECK-LABEL: func.func @layout
// CHECK-SAME:    tensor<4xf32>
// CHECK-NOT:     bufferization.to_tensor
// CHECK-LABEL: func.func @blocks
// CHECK-SAME:    tensor<4xf32>
// CHECK-NOT:     bufferization.to_tensor
// CHECK-LABEL: func.func @recursive
// CHECK-SAME:    tensor<4xf32>
// CHECK-LABEL: func.func @no_tensors
// CHECK-SAME:    (%{{.*}}: f32) -> f32
func.func @referenced(%a: tensor<4xf32>) -> tensor<4xf32> {
  return %a : tensor<4xf32>
}
func.func @refers() {
  %f = func.constant @referenced : (tensor<4xf32>) -> tensor<4xf32>
  return
}
func.func private @declared(tensor<4xf32>) -> tensor<4xf32>
func.func @unranked(%a: tensor<*xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  return %b : tensor<4xf32>
}
func.func @encoded(%a: tensor<4xf32, "any">) {
  return
}
func.func @layout(%a: tensor<4xf32> {bufferization.buffer_layout = affine_map<(d0) -> (d0)>}) {
  return
}
func.func @blocks(%a: tensor<4xf32>) -> tensor<4xf32> {
  cf.br ^next
^next:
  return %a : tensor<4xf32>
}
func.func @recursive(%a: tensor<4xf32>) -> tensor<4xf32> {
  %r = call @recursive(%a) : (tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}
func.func @no_tensors(%s: f32) -> f32 {
  return %s : f32
}

// -----

// An unknown op with a region may be a symbol table whose ops refer to any
// function: then no function is taken over.

// CHECK-LABEL: func.func private @callee
// CHECK-SAME:    tensor<4xf32>
// CHECK-LABEL: func.func @caller
// CHECK-SAME:    tensor<4xf32>
// CHECK-NOT:     bufferization.to_tensor
func.func private @callee(%a: tensor<4xf32>) -> tensor<4xf32> {
  return %a : tensor<4xf32>
}
func.func @caller(%a: tensor<4xf32>) -> tensor<4xf32> {
  %r = call @callee(%a) : (tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}
"unknown.region"() ({
  "unknown.terminator"() : () -> ()
}) : () -> ()
