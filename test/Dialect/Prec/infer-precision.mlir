// RUN: prec-opt %s --prec-infer-precision | FileCheck %s --enable-var-scope
// Idempotent: a second run changes nothing.
// RUN: prec-opt %s --prec-infer-precision | prec-opt --prec-infer-precision | FileCheck %s --enable-var-scope

shard.grid @dp(shape = 8)

// CHECK-LABEL: func @defaults
func.func @defaults(%g: tensor<64xbf16>, %w: tensor<8xf64>, %x: tensor<8xf32>) {
  // CHECK: prec.reduce_scatter %{{.*}} scatter_axis = 0 forward_dtype = bf16 backward_dtype = bf16 acc_dtype = f32
  %0 = prec.reduce_scatter %g on @dp scatter_axis = 0 : tensor<64xbf16> -> tensor<8xbf16>
  // CHECK: prec.all_reduce %{{.*}} forward_dtype = f64 backward_dtype = f64 acc_dtype = f64
  %1 = prec.all_reduce %w on @dp : tensor<8xf64> -> tensor<8xf64>
  // CHECK: prec.all_gather %{{.*}} gather_axis = 0 forward_dtype = f32 backward_dtype = f32 :
  %2 = prec.all_gather %x on @dp gather_axis = 0 : tensor<8xf32> -> tensor<64xf32>
  // CHECK: prec.cast %{{.*}} backward_dtype = f32 : tensor<8xf32> to tensor<8xbf16>
  %3 = prec.cast %x : tensor<8xf32> to tensor<8xbf16>
  // CHECK: prec.reduce %{{.*}} dims = [0] acc_dtype = f32 : tensor<64xbf16> -> tensor<bf16>
  %4 = prec.reduce %g dims = [0] : tensor<64xbf16> -> tensor<bf16>
  return
}

// Annotations win over defaults.
// CHECK-LABEL: func @explicit
func.func @explicit(%g: tensor<64xf32>) {
  // CHECK: prec.reduce_scatter %{{.*}} forward_dtype = bf16 backward_dtype = f32 acc_dtype = f64
  %0 = prec.reduce_scatter %g on @dp scatter_axis = 0 forward_dtype = bf16 backward_dtype = f32
         acc_dtype = f64 : tensor<64xf32> -> tensor<8xf32>
  // The wire dtype decides the accumulation default.
  // CHECK: prec.all_reduce %{{.*}} forward_dtype = bf16 backward_dtype = bf16 acc_dtype = f32
  %1 = prec.all_reduce %g on @dp forward_dtype = bf16 : tensor<64xf32> -> tensor<64xf32>
  return
}
