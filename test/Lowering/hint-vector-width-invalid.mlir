// RUN: not prec-opt %s --prec-hint-vector-width=vector-bits=12 2>&1 | FileCheck %s
// RUN: not prec-opt %s --prec-hint-vector-width=vector-bits=0 2>&1 | FileCheck %s --check-prefix=ZERO

// CHECK: error: prec-hint-vector-width: vector-bits must be a power of two of at least 8, got 12
// ZERO: error: prec-hint-vector-width: vector-bits must be a power of two of at least 8, got 0

// In a pipeline, the value is checked before its first pass runs (the pass
// runs near the end of prec-lower-to-cpu).
// RUN: not prec-opt %s --prec-lower-to-cpu=vector-bits=12 --mlir-print-ir-after=prec-apply-policy 2>&1 | FileCheck %s --check-prefix=EARLY --implicit-check-not="IR Dump"
// EARLY: error: prec-hint-vector-width: vector-bits must be a power of two of at least 8, got 12
func.func @f() {
  return
}
