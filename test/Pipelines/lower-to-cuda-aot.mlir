// RUN: prec-opt %s --prec-lower-to-cuda="format=isa" | FileCheck %s
// RUN: prec-opt %s --prec-lower-to-cuda="format=isa c-interface=false" \
// RUN:   | FileCheck %s --check-prefix=NO-WRAPPER

// The C interface of the public entry point, for ahead-of-time programs
// (examples/aot): `_mlir_ciface_step` takes the result descriptor's address
// first, then the memref argument by the address of its descriptor and the
// scalar by value, and calls the expanded function. The private helper and
// the runtime's declarations keep the plain convention and get no wrapper.
// The step returns the helper's result rather than reading it in a kernel,
// so prec-inline-kernel-callees leaves the call (and the helper) in place.
shard.grid @dp(shape = 2)

func.func private @scale(%x: tensor<8xf32>, %s: f32) -> tensor<8xf32> {
  %empty = tensor.empty() : tensor<8xf32>
  %splat = linalg.fill ins(%s : f32) outs(%empty : tensor<8xf32>) -> tensor<8xf32>
  %y = arith.mulf %x, %splat : tensor<8xf32>
  return %y : tensor<8xf32>
}

func.func @step(%g: tensor<8xf32>, %s: f32) -> tensor<8xf32> {
  %r = prec.all_reduce %g on @dp reduction = <sum> forward_dtype = f16
         : tensor<8xf32> -> tensor<8xf32>
  %scaled = call @scale(%r, %s) : (tensor<8xf32>, f32) -> tensor<8xf32>
  return %scaled : tensor<8xf32>
}

// CHECK-NOT:   llvm.func @_mlir_ciface_precrt
// CHECK-LABEL: llvm.func @scale(
// CHECK-NOT:     llvm.emit_c_interface
// CHECK-LABEL: llvm.func @step(
// CHECK-SAME:    attributes {llvm.emit_c_interface}
// CHECK-LABEL: llvm.func @_mlir_ciface_step(
// CHECK-SAME:    %[[RESULT:[a-z0-9]+]]: !llvm.ptr, %[[GRAD:[a-z0-9]+]]: !llvm.ptr, %[[SCALE:[a-z0-9]+]]: f32)
// CHECK:         %[[DESCRIPTOR:.*]] = llvm.load %[[GRAD]] : !llvm.ptr -> !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
// CHECK:         %[[RETURNED:.*]] = llvm.call @step({{.*}}, %[[SCALE]])
// CHECK:         llvm.store %[[RETURNED]], %[[RESULT]]
// CHECK:         llvm.return
// CHECK-NOT:   llvm.func @_mlir_ciface_

// NO-WRAPPER-NOT: _mlir_ciface_
// NO-WRAPPER-NOT: llvm.emit_c_interface
