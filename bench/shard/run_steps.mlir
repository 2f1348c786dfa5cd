// Appended to the partitioned module by run.sh: this rank's slices of A and
// B from a formula of their global indices (compare.py computes the same
// values), `%iters` calls of the partitioned @step, and the time they took.
// The result is returned as its f32 bit patterns, so that printing it (the
// upstream driver) loses nothing.
//   A[i][k] = ((37 i + 11 k) mod 97) / 97 - 1/2
//   B[k][j] = ((13 k + 29 j) mod 89) / 89 - 1/2
func.func private @rtclock() -> f64

func.func @run_steps(%iters: index) -> (tensor<512x512xi32>, tensor<f64>) {
  %rank = shard.process_linear_index on @grid : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c37 = arith.constant 37 : index
  %c11 = arith.constant 11 : index
  %c97 = arith.constant 97 : index
  %c13 = arith.constant 13 : index
  %c29 = arith.constant 29 : index
  %c89 = arith.constant 89 : index
  %c4 = arith.constant 4 : index
  %offset = arith.muli %rank, %c4 : index
  %ea = tensor.empty() : tensor<512x4xf32>
  %a = linalg.generic {
      indexing_maps = [affine_map<(i, k) -> (i, k)>],
      iterator_types = ["parallel", "parallel"]} outs(%ea : tensor<512x4xf32>) {
  ^bb0(%out: f32):
    %i = linalg.index 0 : index
    %kl = linalg.index 1 : index
    %k = arith.addi %kl, %offset : index
    %v = func.call @formula(%i, %k, %c37, %c11, %c97) : (index, index, index, index, index) -> f32
    linalg.yield %v : f32
  } -> tensor<512x4xf32>
  %eb = tensor.empty() : tensor<4x512xf32>
  %b = linalg.generic {
      indexing_maps = [affine_map<(k, j) -> (k, j)>],
      iterator_types = ["parallel", "parallel"]} outs(%eb : tensor<4x512xf32>) {
  ^bb0(%out: f32):
    %kl = linalg.index 0 : index
    %j = linalg.index 1 : index
    %k = arith.addi %kl, %offset : index
    %v = func.call @formula(%k, %j, %c13, %c29, %c89) : (index, index, index, index, index) -> f32
    linalg.yield %v : f32
  } -> tensor<4x512xf32>
  %e = tensor.empty() : tensor<512x512xf32>
  %t0 = func.call @rtclock() : () -> f64
  %c = scf.for %it = %c0 to %iters step %c1 iter_args(%acc = %e) -> tensor<512x512xf32> {
    %r = func.call @step(%a, %b) : (tensor<512x4xf32>, tensor<4x512xf32>) -> tensor<512x512xf32>
    scf.yield %r : tensor<512x512xf32>
  }
  %t1 = func.call @rtclock() : () -> f64
  %dt = arith.subf %t1, %t0 : f64
  %time = tensor.from_elements %dt : tensor<f64>
  %ebits = tensor.empty() : tensor<512x512xi32>
  %bits = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%c : tensor<512x512xf32>) outs(%ebits : tensor<512x512xi32>) {
  ^bb0(%x: f32, %out: i32):
    %y = arith.bitcast %x : f32 to i32
    linalg.yield %y : i32
  } -> tensor<512x512xi32>
  return %bits, %time : tensor<512x512xi32>, tensor<f64>
}

// ((x y_factor ...) mod m) / m - 1/2 in f32 (correctly rounded, as numpy's
// float32 arithmetic in compare.py).
func.func private @formula(%x: index, %y: index, %fx: index, %fy: index,
                           %m: index) -> f32 {
  %px = arith.muli %x, %fx : index
  %py = arith.muli %y, %fy : index
  %s = arith.addi %px, %py : index
  %r = arith.remui %s, %m : index
  %ri = arith.index_cast %r : index to i64
  %mi = arith.index_cast %m : index to i64
  %rf = arith.uitofp %ri : i64 to f32
  %mf = arith.uitofp %mi : i64 to f32
  %q = arith.divf %rf, %mf : f32
  %half = arith.constant 0.5 : f32
  %v = arith.subf %q, %half : f32
  return %v : f32
}
