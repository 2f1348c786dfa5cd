// Scalars are read and printed in their own type: integers exactly and in
// range, floats to 8 significant digits, at every step as at the end.
// RUN: prec-run %s --ranks 1 --steps 2 --scalar 0=1.234567e-5 \
// RUN:   --scalar 1=-2147483648 --scalar 2=9007199254740993 --scalar 3=0 --scalar 4=0 | FileCheck %s
// CHECK: step 0: result 0 = 1.234567e-05
// CHECK: step 0: result 1 = -2147483648
// CHECK: step 0: result 2 = 9007199254740993
// CHECK: rank 0: result 0: f32 = [1.234567e-05]
// CHECK: rank 0: result 1: i32 = [-2147483648]
// CHECK: rank 0: result 2: i64 = [9007199254740993]

// RUN: not prec-run %s --ranks 1 --scalar 0=1 --scalar 1=2.7 --scalar 2=0 2>&1 \
// RUN:   | FileCheck %s --check-prefix=FRACTION
// FRACTION: prec-run: error: --scalar 1=2.7: argument 1 'i' (i32): expected an integer, got '2.7'
// RUN: not prec-run %s --ranks 1 --scalar 0=1 --scalar 1=2147483648 --scalar 2=0 2>&1 \
// RUN:   | FileCheck %s --check-prefix=RANGE
// RANGE: prec-run: error: --scalar 1=2147483648: argument 1 'i' (i32): expected an integer in the range of i32 (-2147483648 to 2147483647), got '2147483648'
// RUN: not prec-run %s --ranks 1 --scalar 0=1e39 --scalar 1=0 --scalar 2=0 2>&1 \
// RUN:   | FileCheck %s --check-prefix=F32
// F32: prec-run: error: --scalar 0=1e39: argument 0 'f' (f32): expected a number in the range of f32, got '1e39'
// RUN: prec-run %s --ranks 1 --scalar 0=inf --scalar 1=+5 --scalar 2=-0 --scalar 3=0 --scalar 4=0 | FileCheck %s --check-prefix=SIGNS
// SIGNS: rank 0: result 0: f32 = [inf]
// SIGNS: rank 0: result 1: i32 = [5]
// SIGNS: rank 0: result 2: i64 = [0]
// RUN: not prec-run %s --ranks 1 --scalar 0=1 --scalar 1=0 --scalar 2=1e20 2>&1 \
// RUN:   | FileCheck %s --check-prefix=I64
// I64: prec-run: error: --scalar 2=1e20: argument 2 'l' (i64): expected an integer, got '1e20'

// Decimals beyond f64 are not infinity or 0 unless they say so; a non-zero
// number that rounds to 0 in the argument's type is out of its range too.
// RUN: not prec-run %s --ranks 1 --scalar 0=1 --scalar 1=0 --scalar 2=0 --scalar 3=1e400 2>&1 \
// RUN:   | FileCheck %s --check-prefix=F64
// F64: prec-run: error: --scalar 3=1e400: argument 3 'd' (f64): expected a number in the range of f64, got '1e400'
// RUN: not prec-run %s --ranks 1 --scalar 0=1 --scalar 1=0 --scalar 2=0 --scalar 3=-1e-400 2>&1 \
// RUN:   | FileCheck %s --check-prefix=F64-ZERO
// F64-ZERO: prec-run: error: --scalar 3=-1e-400: argument 3 'd' (f64): expected a number in the range of f64 (it rounds to 0), got '-1e-400'
// RUN: not prec-run %s --ranks 1 --scalar 0=1e-50 --scalar 1=0 --scalar 2=0 2>&1 \
// RUN:   | FileCheck %s --check-prefix=F32-ZERO
// F32-ZERO: prec-run: error: --scalar 0=1e-50: argument 0 'f' (f32): expected a number in the range of f32 (it rounds to 0), got '1e-50'
// RUN: prec-run %s --ranks 1 --scalar 0=1e-45 --scalar 1=0 --scalar 2=0 --scalar 3=-inf --scalar 4=0 \
// RUN:   | FileCheck %s --check-prefix=EDGES
// EDGES: rank 0: result 0: f32 = [1.4012985e-45]
// EDGES: rank 0: result 3: f64 = [-inf]
// EDGES: rank 0: result 4: index = [0]
// RUN: not prec-run %s --ranks 1 --scalar 0=1 --scalar 1=0 --scalar 2=0 --scalar 4=-1 2>&1 \
// RUN:   | FileCheck %s --check-prefix=INDEX
// INDEX: prec-run: error: --scalar 4=-1: argument 4 'n' (index): expected a non-negative integer (an index is a size or a position), got '-1'

func.func @scalars(%f: f32, %i: i32, %l: i64, %d: f64, %n: index)
    -> (f32, i32, i64, f64, index) {
  return %f, %i, %l, %d, %n : f32, i32, i64, f64, index
}
