// RUN: prec-opt %s --prec-expand-fp8-arith -split-input-file -verify-diagnostics | FileCheck %s --enable-var-scope

// fp8 conversions in a user's scalar code become the integer arithmetic of
// prec's kernels; other conversions stay.
// CHECK-LABEL: func @scalars
// CHECK-SAME: (%[[Q:.*]]: f8E4M3FN, %[[X:.*]]: f32, %[[H:.*]]: f16)
// CHECK: arith.bitcast %[[Q]] : f8E4M3FN to i8
// CHECK-NOT: arith.extf %[[Q]]
// CHECK: %[[WIDE:.*]] = arith.bitcast %{{.*}} : i32 to f32
// CHECK: arith.bitcast %[[X]] : f32 to i32
// CHECK: %[[B:.*]] = arith.trunci %{{.*}} : i32 to i8
// CHECK: %[[N:.*]] = arith.bitcast %[[B]] : i8 to f8E5M2
// CHECK: %[[E:.*]] = arith.extf %[[H]] : f16 to f32
// CHECK: return %[[WIDE]], %[[N]], %[[E]]
func.func @scalars(%q: f8E4M3FN, %x: f32, %h: f16) -> (f32, f8E5M2, f32) {
  %0 = arith.extf %q : f8E4M3FN to f32
  %1 = arith.truncf %x : f32 to f8E5M2
  %2 = arith.extf %h : f16 to f32
  return %0, %1, %2 : f32, f8E5M2, f32
}

// -----

func.func @fp8_arithmetic(%a: f8E4M3FN, %b: f8E4M3FN) -> f8E4M3FN {
  // expected-error @+1 {{'arith.addf' op computes in 'f8E4M3FN', which has no arithmetic: extend it to f32 (arith.extf) and compute there}}
  %0 = arith.addf %a, %b : f8E4M3FN
  return %0 : f8E4M3FN
}

// -----

// prec.saturating_truncf on vectors (the vectorized GPU kernels): the same
// arithmetic with splat constants. |x| is clamped to 448 (the largest
// f8E4M3FN) by a compare a NaN fails, a NaN then becomes 480 (whose
// encoding, 0x7F, is the canonical NaN), and adding 1 carries only 0x7F
// into bit 7, which clears the NaN's sign; no integer compare.
// CHECK-LABEL: func @vectors
// CHECK-SAME: (%[[V:.*]]: vector<16xf32>)
// CHECK-DAG: %[[ONE:.*]] = arith.constant dense<1> : vector<16xi32>
// CHECK-DAG: %[[NAN:.*]] = arith.constant dense<4.800000e+02> : vector<16xf32>
// CHECK-DAG: %[[LARGEST:.*]] = arith.constant dense<4.480000e+02> : vector<16xf32>
// CHECK: arith.bitcast %[[V]] : vector<16xf32> to vector<16xi32>
// CHECK: %[[MAG:.*]] = arith.bitcast %{{.*}} : vector<16xi32> to vector<16xf32>
// CHECK: %[[ABOVE:.*]] = arith.cmpf ogt, %[[MAG]], %[[LARGEST]]
// CHECK: %[[SAT:.*]] = arith.select %[[ABOVE]], %[[LARGEST]], %[[MAG]]
// CHECK: %[[ORDERED:.*]] = arith.cmpf olt, %[[SAT]], %[[NAN]]
// CHECK: %[[FINITE:.*]] = arith.select %[[ORDERED]], %[[SAT]], %[[NAN]]
// CHECK: %[[ENC:.*]] = arith.select %{{.*}} : vector<16xi1>, vector<16xi32>
// CHECK: %[[CARRY:.*]] = arith.addi %[[ENC]], %[[ONE]]
// CHECK: arith.xori %[[CARRY]]
// CHECK-NOT: arith.cmpi
// CHECK: %[[B:.*]] = arith.trunci %{{.*}} : vector<16xi32> to vector<16xi8>
// CHECK: %[[Q:.*]] = arith.bitcast %[[B]] : vector<16xi8> to vector<16xf8E4M3FN>
// CHECK-NOT: prec.saturating_truncf
// CHECK: return %[[Q]]
func.func @vectors(%v: vector<16xf32>) -> vector<16xf8E4M3FN> {
  %0 = prec.saturating_truncf %v : vector<16xf32> to vector<16xf8E4M3FN>
  return %0 : vector<16xf8E4M3FN>
}
