// The tie rule of max and min: the gradient is split evenly among the
// elements equal to the result (for a reduction, the init counts as one).
// Exact values, not finite differences: max is not differentiable at a tie.
// RUN: prec-run %s --ranks 1 --print values | FileCheck %s

// The row maximum 3 is reached twice and by the init: a third each.
func.func private @row_max(%x: tensor<4xf64>, %init: tensor<f64>) -> tensor<f64>
    attributes {prec.differentiable} {
  %m = linalg.reduce ins(%x : tensor<4xf64>) outs(%init : tensor<f64>) dimensions = [0]
    (%in: f64, %acc: f64) {
      %r = arith.maximumf %in, %acc : f64
      linalg.yield %r : f64
    }
  return %m : tensor<f64>
}

// min(a, b) elementwise, inside a generic: a tie gives half to each.
func.func private @pair_min(%a: tensor<3xf64>, %b: tensor<3xf64>) -> tensor<3xf64>
    attributes {prec.differentiable} {
  %empty = tensor.empty() : tensor<3xf64>
  %m = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>,
                                        affine_map<(d0) -> (d0)>],
                       iterator_types = ["parallel"]}
      ins(%a, %b : tensor<3xf64>, tensor<3xf64>) outs(%empty : tensor<3xf64>) {
  ^bb0(%x: f64, %y: f64, %out: f64):
    %r = arith.minimumf %x, %y : f64
    linalg.yield %r : f64
  } -> tensor<3xf64>
  return %m : tensor<3xf64>
}

func.func private @row_max_backward(tensor<4xf64>, tensor<f64>, tensor<f64>) -> (tensor<4xf64>, tensor<f64>)
func.func private @pair_min_backward(tensor<3xf64>, tensor<3xf64>, tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>)

func.func @ties() -> (tensor<4xf64>, tensor<f64>, tensor<3xf64>, tensor<3xf64>) {
  %x = arith.constant dense<[1.0, 3.0, 3.0, 2.0]> : tensor<4xf64>
  %init = arith.constant dense<3.0> : tensor<f64>
  %seed = arith.constant dense<6.0> : tensor<f64>
  %gx, %ginit = call @row_max_backward(%x, %init, %seed)
      : (tensor<4xf64>, tensor<f64>, tensor<f64>) -> (tensor<4xf64>, tensor<f64>)
  %a = arith.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf64>
  %b = arith.constant dense<[1.0, 3.0, 2.0]> : tensor<3xf64>
  %seeds = arith.constant dense<[4.0, 4.0, 4.0]> : tensor<3xf64>
  %ga, %gb = call @pair_min_backward(%a, %b, %seeds)
      : (tensor<3xf64>, tensor<3xf64>, tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>)
  return %gx, %ginit, %ga, %gb : tensor<4xf64>, tensor<f64>, tensor<3xf64>, tensor<3xf64>
}

// CHECK: rank 0: result 0: tensor<4xf64> = [0, 2, 2, 0]
// CHECK: rank 0: result 1: tensor<f64> = [2]
// CHECK: rank 0: result 2: tensor<3xf64> = [2, 4, 0]
// CHECK: rank 0: result 3: tensor<3xf64> = [2, 0, 4]
