"""Checks one step of examples/hsdp_microbatch.mlir against a float64 reference.

Usage: check_hsdp_microbatch.py OUTPUT_DIR REPLICAS SHARDS

The grid is REPLICAS x SHARDS (replicate axis 0, shard axis 1); rank j has
coordinates (j // SHARDS, j % SHARDS). The reference recomputes, from every
rank's arguments, both microbatches' gradients g1, g2 of every rank (forward
with the bf16-rounded gathered weight, backward derived by hand), then the
gradient every rank must end with,

    (1 / (REPLICAS * SHARDS)) * sum over all ranks of (g1 + g2)

restricted to its shard, and the SGD update of its master shard. It does not
assume that the replicas of a shard hold equal values: every rank's weight
is gathered from its own shard group.

Tolerances: a gradient element is computed in f32 from 64 products (y) and
4 products (x^T dy); the reduction sums SHARDS terms, 2 microbatches and
REPLICAS terms in f32 and divides by a power of two. First order, the error
is at most (64 + 4 + SHARDS + REPLICAS + 4) u_f32 times the same expression
on absolute values (the magnitude the reference carries along).

When a rank's gradient is wrong, the checker also tests it against the naive
order, (1/SHARDS) sum_S g1 + (1/(REPLICAS*SHARDS)) sum_all g2, and says so.
"""
import sys

from reference import Checker, UNIT_ROUNDOFF as U, read, rank_file, round_to

MICROBATCHES, BATCH, IN, OUT = 2, 4, 64, 16


def main():
    directory, replicas, shards = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    n = replicas * shards
    rows = IN // shards

    def slices(flat, *shape):
        if len(shape) == 1:
            return flat
        step = len(flat) // shape[0]
        return [slices(flat[k * step:(k + 1) * step], *shape[1:]) for k in range(shape[0])]

    args = []
    for j in range(n):
        args.append({
            "w": slices(read(rank_file(directory, j, "arg", 0), "f32"), rows, OUT),
            "x": slices(read(rank_file(directory, j, "arg", 1), "f32"), MICROBATCHES, BATCH, IN),
            "t": slices(read(rank_file(directory, j, "arg", 2), "f32"), MICROBATCHES, BATCH, OUT),
            "lr": read(rank_file(directory, j, "arg", 3), "f32")[0],
        })

    # Every rank's microbatch gradients grads[j][k][i][o] and magnitudes.
    grads, mags = [], []
    for j in range(n):
        replica = j // shards
        w = [[round_to(v, "bf16") for v in row]
             for q in range(shards) for row in args[replica * shards + q]["w"]]
        grads.append([]), mags.append([])
        for k in range(MICROBATCHES):
            x, t = args[j]["x"][k], args[j]["t"][k]
            dy, dy_mag = [], []
            for b in range(BATCH):
                y = [sum(x[b][i] * w[i][o] for i in range(IN)) for o in range(OUT)]
                y_mag = [sum(abs(x[b][i] * w[i][o]) for i in range(IN)) for o in range(OUT)]
                dy.append([(y[o] - t[b][o]) / 64 for o in range(OUT)])
                dy_mag.append([(y_mag[o] + abs(t[b][o])) / 64 for o in range(OUT)])
            grads[j].append([[sum(x[b][i] * dy[b][o] for b in range(BATCH)) for o in range(OUT)]
                             for i in range(IN)])
            mags[j].append([[sum(abs(x[b][i]) * dy_mag[b][o] for b in range(BATCH))
                             for o in range(OUT)] for i in range(IN)])

    relative = (IN + BATCH + shards + replicas + 4) * U["f32"]
    check = Checker("hsdp_microbatch on %dx%d ranks" % (replicas, shards))
    naive_ranks = []
    for j in range(n):
        replica, shard = j // shards, j % shards
        group = [replica * shards + q for q in range(shards)]
        grad = slices(read(rank_file(directory, j, "result", 1), "f32"), rows, OUT)
        w_next = slices(read(rank_file(directory, j, "result", 0), "f32"), rows, OUT)
        lr = args[j]["lr"]
        failures = check.failures
        naive = True
        for i in range(rows):
            row = shard * rows + i
            for o in range(OUT):
                want = sum(g[k][row][o] for g in grads for k in range(MICROBATCHES)) / n
                magnitude = sum(m[k][row][o] for m in mags for k in range(MICROBATCHES)) / n
                tolerance = relative * magnitude
                check.close("rank %d grad[%d][%d]" % (j, i, o), grad[i][o], want, tolerance)
                naive_want = (sum(grads[q][0][row][o] for q in group) / shards
                              + sum(g[1][row][o] for g in grads) / n)
                naive_magnitude = (sum(mags[q][0][row][o] for q in group) / shards
                                   + sum(m[1][row][o] for m in mags) / n)
                naive &= abs(grad[i][o] - naive_want) <= relative * naive_magnitude
                old = args[j]["w"][i][o]
                check.close("rank %d w_next[%d][%d]" % (j, i, o), w_next[i][o], old - lr * want,
                            abs(lr) * tolerance + 2 * U["f32"] * (abs(old) + abs(lr * want)))
        if check.failures > failures and naive:
            naive_ranks.append(j)
    if naive_ranks:
        print("%s: the wrong gradients of %d of %d ranks match the naive order "
              "(1/%d) sum_S g1 + (1/%d) sum_all g2"
              % (check.name, len(naive_ranks), n, shards, n))
    return check.finish()


if __name__ == "__main__":
    sys.exit(main())
