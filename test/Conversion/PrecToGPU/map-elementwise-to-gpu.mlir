// RUN: prec-opt %s --split-input-file --prec-map-elementwise-to-gpu | FileCheck %s --enable-var-scope
// RUN: not prec-opt %s --split-input-file --prec-map-elementwise-to-gpu=threads-per-block=2048 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: error: threads-per-block must be in [1, 1024], got 2048

// The pack kernel of a bf16 wire with a divisor of 4: 16-byte vectors of the
// narrowest element (8 x bf16, from 2 x 16 bytes of f32), a multiplication
// by the exact inverse, a grid-stride loop and a scalar tail.

#id = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @pack
// CHECK-SAME:    (%[[IN:.*]]: memref<64x16xf32>, %[[OUT:.*]]: memref<64x16xbf16>)
func.func @pack(%in: memref<64x16xf32>, %out: memref<64x16xbf16>) {
  // CHECK:       %[[THREADS:.*]] = arith.constant 256 : i64
  // CHECK:       %[[MAX:.*]] = call @precrtCompiledGpuMaxBlocks(%[[THREADS]])
  // CHECK:       %[[MAXIDX:.*]] = arith.index_cast %[[MAX]] : i64 to index
  // CHECK-DAG:   %[[FLATIN:.*]] = memref.collapse_shape %[[IN]] {{\[\[}}0, 1]] : memref<64x16xf32> into memref<1024xf32>
  // CHECK-DAG:   %[[FLATOUT:.*]] = memref.collapse_shape %[[OUT]] {{\[\[}}0, 1]] : memref<64x16xbf16> into memref<1024xbf16>
  // 1024 elements / (256 threads x 8) = 1 block.
  // CHECK:       %[[NEEDED:.*]] = arith.constant 1 : index
  // CHECK:       %[[BLOCKS:.*]] = arith.minsi %[[NEEDED]], %[[MAXIDX]]
  // CHECK:       gpu.launch blocks(%[[BX:[^,]*]], %{{.*}}, %{{.*}}) in (%[[GX:[^ ]*]] = %[[BLOCKS]], {{.*}} threads(%[[TX:[^,]*]], %{{.*}}, %{{.*}}) in (%[[BDIM:[^ ]*]] = %{{.*}}, {{.*}}
  // CHECK:         %[[START:.*]] = arith.muli %[[BX]], %[[BDIM]]
  // CHECK:         %[[FIRST:.*]] = arith.addi %[[START]], %[[TX]]
  // CHECK:         %[[STRIDE:.*]] = arith.muli %[[GX]], %[[BDIM]]
  // CHECK:         %[[INV:.*]] = arith.constant 2.500000e-01 : f32
  // Both buffers start at a 16-byte boundary, or no vector is used.
  // CHECK:         arith.andi
  // CHECK:         %[[ALIGNED:.*]] = arith.andi
  // CHECK:         %[[VECTORS:.*]] = arith.select %[[ALIGNED]], %{{.*}}, %{{.*}} : index
  // CHECK:         scf.for %[[I:.*]] = %[[FIRST]] to %[[VECTORS]] step %[[STRIDE]] {
  // CHECK:           %[[E:.*]] = arith.muli %[[I]], %{{.*}} : index
  // CHECK:           %[[V:.*]] = vector.load %[[FLATIN]][%[[E]]] {alignment = 16 : i64} : memref<1024xf32>, vector<8xf32>
  // CHECK:           %[[SPLAT:.*]] = vector.broadcast %[[INV]] : f32 to vector<8xf32>
  // CHECK:           %[[SCALED:.*]] = arith.mulf %[[V]], %[[SPLAT]] : vector<8xf32>
  // CHECK:           %[[WIRE:.*]] = arith.truncf %[[SCALED]] : vector<8xf32> to vector<8xbf16>
  // CHECK:           vector.store %[[WIRE]], %[[FLATOUT]][%[[E]]] {alignment = 16 : i64} : memref<1024xbf16>, vector<8xbf16>
  // CHECK:         }
  // CHECK:         scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step %[[STRIDE]] {
  // CHECK:           memref.load %[[FLATIN]][%[[J]]] : memref<1024xf32>
  // CHECK:           arith.mulf %{{.*}}, %[[INV]] : f32
  // CHECK:           memref.store %{{.*}}, %[[FLATOUT]][%[[J]]] : memref<1024xbf16>
  // CHECK:         }
  // CHECK:         gpu.terminator
  // CHECK-NOT:   linalg.generic
  // CHECK-NOT:   arith.divf
  %c4 = arith.constant 4.0 : f32
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%in : memref<64x16xf32>) outs(%out : memref<64x16xbf16>) {
  ^bb0(%x: f32, %w: bf16):
    %s = arith.divf %x, %c4 : f32
    %t = arith.truncf %s : f32 to bf16
    linalg.yield %t : bf16
  }
  return
}

// -----

// A divisor that is no power of two: inverted once per thread, then one
// fused correction step per element instead of a division. Zero dividends
// keep the product; elements whose quotient is not a normal number, and all
// of them when the reciprocal is not normal, take a real division in a
// branch that the common case skips.

#id = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @divide_by_three
// CHECK-SAME:    %[[D:[^:]*]]: f32
func.func @divide_by_three(%in: memref<4096xf32>, %out: memref<4096xf32>, %d: f32) {
  // 4096 / (256 x 4) = 4 blocks.
  // CHECK:       arith.constant 4 : index
  // CHECK:       gpu.launch
  // CHECK:         %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
  // CHECK:         %[[R:.*]] = arith.divf %[[ONE]], %[[D]] : f32
  // CHECK:         %[[RMAG:.*]] = math.absf %[[R]] : f32
  // CHECK:         arith.cmpf oge, %[[RMAG]], %{{.*}} : f32
  // CHECK:         arith.cmpf ole, %[[RMAG]], %{{.*}} : f32
  // CHECK:         %[[RNORMAL:.*]] = arith.andi
  // CHECK:         scf.for
  // CHECK:           %[[X:.*]] = vector.load {{.*}} vector<4xf32>
  // CHECK:           %[[RV:.*]] = vector.broadcast %[[R]] : f32 to vector<4xf32>
  // CHECK:           %[[Q:.*]] = arith.mulf %[[X]], %[[RV]] : vector<4xf32>
  // CHECK:           %[[DV:.*]] = vector.broadcast %[[D]] : f32 to vector<4xf32>
  // CHECK:           %[[NQ:.*]] = arith.negf %[[Q]] : vector<4xf32>
  // CHECK:           %[[REM:.*]] = math.fma %[[NQ]], %[[DV]], %[[X]] : vector<4xf32>
  // CHECK:           %[[REFINED:.*]] = math.fma %[[REM]], %[[RV]], %[[Q]] : vector<4xf32>
  // CHECK:           %[[ZERO:.*]] = arith.cmpf oeq, %[[X]], %{{.*}} : vector<4xf32>
  // CHECK:           %[[FAST:.*]] = arith.select %[[ZERO]], %[[Q]], %[[REFINED]] : vector<4xi1>, vector<4xf32>
  // CHECK:           math.absf %[[REFINED]] : vector<4xf32>
  // CHECK:           vector.broadcast %[[RNORMAL]] : i1 to vector<4xi1>
  // CHECK:           %[[GOOD:.*]] = arith.andi %{{.*}} : vector<4xi1>
  // CHECK:           %[[ALL:.*]] = vector.reduction <and>, %[[GOOD]] : vector<4xi1> into i1
  // CHECK:           %[[ANYBAD:.*]] = arith.xori %[[ALL]], %{{.*}} : i1
  // CHECK:           %[[RESULT:.*]] = scf.if %[[ANYBAD]] -> (vector<4xf32>) {
  // CHECK:             %[[EXACT:.*]] = arith.divf %[[X]], %[[DV]] : vector<4xf32>
  // CHECK:             %[[MERGED:.*]] = arith.select %[[GOOD]], %[[FAST]], %[[EXACT]] : vector<4xi1>, vector<4xf32>
  // CHECK:             scf.yield %[[MERGED]]
  // CHECK:           } else {
  // CHECK:             scf.yield %[[FAST]]
  // CHECK:           }
  // CHECK:           vector.store %[[RESULT]]
  // CHECK:         scf.for
  // CHECK:           math.fma
  // CHECK:           math.fma
  // CHECK:           scf.if
  // CHECK:             arith.divf
  // CHECK:         gpu.terminator
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%in : memref<4096xf32>) outs(%out : memref<4096xf32>) {
  ^bb0(%x: f32, %o: f32):
    %q = arith.divf %x, %d : f32
    linalg.yield %q : f32
  }
  return
}

// -----

// An update that reads its output (a fused optimizer step) loads it too;
// fills and copies are kernels of their own.

#id = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @update_fill_copy
func.func @update_fill_copy(%grad: memref<1000xbf16>, %master: memref<1000xf32>,
                            %shard: memref<1000xbf16>, %lr: f32) {
  // CHECK:       gpu.launch
  // CHECK:         scf.for
  // CHECK-DAG:       %[[G:.*]] = vector.load %{{.*}} : memref<1000xbf16>, vector<8xbf16>
  // CHECK-DAG:       %[[M:.*]] = vector.load %{{.*}} : memref<1000xf32>, vector<8xf32>
  // CHECK:           arith.extf %[[G]] : vector<8xbf16> to vector<8xf32>
  // CHECK:           vector.store {{.*}} : memref<1000xf32>, vector<8xf32>
  // CHECK:           vector.store {{.*}} : memref<1000xbf16>, vector<8xbf16>
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%grad : memref<1000xbf16>) outs(%master, %shard : memref<1000xf32>, memref<1000xbf16>) {
  ^bb0(%g: bf16, %m: f32, %s: bf16):
    %g32 = arith.extf %g : bf16 to f32
    %step = arith.mulf %g32, %lr : f32
    %new = arith.subf %m, %step : f32
    %low = arith.truncf %new : f32 to bf16
    linalg.yield %new, %low : f32, bf16
  }
  // CHECK:       gpu.launch
  // CHECK:         %[[ZERO:.*]] = vector.broadcast %{{.*}} : f32 to vector<4xf32>
  // CHECK:         vector.store %[[ZERO]]
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%master : memref<1000xf32>)
  // CHECK:       gpu.launch
  // CHECK:         vector.load {{.*}} : memref<1000xbf16>, vector<8xbf16>
  // CHECK:         vector.store {{.*}} : memref<1000xbf16>, vector<8xbf16>
  memref.copy %grad, %shard : memref<1000xbf16> to memref<1000xbf16>
  return
}

// -----

// A scalar (rank 0) kernel runs as one element.

#scalar = affine_map<() -> ()>
// CHECK-LABEL: func.func @scalar
func.func @scalar(%a: memref<f32>, %b: memref<f32>) {
  // CHECK:       memref.expand_shape %{{.*}} [] output_shape [1] : memref<f32> into memref<1xf32>
  // CHECK:       gpu.launch
  linalg.generic {indexing_maps = [#scalar, #scalar], iterator_types = []}
      ins(%a : memref<f32>) outs(%b : memref<f32>) {
  ^bb0(%x: f32, %y: f32):
    %z = arith.addf %x, %y : f32
    linalg.yield %z : f32
  }
  return
}

// -----

// Transposes, broadcasts and views with strides are not elementwise on the
// flat buffer: upstream's loop mapping takes them (copies as linalg.copy).

#id = affine_map<(d0, d1) -> (d0, d1)>
#transposed = affine_map<(d0, d1) -> (d1, d0)>
// CHECK-LABEL: func.func @not_elementwise
func.func @not_elementwise(%a: memref<16x8xf32>, %b: memref<8x16xf32>,
                           %view: memref<4x4xf32, strided<[8, 1]>>, %c: memref<4x4xf32>,
                           %h: memref<4x4xf16>) {
  // CHECK-NOT:   gpu.launch
  // CHECK:       linalg.generic
  // CHECK:       linalg.copy ins(%{{.*}} : memref<4x4xf32, strided<[8, 1]>>) outs(%{{.*}} : memref<4x4xf32>)
  // A copy that converts, and a kernel that writes nothing.
  // CHECK:       linalg.copy ins(%{{.*}} : memref<4x4xf16>) outs(%{{.*}} : memref<4x4xf32>)
  // CHECK:       linalg.generic
  // CHECK-NOT:   gpu.launch
  linalg.generic {indexing_maps = [#transposed, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a : memref<16x8xf32>) outs(%b : memref<8x16xf32>) {
  ^bb0(%x: f32, %y: f32):
    linalg.yield %x : f32
  }
  memref.copy %view, %c : memref<4x4xf32, strided<[8, 1]>> to memref<4x4xf32>
  linalg.copy ins(%h : memref<4x4xf16>) outs(%c : memref<4x4xf32>)
  linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]}
      ins(%c : memref<4x4xf32>) {
  ^bb0(%x: f32):
    linalg.yield
  }
  return
}

// -----

// A strided copy becomes a linalg.copy, mapped to the GPU with the other
// linalg kernels later; the pass loads linalg itself.
// CHECK-LABEL: func @strided_copy
// CHECK: linalg.copy ins(%{{.*}} : memref<4x4xf32, strided<[16, 2]>>) outs(%{{.*}} : memref<4x4xf32>)
func.func @strided_copy(%a: memref<8x8xf32>, %b: memref<4x4xf32>) {
  %s = memref.subview %a[0, 0] [4, 4] [2, 2] : memref<8x8xf32> to memref<4x4xf32, strided<[16, 2]>>
  memref.copy %s, %b : memref<4x4xf32, strided<[16, 2]>> to memref<4x4xf32>
  return
}

// -----

// One element in a view of a wider row: dims of size 1 collapse to the
// row's stride, so the element is viewed with unit stride for the vector
// store.
// CHECK-LABEL: func @one_element_of_a_row
// CHECK: memref.reinterpret_cast %{{.*}} to offset: [29], sizes: [1], strides: [1] : memref<1x1xf32, strided<[30, 1], offset: 29>> to memref<1xf32, strided<[1], offset: 29>>
// CHECK: gpu.launch
func.func @one_element_of_a_row(%a: memref<1x1xf32>, %b: memref<1x30xf32>) {
  %s = memref.subview %b[0, 29] [1, 1] [1, 1] : memref<1x30xf32> to memref<1x1xf32, strided<[30, 1], offset: 29>>
  linalg.copy ins(%a : memref<1x1xf32>) outs(%s : memref<1x1xf32, strided<[30, 1], offset: 29>>)
  return
}

// -----

// The same element as a rank-1 view keeps the row's stride too.
// CHECK-LABEL: func @one_element_rank_one
// CHECK: memref.reinterpret_cast %{{.*}} to offset: [29], sizes: [1], strides: [1] : memref<1xf32, strided<[30], offset: 29>> to memref<1xf32, strided<[1], offset: 29>>
func.func @one_element_rank_one(%a: memref<1xf32>, %b: memref<30x30xf32>) {
  %s = memref.subview %b[0, 29] [1, 1] [1, 1] : memref<30x30xf32> to memref<1xf32, strided<[30], offset: 29>>
  linalg.copy ins(%a : memref<1xf32>) outs(%s : memref<1xf32, strided<[30], offset: 29>>)
  return
}
