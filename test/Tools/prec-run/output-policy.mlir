// The policy's output dtype is part of the entry's signature: results are
// read as the bf16 the function returns after prec-apply-policy.
// RUN: %python -c "import struct, sys; open(sys.argv[1], 'wb').write(struct.pack('<4f', 1, -2, 0.5, 3))" %t.bin
// RUN: prec-run %s --ranks 1 --arg 0=%t.bin --print values | FileCheck %s
// CHECK: rank 0: result 0: tensor<4xbf16> = [1, -2, 0.5, 3]

func.func @scaled(%x: tensor<4xf32>) -> tensor<4xf32>
    attributes {prec.policy = #prec.policy<output = bf16>} {
  return %x : tensor<4xf32>
}
