// RUN: prec-opt %s --prec-lower-to-cuda="format=isa" --mlir-print-ir-after=prec-map-elementwise-to-gpu -o /dev/null 2>&1 | FileCheck %s

// bf16 on the wire, f32 accumulation over 4 ranks: the direct algorithm's
// unpack kernel is elementwise, so it becomes a vectorized grid-stride
// kernel like the pack kernel: per iteration, 8 elements from each of the 4
// received chunks, summed in f32 in rank order, times 1/4, one store. No
// reduction loop and no accumulator buffer.
shard.grid @dp(shape = 4)

func.func @reduce_gradients(%g: tensor<1024x16xf32>) -> tensor<256x16xf32> {
  %r = prec.reduce_scatter %g on @dp scatter_axis = 0 reduction = <avg>
         forward_dtype = bf16 acc_dtype = f32 : tensor<1024x16xf32> -> tensor<256x16xf32>
  return %r : tensor<256x16xf32>
}

// CHECK-LABEL: IR Dump After PrecMapElementwiseToGPU
// CHECK-NOT:   scf.parallel
// CHECK:       gpu.launch
// CHECK:         vector.load {{.*}} : memref<16384xf32>, vector<8xf32>
// CHECK:         vector.store {{.*}} : memref<16384xbf16>, vector<8xbf16>
// CHECK:       call @precrtCompiledCollective(
// CHECK:       gpu.launch
// CHECK:         %[[C0:.*]] = vector.load %{{.*}} : memref<4096xbf16, strided<[1]>>, vector<8xbf16>
// CHECK-NEXT:    %[[C1:.*]] = vector.load %{{.*}} : memref<4096xbf16, strided<[1], offset: 4096>>, vector<8xbf16>
// CHECK-NEXT:    %[[C2:.*]] = vector.load %{{.*}} : memref<4096xbf16, strided<[1], offset: 8192>>, vector<8xbf16>
// CHECK-NEXT:    %[[C3:.*]] = vector.load %{{.*}} : memref<4096xbf16, strided<[1], offset: 12288>>, vector<8xbf16>
// CHECK-NEXT:    %[[X0:.*]] = arith.extf %[[C0]] : vector<8xbf16> to vector<8xf32>
// CHECK:         %[[S0:.*]] = arith.addf %[[X0]], %{{.*}} : vector<8xf32>
// CHECK-NEXT:    %[[X1:.*]] = arith.extf %[[C1]]
// CHECK-NEXT:    %[[S1:.*]] = arith.addf %[[S0]], %[[X1]]
// CHECK-NEXT:    %[[X2:.*]] = arith.extf %[[C2]]
// CHECK-NEXT:    %[[S2:.*]] = arith.addf %[[S1]], %[[X2]]
// CHECK-NEXT:    %[[X3:.*]] = arith.extf %[[C3]]
// CHECK-NEXT:    %[[S3:.*]] = arith.addf %[[S2]], %[[X3]]
// CHECK:         %[[AVG:.*]] = arith.mulf %[[S3]], %{{.*}} : vector<8xf32>
// CHECK-NEXT:    vector.store %[[AVG]], %{{.*}} : memref<4096xf32>, vector<8xf32>
// CHECK-NOT:   scf.parallel
// CHECK-NOT:   linalg.generic
