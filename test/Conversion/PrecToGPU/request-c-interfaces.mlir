// RUN: prec-opt %s --prec-request-c-interfaces | FileCheck %s

// Public definitions get a C interface; private functions and declarations
// (the runtime's C functions) keep the plain convention.

// CHECK-LABEL: func.func private @precrtCompiledGpuStream()
// CHECK-NOT:   llvm.emit_c_interface
func.func private @precrtCompiledGpuStream() -> !llvm.ptr

// CHECK-LABEL: func.func private @helper
// CHECK-NOT:   llvm.emit_c_interface
func.func private @helper() {
  return
}

// CHECK-LABEL: func.func @step
// CHECK-SAME:    attributes {llvm.emit_c_interface}
func.func @step() {
  return
}
