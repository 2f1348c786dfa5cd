// RUN: prec-opt %s --prec-report-traffic --split-input-file -verify-diagnostics | FileCheck %s

// Transports: (N - 1) x n for a gather, (N - 1) x n / N for an all-to-all
// and a ring reduce-scatter, 2 (N - 1) x n / N for a ring all-reduce, times
// the wire dtype's bytes. Kernels: the tensors they read and write; an
// output counts as read only where the body uses its value.

shard.grid @dp(shape = 2x4)

#id = affine_map<(d0) -> (d0)>
#sum = affine_map<(d0) -> ()>

// expected-remark @below {{traffic: @step: 5 transports, each rank sends 3024 bytes and receives 3024 bytes; 2 kernels read 2052 bytes and write 1028 bytes per call}}
func.func @step(%a: tensor<64xbf16>, %b: tensor<256xf32>, %c: tensor<128xf8E4M3FN>)
    -> (tensor<512xbf16>, tensor<64xbf16>, tensor<32xf32>, tensor<256xf32>,
        tensor<256xf32>, tensor<f32>, tensor<128xf8E4M3FN>) {
  // 7 x 64 x 2
  // expected-remark @below {{traffic: all_gather of 64 x bf16 over 8 ranks: each rank sends 896 bytes and receives 896 bytes}}
  %0 = prec.transport <all_gather> %a on @dp : tensor<64xbf16> -> tensor<512xbf16>
  // Over axis 1 only: 3 x 64 / 4 x 2
  // expected-remark @below {{traffic: all_to_all of 64 x bf16 over 4 ranks: each rank sends 96 bytes and receives 96 bytes}}
  %1 = prec.transport <all_to_all> %a on @dp grid_axes = [1] : tensor<64xbf16> -> tensor<64xbf16>
  // 7 x 256 / 8 x 4
  // expected-remark @below {{traffic: reduce_scatter of 256 x f32 over 8 ranks: each rank sends 896 bytes and receives 896 bytes}}
  %2 = prec.transport <reduce_scatter> %b on @dp reduction = <sum> : tensor<256xf32> -> tensor<32xf32>
  // Over axis 0: 2 x 1 x 256 / 2 x 4
  // expected-remark @below {{traffic: all_reduce of 256 x f32 over 2 ranks: each rank sends 1024 bytes and receives 1024 bytes}}
  %3 = prec.transport <all_reduce> %b on @dp grid_axes = [0] reduction = <sum> : tensor<256xf32> -> tensor<256xf32>
  // fp8 chunks of 128 / 8 = 16 bytes: 7 x 16.
  // expected-remark @below {{traffic: all_to_all of 128 x f8E4M3FN over 8 ranks: each rank sends 112 bytes and receives 112 bytes}}
  %4 = prec.transport <all_to_all> %c on @dp : tensor<128xf8E4M3FN> -> tensor<128xf8E4M3FN>
  // Reads %b (1024 bytes); writes 256 f32 without reading them.
  %empty = tensor.empty() : tensor<256xf32>
  // expected-remark @below {{traffic: kernel reads 1024 bytes and writes 1024 bytes}}
  %5 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%b : tensor<256xf32>) outs(%empty : tensor<256xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.mulf %in, %in : f32
    linalg.yield %m : f32
  } -> tensor<256xf32>
  // A sum reads its accumulator: 1024 + 4 bytes read, 4 written.
  %zero = arith.constant dense<0.0> : tensor<f32>
  // expected-remark @below {{traffic: kernel reads 1028 bytes and writes 4 bytes}}
  %6 = linalg.generic {indexing_maps = [#id, #sum], iterator_types = ["reduction"]}
      ins(%b : tensor<256xf32>) outs(%zero : tensor<f32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %in, %acc : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  return %0, %1, %2, %3, %5, %6, %4
    : tensor<512xbf16>, tensor<64xbf16>, tensor<32xf32>, tensor<256xf32>,
      tensor<256xf32>, tensor<f32>, tensor<128xf8E4M3FN>
}

// The module is unchanged.
// CHECK-LABEL: func.func @step
// CHECK-COUNT-5: prec.transport
// CHECK-COUNT-2: linalg.generic

// -----

shard.grid @three(shape = 3)

// An all-reduce of a count the group does not divide: chunks of 4 and 3
// elements, so the figure is the bound 2 x 2 x ceil(10 / 3) x 4.
// expected-remark @below {{traffic: @uneven: 1 transports, each rank sends 64 bytes and receives 64 bytes; 0 kernels read 0 bytes and write 0 bytes per call}}
func.func @uneven(%x: tensor<10xf32>) -> tensor<10xf32> {
  // expected-remark @below {{traffic: all_reduce of 10 x f32 over 3 ranks: each rank sends at most 64 bytes and receives at most 64 bytes}}
  %0 = prec.transport <all_reduce> %x on @three reduction = <sum> : tensor<10xf32> -> tensor<10xf32>
  return %0 : tensor<10xf32>
}

// -----

// A kernel on dynamic shapes has no static figure, and the function says
// that it left it out.
#id = affine_map<(d0) -> (d0)>
// expected-remark @below {{traffic: @dynamic: 0 transports, each rank sends 0 bytes and receives 0 bytes; 0 kernels read 0 bytes and write 0 bytes (ops of unknown size left out) per call}}
func.func @dynamic(%x: tensor<?xf32>, %y: tensor<?xf32>) -> tensor<?xf32> {
  // expected-remark @below {{traffic: kernel with dynamic shapes: bytes not known statically}}
  %0 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<?xf32>) outs(%y : tensor<?xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

shard.grid @four(shape = 4)

// Ops in loops are stated per iteration and counted once per iteration in
// the totals: 3 x 2 runs of the gather (3 x 16 x 4 bytes each), 3 of the
// all-to-all; a loop of unknown trip count counts its op once and the
// total says so.
// expected-remark @below {{traffic: @loops: 10 transports, each rank sends 1344 bytes and receives 1344 bytes; 0 kernels read 0 bytes and write 0 bytes (ops in loops of unknown trip count counted once)}}
func.func @loops(%x: tensor<16xf32>, %n: index) -> tensor<16xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %r = scf.for %i = %c0 to %c3 step %c1 iter_args(%a = %x) -> tensor<16xf32> {
    %inner = scf.for %j = %c0 to %c2 step %c1 iter_args(%b = %a) -> tensor<16xf32> {
      // expected-remark @below {{traffic: all_gather of 16 x f32 over 4 ranks: each rank sends 192 bytes and receives 192 bytes per iteration, 6 iterations per call}}
      %g = prec.transport <all_gather> %b on @four : tensor<16xf32> -> tensor<64xf32>
      %s = tensor.extract_slice %g[0] [16] [1] : tensor<64xf32> to tensor<16xf32>
      scf.yield %s : tensor<16xf32>
    }
    // expected-remark @below {{traffic: all_to_all of 16 x f32 over 4 ranks: each rank sends 48 bytes and receives 48 bytes per iteration, 3 iterations per call}}
    %t = prec.transport <all_to_all> %inner on @four : tensor<16xf32> -> tensor<16xf32>
    scf.yield %t : tensor<16xf32>
  }
  %u = scf.for %k = %c0 to %n step %c1 iter_args(%a = %r) -> tensor<16xf32> {
    // expected-remark @below {{traffic: all_to_all of 16 x f32 over 4 ranks: each rank sends 48 bytes and receives 48 bytes per iteration of a loop of unknown trip count}}
    %t = prec.transport <all_to_all> %a on @four : tensor<16xf32> -> tensor<16xf32>
    scf.yield %t : tensor<16xf32>
  }
  return %u : tensor<16xf32>
}


// -----

// On a grid whose axis 0 crosses hosts, each transport says which links it
// uses: a group over axis 0 alone has every peer on another host, one over
// axis 1 none; a group over both levels (a one-level collective) uses both,
// and then the total cannot split the bytes by link class.
shard.grid @hosts(shape = 2x4) {prec.inter_host_axes = array<i16: 0>}

// expected-remark @below {{traffic: @two_levels: 2 transports, each rank sends 480 bytes (384 across hosts) and receives 480 bytes; 0 kernels read 0 bytes and write 0 bytes per call}}
func.func @two_levels(%x: tensor<64xbf16>, %p: tensor<96xf32>) -> (tensor<64xbf16>, tensor<96xf32>) {
  // 3 x 64 / 4 x 2
  // expected-remark @below {{traffic: all_to_all of 64 x bf16 over 4 ranks: each rank sends 96 bytes and receives 96 bytes, inside its host}}
  %0 = prec.transport <all_to_all> %x on @hosts grid_axes = [1] : tensor<64xbf16> -> tensor<64xbf16>
  // 2 x 1 x 96 / 2 x 4
  // expected-remark @below {{traffic: all_reduce of 96 x f32 over 2 ranks: each rank sends 384 bytes and receives 384 bytes, across hosts}}
  %1 = prec.transport <all_reduce> %p on @hosts grid_axes = [0] reduction = <sum> : tensor<96xf32> -> tensor<96xf32>
  return %0, %1 : tensor<64xbf16>, tensor<96xf32>
}

// -----

shard.grid @hosts(shape = 2x4) {prec.inter_host_axes = array<i16: 0>}

// expected-remark @below {{traffic: @one_level: 1 transports, each rank sends 112 bytes and receives 112 bytes; 0 kernels read 0 bytes and write 0 bytes per call}}
func.func @one_level(%x: tensor<64xbf16>) -> tensor<64xbf16> {
  // expected-remark @below {{traffic: all_to_all of 64 x bf16 over 8 ranks: each rank sends 112 bytes and receives 112 bytes, to ranks inside its host and on others}}
  %0 = prec.transport <all_to_all> %x on @hosts : tensor<64xbf16> -> tensor<64xbf16>
  return %0 : tensor<64xbf16>
}
