// A loop whose carried tensor is a collective's result, yielded as it is:
// bufferization gives each iteration a fresh buffer and frees the previous
// one. Rank r's argument is [r, r + 1, ..., r + 7]; three all-reduce sums
// give 16 * (4 i + 6) = 64 i + 96, both through the backend's ring in f32
// and through a reduce-scatter and all-gather with a bf16 wire and f32
// accumulation (every wire value is an integer below 256: exact in bf16).
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -c "import struct; [open('%t/g%%d.bin' %% r, 'wb').write(struct.pack('<8f', *[i + r for i in range(8)])) for r in range(4)]"
// RUN: prec-run %s --arg 0=%t/g%%r.bin --scalar 1=3 --print values | FileCheck %s
// CHECK: rank [[R0:[0-3]]]: result 0: tensor<8xf32> = [96, 160, 224, 288, 352, 416, 480, 544]
// CHECK-NEXT: rank [[R0]]: result 1: tensor<8xf32> = [96, 160, 224, 288, 352, 416, 480, 544]
// CHECK: rank [[R1:[0-3]]]: result 0: tensor<8xf32> = [96, 160, 224, 288, 352, 416, 480, 544]
// CHECK-NEXT: rank [[R1]]: result 1: tensor<8xf32> = [96, 160, 224, 288, 352, 416, 480, 544]
// CHECK: rank [[R2:[0-3]]]: result 0: tensor<8xf32> = [96, 160, 224, 288, 352, 416, 480, 544]
// CHECK-NEXT: rank [[R2]]: result 1: tensor<8xf32> = [96, 160, 224, 288, 352, 416, 480, 544]
// CHECK: rank [[R3:[0-3]]]: result 0: tensor<8xf32> = [96, 160, 224, 288, 352, 416, 480, 544]
// CHECK-NEXT: rank [[R3]]: result 1: tensor<8xf32> = [96, 160, 224, 288, 352, 416, 480, 544]

shard.grid @dp(shape = 4)

func.func @step(%g: tensor<8xf32>, %n: index) -> (tensor<8xf32>, tensor<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %ring = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %g) -> tensor<8xf32> {
    %s = prec.all_reduce %acc on @dp reduction = <sum> : tensor<8xf32> -> tensor<8xf32>
    scf.yield %s : tensor<8xf32>
  }
  %direct = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %g) -> tensor<8xf32> {
    %part = prec.reduce_scatter %acc on @dp scatter_axis = 0 reduction = <sum>
              forward_dtype = bf16 acc_dtype = f32 : tensor<8xf32> -> tensor<2xf32>
    %s = prec.all_gather %part on @dp gather_axis = 0 : tensor<2xf32> -> tensor<8xf32>
    scf.yield %s : tensor<8xf32>
  }
  return %ring, %direct : tensor<8xf32>, tensor<8xf32>
}
