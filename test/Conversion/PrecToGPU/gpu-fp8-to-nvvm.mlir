// RUN: prec-opt %s --pass-pipeline="builtin.module(gpu.module(prec-gpu-fp8-to-nvvm))" -split-input-file | FileCheck %s --enable-var-scope

// sm_90 with PTX 8.0: pairs of elements in one conversion each, element 2i
// in the low byte (operand b), then the reference's canonical NaN.
module attributes {gpu.container_module} {
  // CHECK-LABEL: gpu.module @sm90
  gpu.module @sm90 [#nvvm.target<chip = "sm_90", features = "+ptx80">] {
    // CHECK-LABEL: gpu.func @vector
    // CHECK-SAME: (%[[V:[^:]*]]: vector<4xf32>
    gpu.func @vector(%v: vector<4xf32>, %w: vector<4xf32>) kernel {
      // CHECK: %[[E0:.*]] = vector.extract %[[V]][0]
      // CHECK: %[[E1:.*]] = vector.extract %[[V]][1]
      // CHECK: %[[P0:.*]] = nvvm.convert.f32x2.to.f8x2 %[[E1]], %[[E0]] {rnd = #nvvm.fp_rnd_mode<rn>, sat = #nvvm.sat_mode<satfinite>} : i16(f8E4M3FN)
      // CHECK: %[[E2:.*]] = vector.extract %[[V]][2]
      // CHECK: %[[E3:.*]] = vector.extract %[[V]][3]
      // CHECK: %[[P1:.*]] = nvvm.convert.f32x2.to.f8x2 %[[E3]], %[[E2]] {{.*}} : i16(f8E4M3FN)
      // CHECK: %[[PAIRS:.*]] = vector.from_elements %[[P0]], %[[P1]] : vector<2xi16>
      // CHECK: %[[BYTES:.*]] = vector.bitcast %[[PAIRS]] : vector<2xi16> to vector<4xi8>
      // CHECK: %[[NAN:.*]] = arith.constant dense<127> : vector<4xi8>
      // CHECK: %[[ISNAN:.*]] = arith.cmpf uno, %[[V]], %[[V]] : vector<4xf32>
      // CHECK: %[[SEL:.*]] = arith.select %[[ISNAN]], %[[NAN]], %[[BYTES]]
      // CHECK: arith.bitcast %[[SEL]] : vector<4xi8> to vector<4xf8E4M3FN>
      %q = prec.saturating_truncf %v : vector<4xf32> to vector<4xf8E4M3FN>
      // f8E5M2's canonical NaN is 0x7E.
      // CHECK-COUNT-2: nvvm.convert.f32x2.to.f8x2 {{.*}} : i16(f8E5M2)
      // CHECK: arith.constant dense<126> : vector<4xi8>
      %r = prec.saturating_truncf %w : vector<4xf32> to vector<4xf8E5M2>
      // CHECK-NOT: prec.saturating_truncf
      gpu.return
    }

    // An odd vector: its last element converted beside a zero.
    // CHECK-LABEL: gpu.func @odd
    // CHECK-SAME: (%[[V:[^:]*]]: vector<3xf32>
    gpu.func @odd(%v: vector<3xf32>) kernel {
      // CHECK: %[[P0:.*]] = nvvm.convert.f32x2.to.f8x2 %{{.*}}, %{{.*}} {{.*}} : i16(f8E5M2)
      // CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
      // CHECK: %[[E2:.*]] = vector.extract %[[V]][2]
      // CHECK: %[[P1:.*]] = nvvm.convert.f32x2.to.f8x2 %[[ZERO]], %[[E2]] {{.*}} : i16(f8E5M2)
      // CHECK: %[[LAST:.*]] = arith.trunci %[[P1]] : i16 to i8
      // CHECK: %[[PAIRS:.*]] = vector.from_elements %[[P0]] : vector<1xi16>
      // CHECK: %[[TWO:.*]] = vector.bitcast %[[PAIRS]] : vector<1xi16> to vector<2xi8>
      // CHECK: %[[HEAD:.*]] = vector.insert_strided_slice %[[TWO]], %{{.*}} {offsets = [0], strides = [1]} : vector<2xi8> into vector<3xi8>
      // CHECK: vector.insert %[[LAST]], %[[HEAD]] [2] : i8 into vector<3xi8>
      %q = prec.saturating_truncf %v : vector<3xf32> to vector<3xf8E5M2>
      gpu.return
    }

    // A scalar (the grid-stride loop's tail).
    // CHECK-LABEL: gpu.func @scalar
    // CHECK-SAME: (%[[X:[^:]*]]: f32
    gpu.func @scalar(%x: f32) kernel {
      // CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
      // CHECK: %[[P:.*]] = nvvm.convert.f32x2.to.f8x2 %[[ZERO]], %[[X]] {{.*}} : i16(f8E4M3FN)
      // CHECK: %[[B:.*]] = arith.trunci %[[P]] : i16 to i8
      // CHECK: %[[NAN:.*]] = arith.constant 127 : i8
      // CHECK: %[[ISNAN:.*]] = arith.cmpf uno, %[[X]], %[[X]] : f32
      // CHECK: %[[SEL:.*]] = arith.select %[[ISNAN]], %[[NAN]], %[[B]] : i8
      // CHECK: arith.bitcast %[[SEL]] : i8 to f8E4M3FN
      %q = prec.saturating_truncf %x : f32 to f8E4M3FN
      gpu.return
    }
  }
}

// -----

// sm_89 needs PTX 8.1 (NVPTX cannot select the instruction with 7.8 there).
module attributes {gpu.container_module} {
  // CHECK-LABEL: gpu.module @sm89
  gpu.module @sm89 [#nvvm.target<chip = "sm_89", features = "+ptx81">] {
    gpu.func @f(%x: f32) kernel {
      // CHECK: nvvm.convert.f32x2.to.f8x2
      %q = prec.saturating_truncf %x : f32 to f8E4M3FN
      gpu.return
    }
  }
}

// -----

// Before sm_89, with PTX before 7.8 (8.1 on sm_89), or without a target,
// the conversion stays for prec-expand-fp8-arith.
module attributes {gpu.container_module} {
  // CHECK-LABEL: gpu.module @sm89_ptx78
  gpu.module @sm89_ptx78 [#nvvm.target<chip = "sm_89", features = "+ptx78">] {
    gpu.func @f(%x: f32) kernel {
      // CHECK-NOT: nvvm.convert
      // CHECK: prec.saturating_truncf
      %q = prec.saturating_truncf %x : f32 to f8E4M3FN
      gpu.return
    }
  }
  // CHECK-LABEL: gpu.module @sm80
  gpu.module @sm80 [#nvvm.target<chip = "sm_80", features = "+ptx80">] {
    gpu.func @f(%v: vector<4xf32>) kernel {
      // CHECK-NOT: nvvm.convert
      // CHECK: prec.saturating_truncf
      %q = prec.saturating_truncf %v : vector<4xf32> to vector<4xf8E4M3FN>
      gpu.return
    }
  }
  // CHECK-LABEL: gpu.module @ptx70
  gpu.module @ptx70 [#nvvm.target<chip = "sm_90", features = "+ptx70">] {
    gpu.func @f(%v: vector<4xf32>) kernel {
      // CHECK-NOT: nvvm.convert
      // CHECK: prec.saturating_truncf
      %q = prec.saturating_truncf %v : vector<4xf32> to vector<4xf8E4M3FN>
      gpu.return
    }
  }
  // CHECK-LABEL: gpu.module @untargeted
  gpu.module @untargeted {
    gpu.func @f(%x: f32) kernel {
      // CHECK-NOT: nvvm.convert
      // CHECK: prec.saturating_truncf
      %q = prec.saturating_truncf %x : f32 to f8E5M2
      gpu.return
    }
  }
}
