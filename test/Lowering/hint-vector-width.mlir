// RUN: prec-opt %s --prec-hint-vector-width | FileCheck %s
// RUN: prec-opt %s --prec-hint-vector-width=vector-bits=512 | FileCheck %s --check-prefix=WIDE
// RUN: prec-opt %s --prec-hint-vector-width --convert-scf-to-cf --finalize-memref-to-llvm \
// RUN:   --convert-to-llvm --reconcile-unrealized-casts | mlir-translate --mlir-to-llvmir \
// RUN:   | FileCheck %s --check-prefix=LLVMIR

// f32 in, fp8 out: vectors of 32 lanes (256 bits of bytes), not LLVM's 8.
// CHECK-DAG: #[[$VF32:.*]] = #llvm.loop_vectorize<width = 32 : i32>
// CHECK-DAG: #[[$VF16:.*]] = #llvm.loop_vectorize<width = 16 : i32>
// CHECK-DAG: #[[$HINT32:.*]] = #llvm.loop_annotation<vectorize = #[[$VF32]]>
// CHECK-DAG: #[[$HINT16:.*]] = #llvm.loop_annotation<vectorize = #[[$VF16]]>
// CHECK-LABEL: func @narrowing
// CHECK: scf.for
// CHECK: } {loop_annotation = #[[$HINT32]]}
// WIDE-DAG: #llvm.loop_vectorize<width = 64 : i32>
// WIDE-DAG: #llvm.loop_vectorize<width = 32 : i32>
// LLVMIR-LABEL: define void @narrowing
// LLVMIR: br label %{{.*}}, !llvm.loop ![[LOOP:[0-9]+]]
// LLVMIR: ![[LOOP]] = distinct !{![[LOOP]], ![[WIDTH:[0-9]+]]}
// LLVMIR: ![[WIDTH]] = !{!"llvm.loop.vectorize.width", i32 32}
func.func @narrowing(%x: memref<1024xf32>, %s: memref<f32>, %q: memref<1024xi8>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant 1024 : index
  scf.for %j = %c0 to %n step %c1 {
    %v = memref.load %x[%j] : memref<1024xf32>
    %scale = memref.load %s[] : memref<f32>
    %d = arith.divf %v, %scale : f32
    %b = arith.fptosi %d : f32 to i8
    memref.store %b, %q[%j] : memref<1024xi8>
  }
  return
}

// The innermost loop of a 2-D kernel, rows outer: bf16 in, f32 out.
// CHECK-LABEL: func @widening_rows
// CHECK: scf.for
// CHECK: scf.for
// CHECK: } {loop_annotation = #[[$HINT16]]}
// CHECK-NEXT: }
// CHECK-NEXT: return
func.func @widening_rows(%x: memref<4x64xbf16>, %y: memref<4x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  scf.for %i = %c0 to %c4 step %c1 {
    scf.for %j = %c0 to %c64 step %c1 {
      %v = memref.load %x[%i, %j] : memref<4x64xbf16>
      %w = arith.extf %v : bf16 to f32
      memref.store %w, %y[%i, %j] : memref<4x64xf32>
    }
  }
  return
}

// Left to LLVM: one element width; a gather by a loaded index (a table
// lookup); a column (stride 64); a block scale read at j floordiv 32; a
// reduction carried by the loop; a reduction through memory (the form of
// convert-linalg-to-loops, whose f32 sum a hint would let LLVM reorder);
// one width among the contiguous accesses, beside a narrow scale read at
// one position.
// CHECK-LABEL: func @left_alone
// CHECK-NOT: loop_annotation
// CHECK: return
func.func @left_alone(%a: memref<64xf32>, %b: memref<64xf32>, %codes: memref<64xi8>,
                      %table: memref<256xf32>, %m: memref<64x64xf32>,
                      %scales: memref<2xi8>) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  scf.for %j = %c0 to %c64 step %c1 {
    %v = memref.load %a[%j] : memref<64xf32>
    memref.store %v, %b[%j] : memref<64xf32>
  }
  scf.for %j = %c0 to %c64 step %c1 {
    %code = memref.load %codes[%j] : memref<64xi8>
    %index = arith.index_castui %code : i8 to index
    %v = memref.load %table[%index] : memref<256xf32>
    memref.store %v, %b[%j] : memref<64xf32>
  }
  scf.for %j = %c0 to %c64 step %c1 {
    %v = memref.load %m[%j, %c0] : memref<64x64xf32>
    %c = arith.fptosi %v : f32 to i8
    memref.store %c, %codes[%j] : memref<64xi8>
  }
  scf.for %j = %c0 to %c64 step %c1 {
    %block = arith.divui %j, %c32 : index
    %s = memref.load %scales[%block] : memref<2xi8>
    %v = arith.sitofp %s : i8 to f32
    memref.store %v, %a[%j] : memref<64xf32>
  }
  %total = memref.alloca() : memref<f32>
  scf.for %j = %c0 to %c64 step %c1 {
    %c = memref.load %codes[%j] : memref<64xi8>
    %v = arith.sitofp %c : i8 to f32
    %acc = memref.load %total[] : memref<f32>
    %next = arith.addf %acc, %v : f32
    memref.store %next, %total[] : memref<f32>
  }
  %scale = memref.alloca() : memref<i8>
  scf.for %j = %c0 to %c64 step %c1 {
    %v = memref.load %a[%j] : memref<64xf32>
    %s = memref.load %scale[] : memref<i8>
    %f = arith.sitofp %s : i8 to f32
    %p = arith.mulf %v, %f : f32
    memref.store %p, %b[%j] : memref<64xf32>
  }
  %sum = scf.for %j = %c0 to %c64 step %c1 iter_args(%acc = %zero) -> f32 {
    %c = memref.load %codes[%j] : memref<64xi8>
    %v = arith.sitofp %c : i8 to f32
    %next = arith.addf %acc, %v : f32
    scf.yield %next : f32
  }
  return %sum : f32
}

// Left to LLVM: fewer than 16 iterations, which LLVM's vectorizer treats as
// a loop to optimize for size (no runtime alias checks); a width asked for
// there would be reported as a loop not vectorized, once per such loop.
// Sixteen iterations get their hint.
// CHECK-LABEL: func @tiny_trip_count
// CHECK: scf.for
// CHECK-NOT: loop_annotation
// CHECK: } {loop_annotation = #[[$HINT16]]}
// CHECK-NEXT: return
func.func @tiny_trip_count(%x: memref<15xbf16>, %y: memref<15xf32>,
                           %u: memref<16xbf16>, %v: memref<16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c15 = arith.constant 15 : index
  %c16 = arith.constant 16 : index
  scf.for %j = %c0 to %c15 step %c1 {
    %a = memref.load %x[%j] : memref<15xbf16>
    %b = arith.extf %a : bf16 to f32
    memref.store %b, %y[%j] : memref<15xf32>
  }
  scf.for %j = %c0 to %c16 step %c1 {
    %a = memref.load %u[%j] : memref<16xbf16>
    %b = arith.extf %a : bf16 to f32
    memref.store %b, %v[%j] : memref<16xf32>
  }
  return
}
