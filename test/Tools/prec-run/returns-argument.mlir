// A function may return its arguments: the pipeline lowers the copy that
// deallocation inserts for them, and prec-run does not free a buffer it owns.
// RUN: prec-run %s --ranks 1 --print values | FileCheck %s
// CHECK: rank 0: result 0: tensor<4xf32> = [[[V:.*]]]
// CHECK: rank 0: result 1: tensor<4xf32> = [[[V]]]

func.func @identity(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  return %x, %x : tensor<4xf32>, tensor<4xf32>
}
