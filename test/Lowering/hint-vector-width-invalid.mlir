// RUN: not prec-opt %s --prec-hint-vector-width=vector-bits=12 2>&1 | FileCheck %s
// RUN: not prec-opt %s --prec-hint-vector-width=vector-bits=0 2>&1 | FileCheck %s --check-prefix=ZERO

// CHECK: error: prec-hint-vector-width: vector-bits must be a power of two of at least 8, got 12
// ZERO: error: prec-hint-vector-width: vector-bits must be a power of two of at least 8, got 0
func.func @f() {
  return
}
