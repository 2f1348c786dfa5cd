// RUN: prec-opt %s --prec-outline-kernels | FileCheck %s --enable-var-scope

// Each kernel on buffers moves into a private function of its own; its
// operands (each once) and the values its body uses from above become the
// arguments. Kernels in loops move too; kernels on tensors stay.

#id = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @step
// CHECK-SAME:    (%[[A:.*]]: memref<64xf32>, %[[B:.*]]: memref<64xbf16>, %[[S:.*]]: f32, %[[N:.*]]: index, %[[T:.*]]: tensor<4xf32>)
func.func @step(%a: memref<64xf32>, %b: memref<64xbf16>, %s: f32, %n: index,
                %t: tensor<4xf32>) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // CHECK:       call @[[FILL:step_kernel[_0-9]*]](%[[S]], %[[A]]) : (f32, memref<64xf32>) -> ()
  linalg.fill ins(%s : f32) outs(%a : memref<64xf32>)
  // CHECK:       scf.for
  // CHECK-NEXT:    func.call @[[SCALE:step_kernel[_0-9]*]](%[[A]], %[[B]], %[[S]]) : (memref<64xf32>, memref<64xbf16>, f32) -> ()
  scf.for %i = %c0 to %n step %c1 {
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
        ins(%a : memref<64xf32>) outs(%b : memref<64xbf16>) {
    ^bb0(%x: f32, %y: bf16):
      %m = arith.mulf %x, %s : f32
      %r = arith.truncf %m : f32 to bf16
      linalg.yield %r : bf16
    }
  }
  // CHECK:       %[[R:.*]] = linalg.fill ins(%[[S]] : f32) outs(%[[T]] : tensor<4xf32>)
  %r = linalg.fill ins(%s : f32) outs(%t : tensor<4xf32>) -> tensor<4xf32>
  // CHECK-NOT:   linalg.generic
  // CHECK:       return %[[R]]
  return %r : tensor<4xf32>
}

// CHECK:       func.func private @[[FILL]](%[[FS:.*]]: f32, %[[FA:.*]]: memref<64xf32>) {
// CHECK-NEXT:    linalg.fill ins(%[[FS]] : f32) outs(%[[FA]] : memref<64xf32>)
// CHECK-NEXT:    return
// CHECK:       func.func private @[[SCALE]](%[[GA:.*]]: memref<64xf32>, %[[GB:.*]]: memref<64xbf16>, %[[GS:.*]]: f32) {
// CHECK-NEXT:    linalg.generic {{.*}} ins(%[[GA]] : memref<64xf32>) outs(%[[GB]] : memref<64xbf16>)
// CHECK:           arith.mulf %{{.*}}, %[[GS]] : f32
