// RUN: prec-opt %s --split-input-file --prec-gpu-host-to-runtime --verify-diagnostics | FileCheck %s --enable-var-scope

// Pack kernel, collective, unpack kernel: everything on the rank's stream,
// in program order; buffers in device memory.

func.func private @precrtCompiledCollective(i32, index, index, i64, i32, i32, i32, index, i32, index) -> i32
memref.global "private" constant @__prec_grid_dp : memref<1xi64> = dense<4>

// CHECK-LABEL: func.func @reduce_scatter
// CHECK-SAME:    (%[[GRAD:.*]]: memref<1024xf32>)
func.func @reduce_scatter(%grad: memref<1024xf32>) -> memref<256xf32> {
  // CHECK:       %[[STREAM:.*]] = call @precrtCompiledGpuStream() : () -> !llvm.ptr
  // CHECK:       %[[TOKEN:.*]] = builtin.unrealized_conversion_cast %[[STREAM]] : !llvm.ptr to !gpu.async.token
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2_i32 = arith.constant 2 : i32
  %c1_i32 = arith.constant 1 : i32
  %c0_i32 = arith.constant 0 : i32
  %c1024_i64 = arith.constant 1024 : i64
  // CHECK:       %[[WIRE:.*]], %{{.*}} = gpu.alloc async [%[[TOKEN]]] () : memref<1024xbf16>
  %wire = memref.alloc() {alignment = 64 : i64} : memref<1024xbf16>
  // CHECK:       gpu.launch async [%[[TOKEN]]]
  // CHECK:         arith.truncf
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %x = memref.load %grad[%tx] : memref<1024xf32>
    %w = arith.truncf %x : f32 to bf16
    memref.store %w, %wire[%tx] : memref<1024xbf16>
    gpu.terminator
  }
  // CHECK:       %[[RECV:.*]], %{{.*}} = gpu.alloc async [%[[TOKEN]]] () : memref<256xbf16>
  %recv = memref.alloc() {alignment = 64 : i64} : memref<256xbf16>
  %grid = memref.get_global @__prec_grid_dp : memref<1xi64>
  %send_ptr = memref.extract_aligned_pointer_as_index %wire : memref<1024xbf16> -> index
  %recv_ptr = memref.extract_aligned_pointer_as_index %recv : memref<256xbf16> -> index
  %grid_ptr = memref.extract_aligned_pointer_as_index %grid : memref<1xi64> -> index
  // CHECK:       call @precrtCompiledCollectiveOnStream({{.*}}, %[[STREAM]]) : (i32, index, index, i64, i32, i32, i32, index, i32, index, !llvm.ptr) -> i32
  %status = call @precrtCompiledCollective(%c2_i32, %send_ptr, %recv_ptr, %c1024_i64, %c2_i32, %c0_i32, %c1_i32, %grid_ptr, %c0_i32, %c0) : (i32, index, index, i64, i32, i32, i32, index, i32, index) -> i32
  // CHECK:       %[[OUT:.*]], %{{.*}} = gpu.alloc async [%[[TOKEN]]] () : memref<256xf32>
  %out = memref.alloc() {alignment = 64 : i64} : memref<256xf32>
  // CHECK:       gpu.launch async [%[[TOKEN]]]
  // CHECK:         arith.extf
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %w = memref.load %recv[%tx] : memref<256xbf16>
    %x = arith.extf %w : bf16 to f32
    memref.store %x, %out[%tx] : memref<256xf32>
    gpu.terminator
  }
  // CHECK:       gpu.dealloc async [%[[TOKEN]]] %[[WIRE]]
  // CHECK:       gpu.dealloc async [%[[TOKEN]]] %[[RECV]]
  // CHECK-NOT:   memref.alloc
  // CHECK-NOT:   memref.dealloc
  // CHECK:       return %[[OUT]]
  memref.dealloc %wire : memref<1024xbf16>
  memref.dealloc %recv : memref<256xbf16>
  return %out : memref<256xf32>
}

// -----

// A reduction over every dimension is a sequential host loop after upstream's
// loop mapping: it moves into a one-thread launch. A constant global that a
// kernel reads is copied to the device for it.

memref.global "private" constant @weights : memref<4xf32> = dense<[1.0, 2.0, 3.0, 4.0]>

// CHECK-LABEL: func.func @sum
func.func @sum(%x: memref<4xf32>, %total: memref<f32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  // CHECK:       %[[TOKEN:.*]] = builtin.unrealized_conversion_cast
  // CHECK:       gpu.launch async [%[[TOKEN]]]
  // CHECK:         scf.for
  // CHECK:           memref.load
  // CHECK:         gpu.terminator
  scf.for %i = %c0 to %c4 step %c1 {
    %v = memref.load %x[%i] : memref<4xf32>
    %t = memref.load %total[] : memref<f32>
    %s = arith.addf %t, %v : f32
    memref.store %s, %total[] : memref<f32>
  }
  // CHECK:       %[[HOST:.*]] = memref.get_global @weights
  // CHECK:       %[[DEVICE:.*]], %{{.*}} = gpu.alloc async [%[[TOKEN]]] () : memref<4xf32>
  // CHECK:       gpu.memcpy async [%[[TOKEN]]] %[[DEVICE]], %[[HOST]]
  // CHECK:       gpu.launch async [%[[TOKEN]]]
  // CHECK:         memref.load %[[DEVICE]]
  // CHECK:       gpu.dealloc async [%[[TOKEN]]] %[[DEVICE]]
  %w = memref.get_global @weights : memref<4xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c4, %sy = %c1, %sz = %c1) {
    %a = memref.load %w[%tx] : memref<4xf32>
    memref.store %a, %x[%tx] : memref<4xf32>
    gpu.terminator
  }
  return
}

// -----

// Bookkeeping that only the host sees (deallocation metadata) stays in host
// memory, and a function without GPU work is left alone.

// CHECK-LABEL: func.func private @host_helper
// CHECK-NOT:   gpu.
func.func private @host_helper(%flags: memref<2xi1>) {
  %c0 = arith.constant 0 : index
  %true = arith.constant true
  memref.store %true, %flags[%c0] : memref<2xi1>
  return
}

// CHECK-LABEL: func.func @metadata
func.func @metadata(%x: memref<8xf32>) {
  %c1 = arith.constant 1 : index
  // CHECK:       %[[FLAGS:.*]] = memref.alloc() : memref<2xi1>
  // CHECK:       call @host_helper(%[[FLAGS]])
  // CHECK:       memref.dealloc %[[FLAGS]]
  %flags = memref.alloc() : memref<2xi1>
  call @host_helper(%flags) : (memref<2xi1>) -> ()
  memref.dealloc %flags : memref<2xi1>
  // CHECK:       gpu.alloc async
  %tmp = memref.alloc() : memref<8xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %v = memref.load %x[%tx] : memref<8xf32>
    memref.store %v, %tmp[%tx] : memref<8xf32>
    gpu.terminator
  }
  return
}

// -----

// A buffer that a GPU function returns is a device buffer: freed on the
// stream like the others.

func.func private @backward(%x: memref<8xf32>) -> memref<8xf32> {
  %c1 = arith.constant 1 : index
  %grad = memref.alloc() : memref<8xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %v = memref.load %x[%tx] : memref<8xf32>
    memref.store %v, %grad[%tx] : memref<8xf32>
    gpu.terminator
  }
  return %grad : memref<8xf32>
}

// CHECK-LABEL: func.func @step
func.func @step(%x: memref<8xf32>) {
  // CHECK:       %[[TOKEN:.*]] = builtin.unrealized_conversion_cast
  // CHECK:       %[[GRAD:.*]] = call @backward
  // CHECK:       %[[BASE:.*]], %{{.*}}, %{{.*}}, %{{.*}} = memref.extract_strided_metadata %[[GRAD]]
  // CHECK:       gpu.dealloc async [%[[TOKEN]]] %[[BASE]]
  // CHECK-NOT:   memref.dealloc
  %grad = call @backward(%x) : (memref<8xf32>) -> memref<8xf32>
  %base, %offset, %size, %stride = memref.extract_strided_metadata %grad : memref<8xf32> -> memref<f32>, index, index, index
  memref.dealloc %base : memref<f32>
  return
}

// -----

// A buffer chosen by a select (canonicalized control flow) still reaches
// the kernel: device memory.

// CHECK-LABEL: func.func @selected
func.func @selected(%c: i1, %x: memref<8xf32>) {
  %c1 = arith.constant 1 : index
  // CHECK:       gpu.alloc async
  // CHECK-NOT:   memref.alloc
  %a = memref.alloc() : memref<8xf32>
  %b = arith.select %c, %a, %x : memref<8xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %v = memref.load %x[%tx] : memref<8xf32>
    memref.store %v, %b[%tx] : memref<8xf32>
    gpu.terminator
  }
  return
}

// -----

func.func @host_reads_device(%x: memref<8xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  // expected-error @below {{'memref.load' op reads a device buffer for the host; on the GPU, host code can only pass buffers on}}
  %v = memref.load %x[%c0] : memref<8xf32>
  return %v : f32
}

// -----

func.func private @host_helper(%flags: memref<2xi1>)

func.func @mixed(%x: memref<2xi1>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %flags = memref.alloc() : memref<2xi1>
  call @host_helper(%flags) : (memref<2xi1>) -> ()
  // expected-error @below {{'scf.for' op accesses both host and device buffers; GPU code keeps tensor data on the device}}
  scf.for %i = %c0 to %c2 step %c1 {
    %v = memref.load %x[%i] : memref<2xi1>
    memref.store %v, %flags[%i] : memref<2xi1>
  }
  return
}

// -----

// A kernel gets a device copy of a global: writes to a mutable one would be
// lost.
memref.global "private" @accumulator : memref<4xf32> = dense<0.0>
func.func @mutable_global() {
  %g = memref.get_global @accumulator : memref<4xf32>
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  // expected-error @+1 {{writes the mutable global @accumulator; GPU code works on device copies of globals, so it may only read them}}
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c4, %sy = %c1, %sz = %c1) {
    %one = arith.constant 1.0 : f32
    memref.store %one, %g[%tx] : memref<4xf32>
    gpu.terminator
  }
  return
}

// -----

// Reading a mutable global is fine: the copy holds its current values.
// CHECK-LABEL: func @read_mutable_global
// CHECK: gpu.memcpy
// CHECK: gpu.launch
memref.global "private" @table : memref<4xf32> = dense<1.0>
func.func @read_mutable_global(%out: memref<4xf32>) {
  %g = memref.get_global @table : memref<4xf32>
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c4, %sy = %c1, %sz = %c1) {
    %v = memref.load %g[%tx] : memref<4xf32>
    memref.store %v, %out[%tx] : memref<4xf32>
    gpu.terminator
  }
  return
}

// -----

// An outlined launch would run off the stream: the pass runs before
// gpu-kernel-outlining.

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @scale(%x: memref<8xf32>) kernel {
      gpu.return
    }
  }
  func.func @outlined(%x: memref<8xf32>) {
    %c1 = arith.constant 1 : index
    // expected-error @below {{'gpu.launch_func' op in the input of prec-gpu-host-to-runtime: expected kernels as 'gpu.launch' (run the pass before gpu-kernel-outlining)}}
    gpu.launch_func @kernels::@scale blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%x : memref<8xf32>)
    return
  }
}

// -----

// prec-map-elementwise-to-gpu gives its kernels collapsed (multi-dimensional)
// and expanded (rank-0) views: a kernel that reads a constant global through
// a view gets the same view of a device copy, never the host's global.

memref.global "private" constant @__constant_8x64xf32 : memref<8x64xf32> = dense<1.0>
memref.global "private" constant @__constant_xf32 : memref<f32> = dense<2.0>

// CHECK-LABEL: func.func @views_of_globals
func.func @views_of_globals(%out: memref<512xf32>) {
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  // CHECK:       %[[TOKEN:.*]] = builtin.unrealized_conversion_cast
  // CHECK:       %[[MATRIX:.*]] = memref.get_global @__constant_8x64xf32
  // CHECK:       %[[SCALAR:.*]] = memref.get_global @__constant_xf32
  // CHECK:       %[[MATRIX_DEVICE:.*]], %{{.*}} = gpu.alloc async [%[[TOKEN]]] () : memref<8x64xf32>
  // CHECK:       gpu.memcpy async [%[[TOKEN]]] %[[MATRIX_DEVICE]], %[[MATRIX]]
  // CHECK:       %[[FLAT:.*]] = memref.collapse_shape %[[MATRIX_DEVICE]] {{\[\[}}0, 1]]
  // CHECK:       %[[SCALAR_DEVICE:.*]], %{{.*}} = gpu.alloc async [%[[TOKEN]]] () : memref<f32>
  // CHECK:       gpu.memcpy async [%[[TOKEN]]] %[[SCALAR_DEVICE]], %[[SCALAR]]
  // CHECK:       %[[ONE:.*]] = memref.expand_shape %[[SCALAR_DEVICE]] []
  // CHECK:       gpu.launch async [%[[TOKEN]]]
  // CHECK:         memref.load %[[FLAT]]
  // CHECK:         memref.load %[[ONE]]
  // CHECK:       gpu.dealloc async [%[[TOKEN]]] %[[MATRIX_DEVICE]]
  // CHECK:       gpu.dealloc async [%[[TOKEN]]] %[[SCALAR_DEVICE]]
  %m = memref.get_global @__constant_8x64xf32 : memref<8x64xf32>
  %flat = memref.collapse_shape %m [[0, 1]] : memref<8x64xf32> into memref<512xf32>
  %s = memref.get_global @__constant_xf32 : memref<f32>
  %one = memref.expand_shape %s [] output_shape [1] : memref<f32> into memref<1xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %a = memref.load %flat[%tx] : memref<512xf32>
    %b = memref.load %one[%c0] : memref<1xf32>
    %c = arith.addf %a, %b : f32
    memref.store %c, %out[%tx] : memref<512xf32>
    gpu.terminator
  }
  return
}

// -----

// CUDA launches at most 65535 blocks along y and z: a larger grid launches
// the limit and loops over the block ids it stands for; x is left alone.

// CHECK-LABEL: func.func @tall_grid
func.func @tall_grid(%out: memref<70000x4xf32>) {
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c70000 = arith.constant 70000 : index
  %c100000 = arith.constant 100000 : index
  // CHECK-DAG:   %[[FULL:.*]] = arith.constant 70000 : index
  // CHECK-DAG:   %[[WIDE:.*]] = arith.constant 100000 : index
  // CHECK:       %[[LIMIT:.*]] = arith.constant 65535 : index
  // CHECK:       %[[LAUNCHED:.*]] = arith.minui %[[FULL]], %[[LIMIT]] : index
  // CHECK:       gpu.launch async [%{{.*}}] blocks(%{{.*}}, %[[BY:.*]], %{{.*}}) in (%{{.*}} = %[[WIDE]], %{{.*}} = %[[LAUNCHED]], %{{.*}} = %{{.*}})
  // CHECK:         scf.for %[[ROW:.*]] = %[[BY]] to %[[FULL]] step %[[LAUNCHED]] {
  // CHECK:           memref.store %{{.*}}, %{{.*}}[%[[ROW]], %{{.*}}]
  // CHECK:         }
  // CHECK:         gpu.terminator
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c100000, %gy = %c70000, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c4, %sy = %c1, %sz = %c1) {
    %rows = arith.index_cast %gy : index to i64
    %value = arith.uitofp %rows : i64 to f32
    memref.store %value, %out[%by, %tx] : memref<70000x4xf32>
    gpu.terminator
  }
  return
}

// -----

// GPU code takes device buffers: a constant global passed to it (the seed a
// step hands its generated backward) goes as a device copy, freed after the
// call.
// CHECK-LABEL: func @pass_constant_global
// CHECK: %[[GLOBAL:.*]] = memref.get_global @seed
// CHECK: %[[COPY:.*]], %{{.*}} = gpu.alloc async
// CHECK: gpu.memcpy async {{.*}} %[[COPY]], %[[GLOBAL]]
// CHECK: call @scale(%[[COPY]], %{{.*}})
// CHECK: gpu.dealloc async {{.*}} %[[COPY]]
memref.global "private" constant @seed : memref<f32> = dense<1.0>
func.func private @scale(%s: memref<f32>, %out: memref<4xf32>) {
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c4, %sy = %c1, %sz = %c1) {
    %v = memref.load %s[] : memref<f32>
    memref.store %v, %out[%tx] : memref<4xf32>
    gpu.terminator
  }
  return
}
func.func @pass_constant_global(%out: memref<4xf32>) {
  %g = memref.get_global @seed : memref<f32>
  call @scale(%g, %out) : (memref<f32>, memref<4xf32>) -> ()
  return
}

// -----

// A mutable global is not passed to GPU code: what it wrote would be lost.
memref.global "private" @state : memref<f32> = dense<1.0>
func.func private @scale(%s: memref<f32>, %out: memref<4xf32>) {
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c4, %sy = %c1, %sz = %c1) {
    %v = memref.load %s[] : memref<f32>
    memref.store %v, %out[%tx] : memref<4xf32>
    gpu.terminator
  }
  return
}
func.func @pass_mutable_global(%out: memref<4xf32>) {
  %g = memref.get_global @state : memref<f32>
  // expected-error @+1 {{passes the mutable global @state to GPU code, which works on device copies of globals and may only read them}}
  call @scale(%g, %out) : (memref<f32>, memref<4xf32>) -> ()
  return
}

// -----

// A gemm call (convert-contractions-to-runtime=gpu) runs on the stream as
// precrtCompiledGpuMatmul; a buffer only the gemm sees is device memory too.

func.func private @precrtCompiledMatmul(i64, i64, i64, i64, i32, index, i64, i64, i64, i32, index, i64, i64, i64, i32, index, i64, i64, i64) -> i32

// CHECK-LABEL: func.func @gemm
// CHECK:       %[[STREAM:.*]] = call @precrtCompiledGpuStream() : () -> !llvm.ptr
// CHECK:       %[[TOKEN:.*]] = builtin.unrealized_conversion_cast %[[STREAM]]
// CHECK:       %[[OUT:.*]], %{{.*}} = gpu.alloc async [%[[TOKEN]]] () : memref<4x8xf32>
// CHECK:       %[[OUTP:.*]] = memref.extract_aligned_pointer_as_index %[[OUT]]
// No scales (null addresses), and the program allows nothing below the
// contract: reduced-precision bits 0.
// CHECK:       %[[NULL:.*]] = arith.constant 0 : index
// CHECK:       %[[NONE:.*]] = arith.constant 0 : i32
// CHECK:       %[[STATUS:.*]] = call @precrtCompiledGpuMatmul({{.*}}, %[[OUTP]], {{.*}}, %[[NULL]], %[[NULL]], %[[NONE]], %[[STREAM]]) : (i64, i64, i64, i64, i32, index, i64, i64, i64, i32, index, i64, i64, i64, i32, index, i64, i64, i64, index, index, i32, !llvm.ptr) -> i32
// CHECK-NOT:   call @precrtCompiledMatmul(
// CHECK:       gpu.dealloc async [%[[TOKEN]]] %[[OUT]]
// CHECK:       %[[TF32:.*]] = arith.constant 1 : i32
// CHECK:       call @precrtCompiledGpuMatmul({{.*}}, %[[TF32]], %[[STREAM]])
// CHECK:       %[[BOTH:.*]] = arith.constant 3 : i32
// CHECK:       call @precrtCompiledGpuMatmul({{.*}}, %[[BOTH]], %[[STREAM]])
// CHECK:       return %[[STATUS]]
func.func @gemm(%a: memref<4x2xf32>, %b: memref<2x8xf32>) -> i32 {
  %c1 = arith.constant 1 : i64
  %c0 = arith.constant 0 : i64
  %c2 = arith.constant 2 : i64
  %c4 = arith.constant 4 : i64
  %c8 = arith.constant 8 : i64
  %f32 = arith.constant 1 : i32
  %out = memref.alloc() : memref<4x8xf32>
  %ap = memref.extract_aligned_pointer_as_index %a : memref<4x2xf32> -> index
  %bp = memref.extract_aligned_pointer_as_index %b : memref<2x8xf32> -> index
  %outp = memref.extract_aligned_pointer_as_index %out : memref<4x8xf32> -> index
  %status = call @precrtCompiledMatmul(%c1, %c4, %c8, %c2, %f32, %ap, %c0, %c2, %c1, %f32, %bp, %c0, %c8, %c1, %f32, %outp, %c0, %c8, %c1) : (i64, i64, i64, i64, i32, index, i64, i64, i64, i32, index, i64, i64, i64, i32, index, i64, i64, i64) -> i32
  memref.dealloc %out : memref<4x8xf32>
  // Calls convert-contractions-to-runtime marked with what the program allows.
  %out2 = memref.alloc() : memref<4x8xf32>
  %outp2 = memref.extract_aligned_pointer_as_index %out2 : memref<4x8xf32> -> index
  %s1 = call @precrtCompiledMatmul(%c1, %c4, %c8, %c2, %f32, %ap, %c0, %c2, %c1, %f32, %bp, %c0, %c8, %c1, %f32, %outp2, %c0, %c8, %c1) {prec.reduced_precision = #prec.reduced_precision<tf32>} : (i64, i64, i64, i64, i32, index, i64, i64, i64, i32, index, i64, i64, i64, i32, index, i64, i64, i64) -> i32
  %s2 = call @precrtCompiledMatmul(%c1, %c4, %c8, %c2, %f32, %ap, %c0, %c2, %c1, %f32, %bp, %c0, %c8, %c1, %f32, %outp2, %c0, %c8, %c1) {prec.reduced_precision = #prec.reduced_precision<tf32, output_type_reduction>} : (i64, i64, i64, i64, i32, index, i64, i64, i64, i32, index, i64, i64, i64, i32, index, i64, i64, i64) -> i32
  memref.dealloc %out2 : memref<4x8xf32>
  return %status : i32
}

// -----

// A gemm operand in a constant global is read from a device copy, made on
// the stream before the call and freed after it.
memref.global "private" constant @weight : memref<2x8xf32> = dense<1.0>
func.func private @precrtCompiledMatmul(i64, i64, i64, i64, i32, index, i64, i64, i64, i32, index, i64, i64, i64, i32, index, i64, i64, i64) -> i32

// CHECK-LABEL: func.func @gemm_of_a_constant
// CHECK:       %[[W:.*]] = memref.get_global @weight
// CHECK:       %[[COPY:.*]], %{{.*}} = gpu.alloc async [%{{.*}}] () : memref<2x8xf32>
// CHECK:       gpu.memcpy async [%{{.*}}] %[[COPY]], %[[W]]
// CHECK:       %[[WP:.*]] = memref.extract_aligned_pointer_as_index %[[COPY]]
// CHECK:       call @precrtCompiledGpuMatmul({{.*}}, %[[WP]], {{.*}})
// CHECK-NEXT:  gpu.dealloc async [%{{.*}}] %[[COPY]]
func.func @gemm_of_a_constant(%a: memref<4x2xf32>, %out: memref<4x8xf32>) -> i32 {
  %c1 = arith.constant 1 : i64
  %c0 = arith.constant 0 : i64
  %c2 = arith.constant 2 : i64
  %c4 = arith.constant 4 : i64
  %c8 = arith.constant 8 : i64
  %f32 = arith.constant 1 : i32
  %w = memref.get_global @weight : memref<2x8xf32>
  %ap = memref.extract_aligned_pointer_as_index %a : memref<4x2xf32> -> index
  %wp = memref.extract_aligned_pointer_as_index %w : memref<2x8xf32> -> index
  %outp = memref.extract_aligned_pointer_as_index %out : memref<4x8xf32> -> index
  %status = call @precrtCompiledMatmul(%c1, %c4, %c8, %c2, %f32, %ap, %c0, %c2, %c1, %f32, %wp, %c0, %c8, %c1, %f32, %outp, %c0, %c8, %c1) : (i64, i64, i64, i64, i32, index, i64, i64, i64, i32, index, i64, i64, i64, i32, index, i64, i64, i64) -> i32
  return %status : i32
}

// -----

// Two gemms reading the same address of a constant: each reads a device
// copy of its own, through an address of its own, freed after it.
memref.global "private" constant @shared_weight : memref<2x8xf32> = dense<1.0>
func.func private @precrtCompiledMatmul(i64, i64, i64, i64, i32, index, i64, i64, i64, i32, index, i64, i64, i64, i32, index, i64, i64, i64) -> i32

// CHECK-LABEL: func.func @two_gemms_of_a_constant
// CHECK:       %[[C1:.*]], %{{.*}} = gpu.alloc async
// CHECK:       %[[P1:.*]] = memref.extract_aligned_pointer_as_index %[[C1]]
// CHECK:       call @precrtCompiledGpuMatmul({{.*}}, %[[P1]], {{.*}})
// CHECK-NEXT:  gpu.dealloc async [%{{.*}}] %[[C1]]
// CHECK:       %[[C2:.*]], %{{.*}} = gpu.alloc async
// CHECK:       %[[P2:.*]] = memref.extract_aligned_pointer_as_index %[[C2]]
// CHECK:       call @precrtCompiledGpuMatmul({{.*}}, %[[P2]], {{.*}})
// CHECK-NEXT:  gpu.dealloc async [%{{.*}}] %[[C2]]
func.func @two_gemms_of_a_constant(%a: memref<4x2xf32>, %out: memref<4x8xf32>, %out2: memref<4x8xf32>) -> i32 {
  %c1 = arith.constant 1 : i64
  %c0 = arith.constant 0 : i64
  %c2 = arith.constant 2 : i64
  %c4 = arith.constant 4 : i64
  %c8 = arith.constant 8 : i64
  %f32 = arith.constant 1 : i32
  %w = memref.get_global @shared_weight : memref<2x8xf32>
  %ap = memref.extract_aligned_pointer_as_index %a : memref<4x2xf32> -> index
  %wp = memref.extract_aligned_pointer_as_index %w : memref<2x8xf32> -> index
  %outp = memref.extract_aligned_pointer_as_index %out : memref<4x8xf32> -> index
  %outp2 = memref.extract_aligned_pointer_as_index %out2 : memref<4x8xf32> -> index
  %s1 = call @precrtCompiledMatmul(%c1, %c4, %c8, %c2, %f32, %ap, %c0, %c2, %c1, %f32, %wp, %c0, %c8, %c1, %f32, %outp, %c0, %c8, %c1) : (i64, i64, i64, i64, i32, index, i64, i64, i64, i32, index, i64, i64, i64, i32, index, i64, i64, i64) -> i32
  %s2 = call @precrtCompiledMatmul(%c1, %c4, %c8, %c2, %f32, %ap, %c0, %c2, %c1, %f32, %wp, %c0, %c8, %c1, %f32, %outp2, %c0, %c8, %c1) : (i64, i64, i64, i64, i32, index, i64, i64, i64, i32, index, i64, i64, i64, i32, index, i64, i64, i64) -> i32
  return %s2 : i32
}

// -----

// A mutable global has no device copy a gemm could keep in step with it.
memref.global "private" @state : memref<2x8xf32> = dense<1.0>
func.func private @precrtCompiledMatmul(i64, i64, i64, i64, i32, index, i64, i64, i64, i32, index, i64, i64, i64, i32, index, i64, i64, i64) -> i32

func.func @gemm_of_a_mutable_global(%a: memref<4x2xf32>, %out: memref<4x8xf32>) -> i32 {
  %c1 = arith.constant 1 : i64
  %c0 = arith.constant 0 : i64
  %c2 = arith.constant 2 : i64
  %c4 = arith.constant 4 : i64
  %c8 = arith.constant 8 : i64
  %f32 = arith.constant 1 : i32
  %w = memref.get_global @state : memref<2x8xf32>
  %ap = memref.extract_aligned_pointer_as_index %a : memref<4x2xf32> -> index
  %wp = memref.extract_aligned_pointer_as_index %w : memref<2x8xf32> -> index
  %outp = memref.extract_aligned_pointer_as_index %out : memref<4x8xf32> -> index
  // expected-error @+1 {{'func.call' op multiplies into or out of the global @state on the GPU, which works on device copies of globals and may only read constant ones}}
  %status = call @precrtCompiledMatmul(%c1, %c4, %c8, %c2, %f32, %ap, %c0, %c2, %c1, %f32, %wp, %c0, %c8, %c1, %f32, %outp, %c0, %c8, %c1) : (i64, i64, i64, i64, i32, index, i64, i64, i64, i32, index, i64, i64, i64, i32, index, i64, i64, i64) -> i32
  return %status : i32
}

// -----

// The scaled fp8 gemm runs as precrtCompiledGpuMatmul with its scales'
// addresses (a constant's from a device copy); its callee, no runtime
// function, goes.
memref.global "private" constant @scale : memref<f32> = dense<2.5e-1>
func.func private @prec.scaled_gemm(i64, i64, i64, i64, i32, index, i64, i64, i64, i32, index, i64, i64, i64, i32, index, i64, i64, i64, index, index) -> i32

// CHECK-NOT:   @prec.scaled_gemm
// CHECK-LABEL: func.func @scaled_gemm
// CHECK-SAME:  (%[[A:.*]]: memref<8x32xf8E4M3FN>, %[[B:.*]]: memref<16x32xf8E4M3FN>, %[[SA:.*]]: memref<f32>, %[[OUT:.*]]: memref<8x16xf32>)
// CHECK:       %[[SAP:.*]] = memref.extract_aligned_pointer_as_index %[[SA]]
// CHECK:       %[[COPY:.*]], %{{.*}} = gpu.alloc async [%{{.*}}] () : memref<f32>
// CHECK:       %[[SBP:.*]] = memref.extract_aligned_pointer_as_index %[[COPY]]
// CHECK:       %[[NONE:.*]] = arith.constant 0 : i32
// CHECK:       call @precrtCompiledGpuMatmul({{.*}}, %[[SAP]], %[[SBP]], %[[NONE]], %{{.*}}) : (i64, i64, i64, i64, i32, index, i64, i64, i64, i32, index, i64, i64, i64, i32, index, i64, i64, i64, index, index, i32, !llvm.ptr) -> i32
// CHECK-NOT:   @prec.scaled_gemm
func.func @scaled_gemm(%a: memref<8x32xf8E4M3FN>, %b: memref<16x32xf8E4M3FN>, %sa: memref<f32>, %out: memref<8x16xf32>) -> i32 {
  %c1 = arith.constant 1 : i64
  %c0 = arith.constant 0 : i64
  %c8 = arith.constant 8 : i64
  %c16 = arith.constant 16 : i64
  %c32 = arith.constant 32 : i64
  %f8 = arith.constant 4 : i32
  %f32 = arith.constant 1 : i32
  %ap = memref.extract_aligned_pointer_as_index %a : memref<8x32xf8E4M3FN> -> index
  %bp = memref.extract_aligned_pointer_as_index %b : memref<16x32xf8E4M3FN> -> index
  %outp = memref.extract_aligned_pointer_as_index %out : memref<8x16xf32> -> index
  %sap = memref.extract_aligned_pointer_as_index %sa : memref<f32> -> index
  %g = memref.get_global @scale : memref<f32>
  %sbp = memref.extract_aligned_pointer_as_index %g : memref<f32> -> index
  %status = call @prec.scaled_gemm(%c1, %c8, %c16, %c32, %f8, %ap, %c0, %c32, %c1, %f8, %bp, %c0, %c1, %c32, %f32, %outp, %c0, %c16, %c1, %sap, %sbp) : (i64, i64, i64, i64, i32, index, i64, i64, i64, i32, index, i64, i64, i64, i32, index, i64, i64, i64, index, index) -> i32
  return %status : i32
}
