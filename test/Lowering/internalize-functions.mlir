// RUN: prec-opt %s --prec-internalize-functions | FileCheck %s --enable-var-scope
// RUN: prec-opt %s --prec-internalize-functions --convert-to-llvm | FileCheck %s --check-prefix=LLVM

// Private functions with a body become internal to the LLVM module; public
// functions (entry points a runner looks up) and declarations (the
// runtime's symbols) keep external linkage.

// CHECK-LABEL: func.func @step(
// CHECK-NOT: llvm.linkage
// CHECK: call @step_kernel(
// CHECK: func.func private @step_kernel({{.*}}) attributes {llvm.linkage = #llvm.linkage<internal>}
// CHECK: func.func private @precrtFill(
// CHECK-NOT: llvm.linkage
// CHECK: func.func @other(
// CHECK-NOT: llvm.linkage

// LLVM-DAG: llvm.func @step(
// LLVM-DAG: llvm.func internal @step_kernel(
// LLVM-DAG: llvm.func @precrtFill(
// LLVM-DAG: llvm.func @other(
func.func @step(%a: memref<64xf32>, %s: f32) {
  call @step_kernel(%s, %a) : (f32, memref<64xf32>) -> ()
  call @precrtFill(%s) : (f32) -> ()
  return
}

func.func private @step_kernel(%s: f32, %a: memref<64xf32>) {
  linalg.fill ins(%s : f32) outs(%a : memref<64xf32>)
  return
}

func.func private @precrtFill(f32)

func.func @other() {
  return
}
