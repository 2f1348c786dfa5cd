// The pass plugin registers passes after options are parsed, so passes are
// named in --pass-pipeline.
// Debian's mlir-opt loads prec as a dialect plugin and as a pass plugin.
// RUN: %sanitizer_preload mlir-opt %s --load-dialect-plugin=%prec_lib/PrecPlugin.so | FileCheck %s --check-prefix=ROUNDTRIP
// RUN: %sanitizer_preload mlir-opt %s --load-dialect-plugin=%prec_lib/PrecPlugin.so --load-pass-plugin=%prec_lib/PrecPlugin.so --pass-pipeline="builtin.module(func.func(prec-infer-precision))" | FileCheck %s --check-prefix=PASS
// Without the plugin the dialect is unknown.
// RUN: not mlir-opt %s 2>&1 | FileCheck %s --check-prefix=NOPLUGIN

shard.grid @dp(shape = 4)

// ROUNDTRIP-LABEL: func @step
// ROUNDTRIP: prec.all_gather %{{.*}} on @dp gather_axis = 0 forward_dtype = bf16 : tensor<8xf32> -> tensor<32xbf16>
// PASS-LABEL: func @step
// PASS: prec.all_gather %{{.*}} on @dp gather_axis = 0 forward_dtype = bf16 backward_dtype = bf16 : tensor<8xf32> -> tensor<32xbf16>
// NOPLUGIN: Dialect `prec' not found for custom op 'prec.all_gather'
func.func @step(%x: tensor<8xf32>) -> tensor<32xbf16> {
  %0 = prec.all_gather %x on @dp gather_axis = 0 forward_dtype = bf16 : tensor<8xf32> -> tensor<32xbf16>
  return %0 : tensor<32xbf16>
}
