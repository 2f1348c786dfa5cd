// The pack kernel of a bf16 gradient reduce-scatter: f32 gradients divided
// by the pre-divisor and rounded to bf16 on the wire, 64 Mi elements
// (256 MiB in, 128 MiB out). Two divisors: a power of two (FSDP's factors:
// one multiplication) and 3 (a 6-rank group: the corrected reciprocal).
// bench/gpu/PackBench.cpp times them against a device-to-device copy.

#id = affine_map<(d0) -> (d0)>

func.func @pack_div4(%grad: memref<67108864xf32>, %wire: memref<67108864xbf16>) {
  %d = arith.constant 4.0 : f32
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%grad : memref<67108864xf32>) outs(%wire : memref<67108864xbf16>) {
  ^bb0(%g: f32, %w: bf16):
    %s = arith.divf %g, %d : f32
    %t = arith.truncf %s : f32 to bf16
    linalg.yield %t : bf16
  }
  return
}

func.func @pack_div3(%grad: memref<67108864xf32>, %wire: memref<67108864xbf16>) {
  %d = arith.constant 3.0 : f32
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%grad : memref<67108864xf32>) outs(%wire : memref<67108864xbf16>) {
  ^bb0(%g: f32, %w: bf16):
    %s = arith.divf %g, %d : f32
    %t = arith.truncf %s : f32 to bf16
    linalg.yield %t : bf16
  }
  return
}
