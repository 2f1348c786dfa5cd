// Gradient rules of the tensor ops that move elements (expand_shape,
// collapse_shape, extract_slice, insert_slice, concat, pad), as PyTorch
// exports emit them for views, heads and rotary halves, against central
// differences on every coordinate of every argument, in f64.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/check_finite_differences.py prec-run %s %t reshape slices concat_pad | FileCheck %s
// CHECK: finite differences: 109 values compared ({{[0-9]+}} that 0 would fail), 0 outside tolerance

// A view split into heads and merged back, squared so that the gradient
// depends on where each element went.
func.func private @reshape(%x: tensor<2x6xf64>, %p: tensor<4x3xf64>) -> tensor<f64>
    attributes {prec.differentiable} {
  %e = tensor.expand_shape %x [[0], [1, 2]] output_shape [2, 2, 3]
      : tensor<2x6xf64> into tensor<2x2x3xf64>
  %c = tensor.collapse_shape %e [[0, 1], [2]] : tensor<2x2x3xf64> into tensor<4x3xf64>
  %sq = arith.mulf %c, %c : tensor<4x3xf64>
  %py = arith.mulf %sq, %p : tensor<4x3xf64>
  %l = prec.reduce %py dims = [0, 1] reduction = <sum> acc_dtype = f64 : tensor<4x3xf64> -> tensor<f64>
  return %l : tensor<f64>
}

// Overlapping, strided and rank-reducing slices of x, one of them inserted
// into y (whose overwritten part gets no gradient).
func.func private @slices(%x: tensor<4x6xf64>, %y: tensor<4x6xf64>, %q: tensor<6xf64>)
    -> tensor<f64> attributes {prec.differentiable} {
  %a = tensor.extract_slice %x[1, 2] [2, 3] [1, 1] : tensor<4x6xf64> to tensor<2x3xf64>
  %b = tensor.extract_slice %x[0, 1] [2, 3] [2, 2] : tensor<4x6xf64> to tensor<2x3xf64>
  %ab = arith.mulf %a, %b : tensor<2x3xf64>
  %ins = tensor.insert_slice %ab into %y[2, 3] [2, 3] [1, 1] : tensor<2x3xf64> into tensor<4x6xf64>
  %m = arith.mulf %ins, %x : tensor<4x6xf64>
  %r = tensor.extract_slice %x[3, 0] [1, 6] [1, 1] : tensor<4x6xf64> to tensor<6xf64>
  %rq = arith.mulf %r, %q : tensor<6xf64>
  %rr = arith.mulf %rq, %r : tensor<6xf64>
  %l1 = prec.reduce %m dims = [0, 1] reduction = <sum> acc_dtype = f64 : tensor<4x6xf64> -> tensor<f64>
  %l2 = prec.reduce %rr dims = [0] reduction = <sum> acc_dtype = f64 : tensor<6xf64> -> tensor<f64>
  %l = arith.addf %l1, %l2 : tensor<f64>
  return %l : tensor<f64>
}

// A concatenation (rotary embeddings' halves) padded by zeros.
func.func private @concat_pad(%x: tensor<2x3xf64>, %y: tensor<2x2xf64>, %p: tensor<3x7xf64>)
    -> tensor<f64> attributes {prec.differentiable} {
  %zero = arith.constant 0.0 : f64
  %c = tensor.concat dim(1) %x, %y : (tensor<2x3xf64>, tensor<2x2xf64>) -> tensor<2x5xf64>
  %pd = tensor.pad %c low[1, 0] high[0, 2] {
  ^bb0(%i: index, %j: index):
    tensor.yield %zero : f64
  } : tensor<2x5xf64> to tensor<3x7xf64>
  %sq = arith.mulf %pd, %pd : tensor<3x7xf64>
  %py = arith.mulf %sq, %p : tensor<3x7xf64>
  %l = prec.reduce %py dims = [0, 1] reduction = <sum> acc_dtype = f64 : tensor<3x7xf64> -> tensor<f64>
  return %l : tensor<f64>
}
