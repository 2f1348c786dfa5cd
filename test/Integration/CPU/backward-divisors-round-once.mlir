// The gradients of divided collectives round the exact quotient once: on 3
// ranks, the gradient of a reduce_scatter with pre_divisor = 0.1 is the
// result's gradient divided by 0.1, and of an average the result's gradient
// divided by 3, each then gathered (exactly, in the gradient's dtype). Every
// positive normal f16 and bf16 value is a result gradient on every rank;
// Inputs/check_divisors_round_once.py compares each gathered element with
// the exact quotient rounded once to nearest even (tolerance 0: the
// reference rounds as the contract says). An f64 quotient rounded again
// (x / 0.1 is 10 x in f64 for most x, a midpoint of f16 for 9% of them)
// ties to even there, one ulp off half of the time.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/check_divisors_round_once.py generate %t
// RUN: prec-run %s --arg 4=%t/f16.bin --arg 5=%t/f16.bin --arg 6=%t/bf16.bin --arg 7=%t/bf16.bin --output-dir %t --print none
// RUN: %python %S/Inputs/check_divisors_round_once.py check-backward %t 3

shard.grid @three(shape = 3)

func.func private @divided(%h0: tensor<92160xf16>, %h1: tensor<92160xf16>,
                           %b0: tensor<97536xbf16>, %b1: tensor<97536xbf16>)
    -> (tensor<30720xf16>, tensor<30720xf16>, tensor<32512xbf16>,
        tensor<32512xbf16>) attributes {prec.differentiable} {
  %0 = prec.reduce_scatter %h0 on @three scatter_axis = 0 reduction = <sum>
         pre_divisor = 0.1 : tensor<92160xf16> -> tensor<30720xf16>
  %1 = prec.reduce_scatter %h1 on @three scatter_axis = 0 reduction = <avg>
         : tensor<92160xf16> -> tensor<30720xf16>
  %2 = prec.reduce_scatter %b0 on @three scatter_axis = 0 reduction = <sum>
         pre_divisor = 0.1 : tensor<97536xbf16> -> tensor<32512xbf16>
  %3 = prec.reduce_scatter %b1 on @three scatter_axis = 0 reduction = <avg>
         : tensor<97536xbf16> -> tensor<32512xbf16>
  return %0, %1, %2, %3 : tensor<30720xf16>, tensor<30720xf16>,
      tensor<32512xbf16>, tensor<32512xbf16>
}

func.func private @divided_backward(tensor<92160xf16>, tensor<92160xf16>,
    tensor<97536xbf16>, tensor<97536xbf16>, tensor<30720xf16>,
    tensor<30720xf16>, tensor<32512xbf16>, tensor<32512xbf16>)
    -> (tensor<92160xf16>, tensor<92160xf16>, tensor<97536xbf16>,
        tensor<97536xbf16>)

func.func @gradients(%h0: tensor<92160xf16>, %h1: tensor<92160xf16>,
                     %b0: tensor<97536xbf16>, %b1: tensor<97536xbf16>,
                     %g0: tensor<30720xf16>, %g1: tensor<30720xf16>,
                     %g2: tensor<32512xbf16>, %g3: tensor<32512xbf16>)
    -> (tensor<92160xf16>, tensor<92160xf16>, tensor<97536xbf16>,
        tensor<97536xbf16>) {
  %d:4 = call @divided_backward(%h0, %h1, %b0, %b1, %g0, %g1, %g2, %g3)
      : (tensor<92160xf16>, tensor<92160xf16>, tensor<97536xbf16>,
         tensor<97536xbf16>, tensor<30720xf16>, tensor<30720xf16>,
         tensor<32512xbf16>, tensor<32512xbf16>)
      -> (tensor<92160xf16>, tensor<92160xf16>, tensor<97536xbf16>,
          tensor<97536xbf16>)
  return %d#0, %d#1, %d#2, %d#3 : tensor<92160xf16>, tensor<92160xf16>,
      tensor<97536xbf16>, tensor<97536xbf16>
}
