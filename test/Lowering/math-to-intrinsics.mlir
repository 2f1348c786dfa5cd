// RUN: prec-opt %s --pass-pipeline="builtin.module(gpu.module(prec-math-to-intrinsics))" | FileCheck %s
// The optimizer kernels of AdamW through the whole pipeline: correctly
// rounded square roots, no call into libdevice.
// RUN: prec-opt %prec_src/test/Integration/CPU/optimizers.mlir --prec-lower-to-cuda="format=isa" \
// RUN:   | sed -e 's/\\0A/\n/g' -e 's/\\09/ /g' | FileCheck %s --check-prefix=ADAMW

module attributes {gpu.container_module} {
  gpu.module @kernels {
    // CHECK-LABEL: gpu.func @update
    gpu.func @update(%v: vector<8xf32>, %s: f64, %h: f16) kernel {
      // CHECK: llvm.call_intrinsic "llvm.sqrt"(%{{.*}}) : (vector<8xf32>) -> vector<8xf32>
      %r = math.sqrt %v : vector<8xf32>
      // CHECK: llvm.call_intrinsic "llvm.fma"(%{{.*}}, %{{.*}}, %{{.*}}) : (vector<8xf32>, vector<8xf32>, vector<8xf32>) -> vector<8xf32>
      %f = math.fma %r, %v, %v : vector<8xf32>
      // CHECK: llvm.call_intrinsic "llvm.fabs"(%{{.*}}) : (f64) -> f64
      %a = math.absf %s : f64
      // Other element types and other math ops keep upstream's lowering.
      // CHECK: math.sqrt %{{.*}} : f16
      %q = math.sqrt %h : f16
      // CHECK: math.exp %{{.*}} : f64
      %e = math.exp %s : f64
      gpu.return
    }
  }
}

// On the CPU the same kernels compute the square root with the instruction,
// not a libm call per element.
// RUN: prec-opt %prec_src/test/Integration/CPU/optimizers.mlir --prec-lower-to-cpu \
// RUN:   | FileCheck %s --check-prefix=CPU
// CPU-NOT: @sqrtf
// CPU:     llvm.call_intrinsic "llvm.sqrt"
// CPU-NOT: @sqrtf

// ADAMW:     sqrt.rn.f32
// ADAMW-NOT: __nv_
// ADAMW-NOT: sqrt.approx
