// all_reduce with an accumulation wider than its wire: a direct
// reduce-scatter (wire chunks summed in acc_dtype) and an all-gather of the
// reduced slices, rounded once to the wire dtype. Counts that do not divide
// by the group (7 and 37 elements, 15 and 1 on 8 ranks) are padded. Checked
// against a float64 reference on 2, 3, 4 and 8 ranks, within tolerances
// derived from the dtypes and within prec-error-bounds' bounds, with the moves checked
// in the lowered IR: no rank gathers whole buffers.
// RUN: rm -rf %t && mkdir -p %t/2 %t/3 %t/4 %t/8
// RUN: prec-run %s --dump-lowered --print none > /dev/null
// RUN: prec-opt %s --prec-infer-precision --prec-divide-factors --prec-decompose-collectives | FileCheck %s
// RUN: for n in 2 3 8; do sed -e "s/shape = 4/shape = $n/" %s > %t/$n.mlir || exit 1; done
// RUN: cp %s %t/4.mlir
// RUN: for n in 2 3 4 8; do prec-run %t/$n.mlir --output-dir %t/$n --print none || exit 1; done
// RUN: for n in 2 3 4 8; do prec-opt %t/$n.mlir --prec-error-bounds=json=%t/$n.json -o /dev/null 2>/dev/null || exit 1; done
// RUN: for n in 2 3 4 8; do %python %S/Inputs/check_all_reduce.py %t/$n $n %t/$n.json || exit 1; done

// 7 elements on 4 ranks: slices of 2, the buffer padded to 8.
// CHECK-LABEL: func @all_reduces
// CHECK: tensor.insert_slice %{{.*}} into %{{.*}}[7] [1] [1] : tensor<1xbf16> into tensor<8xbf16>
// CHECK: prec.transport <all_to_all> %{{.*}} : tensor<8xbf16> -> tensor<8xbf16>
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<2xbf16>)
// CHECK: prec.transport <all_gather> %{{.*}} : tensor<2xbf16> -> tensor<8xbf16>
// CHECK: tensor.extract_slice %{{.*}}[0] [7] [1] : tensor<8xbf16> to tensor<7xbf16>
// CHECK-NOT: prec.transport <all_gather> {{.*}} : tensor<{{7|15|37}}x

shard.grid @dp(shape = 4)

func.func @all_reduces(%a: tensor<7xf32>, %b: tensor<1xf32>, %c: tensor<5x3xbf16>,
                       %d: tensor<37xf64>)
    -> (tensor<7xf32>, tensor<1xf32>, tensor<5x3xbf16>, tensor<7xf32>,
        tensor<7xf32>, tensor<37xf64>, tensor<7xbf16>) {
  // bf16 wire, f32 sum, f32 result: one more rounding, to bf16, at the end.
  %sum = prec.all_reduce %a on @dp forward_dtype = bf16 acc_dtype = f32
           : tensor<7xf32> -> tensor<7xf32>
  %one = prec.all_reduce %b on @dp forward_dtype = bf16
           : tensor<1xf32> -> tensor<1xf32>
  // bf16 in and out, f32 accumulation by default, divided by N in f32.
  %avg = prec.all_reduce %c on @dp reduction = <avg>
           : tensor<5x3xbf16> -> tensor<5x3xbf16>
  %max = prec.all_reduce %a on @dp reduction = <max> forward_dtype = bf16
           : tensor<7xf32> -> tensor<7xf32>
  %min = prec.all_reduce %a on @dp reduction = <min> forward_dtype = bf16
           : tensor<7xf32> -> tensor<7xf32>
  // f32 wire, f64 sum: the slices travel in f32.
  %wide = prec.all_reduce %d on @dp forward_dtype = f32 acc_dtype = f64
            : tensor<37xf64> -> tensor<37xf64>
  // A bf16 result: the sum is rounded once, to bf16.
  %narrow = prec.all_reduce %a on @dp forward_dtype = bf16 acc_dtype = f32
              : tensor<7xf32> -> tensor<7xbf16>
  return %sum, %one, %avg, %max, %min, %wide, %narrow
    : tensor<7xf32>, tensor<1xf32>, tensor<5x3xbf16>, tensor<7xf32>,
      tensor<7xf32>, tensor<37xf64>, tensor<7xbf16>
}
