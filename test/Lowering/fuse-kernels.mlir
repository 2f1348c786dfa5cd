// RUN: prec-opt %s --prec-fuse-kernels --split-input-file | FileCheck %s --enable-var-scope

#id = affine_map<(d0) -> (d0)>

// A cast kernel with one consumer runs inside it: one kernel reads the bf16
// values, extends and adds, in the producer's order.
// CHECK-LABEL: func @single_use
// CHECK-SAME: (%[[A:.*]]: tensor<8xbf16>, %[[B:.*]]: tensor<8xf32>)
// CHECK: %[[R:.*]] = linalg.generic {{.*}} ins(%[[A]], %[[B]] : tensor<8xbf16>, tensor<8xf32>)
// CHECK:   arith.extf
// CHECK:   arith.addf
// CHECK-NOT: linalg.generic
// CHECK: return %[[R]]
func.func @single_use(%a: tensor<8xbf16>, %b: tensor<8xf32>) -> tensor<8xf32> {
  %e0 = tensor.empty() : tensor<8xf32>
  %ext = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%a : tensor<8xbf16>) outs(%e0 : tensor<8xf32>) {
  ^bb0(%x: bf16, %o: f32):
    %y = arith.extf %x : bf16 to f32
    linalg.yield %y : f32
  } -> tensor<8xf32>
  %e1 = tensor.empty() : tensor<8xf32>
  %sum = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%ext, %b : tensor<8xf32>, tensor<8xf32>) outs(%e1 : tensor<8xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %z = arith.addf %x, %y : f32
    linalg.yield %z : f32
  } -> tensor<8xf32>
  return %sum : tensor<8xf32>
}

// -----

#id = affine_map<(d0) -> (d0)>

// Two consumers: fusing would compute the producer twice, so both stay.
// CHECK-LABEL: func @two_uses
// CHECK-COUNT-3: linalg.generic
func.func @two_uses(%a: tensor<8xbf16>) -> (tensor<8xf32>, tensor<8xf32>) {
  %e0 = tensor.empty() : tensor<8xf32>
  %ext = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%a : tensor<8xbf16>) outs(%e0 : tensor<8xf32>) {
  ^bb0(%x: bf16, %o: f32):
    %y = arith.extf %x : bf16 to f32
    linalg.yield %y : f32
  } -> tensor<8xf32>
  %e1 = tensor.empty() : tensor<8xf32>
  %neg = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%ext : tensor<8xf32>) outs(%e1 : tensor<8xf32>) {
  ^bb0(%x: f32, %o: f32):
    %z = arith.negf %x : f32
    linalg.yield %z : f32
  } -> tensor<8xf32>
  %e2 = tensor.empty() : tensor<8xf32>
  %sq = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%ext : tensor<8xf32>) outs(%e2 : tensor<8xf32>) {
  ^bb0(%x: f32, %o: f32):
    %z = arith.mulf %x, %x : f32
    linalg.yield %z : f32
  } -> tensor<8xf32>
  return %neg, %sq : tensor<8xf32>, tensor<8xf32>
}

// -----

#id2 = affine_map<(m, n) -> (m, n)>

// A contraction reads each element of a factor once per column (or row) of
// the other: fused, the producer would be computed that many times, and the
// contraction's body would no longer be the multiply-add that
// convert-contractions-to-runtime hands to the gemm (a weight gradient's
// dy = y - target, examples/hsdp_microbatch.mlir). The producer stays a
// kernel of its own; a reduction that reads each element once (the row
// sums) still takes it in.
// CHECK-LABEL: func @contraction_consumer
// CHECK-SAME: (%[[Y:.*]]: tensor<4x8xf32>, %[[T:.*]]: tensor<4x8xf32>, %[[X:.*]]: tensor<4x16xf32>
// CHECK: %[[DY:.*]] = linalg.generic {{.*}} ins(%[[Y]], %[[T]] : tensor<4x8xf32>, tensor<4x8xf32>)
// CHECK:   arith.subf
// CHECK: linalg.generic {{.*}} ins(%[[X]], %[[DY]] : tensor<4x16xf32>, tensor<4x8xf32>)
// CHECK-NEXT: ^bb0
// CHECK-NEXT:   arith.mulf
// CHECK-NEXT:   arith.addf
// CHECK-NEXT:   linalg.yield
// CHECK: linalg.generic {{.*}} ins(%[[Y]], %[[T]] : tensor<4x8xf32>, tensor<4x8xf32>)
// CHECK:   arith.subf
// CHECK:   arith.addf
// CHECK-NOT: linalg.generic
func.func @contraction_consumer(%y: tensor<4x8xf32>, %t: tensor<4x8xf32>, %x: tensor<4x16xf32>,
                                %acc: tensor<16x8xf32>, %sums: tensor<4xf32>)
    -> (tensor<16x8xf32>, tensor<4xf32>) {
  %e = tensor.empty() : tensor<4x8xf32>
  %dy = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%y, %t : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a0: f32, %b0: f32, %o: f32):
    %d = arith.subf %a0, %b0 : f32
    linalg.yield %d : f32
  } -> tensor<4x8xf32>
  // grad[k, n] = sum over m of x[m, k] * dy[m, n]: loops (k, n, m).
  %grad = linalg.generic {indexing_maps = [affine_map<(k, n, m) -> (m, k)>, affine_map<(k, n, m) -> (m, n)>, affine_map<(k, n, m) -> (k, n)>],
                          iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %dy : tensor<4x16xf32>, tensor<4x8xf32>) outs(%acc : tensor<16x8xf32>) {
  ^bb0(%xv: f32, %dv: f32, %o: f32):
    %p = arith.mulf %xv, %dv : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  } -> tensor<16x8xf32>
  %e2 = tensor.empty() : tensor<4x8xf32>
  %err = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%y, %t : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e2 : tensor<4x8xf32>) {
  ^bb0(%a0: f32, %b0: f32, %o: f32):
    %d = arith.subf %a0, %b0 : f32
    linalg.yield %d : f32
  } -> tensor<4x8xf32>
  %rows = linalg.generic {indexing_maps = [#id2, affine_map<(m, n) -> (m)>], iterator_types = ["parallel", "reduction"]}
      ins(%err : tensor<4x8xf32>) outs(%sums : tensor<4xf32>) {
  ^bb0(%v: f32, %o: f32):
    %s = arith.addf %o, %v : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  return %grad, %rows : tensor<16x8xf32>, tensor<4xf32>
}

// -----

#id = affine_map<(d0) -> (d0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>

// A bucket: the unpack kernel (here a divide) is read through two disjoint
// slices, each reshaped and read by one kernel. Each becomes a kernel of its
// slice of the received values, which fuses into its reader: two kernels,
// each dividing its own elements, once.
// CHECK-LABEL: func @disjoint_slices
// CHECK-SAME: (%[[R:.*]]: tensor<24xf32>, %[[W0:.*]]: tensor<2x4xf32>, %[[W1:.*]]: tensor<16xf32>)
// CHECK-DAG: %[[S0:.*]] = tensor.extract_slice %[[R]][0] [8] [1]
// CHECK-DAG: %[[E0:.*]] = tensor.expand_shape %[[S0]] {{\[}}[0, 1]] output_shape [2, 4]
// CHECK-DAG: %[[S1:.*]] = tensor.extract_slice %[[R]][8] [16] [1]
// CHECK: linalg.generic {{.*}} ins(%[[W0]], %[[E0]] : tensor<2x4xf32>, tensor<2x4xf32>)
// CHECK:   arith.divf
// CHECK:   arith.subf
// CHECK: linalg.generic {{.*}} ins(%[[W1]], %[[S1]] : tensor<16xf32>, tensor<16xf32>)
// CHECK:   arith.divf
// CHECK:   arith.subf
// CHECK-NOT: linalg.generic
func.func @disjoint_slices(%r: tensor<24xf32>, %w0: tensor<2x4xf32>, %w1: tensor<16xf32>)
    -> (tensor<2x4xf32>, tensor<16xf32>) {
  %four = arith.constant 4.0 : f32
  %e = tensor.empty() : tensor<24xf32>
  %avg = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%r : tensor<24xf32>) outs(%e : tensor<24xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = arith.divf %x, %four : f32
    linalg.yield %y : f32
  } -> tensor<24xf32>
  %g0 = tensor.extract_slice %avg[0] [8] [1] : tensor<24xf32> to tensor<8xf32>
  %g0r = tensor.expand_shape %g0 [[0, 1]] output_shape [2, 4] : tensor<8xf32> into tensor<2x4xf32>
  %g1 = tensor.extract_slice %avg[8] [16] [1] : tensor<24xf32> to tensor<16xf32>
  %e0 = tensor.empty() : tensor<2x4xf32>
  %n0 = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%w0, %g0r : tensor<2x4xf32>, tensor<2x4xf32>) outs(%e0 : tensor<2x4xf32>) {
  ^bb0(%w: f32, %g: f32, %o: f32):
    %z = arith.subf %w, %g : f32
    linalg.yield %z : f32
  } -> tensor<2x4xf32>
  %e1 = tensor.empty() : tensor<16xf32>
  %n1 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%w1, %g1 : tensor<16xf32>, tensor<16xf32>) outs(%e1 : tensor<16xf32>) {
  ^bb0(%w: f32, %g: f32, %o: f32):
    %z = arith.subf %w, %g : f32
    linalg.yield %z : f32
  } -> tensor<16xf32>
  return %n0, %n1 : tensor<2x4xf32>, tensor<16xf32>
}

// -----

#id = affine_map<(d0) -> (d0)>

// Overlapping slices: a kernel per slice would compute elements 4 to 7
// twice, so the kernel stays whole and the slices read its result.
// CHECK-LABEL: func @overlapping_slices
// CHECK: %[[AVG:.*]] = linalg.generic
// CHECK: tensor.extract_slice %[[AVG]][0] [8] [1]
// CHECK: tensor.extract_slice %[[AVG]][4] [8] [1]
// CHECK-COUNT-2: linalg.generic
// CHECK-NOT: linalg.generic
func.func @overlapping_slices(%r: tensor<12xf32>, %w0: tensor<8xf32>, %w1: tensor<8xf32>)
    -> (tensor<8xf32>, tensor<8xf32>) {
  %four = arith.constant 4.0 : f32
  %e = tensor.empty() : tensor<12xf32>
  %avg = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%r : tensor<12xf32>) outs(%e : tensor<12xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = arith.divf %x, %four : f32
    linalg.yield %y : f32
  } -> tensor<12xf32>
  %g0 = tensor.extract_slice %avg[0] [8] [1] : tensor<12xf32> to tensor<8xf32>
  %g1 = tensor.extract_slice %avg[4] [8] [1] : tensor<12xf32> to tensor<8xf32>
  %e0 = tensor.empty() : tensor<8xf32>
  %n0 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%w0, %g0 : tensor<8xf32>, tensor<8xf32>) outs(%e0 : tensor<8xf32>) {
  ^bb0(%w: f32, %g: f32, %o: f32):
    %z = arith.subf %w, %g : f32
    linalg.yield %z : f32
  } -> tensor<8xf32>
  %e1 = tensor.empty() : tensor<8xf32>
  %n1 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%w1, %g1 : tensor<8xf32>, tensor<8xf32>) outs(%e1 : tensor<8xf32>) {
  ^bb0(%w: f32, %g: f32, %o: f32):
    %z = arith.subf %w, %g : f32
    linalg.yield %z : f32
  } -> tensor<8xf32>
  return %n0, %n1 : tensor<8xf32>, tensor<8xf32>
}

// -----

#id = affine_map<(d0) -> (d0)>

// A slice read by no kernel (returned): splitting would gain no fusion and
// turn one kernel into two, so the kernel stays whole.
// CHECK-LABEL: func @slice_not_read_by_kernel
// CHECK: %[[AVG:.*]] = linalg.generic
// CHECK: tensor.extract_slice %[[AVG]][0] [4] [1]
// CHECK: tensor.extract_slice %[[AVG]][4] [4] [1]
func.func @slice_not_read_by_kernel(%r: tensor<8xf32>, %w0: tensor<4xf32>)
    -> (tensor<4xf32>, tensor<4xf32>) {
  %four = arith.constant 4.0 : f32
  %e = tensor.empty() : tensor<8xf32>
  %avg = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%r : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = arith.divf %x, %four : f32
    linalg.yield %y : f32
  } -> tensor<8xf32>
  %g0 = tensor.extract_slice %avg[0] [4] [1] : tensor<8xf32> to tensor<4xf32>
  %g1 = tensor.extract_slice %avg[4] [4] [1] : tensor<8xf32> to tensor<4xf32>
  %e0 = tensor.empty() : tensor<4xf32>
  %n0 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%w0, %g0 : tensor<4xf32>, tensor<4xf32>) outs(%e0 : tensor<4xf32>) {
  ^bb0(%w: f32, %g: f32, %o: f32):
    %z = arith.subf %w, %g : f32
    linalg.yield %z : f32
  } -> tensor<4xf32>
  return %n0, %g1 : tensor<4xf32>, tensor<4xf32>
}

// -----

#id = affine_map<(d0) -> (d0)>

// A loop's accumulation (prec-accumulate-microbatches' form) keeps writing
// into the tensor the loop carries, with the unpack kernel of each
// iteration's gradient fused into it: upstream's patterns would give it a
// fresh init (its body does not read the init), and the loop would carry a
// fresh tensor, which bufferizes to an allocation per iteration and which
// prec-lower-to-cuda rejects.
// CHECK-LABEL: func @loop_accumulation
// CHECK-SAME: (%[[GRADS:.*]]: tensor<2x8xf32>)
// CHECK: scf.for {{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (tensor<8xf32>)
// CHECK:   %[[G:.*]] = tensor.extract_slice %[[GRADS]]
// CHECK-NOT: tensor.empty
// CHECK:   %[[NEXT:.*]] = linalg.generic {{.*}} ins(%[[ACC]], %[[G]] : tensor<8xf32>, tensor<8xf32>) outs(%[[ACC]] : tensor<8xf32>)
// CHECK:     arith.divf
// CHECK:     arith.addf
// CHECK-NOT: linalg.generic
// CHECK:   scf.yield %[[NEXT]]
func.func @loop_accumulation(%grads: tensor<2x8xf32>) -> tensor<8xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %four = arith.constant 4.0 : f32
  %zero = arith.constant dense<0.0> : tensor<8xf32>
  %sum = scf.for %i = %c0 to %c2 step %c1 iter_args(%acc = %zero) -> (tensor<8xf32>) {
    %g = tensor.extract_slice %grads[%i, 0] [1, 8] [1, 1] : tensor<2x8xf32> to tensor<8xf32>
    %e = tensor.empty() : tensor<8xf32>
    %avg = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
        ins(%g : tensor<8xf32>) outs(%e : tensor<8xf32>) {
    ^bb0(%x: f32, %o: f32):
      %y = arith.divf %x, %four : f32
      linalg.yield %y : f32
    } -> tensor<8xf32>
    %next = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
        ins(%acc, %avg : tensor<8xf32>, tensor<8xf32>) outs(%acc : tensor<8xf32>) {
    ^bb0(%a: f32, %b: f32, %o: f32):
      %z = arith.addf %a, %b : f32
      linalg.yield %z : f32
    } -> tensor<8xf32>
    scf.yield %next : tensor<8xf32>
  }
  return %sum : tensor<8xf32>
}

// -----

#id2 = affine_map<(d0, d1) -> (d0, d1)>

// A loop that writes one row of the tensor it carries per iteration, through
// a reshape (prec-fuse-amax's loop over rows): the kernel keeps writing into
// that row of the iteration argument instead of a fresh tensor that
// bufferization would allocate per iteration and copy into the row.
// CHECK-LABEL: func @loop_rows
// CHECK-SAME: (%[[X:.*]]: tensor<2x8xf32>)
// CHECK: scf.for %[[I:.*]] = {{.*}} iter_args(%[[OUT:.*]] = %{{.*}}) -> (tensor<2x8xbf16>)
// CHECK:   %[[ROW:.*]] = tensor.extract_slice %[[OUT]][%[[I]], 0] [1, 8] [1, 1] : tensor<2x8xbf16> to tensor<8xbf16>
// CHECK:   %[[BLOCKS:.*]] = tensor.expand_shape %[[ROW]] {{\[\[}}0, 1]] output_shape [2, 4] : tensor<8xbf16> into tensor<2x4xbf16>
// CHECK-NOT: tensor.empty
// CHECK:   %[[R:.*]] = linalg.generic {{.*}} outs(%[[BLOCKS]] : tensor<2x4xbf16>)
// CHECK:   %[[FLAT:.*]] = tensor.collapse_shape %[[R]]
// CHECK:   %[[NEXT:.*]] = tensor.insert_slice %[[FLAT]] into %[[OUT]][%[[I]], 0] [1, 8] [1, 1]
// CHECK:   scf.yield %[[NEXT]]
func.func @loop_rows(%x: tensor<2x8xf32>) -> tensor<2x8xbf16> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %init = tensor.empty() : tensor<2x8xbf16>
  %all = scf.for %i = %c0 to %c2 step %c1 iter_args(%out = %init) -> (tensor<2x8xbf16>) {
    %row = tensor.extract_slice %x[%i, 0] [1, 8] [1, 1] : tensor<2x8xf32> to tensor<8xf32>
    %blocks = tensor.expand_shape %row [[0, 1]] output_shape [2, 4] : tensor<8xf32> into tensor<2x4xf32>
    %orow = tensor.extract_slice %out[%i, 0] [1, 8] [1, 1] : tensor<2x8xbf16> to tensor<8xbf16>
    %oblocks = tensor.expand_shape %orow [[0, 1]] output_shape [2, 4] : tensor<8xbf16> into tensor<2x4xbf16>
    %r = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
        ins(%blocks : tensor<2x4xf32>) outs(%oblocks : tensor<2x4xbf16>) {
    ^bb0(%a: f32, %o: bf16):
      %t = arith.truncf %a : f32 to bf16
      linalg.yield %t : bf16
    } -> tensor<2x4xbf16>
    %flat = tensor.collapse_shape %r [[0, 1]] : tensor<2x4xbf16> into tensor<8xbf16>
    %next = tensor.insert_slice %flat into %out[%i, 0] [1, 8] [1, 1] : tensor<8xbf16> into tensor<2x8xbf16>
    scf.yield %next : tensor<2x8xbf16>
  }
  return %all : tensor<2x8xbf16>
}

// -----

#id1 = affine_map<(d0) -> (d0)>

// The row's offset is computed after the kernel: its init cannot be the
// slice (which would be taken before the offset exists), so it stays.
// CHECK-LABEL: func @loop_rows_late_offset
// CHECK: scf.for
// CHECK:   %[[E:.*]] = tensor.empty() : tensor<8xbf16>
// CHECK:   linalg.generic {{.*}} outs(%[[E]] : tensor<8xbf16>)
// CHECK:   arith.muli
// CHECK:   tensor.insert_slice
func.func @loop_rows_late_offset(%x: tensor<16xf32>) -> tensor<16xbf16> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  %init = tensor.empty() : tensor<16xbf16>
  %all = scf.for %i = %c0 to %c2 step %c1 iter_args(%out = %init) -> (tensor<16xbf16>) {
    %in = tensor.extract_slice %x[0] [8] [1] : tensor<16xf32> to tensor<8xf32>
    %e = tensor.empty() : tensor<8xbf16>
    %r = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]}
        ins(%in : tensor<8xf32>) outs(%e : tensor<8xbf16>) {
    ^bb0(%a: f32, %o: bf16):
      %t = arith.truncf %a : f32 to bf16
      linalg.yield %t : bf16
    } -> tensor<8xbf16>
    %off = arith.muli %i, %c8 : index
    %next = tensor.insert_slice %r into %out[%off] [8] [1] : tensor<8xbf16> into tensor<16xbf16>
    scf.yield %next : tensor<16xbf16>
  }
  return %all : tensor<16xbf16>
}
