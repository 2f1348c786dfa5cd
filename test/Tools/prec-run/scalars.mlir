// Scalars are read and printed in their own type: integers exactly and in
// range, floats to 8 significant digits, at every step as at the end.
// RUN: prec-run %s --ranks 1 --steps 2 --scalar 0=1.234567e-5 \
// RUN:   --scalar 1=-2147483648 --scalar 2=9007199254740993 | FileCheck %s
// CHECK: step 0: result 0 = 1.234567e-05
// CHECK: step 0: result 1 = -2147483648
// CHECK: step 0: result 2 = 9007199254740993
// CHECK: rank 0: result 0: f32 = [1.234567e-05]
// CHECK: rank 0: result 1: i32 = [-2147483648]
// CHECK: rank 0: result 2: i64 = [9007199254740993]

// RUN: not prec-run %s --ranks 1 --scalar 0=1 --scalar 1=2.7 --scalar 2=0 2>&1 \
// RUN:   | FileCheck %s --check-prefix=FRACTION
// FRACTION: prec-run: error: --scalar 1=2.7: argument 1 (i32): expected an integer, got '2.7'
// RUN: not prec-run %s --ranks 1 --scalar 0=1 --scalar 1=2147483648 --scalar 2=0 2>&1 \
// RUN:   | FileCheck %s --check-prefix=RANGE
// RANGE: prec-run: error: --scalar 1=2147483648: argument 1 (i32): expected an integer in the range of i32, got '2147483648'
// RUN: not prec-run %s --ranks 1 --scalar 0=1e39 --scalar 1=0 --scalar 2=0 2>&1 \
// RUN:   | FileCheck %s --check-prefix=F32
// F32: prec-run: error: --scalar 0=1e39: argument 0 (f32): expected a number in the range of f32, got '1e39'
// RUN: prec-run %s --ranks 1 --scalar 0=inf --scalar 1=+5 --scalar 2=-0 | FileCheck %s --check-prefix=SIGNS
// SIGNS: rank 0: result 0: f32 = [inf]
// SIGNS: rank 0: result 1: i32 = [5]
// SIGNS: rank 0: result 2: i64 = [0]
// RUN: not prec-run %s --ranks 1 --scalar 0=1 --scalar 1=0 --scalar 2=1e20 2>&1 \
// RUN:   | FileCheck %s --check-prefix=I64
// I64: prec-run: error: --scalar 2=1e20: argument 2 (i64): expected an integer, got '1e20'

func.func @scalars(%f: f32, %i: i32, %l: i64) -> (f32, i32, i64) {
  return %f, %i, %l : f32, i32, i64
}
