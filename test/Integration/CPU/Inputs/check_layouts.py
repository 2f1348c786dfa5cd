"""Checks layouts.mlir against a float64 reference.

Usage: check_layouts.py OUTPUT_DIR NUM_RANKS

Data movement is exact (f32 in, f32 out); the bf16-wire reduce-scatter is
off by one bf16 rounding per input plus an f32 sum of N terms.
"""
import sys

from reference import Checker, UNIT_ROUNDOFF as U, read, rank_file


def main():
    directory, n = sys.argv[1], int(sys.argv[2])
    w = [read(rank_file(directory, r, "arg", 0), "f32") for r in range(n)]  # 2x3
    g = [read(rank_file(directory, r, "arg", 1), "f32") for r in range(n)]  # 2x12
    x = [read(rank_file(directory, r, "arg", 2), "f32") for r in range(n)]  # 8x2
    check = Checker("layouts on %d ranks" % n)
    for r in range(n):
        gathered = read(rank_file(directory, r, "result", 0), "f32")
        scattered = read(rank_file(directory, r, "result", 1), "f32")
        exchanged = read(rank_file(directory, r, "result", 2), "f32")
        # gather along dim 1: row i of the result is rank 0's row i, rank 1's ...
        for i in range(2):
            for q in range(n):
                for j in range(3):
                    check.close("gathered[%d][%d]" % (i, 3 * q + j),
                                gathered[i * 12 + 3 * q + j], w[q][i * 3 + j], 0.0)
        # reduce_scatter along dim 1: rank r keeps columns [3r, 3r + 3).
        for i in range(2):
            for j in range(3):
                terms = [g[q][i * 12 + 3 * r + j] for q in range(n)]
                check.close("scattered[%d][%d]" % (i, j), scattered[i * 3 + j], sum(terms),
                            (U["bf16"] + n * U["f32"]) * sum(abs(t) for t in terms))
        # all_to_all split 0 concat 1: rank r receives rows [2r, 2r + 2) of
        # every rank q, placed at columns [2q, 2q + 2).
        for i in range(2):
            for q in range(n):
                for j in range(2):
                    check.close("exchanged[%d][%d]" % (i, 2 * q + j),
                                exchanged[i * 8 + 2 * q + j], x[q][(2 * r + i) * 2 + j], 0.0)
    return check.finish()


if __name__ == "__main__":
    sys.exit(main())
