// RUN: prec-opt %s --prec-profile-kernels | FileCheck %s --enable-var-scope

// CHECK-DAG: func.func private @precrtCompiledProfileStart() -> i64
// CHECK-DAG: func.func private @precrtCompiledProfileStop(i32, i64)

// A kernel that writes the buffer a collective sends (through a view) is a
// pack kernel (kind 2); one that only touches other buffers is a compute
// kernel (kind 1). Calls of other functions are not timed.
// CHECK-LABEL: func @step
// CHECK: %[[T0:.*]] = call @precrtCompiledProfileStart() : () -> i64
// CHECK-NEXT: call @step_kernel(%{{.*}}, %[[WIRE:.*]]) : (memref<8xf32>, memref<8xbf16>) -> ()
// CHECK-NEXT: %[[PACK:.*]] = arith.constant 2 : i32
// CHECK-NEXT: call @precrtCompiledProfileStop(%[[PACK]], %[[T0]]) : (i32, i64) -> ()
// CHECK: call @precrtCompiledCollective
// CHECK: %[[T1:.*]] = call @precrtCompiledProfileStart() : () -> i64
// CHECK-NEXT: call @step_kernel_0(%{{.*}}) : (memref<8xf32>) -> ()
// CHECK-NEXT: %[[COMPUTE:.*]] = arith.constant 1 : i32
// CHECK-NEXT: call @precrtCompiledProfileStop(%[[COMPUTE]], %[[T1]]) : (i32, i64) -> ()
// A loop nest on buffers (a scatter-add) that prec-outline-kernels marked a
// kernel is one too; a function with a loop that calls others is not, nor
// is one of loops alone that it did not mark (the deallocation helper).
// CHECK: %[[T2:.*]] = call @precrtCompiledProfileStart() : () -> i64
// CHECK-NEXT: call @step_kernel_1(%{{.*}}) : (memref<8xf32>) -> ()
// CHECK-NEXT: %[[LOOP:.*]] = arith.constant 1 : i32
// CHECK-NEXT: call @precrtCompiledProfileStop(%[[LOOP]], %[[T2]]) : (i32, i64) -> ()
// CHECK-NOT: @precrtCompiledProfileStart
// CHECK: call @host_loop
// CHECK-NOT: @precrtCompiledProfileStart
// CHECK: call @loops
// CHECK-NOT: @precrtCompiledProfileStart
// CHECK: call @helper
// CHECK: return
func.func @step(%x: memref<8xf32>) {
  %wire = memref.alloc() : memref<8xbf16>
  call @step_kernel(%x, %wire) : (memref<8xf32>, memref<8xbf16>) -> ()
  %recv = memref.alloc() : memref<32xbf16>
  %view = memref.subview %wire[0] [8] [1] : memref<8xbf16> to memref<8xbf16, strided<[1]>>
  %send = memref.extract_aligned_pointer_as_index %view : memref<8xbf16, strided<[1]>> -> index
  %out = memref.extract_aligned_pointer_as_index %recv : memref<32xbf16> -> index
  %c0 = arith.constant 0 : i32
  %c3 = arith.constant 3 : i32
  %c8 = arith.constant 8 : i64
  %status = call @precrtCompiledCollective(%c0, %send, %out, %c8, %c3, %c0, %c0, %send, %c0, %send)
      : (i32, index, index, i64, i32, i32, i32, index, i32, index) -> i32
  call @step_kernel_0(%x) : (memref<8xf32>) -> ()
  call @step_kernel_1(%x) : (memref<8xf32>) -> ()
  call @host_loop() : () -> ()
  call @loops(%x) : (memref<8xf32>) -> ()
  call @helper() : () -> ()
  return
}

func.func private @precrtCompiledCollective(i32, index, index, i64, i32, i32, i32, index, i32, index) -> i32

func.func private @step_kernel(%x: memref<8xf32>, %wire: memref<8xbf16>) {
  linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
                  iterator_types = ["parallel"]}
      ins(%x : memref<8xf32>) outs(%wire : memref<8xbf16>) {
  ^bb0(%in: f32, %o: bf16):
    %t = arith.truncf %in : f32 to bf16
    linalg.yield %t : bf16
  }
  return
}

func.func private @step_kernel_0(%x: memref<8xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%x : memref<8xf32>)
  return
}

func.func private @step_kernel_1(%x: memref<8xf32>) attributes {passthrough = ["noinline"]} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  scf.for %i = %c0 to %c8 step %c1 {
    %v = memref.load %x[%i] : memref<8xf32>
    %w = arith.addf %v, %v : f32
    memref.store %w, %x[%i] : memref<8xf32>
  }
  return
}

func.func private @loops(%x: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0.0 : f32
  scf.for %i = %c0 to %c8 step %c1 {
    memref.store %zero, %x[%i] : memref<8xf32>
  }
  return
}

func.func private @host_loop() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  scf.for %i = %c0 to %c2 step %c1 {
    func.call @helper() : () -> ()
  }
  return
}

func.func private @helper() {
  return
}
