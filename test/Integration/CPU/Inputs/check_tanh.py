"""Generates the inputs of tanh.mlir and checks its results against float64.

usage: check_tanh.py generate X.bin | check OUTPUT_DIR

f32 results: within 5 ulp (of f32, at the exact value) of math.tanh in
float64, the bound docs/Prec.md ("Math functions") states
(bench/numerics/tanh_error.py checks every f32: at most 4.90 ulp). bf16 results (tanh of the input rounded to bf16,
computed in f32 and rounded once to bf16): within half a bf16 ulp plus
that bound. Zeros keep their sign, +-inf give +-1, NaN gives NaN.
"""
import math
import os
import random
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from reference import read, round_to  # noqa: E402

COUNT = 65536
F32_ULPS = 5

SPECIAL = [0.0, -0.0, math.inf, -math.inf, math.nan, 1e-45, -1e-45, 1e-38,
           -1e-38, 0.0004, -0.0004, 0.00039999, 7.99881172180175781,
           -7.99881172180175781, 8.0, 9.0, -20.0, 100.0, 3e38, -3e38,
           # The worst inputs of their binades (bench/numerics/tanh_error.py):
           # over 4 ulp, so that a bound of 4 would fail.
           5.12603903, -3.75495553, 0.0153746475, 0.0613512099]


def generate(path):
    rng = random.Random(20261129)
    values = list(SPECIAL)
    while len(values) < COUNT:
        values.append(rng.choice([1.0, -1.0]) * 2.0 ** rng.uniform(-30.0, 5.0))
    with open(path, "wb") as out:
        out.write(struct.pack("<%df" % COUNT, *values))


def ulp(value, mantissa_bits):
    """The spacing of the dtype with `mantissa_bits` (incl. the implicit one)
    at |value|, normal range."""
    if value == 0.0:
        return 2.0 ** -149
    exponent = math.frexp(abs(value))[1]  # |value| = m * 2^e, 0.5 <= m < 1
    return 2.0 ** (max(exponent, -125) - mantissa_bits)


def check(directory):
    x = read(os.path.join(directory, "rank0_arg0.bin"), "f32")
    got32 = read(os.path.join(directory, "rank0_result0.bin"), "f32")
    got16 = read(os.path.join(directory, "rank0_result1.bin"), "bf16")
    failures = []
    worst = 0.0
    for value, y32, y16 in zip(x, got32, got16):
        for got, source, bound in (
                (y32, value, lambda want: F32_ULPS * ulp(want, 24)),
                (y16, round_to(value, "bf16"),
                 lambda want: ulp(want, 8) / 2 + F32_ULPS * ulp(want, 24))):
            if math.isnan(source):
                ok = math.isnan(got)
            elif source == 0.0:
                ok = got == 0.0 and math.copysign(1.0, got) == math.copysign(1.0, source)
            elif math.isinf(source):
                ok = got == math.copysign(1.0, source)
            else:
                want = math.tanh(source)
                ok = abs(got - want) <= bound(want)
                if got is y32 or got == y32:
                    worst = max(worst, abs(got - want) / ulp(want, 24))
            if not ok:
                failures.append("tanh(%r) = %r, float64 gives %r" % (source, got, math.tanh(source) if math.isfinite(source) else source))
    if failures:
        print("\n".join(failures[:10]))
        sys.exit("%d results out of bounds" % len(failures))
    print("all %d f32 and bf16 results within bounds (worst f32: %.2f ulp)" % (len(x), worst))


if __name__ == "__main__":
    if sys.argv[1:2] == ["generate"]:
        generate(sys.argv[2])
    elif sys.argv[1:2] == ["check"]:
        check(sys.argv[2])
    else:
        sys.exit(__doc__)
