// A gathered member of one element is a view into a row of the received
// buffer; its copy kernel stores it through a unit-stride view.
// RUN: prec-opt %s --prec-lower-to-cuda="format=isa" | FileCheck %s
// CHECK: llvm.func @gather_members(
// CHECK: gpu.binary @gather_members_kernel

shard.grid @dp(shape = 4)
func.func @gather_members(%b: tensor<5xf32>, %c: tensor<1xf32>) -> (tensor<20xf32>, tensor<4xf32>) {
  %0 = prec.all_gather %b on @dp gather_axis = 0 : tensor<5xf32> -> tensor<20xf32>
  %1 = prec.all_gather %c on @dp gather_axis = 0 : tensor<1xf32> -> tensor<4xf32>
  return %0, %1 : tensor<20xf32>, tensor<4xf32>
}
