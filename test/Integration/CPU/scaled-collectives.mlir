// fp8 wires with dynamic (per-tensor) and block (OCP MX) scales on 1, 2, 3,
// 4 and 8 ranks: two dynamically scaled gathers (whose amaxes travel in one
// all_reduce), a block-scaled gather, reduce_scatters and an all_reduce that
// send each rank's own scales with its data and sum in f32, and a
// block-scaled all_to_all, and an f8E5M2 gradient wire with a delayed scale
// written explicitly (the scale from a replicated amax history, the fp8
// terms summed in f32 by the direct algorithm, then rescaled).
// Inputs/check_scaled_collectives.py recomputes
// every result from the inputs in Python (scales, quantization and sums as
// docs/Prec.md defines them, bit for bit) and bounds the error of each
// against the exact float64 value by the formats' spacing.
// RUN: rm -rf %t && mkdir -p %t
// RUN: for n in 1 2 3 4 8; do \
// RUN:   rows=$((2 * n)); mkdir -p %t/$n; \
// RUN:   sed -e "s/shape = 4/shape = $n/" -e "s/8x64x/${rows}x64x/g" %s > %t/$n.mlir && \
// RUN:   prec-run %t/$n.mlir --replicate 3 --output-dir %t/$n --print none && \
// RUN:   %python %S/Inputs/check_scaled_collectives.py %t/$n $n || exit 1; \
// RUN: done
// The amaxes of the two dynamic gathers travel in one all_reduce.
// RUN: prec-opt %s --prec-materialize-scales | FileCheck %s
// CHECK-COUNT-1: prec.all_reduce %{{.*}} reduction = <max>
// CHECK-NOT: prec.all_reduce %{{.*}} reduction = <max>

shard.grid @dp(shape = 4)

func.func @scaled(%w: tensor<2x64xf32>, %v: tensor<2x64xf32>, %g: tensor<8x64xf32>,
                  %history: tensor<4xf32>)
    -> (tensor<8x64xf32>, tensor<8x64xbf16>, tensor<8x64xf32>, tensor<2x64xf32>,
        tensor<2x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>, tensor<2x64xf32>) {
  %0 = prec.all_gather %w on @dp gather_axis = 0 forward_dtype = f8E4M3FN
         scaling = <dynamic> : tensor<2x64xf32> -> tensor<8x64xf32>
  %1 = prec.all_gather %v on @dp gather_axis = 0 forward_dtype = f8E5M2
         scaling = <dynamic> : tensor<2x64xf32> -> tensor<8x64xbf16>
  %2 = prec.all_gather %w on @dp gather_axis = 0 forward_dtype = f8E4M3FN
         scaling = <block, block_size = 32> : tensor<2x64xf32> -> tensor<8x64xf32>
  %3 = prec.reduce_scatter %g on @dp scatter_axis = 0 reduction = <avg>
         forward_dtype = f8E5M2 scaling = <dynamic> acc_dtype = f32
         : tensor<8x64xf32> -> tensor<2x64xf32>
  %4 = prec.reduce_scatter %g on @dp scatter_axis = 0 forward_dtype = f8E4M3FN
         scaling = <block, block_size = 32> acc_dtype = f32
         : tensor<8x64xf32> -> tensor<2x64xf32>
  %5 = prec.all_reduce %g on @dp forward_dtype = f8E4M3FN scaling = <dynamic>
         : tensor<8x64xf32> -> tensor<8x64xf32>
  %6 = prec.all_to_all %g on @dp split_axis = 0 concat_axis = 0
         forward_dtype = f8E5M2 scaling = <block, block_size = 16>
         : tensor<8x64xf32> -> tensor<8x64xf32>
  // Delayed scaling of a gradient wire: one scale on every rank (from the
  // replicated history), so the sum of the fp8 terms times the scale is the
  // sum of the dequantized terms.
  %hmax = prec.reduce %history dims = [0] reduction = <max> : tensor<4xf32> -> tensor<f32>
  %s = prec.scale_from_amax %hmax element_type = f8E5M2 : tensor<f32> -> tensor<f32>
  %q = prec.quantize %g scale %s scaling = <delayed, history = 4>
         : tensor<8x64xf32>, tensor<f32> -> tensor<8x64xf8E5M2>
  %sum = prec.reduce_scatter %q on @dp scatter_axis = 0 backward_dtype = f32 acc_dtype = f32
           : tensor<8x64xf8E5M2> -> tensor<2x64xf32>
  %init = tensor.empty() : tensor<2x64xf32>
  %7 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>,
                                        affine_map<(i, j) -> ()>,
                                        affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%sum, %s : tensor<2x64xf32>, tensor<f32>) outs(%init : tensor<2x64xf32>) {
  ^bb0(%a: f32, %k: f32, %o: f32):
    %p = arith.mulf %a, %k : f32
    linalg.yield %p : f32
  } -> tensor<2x64xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7
      : tensor<8x64xf32>, tensor<8x64xbf16>, tensor<8x64xf32>, tensor<2x64xf32>,
        tensor<2x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>, tensor<2x64xf32>
}
