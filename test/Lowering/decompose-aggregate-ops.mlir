// RUN: prec-opt %s --prec-decompose-aggregate-ops | FileCheck %s

// linalg.softmax becomes upstream's decomposition: a max reduction,
// exp(x - max), a sum reduction and a division.
// CHECK-LABEL: func @softmax
// CHECK-NOT: linalg.softmax
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]
// CHECK: arith.maxnumf
// CHECK: linalg.generic
// CHECK: math.exp
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]
// CHECK: arith.addf
// CHECK: linalg.generic
// CHECK: arith.divf
// CHECK-NOT: linalg.softmax
func.func @softmax(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %e = tensor.empty() : tensor<2x4xf32>
  %y = linalg.softmax dimension(1) ins(%x : tensor<2x4xf32>) outs(%e : tensor<2x4xf32>) -> tensor<2x4xf32>
  return %y : tensor<2x4xf32>
}

// On buffers it is left alone: its decomposition is on tensors.
// CHECK-LABEL: func @softmax_on_buffers
// CHECK: linalg.softmax
func.func @softmax_on_buffers(%x: memref<2x4xf32>, %y: memref<2x4xf32>) {
  linalg.softmax dimension(1) ins(%x : memref<2x4xf32>) outs(%y : memref<2x4xf32>)
  return
}
