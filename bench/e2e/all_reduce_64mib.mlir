// The all-reduce of docs/performance.md ("All-reduce of 64 MiB with a bf16
// wire and f32 accumulation on 4 ranks") as a program for prec-run, whose
// --profile splits a step into kernels and collectives.
shard.grid @dp(shape = 4)
func.func @step(%x: tensor<16777216xf32>) -> tensor<16777216xf32> {
  %0 = prec.all_reduce %x on @dp forward_dtype = bf16 acc_dtype = f32
      : tensor<16777216xf32> -> tensor<16777216xf32>
  return %0 : tensor<16777216xf32>
}
