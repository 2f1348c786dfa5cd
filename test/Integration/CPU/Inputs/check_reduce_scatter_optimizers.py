"""Checks reduce_scatter_optimizers.mlir on N ranks against float64.

Usage: check_reduce_scatter_optimizers.py OUTPUT_DIR N

The reduced gradients: rank r's slice of each rank's input, rounded to bf16
(the wire), combined over the ranks. The maximum of wire values is exact
(tolerance 0). The sums feed the optimizers, which are compared with
float64 AdamW and SGD evaluated on the gradient as the contract defines it
(the wire values added in f32 in rank order, emulated exactly here), with
check_optimizers.py's tolerances: 16 u_f32 times the magnitudes of the
terms, and u_bf16 more for the bf16 shard. A block placed at another
offset, or a rank's slice taken from the wrong rows or columns, changes
the gradients by their own magnitude.
"""
import math
import sys

from reference import Checker, UNIT_ROUNDOFF as U, read, rank_file, round_to

ROWS, COLS = 37, 24  # the AdamW shard: scatter axis 0
ROWS2, COLS2 = 24, 13  # the SGD shard: scatter axis 1
OUTER5, ROWS5, COLS5 = 2, 8, 48  # the last SGD shard: scatter axis 1 of 3


def wire(values):
    return [round_to(x, "bf16") for x in values]


def main():
    d, n = sys.argv[1], int(sys.argv[2])
    check = Checker("reduce_scatter_optimizers")
    g = [wire(read(rank_file(d, s, "arg", 1), "f32")) for s in range(n)]
    g2 = [wire(read(rank_file(d, s, "arg", 5), "f32")) for s in range(n)]
    g5 = [wire(read(rank_file(d, s, "arg", 8), "f32")) for s in range(n)]
    beta1, beta2, eps, wd = 0.9, 0.99, 1e-3, 0.1
    tol = 16 * U["f32"]
    for r in range(n):
        p = read(rank_file(d, r, "arg", 0), "f32")
        m = read(rank_file(d, r, "arg", 2), "f32")
        v = [round_to(x * x, "f32") for x in read(rank_file(d, r, "arg", 3), "f32")]
        w2 = read(rank_file(d, r, "arg", 4), "f32")
        w5 = read(rank_file(d, r, "arg", 9), "f32")
        lr = read(rank_file(d, r, "arg", 6), "f32")[0]
        step = read(rank_file(d, r, "arg", 7), "f32")[0]
        out = [read(rank_file(d, r, "result", i), dtype)
               for i, dtype in enumerate(["f32", "f32", "f32", "bf16", "f32", "f32", "f32", "f32"])]
        # AdamW on rows [37 r, 37 (r + 1)) of the 37 N x 24 inputs.
        for i in range(ROWS * COLS):
            terms = [g[s][r * ROWS * COLS + i] for s in range(n)]
            grad = 0.0
            for t in terms:
                grad = round_to(grad + t, "f32")
            m1 = beta1 * m[i] + (1 - beta1) * grad
            v1 = beta2 * v[i] + (1 - beta2) * grad * grad
            check.close("exp_avg[rank %d, %d]" % (r, i), out[1][i], m1,
                        tol * (abs(beta1 * m[i]) + abs((1 - beta1) * grad)))
            check.close("exp_avg_sq[rank %d, %d]" % (r, i), out[2][i], v1,
                        tol * (abs(beta2 * v[i]) + (1 - beta2) * grad * grad))
            update = lr * (m1 / (1 - beta1 ** step)) / (math.sqrt(v1 / (1 - beta2 ** step)) + eps)
            want = p[i] * (1 - lr * wd) - update
            magnitude = abs(p[i]) + abs(update)
            check.close("param[rank %d, %d]" % (r, i), out[0][i], want, tol * magnitude)
            check.close("shard[rank %d, %d]" % (r, i), out[3][i], want,
                        U["bf16"] * abs(want) + tol * magnitude)
        # SGD and the maximum on columns [13 r, 13 (r + 1)) of 24 x 13 N.
        for i in range(ROWS2):
            for j in range(COLS2):
                at = i * COLS2 * n + r * COLS2 + j
                terms = [g2[s][at] for s in range(n)]
                grad = 0.0
                for t in terms:
                    grad = round_to(grad + t, "f32")
                k = i * COLS2 + j
                want = w2[k] - lr * (grad + 0.5 * w2[k])
                check.close("sgd[rank %d, %d, %d]" % (r, i, j), out[4][k], want,
                            tol * (abs(w2[k]) + abs(lr * grad) + abs(lr * 0.5 * w2[k])))
                check.close("max[rank %d, %d, %d]" % (r, i, j), out[5][k], max(terms), 0.0)
        # SGD on rows [8 r, 8 (r + 1)) of dimension 1 of 2 x 8 N x 48.
        for o in range(OUTER5):
            for i in range(ROWS5):
                for j in range(COLS5):
                    at = (o * ROWS5 * n + r * ROWS5 + i) * COLS5 + j
                    grad = 0.0
                    for t in [g5[s][at] for s in range(n)]:
                        grad = round_to(grad + t, "f32")
                    k = (o * ROWS5 + i) * COLS5 + j
                    want = w5[k] - lr * (grad + 0.5 * w5[k])
                    check.close("sgd3[rank %d, %d, %d, %d]" % (r, o, i, j), out[7][k], want,
                                tol * (abs(w5[k]) + abs(lr * grad) + abs(lr * 0.5 * w5[k])))
    return check.finish()


if __name__ == "__main__":
    sys.exit(main())
