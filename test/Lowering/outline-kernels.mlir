// RUN: prec-opt %s --split-input-file --prec-outline-kernels | FileCheck %s --enable-var-scope

// Each kernel on buffers moves into a private function of its own; its
// operands (each once) and the values its body uses from above become the
// arguments. Kernels in loops move too; kernels on tensors stay.

#id = affine_map<(d0) -> (d0)>
// Host functions, which call kernels, are compiled as written.
// CHECK-LABEL: func.func @step
// CHECK-SAME:    (%[[A:.*]]: memref<64xf32>, %[[B:.*]]: memref<64xbf16>, %[[S:.*]]: f32, %[[N:.*]]: index, %[[T:.*]]: tensor<4xf32>)
// CHECK-SAME:    attributes {passthrough = ["noinline", "optnone"]}
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

// CHECK:       func.func private @[[FILL]](%[[FS:.*]]: f32, %[[FA:.*]]: memref<64xf32>) attributes {passthrough = ["noinline"]} {
// CHECK-NEXT:    linalg.fill ins(%[[FS]] : f32) outs(%[[FA]] : memref<64xf32>)
// CHECK-NEXT:    return
// CHECK:       func.func private @[[SCALE]](%[[GA:.*]]: memref<64xf32>, %[[GB:.*]]: memref<64xbf16>, %[[GS:.*]]: f32) attributes {passthrough = ["noinline"]} {
// CHECK-NEXT:    linalg.generic {{.*}} ins(%[[GA]] : memref<64xf32>) outs(%[[GB]] : memref<64xbf16>)
// CHECK:           arith.mulf %{{.*}}, %[[GS]] : f32

// -----

// Kernels of the same structure share one function. Constants are cloned
// into the function rather than passed, so kernels that differ in a
// constant get functions of their own, in which LLVM can fold it.
#id = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @layers
// CHECK-SAME:    (%[[A:.*]]: memref<64xf32>, %[[B:.*]]: memref<64xf32>, %[[C:.*]]: memref<32xf32>)
func.func @layers(%a: memref<64xf32>, %b: memref<64xf32>, %c: memref<32xf32>) {
  %four = arith.constant 4.0 : f32
  %three = arith.constant 3.0 : f32
  // CHECK: call @[[DIV4:layers_kernel[_0-9]*]](%[[A]]) : (memref<64xf32>) -> ()
  // CHECK: call @[[DIV4]](%[[B]]) : (memref<64xf32>) -> ()
  // CHECK: call @[[DIV3:layers_kernel[_0-9]*]](%[[A]]) : (memref<64xf32>) -> ()
  // CHECK: call @[[DIV4_32:layers_kernel[_0-9]*]](%[[C]]) : (memref<32xf32>) -> ()
  linalg.generic {indexing_maps = [#id], iterator_types = ["parallel"]}
      outs(%a : memref<64xf32>) {
  ^bb0(%x: f32):
    %q = arith.divf %x, %four : f32
    linalg.yield %q : f32
  }
  linalg.generic {indexing_maps = [#id], iterator_types = ["parallel"]}
      outs(%b : memref<64xf32>) {
  ^bb0(%x: f32):
    %q = arith.divf %x, %four : f32
    linalg.yield %q : f32
  }
  linalg.generic {indexing_maps = [#id], iterator_types = ["parallel"]}
      outs(%a : memref<64xf32>) {
  ^bb0(%x: f32):
    %q = arith.divf %x, %three : f32
    linalg.yield %q : f32
  }
  linalg.generic {indexing_maps = [#id], iterator_types = ["parallel"]}
      outs(%c : memref<32xf32>) {
  ^bb0(%x: f32):
    %q = arith.divf %x, %four : f32
    linalg.yield %q : f32
  }
  return
}
// CHECK:      func.func private @[[DIV4]](%{{.*}}: memref<64xf32>) attributes {passthrough = ["noinline"]} {
// CHECK-NEXT:   %[[F:.*]] = arith.constant 4.000000e+00 : f32
// CHECK-NEXT:   linalg.generic
// CHECK:          arith.divf %{{.*}}, %[[F]] : f32
// CHECK:      func.func private @[[DIV3]](%{{.*}}: memref<64xf32>) attributes {passthrough = ["noinline"]} {
// CHECK-NEXT:   arith.constant 3.000000e+00 : f32
// CHECK:      func.func private @[[DIV4_32]](%{{.*}}: memref<32xf32>) attributes {passthrough = ["noinline"]} {
// CHECK-NOT:  func.func

// -----

// A function that calls a host function is host too; one that calls no
// kernel (scalar code) stays open to LLVM's optimizer and inliner.
// CHECK-LABEL: func.func private @scalar_helper
// CHECK-NOT:     passthrough
// CHECK-LABEL: func.func private @inner
// CHECK-SAME:    attributes {passthrough = ["noinline", "optnone"]}
// CHECK-LABEL: func.func @outer
// CHECK-SAME:    attributes {passthrough = ["noinline", "optnone"]}
// CHECK:       func.func private @inner_kernel
// CHECK-SAME:    attributes {passthrough = ["noinline"]}
func.func private @scalar_helper(%x: f32) -> f32 {
  %y = arith.mulf %x, %x : f32
  return %y : f32
}
func.func private @inner(%a: memref<8xf32>, %s: f32) {
  linalg.fill ins(%s : f32) outs(%a : memref<8xf32>)
  return
}
func.func @outer(%a: memref<8xf32>, %s: f32) -> f32 {
  call @inner(%a, %s) : (memref<8xf32>, f32) -> ()
  %y = call @scalar_helper(%s) : (f32) -> f32
  return %y : f32
}

// -----

// A loop nest that only loads and stores (a gather gradient's scatter-add)
// is a kernel too; a loop that calls a kernel or allocates stays in the
// host, and so do the loops of a function that calls nothing (upstream's
// deallocation helper).
// CHECK-LABEL: func.func @scatter
// CHECK-SAME:    (%[[IDS:.*]]: memref<6xindex>, %[[DY:.*]]: memref<6xf32>, %[[DW:.*]]: memref<8xf32>, %[[N:.*]]: index)
// CHECK-SAME:    attributes {passthrough = ["noinline", "optnone"]}
// CHECK:         call @[[LOOP:scatter_kernel[_0-9]*]](%[[IDS]], %[[DW]], %[[DY]]) : (memref<6xindex>, memref<8xf32>, memref<6xf32>) -> ()
// CHECK:         scf.for
// CHECK-NEXT:      func.call @[[FILL:scatter_kernel[_0-9]*]](%[[DW]])
// CHECK:         scf.for
// CHECK-NEXT:      memref.alloc
// CHECK:       func.func private @helper_loops
// CHECK-NOT:     passthrough
// CHECK:         scf.for
// CHECK-NOT:     call
// CHECK:         return
// CHECK:       func.func private @[[LOOP]](%[[LI:.*]]: memref<6xindex>, %[[LW:.*]]: memref<8xf32>, %[[LY:.*]]: memref<6xf32>) attributes {passthrough = ["noinline"]} {
// CHECK-DAG:     %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG:     %[[C6:.*]] = arith.constant 6 : index
// CHECK:         scf.for %[[T:.*]] = %[[C0]] to %[[C6]]
// CHECK:           memref.load %[[LI]][%[[T]]]
// CHECK:           memref.store %{{.*}}, %[[LW]]
// CHECK:         return
func.func @scatter(%ids: memref<6xindex>, %dy: memref<6xf32>, %dw: memref<8xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c6 = arith.constant 6 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0.0 : f32
  scf.for %t = %c0 to %c6 step %c1 {
    %i = memref.load %ids[%t] : memref<6xindex>
    %in = arith.cmpi ult, %i, %c8 : index
    scf.if %in {
      %old = memref.load %dw[%i] : memref<8xf32>
      %x = memref.load %dy[%t] : memref<6xf32>
      %new = arith.addf %old, %x : f32
      memref.store %new, %dw[%i] : memref<8xf32>
    }
  }
  scf.for %k = %c0 to %n step %c1 {
    linalg.fill ins(%zero : f32) outs(%dw : memref<8xf32>)
  }
  scf.for %k = %c0 to %n step %c1 {
    %tmp = memref.alloc() : memref<8xf32>
    memref.store %zero, %tmp[%c0] : memref<8xf32>
    memref.dealloc %tmp : memref<8xf32>
  }
  return
}

func.func private @helper_loops(%flags: memref<8xi1>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %false = arith.constant false
  scf.for %i = %c0 to %c8 step %c1 {
    memref.store %false, %flags[%i] : memref<8xi1>
  }
  return
}
