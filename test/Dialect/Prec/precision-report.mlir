// End-to-end bounds and what each collective moves (prec-error-bounds), and
// the report as a table, as JSON and as remarks.
// RUN: prec-opt %s --prec-error-bounds -verify-diagnostics -o /dev/null
// RUN: prec-opt %s --prec-error-bounds=report=table -o /dev/null 2>/dev/null | FileCheck %s --check-prefix=TABLE
// RUN: prec-opt %s --prec-error-bounds=report=json -o /dev/null 2>/dev/null | FileCheck %s --check-prefix=JSON
// RUN: prec-opt %s --prec-error-bounds -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: not prec-opt %s --prec-error-bounds=max-rel-error=5e-3 -o /dev/null 2>&1 | FileCheck %s --check-prefix=LIMIT
// RUN: not prec-opt %s --prec-error-bounds=report=csv -o /dev/null 2>&1 | FileCheck %s --check-prefix=BAD

// u(bf16) = 2^-8 = 3.906e-3, u(f32) = 2^-24, u(f8E4M3FN) = 2^-4. The end-to-end
// bound is (1 + e_in)(1 + own) - 1, e_in the roundings of the input since
// the op that computed it.

shard.grid @dp(shape = 4)

// Called twice: its argument's roundings are the worse of the two callers'.
func.func private @gather(%w: tensor<8xf32>) -> tensor<32xf32> {
  // From @step's arg0 unchanged, and from a bf16 cast of arg1: u(bf16).
  // expected-remark @+1 {{prec.all_gather in @gather: relative error bound 0.000e+00 (|error| <= bound * |x|): N = 4, input f32, wire f32, result f32; end to end 3.906e-03 (input rounded by 3.906e-03); moves arg0, arg1, result0, result1}}
  %g = prec.all_gather %w on @dp gather_axis = 0 : tensor<8xf32> -> tensor<32xf32>
  return %g : tensor<32xf32>
}

func.func @step(%a: tensor<8xf32>, %b: tensor<8xf32>, %c: tensor<32xf32> {prec.name = "c"}, %seed: i64)
    -> (tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<8xf32>, tensor<128xf32>) {
  %ga = call @gather(%a) : (tensor<8xf32>) -> tensor<32xf32>
  %bn = prec.cast %b : tensor<8xf32> to tensor<8xbf16>
  %bw = prec.cast %bn : tensor<8xbf16> to tensor<8xf32>
  %gb = call @gather(%bw) : (tensor<8xf32>) -> tensor<32xf32>
  // A move of a move: the bf16 wire's rounding on top of the gather's.
  // expected-remark @+1 {{prec.all_to_all in @step: relative error bound 3.906e-03 (|error| <= bound * |x|): N = 4, input f32, wire bf16, result f32; end to end 7.828e-03 (input rounded by 3.906e-03); moves arg0, arg1, result2}}
  %t = prec.all_to_all %gb on @dp split_axis = 0 concat_axis = 0 forward_dtype = bf16 : tensor<32xf32> -> tensor<32xf32>
  // A computed value: its own rounding to f32; a stochastic cast to bf16
  // may land one ulp away, 2 u(bf16).
  %sq = arith.mulf %c, %c : tensor<32xf32>
  %sr = prec.cast %sq rounding = <stochastic> seed %seed : tensor<32xf32> to tensor<32xbf16>
  // expected-remark @+1 {{prec.reduce_scatter in @step: relative error bound 1.788e-07 (|error| <= bound * sum_i |x_i| / divisor): N = 4, input bf16, wire f32, accumulation f32, ring, result f32; end to end 7.813e-03 (input rounded by 7.813e-03); moves result3}}
  %rs = prec.reduce_scatter %sr on @dp scatter_axis = 0 forward_dtype = f32 acc_dtype = f32 : tensor<32xbf16> -> tensor<8xf32>
  // prec.name names an argument. A sum's error is relative to
  // sum_i |x_i|: so is the end-to-end bound of
  // a move of it (the sum's, then the exact gather).
  // expected-remark @+1 {{prec.all_reduce in @step: relative error bound 1.788e-07 (|error| <= bound * sum_i |x_i| / divisor): N = 4, input f32, wire f32, accumulation f32, ring, result f32; end to end 1.788e-07; moves c}}
  %total = prec.all_reduce %c on @dp : tensor<32xf32> -> tensor<32xf32>
  // expected-remark @+1 {{prec.all_gather in @step: relative error bound 0.000e+00 (|error| <= bound * |x|): N = 4, input f32, wire f32, result f32; end to end 1.788e-07 (input rounded by 1.788e-07); moves c, result4}}
  %all = prec.all_gather %total on @dp gather_axis = 0 : tensor<32xf32> -> tensor<128xf32>
  return %ga, %gb, %t, %rs, %all : tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<8xf32>, tensor<128xf32>
}

// A loop's value is not traced: no end-to-end bound.
func.func private @loop(%x: tensor<8xf32>, %n: index) -> tensor<8xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %x) -> (tensor<8xf32>) {
    // expected-remark @+1 {{prec.all_to_all in @loop: relative error bound 0.000e+00 (|error| <= bound * |x|): N = 4, input f32, wire f32, result f32; end to end none}}
    %t = prec.all_to_all %acc on @dp split_axis = 0 concat_axis = 0 : tensor<8xf32> -> tensor<8xf32>
    scf.yield %t : tensor<8xf32>
  }
  return %r : tensor<8xf32>
}

// fp8 quantization counts the quotient in f32 and one rounding to
// f8E4M3FN, (1 + 2^-24)(1 + 2^-4) - 1, or with MX power-of-two block scales
// the saturation of a block's largest elements, 1/8. An optimizer's gradient
// operand names the parameter.
func.func private @fp8(%w: tensor<128xf32>, %s: tensor<f32>, %bs: tensor<4xf8E8M0FNU>,
                       %p: tensor<32xf32>, %lr: f32)
    -> (tensor<512xf8E4M3FN>, tensor<512xf8E4M3FN>, tensor<32xf32>) {
  %q = prec.quantize %w scale %s scaling = <dynamic>
         : tensor<128xf32>, tensor<f32> -> tensor<128xf8E4M3FN>
  // expected-remark @+1 {{prec.all_gather in @fp8: relative error bound 0.000e+00 (|error| <= bound * |x|): N = 4, input f8E4M3FN, wire f8E4M3FN, result f8E4M3FN; end to end 6.250e-02 (input rounded by 6.250e-02); moves @fp8:arg0}}
  %gq = prec.all_gather %q on @dp gather_axis = 0 : tensor<128xf8E4M3FN> -> tensor<512xf8E4M3FN>
  %m = prec.quantize %w scale %bs scaling = <block, block_size = 32, scale_dtype = f8E8M0FNU>
         : tensor<128xf32>, tensor<4xf8E8M0FNU> -> tensor<128xf8E4M3FN>
  // expected-remark @+1 {{prec.all_gather in @fp8: relative error bound 0.000e+00 (|error| <= bound * |x|): N = 4, input f8E4M3FN, wire f8E4M3FN, result f8E4M3FN; end to end 1.250e-01 (input rounded by 1.250e-01); moves @fp8:arg0}}
  %gm = prec.all_gather %m on @dp gather_axis = 0 : tensor<128xf8E4M3FN> -> tensor<512xf8E4M3FN>
  // expected-remark @+1 {{prec.reduce_scatter in @fp8: relative error bound 1.788e-07 (|error| <= bound * sum_i |x_i| / divisor): N = 4, input f32, wire f32, accumulation f32, ring, result f32; end to end 1.788e-07; moves @fp8:arg0, grad(@fp8:arg3)}}
  %rs = prec.reduce_scatter %w on @dp scatter_axis = 0 : tensor<128xf32> -> tensor<32xf32>
  %np = prec.sgd %p, %rs, %lr : tensor<32xf32>, tensor<32xf32>
  return %gq, %gm, %np : tensor<512xf8E4M3FN>, tensor<512xf8E4M3FN>, tensor<32xf32>
}

// TABLE: @gather:
// TABLE-NEXT: op location moves group N input wire acc result scaling rounding algorithm bytes/rank own input err end to end
// TABLE-NEXT: all_gather precision-report.mlir:20:8 arg0,arg1,result0,result1 @dp 4 f32 f32 - f32 none nearest_even - 96 0.000e+00 3.906e-03 3.906e-03
// TABLE: @step:
// TABLE-NEXT: op
// TABLE-NEXT: all_to_all precision-report.mlir:32:8 arg0,arg1,result2 @dp 4 f32 bf16 - f32 none nearest_even - 48 3.906e-03 3.906e-03 7.828e-03
// TABLE-NEXT: reduce_scatter precision-report.mlir:38:9 result3 @dp 4 bf16 f32 f32 f32 none nearest_even ring 96 1.788e-07 7.813e-03 7.813e-03
// TABLE-NEXT: all_reduce
// TABLE-NEXT: all_gather precision-report.mlir:45:10 c,result4 @dp 4 f32 f32 - f32 none nearest_even - 384 0.000e+00 1.788e-07 1.788e-07

// JSON:      "op": "prec.reduce_scatter",
// JSON:      "input_error": 0.0078125{{[0-9]*}},
// JSON-NEXT: "end_to_end_bound": 0.00781{{[0-9]*}},
// JSON-NEXT: "function": "@step",
// JSON-NEXT: "group": "@dp",
// JSON-NEXT: "scaling": "none",
// JSON-NEXT: "rounding": "nearest_even",
// JSON-NEXT: "bytes_per_rank": 96,
// JSON-NEXT: "moves": [
// JSON-NEXT:   "result3"
// JSON-NEXT: ]
// JSON:      "op": "prec.all_gather",
// JSON:      "input_error": 1.78{{[0-9]*}}e-07,
// JSON-NEXT: "end_to_end_bound": 1.78{{[0-9]*}}e-07,

// Remarks name the op and its function, without the op's text.
// REMARK: precision-report.mlir:38:9: remark: prec.reduce_scatter in @step:
// REMARK-NOT: see current operation

// The end-to-end bound, not only the own one, is held to max-rel-error.
// LIMIT: precision-report.mlir:32:8: error: prec.all_to_all in @step: end-to-end error bound 7.828e-03 exceeds max-rel-error=5.000e-03

// BAD: error: prec-error-bounds: expected report=remarks, table or json, got 'csv'
