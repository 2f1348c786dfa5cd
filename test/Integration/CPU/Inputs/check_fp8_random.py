"""Inputs and checks of the fp8-random-conversions tests.

  generate DIR            writes x.bin, the argument of Inputs/fp8_random.mlir
  check DIR LIBPRECRT     compares prec-run's results (rank0_result0.bin,
                          rank0_result1.bin) byte for byte with the runtime's
                          reference conversion (precrtConvert)

Half of the sample is uniform over all 2^32 bit patterns (every sign and
exponent, infinities, NaNs with payloads, f32 subnormals); the other half has
random significands and signs with exponents where both fp8 formats round
(2^-30 to 2^20), so most elements are inexact conversions with rounding to
decide.
"""

import ctypes
import os
import random
import struct
import sys

COUNT = 1048573


def generate(directory):
    rng = random.Random(18)
    words = []
    for i in range(COUNT):
        if i % 2 == 0:
            words.append(rng.getrandbits(32))
        else:
            exponent = rng.randint(-30, 20) + 127
            words.append((rng.getrandbits(1) << 31) | (exponent << 23)
                         | rng.getrandbits(23))
    with open(os.path.join(directory, "x.bin"), "wb") as out:
        out.write(struct.pack(f"<{COUNT}I", *words))


def check(directory, library):
    with open(os.path.join(directory, "x.bin"), "rb") as f:
        raw = f.read()
    precrt = ctypes.CDLL(library)
    src = ctypes.create_string_buffer(raw, len(raw))
    failures = 0
    for index, (name, dtype) in enumerate([("f8E4M3FN", 4), ("f8E5M2", 5)]):
        dst = (ctypes.c_uint8 * COUNT)()
        assert precrt.precrtConvert(src, 1, dst, dtype,
                                    ctypes.c_size_t(COUNT)) == 0
        want = bytes(dst)
        with open(os.path.join(directory, f"rank0_result{index}.bin"),
                  "rb") as f:
            got = f.read()
        if len(got) != COUNT:
            print(f"result {index}: {len(got)} bytes, expected {COUNT}")
            failures += 1
            continue
        if got == want:
            continue
        wrong = [i for i in range(COUNT) if got[i] != want[i]]
        failures += len(wrong)
        for i in wrong[:10]:
            (bits,) = struct.unpack_from("<I", raw, 4 * i)
            print(f"result {index}: f32 0x{bits:08x} to {name}: got "
                  f"0x{got[i]:02x}, expected 0x{want[i]:02x}")
    if failures:
        print(f"{failures} mismatches")
        return 1
    print(f"fp8 random conversions: all {COUNT} match in both formats")
    return 0


if __name__ == "__main__":
    if sys.argv[1] == "generate":
        generate(sys.argv[2])
    else:
        sys.exit(check(sys.argv[2], sys.argv[3]))
