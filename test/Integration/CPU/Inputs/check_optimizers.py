"""Checks optimizers.mlir against a float64 reference of torch.optim.AdamW
(decoupled weight decay, bias correction) and SGD with weight decay.

Usage: check_optimizers.py OUTPUT_DIR [BETA1 BETA2 EPS WEIGHT_DECAY]

The kernels compute in f32: each result is within a few f32 roundings of
the float64 value, relative to the magnitudes of the terms that form it
(tolerance 16 u_f32 * magnitude: the AdamW update goes through about ten
f32 operations); the bf16 shard is the f32 master rounded once more (u_bf16
on top). The second moment is the square of a random f32 value, computed in
f32 by the program and emulated exactly here. The bias corrections are
exact here, as PyTorch computes them in Python floats: with beta2 = 0.999,
1 - beta2^step computed in f32 keeps only a few bits (0.999 rounded to f32
is off by 1.3e-8, a relative 1.3e-5 of 1 - 0.999), which this tolerance
rejects.
"""
import math
import sys

from reference import Checker, UNIT_ROUNDOFF as U, read, rank_file, round_to


def main():
    d = sys.argv[1]
    p = read(rank_file(d, 0, "arg", 0), "f32")
    g = read(rank_file(d, 0, "arg", 1), "bf16")
    m = read(rank_file(d, 0, "arg", 2), "f32")
    v = [round_to(x * x, "f32") for x in read(rank_file(d, 0, "arg", 3), "f32")]
    lr = read(rank_file(d, 0, "arg", 4), "f32")[0]
    step = read(rank_file(d, 0, "arg", 5), "f32")[0]
    out = [read(rank_file(d, 0, "result", i), dtype)
           for i, dtype in enumerate(["f32", "f32", "f32", "bf16", "f32"])]
    beta1, beta2, eps, wd = ([float(x) for x in sys.argv[2:6]] if len(sys.argv) > 2
                             else (0.9, 0.99, 1e-3, 0.1))
    check = Checker("optimizers")
    tol = 16 * U["f32"]
    for i in range(len(p)):
        m1 = beta1 * m[i] + (1 - beta1) * g[i]
        v1 = beta2 * v[i] + (1 - beta2) * g[i] * g[i]
        check.close("exp_avg[%d]" % i, out[1][i], m1, tol * (abs(beta1 * m[i]) + abs((1 - beta1) * g[i])))
        check.close("exp_avg_sq[%d]" % i, out[2][i], v1, tol * (abs(beta2 * v[i]) + (1 - beta2) * g[i] * g[i]))
        m_hat = m1 / (1 - beta1 ** step)
        v_hat = v1 / (1 - beta2 ** step)
        update = lr * m_hat / (math.sqrt(v_hat) + eps)
        want = p[i] * (1 - lr * wd) - update
        magnitude = abs(p[i]) + abs(update)
        check.close("param[%d]" % i, out[0][i], want, tol * magnitude)
        check.close("shard[%d]" % i, out[3][i], want, U["bf16"] * abs(want) + tol * magnitude)
        sgd = p[i] - lr * (g[i] + 0.5 * p[i])
        check.close("sgd[%d]" % i, out[4][i], sgd, tol * (abs(p[i]) + abs(lr * g[i]) + abs(lr * 0.5 * p[i])))
    return check.finish()


if __name__ == "__main__":
    sys.exit(main())
