"""fp8 (and bf16, f16) formats in plain Python, independent of prec's
lowering and runtime.

Every finite value of a format is listed from its bit patterns; rounding to
nearest even picks the nearest listed value (ties to the even pattern) and
saturates beyond the largest finite value, as precrt/numerics.h specifies:
infinities saturate too, NaN becomes the canonical NaN (sign cleared). bf16
and f16 round the same way but overflow to infinity, as IEEE formats do.
"""

import bisect
import math
import struct
import sys

# name: (mantissa bits, exponent bits, bias, IEEE specials, canonical NaN)
FORMATS = {
    "f8E4M3FN": (3, 4, 7, False, 0x7F),
    "f8E5M2": (2, 5, 15, True, 0x7E),
}


def decode(bits, name):
    """The value of an fp8 bit pattern (a Python float; NaN for NaNs)."""
    m, e, bias, ieee, _ = FORMATS[name]
    sign = -1.0 if bits & (1 << (m + e)) else 1.0
    mantissa = bits & ((1 << m) - 1)
    exponent = (bits >> m) & ((1 << e) - 1)
    if exponent == (1 << e) - 1:
        if ieee:
            return sign * math.inf if mantissa == 0 else math.nan
        if mantissa == (1 << m) - 1:
            return math.nan
    if exponent == 0:
        return sign * mantissa * 2.0 ** (1 - bias - m)
    return sign * (1 + mantissa / 2.0**m) * 2.0 ** (exponent - bias)


def _positive_values(name):
    m, e, _, _, _ = FORMATS[name]
    values = []
    for bits in range(1 << (m + e)):
        value = decode(bits, name)
        if math.isfinite(value):
            values.append((value, bits))
    return values


_TABLES = {name: _positive_values(name) for name in FORMATS}


def largest(name):
    return _TABLES[name][-1][0]


def _round_in_table(x, table, values, nan, sign_bit):
    """x rounded to the nearest magnitude of `table` ((value, bits) pairs in
    increasing order, neighbours' bits consecutive; `values` its values),
    ties to the even bits; from the last value on, the last."""
    if math.isnan(x):
        return nan
    sign = sign_bit if math.copysign(1.0, x) < 0 else 0
    magnitude = abs(x)
    if magnitude >= table[-1][0]:
        return sign | table[-1][1]
    i = bisect.bisect_left(values, magnitude)
    if values[i] == magnitude:
        return sign | table[i][1]
    below, above = table[i - 1], table[i]
    # Within a binade (or from zero) these differences compare exactly.
    if magnitude - below[0] < above[0] - magnitude:
        return sign | below[1]
    if magnitude - below[0] > above[0] - magnitude:
        return sign | above[1]
    return sign | (below[1] if below[1] % 2 == 0 else above[1])


_VALUES = {name: [v for v, _ in table] for name, table in _TABLES.items()}


def encode(x, name):
    """x (any Python float) rounded to nearest even, saturating."""
    m, e, _, _, nan = FORMATS[name]
    return _round_in_table(x, _TABLES[name], _VALUES[name], nan, 1 << (m + e))


# 16-bit IEEE formats, which round to nearest even without saturating:
# name: (mantissa bits, exponent bits, bias, canonical NaN)
IEEE_FORMATS = {"bf16": (7, 8, 127, 0x7FC0), "f16": (10, 5, 15, 0x7E00)}


def _ieee_table(name):
    m, e, bias, _ = IEEE_FORMATS[name]
    values = []
    for bits in range(((1 << e) - 1) << m):
        exponent, mantissa = bits >> m, bits & ((1 << m) - 1)
        if exponent == 0:
            values.append((mantissa * 2.0 ** (1 - bias - m), bits))
        else:
            values.append(((1 + mantissa / 2.0**m) * 2.0 ** (exponent - bias),
                           bits))
    # Infinity stands where the next binade would start: halfway between it
    # and the largest finite value (whose bits are odd) rounds up to it.
    values.append((2.0 ** ((1 << e) - 1 - bias), ((1 << e) - 1) << m))
    return values


_IEEE_TABLES = {name: _ieee_table(name) for name in IEEE_FORMATS}
_IEEE_VALUES = {name: [v for v, _ in table]
                for name, table in _IEEE_TABLES.items()}


def encode_ieee(x, name):
    """x rounded to nearest even in bf16 or f16, the canonical NaN for NaN."""
    m, e, _, nan = IEEE_FORMATS[name]
    return _round_in_table(x, _IEEE_TABLES[name], _IEEE_VALUES[name], nan,
                           1 << (m + e))


def f32(x):
    """x rounded to the nearest f32."""
    return struct.unpack("<f", struct.pack("<f", x))[0]


# Scales, as docs/Prec.md defines them (prec.amax, prec.scale_from_amax).

def amax(values):
    """Largest finite magnitude (0 when there is none)."""
    finite = [abs(v) for v in values if math.isfinite(v)]
    return max(finite) if finite else 0.0


def tensor_scale(a, name):
    """f32 scale of a per-tensor amax: max(amax / max_finite, 2^-126), or 1
    for an amax of 0, infinity or NaN."""
    if not (0 < a < math.inf):
        return 1.0
    return max(f32(f32(a) / largest(name)), 2.0**-126)


_EMAX = {"f8E4M3FN": 8, "f8E5M2": 15}


def block_scale(a, name):
    """OCP MX power-of-two scale of a block amax, as a Python float."""
    if not (0 < a < math.inf):
        return 1.0
    exponent = math.frexp(f32(a))[1] - 1  # floor(log2(a)) for normal a
    if f32(a) < 2.0**-126:
        exponent = -127
    return 2.0 ** min(max(exponent - _EMAX[name], -127), 127)


def quantize(x, scale, name):
    """fp8 bits of x / scale, the quotient rounded to f32 first."""
    return encode(f32(x / scale), name)


def dequantize(bits, scale, name):
    """The exact product of an fp8 value and its scale (f64 holds it)."""
    return decode(bits, name) * scale


def dequantize_f32(bits, scale, name):
    """The product rounded once to f32."""
    return f32(dequantize(bits, scale, name))


def spacing_bound(name):
    """Relative error of a rounding to the format in its normal range."""
    return 2.0 ** -(FORMATS[name][0] + 1)


def subnormal_step(name):
    m, _, bias, _, _ = FORMATS[name]
    return 2.0 ** (1 - bias - m)


def report_bit_exact(failures, summary):
    """What a bit-exact check prints: its first 20 mismatches and their
    count (exit status 1), or `summary` (exit status 0)."""
    for line in failures[:20]:
        print(line)
    if failures:
        print("%d mismatches" % len(failures))
        return 1
    print(summary)
    return 0


def generate_or_check(generate, check):
    """`generate DIR` writes a test's inputs, `check DIR [OTHER]` compares
    the results in OTHER (default DIR) with them."""
    if sys.argv[1] == "generate":
        generate(sys.argv[2])
    else:
        sys.exit(check(sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else sys.argv[2]))
