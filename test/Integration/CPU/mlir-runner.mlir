// A lowered program runs under upstream's mlir-runner with the runtime
// library: its collectives run on a world of one rank, or under mpirun with
// PRECRT_BACKEND=mpi on the MPI world, each process one rank.
// REQUIRES: mlir-runner
// RUN: sed -e "s/shape = 2/shape = 1/" -e "s/2x3xf32/1x3xf32/g" %s \
// RUN:   | prec-opt --prec-lower-to-cpu > %t.1.mlir
// RUN: %sanitizer_preload mlir-runner %t.1.mlir -e main -entry-point-result=void \
// RUN:   -shared-libs=%precrt_lib/libprecrt%shlibext,%mlir_lib/libmlir_c_runner_utils%shlibext,%mlir_lib/libmlir_runner_utils%shlibext \
// RUN:   | FileCheck %s --check-prefix=ONE
// A grid of two ranks does not fit the implicit world of one: the process
// ends with the runtime's error instead of going on with garbage.
// RUN: prec-opt %s --prec-lower-to-cpu > %t.2.mlir
// RUN: not %sanitizer_preload mlir-runner %t.2.mlir -e main -entry-point-result=void \
// RUN:   -shared-libs=%precrt_lib/libprecrt%shlibext,%mlir_lib/libmlir_c_runner_utils%shlibext,%mlir_lib/libmlir_runner_utils%shlibext \
// RUN:   2>&1 | FileCheck %s --check-prefix=TOO-FEW
// RUN: %if mpi %{ rm -f %t.rank* && %mpirun 2 env PRECRT_BACKEND=mpi sh -c \
// RUN:   '%sanitizer_preload mlir-runner %t.2.mlir -e main -entry-point-result=void \
// RUN:   -shared-libs=%precrt_lib/libprecrt%shlibext,%mlir_lib/libmlir_c_runner_utils%shlibext,%mlir_lib/libmlir_runner_utils%shlibext \
// RUN:   > %t.rank${OMPI_COMM_WORLD_RANK:-$PMI_RANK}' %}
// RUN: %if mpi %{ FileCheck %s --check-prefix=TWO < %t.rank0 %}
// RUN: %if mpi %{ FileCheck %s --check-prefix=TWO < %t.rank1 %}

shard.grid @world(shape = 2)

func.func private @printMemrefF32(memref<*xf32>)

func.func @print(%t: tensor<?x?xf32>) {
  %m = bufferization.to_buffer %t : tensor<?x?xf32> to memref<?x?xf32>
  %u = memref.cast %m : memref<?x?xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}

func.func @main() {
  %x = arith.constant dense<[[1.0, 2.0, 3.0]]> : tensor<1x3xf32>
  // Every rank contributes the same values: the sum is the rank count
  // times them.
  %sum = prec.all_reduce %x on @world reduction = <sum>
           : tensor<1x3xf32> -> tensor<1x3xf32>
  %gathered = prec.all_gather %sum on @world gather_axis = 0
                : tensor<1x3xf32> -> tensor<2x3xf32>
  %d = tensor.cast %gathered : tensor<2x3xf32> to tensor<?x?xf32>
  call @print(%d) : (tensor<?x?xf32>) -> ()
  return
}
// ONE:      rank = 2 offset = 0 sizes = [1, 3]
// ONE-NEXT: {{\[}}[1, 2, 3]]

// TOO-FEW: precrt: compiled collective failed: {{.*}}does not cover the 1 ranks
// TOO-FEW-NOT: data =

// TWO:      rank = 2 offset = 0 sizes = [2, 3]
// TWO-NEXT: {{\[}}[2, 4, 6],
// TWO-NEXT:  [2, 4, 6]]
