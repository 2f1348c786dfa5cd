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
for every value, the magnitude it was computed from (the same expression on
absolute values). The tolerance is (4 u_c + 128 u_f32) * magnitude: at most
four roundings to the compute dtype c on any path and f32 sums of up to 128
terms.
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

    losses, dw1, dw2, dw1_mag, dw2_mag = [], [], [], [], []
    scale = 2.0 / (BATCH * OUT)  # d mean(err^2) / d err
    for a in args:
        h = matmul(a["x"], w1, BATCH, HIDDEN, HIDDEN)
        h_mag = matmul(absolute(a["x"]), absolute(w1), BATCH, HIDDEN, HIDDEN)
        y = matmul(h, w2, BATCH, HIDDEN, OUT)
        y_mag = matmul(h_mag, absolute(w2), BATCH, HIDDEN, OUT)
        err = [[y[i][j] - a["t"][i][j] for j in range(OUT)] for i in range(BATCH)]
        err_mag = [[y_mag[i][j] + abs(a["t"][i][j]) for j in range(OUT)] for i in range(BATCH)]
        losses.append(sum(e * e for row in err for e in row) / (BATCH * OUT))
        dy = [[scale * e for e in row] for row in err]
        dy_mag = [[scale * e for e in row] for row in err_mag]
        dw2.append(matmul(transpose(h), dy, HIDDEN, BATCH, OUT))
        dw2_mag.append(matmul(transpose(h_mag), dy_mag, HIDDEN, BATCH, OUT))
        dh = matmul(dy, transpose(w2), BATCH, OUT, HIDDEN)
        dh_mag = matmul(dy_mag, transpose(absolute(w2)), BATCH, OUT, HIDDEN)
        dw1.append(matmul(transpose(a["x"]), dh, HIDDEN, BATCH, HIDDEN))
        dw1_mag.append(matmul(transpose(absolute(a["x"])), dh_mag, HIDDEN, BATCH, HIDDEN))

    check = Checker("fsdp_step in %s (gathered as %s) on %d ranks" % (compute, gather, n))
    relative = (4 if compute != "f32" else 0) * U[compute] + 128 * U["f32"]
    mean_loss = sum(losses) / n
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
        # The loss terms are squares: their own magnitude bounds them.
        check.close("rank %d loss" % r, loss, mean_loss, 2 * relative * mean_loss)
        for name, new, old, grads, mags, shard, cols in (
                ("w1", new_w1, args[r]["w1"], dw1, dw1_mag, shard1, HIDDEN),
                ("w2", new_w2, args[r]["w2"], dw2, dw2_mag, shard2, OUT)):
            for i in range(shard):
                row = r * shard + i
                for j in range(cols):
                    grad = sum(g[row][j] for g in grads) / n
                    magnitude = sum(m[row][j] for m in mags) / n
                    want = old[i][j] - lr * grad
                    tolerance = (abs(lr) * relative * magnitude
                                 + 2 * U["f32"] * (abs(old[i][j]) + abs(lr * grad)))
                    check.close("rank %d %s[%d][%d]" % (r, name, i, j),
                                new[i][j], want, tolerance)
    return check.finish()


if __name__ == "__main__":
    sys.exit(main())
