// RUN: prec-opt %s --prec-check-peer-windows --split-input-file --verify-diagnostics

// Reads of the slot before the next collective are fine, as are the window
// helpers in between (they only hand out memory).
func.func private @precrtCompiledWindowFence(i32, index, i64, i32, i32, index, i32, index) -> i32
func.func private @precrtCompiledWindow(i64, i32, index, i32, index) -> !llvm.ptr
func.func private @precrtCompiledCollective(i32, index, index, i64, i32, i32, i32, index, i32, index) -> i32
func.func @in_time(%d: !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>,
                   %out: memref<8xbf16>, %i: i32, %n: i64, %p: index) {
  %c0 = arith.constant 0 : index
  %bytes = builtin.unrealized_conversion_cast %d : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> to memref<16xi8> {prec.peer_window}
  %address = memref.extract_aligned_pointer_as_index %bytes : memref<16xi8> -> index
  %0 = call @precrtCompiledWindowFence(%i, %address, %n, %i, %i, %p, %i, %p) : (i32, index, i64, i32, i32, index, i32, index) -> i32
  %view = memref.view %bytes[%c0][] : memref<16xi8> to memref<8xbf16>
  %1 = call @precrtCompiledWindow(%n, %i, %p, %i, %p) : (i64, i32, index, i32, index) -> !llvm.ptr
  memref.copy %view, %out : memref<8xbf16> to memref<8xbf16>
  %2 = call @precrtCompiledCollective(%i, %p, %p, %n, %i, %i, %i, %p, %i, %p) : (i32, index, index, i64, i32, i32, i32, index, i32, index) -> i32
  return
}

// -----

func.func private @precrtCompiledWindowFence(i32, index, i64, i32, i32, index, i32, index) -> i32
func.func private @precrtCompiledCollective(i32, index, index, i64, i32, i32, i32, index, i32, index) -> i32
func.func @after_collective(%d: !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>,
                            %out: memref<8xbf16>, %i: i32, %n: i64, %p: index) {
  %c0 = arith.constant 0 : index
  %bytes = builtin.unrealized_conversion_cast %d : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> to memref<16xi8> {prec.peer_window}
  %address = memref.extract_aligned_pointer_as_index %bytes : memref<16xi8> -> index
  %0 = call @precrtCompiledWindowFence(%i, %address, %n, %i, %i, %p, %i, %p) : (i32, index, i64, i32, i32, index, i32, index) -> i32
  %view = memref.view %bytes[%c0][] : memref<16xi8> to memref<8xbf16>
  // expected-note @below {{the next collective}}
  %1 = call @precrtCompiledCollective(%i, %p, %p, %n, %i, %i, %i, %p, %i, %p) : (i32, index, index, i64, i32, i32, i32, index, i32, index) -> i32
  // expected-error @below {{uses a peer window's slot after the next collective}}
  memref.copy %view, %out : memref<8xbf16> to memref<8xbf16>
  return
}

// -----

func.func private @precrtCompiledWindowFence(i32, index, i64, i32, i32, index, i32, index) -> i32
func.func @returned(%d: !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>,
                    %i: i32, %n: i64, %p: index) -> memref<8xbf16> {
  %c0 = arith.constant 0 : index
  %bytes = builtin.unrealized_conversion_cast %d : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> to memref<16xi8> {prec.peer_window}
  %address = memref.extract_aligned_pointer_as_index %bytes : memref<16xi8> -> index
  %0 = call @precrtCompiledWindowFence(%i, %address, %n, %i, %i, %p, %i, %p) : (i32, index, i64, i32, i32, index, i32, index) -> i32
  %view = memref.view %bytes[%c0][] : memref<16xi8> to memref<8xbf16>
  // expected-error @below {{out of the slot's block}}
  return %view : memref<8xbf16>
}

// -----

func.func @no_fence(%d: !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>) {
  // expected-error @below {{expected the window's fence}}
  %bytes = builtin.unrealized_conversion_cast %d : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> to memref<16xi8> {prec.peer_window}
  return
}

// -----

// An address taken in time but passed to a runtime call after the next
// collective is a late use too.
func.func private @precrtCompiledWindowFence(i32, index, i64, i32, i32, index, i32, index) -> i32
func.func private @precrtCompiledCollective(i32, index, index, i64, i32, i32, i32, index, i32, index) -> i32
func.func @late_address(%d: !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>,
                        %i: i32, %n: i64, %p: index) {
  %c0 = arith.constant 0 : index
  %bytes = builtin.unrealized_conversion_cast %d : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> to memref<16xi8> {prec.peer_window}
  %address = memref.extract_aligned_pointer_as_index %bytes : memref<16xi8> -> index
  %0 = call @precrtCompiledWindowFence(%i, %address, %n, %i, %i, %p, %i, %p) : (i32, index, i64, i32, i32, index, i32, index) -> i32
  %view = memref.view %bytes[%c0][] : memref<16xi8> to memref<8xbf16>
  %late = memref.extract_aligned_pointer_as_index %view : memref<8xbf16> -> index
  // expected-note @below {{the next collective}}
  %1 = call @precrtCompiledCollective(%i, %p, %p, %n, %i, %i, %i, %p, %i, %p) : (i32, index, index, i64, i32, i32, i32, index, i32, index) -> i32
  // expected-error @below {{uses a peer window's slot after the next collective}}
  %2 = call @precrtCompiledCollective(%i, %late, %p, %n, %i, %i, %i, %p, %i, %p) : (i32, index, index, i64, i32, i32, i32, index, i32, index) -> i32
  return
}

// -----

// A select of the slot (what bufferization makes of an scf.if) read after
// the next collective; a rank query in between is not a collective.
func.func private @precrtCompiledWindowFence(i32, index, i64, i32, i32, index, i32, index) -> i32
func.func private @precrtCompiledCollective(i32, index, index, i64, i32, i32, i32, index, i32, index) -> i32
func.func private @precrtCompiledGridRank(i64) -> i64
func.func @selected(%d: !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>,
                    %other: memref<8xbf16>, %out: memref<8xbf16>, %c: i1,
                    %i: i32, %n: i64, %p: index) {
  %c0 = arith.constant 0 : index
  %bytes = builtin.unrealized_conversion_cast %d : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> to memref<16xi8> {prec.peer_window}
  %address = memref.extract_aligned_pointer_as_index %bytes : memref<16xi8> -> index
  %0 = call @precrtCompiledWindowFence(%i, %address, %n, %i, %i, %p, %i, %p) : (i32, index, i64, i32, i32, index, i32, index) -> i32
  %view = memref.view %bytes[%c0][] : memref<16xi8> to memref<8xbf16>
  %s = arith.select %c, %view, %other : memref<8xbf16>
  %r = call @precrtCompiledGridRank(%n) : (i64) -> i64
  memref.copy %s, %out : memref<8xbf16> to memref<8xbf16>
  // expected-note @below {{the next collective}}
  %1 = call @precrtCompiledCollective(%i, %p, %p, %n, %i, %i, %i, %p, %i, %p) : (i32, index, index, i64, i32, i32, i32, index, i32, index) -> i32
  // expected-error @below {{uses a peer window's slot after the next collective}}
  memref.copy %s, %out : memref<8xbf16> to memref<8xbf16>
  return
}
