// RUN: prec-opt %s --prec-lower-to-cpu | FileCheck %s

// The kernel that quantizes f32 to fp8 runs its loop with a hint to
// vectorize 32 lanes wide (prec-hint-vector-width), which the latch
// branch carries into LLVM IR.
// CHECK: #[[$VF:.*]] = #llvm.loop_vectorize<width = 32 : i32>
// CHECK: #[[$HINT:.*]] = #llvm.loop_annotation<vectorize = #[[$VF]]>
// CHECK: llvm.func internal @quantize_kernel
// CHECK: llvm.br ^{{.*}} {loop_annotation = #[[$HINT]]}
func.func @quantize(%x: tensor<4096xf32>, %s: tensor<f32>) -> tensor<4096xf8E4M3FN> {
  %q = prec.quantize %x scale %s scaling = <dynamic>
         : tensor<4096xf32>, tensor<f32> -> tensor<4096xf8E4M3FN>
  return %q : tensor<4096xf8E4M3FN>
}

// With vector-bits=0 the pipeline leaves the width to LLVM.
// RUN: prec-opt %s --prec-lower-to-cpu=vector-bits=0 | FileCheck %s --check-prefix=NONE
// NONE-NOT: loop_annotation
