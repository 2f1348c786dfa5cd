// RUN: prec-opt %s --split-input-file --prec-deallocate-buffers | FileCheck %s --enable-var-scope

// Local buffers die right after the last op of their block that uses them
// or a view of them, also when the use is nested in a loop.

// CHECK-LABEL: func.func @local
func.func @local(%x: memref<64xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  // CHECK:       %[[A:.*]] = memref.alloc() {alignment = 64 : i64} : memref<64xf32>
  // CHECK-NEXT:  linalg.fill {{.*}} outs(%[[A]]
  // CHECK-NEXT:  memref.copy %[[A]], %{{.*}}
  // CHECK-NEXT:  memref.dealloc %[[A]]
  %a = memref.alloc() {alignment = 64 : i64} : memref<64xf32>
  linalg.fill ins(%zero : f32) outs(%a : memref<64xf32>)
  memref.copy %a, %x : memref<64xf32> to memref<64xf32>
  // CHECK-NEXT:  %[[B:.*]] = memref.alloc() : memref<8x8xf32>
  // CHECK-NEXT:  %[[FLAT:.*]] = memref.collapse_shape %[[B]]
  // CHECK-NEXT:  scf.for
  // CHECK-NEXT:    memref.load %[[FLAT]]
  // CHECK-NEXT:    memref.store
  // CHECK-NEXT:  }
  // CHECK-NEXT:  memref.dealloc %[[B]]
  // CHECK-NEXT:  return
  %b = memref.alloc() : memref<8x8xf32>
  %flat = memref.collapse_shape %b [[0, 1]] : memref<8x8xf32> into memref<64xf32>
  scf.for %i = %c0 to %n step %c1 {
    %v = memref.load %flat[%i] : memref<64xf32>
    memref.store %v, %x[%i] : memref<64xf32>
  }
  return
}

// -----

// The runtime gets buffers as integer addresses: the buffer lives until the
// call that uses its address.

func.func private @runtime_fill(index, i64)

// CHECK-LABEL: func.func @address
func.func @address(%x: memref<64xf32>) {
  // CHECK:       %[[A:.*]] = memref.alloc
  // CHECK:       %[[P:.*]] = memref.extract_aligned_pointer_as_index %[[A]]
  // CHECK:       memref.copy %[[A]]
  // CHECK-NEXT:  %[[I:.*]] = arith.index_cast %[[P]]
  // CHECK-NEXT:  call @runtime_fill(%[[P]], %[[I]])
  // CHECK-NEXT:  memref.dealloc %[[A]]
  %a = memref.alloc() : memref<64xf32>
  %p = memref.extract_aligned_pointer_as_index %a : memref<64xf32> -> index
  memref.copy %a, %x : memref<64xf32> to memref<64xf32>
  %i = arith.index_cast %p : index to i64
  call @runtime_fill(%p, %i) : (index, i64) -> ()
  return
}

// -----

// A returned buffer belongs to the caller, and a buffer returned through a
// view too: upstream's deallocation takes both, and frees nothing of them.

// CHECK-LABEL: func.func @returned
func.func @returned(%x: memref<64xf32>) -> (memref<64xf32>, memref<8x8xf32>) {
  // CHECK-NOT:   memref.alloca
  // CHECK-NOT:   memref.dealloc
  // CHECK:       return
  %a = memref.alloc() : memref<64xf32>
  memref.copy %x, %a : memref<64xf32> to memref<64xf32>
  %b = memref.alloc() : memref<64xf32>
  memref.copy %x, %b : memref<64xf32> to memref<64xf32>
  %view = memref.expand_shape %b [[0, 1]] output_shape [8, 8] : memref<64xf32> into memref<8x8xf32>
  return %a, %view : memref<64xf32>, memref<8x8xf32>
}

// -----

// A buffer yielded by a loop (an accumulator) is not local: upstream's
// ownership tracking frees the old one on each iteration.

// CHECK-LABEL: func.func @loop_carried
func.func @loop_carried(%x: memref<64xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %init = memref.alloc() : memref<64xf32>
  memref.copy %x, %init : memref<64xf32> to memref<64xf32>
  // CHECK:       scf.for {{.*}} iter_args
  // CHECK:         memref.alloc
  // CHECK:         scf.if
  // CHECK-NEXT:      memref.dealloc
  // CHECK-NOT:   memref.alloca
  %acc = scf.for %i = %c0 to %n step %c1 iter_args(%cur = %init) -> (memref<64xf32>) {
    %next = memref.alloc() : memref<64xf32>
    memref.copy %cur, %next : memref<64xf32> to memref<64xf32>
    scf.yield %next : memref<64xf32>
  }
  memref.copy %acc, %x : memref<64xf32> to memref<64xf32>
  return
}

// -----

// A call that returns buffers could return this one.

func.func private @identity(memref<4xf32>) -> memref<4xf32>

// CHECK-LABEL: func.func @through_call
func.func @through_call() -> memref<4xf32> {
  // CHECK:       %[[A:.*]] = memref.alloc
  // CHECK:       call @identity(%[[A]])
  // CHECK-NOT:   memref.alloca
  %a = memref.alloc() : memref<4xf32>
  %b = call @identity(%a) : (memref<4xf32>) -> memref<4xf32>
  return %b : memref<4xf32>
}

// -----

// Not local, so left to upstream's deallocation: an address stored to
// memory (the callee reads it from there), a buffer passed to a successor
// block, and a buffer of dynamic shape (which canonicalization could
// rebuild while it stands hidden). None is freed before its last use.

func.func private @run(memref<1xindex>)
func.func private @use(memref<4xf32>)

// CHECK-LABEL: func.func @address_in_memory
func.func @address_in_memory() {
  // CHECK:       %[[A:.*]] = memref.alloc() : memref<4xf32>
  // CHECK:       call @run
  // CHECK-NEXT:  memref.dealloc %[[A]]
  %m = memref.alloc() : memref<4xf32>
  %args = memref.alloca() : memref<1xindex>
  %p = memref.extract_aligned_pointer_as_index %m : memref<4xf32> -> index
  %c0 = arith.constant 0 : index
  memref.store %p, %args[%c0] : memref<1xindex>
  func.call @run(%args) : (memref<1xindex>) -> ()
  return
}

// CHECK-LABEL: func.func @to_successor
func.func @to_successor(%c: i1, %o: memref<4xf32>) {
  // CHECK:       %[[A:.*]] = memref.alloc() : memref<4xf32>
  // CHECK-NOT:   memref.dealloc
  // CHECK:       call @use(%[[A]])
  // CHECK-NOT:   memref.dealloc
  // CHECK:       call @use
  // CHECK-NEXT:  memref.dealloc %[[A]]
  %m = memref.alloc() : memref<4xf32>
  func.call @use(%m) : (memref<4xf32>) -> ()
  cf.cond_br %c, ^bb1(%m : memref<4xf32>), ^bb2
^bb2:
  cf.br ^bb1(%o : memref<4xf32>)
^bb1(%x: memref<4xf32>):
  func.call @use(%x) : (memref<4xf32>) -> ()
  return
}

// CHECK-LABEL: func.func @dynamic
func.func @dynamic() {
  // CHECK:       %[[A:.*]] = memref.alloc() : memref<1000xf32>
  // CHECK-NOT:   memref.alloca
  // CHECK:       call @use_dynamic
  // CHECK:       memref.dealloc %[[A]]
  %n = arith.constant 1000 : index
  %m = memref.alloc(%n) : memref<?xf32>
  func.call @use_dynamic(%m) : (memref<?xf32>) -> ()
  return
}
func.func private @use_dynamic(memref<?xf32>)

// -----

// A step that returns fresh buffers only (one updated shard per layer) is
// left with nothing for upstream's deallocation once its local buffers are
// freed: the caller owns what it returns. Its body sits upstream's pipeline
// out and comes back unchanged, public as it was.

func.func private @update(memref<64xf32>, memref<64xf32>)

// CHECK-LABEL: func.func @step(
// CHECK-SAME:    %[[X:.*]]: memref<64xf32>) -> (memref<64xf32>, memref<64xf32>)
// CHECK:         %[[G0:.*]] = memref.alloc() : memref<64xf32>
// CHECK:         %[[S0:.*]] = memref.alloc() : memref<64xf32>
// CHECK-NEXT:    call @update(%[[G0]], %[[S0]])
// CHECK-NEXT:    memref.dealloc %[[G0]]
// CHECK:         %[[G1:.*]] = memref.alloc() : memref<64xf32>
// CHECK:         %[[S1:.*]] = memref.alloc() : memref<64xf32>
// CHECK-NEXT:    call @update(%[[G1]], %[[S1]])
// CHECK-NEXT:    memref.dealloc %[[G1]]
// CHECK-NOT:     memref.dealloc
// CHECK-NOT:     bufferization
// CHECK:         return %[[S0]], %[[S1]]
func.func @step(%x: memref<64xf32>) -> (memref<64xf32>, memref<64xf32>) {
  %g0 = memref.alloc() : memref<64xf32>
  memref.copy %x, %g0 : memref<64xf32> to memref<64xf32>
  %s0 = memref.alloc() : memref<64xf32>
  call @update(%g0, %s0) : (memref<64xf32>, memref<64xf32>) -> ()
  %g1 = memref.alloc() : memref<64xf32>
  memref.copy %x, %g1 : memref<64xf32> to memref<64xf32>
  %s1 = memref.alloc() : memref<64xf32>
  call @update(%g1, %s1) : (memref<64xf32>, memref<64xf32>) -> ()
  return %s0, %s1 : memref<64xf32>, memref<64xf32>
}

// -----

// Returning an argument gives the caller a buffer it does not own: upstream
// copies it, so the function goes through upstream's pipeline, fresh
// results and all.

// CHECK-LABEL: func.func @returns_argument
// CHECK:         %[[A:.*]] = memref.alloc() : memref<64xf32>
// CHECK:         %[[C:.*]] = bufferization.clone %{{.*}}
// CHECK:         return %[[A]], %[[C]]
func.func @returns_argument(%x: memref<64xf32>) -> (memref<64xf32>, memref<64xf32>) {
  %a = memref.alloc() : memref<64xf32>
  memref.copy %x, %a : memref<64xf32> to memref<64xf32>
  return %a, %x : memref<64xf32>, memref<64xf32>
}
