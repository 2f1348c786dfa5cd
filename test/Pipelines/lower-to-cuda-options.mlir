// An unknown kernel format is an error before anything runs.
// RUN: not prec-opt %s --prec-lower-to-cuda="format=bogus" 2>&1 | FileCheck %s
// CHECK: prec-lower-to-cuda: expected format isa, bin or fatbin (or upstream's assembly, binary, fatbinary, llvm, offloading), got 'bogus'

// Upstream's names for the formats are accepted.
// RUN: prec-opt %s --prec-lower-to-cuda="format=assembly" | FileCheck %s --check-prefix=ALIAS
// ALIAS: llvm.func @f

func.func @f() {
  return
}
