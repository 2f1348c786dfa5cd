// RUN: prec-opt %s --split-input-file --prec-map-elementwise-to-gpu -verify-diagnostics

// NVPTX has no f80 or f128 arithmetic (LLVM would abort in instruction
// selection): a kernel computing in one is rejected at the kernel.

func.func @widen(%x: memref<4xf64>, %y: memref<4xf128>) {
  // expected-error @below {{'linalg.generic' op computes in 'f128', which GPU kernels do not support: use f64 or narrower}}
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                  iterator_types = ["parallel"]}
      ins(%x : memref<4xf64>) outs(%y : memref<4xf128>) {
  ^bb0(%a: f64, %b: f128):
    %e = arith.extf %a : f64 to f128
    linalg.yield %e : f128
  }
  return
}

// -----

// Also when only the body computes in one.
func.func @through_f128(%x: memref<4xf64>, %y: memref<4xf64>) {
  // expected-error @below {{'linalg.generic' op computes in 'f128', which GPU kernels do not support: use f64 or narrower}}
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                  iterator_types = ["parallel"]}
      ins(%x : memref<4xf64>) outs(%y : memref<4xf64>) {
  ^bb0(%a: f64, %b: f64):
    %e = arith.extf %a : f64 to f128
    %t = arith.truncf %e : f128 to f64
    linalg.yield %t : f64
  }
  return
}
