// prec-lower-to-cpu cuts a direct reduce_scatter larger than a block of
// reduce-scatter-block-bytes (default 1 MiB) of input into a loop over
// blocks (prec-block-reduce-scatter), with the SGD that reads it where
// kernels fuse; reduce-scatter-block-bytes=0 leaves it whole.
// RUN: prec-opt %s --prec-lower-to-cpu --mlir-print-ir-after=prec-block-reduce-scatter -o /dev/null 2>&1 | FileCheck %s
// RUN: prec-opt %s --prec-lower-to-cpu="fold-casts=false fuse-kernels=false" --mlir-print-ir-after=prec-block-reduce-scatter -o /dev/null 2>&1 | FileCheck %s --check-prefix=UNFUSED
// RUN: prec-opt %s --prec-lower-to-cpu=reduce-scatter-block-bytes=0 --mlir-print-ir-after=prec-decompose-collectives -o /dev/null 2>&1 | FileCheck %s --check-prefix=WHOLE
// RUN: prec-opt %s --prec-lower-to-cpu | FileCheck %s --check-prefix=LOWER

shard.grid @dp(shape = 4)

// 4 MiB of f32 gradient: a rank's slice has 256 rows, each row of the
// input view (4 ranks x 1024 columns x 4 bytes) 16 KiB, so 64 rows per
// block: four blocks, no rest.
// CHECK-LABEL: func.func @large
// CHECK: scf.for %{{.*}} = %{{.*}} to %c256 step %c64
// CHECK:   prec.reduce_scatter %{{.*}} : tensor<4x64x1024xf32> -> tensor<1x64x1024xf32>
// CHECK:   prec.sgd %{{.*}} : tensor<1x64x1024xf32>, tensor<1x64x1024xf32>
// CHECK-NOT: prec.reduce_scatter
// CHECK: return

// UNFUSED-LABEL: func.func @large
// UNFUSED: scf.for %{{.*}} = %{{.*}} to %c256 step %c64
// UNFUSED:   prec.reduce_scatter %{{.*}} : tensor<4x64x1024xf32> -> tensor<1x64x1024xf32>
// UNFUSED: scf.yield
// UNFUSED: prec.sgd %{{.*}} : tensor<256x1024xf32>, tensor<256x1024xf32>

// WHOLE-LABEL: func.func @large
// WHOLE-NOT: scf.for
// WHOLE: prec.transport <all_to_all> %{{.*}} : tensor<1048576xbf16> -> tensor<1048576xbf16>
// WHOLE-NOT: scf.for

// The loop runs a block's pack kernel, its fence and the kernel that sums
// the peers' chunks and runs SGD.
// LOWER-LABEL: llvm.func @large
// LOWER: ^bb{{[0-9]+}}(%{{.*}}: i64
// LOWER: llvm.call @large_kernel
// LOWER: llvm.call @precrtCompiledWindowFence
// LOWER: llvm.call @large_kernel
// LOWER-NOT: llvm.call @large_kernel
// LOWER: llvm.br ^bb
func.func @large(%g: tensor<1024x1024xf32>, %w: tensor<256x1024xf32>, %lr: f32)
    -> tensor<256x1024xf32> {
  %r = prec.reduce_scatter %g on @dp scatter_axis = 0 reduction = <avg>
         forward_dtype = bf16 acc_dtype = f32
         : tensor<1024x1024xf32> -> tensor<256x1024xf32>
  %n = prec.sgd %w, %r, %lr : tensor<256x1024xf32>, tensor<256x1024xf32>
  return %n : tensor<256x1024xf32>
}
