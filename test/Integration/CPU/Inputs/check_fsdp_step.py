"""Checks one step of examples/fsdp_step.mlir against a float64 reference.

Usage: check_fsdp_step.py OUTPUT_DIR NUM_RANKS COMPUTE_DTYPE [GATHER]

COMPUTE_DTYPE is bf16 for the example as written, or f32 for the same
program with every bf16 replaced by f32, whose much tighter tolerance
catches any error in the backward pass or the averaging. GATHER is how the
weights travel: COMPUTE_DTYPE itself by default; fp8-dynamic for
examples/fp8_fsdp_step.mlir (f8E4M3FN, one scale per matrix from the amax
over all ranks) and fp8-blockB for its MX variant (a power-of-two scale per
B weights of a row); the gathered weights are then modelled bit for bit by
fp8_reference.py and dequantized to COMPUTE_DTYPE. fp8-delayed is
examples/fp8_delayed_step.mlir: one scale per matrix from the largest amax
of the 2x16 history (argument 2, before x, target and lr), whose update
(result 2, before the loss) must be exact: this step's amax of each whole
matrix, then the history's first 15 entries.

The reference recomputes the step from every rank's arguments: gather the
bf16-rounded weight shards, forward, the backward pass derived by hand (not
by prec-generate-backward), the averaged gradient shards and SGD. Along the
way prec rounds a few intermediates to bf16 (h and the bf16 gradients of
the bf16 values); the reference keeps them in float64 and instead carries,
for every value, a bound on prec's error propagated from the values
themselves (see main). A bound from the magnitudes of whole expressions
(the same expression on absolute values) would be thousands of times
larger than the errors in bf16, larger than the update itself: the update
(new - old weights) is compared, and it must be told from zero.
"""
import sys

import fp8_reference as fp8
from reference import Checker, UNIT_ROUNDOFF as U, read, rank_file, round_to

BATCH, HIDDEN, OUT = 8, 64, 16


def matmul(a, b, rows, inner, cols):
    return [[sum(a[i][k] * b[k][j] for k in range(inner)) for j in range(cols)]
            for i in range(rows)]


def transpose(a):
    return [list(row) for row in zip(*a)]


def rows_of(flat, cols):
    return [flat[i:i + cols] for i in range(0, len(flat), cols)]


def absolute(a):
    return [[abs(v) for v in row] for row in a]


def main():
    directory, n, compute = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    gather = sys.argv[4] if len(sys.argv) > 4 else compute
    shard1, shard2 = HIDDEN // n, HIDDEN // n
    delayed = gather == "fp8-delayed"
    first = 3 if delayed else 2  # x, target and lr follow the history
    args = []
    for r in range(n):
        args.append({
            "w1": rows_of(read(rank_file(directory, r, "arg", 0), "f32"), HIDDEN),
            "w2": rows_of(read(rank_file(directory, r, "arg", 1), "f32"), OUT),
            "x": rows_of(read(rank_file(directory, r, "arg", first), compute), HIDDEN),
            "t": rows_of(read(rank_file(directory, r, "arg", first + 1), "f32"), OUT),
            "lr": read(rank_file(directory, r, "arg", first + 2), "f32")[0],
        })
    history = (rows_of(read(rank_file(directory, 0, "arg", 2), "f32"), 16)
               if delayed else None)
    # The gathered weights: every shard rounded once to the compute dtype,
    # or quantized to fp8 and dequantized to it.
    def gathered(key):
        rows = [row for a in args for row in a[key]]
        if gather == compute:
            return [[round_to(v, compute) for v in row] for row in rows]
        name = "f8E4M3FN"
        if gather in ("fp8-dynamic", "fp8-delayed"):
            if delayed:
                scale = fp8.tensor_scale(max(history[0 if key == "w1" else 1]), name)
            else:
                scale = fp8.tensor_scale(fp8.amax([v for row in rows for v in row]), name)
            scales = [[scale] * len(row) for row in rows]
        else:
            block = int(gather[len("fp8-block"):])
            scales = [[fp8.block_scale(fp8.amax(row[j - j % block:j - j % block + block]), name)
                       for j in range(len(row))] for row in rows]
        return [[round_to(fp8.dequantize(fp8.quantize(v, s, name), s, name), compute)
                 for v, s in zip(row, row_scales)]
                for row, row_scales in zip(rows, scales)]

    w1, w2 = gathered("w1"), gathered("w2")

    # Every value v of prec's computation comes with a bound e on
    # |prec's v - exact v|, propagated to first order from the values
    # themselves (not from magnitudes of whole expressions): an f32 sum of
    # k products is off by at most k u_f32 times the sum of their absolute
    # values; each rounding to the compute dtype c adds u_c (|v| + e); a
    # product adds |a| e_b + e_a |b|. The gathered weights are exact (the
    # reference rounds or quantizes them as prec does). Values that prec may
    # hold in c (dy, dh and the weight gradients, whose gathered weights are
    # c values) are taken as rounded to c.
    uf, uc = U["f32"], U[compute]

    def rounded(v, e, u):
        return [[ei + u * (abs(vi) + ei) for vi, ei in zip(vr, er)] for vr, er in zip(v, e)]

    def plus(*terms):
        return [[sum(t[i][j] for t in terms) for j in range(len(terms[0][0]))]
                for i in range(len(terms[0]))]

    def times(a, c):
        return [[c * v for v in row] for row in a]

    losses, loss_errors, dw1, dw2, dw1_err, dw2_err = [], [], [], [], [], []
    scale = 2.0 / (BATCH * OUT)  # d mean(err^2) / d err
    for a in args:
        x, ax = a["x"], absolute(a["x"])
        h = matmul(x, w1, BATCH, HIDDEN, HIDDEN)
        e_h = times(matmul(ax, absolute(w1), BATCH, HIDDEN, HIDDEN), HIDDEN * uf)
        e_h = rounded(h, e_h, uc)
        ah = plus(absolute(h), e_h)
        y = matmul(h, w2, BATCH, HIDDEN, OUT)
        e_y = plus(matmul(e_h, absolute(w2), BATCH, HIDDEN, OUT),
                   times(matmul(ah, absolute(w2), BATCH, HIDDEN, OUT), HIDDEN * uf))
        err = [[y[i][j] - a["t"][i][j] for j in range(OUT)] for i in range(BATCH)]
        e_err = rounded(err, e_y, uf)
        losses.append(sum(e * e for row in err for e in row) / (BATCH * OUT))
        loss_errors.append(sum(2 * abs(v) * ev + ev * ev for row, erow in zip(err, e_err)
                               for v, ev in zip(row, erow)) / (BATCH * OUT)
                           + BATCH * OUT * uf * losses[-1])
        dy = [[scale * e for e in row] for row in err]
        e_dy = rounded(dy, rounded(dy, times(e_err, scale), uf), uc)
        ady = plus(absolute(dy), e_dy)
        g2 = matmul(transpose(h), dy, HIDDEN, BATCH, OUT)
        e_g2 = plus(matmul(transpose(e_h), absolute(dy), HIDDEN, BATCH, OUT),
                    matmul(transpose(absolute(h)), e_dy, HIDDEN, BATCH, OUT),
                    times(matmul(transpose(ah), ady, HIDDEN, BATCH, OUT), BATCH * uf))
        dw2.append(g2)
        dw2_err.append(rounded(g2, e_g2, uc))
        dh = matmul(dy, transpose(w2), BATCH, OUT, HIDDEN)
        e_dh = plus(matmul(e_dy, transpose(absolute(w2)), BATCH, OUT, HIDDEN),
                    times(matmul(ady, transpose(absolute(w2)), BATCH, OUT, HIDDEN), OUT * uf))
        e_dh = rounded(dh, e_dh, uc)
        g1 = matmul(transpose(x), dh, HIDDEN, BATCH, HIDDEN)
        e_g1 = plus(matmul(transpose(ax), e_dh, HIDDEN, BATCH, HIDDEN),
                    times(matmul(transpose(ax), plus(absolute(dh), e_dh), HIDDEN, BATCH,
                                 HIDDEN), BATCH * uf))
        dw1.append(g1)
        dw1_err.append(rounded(g1, e_g1, uc))

    # Twice the first-order bound covers the second-order terms it drops.
    check = Checker("fsdp_step in %s (gathered as %s) on %d ranks" % (compute, gather, n))
    mean_loss = sum(losses) / n
    loss_tolerance = 2 * (sum(loss_errors) / n + (n + 1) * uf * mean_loss)
    for r in range(n):
        new_w1 = rows_of(read(rank_file(directory, r, "result", 0), "f32"), HIDDEN)
        new_w2 = rows_of(read(rank_file(directory, r, "result", 1), "f32"), OUT)
        loss = read(rank_file(directory, r, "result", 3 if delayed else 2), "f32")[0]
        if delayed:
            got = rows_of(read(rank_file(directory, r, "result", 2), "f32"), 16)
            for k, key in enumerate(("w1", "w2")):
                amax = fp8.amax([v for a in args for row in a[key] for v in row])
                want = [amax] + history[k][:15]
                for j in range(16):
                    check.close("rank %d history[%d][%d]" % (r, k, j), got[k][j],
                                want[j], 0.0)
        lr = args[r]["lr"]
        check.close("rank %d loss" % r, loss, mean_loss, loss_tolerance)
        for name, new, old, grads, errors, shard, cols in (
                ("w1", new_w1, args[r]["w1"], dw1, dw1_err, shard1, HIDDEN),
                ("w2", new_w2, args[r]["w2"], dw2, dw2_err, shard2, OUT)):
            for i in range(shard):
                row = r * shard + i
                for j in range(cols):
                    # The average over the ranks, summed in f32.
                    grad = sum(g[row][j] for g in grads) / n
                    grad_error = (sum(e[row][j] for e in errors)
                                  + (n + 1) * uf * sum(abs(g[row][j]) + e[row][j]
                                                       for g, e in zip(grads, errors))) / n
                    want = old[i][j] - lr * grad
                    tolerance = 2 * (abs(lr) * grad_error + 2 * uf * (
                        abs(old[i][j]) + abs(lr) * (abs(grad) + grad_error)))
                    # The update itself is compared, so that a result that
                    # only copies the old weights cannot pass.
                    check.close("rank %d %s[%d][%d] - old" % (r, name, i, j),
                                new[i][j] - old[i][j], want - old[i][j], tolerance)
    return check.finish()


if __name__ == "__main__":
    sys.exit(main())
