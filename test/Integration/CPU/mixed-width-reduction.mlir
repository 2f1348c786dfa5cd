// A reduction whose input is narrower than its accumulator (bf16 into f32)
// sums in order on the CPU, as the GPU kernels do: vectorizing its loop by
// the narrow type would reassociate the sum. 2^24 followed by 4095 ones:
// in order, every 1 is lost to rounding (2^24 + 1 is a tie that rounds to
// even); summed in 16 lanes, the ones add up first and 2^24 + 4032 results.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -c "import struct; open('%t/x.bin', 'wb').write(struct.pack('<4096H', 0x4B80, *([0x3F80] * 4095)))"
// RUN: prec-run %s --ranks 1 --arg 0=%t/x.bin --print values | FileCheck %s
// CHECK: tensor<f32> = [16777216]
// CHECK-NOT: 1678
func.func @sum(%x: tensor<4096xbf16>) -> tensor<f32> {
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<f32>
  %filled = linalg.fill ins(%zero : f32) outs(%init : tensor<f32>) -> tensor<f32>
  %sum = linalg.reduce ins(%x : tensor<4096xbf16>) outs(%filled : tensor<f32>) dimensions = [0]
    (%in: bf16, %acc: f32) {
      %wide = arith.extf %in : bf16 to f32
      %next = arith.addf %acc, %wide : f32
      linalg.yield %next : f32
    }
  return %sum : tensor<f32>
}
