// RUN: prec-opt %s --pass-pipeline="builtin.module(func.func(prec-fill-splat-destinations))" | FileCheck %s
// After bufferization, a fill rather than a copy of a global constant.
// RUN: prec-opt %s --pass-pipeline="builtin.module(func.func(prec-fill-splat-destinations), one-shot-bufferize{bufferize-function-boundaries})" \
// RUN:   | FileCheck %s --check-prefix=BUFFERS

// Each destination gets its own fill; the shared constant goes.
// CHECK-LABEL: func.func @shared_zero
// CHECK-NOT:     arith.constant dense
// CHECK:         %[[E0:.+]] = tensor.empty() : tensor<8x32xf32>
// CHECK:         %[[F0:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%[[E0]] : tensor<8x32xf32>)
// CHECK:         linalg.matmul {{.*}} outs(%[[F0]] : tensor<8x32xf32>)
// CHECK:         %[[E1:.+]] = tensor.empty() : tensor<8x32xf32>
// CHECK:         %[[F1:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%[[E1]] : tensor<8x32xf32>)
// CHECK:         linalg.matmul {{.*}} outs(%[[F1]] : tensor<8x32xf32>)
// BUFFERS-LABEL: func.func @shared_zero
// BUFFERS-NOT:     memref.get_global
// BUFFERS-NOT:     memref.copy
// BUFFERS:         linalg.fill
func.func @shared_zero(%a: tensor<8x16xf32>, %b: tensor<16x32xf32>, %c: tensor<16x32xf32>) -> (tensor<8x32xf32>, tensor<8x32xf32>) {
  %zero = arith.constant dense<0.0> : tensor<8x32xf32>
  %r = linalg.matmul ins(%a, %b : tensor<8x16xf32>, tensor<16x32xf32>) outs(%zero : tensor<8x32xf32>) -> tensor<8x32xf32>
  %s = linalg.matmul ins(%a, %c : tensor<8x16xf32>, tensor<16x32xf32>) outs(%zero : tensor<8x32xf32>) -> tensor<8x32xf32>
  return %r, %s : tensor<8x32xf32>, tensor<8x32xf32>
}

// The splat's value and type are kept (bf16 here); a constant that is also
// read as an input stays for that read.
// CHECK-LABEL: func.func @input_too
// CHECK:         %[[C:.+]] = arith.constant dense<1.500000e+00> : tensor<4xbf16>
// CHECK:         %[[S:.+]] = arith.constant 1.500000e+00 : bf16
// CHECK:         %[[F:.+]] = linalg.fill ins(%[[S]] : bf16) outs(%{{.+}} : tensor<4xbf16>)
// CHECK:         linalg.generic {{.*}} ins(%[[C]] : tensor<4xbf16>) outs(%[[F]] : tensor<4xbf16>)
#id = affine_map<(d0) -> (d0)>
func.func @input_too() -> tensor<4xbf16> {
  %c = arith.constant dense<1.5> : tensor<4xbf16>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%c : tensor<4xbf16>) outs(%c : tensor<4xbf16>) {
  ^bb0(%in: bf16, %out: bf16):
    %s = arith.addf %in, %out : bf16
    linalg.yield %s : bf16
  } -> tensor<4xbf16>
  return %r : tensor<4xbf16>
}

// Left alone: a constant that is not a splat, and fills themselves.
// CHECK-LABEL: func.func @untouched
// CHECK:         %[[C:.+]] = arith.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
// CHECK:         linalg.generic {{.*}} outs(%[[C]] : tensor<2xf32>)
// CHECK:         linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : tensor<2xf32>)
func.func @untouched(%x: tensor<2xf32>, %v: f32) -> (tensor<2xf32>, tensor<2xf32>) {
  %c = arith.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%x : tensor<2xf32>) outs(%c : tensor<2xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %in, %out : f32
    linalg.yield %s : f32
  } -> tensor<2xf32>
  %z = arith.constant dense<0.0> : tensor<2xf32>
  %f = linalg.fill ins(%v : f32) outs(%z : tensor<2xf32>) -> tensor<2xf32>
  return %r, %f : tensor<2xf32>, tensor<2xf32>
}
