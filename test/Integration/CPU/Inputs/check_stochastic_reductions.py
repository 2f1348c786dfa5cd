"""Inputs and checks of stochastic-reductions.mlir (4 ranks).

  generate DIR                   writes x.bin (4096 x (1 + 2^-10)),
                                 y.bin (4096 x (1 + 2^-13)) and z.bin
                                 (511, then 4095 x 11 * 73/64)
  check DIR SEED LIBPRECRT       recomputes every result bit for bit with
                                 the runtime's reference conversion, and
                                 checks that the results are unbiased

The streams (docs/Prec.md, "Stochastic rounding"): rank r's key is
k_r = SEED + r * 0x9E3779B97F4A7C15 mod 2^64. The wire rounds input element i
with word i of k_r. A reduced value rounds with word 2^63 + j of the key of
the rank that reduced it, j its index in that rank's reduced slice (the
direct all_reduce's slice s holds elements [s * 1024, (s + 1) * 1024) and is
rounded by rank s; a reduce_scatter's result by its own rank), or with word
2^63 + i of the key SEED where every rank holds the reduced value (after the
ring all_reduce). Sums are f32 in rank order, the average's division by 4
is exact.

Unbiasedness. x = 1 + 2^-10 lies p = 1/8 of a bf16 spacing q = 2^-7 above
1, and y = 1 + 2^-13 the same fraction of an f16 spacing q = 2^-10. A wire
value is 1 + q B_r with B_r Bernoulli(p); the mean of the 4 wire values is
m = 1 + q K / 4 with K = sum B_r, exact in f32. Rounding m stochastically
goes up with probability K / 4, so a result is 1 + q C with C Bernoulli(
E[K] / 4) = Bernoulli(p), independently for every element (every element
draws its own words). The mean of n results then has expectation 1 + q p,
the value itself, and standard deviation q sqrt(p (1 - p) / n): it must lie
within 4 of those of the value (a correct rounding fails that with
probability below 10^-4). Rounding the mean to nearest gives 1 (K <= 2) or
1 + q (K >= 3, probability 0.0071): the mean is then 0.118 q below the
value, 23 standard deviations at n = 4096, so the check fails it.

Scaled fp8 wires (results 5 to 8, f8E4M3FN, dynamic scaling, bf16
results). Every rank's z has the amax 511, so every scale (the gathers'
common one and each rank's own) is fl32(511 / 448) = 73/64, and every other
element is V = 11 * 73/64 = 12.546875, whose quotient by the scale, 11, is
an f8E4M3FN value: the quantization is exact (whatever its words), so the
results' randomness is the second rounding alone. The dequantized value
q * scale (exact in f32: 4 bits times 7) and the average of 4 of them
(exact) is V, p = 3/4 of a bf16 spacing q = 2^-4 above 12.5, and rounds to
bf16 with word 2^63 + j of the seed's stream (all_gather, all_reduce: j the
element's index in the result, the same bits on every rank) or of the
result's rank (reduce_scatter, all_to_all). Every bit is recomputed with
the runtime (the quantization with word i of the sender's key, i the
element's index in its input). The mean of the n results other than the
amaxes' is unbiased as above (4 standard deviations: q sqrt(p (1 - p) / n));
rounding them to nearest gives 12.5625 each, q / 4 above V, which is 37
standard deviations at n = 4095 and 74 at n = 16380.
"""
import ctypes
import math
import os
import struct
import sys

from reference import Checker, rank_file

RANKS = 4
COUNT = 4096
SLICE = COUNT // RANKS
GOLDEN = 0x9E3779B97F4A7C15
ARRIVAL = 2**63
F16, BF16, F8E4M3FN = 2, 3, 4
X = 1 + 2.0**-10
Y = 1 + 2.0**-13


AMAX = 511.0
SCALE = 73 / 64  # fl32(AMAX / 448), checked below
V = 11 * SCALE


def generate(directory):
    for name, value in (("x.bin", X), ("y.bin", Y)):
        with open(os.path.join(directory, name), "wb") as out:
            out.write(struct.pack("<%df" % COUNT, *([value] * COUNT)))
    with open(os.path.join(directory, "z.bin"), "wb") as out:
        out.write(struct.pack("<%df" % COUNT, *([AMAX] + [V] * (COUNT - 1))))


def e4m3_value(byte):
    sign = -1.0 if byte & 0x80 else 1.0
    exponent, mantissa = (byte >> 3) & 0xF, byte & 0x7
    assert (byte & 0x7F) != 0x7F, "NaN"
    if exponent == 0:
        return sign * mantissa * 2.0**-9
    return sign * (1 + mantissa / 8) * 2.0**(exponent - 7)


def f32(value):
    return struct.unpack("<f", struct.pack("<f", value))[0]


def half_value(bits, dtype):
    if dtype == BF16:
        return struct.unpack("<f", struct.pack("<I", bits << 16))[0]
    return struct.unpack("<e", struct.pack("<H", bits))[0]


class Runtime:
    def __init__(self, path):
        self.lib = ctypes.CDLL(path)

    def stochastic(self, values, dtype, key, offset=0):
        """Raw 16-bit words of the reference stochastic rounding: element i
        takes word offset + i of the stream keyed by `key`."""
        count = len(values)
        src = (ctypes.c_float * count)(*values)
        dst = (ctypes.c_uint16 * count)()
        status = self.lib.precrtConvertF32Stochastic(
            src, dst, dtype, ctypes.c_size_t(count), ctypes.c_uint64(key % 2**64),
            ctypes.c_uint64(offset))
        assert status == 0
        return list(dst)

    def quantize(self, values, key):
        """f8E4M3FN values of the reference stochastic rounding (word i)."""
        count = len(values)
        src = (ctypes.c_float * count)(*values)
        dst = (ctypes.c_uint8 * count)()
        status = self.lib.precrtConvertF32Stochastic(
            src, dst, F8E4M3FN, ctypes.c_size_t(count),
            ctypes.c_uint64(key % 2**64), ctypes.c_uint64(0))
        assert status == 0
        return [e4m3_value(b) for b in dst]


def raw(directory, rank, index, code, count):
    with open(rank_file(directory, rank, "result", index), "rb") as f:
        return list(struct.unpack("<%d%s" % (count, code), f.read()))


def averages(runtime, value, dtype, keys):
    """The f32 averages of the 4 ranks' stochastically rounded wires."""
    wires = [[half_value(b, dtype) for b in
              runtime.stochastic([value] * COUNT, dtype, keys[r])]
             for r in range(RANKS)]
    result = []
    for i in range(COUNT):
        acc = 0.0
        for r in range(RANKS):
            acc = f32(acc + wires[r][i])
        result.append(f32(acc / RANKS))
    return result


def unbiased(name, values, value, spacing, below=1.0):
    p = (value - below) / spacing
    n = len(values)
    bound = 4 * spacing * math.sqrt(p * (1 - p) / n)
    mean = sum(values) / n
    print("%s: mean of %d results - value = %.3g, bound %.3g"
          % (name, n, mean - value, bound))
    if abs(mean - value) > bound:
        print("%s: biased" % name)
        return 1
    return 0


def check(directory, seed, library):
    runtime = Runtime(library)
    keys = [(seed + r * GOLDEN) % 2**64 for r in range(RANKS)]
    exact = Checker("stochastic reductions, seed %d" % seed)
    status = 0

    # Results 0 and 1: direct all_reduce, slice s rounded by rank s.
    for index, value, dtype in ((0, X, BF16), (1, Y, F16)):
        mean = averages(runtime, value, dtype, keys)
        want = []
        same_as_wire_stream = 0
        for s in range(RANKS):
            part = mean[s * SLICE:(s + 1) * SLICE]
            bits = runtime.stochastic(part, dtype, keys[s], ARRIVAL)
            want += [half_value(b, dtype) for b in bits]
            wire_words = runtime.stochastic(part, dtype, keys[s], s * SLICE)
            same_as_wire_stream += bits == wire_words
        for r in range(RANKS):
            got = raw(directory, r, index, "f", COUNT)
            for i in range(COUNT):
                exact.close("rank %d result %d[%d]" % (r, index, i), got[i], want[i], 0)
        if same_as_wire_stream == RANKS:
            print("result %d: the arrival words round like the wire's: the check "
                  "cannot tell the streams apart" % index)
            status = 1
        spacing = 2.0**-7 if dtype == BF16 else 2.0**-10
        status |= unbiased("all_reduce result %d" % index,
                           raw(directory, 0, index, "f", COUNT), value, spacing)

    # Results 2 and 3: reduce_scatter, f32 (no second rounding) and bf16.
    mean = averages(runtime, X, BF16, keys)
    rounded = []
    for r in range(RANKS):
        part = mean[r * SLICE:(r + 1) * SLICE]
        got = raw(directory, r, 2, "f", SLICE)
        for j in range(SLICE):
            exact.close("rank %d result 2[%d]" % (r, j), got[j], part[j], 0)
        want = runtime.stochastic(part, BF16, keys[r], ARRIVAL)
        got = raw(directory, r, 3, "H", SLICE)
        for j in range(SLICE):
            exact.close("rank %d result 3[%d]" % (r, j), got[j], want[j], 0)
        rounded += [half_value(b, BF16) for b in got]
    status |= unbiased("reduce_scatter result 3", rounded, X, 2.0**-7)

    # Result 4: the ring's f32 average, rounded on every rank with the seed's
    # stream, so that every rank holds the same bits.
    ring = [f32(f32(X * 4) / 4)] * COUNT
    want = runtime.stochastic(ring, BF16, seed, ARRIVAL)
    for r in range(RANKS):
        got = raw(directory, r, 4, "H", COUNT)
        for i in range(COUNT):
            exact.close("rank %d result 4[%d]" % (r, i), got[i], want[i], 0)
    status |= unbiased("ring all_reduce result 4",
                       [half_value(b, BF16) for b in raw(directory, 0, 4, "H", COUNT)],
                       X, 2.0**-7)
    status |= check_scaled(runtime, directory, seed, keys, exact)
    return exact.finish() | status


def check_scaled(runtime, directory, seed, keys, exact):
    assert f32(AMAX / 448) == SCALE
    z = [AMAX] + [V] * (COUNT - 1)
    quotients = [f32(v / SCALE) for v in z]
    # dequantized[p][i]: rank p's input element i, quantized with word i of
    # its key and multiplied by the scale (exact in f32).
    dequantized = [[q * SCALE for q in runtime.quantize(quotients, keys[p])]
                   for p in range(RANKS)]
    status = 0

    def compare(rank, index, want_bits):
        got = raw(directory, rank, index, "H", len(want_bits))
        for j, (g, w) in enumerate(zip(got, want_bits)):
            exact.close("rank %d result %d[%d]" % (rank, index, j), g, w, 0)
        return got

    def sample(bits, amaxes):
        return [half_value(b, BF16) for j, b in enumerate(bits) if j not in amaxes]

    # Result 5: all_gather, the seed's arrival words over the gathered result.
    gathered = [d for p in range(RANKS) for d in dequantized[p]]
    want = runtime.stochastic(gathered, BF16, seed, ARRIVAL)
    for r in range(RANKS):
        got = compare(r, 5, want)
    status |= unbiased("scaled all_gather result 5",
                       sample(got, {p * COUNT for p in range(RANKS)}), V,
                       2.0**-4, 12.5)

    # Result 6: reduce_scatter, rank r's average rounded with its own words.
    rounded = []
    for r in range(RANKS):
        part = []
        for j in range(SLICE):
            acc = 0.0
            for p in range(RANKS):
                acc = f32(acc + dequantized[p][r * SLICE + j])
            part.append(f32(acc / RANKS))
        got = compare(r, 6, runtime.stochastic(part, BF16, keys[r], ARRIVAL))
        rounded += sample(got, {0} if r == 0 else set())
    status |= unbiased("scaled reduce_scatter result 6", rounded, V, 2.0**-4, 12.5)

    # Result 7: all_reduce, every rank averages all terms: the seed's words.
    average = []
    for i in range(COUNT):
        acc = 0.0
        for p in range(RANKS):
            acc = f32(acc + dequantized[p][i])
        average.append(f32(acc / RANKS))
    want = runtime.stochastic(average, BF16, seed, ARRIVAL)
    for r in range(RANKS):
        got = compare(r, 7, want)
    status |= unbiased("scaled all_reduce result 7", sample(got, {0}), V,
                       2.0**-4, 12.5)

    # Result 8: all_to_all, rank r receives chunk r of every rank's input.
    rounded = []
    for r in range(RANKS):
        received = [dequantized[p][r * SLICE + m]
                    for p in range(RANKS) for m in range(SLICE)]
        got = compare(r, 8, runtime.stochastic(received, BF16, keys[r], ARRIVAL))
        rounded += sample(got, {p * SLICE for p in range(RANKS)} if r == 0 else set())
    status |= unbiased("scaled all_to_all result 8", rounded, V, 2.0**-4, 12.5)
    return status


if __name__ == "__main__":
    if sys.argv[1] == "generate":
        generate(sys.argv[2])
    else:
        sys.exit(check(sys.argv[2], int(sys.argv[3]), sys.argv[4]))
