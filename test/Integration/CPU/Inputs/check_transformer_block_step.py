"""Runs and checks examples/transformer_block_step.mlir against float64.

Usage: check_transformer_block_step.py PREC_RUN MODULE WORK_DIR RANKS DTYPE
           [SHARDS MICROBATCHES]

Runs one step of MODULE on RANKS ranks with zero AdamW moments and step 1,
the parameters sharded over SHARDS ranks (default: all; fewer for HSDP,
whose RANKS / SHARDS replicas get the same parameters) and each rank's
tokens split into MICROBATCHES microbatches (default 1) whose losses are
averaged,
then recomputes it in float64 from every rank's arguments: the gathered
weights, the forward pass of both blocks, the backward pass derived by hand
here (not by prec-generate-backward), the gradients averaged over the
ranks, and AdamW. DTYPE is the compute dtype of the module: bf16 as written,
or f32 for the same program with every bf16 replaced by f32.

The reference rounds to DTYPE where the program's types do: the gathered
weights, the normalized activations n and the SiLU outputs a, and the
gradients of those bf16 values (PyTorch's rule, which prec follows: the
gradient of a value has its type), the weight gradients included. What is
left is f32 accumulation (at most 64 terms a sum) and, in bf16, roundings
that land on the other side of a tie because the value rounded differs in
its last f32 bits.

Checked, per parameter tensor, with g the reference gradient:
- the first moment m' = (1 - beta1) g (AdamW from zero moments), against
  the tolerance K u max|g|, K = 64 for f32 (u = 2^-24: a few dozen
  roundings along a gradient's path), K = 4 for bf16 (u = 2^-8: a flipped
  rounding of an activation or gradient moves a gradient by less than u of
  the largest);
- the second moment v' = (1 - beta2) g^2, to twice that relative;
- the updated parameter: AdamW's first step is p (1 - lr wd) - lr sign(g)
  up to eps; where |g| exceeds the gradient tolerance the sign is
  certain, and the parameter must match to lr 2^-10 plus its own rounding.
"""
import math
import os
import struct
import subprocess
import sys

from reference import Checker, UNIT_ROUNDOFF as U, read, rank_file, round_to

D, H, B = 16, 32, 8
EPS = 1e-6
LR, BETA1, BETA2, ADAM_EPS, WD = 0.01, 0.9, 0.999, 1e-8, 1e-2
# Per parameter: name, full shape (rows, columns; columns 1 for vectors).
PARAMS = [("g0", D, 1), ("w1_0", D, H), ("w2_0", H, D),
          ("g1", D, 1), ("w1_1", D, H), ("w2_1", H, D)]


def matmul(a, b):
    inner, cols = len(b), len(b[0])
    return [[sum(row[k] * b[k][j] for k in range(inner)) for j in range(cols)]
            for row in a]


def transpose(a):
    return [list(row) for row in zip(*a)]


def rows_of(flat, cols):
    return [flat[i:i + cols] for i in range(0, len(flat), cols)]


def sigmoid(v):
    return 1 / (1 + math.exp(-v))


def run(prec_run, module, work, ranks, shards):
    os.makedirs(work, exist_ok=True)
    command = [prec_run, module, "--ranks", str(ranks), "--print", "none",
               "--output-dir", work, "--scalar", "18=1", "--scalar", "21=%r" % LR]
    if shards != ranks:
        command += ["--replicate=%d" % i for i in range(6)]
    for index, (_, rows, cols) in enumerate(PARAMS * 2):
        path = os.path.join(work, "zeros%d.bin" % (6 + index))
        count = rows * cols // shards
        with open(path, "wb") as out:
            out.write(struct.pack("<%df" % count, *([0.0] * count)))
        command += ["--arg", "%d=%s" % (6 + index, path)]
    subprocess.run(command, check=True)


def main():
    prec_run, module, work, ranks, dtype = sys.argv[1:6]
    ranks = int(ranks)
    shards = int(sys.argv[6]) if len(sys.argv) > 6 else ranks
    microbatches = int(sys.argv[7]) if len(sys.argv) > 7 else 1
    run(prec_run, module, work, ranks, shards)
    rnd = (lambda v: v) if dtype == "f32" else (lambda v: round_to(v, dtype))

    def rnd_matrix(a):
        return [[rnd(v) for v in row] for row in a]

    # The full parameters: rank r holds shard r % SHARDS, rows [k s, (k + 1) s).
    held = [[read(rank_file(work, r, "arg", i), "f32") for i in range(6)]
            for r in range(ranks)]
    params = []
    for i, (_, rows, cols) in enumerate(PARAMS):
        flat = [v for r in range(shards) for v in held[r][i]]
        params.append(rows_of(flat, cols))
    gathered = [rnd_matrix(p) for p in params]

    gradients = [[[0.0] * cols for _ in range(rows)] for _, rows, cols in PARAMS]
    for r, mb in [(r, mb) for r in range(ranks) for mb in range(microbatches)]:
        x = rows_of(read(rank_file(work, r, "arg", 19), "f32"), D)[mb * B:(mb + 1) * B]
        target = rows_of(read(rank_file(work, r, "arg", 20), "f32"), D)[mb * B:(mb + 1) * B]
        # Forward, keeping what the backward pass needs.
        saved = []
        for block in range(2):
            gain, w1, w2 = (gathered[3 * block + k] for k in range(3))
            r_t = [(sum(v * v for v in row) / D + EPS) ** -0.5 for row in x]
            n = [[rnd(x[t][f] * r_t[t] * gain[f][0]) for f in range(D)] for t in range(B)]
            h = matmul(n, w1)
            a = [[rnd(v * sigmoid(v)) for v in row] for row in h]
            y = matmul(a, w2)
            saved.append((x, r_t, n, h, a))
            x = [[x[t][f] + y[t][f] for f in range(D)] for t in range(B)]
        # Backward, by hand.
        dx = [[2 * (x[t][f] - target[t][f]) / (B * D * microbatches) for f in range(D)]
              for t in range(B)]
        for block in (1, 0):
            gain, w1, w2 = (gathered[3 * block + k] for k in range(3))
            xb, r_t, n, h, a = saved[block]
            dw2 = rnd_matrix(matmul(transpose(a), dx))
            da = rnd_matrix(matmul(dx, transpose(w2)))
            dh = [[da[t][j] * sigmoid(h[t][j]) * (1 + h[t][j] * (1 - sigmoid(h[t][j])))
                   for j in range(H)] for t in range(B)]
            dw1 = rnd_matrix(matmul(transpose(n), dh))
            dn = rnd_matrix(matmul(dh, transpose(w1)))
            dgain = [[rnd(sum(dn[t][f] * xb[t][f] * r_t[t] for t in range(B)))]
                     for f in range(D)]
            u = [[dn[t][f] * gain[f][0] for f in range(D)] for t in range(B)]
            dx_norm = []
            for t in range(B):
                dot = sum(u[t][f] * xb[t][f] for f in range(D))
                dx_norm.append([r_t[t] * u[t][f] - r_t[t] ** 3 / D * xb[t][f] * dot
                                for f in range(D)])
            for k, grad in enumerate((dgain, dw1, dw2)):
                total = gradients[3 * block + k]
                for i, row in enumerate(grad):
                    for j, v in enumerate(row):
                        total[i][j] += v / ranks
            dx = [[dx[t][f] + dx_norm[t][f] for f in range(D)] for t in range(B)]

    u = U[dtype]
    k = 64 if dtype == "f32" else 4
    check = Checker("transformer block step, %d ranks, %d shards, %d microbatches, %s"
                    % (ranks, shards, microbatches, dtype))
    for i, (name, rows, cols) in enumerate(PARAMS):
        shard_rows = rows // shards
        largest = max(abs(v) for row in gradients[i] for v in row)
        tolerance = k * u * largest
        for r in range(ranks):
            m = read(rank_file(work, r, "result", 6 + i), "f32")
            v = read(rank_file(work, r, "result", 12 + i), "f32")
            p = read(rank_file(work, r, "result", i), "f32")
            for e in range(shard_rows * cols):
                row = r % shards * shard_rows + e // cols
                g, p0 = gradients[i][row][e % cols], params[i][row][e % cols]
                what = "rank %d %s[%d]" % (r, name, e)
                check.close(what + " m", m[e], (1 - BETA1) * g, (1 - BETA1) * tolerance)
                check.close(what + " v", v[e], (1 - BETA2) * g * g,
                            (1 - BETA2) * (2 * abs(g) * tolerance + tolerance ** 2)
                            + U["f32"] * (1 - BETA2) * g * g)
                if abs(g) > tolerance:
                    want = p0 * (1 - LR * WD) - LR * g / (abs(g) + ADAM_EPS)
                    check.close(what + " p", p[e], want, LR * 2.0**-10 + 4 * U["f32"] * abs(p0))
    return check.finish()


if __name__ == "__main__":
    sys.exit(main())
