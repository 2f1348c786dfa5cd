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
    """Collects element comparisons against a reference with tolerances.

    A check must be able to fail: a comparison whose tolerance covers the
    whole expected value (|want| <= tolerance) would accept 0, so finish()
    fails unless at least `min_nontrivial` of the comparisons (default: one
    in ten, and at least one) are nontrivial, i.e. |want| > tolerance. A
    result of all zeros, or a reference that is 0 everywhere, then fails.
    """

    def __init__(self, name, min_nontrivial=0.1):
        self.name = name
        self.failures = 0
        self.compared = 0
        self.nontrivial = 0  # comparisons that a result of 0 would fail
        self.min_nontrivial = min_nontrivial
        self.worst = 0.0  # largest |error| / tolerance seen

    def close(self, what, got, want, tolerance):
        self.compared += 1
        if abs(want) > tolerance:
            self.nontrivial += 1
        error = abs(got - want)
        if tolerance > 0:
            self.worst = max(self.worst, error / tolerance)
        if not error <= tolerance:
            self.failures += 1
            if self.failures <= 10:
                print("%s: %s: got %r, want %r (|error| %.3g > tolerance %.3g)"
                      % (self.name, what, got, want, error, tolerance))

    def finish(self):
        print("%s: %d values compared (%d that 0 would fail), %d outside tolerance, "
              "worst error/tolerance %.3f"
              % (self.name, self.compared, self.nontrivial, self.failures, self.worst))
        trivial = self.nontrivial < max(1, self.min_nontrivial * self.compared)
        if trivial:
            print("%s: too few comparisons tell the result from 0 (%d of %d, need %g%%)"
                  % (self.name, self.nontrivial, self.compared, 100 * self.min_nontrivial))
        return 1 if self.failures or not self.compared or trivial else 0


def rank_file(directory, rank, kind, index):
    return os.path.join(directory, "rank%d_%s%d.bin" % (rank, kind, index))
