// The entry of the upstream program (appended by run.sh after
// convert-shard-to-mpi, which leaves MPI's initialization to the caller):
// MPI_Init, ITERS steps, rank 0 prints the result's bit patterns and the
// time, MPI_Finalize.
func.func private @printMemrefI32(memref<*xi32>)
func.func private @printF64(f64)
func.func private @printNewline()

func.func @main() {
  %init = mpi.init : !mpi.retval
  %iters = arith.constant ITERS : index
  %bits, %time = func.call @run_steps(%iters)
      : (index) -> (tensor<512x512xi32>, tensor<f64>)
  %world = mpi.comm_world : !mpi.comm
  %retval, %rank = mpi.comm_rank(%world) : !mpi.retval, i32
  %c0 = arith.constant 0 : i32
  %first = arith.cmpi eq, %rank, %c0 : i32
  scf.if %first {
    %buffer = bufferization.to_buffer %bits : tensor<512x512xi32> to memref<512x512xi32>
    %unranked = memref.cast %buffer : memref<512x512xi32> to memref<*xi32>
    func.call @printMemrefI32(%unranked) : (memref<*xi32>) -> ()
    %seconds = tensor.extract %time[] : tensor<f64>
    func.call @printF64(%seconds) : (f64) -> ()
    func.call @printNewline() : () -> ()
  }
  %finalize = mpi.finalize : !mpi.retval
  return
}
