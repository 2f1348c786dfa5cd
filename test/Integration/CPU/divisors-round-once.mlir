// A divisor the narrow type cannot hold (0.1) gives the quotient rounded
// once: every positive normal f16 and bf16 value, divided by 0.1 before the
// wire (pre_divisor) and after the sum (post_divisor), against the exact
// quotient rounded once to nearest even (Inputs/check_divisors_round_once.py,
// tolerance 0: the reference rounds as the contract says). A quotient
// rounded to f64 (or f32) first can land on a midpoint of the narrow type
// that the exact quotient is not on, and then ties to even: one ulp off.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/check_divisors_round_once.py generate %t
// RUN: prec-run %s --arg 0=%t/f16.bin --arg 1=%t/bf16.bin --arg 2=%t/f16.bin --output-dir %t --print none
// RUN: %python %S/Inputs/check_divisors_round_once.py check %t

shard.grid @one(shape = 1)

func.func @divide(%h: tensor<30720xf16>, %b: tensor<32512xbf16>, %w: tensor<30720xf16>)
    -> (tensor<30720xf16>, tensor<30720xf16>, tensor<32512xbf16>,
        tensor<32512xbf16>, tensor<30720xf16>, tensor<30720xf16>) {
  // f16 and bf16 accumulation: the quotient is rounded to the input type
  // (pre) and to acc_dtype (post).
  %0 = prec.all_reduce %h on @one acc_dtype = f16 pre_divisor = 0.1
         : tensor<30720xf16> -> tensor<30720xf16>
  %1 = prec.all_reduce %h on @one acc_dtype = f16 post_divisor = 0.1
         : tensor<30720xf16> -> tensor<30720xf16>
  %2 = prec.all_reduce %b on @one acc_dtype = bf16 pre_divisor = 0.1
         : tensor<32512xbf16> -> tensor<32512xbf16>
  %3 = prec.all_reduce %b on @one acc_dtype = bf16 post_divisor = 0.1
         : tensor<32512xbf16> -> tensor<32512xbf16>
  // f32 accumulation: the quotient is rounded once to the narrower type it
  // is stored in next, the f16 wire (pre) or the f16 result (post).
  %4 = prec.all_reduce %w on @one forward_dtype = f16 acc_dtype = f32
         pre_divisor = 0.1 : tensor<30720xf16> -> tensor<30720xf16>
  %5 = prec.all_reduce %w on @one forward_dtype = f32 acc_dtype = f32
         post_divisor = 0.1 : tensor<30720xf16> -> tensor<30720xf16>
  return %0, %1, %2, %3, %4, %5 : tensor<30720xf16>, tensor<30720xf16>,
      tensor<32512xbf16>, tensor<32512xbf16>, tensor<30720xf16>, tensor<30720xf16>
}
