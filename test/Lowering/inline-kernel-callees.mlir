// RUN: prec-opt %s --prec-inline-kernel-callees --split-input-file | FileCheck %s

#id = affine_map<(d0) -> (d0)>

// The callee returns a kernel's result (through a slice) and the caller
// reads it in a kernel: the call is inlined and the callee, called nowhere
// else, erased.
// CHECK-NOT: func.func private @grads
// CHECK-LABEL: func.func @step
// CHECK-SAME: (%[[W:.*]]: tensor<4xf32>, %[[R:.*]]: tensor<8xf32>)
// CHECK-NOT: call
// CHECK: %[[AVG:.*]] = linalg.generic {{.*}} ins(%[[R]] : tensor<8xf32>)
// CHECK: %[[G:.*]] = tensor.extract_slice %[[AVG]][0] [4] [1]
// CHECK: linalg.generic {{.*}} ins(%[[W]], %[[G]] : tensor<4xf32>, tensor<4xf32>)
func.func private @grads(%r: tensor<8xf32>) -> tensor<4xf32> {
  %four = arith.constant 4.0 : f32
  %e = tensor.empty() : tensor<8xf32>
  %avg = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%r : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = arith.divf %x, %four : f32
    linalg.yield %y : f32
  } -> tensor<8xf32>
  %g = tensor.extract_slice %avg[0] [4] [1] : tensor<8xf32> to tensor<4xf32>
  return %g : tensor<4xf32>
}

func.func @step(%w: tensor<4xf32>, %r: tensor<8xf32>) -> tensor<4xf32> {
  %g = call @grads(%r) : (tensor<8xf32>) -> tensor<4xf32>
  %e = tensor.empty() : tensor<4xf32>
  %n = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%w, %g : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %z = arith.subf %a, %b : f32
    linalg.yield %z : f32
  } -> tensor<4xf32>
  return %n : tensor<4xf32>
}

// -----

#id = affine_map<(d0) -> (d0)>

// Called twice: both calls are inlined; the callee goes with the last.
// CHECK-NOT: func.func private @twice
// CHECK-LABEL: func.func @twice_caller
// CHECK-NOT: call
// CHECK-COUNT-4: linalg.generic
func.func private @twice(%r: tensor<4xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %n = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%r : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = arith.negf %x : f32
    linalg.yield %y : f32
  } -> tensor<4xf32>
  return %n : tensor<4xf32>
}

func.func @twice_caller(%r: tensor<4xf32>) -> tensor<4xf32> {
  %a = call @twice(%r) : (tensor<4xf32>) -> tensor<4xf32>
  %b = call @twice(%a) : (tensor<4xf32>) -> tensor<4xf32>
  %e = tensor.empty() : tensor<4xf32>
  %n = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%a, %b : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %z = arith.addf %x, %y : f32
    linalg.yield %z : f32
  } -> tensor<4xf32>
  %e2 = tensor.empty() : tensor<4xf32>
  %m = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%n : tensor<4xf32>) outs(%e2 : tensor<4xf32>) {
  ^bb0(%x: f32, %o: f32):
    %z = arith.negf %x : f32
    linalg.yield %z : f32
  } -> tensor<4xf32>
  return %m : tensor<4xf32>
}

// -----

#id = affine_map<(d0) -> (d0)>

// Calls that stay: a public callee (others may call it), a callee whose
// result is no kernel's (an argument), and a result no kernel reads.
// CHECK-LABEL: func.func @public_callee
// CHECK-LABEL: func.func private @passthrough
// CHECK-LABEL: func.func private @kernel
// CHECK-LABEL: func.func @caller
// CHECK: call @public_callee
// CHECK: call @passthrough
// CHECK: call @kernel
func.func @public_callee(%r: tensor<4xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %n = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%r : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = arith.negf %x : f32
    linalg.yield %y : f32
  } -> tensor<4xf32>
  return %n : tensor<4xf32>
}

func.func private @passthrough(%r: tensor<4xf32>) -> tensor<4xf32> {
  return %r : tensor<4xf32>
}

func.func private @kernel(%r: tensor<4xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %n = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%r : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = arith.negf %x : f32
    linalg.yield %y : f32
  } -> tensor<4xf32>
  return %n : tensor<4xf32>
}

func.func @caller(%r: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %a = call @public_callee(%r) : (tensor<4xf32>) -> tensor<4xf32>
  %b = call @passthrough(%a) : (tensor<4xf32>) -> tensor<4xf32>
  %c = call @kernel(%r) : (tensor<4xf32>) -> tensor<4xf32>
  %e = tensor.empty() : tensor<4xf32>
  %n = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%a, %b : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %z = arith.addf %x, %y : f32
    linalg.yield %z : f32
  } -> tensor<4xf32>
  return %n, %c : tensor<4xf32>, tensor<4xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>

// What the callee's contractions may compute below the contract goes with
// them: they take the callee's prec.reduced_precision; the other ops, and
// the caller's, stay as they are.
// CHECK-LABEL: func.func @allows_nothing
// CHECK-NOT: prec.reduced_precision
// CHECK: linalg.matmul {prec.reduced_precision = #prec.reduced_precision<tf32>}
// CHECK-NOT: prec.reduced_precision
// CHECK: return
func.func private @allows_tf32(%a: tensor<4x2xf32>, %b: tensor<2x4xf32>) -> tensor<4x4xf32>
    attributes {prec.reduced_precision = #prec.reduced_precision<tf32>} {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x4xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  %p = linalg.matmul ins(%a, %b : tensor<4x2xf32>, tensor<2x4xf32>) outs(%z : tensor<4x4xf32>) -> tensor<4x4xf32>
  %n = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%p : tensor<4x4xf32>) outs(%e : tensor<4x4xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = arith.negf %x : f32
    linalg.yield %y : f32
  } -> tensor<4x4xf32>
  return %n : tensor<4x4xf32>
}

func.func @allows_nothing(%a: tensor<4x2xf32>, %b: tensor<2x4xf32>) -> tensor<4x4xf32> {
  %r = call @allows_tf32(%a, %b) : (tensor<4x2xf32>, tensor<2x4xf32>) -> tensor<4x4xf32>
  %e = tensor.empty() : tensor<4x4xf32>
  %n = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%r : tensor<4x4xf32>) outs(%e : tensor<4x4xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = arith.negf %x : f32
    linalg.yield %y : f32
  } -> tensor<4x4xf32>
  return %n : tensor<4x4xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>

// Nor do they take more than their own: a callee that allows nothing,
// inlined into a caller that allows tf32, keeps its contractions at the
// contract.
// CHECK-LABEL: func.func @allows_tf32_caller
// CHECK: linalg.matmul {prec.reduced_precision = #prec.reduced_precision<none>}
func.func private @allows_none(%a: tensor<4x2xf32>, %b: tensor<2x4xf32>) -> tensor<4x4xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x4xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  %p = linalg.matmul ins(%a, %b : tensor<4x2xf32>, tensor<2x4xf32>) outs(%z : tensor<4x4xf32>) -> tensor<4x4xf32>
  %n = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%p : tensor<4x4xf32>) outs(%e : tensor<4x4xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = arith.negf %x : f32
    linalg.yield %y : f32
  } -> tensor<4x4xf32>
  return %n : tensor<4x4xf32>
}

func.func @allows_tf32_caller(%a: tensor<4x2xf32>, %b: tensor<2x4xf32>) -> tensor<4x4xf32>
    attributes {prec.reduced_precision = #prec.reduced_precision<tf32>} {
  %r = call @allows_none(%a, %b) : (tensor<4x2xf32>, tensor<2x4xf32>) -> tensor<4x4xf32>
  %e = tensor.empty() : tensor<4x4xf32>
  %n = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%r : tensor<4x4xf32>) outs(%e : tensor<4x4xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = arith.negf %x : f32
    linalg.yield %y : f32
  } -> tensor<4x4xf32>
  return %n : tensor<4x4xf32>
}
