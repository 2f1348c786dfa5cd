// RUN: prec-opt %s --split-input-file --prec-emulate-gpu-kernels --verify-diagnostics | FileCheck %s --enable-var-scope

// A kernel becomes a host function that loops over blocks and threads; its
// launch becomes mgpuLaunchKernel on the same stream with that function.

module attributes {gpu.container_module} {
  gpu.module @pack {
    gpu.func @pack(%in: memref<1024xf32>, %out: memref<1024xbf16>, %n: index) kernel {
      %b = gpu.block_id x
      %t = gpu.thread_id x
      %d = gpu.block_dim x
      %base = arith.muli %b, %d : index
      %i = arith.addi %base, %t : index
      %inside = arith.cmpi ult, %i, %n : index
      scf.if %inside {
        %x = memref.load %in[%i] : memref<1024xf32>
        %w = arith.truncf %x : f32 to bf16
        memref.store %w, %out[%i] : memref<1024xbf16>
      }
      gpu.return
    }
  }

  // CHECK-LABEL: func.func @step
  // CHECK-SAME:    (%[[IN:.*]]: memref<1024xf32>, %[[OUT:.*]]: memref<1024xbf16>, %[[STREAM:.*]]: !llvm.ptr)
  // CHECK:         %[[PARAMS:.*]] = llvm.alloca %{{.*}} x !llvm.array<3 x ptr>
  // CHECK:         %[[SLOT0:.*]] = llvm.alloca %{{.*}} x !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
  // CHECK:         %[[SIZES:.*]] = llvm.alloca %{{.*}} x !llvm.array<4 x i64>
  // CHECK:         %[[EXTRA:.*]] = llvm.alloca %{{.*}} x !llvm.array<3 x ptr>
  // CHECK:         %[[DESC:.*]] = builtin.unrealized_conversion_cast %[[IN]] : memref<1024xf32> to !llvm.struct
  // CHECK:         llvm.store %[[DESC]], %[[SLOT0]]
  // CHECK:         %[[ADDR0:.*]] = llvm.getelementptr %[[PARAMS]][0]
  // CHECK:         llvm.store %[[SLOT0]], %[[ADDR0]]
  // CHECK:         %[[ON:.*]] = builtin.unrealized_conversion_cast %{{.*}} : !gpu.async.token to !llvm.ptr
  // CHECK:         %[[F:.*]] = constant @__prec_emulated_pack_pack
  // CHECK:         %[[FP:.*]] = builtin.unrealized_conversion_cast %[[F]]
  // The sizes of the arguments, for the driver to copy them at the launch.
  // CHECK:         llvm.mlir.constant(40 : i64)
  // CHECK:         llvm.mlir.constant(40 : i64)
  // CHECK:         llvm.mlir.constant(8 : i64)
  // CHECK:         %[[KEY:.*]] = llvm.mlir.constant(1347568963 : i64)
  // CHECK:         llvm.inttoptr %[[KEY]]
  // Only a driver that took the marker module is handed the host function.
  // CHECK:         %[[READY:.*]] = call @__prec_emulated_kernels_ready() : () -> i1
  // CHECK:         scf.if %[[READY]] {
  // CHECK:           llvm.call @mgpuLaunchKernel(%[[FP]], {{.*}}, %[[ON]], %[[PARAMS]], %[[EXTRA]], {{.*}})
  // CHECK-NOT:     gpu.launch_func
  func.func @step(%in: memref<1024xf32>, %out: memref<1024xbf16>, %stream: !llvm.ptr) {
    %token = builtin.unrealized_conversion_cast %stream : !llvm.ptr to !gpu.async.token
    %c4 = arith.constant 4 : index
    %c1 = arith.constant 1 : index
    %c256 = arith.constant 256 : index
    %c1000 = arith.constant 1000 : index
    %done = gpu.launch_func async [%token] @pack::@pack blocks in (%c4, %c1, %c1) threads in (%c256, %c1, %c1)
        args(%in : memref<1024xf32>, %out : memref<1024xbf16>, %c1000 : index)
    return
  }

  // CHECK-LABEL: func.func private @__prec_emulated_pack_pack
  // CHECK-SAME:    (%[[P:.*]]: !llvm.ptr, %[[L:.*]]: !llvm.ptr)
  // Each buffer is checked to be device memory before any thread runs.
  // CHECK:         %[[FIELD:.*]] = llvm.getelementptr %[[L]][6]
  // CHECK:         %[[CHECK:.*]] = llvm.load %[[FIELD]] : !llvm.ptr -> !llvm.ptr
  // CHECK:         llvm.call %[[CHECK]](%[[L]], %{{.*}}, %{{.*}}) : !llvm.ptr, (!llvm.ptr, i64, i64) -> i32
  // CHECK:         llvm.call %[[CHECK]](%[[L]], %{{.*}}, %{{.*}})
  // CHECK:         scf.if
  // Blocks z y x, then threads z y x.
  // CHECK:           scf.for
  // CHECK:           scf.for
  // CHECK:           scf.for %[[B:.*]] =
  // CHECK:           scf.for
  // CHECK:           scf.for
  // CHECK:           scf.for %[[T:.*]] =
  // CHECK:             arith.muli %[[B]], %{{.*}} : index
  // CHECK:             scf.if
  // Every access checks that it stays inside its buffer, or reports the
  // kernel through the driver.
  // CHECK:               %[[SIZE:.*]] = memref.dim
  // CHECK:               %[[OUTSIDE:.*]] = arith.xori
  // CHECK:               scf.if %[[OUTSIDE]] {
  // CHECK:                 %[[FIELD7:.*]] = llvm.getelementptr %[[L]][7]
  // CHECK:                 %[[REPORT:.*]] = llvm.load %[[FIELD7]]
  // CHECK:                 %[[MESSAGE:.*]] = llvm.mlir.addressof @__prec_emulated_pack_pack_out_of_bounds
  // CHECK:                 llvm.call %[[REPORT]](%[[MESSAGE]])
  // CHECK:               }
  // CHECK-NEXT:          memref.load
  // CHECK:               scf.if
  // CHECK:                 llvm.call
  // CHECK:               }
  // CHECK-NEXT:          memref.store
  // CHECK-NOT:   gpu.module
  // CHECK:       llvm.mlir.global internal constant @__prec_emulated_pack_pack_out_of_bounds("out-of-bounds access in kernel pack::pack\00")

  // The first launch of the process loads the marker module through the
  // driver: a CUDA driver rejects it, and then no launch is made.
  // CHECK:       llvm.mlir.global internal @__prec_emulated_kernels_state(0 : i32)
  // CHECK:       llvm.mlir.global internal constant @__prec_emulated_kernels_marker("prec-emulated-kernels\00")
  // CHECK:       llvm.mlir.global internal constant @__prec_emulated_kernels_refused("emulated kernels need the test CUDA driver
  // CHECK-LABEL: func.func private @__prec_emulated_kernels_ready() -> i1
  // CHECK:         %[[STATE:.*]] = llvm.mlir.addressof @__prec_emulated_kernels_state
  // CHECK:         %[[KNOWN:.*]] = llvm.load %[[STATE]] atomic monotonic
  // CHECK:         scf.if
  // CHECK:           %[[MARKER:.*]] = llvm.mlir.addressof @__prec_emulated_kernels_marker
  // CHECK:           %[[MODULE:.*]] = llvm.call @mgpuModuleLoad(%[[MARKER]], %{{.*}})
  // CHECK:           %[[LOADED:.*]] = llvm.icmp "ne" %[[MODULE]]
  // CHECK:           scf.if %[[LOADED]] {
  // CHECK:             llvm.call @mgpuModuleUnload(%[[MODULE]])
  // CHECK:           } else {
  // CHECK:             llvm.call @write
  // CHECK:           }
  // CHECK:           llvm.store %{{.*}}, %[[STATE]] atomic monotonic
  // CHECK:           scf.yield %[[LOADED]]
}

// -----

// Threads run one after another: a barrier cannot be emulated.

module attributes {gpu.container_module} {
  gpu.module @sync {
    gpu.func @sync(%out: memref<4xf32>) kernel {
      // expected-error @below {{'gpu.barrier' op in kernel sync::sync: the host emulation runs threads one after another and supports no operation that needs them to run together}}
      gpu.barrier
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @shared {
    // expected-error @below {{uses shared or private memory, which the host emulation of kernels does not run}}
    gpu.func @shared(%out: memref<4xf32>) workgroup(%tile: memref<4xf32, #gpu.address_space<workgroup>>) kernel {
      gpu.return
    }
  }
}
