// RUN: prec-opt %s --prec-report-traffic -o /dev/null 2>&1 | FileCheck %s --implicit-check-not=remark

// A function's totals include its callees', once per call, so that they
// match what the runtime counts in a step; a gather of the source at two
// places of a step (the forward called, and its inlined copy in the
// backward) is named. 7 x 64 x 2 = 896 bytes per gather, 7 x 256 / 8 x 4 =
// 896 per reduce-scatter: 3 x 896 = 2688 in all.

shard.grid @dp(shape = 8)

// CHECK-DAG: model.py:3:7: remark: traffic: all_gather of 64 x bf16 over 8 ranks: each rank sends 896 bytes and receives 896 bytes
// CHECK-DAG: remark: traffic: @forward: 1 transports, each rank sends 896 bytes and receives 896 bytes; 0 kernels read 0 bytes and write 0 bytes per call; by kind: all_gather 1 x, 896 bytes{{$}}
func.func private @forward(%w: tensor<64xbf16>) -> tensor<512xbf16> {
  %0 = prec.transport <all_gather> %w on @dp : tensor<64xbf16> -> tensor<512xbf16> loc("model.py":3:7)
  return %0 : tensor<512xbf16>
}

// CHECK-DAG: model.py:3:7: remark: traffic: all_gather of 64 x bf16 over 8 ranks: each rank sends 896 bytes and receives 896 bytes
// CHECK-DAG: remark: traffic: reduce_scatter of 256 x f32 over 8 ranks: each rank sends 896 bytes and receives 896 bytes
// CHECK-DAG: remark: traffic: @step: 3 transports, each rank sends 2688 bytes and receives 2688 bytes; 0 kernels read 0 bytes and write 0 bytes per call, callees included (@forward); by kind: all_gather 2 x, 1792 bytes, reduce_scatter 1 x, 896 bytes{{$}}
// CHECK-DAG: note: the all_gather of model.py:3:7 runs at 2 places per call: the backward re-runs the forward's gathers rather than keeping the gathered values
func.func @step(%w: tensor<64xbf16>, %g: tensor<256xf32>)
    -> (tensor<512xbf16>, tensor<512xbf16>, tensor<32xf32>) {
  %0 = call @forward(%w) : (tensor<64xbf16>) -> tensor<512xbf16>
  // The backward's copy of the forward's gather.
  %1 = prec.transport <all_gather> %w on @dp : tensor<64xbf16> -> tensor<512xbf16> loc(callsite("model.py":3:7 at "step.py":9:1))
  %2 = prec.transport <reduce_scatter> %g on @dp reduction = <sum> : tensor<256xf32> -> tensor<32xf32>
  return %0, %1, %2 : tensor<512xbf16>, tensor<512xbf16>, tensor<32xf32>
}
