// An unknown kernel format is an error before anything runs.
// RUN: not prec-opt %s --prec-lower-to-cuda="format=bogus" 2>&1 | FileCheck %s
// CHECK: prec-lower-to-cuda: expected format isa, bin or fatbin, got 'bogus'

func.func @f() {
  return
}
