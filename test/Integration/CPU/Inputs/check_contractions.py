"""Inputs and float64 reference of contractions.mlir.

Usage: check_contractions.py generate INPUT_DIR
       check_contractions.py check INPUT_DIR OUTPUT_DIR

`generate` writes the program's arguments (and `args`, the prec-run options
that pass them): values uniform in [-1, 1] in each operand's dtype, with the
first row of every A subnormal in its dtype (in f32 for f32 operands) and
its second row and B's first column scaled up (by 2^56, or 2^4 for f16 and
fp8, whose outputs would overflow).

`check` compares each result with the exact sum of its products (math.fsum
of float64 products, which are exact). Accumulation in f32 of k products
and the initial value, in any order and with or without fused multiply-add,
is off by at most (k + 1) u(f32) sum(|terms|) plus (k + 2) half-spacings of
f32's subnormals (2^-150) for products and sums that land below the normal
range; a bf16 or f16 output adds one rounding, u(out) relative plus half a
subnormal spacing of the output. A kernel that flushes subnormal inputs to
zero misses the first rows by far more than that, and every case must have
values an all-zero result would miss.
"""
import math
import os
import random
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fp8_reference as fp8  # noqa: E402
from reference import Checker, UNIT_ROUNDOFF as U, read, rank_file  # noqa: E402

# Per case: (dtype of A, of B, of C, batch, m, n, k, A stored k x m,
#            B stored n x k, initial value of C[, C stored n x m]).
CASES = [
    ("f32", "f32", "f32", 1, 65, 33, 129, False, False, 0.0),
    ("bf16", "bf16", "f32", 1, 7, 13, 5, False, False, 0.5),
    ("f32", "bf16", "f32", 1, 65, 129, 33, False, True, 0.0),
    ("bf16", "f32", "f32", 1, 129, 33, 65, True, False, 0.0),
    ("bf16", "bf16", "bf16", 1, 65, 33, 129, False, False, 0.0),
    ("f16", "f16", "f16", 3, 7, 13, 5, False, False, 0.0),
    ("f16", "f32", "f32", 1, 7, 13, 5, True, False, 0.0),
    ("bf16", "bf16", "bf16", 1, 1, 1, 1, False, False, 0.0),
    ("bf16", "f8E4M3FN", "f32", 1, 7, 13, 16, False, False, 0.0),
    ("bf16", "f32", "bf16", 1, 65, 33, 129, True, False, 0.0, True),
]

# Smallest positive subnormal and half of it (the largest rounding error
# below the normal range) per dtype.
SUBNORMAL = {"f32": 2.0**-149, "bf16": 2.0**-133, "f16": 2.0**-24}
LARGE = {"f32": 2.0**56, "bf16": 2.0**56, "f16": 2.0**4, "f8E4M3FN": 2.0**4}


def round_to(value, dtype):
    if dtype == "f32":
        return struct.unpack("<f", struct.pack("<f", value))[0]
    if dtype == "f16":
        return struct.unpack("<e", struct.pack("<e", value))[0]
    if dtype == "bf16":
        # Truncate an f32 to 8 significand bits: these inputs need not be
        # rounded to nearest, only representable.
        bits = struct.unpack("<I", struct.pack("<f", value))[0] & 0xFFFF0000
        return struct.unpack("<f", struct.pack("<I", bits))[0]
    return fp8.decode(fp8.encode(value, dtype), dtype)


def encode(values, dtype):
    if dtype == "f32":
        return struct.pack("<%df" % len(values), *values)
    if dtype == "f16":
        return struct.pack("<%de" % len(values), *values)
    if dtype == "bf16":
        return b"".join(struct.pack("<H", struct.unpack("<I", struct.pack("<f", v))[0] >> 16)
                        for v in values)
    return bytes(fp8.encode(v, dtype) for v in values)


def sample(rng, dtype, kind):
    x = rng.uniform(-1.0, 1.0)
    if kind == "subnormal" and dtype in SUBNORMAL:
        # A random subnormal of the dtype: a multiple of its smallest one.
        top = {"f32": 2**23, "bf16": 2**7, "f16": 2**10}[dtype]
        return math.copysign(rng.randrange(1, top) * SUBNORMAL[dtype], x)
    if kind == "large":
        return round_to(x, dtype) * LARGE[dtype]
    return round_to(x, dtype)


def logical_operands(case_index):
    """A[b][i][p] and B[b][p][j] of a case, deterministic."""
    a_type, b_type, _, batch, m, n, k = CASES[case_index][:7]
    rng = random.Random(1000 + case_index)
    a = [[[sample(rng, a_type, "subnormal" if i == 0 and m > 2 else
                  "large" if i == 1 and m > 2 else "")
           for p in range(k)] for i in range(m)] for _ in range(batch)]
    b = [[[sample(rng, b_type, "large" if j == 0 and n > 2 else "")
           for j in range(n)] for p in range(k)] for _ in range(batch)]
    return a, b


def stored(matrix, transposed):
    """The values of a batch of matrices in row-major order as stored."""
    values = []
    for item in matrix:
        rows = [list(column) for column in zip(*item)] if transposed else item
        for row in rows:
            values.extend(row)
    return values


def generate(directory):
    os.makedirs(directory, exist_ok=True)
    args = []
    for index, case in enumerate(CASES):
        a_type, b_type, _, _, _, _, _, a_t, b_t = case[:9]
        a, b = logical_operands(index)
        for slot, (matrix, dtype, transposed) in enumerate(
                [(a, a_type, a_t), (b, b_type, b_t)]):
            arg = 2 * index + slot
            path = os.path.join(directory, "%d.bin" % arg)
            with open(path, "wb") as f:
                f.write(encode(stored(matrix, transposed), dtype))
            args.append("--arg %d=%s" % (arg, path))
    with open(os.path.join(directory, "args"), "w") as f:
        f.write(" ".join(args) + "\n")
    return 0


def check(in_dir, out_dir):
    check = Checker("contractions")
    for index, case in enumerate(CASES):
        _, _, c_type, batch, m, n, k, _, _, init = case[:10]
        c_transposed = case[10:] == (True,)
        a, b = logical_operands(index)
        got = read(rank_file(out_dir, 0, "result", index), c_type)
        if len(got) != batch * m * n:
            print("case %d: %d values, want %d" % (index, len(got), batch * m * n))
            return 1
        telling = 0
        for t in range(batch):
            for i in range(m):
                for j in range(n):
                    terms = [a[t][i][p] * b[t][p][j] for p in range(k)] + [init]
                    exact = math.fsum(terms)
                    tolerance = ((k + 1) * U["f32"] * 1.01 * sum(abs(x) for x in terms)
                                 + (k + 2) * 2.0**-150)
                    if c_type != "f32":
                        tolerance += (U[c_type] * (abs(exact) + tolerance)
                                      + SUBNORMAL[c_type] / 2)
                    if abs(exact) > tolerance:
                        telling += 1
                    at = (t * n + j) * m + i if c_transposed else (t * m + i) * n + j
                    check.close("case %d C[%d][%d][%d]" % (index, t, i, j),
                                got[at], exact, tolerance)
        if not telling:
            print("case %d: no value that an all-zero result would miss" % index)
            return 1
    return check.finish()


if __name__ == "__main__":
    if sys.argv[1] == "generate":
        sys.exit(generate(sys.argv[2]))
    sys.exit(check(sys.argv[2], sys.argv[3]))
