"""Checks collectives.mlir's results against a float64 reference.

Usage: check_collectives.py OUTPUT_DIR NUM_RANKS
"""
import sys

from reference import Checker, UNIT_ROUNDOFF as U, read, rank_file, round_to


def main():
    directory, n = sys.argv[1], int(sys.argv[2])
    args = [[read(rank_file(directory, r, "arg", 0), "f32"),
             read(rank_file(directory, r, "arg", 1), "f32"),
             read(rank_file(directory, r, "arg", 2), "f32")[0]] for r in range(n)]
    results = [[read(rank_file(directory, r, "result", 0), "f32"),
                read(rank_file(directory, r, "result", 1), "bf16"),
                read(rank_file(directory, r, "result", 2), "f32"),
                read(rank_file(directory, r, "result", 3), "f32"),
                read(rank_file(directory, r, "result", 4), "f16")] for r in range(n)]
    check = Checker("collectives on %d ranks" % n)
    shard = len(args[0][0])  # elements of one shard: 2x4
    for r in range(n):
        w, g, lr = args[r]
        next_w, gathered, grad, ring_sum, summed16 = results[r]
        # all_gather in bf16: every rank holds bf16(w_q) of every rank q,
        # each value rounded once: exact equality.
        for q in range(n):
            for i in range(shard):
                check.close("gathered[%d][%d]" % (q, i), gathered[q * shard + i],
                            round_to(args[q][0][i], "bf16"), 0.0)
        # reduce_scatter avg, bf16 wire, f32 accumulation (direct): each
        # input rounded once to bf16, the sum of n terms in f32, one divide.
        for i in range(shard):
            terms = [args[q][1][r * shard + i] for q in range(n)]
            want = sum(terms) / n
            magnitude = sum(abs(t) for t in terms) / n
            tolerance = (U["bf16"] + (n + 1) * U["f32"]) * magnitude
            check.close("grad[%d]" % i, grad[i], want, tolerance)
            # sgd: next = w - lr * grad in f32.
            update = w[i] - lr * want
            check.close("next_w[%d]" % i, next_w[i], update,
                        abs(lr) * tolerance + 2 * U["f32"] * (abs(w[i]) + abs(lr * want)))
        # all_reduce sum in f32 with f32 accumulation: the backend's ring.
        for i in range(len(ring_sum)):
            terms = [args[q][1][i] for q in range(n)]
            check.close("ring_sum[%d]" % i, ring_sum[i], sum(terms),
                        (n + 1) * U["f32"] * sum(abs(t) for t in terms))
        # all_reduce sum with f16 wire and f16 accumulation: rounded at every
        # one of the n - 1 steps, as NCCL's ring (the lossy path).
        for i in range(len(summed16)):
            terms = [args[q][1][i] for q in range(n)]
            check.close("summed16[%d]" % i, summed16[i], sum(terms),
                        (n + 1) * U["f16"] * sum(abs(t) for t in terms))
    return check.finish()


if __name__ == "__main__":
    sys.exit(main())
