"""Float64 reference helpers for prec's integration tests (stdlib only).

The integration tests run a program with prec-run, which writes every
argument and result of every rank as raw little-endian files, and then
recompute the results here in float64, independently of prec's lowering.
Tolerances are derived from the dtypes involved: a value rounded once to a
dtype with p significand bits is off by at most u = 2^-p relative (unit
roundoff), and a sum of n terms accumulated in a dtype with roundoff u is off
by at most (n - 1) * u * sum(|terms|) (first order).
"""
import math
import os
import struct
import sys

# Unit roundoff u = 2^-p of each dtype (p = significand bits incl. the
# implicit one).
UNIT_ROUNDOFF = {"f64": 2.0**-53, "f32": 2.0**-24, "f16": 2.0**-11, "bf16": 2.0**-8}

_FORMATS = {"f64": ("d", 8), "f32": ("f", 4), "f16": ("e", 2)}


def read(path, dtype):
    """The values of a raw file of `dtype` elements, as Python floats."""
    data = open(path, "rb").read()
    if dtype == "bf16":
        count = len(data) // 2
        halves = struct.unpack("<%dH" % count, data)
        return [struct.unpack("<f", struct.pack("<I", h << 16))[0] for h in halves]
    code, size = _FORMATS[dtype]
    return list(struct.unpack("<%d%s" % (len(data) // size, code), data))


def round_to(value, dtype):
    """`value` rounded to nearest even in `dtype` (overflow to infinity)."""
    if dtype == "f64":
        return value
    if dtype == "f32":
        return struct.unpack("<f", struct.pack("<f", value))[0]
    if dtype == "f16":
        return struct.unpack("<e", struct.pack("<e", value))[0]
    if dtype == "bf16":
        # Round the f64 value to f32 exactly first only when that is exact;
        # otherwise round directly from the f64 bits to 8 significand bits.
        if value == 0.0 or math.isinf(value) or math.isnan(value):
            return value
        mantissa, exponent = math.frexp(value)  # value = m * 2^e, 0.5 <= |m| < 1
        scaled = mantissa * 2.0**8
        rounded = round(scaled)  # Python rounds half to even
        return math.ldexp(rounded, exponent - 8)
    raise ValueError(dtype)


class Checker:
    """Collects element comparisons against a reference with tolerances."""

    def __init__(self, name):
        self.name = name
        self.failures = 0
        self.compared = 0
        self.worst = 0.0  # largest |error| / tolerance seen

    def close(self, what, got, want, tolerance):
        self.compared += 1
        error = abs(got - want)
        if tolerance > 0:
            self.worst = max(self.worst, error / tolerance)
        if not error <= tolerance:
            self.failures += 1
            if self.failures <= 10:
                print("%s: %s: got %r, want %r (|error| %.3g > tolerance %.3g)"
                      % (self.name, what, got, want, error, tolerance))

    def finish(self):
        print("%s: %d values compared, %d outside tolerance, worst error/tolerance %.3f"
              % (self.name, self.compared, self.failures, self.worst))
        return 1 if self.failures or not self.compared else 0


def rank_file(directory, rank, kind, index):
    return os.path.join(directory, "rank%d_%s%d.bin" % (rank, kind, index))
