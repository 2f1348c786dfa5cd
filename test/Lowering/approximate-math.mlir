// RUN: prec-opt %s --prec-approximate-math | FileCheck %s

// CHECK-LABEL: func.func @f32
// CHECK-NOT:     math.tanh
// CHECK:         math.fma
// CHECK:         arith.divf
// CHECK-NOT:     math.tanh
// CHECK:         return
func.func @f32(%x: f32) -> f32 {
  %y = math.tanh %x : f32
  return %y : f32
}

// Vectors keep their shape.
// CHECK-LABEL: func.func @vector
// CHECK-NOT:     math.tanh
// CHECK:         math.fma {{.*}} : vector<8xf32>
// CHECK:         arith.divf {{.*}} : vector<8xf32>
func.func @vector(%x: vector<8xf32>) -> vector<8xf32> {
  %y = math.tanh %x : vector<8xf32>
  return %y : vector<8xf32>
}

// bf16 and f16 in f32, rounded once to their type at the end.
// CHECK-LABEL: func.func @bf16
// CHECK:         %[[WIDE:.+]] = arith.extf %{{.*}} : bf16 to f32
// CHECK-NOT:     math.tanh
// CHECK:         arith.divf
// CHECK:         %[[NARROW:.+]] = arith.truncf %{{.+}} : f32 to bf16
// CHECK-NEXT:    return %[[NARROW]]
func.func @bf16(%x: bf16) -> bf16 {
  %y = math.tanh %x : bf16
  return %y : bf16
}

// Inside a kernel's body, as the pipelines run it.
// CHECK-LABEL: func.func @generic
// CHECK:         linalg.generic
// CHECK-NOT:     math.tanh
// CHECK:         linalg.yield
#id = affine_map<(d0) -> (d0)>
func.func @generic(%x: tensor<4xf16>) -> tensor<4xf16> {
  %e = tensor.empty() : tensor<4xf16>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<4xf16>) outs(%e : tensor<4xf16>) {
  ^bb0(%a: f16, %o: f16):
    %y = math.tanh %a : f16
    linalg.yield %y : f16
  } -> tensor<4xf16>
  return %r : tensor<4xf16>
}

// f64 keeps libm's tanh: the approximation is f32's.
// CHECK-LABEL: func.func @f64
// CHECK:         math.tanh %{{.*}} : f64
func.func @f64(%x: f64) -> f64 {
  %y = math.tanh %x : f64
  return %y : f64
}
