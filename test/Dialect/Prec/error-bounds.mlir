// RUN: prec-opt %s --prec-error-bounds -verify-diagnostics -o /dev/null
// RUN: prec-opt %s --prec-error-bounds=json=- -o /dev/null 2>/dev/null | FileCheck %s --check-prefix=JSON
// RUN: prec-opt %s --prec-error-bounds=json=%t.json -o /dev/null 2>/dev/null
// RUN: FileCheck %s --check-prefix=JSON --input-file=%t.json
// RUN: not prec-opt %s --prec-error-bounds=max-rel-error=1e-2 -o /dev/null 2>&1 | FileCheck %s --check-prefix=LIMIT

// Bounds with u(f32) = 2^-24, u(bf16) = 2^-8, u(f16) = 2^-11,
// u(f8E4M3FN) = 2^-4 and gamma(k, u) = k u / (1 - k u).

shard.grid @one(shape = 1)
shard.grid @six(shape = 6)
shard.grid @dp(shape = 8)
shard.grid @hsdp(shape = 4x8)
shard.grid @large(shape = 512)

func.func @reductions(%x: tensor<96xf32>, %b: tensor<96xbf16>, %h: tensor<96xf16>) {
  // One rank, nothing rounds.
  // expected-remark @+1 {{relative error bound 0.000e+00 (|error| <= bound * sum_i |x_i| / divisor): N = 1, input f32, wire f32, accumulation f32, ring, result f32}}
  %0 = prec.all_reduce %x on @one : tensor<96xf32> -> tensor<96xf32>
  // bf16 wire, f32 sum (direct): u(bf16) + gamma(7, u(f32)).
  // expected-remark @+1 {{relative error bound 3.907e-03 (|error| <= bound * sum_i |x_i| / divisor): N = 8, input f32, wire bf16, accumulation f32, direct, result f32}}
  %1 = prec.reduce_scatter %x on @dp scatter_axis = 0 forward_dtype = bf16 acc_dtype = f32 : tensor<96xf32> -> tensor<12xf32>
  // A bf16 ring re-rounds at each of the 7 hops: gamma(7, u(bf16)).
  // expected-remark @+1 {{relative error bound 2.811e-02 (|error| <= bound * sum_i |x_i| / divisor): N = 8, input bf16, wire bf16, accumulation bf16, ring, result bf16}}
  %2 = prec.all_reduce %b on @dp acc_dtype = bf16 : tensor<96xbf16> -> tensor<96xbf16>
  // The HSDP shard group is 8 of the 32 ranks; all axes are 32:
  // gamma(31, u(bf16)).
  // expected-remark @+1 {{relative error bound 2.811e-02 (|error| <= bound * sum_i |x_i| / divisor): N = 8, input bf16}}
  %3 = prec.all_reduce %b on @hsdp grid_axes = [1] acc_dtype = bf16 : tensor<96xbf16> -> tensor<96xbf16>
  // expected-remark @+1 {{relative error bound 1.378e-01 (|error| <= bound * sum_i |x_i| / divisor): N = 32, input bf16}}
  %4 = prec.all_reduce %b on @hsdp acc_dtype = bf16 : tensor<96xbf16> -> tensor<96xbf16>
  // f16 average over 6 split 2 x 3: the pre-divisor 2 is exact, the
  // post-divisor 3 rounds once in f16: u(f16) + gamma(5, u(f16)).
  // expected-remark @+1 {{relative error bound 2.937e-03 (|error| <= bound * sum_i |x_i| / divisor): N = 6, input f16, wire f16, accumulation f16, ring, result f16}}
  %5 = prec.all_reduce %h on @six acc_dtype = f16 pre_divisor = 2.0 post_divisor = 3.0 : tensor<96xf16> -> tensor<96xf16>
  // Same as the unsplit average.
  // expected-remark @+1 {{relative error bound 2.937e-03}}
  %6 = prec.all_reduce %h on @six reduction = <avg> acc_dtype = f16 : tensor<96xf16> -> tensor<96xf16>
  // max selects a wire value, which the bf16 slices hold exactly: only the
  // wire rounds.
  // expected-remark @+1 {{relative error bound 3.906e-03 (|error| <= bound * sum_i |x_i| / divisor): N = 8, input f32, wire bf16, accumulation f32, direct, slices gathered in bf16, result f32}}
  %7 = prec.all_reduce %x on @dp reduction = <max> forward_dtype = bf16 : tensor<96xf32> -> tensor<96xf32>
  // A direct all_reduce gathers its reduced slices in the wire dtype: the
  // f32 sum is rounded once more, to bf16: 2 u(bf16) + gamma(7, u(f32)).
  // expected-remark @+1 {{relative error bound 7.828e-03 (|error| <= bound * sum_i |x_i| / divisor): N = 8, input f32, wire bf16, accumulation f32, direct, slices gathered in bf16, result f32}}
  %9 = prec.all_reduce %x on @dp forward_dtype = bf16 acc_dtype = f32 : tensor<96xf32> -> tensor<96xf32>
  // A bf16 result: that rounding is the result's own, as when the sum was
  // computed from gathered inputs: u(bf16) + gamma(7, u(f32)).
  // expected-remark @+1 {{relative error bound 3.907e-03 (|error| <= bound * sum_i |x_i| / divisor): N = 8, input bf16, wire bf16, accumulation f32, direct, slices gathered in bf16, result bf16}}
  %10 = prec.all_reduce %b on @dp : tensor<96xbf16> -> tensor<96xbf16>
  // f16 result of an f32 wire: the slices travel in f16, rounded once.
  // expected-remark @+1 {{relative error bound 4.883e-04 (|error| <= bound * sum_i |x_i| / divisor): N = 8, input f32, wire f32, accumulation f64, direct, slices gathered in f16, result f16}}
  %11 = prec.all_reduce %x on @dp acc_dtype = f64 : tensor<96xf32> -> tensor<96xf16>
  // 511 * 2^-8 >= 1: the summation bound says nothing.
  // expected-remark @+1 {{no relative error bound: (N - 1) * u >= 1 for the summation (N = 512, input bf16, wire bf16, accumulation bf16, ring, result bf16)}}
  %8 = prec.all_reduce %b on @large acc_dtype = bf16 : tensor<96xbf16> -> tensor<96xbf16>
  return
}

func.func @moves(%x: tensor<96xf32>, %seed: i64) {
  // Exact in f32 both ways.
  // expected-remark @+1 {{relative error bound 0.000e+00 (|error| <= bound * |x|): N = 8, input f32, wire f32, result f32}}
  %0 = prec.all_gather %x on @dp gather_axis = 0 : tensor<96xf32> -> tensor<768xf32>
  // expected-remark @+1 {{relative error bound 3.906e-03 (|error| <= bound * |x|): N = 8, input f32, wire bf16, result f32}}
  %1 = prec.all_gather %x on @dp gather_axis = 0 forward_dtype = bf16 : tensor<96xf32> -> tensor<768xf32>
  // Stochastic rounding may land one ulp away: 2 u(bf16).
  // expected-remark @+1 {{relative error bound 7.812e-03 (|error| <= bound * |x|): N = 8, input f32, wire bf16, result bf16}}
  %2 = prec.all_gather %x on @dp gather_axis = 0 forward_dtype = bf16 rounding = <stochastic> seed %seed : tensor<96xf32> -> tensor<768xbf16>
  // fp8 with a per-tensor f32 scale: u(f8E4M3FN), plus dividing and
  // multiplying by the scale in f32.
  // expected-remark @+1 {{relative error bound 6.250e-02 (|error| <= bound * |x|): N = 8, input f32, wire f8E4M3FN, result f32}}
  %3 = prec.all_to_all %x on @dp split_axis = 0 concat_axis = 0 forward_dtype = f8E4M3FN scaling = <dynamic> : tensor<96xf32> -> tensor<96xf32>
  // Stochastic: the wire 2 u(f8E4M3FN), and q * scale rounded
  // stochastically to bf16, 2 u(bf16): 1.125 * (1 + 2^-7) - 1.
  // expected-remark @+1 {{relative error bound 1.338e-01 (|error| <= bound * |x|): N = 8, input f32, wire f8E4M3FN, result bf16}}
  %4 = prec.all_gather %x on @dp gather_axis = 0 forward_dtype = f8E4M3FN rounding = <stochastic> seed %seed scaling = <dynamic> : tensor<96xf32> -> tensor<768xbf16>
  return
}

// JSON: [
// JSON:   {
// JSON:     "op": "prec.all_reduce",
// JSON:     "location": "{{.*}}error-bounds.mlir:19:8",
// JSON:     "group_size": 1,
// JSON:     "input_dtype": "f32",
// JSON:     "forward_dtype": "f32",
// JSON:     "acc_dtype": "f32",
// JSON:     "result_dtype": "f32",
// JSON:     "algorithm": "ring",
// JSON:     "bound": 0
// JSON:   },
// JSON:   {
// JSON:     "op": "prec.reduce_scatter",
// JSON:     "location": "{{.*}}error-bounds.mlir:22:8",
// JSON:     "group_size": 8,
// JSON:     "input_dtype": "f32",
// JSON:     "forward_dtype": "bf16",
// JSON:     "acc_dtype": "f32",
// JSON:     "result_dtype": "f32",
// JSON:     "algorithm": "direct",
// JSON:     "bound": 0.0039066{{[0-9]*}}
// JSON:   },
// JSON:       "location": "{{.*}}error-bounds.mlir:46:8",
// JSON:       "algorithm": "direct",
// JSON-NEXT:  "gather_dtype": "bf16",
// JSON-NEXT:  "bound": 0.00782{{[0-9]*}}
// JSON:       "location": "{{.*}}error-bounds.mlir:56:8",
// JSON-NEXT:  "group_size": 512,
// JSON:       "bound": null
// JSON:       "op": "prec.all_gather",
// JSON-NEXT:  "location": "{{.*}}error-bounds.mlir:63:8",
// JSON-NEXT:  "group_size": 8,
// JSON-NEXT:  "input_dtype": "f32",
// JSON-NEXT:  "forward_dtype": "f32",
// JSON-NEXT:  "acc_dtype": null,
// JSON-NEXT:  "result_dtype": "f32",
// JSON-NEXT:  "algorithm": null,
// JSON-NEXT:  "gather_dtype": null,
// JSON-NEXT:  "bound": 0
// JSON:       "op": "prec.all_to_all",
// JSON:       "bound": 0.0625{{[0-9]*}}
// JSON:       "op": "prec.all_gather",
// JSON:       "forward_dtype": "f8E4M3FN",
// JSON:       "bound": 0.125{{,?$}}
// JSON:       "op": "prec.reduce_scatter",
// JSON:       "op": "prec.reduce_scatter",
// JSON:       "bound": 0.125{{[0-9]*}},
// JSON-NEXT:  "input_error": 0,
// JSON-NEXT:  "end_to_end_bound": 0.125{{[0-9]*}},
// JSON-NEXT:  "function": "@scaled",
// JSON-NEXT:  "group": "@dp",
// JSON-NEXT:  "scaling": "<dynamic>",
// JSON-NEXT:  "rounding": "stochastic",
// JSON-NEXT:  "bytes_per_rank": 84,
// JSON-NEXT:  "moves": [
// JSON-NEXT:    "@scaled:arg0"
// JSON-NEXT:  ],
// JSON-NEXT:  "locations": [
// JSON-NEXT:    "{{.*}}error-bounds.mlir:{{[0-9]+}}:{{[0-9]+}}"
// JSON-NEXT:  ],
// JSON-NEXT:  "gradient_of": null
// JSON-NEXT: }
// JSON-NEXT: ]

// LIMIT-NOT: error-bounds.mlir:19:8: error
// LIMIT-DAG: error-bounds.mlir:25:8: error: prec.all_reduce in @reductions: relative error bound 2.811e-02 exceeds max-rel-error=1.000e-02 (N = 8, input bf16, wire bf16, accumulation bf16, ring, result bf16)
// LIMIT-DAG: error-bounds.mlir:56:8: error: prec.all_reduce in @reductions: no relative error bound: (N - 1) * u >= 1 for the summation (N = 512, input bf16, wire bf16, accumulation bf16, ring, result bf16); max-rel-error=1.000e-02
// LIMIT-DAG: error-bounds.mlir:72:8: error: prec.all_to_all in @moves: relative error bound 6.250e-02 exceeds max-rel-error=1.000e-02
// LIMIT-DAG: error-bounds.mlir:22:8: remark: prec.reduce_scatter in @reductions: relative error bound 3.907e-03

// Scaled fp8 wires. MX power-of-two block scales divide and multiply
// exactly, but a block's largest elements may saturate: up to
// 1 - 448 / 2^9 = 1 - 57344 / 2^16 = 1/8 of a value, more than half a
// spacing of either format.
func.func @scaled(%x: tensor<96xf32>, %b: tensor<96xbf16>, %seed: i64) {
  // expected-remark @+1 {{relative error bound 1.250e-01 (|error| <= bound * |x|): N = 8, input f32, wire f8E4M3FN, result f32}}
  %0 = prec.all_gather %x on @dp gather_axis = 0 forward_dtype = f8E4M3FN scaling = <block, block_size = 32> : tensor<96xf32> -> tensor<768xf32>
  // The same with f32 block scales: no saturation, the quotient and the
  // product round in f32: (1 + 2^-4)(1 + 2^-24)^2 - 1.
  // expected-remark @+1 {{relative error bound 6.250e-02 (|error| <= bound * |x|): N = 8, input f32, wire f8E4M3FN, result f32}}
  %1 = prec.all_gather %x on @dp gather_axis = 0 forward_dtype = f8E4M3FN scaling = <block, block_size = 32, scale_dtype = f32> : tensor<96xf32> -> tensor<768xf32>
  // An f8E5M2 gradient wire, summed in f32 over 8 ranks.
  // expected-remark @+1 {{relative error bound 1.250e-01 (|error| <= bound * sum_i |x_i| / divisor): N = 8, input bf16, wire f8E5M2, accumulation f32, direct, result f32}}
  %2 = prec.reduce_scatter %b on @dp scatter_axis = 0 forward_dtype = f8E5M2 scaling = <dynamic> acc_dtype = f32 : tensor<96xbf16> -> tensor<12xf32>
  // Stochastic rounding on the wire: two spacings, 2 * 2^-4.
  // expected-remark @+1 {{relative error bound 1.250e-01 (|error| <= bound * sum_i |x_i| / divisor): N = 8, input f32, wire f8E4M3FN, accumulation f32, direct, result f32}}
  %3 = prec.reduce_scatter %x on @dp scatter_axis = 0 forward_dtype = f8E4M3FN rounding = <stochastic> seed %seed scaling = <dynamic> acc_dtype = f32 : tensor<96xf32> -> tensor<12xf32>
  return
}
