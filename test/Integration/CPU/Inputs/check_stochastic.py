"""Inputs and checks of stochastic-rounding.mlir.

  generate DIR                    writes same.bin: 2^16 copies of 1 + 2^-10
  check DIR NUM_RANKS LIBPRECRT   compares prec-run's results with the
                                  runtime's reference conversions

Stochastic rounding of element i uses word i of the Philox stream keyed by
the seed (casts) or by seed + rank * 0x9E3779B97F4A7C15 mod 2^64 (a
collective's wire on each rank). The reduce_scatter's expected value is the
f32 sum, in rank order, of the senders' reference roundings; the fp8
gather's, the dequantization of the reference rounding of x / scale; the
SGD shard's, the reference rounding of x - 0.5 x.
Unbiasedness: 1 + 2^-10 lies 1/8 of a bf16 spacing q = 2^-7 above 1, so a
rounding is 1 + q with probability p = 1/8 and the mean of n roundings has
standard error q sqrt(p (1 - p) / n); it must stay within 4 of them of the
value for n = 2^8, 2^12 and 2^16, where rounding to nearest stays 2^-10 off
(more than that bound at 2^16: the check can fail).
"""
import ctypes
import math
import os
import struct
import sys

import fp8_reference as fp8
from reference import Checker, read, rank_file

SEED = 20261125
GOLDEN = 0x9E3779B97F4A7C15
BF16, F8E4M3FN, F8E5M2 = 3, 4, 5
VALUE = 1 + 2.0**-10


def generate(directory):
    with open(os.path.join(directory, "same.bin"), "wb") as out:
        out.write(struct.pack("<65536f", *([VALUE] * 65536)))


class Runtime:
    def __init__(self, path):
        self.lib = ctypes.CDLL(path)

    def stochastic(self, values, dtype, seed):
        """Raw narrow words of the reference stochastic rounding."""
        count = len(values)
        src = (ctypes.c_float * count)(*values)
        width = 2 if dtype == BF16 else 1
        dst = (ctypes.c_uint8 * (count * width))()
        status = self.lib.precrtConvertF32Stochastic(
            src, dst, dtype, ctypes.c_size_t(count), ctypes.c_uint64(seed % 2**64),
            ctypes.c_uint64(0))
        assert status == 0
        raw = bytes(dst)
        if width == 2:
            return list(struct.unpack("<%dH" % count, raw))
        return list(raw)


def bf16_value(bits):
    return struct.unpack("<f", struct.pack("<I", bits << 16))[0]


def raw(directory, rank, index, code, count):
    with open(rank_file(directory, rank, "result", index), "rb") as f:
        return list(struct.unpack("<%d%s" % (count, code), f.read()))


def check(directory, n, library):
    runtime = Runtime(library)
    exact = Checker("stochastic rounding on %d ranks" % n)
    xs = [read(rank_file(directory, r, "arg", 0), "f32") for r in range(n)]
    gs = [read(rank_file(directory, r, "arg", 1), "f32") for r in range(n)]
    chunk = 256
    keys = [(SEED + r * GOLDEN) % 2**64 for r in range(n)]
    wires = [runtime.stochastic(gs[q], BF16, keys[q]) for q in range(n)]
    everything = [v for x in xs for v in x]
    scale = fp8.tensor_scale(fp8.amax(everything), "f8E4M3FN")
    gathered = []
    for r in range(n):
        quotients = [fp8.f32(v / scale) for v in xs[r]]
        gathered += [fp8.dequantize_f32(b, scale, "f8E4M3FN")
                     for b in runtime.stochastic(quotients, F8E4M3FN, keys[r])]
    for r in range(n):
        for index, dtype, code in [(0, BF16, "H"), (1, F8E5M2, "B")]:
            got = raw(directory, r, index, code, chunk)
            want = runtime.stochastic(xs[r], dtype, SEED)
            for i in range(chunk):
                exact.close("rank %d result %d[%d]" % (r, index, i), got[i], want[i], 0)
        got = read(rank_file(directory, r, "result", 2), "f32")
        for i in range(chunk):
            acc = 0.0
            for q in range(n):
                acc = fp8.f32(acc + bf16_value(wires[q][r * chunk + i]))
            exact.close("rank %d result 2[%d]" % (r, i), got[i], acc, 0)
        got = read(rank_file(directory, r, "result", 5), "f32")
        for i, want in enumerate(gathered):
            exact.close("rank %d result 5[%d]" % (r, i), got[i], want, 0)
        got = raw(directory, r, 6, "H", chunk)
        want = runtime.stochastic([0.5 * v for v in xs[r]], BF16, SEED)
        for i in range(chunk):
            exact.close("rank %d sgd shard[%d]" % (r, i), got[i], want[i], 0)

    got = raw(directory, 0, 3, "H", 65536)
    want = runtime.stochastic([VALUE] * 65536, BF16, SEED)
    for i in range(65536):
        exact.close("result 3[%d]" % i, got[i], want[i], 0)
    status = exact.finish()

    spacing, p = 2.0**-7, 1.0 / 8
    nearest = [bf16_value(b) for b in raw(directory, 0, 4, "H", 65536)]
    stochastic = [bf16_value(b) for b in got]
    for count in (2**8, 2**12, 2**16):
        bound = 4 * spacing * math.sqrt(p * (1 - p) / count)
        error = abs(sum(stochastic[:count]) / count - VALUE)
        biased = abs(sum(nearest[:count]) / count - VALUE)
        print("n = %6d: |mean - x| = %.3g (stochastic), %.3g (nearest), bound %.3g"
              % (count, error, biased, bound))
        if error > bound:
            print("stochastic rounding biased at n = %d" % count)
            status = 1
    if biased <= bound:
        print("rounding to nearest passed the unbiasedness bound: the check is too weak")
        status = 1
    return status


if __name__ == "__main__":
    if sys.argv[1] == "generate":
        generate(sys.argv[2])
    else:
        sys.exit(check(sys.argv[2], int(sys.argv[3]), sys.argv[4]))
