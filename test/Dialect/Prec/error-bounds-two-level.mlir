// RUN: prec-opt %s --prec-error-bounds -verify-diagnostics -o /dev/null
// RUN: prec-opt %s --prec-error-bounds=json=- -o /dev/null 2>/dev/null | FileCheck %s --check-prefix=JSON

// Bounds of two-level collectives (H hosts x M ranks per host), with
// u(f32) = 2^-24, u(bf16) = 2^-8 and gamma(k, u) = k u / (1 - k u):
//   (1 + e_wire)(1 + gamma(M - 1, u_sum))(1 + e_inter)(1 + gamma(H - 1, u_acc))
//     (1 + e_gather)(1 + e_out) - 1
// against the one-level (1 + e_wire)(1 + gamma(N - 1, u_sum))... - 1.

shard.grid @flat(shape = 2x4)
shard.grid @hosts(shape = 2x4) {prec.inter_host_axes = array<i16: 0>}

func.func @two_level(%x: tensor<64xf32>, %w: tensor<8xf32>) {
  // One level: u(bf16) + gamma(7, u(f32)) = 3.90667e-3.
  // expected-remark @+1 {{relative error bound 3.907e-03 (|error| <= bound * sum_i |x_i| / divisor): N = 8, input f32, wire bf16, accumulation f32, direct, result f32; end to end}}
  %0 = prec.reduce_scatter %x on @flat scatter_axis = 0 forward_dtype = bf16
         acc_dtype = f32 : tensor<64xf32> -> tensor<8xf32>
  // Partial sums in f32 across hosts: (1 + u(bf16))(1 + gamma(3, u(f32)))
  // (1 + gamma(1, u(f32))) - 1 = 3.90649e-3, 4 additions in f32 per term
  // instead of 7. A rank sends 3 x 16 bf16 values inside its host and 1 x 8
  // f32 partial sums across, where one level sends 4 x 8 bf16 (64 bytes) of
  // its 7 x 8 to other hosts.
  // expected-remark @+1 {{relative error bound 3.906e-03 (|error| <= bound * sum_i |x_i| / divisor): N = 8, input f32, wire bf16, accumulation f32, direct, result f32; two-level: H = 2 hosts x M = 4 ranks, partial sums across hosts in f32, bytes per rank 96 inside hosts and 32 across; end to end}}
  %1 = prec.reduce_scatter %x on @hosts scatter_axis = 0 forward_dtype = bf16
         acc_dtype = f32 : tensor<64xf32> -> tensor<8xf32>
  // bf16 partial sums across hosts add one rounding to bf16: 7.82800e-3,
  // and halve the bytes across hosts.
  // expected-remark @+1 {{relative error bound 7.828e-03 (|error| <= bound * sum_i |x_i| / divisor): N = 8, input f32, wire bf16, accumulation f32, direct, result f32; two-level: H = 2 hosts x M = 4 ranks, partial sums across hosts in bf16, bytes per rank 96 inside hosts and 16 across; end to end}}
  %2 = prec.reduce_scatter %x on @hosts scatter_axis = 0 forward_dtype = bf16
         acc_dtype = f32 inter_host_dtype = bf16 : tensor<64xf32> -> tensor<8xf32>
  // A group inside one host is one level: u(bf16) + gamma(3, u(f32)).
  // expected-remark @+1 {{relative error bound 3.906e-03 (|error| <= bound * sum_i |x_i| / divisor): N = 4, input f32, wire bf16, accumulation f32, direct, result f32; end to end}}
  %3 = prec.reduce_scatter %x on @hosts grid_axes = [1] scatter_axis = 0
         forward_dtype = bf16 acc_dtype = f32 : tensor<64xf32> -> tensor<16xf32>
  // An all_reduce also rounds its finished slices to bf16, the gathered
  // dtype: 7.82800e-3 and one more u(bf16), 1.17648e-2. Inside the host
  // 3 x 16 bf16 values are scattered and 3 x 16 gathered, across it 1 x 8
  // bf16 partial sums and 1 x 8 bf16 finished values.
  // expected-remark @+1 {{relative error bound 1.176e-02 (|error| <= bound * sum_i |x_i| / divisor): N = 8, input f32, wire bf16, accumulation f32, direct, slices gathered in bf16, result f32; two-level: H = 2 hosts x M = 4 ranks, partial sums across hosts in bf16, bytes per rank 192 inside hosts and 32 across; end to end}}
  %4 = prec.all_reduce %x on @hosts forward_dtype = bf16 acc_dtype = f32
         inter_host_dtype = bf16 : tensor<64xf32> -> tensor<64xf32>
  // f64 sums: the partial sums rounded to f32 across hosts and the slices
  // to f32: 2 u(f32) + gamma(3, 2^-53) + gamma(1, 2^-53) = 1.19209e-7;
  // 4-byte values: 3 x 16 x (4 + 4) inside, 1 x 8 x (4 + 4) across.
  // expected-remark @+1 {{relative error bound 1.192e-07 (|error| <= bound * sum_i |x_i| / divisor): N = 8, input f32, wire f32, accumulation f64, direct, slices gathered in f32, result f64; two-level: H = 2 hosts x M = 4 ranks, partial sums across hosts in f32, bytes per rank 384 inside hosts and 64 across; end to end}}
  %5 = prec.all_reduce %x on @hosts forward_dtype = f32 acc_dtype = f64
         inter_host_dtype = f32 : tensor<64xf32> -> tensor<64xf64>
  // A gather rounds each value once, at either level: u(bf16). Across hosts
  // each rank sends its 8 values once (1 x 8 bf16), inside the host the 2
  // hosts' 16 values to 3 ranks.
  // expected-remark @+1 {{relative error bound 3.906e-03 (|error| <= bound * |x|): N = 8, input f32, wire bf16, result bf16; two-level: H = 2 hosts x M = 4 ranks, bytes per rank 96 inside hosts and 16 across; end to end}}
  %6 = prec.all_gather %w on @hosts gather_axis = 0 forward_dtype = bf16
         : tensor<8xf32> -> tensor<64xbf16>
  // fp8 partial sums with a dynamic scale: the quotient by the scale in f32,
  // u(f8E4M3FN) = 2^-4 and the product with it in f32, (1 + 2^-24)^2
  // (1 + 2^-4) - 1, in place of e_inter: 6.66508e-2. A quarter of f32's
  // bytes across hosts (scales aside).
  // expected-remark @+1 {{relative error bound 6.665e-02 (|error| <= bound * sum_i |x_i| / divisor): N = 8, input f32, wire bf16, accumulation f32, direct, result f32; two-level: H = 2 hosts x M = 4 ranks, partial sums across hosts in f8E4M3FN with <dynamic> scales, bytes per rank 96 inside hosts and 8 across; end to end}}
  %7 = prec.reduce_scatter %x on @hosts scatter_axis = 0 forward_dtype = bf16
         acc_dtype = f32 inter_host_dtype = f8E4M3FN inter_host_scaling = <dynamic>
         : tensor<64xf32> -> tensor<8xf32>
  // Power-of-two block scales are exact but saturate a block's largest
  // values by up to 1/8, more than u(f8E5M2) = 2^-3 rounds; the slices are
  // gathered in bf16 after every host's terms are summed on each rank:
  // 1.33806e-1. Inside a host 3 x 16 bf16 values are scattered and 3 x 16
  // gathered; across hosts each rank's whole 16-element slice (two blocks)
  // goes to the other host, 1 byte per value.
  // expected-remark @+1 {{relative error bound 1.338e-01 (|error| <= bound * sum_i |x_i| / divisor): N = 8, input f32, wire bf16, accumulation f32, direct, slices gathered in bf16, result f32; two-level: H = 2 hosts x M = 4 ranks, partial sums across hosts in f8E5M2 with <block, block_size = 8> scales, bytes per rank 192 inside hosts and 16 across; end to end}}
  %8 = prec.all_reduce %x on @hosts forward_dtype = bf16 acc_dtype = f32
         inter_host_dtype = f8E5M2 inter_host_scaling = <block, block_size = 8>
         : tensor<64xf32> -> tensor<64xf32>
  return
}

// JSON: "op": "prec.reduce_scatter"
// JSON-NOT: "hosts"
// JSON: "op": "prec.reduce_scatter"
// JSON: "hosts": 2,
// JSON-NEXT: "ranks_per_host": 4,
// JSON-NEXT: "inter_host_dtype": "f32",
// JSON-NEXT: "bytes_inside_hosts": 96,
// JSON-NEXT: "bytes_across_hosts": 32,
// JSON-NEXT: "bytes_per_rank": 128,
// JSON: "op": "prec.reduce_scatter"
// JSON: "inter_host_dtype": "bf16",
// JSON: "inter_host_dtype": "f8E4M3FN",
// JSON-NEXT: "inter_host_scaling": "<dynamic>",
// JSON-NEXT: "bytes_inside_hosts": 96,
// JSON-NEXT: "bytes_across_hosts": 8,
