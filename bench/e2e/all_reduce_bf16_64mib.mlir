// A bf16 all-reduce into bf16 (64 MiB, f32 accumulation), which
// prec-block-all-reduce leaves whole: the figures of docs/Prec.md ("Cache-
// sized blocks of a large all-reduce") compare it cut into blocks by a build
// that still did so with the whole one.
shard.grid @dp(shape = 4)
func.func @step(%x: tensor<33554432xbf16>) -> tensor<33554432xbf16> {
  %0 = prec.all_reduce %x on @dp reduction = <avg> acc_dtype = f32
      : tensor<33554432xbf16> -> tensor<33554432xbf16>
  return %0 : tensor<33554432xbf16>
}
