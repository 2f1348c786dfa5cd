"""Checks divisors.mlir's results against a float64 reference.

Usage: check_divisors.py OUTPUT_DIR NUM_RANKS

Each input is divided by pre_divisor and rounded once to the wire dtype,
the n terms are summed in acc_dtype, and the sum is divided by
post_divisor and rounded once to the result type. With the divisions in a
type that holds the divisors exactly (f64 for 0.1), each division costs one
rounding in the type it rounds to, so the tolerances below are the same as
for exact divisors: wire + (n - 1) sum roundings + one division + one
result rounding, relative to sum |x_i| / divisors.
"""
import sys

from reference import Checker, UNIT_ROUNDOFF as U, read, rank_file


def main():
    directory, n = sys.argv[1], int(sys.argv[2])
    g = [read(rank_file(directory, r, "arg", 0), "f32") for r in range(n)]
    h = [read(rank_file(directory, r, "arg", 1), "f16") for r in range(n)]
    check = Checker("divisors on %d ranks" % n)
    for r in range(n):
        scattered = read(rank_file(directory, r, "result", 0), "f32")
        tiny = read(rank_file(directory, r, "result", 1), "f32")
        half = read(rank_file(directory, r, "result", 2), "f16")
        chunk = len(scattered)
        for i in range(chunk):
            terms = [g[q][r * chunk + i] / 0.1 for q in range(n)]
            magnitude = sum(abs(t) for t in terms) / 1e30
            tolerance = (U["bf16"] + (n + 2) * U["f32"]) * magnitude
            check.close("scattered[%d]" % i, scattered[i], sum(terms) / 1e30,
                        tolerance)
        for i in range(len(tiny)):
            terms = [g[q][i] for q in range(n)]
            magnitude = sum(abs(t) for t in terms) / 3e-30
            check.close("tiny[%d]" % i, tiny[i], sum(terms) / 3e-30,
                        (n + 2) * U["f32"] * magnitude)
        for i in range(len(half)):
            terms = [h[q][i] / 0.3 for q in range(n)]
            magnitude = sum(abs(t) for t in terms) / 7.0
            check.close("half[%d]" % i, half[i], sum(terms) / 7.0,
                        (n + 2) * U["f16"] * magnitude)
    return check.finish()


if __name__ == "__main__":
    sys.exit(main())
