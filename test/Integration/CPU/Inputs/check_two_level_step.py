"""Checks one step of prec-fully-shard's SGD step of Inputs/two_level_step.mlir
on 4 ranks against a float64 reference.

Usage: check_two_level_step.py OUTPUT_DIR INTER_HOST_DTYPE

The loss of rank r is L_r = sum_ik (x_r W)_ik t_r,ik / 32, so its gradient is
g_r = x_r^T t_r / 32, and the step's update of rank r's shard (W's rows
4r .. 4r + 3: rank r holds shard r, on the flat mesh and on the grid of 2
hosts x 2 ranks alike) is -lr (g_0 + g_1 + g_2 + g_3) / 4; its loss is the
mean of the L_r. The full W is the ranks' shards in rank order.

Tolerances, first order, from the dtypes (u(f32) = 2^-24, u(bf16) = 2^-8),
doubled to cover the second-order terms:
- prec's g_r: a sum of 4 products in f32 (the factor 1/32 is a power of two,
  exact): e_r = 4 u(f32) sum_i |x_ij t_ik| / 32;
- the average of the g_r in two levels (hosts of ranks {0, 1} and {2, 3}):
  each host's partial sum p_h in f32, rounded once to INTER_HOST_DTYPE
  (u = 0 for f32: an f32 partial sum is not rounded again), the two summed
  in f32, divided by 4 (exact): sum_r e_r + 3 u(f32) sum_r (|g_r| + e_r)
  + u(INTER_HOST_DTYPE) sum_h (|p_h| + e_h), over 4; the one-level average
  of the flat mesh is within the same bound with u = 0;
- the update p - lr g in f32: two roundings, 2 u(f32) (|p| + lr |g|);
- the loss: 16-term dot products, the product with t, 32-term sums in f32 and
  the mean over the ranks: (16 + 1 + 32 + 4) u(f32) times the sum of the
  terms' magnitudes.
With INTER_HOST_DTYPE f32, a step whose partial sums crossed hosts in bf16
fails: its bf16 rounding (about 2^-9 relative) is far outside the f32 bound.

f8E4M3FN partial sums (with a dynamic scale per rank's partial sums) are
rounded once to the fp8 value of p_h / scale: u = (1 + u(f32))^2 (1 + 2^-4)
- 1 with the quotient and the product with the scale in f32; one below the
fp8 normal range after scaling has an absolute error of up to half a
subnormal step times the scale, 2^-10 amax / 448, amax at most the largest
|p_h| + e_h of the step.
"""
import sys

from reference import Checker, UNIT_ROUNDOFF as U, read, rank_file

RANKS, RANKS_PER_HOST = 4, 2
ROWS, COLS, BATCH = 16, 8, 4
SHARD = ROWS // RANKS


def main():
    directory, inter = sys.argv[1], sys.argv[2]
    uf = U["f32"]
    underflow = 0.0
    if inter == "f8E4M3FN":
        ui = (1 + uf) ** 2 * (1 + 2.0**-4) - 1
    else:
        ui = 0.0 if inter == "f32" else U[inter]
    shards, xs, ts, lrs = [], [], [], []
    for r in range(RANKS):
        shards.append(read(rank_file(directory, r, "arg", 0), "f32"))
        xs.append(read(rank_file(directory, r, "arg", 1), "f32"))
        ts.append(read(rank_file(directory, r, "arg", 2), "f32"))
        lrs.append(read(rank_file(directory, r, "arg", 3), "f32")[0])
    w = [v for shard in shards for v in shard]  # ROWS x COLS, rank order

    def x(r, i, j):
        return xs[r][i * ROWS + j]

    def t(r, i, k):
        return ts[r][i * COLS + k]

    grads, errors, losses, loss_terms = [], [], [], []
    for r in range(RANKS):
        g = [[sum(x(r, i, j) * t(r, i, k) for i in range(BATCH)) / 32 for k in range(COLS)]
             for j in range(ROWS)]
        e = [[4 * uf * sum(abs(x(r, i, j) * t(r, i, k)) for i in range(BATCH)) / 32
              for k in range(COLS)] for j in range(ROWS)]
        grads.append(g)
        errors.append(e)
        y = [[sum(x(r, i, j) * w[j * COLS + k] for j in range(ROWS)) for k in range(COLS)]
             for i in range(BATCH)]
        losses.append(sum(y[i][k] * t(r, i, k) for i in range(BATCH) for k in range(COLS)) / 32)
        loss_terms.append(sum(abs(x(r, i, j) * w[j * COLS + k] * t(r, i, k))
                              for i in range(BATCH) for j in range(ROWS)
                              for k in range(COLS)) / 32)

    def host_partials(row, k):
        terms = [grads[q][row][k] for q in range(RANKS)]
        errs = [errors[q][row][k] for q in range(RANKS)]
        hosts = range(RANKS // RANKS_PER_HOST)
        block = [slice(h * RANKS_PER_HOST, (h + 1) * RANKS_PER_HOST) for h in hosts]
        partial = [sum(terms[b]) for b in block]
        partial_errors = [sum(errs[b]) + uf * sum(abs(v) for v in terms[b]) for b in block]
        return terms, errs, partial, partial_errors

    if inter == "f8E4M3FN":
        amax = max(abs(p) + e for row in range(ROWS) for k in range(COLS)
                   for p, e in zip(*host_partials(row, k)[2:]))
        underflow = 2.0**-10 * amax / 448

    check = Checker("two-level step (partial sums across hosts in %s)" % inter)
    mean_loss = sum(losses) / RANKS
    loss_tolerance = 2 * (16 + 1 + 32 + 4) * uf * sum(loss_terms) / RANKS
    for r in range(RANKS):
        new = read(rank_file(directory, r, "result", 0), "f32")
        loss = read(rank_file(directory, r, "result", 1), "f32")[0]
        check.close("rank %d loss" % r, loss, mean_loss, loss_tolerance)
        lr = lrs[r]
        for i in range(SHARD):
            row = r * SHARD + i
            for k in range(COLS):
                terms, errs, partial, partial_errors = host_partials(row, k)
                grad = sum(terms) / RANKS
                grad_error = (sum(errs) + 3 * uf * sum(abs(v) + e for v, e in zip(terms, errs))
                              + ui * sum(abs(p) + e for p, e in zip(partial, partial_errors))
                              + underflow * len(partial)) / RANKS
                old = shards[r][i * COLS + k]
                tolerance = 2 * (lr * grad_error + 2 * uf * (abs(old) + lr * (abs(grad)
                                                                                + grad_error)))
                # The update itself, so that a step that changes nothing fails.
                check.close("rank %d w[%d][%d] - old" % (r, row, k), new[i * COLS + k] - old,
                            -lr * grad, tolerance)
    return check.finish()


if __name__ == "__main__":
    sys.exit(main())
