// RUN: prec-opt %s --split-input-file --prec-deallocate-buffers -verify-diagnostics
// RUN: not prec-opt %s --split-input-file --prec-deallocate-buffers \
// RUN:   --prec-deallocate-buffers 2>&1 | FileCheck %s --check-prefix=TWICE

// The pass inserts every deallocation itself: IR that frees buffers already
// is rejected with the pass's name rather than upstream's message, also
// the pass's own output.

func.func @freed(%x: memref<8xf32>) {
  %a = memref.alloc() : memref<8xf32>
  memref.copy %x, %a : memref<8xf32> to memref<8xf32>
  // expected-error @below {{'memref.dealloc' op in the input of prec-deallocate-buffers: expected bufferized IR without deallocations}}
  memref.dealloc %a : memref<8xf32>
  return
}

// -----

func.func @marked() {
  // expected-error @below {{'memref.alloca' op in the input of prec-deallocate-buffers: 'prec.local_buffer' is the pass's own mark, not an input}}
  %a = memref.alloca() {prec.local_buffer} : memref<8xf32>
  return
}

// -----

// Deallocated by the first run; the second reports the dealloc it inserted
// (at the allocation's location).
func.func @local(%x: memref<8xf32>) {
  // TWICE: deallocate-buffers-invalid.mlir:[[# @LINE + 1]]:8: error: 'memref.dealloc' op in the input of prec-deallocate-buffers
  %a = memref.alloc() : memref<8xf32>
  memref.copy %x, %a : memref<8xf32> to memref<8xf32>
  memref.copy %a, %x : memref<8xf32> to memref<8xf32>
  return
}
