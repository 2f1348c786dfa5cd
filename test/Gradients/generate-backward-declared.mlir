// RUN: prec-opt %s --prec-generate-backward | FileCheck %s --enable-var-scope

// A declared backward function is filled in, so that the module can call it
// before it is generated.
// CHECK-LABEL: func.func private @square_backward
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>, %[[DY:.*]]: tensor<4xf32>) -> tensor<4xf32>
// CHECK: %[[A:.*]] = arith.mulf %[[DY]], %[[X]]
// CHECK: %[[B:.*]] = arith.mulf %[[DY]], %[[X]]
// CHECK: %[[S:.*]] = arith.addf %[[A]], %[[B]]
// CHECK: return %[[S]]
// CHECK-LABEL: func.func @uses_backward
// CHECK: call @square_backward
func.func @square(%x: tensor<4xf32>) -> tensor<4xf32> attributes {prec.differentiable} {
  %0 = arith.mulf %x, %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func private @square_backward(tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
func.func @uses_backward(%x: tensor<4xf32>, %dy: tensor<4xf32>) -> tensor<4xf32> {
  %0 = call @square_backward(%x, %dy) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
