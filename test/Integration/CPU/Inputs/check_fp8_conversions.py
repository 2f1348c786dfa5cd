"""Inputs and checks of fp8-conversions.test.

  generate DIR            writes the arguments of Inputs/fp8_conversions.mlir
  check DIR LIBPRECRT     compares prec-run's results (rank0_result*.bin)
                          with fp8_reference.py and, for f32 inputs, with the
                          runtime's reference conversions (precrtConvert,
                          and precrtConvertF32Stochastic with seed 77)

The inputs cover every fp8 bit pattern's value and the midpoints between
neighbours (ties), values just beside them (f64 only: a conversion through
f32 rounded to nearest would round twice), subnormals of both formats and of
f32, the saturation thresholds, infinities, NaNs with payloads and signs, and
random values across the exponent range of both formats.
"""

import ctypes
import math
import os
import random
import struct
import sys

sys.path.insert(0, os.path.dirname(__file__))
import fp8_reference as ref  # noqa: E402

COUNT = 8192


def inputs():
    values = [0.0, -0.0, math.inf, -math.inf, math.nan, -math.nan]
    for name in ref.FORMATS:
        table = [v for v, _ in ref._TABLES[name]]
        values += table + [-v for v in table]
        for lo, hi in zip(table, table[1:]):
            mid = (lo + hi) / 2
            values += [mid, -mid, mid + mid * 2.0**-40, mid - mid * 2.0**-40]
        top = table[-1]
        values += [top * 1.03125, top * 1.0625, top * 2, 3.4e38, -3.4e38]
    values += [1e-45, -1e-45, 1.17e-38, 2.0**-149 * 3]
    # bf16 and f16: ties and their neighbours in the normal and subnormal
    # ranges, and around the largest finite values and overflow.
    def f32(bits):
        return struct.unpack("<f", struct.pack("<I", bits))[0]
    for bits in [0x3F808000, 0x3F818000, 0x00008000, 0x00018000, 0x7F7F8000,
                 0x7F7F7FFF, 0x7F7FFFFF, 0x7F7F0000, 0x80008000, 0xFF7F8000]:
        values += [f32(bits), f32(bits + 1), f32(bits - 1)]
    values += [1 + 2.0**-11, 1 + 3 * 2.0**-11, 2.0**-25, 3 * 2.0**-25,
               65504.0, 65519.0, 65520.0, 65536.0, -65520.0, 2.0**-24]
    rng = random.Random(20261125)
    while len(values) < COUNT - 4:
        values.append(rng.uniform(-1, 1) * 2.0 ** rng.randint(-30, 20))
    return values[:COUNT - 4]


def nan_bits():
    # NaNs with payloads and signs, as raw f32 / f64 bits.
    return ([0x7FC00001, 0xFFC00000, 0x7F800001, 0xFFFFFFFF],
            [0x7FF8000000000001, 0xFFF8000000000000, 0x7FF0000000000001,
             0xFFFFFFFFFFFFFFFF])


def generate(directory):
    values = inputs()
    f32_nans, f64_nans = nan_bits()
    with open(os.path.join(directory, "x.bin"), "wb") as out:
        out.write(struct.pack(f"<{len(values)}f", *values))
        out.write(struct.pack("<4I", *f32_nans))
    with open(os.path.join(directory, "d.bin"), "wb") as out:
        out.write(struct.pack(f"<{len(values)}d", *values))
        out.write(struct.pack("<4Q", *f64_nans))
    with open(os.path.join(directory, "bytes.bin"), "wb") as out:
        out.write(bytes(range(256)))


def read(directory, index, fmt, count):
    with open(os.path.join(directory, f"rank0_result{index}.bin"), "rb") as f:
        return struct.unpack(f"<{count}{fmt}", f.read())


def read_bytes(directory, name):
    with open(os.path.join(directory, name), "rb") as f:
        return f.read()


def same(a, b):
    return (math.isnan(a) and math.isnan(b)) or (
        a == b and math.copysign(1, a) == math.copysign(1, b))


def check(directory, library):
    failures = []
    with open(os.path.join(directory, "x.bin"), "rb") as f:
        x = struct.unpack(f"<{COUNT}f", f.read())
    with open(os.path.join(directory, "d.bin"), "rb") as f:
        d = struct.unpack(f"<{COUNT}d", f.read())

    precrt = ctypes.CDLL(library)
    dtypes = {"f8E4M3FN": 4, "f8E5M2": 5}
    for index, (name, source) in enumerate(
            [("f8E4M3FN", x), ("f8E5M2", x), ("f8E4M3FN", d), ("f8E5M2", d)]):
        got = read(directory, index, "B", COUNT)
        runtime = None
        if source is x:
            src = (ctypes.c_float * COUNT)(*x)
            dst = (ctypes.c_uint8 * COUNT)()
            assert precrt.precrtConvert(src, 1, dst, dtypes[name],
                                        ctypes.c_size_t(COUNT)) == 0
            runtime = list(dst)
        for i, value in enumerate(source):
            want = ref.encode(value, name)
            if got[i] != want or (runtime and runtime[i] != want):
                failures.append(
                    f"result {index}: {value!r} to {name}: got 0x{got[i]:02x}, "
                    f"expected 0x{want:02x}"
                    + (f" (runtime 0x{runtime[i]:02x})" if runtime else ""))

    for index, name, fmt in [(4, "f8E4M3FN", "f"), (5, "f8E5M2", "f"),
                             (7, "f8E5M2", "d")]:
        got = read(directory, index, fmt, 256)
        for bits in range(256):
            if not same(got[bits], ref.decode(bits, name)):
                failures.append(f"result {index}: 0x{bits:02x} ({name}): got "
                                f"{got[bits]!r}, expected "
                                f"{ref.decode(bits, name)!r}")
    bf16 = read(directory, 6, "H", 256)
    for bits in range(256):
        got = struct.unpack("<f", struct.pack("<I", bf16[bits] << 16))[0]
        if not same(got, ref.decode(bits, "f8E4M3FN")):
            failures.append(f"result 6: 0x{bits:02x} to bf16: got {got!r}")

    # Stochastic rounding (seed 77): bit for bit the runtime's reference.
    for index, dtype, code, width in [(8, 4, "B", 1), (9, 5, "B", 1),
                                      (10, 3, "H", 2), (11, 2, "H", 2)]:
        got = read(directory, index, code, COUNT)
        src = (ctypes.c_float * COUNT)(*x)
        dst = (ctypes.c_uint8 * (COUNT * width))()
        assert precrt.precrtConvertF32Stochastic(
            src, dst, dtype, ctypes.c_size_t(COUNT), ctypes.c_uint64(77),
            ctypes.c_uint64(0)) == 0
        want = struct.unpack(f"<{COUNT}{code}", bytes(dst))
        for i in range(COUNT):
            if got[i] != want[i]:
                failures.append(f"result {index}: {x[i]!r} rounded stochastically: "
                                f"got 0x{got[i]:x}, expected 0x{want[i]:x}")

    # Nearest even to bf16 and f16 (the pack kernels' casts): bit for bit
    # the IEEE rule below and the runtime's reference conversion.
    for index, name, dtype in [(12, "bf16", 3), (13, "f16", 2)]:
        got = read(directory, index, "H", COUNT)
        # The words of x.bin as they are: NaN payloads kept.
        src = ctypes.create_string_buffer(read_bytes(directory, "x.bin"))
        dst = (ctypes.c_uint16 * COUNT)()
        assert precrt.precrtConvert(src, 1, dst, dtype,
                                    ctypes.c_size_t(COUNT)) == 0
        for i, value in enumerate(x):
            want = ref.encode_ieee(value, name)
            if got[i] != want or dst[i] != want:
                failures.append(f"result {index}: {value!r} to {name}: got "
                                f"0x{got[i]:04x}, expected 0x{want:04x} "
                                f"(runtime 0x{dst[i]:04x})")

    for line in failures[:20]:
        print(line)
    if failures:
        print(f"{len(failures)} mismatches")
        return 1
    print("fp8 conversions: all match")
    return 0


if __name__ == "__main__":
    if sys.argv[1] == "generate":
        generate(sys.argv[2])
    else:
        sys.exit(check(sys.argv[2], sys.argv[3]))
