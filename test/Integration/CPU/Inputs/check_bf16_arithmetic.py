"""Checks bf16-arithmetic.mlir: every op rounded to bf16, bit for bit.

Each op is computed exactly (or correctly rounded) in float64 from the bf16
operands and rounded to bf16 to nearest even: the correctly rounded bf16
result of the op, which the program's per-op rounding must give exactly.
"""
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from reference import read, round_to  # noqa: E402

directory = sys.argv[1]
x = read(os.path.join(directory, "rank0_arg0.bin"), "bf16")
y = read(os.path.join(directory, "rank0_arg1.bin"), "bf16")
got = read(os.path.join(directory, "rank0_result0.bin"), "bf16")
c = round_to(4.467770e-02, "bf16")


def bf16(value):
    return round_to(value, "bf16")


mismatches = nonzero = 0
for a, b, result in zip(x, y, got):
    m = bf16(a * a)
    m2 = bf16(m * a)
    m3 = bf16(m2 * c)
    s = bf16(m3 + b)
    d = bf16(s / b) if b != 0.0 else s / b if s == 0.0 else math.copysign(math.inf, s) * math.copysign(1.0, b)
    want = bf16(bf16(d - a) + bf16(bf16(a * a) * a))
    if math.isnan(want) and math.isnan(result):
        continue
    nonzero += want != 0.0
    if want != result:
        mismatches += 1
        if mismatches <= 5:
            print("x=%r y=%r: expected %r, got %r" % (a, b, want, result))
if mismatches or nonzero < len(got) // 2:
    sys.exit("%d of %d results differ from rounding after every op (%d nonzero)"
             % (mismatches, len(got), nonzero))
print("all %d results rounded after every op" % len(got))
