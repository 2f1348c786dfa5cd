"""Checks examples/shard_matmul.mlir (partitioned, 4 ranks) in float64.

Every rank got the same A (8x6), B (6x4) and bias (8x4) and must return
D = A @ B + bias. The partitioned program multiplies 3-column slices in f32,
rounds each partial product to the wire dtype, sums the two partials in f32
and adds the bias in f32.

Usage: check_shard_matmul.py OUTPUT_DIR WIRE_DTYPE
"""
import sys

from reference import Checker, UNIT_ROUNDOFF as U, read, rank_file

M, K, N = 8, 6, 4
RANKS = 4


def main():
    directory, wire = sys.argv[1], sys.argv[2]
    a, b, bias = (read(rank_file(directory, 0, "arg", i), "f32") for i in range(3))
    check = Checker("shard_matmul on %d ranks, %s wire" % (RANKS, wire))
    for r in range(RANKS):
        # Replicated arguments: the reference is only meaningful if they are.
        for i in range(3):
            if read(rank_file(directory, r, "arg", i), "f32") != [a, b, bias][i]:
                print("rank %d: argument %d is not replicated" % (r, i))
                return 1
        d = read(rank_file(directory, r, "result", 0), "f32")
        for i in range(M):
            for j in range(N):
                products = [a[i * K + k] * b[k * N + j] for k in range(K)]
                want = sum(products) + bias[i * N + j]
                magnitude = sum(abs(p) for p in products)
                # Partial sums of K/2 terms in f32, each rounded once to the
                # wire, two partials summed in f32, then the bias added.
                tolerance = ((U[wire] + (K // 2 + 2) * U["f32"]) * magnitude
                             + 2 * U["f32"] * (abs(want) + abs(bias[i * N + j])))
                check.close("rank %d d[%d][%d]" % (r, i, j), d[i * N + j], want,
                            tolerance)
    return check.finish()


if __name__ == "__main__":
    sys.exit(main())
