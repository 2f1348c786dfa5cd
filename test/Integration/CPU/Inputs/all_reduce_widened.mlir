// All-reduces whose result is wider than their wire, which
// prec-block-all-reduce cuts into blocks: averages and explicit divisors,
// a bf16 input into an f32 result, a 2-D shape, and a bf16 all-reduce into
// bf16, which it leaves whole. all-reduce-blocked.test runs it blocked and
// whole and compares the bits.
shard.grid @dp(shape = 4)

func.func @widened(%a: tensor<1031xf32>, %b: tensor<50x31xbf16>)
    -> (tensor<1031xf32>, tensor<1031xf32>, tensor<50x31xf32>, tensor<50x31xbf16>) {
  %avg = prec.all_reduce %a on @dp reduction = <avg> forward_dtype = bf16
           acc_dtype = f32 : tensor<1031xf32> -> tensor<1031xf32>
  %div = prec.all_reduce %a on @dp forward_dtype = bf16 acc_dtype = f32
           pre_divisor = 2.0 post_divisor = 3.0
           : tensor<1031xf32> -> tensor<1031xf32>
  %wide = prec.all_reduce %b on @dp reduction = <avg> acc_dtype = f32
            : tensor<50x31xbf16> -> tensor<50x31xf32>
  %same = prec.all_reduce %b on @dp reduction = <avg> acc_dtype = f32
            : tensor<50x31xbf16> -> tensor<50x31xbf16>
  return %avg, %div, %wide, %same
    : tensor<1031xf32>, tensor<1031xf32>, tensor<50x31xf32>, tensor<50x31xbf16>
}
