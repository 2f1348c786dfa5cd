"""Checks the generated gradients of finite-difference.mlir by central differences.

Usage: check_gradients.py PREC_RUN MODULE WORK_DIR

The module's @backward runs once per seed: 1 on rank 0 and 0 elsewhere
gives dL/d(argument of rank q) on every rank q, where L = sum_r L_r is the
loss that @forward returns on every rank; 1 on every rank must give exactly
4 times that (scaling by a power of two commutes with rounding). Then, for
two coordinates of every argument, on different ranks, @forward runs with
that coordinate of that rank moved by +h and -h, and

    (L(+h) - L(-h)) / (2 h)

must match the gradient. L is a polynomial of degree at most two in every
single coordinate (see the module), so the central difference is exact but
for f64 rounding, and the step can be large: h = 1/8 keeps x +- h an f32
value (the arguments are multiples of 2^-23 in [-1, 1)), which the f32
round trip of x needs to be exact. The tolerance is

    rho |g| + 2^-40 (1 + |L(+h)| + |L(-h)|) / (2 h)

rho = 2^-24 for x, whose gradient is rounded once to f32 by the cast's
transpose (0 for the others), and 2^-40 relative for the f64 rounding of
each loss (about 2^13 roundings of unit 2^-53). A wrong rule (a sign, a
missing term or factor, an avg instead of the transpose's sum) is off by a
sizeable fraction of |g|.
"""
import os
import struct
import subprocess
import sys

from reference import Checker, UNIT_ROUNDOFF as U, read, rank_file

RANKS = 4
# Per argument of @forward: name, element count, relative error of its
# gradient from rounding to a narrower dtype on the way back.
ARGUMENTS = [("w_shard", 8, 0.0), ("x", 24, U["f32"]), ("b", 12, 0.0),
             ("v", 12, 0.0), ("k", 4, 0.0)]
SEED_ARGUMENT = len(ARGUMENTS)
STEP = 0.125


def write(path, values):
    with open(path, "wb") as out:
        out.write(struct.pack("<%dd" % len(values), *values))


def main():
    prec_run, module, work = sys.argv[1], sys.argv[2], sys.argv[3]

    def run(entry, output_dir, files):
        os.makedirs(output_dir, exist_ok=True)
        command = [prec_run, module, "--entry", entry, "--print", "none",
                   "--output-dir", output_dir]
        for index, pattern in sorted(files.items()):
            command += ["--arg", "%d=%s" % (index, pattern)]
        subprocess.run(command, check=True)

    # Gradients for two seeds; the arguments are prec-run's seeded ones.
    seeds = os.path.join(work, "seeds")
    os.makedirs(seeds, exist_ok=True)
    for r in range(RANKS):
        write(os.path.join(seeds, "one-hot%d.bin" % r), [1.0 if r == 0 else 0.0])
        write(os.path.join(seeds, "ones%d.bin" % r), [1.0])
    one_hot, ones = os.path.join(work, "one-hot"), os.path.join(work, "ones")
    run("backward", one_hot, {SEED_ARGUMENT: os.path.join(seeds, "one-hot%r.bin")})
    run("backward", ones, {SEED_ARGUMENT: os.path.join(seeds, "ones%r.bin")})
    args = [[read(rank_file(one_hot, r, "arg", i), "f64") for i in range(len(ARGUMENTS))]
            for r in range(RANKS)]
    grads = [[read(rank_file(one_hot, r, "result", i), "f64")
              for i in range(len(ARGUMENTS))] for r in range(RANKS)]

    check = Checker("gradients on %d ranks" % RANKS)
    for r in range(RANKS):
        for i, (name, _, _) in enumerate(ARGUMENTS):
            scaled = read(rank_file(ones, r, "result", i), "f64")
            for j, value in enumerate(scaled):
                check.close("rank %d d%s[%d] with seed 1 on every rank" % (r, name, j),
                            value, 4 * grads[r][i][j], 0.0)

    inputs = {i: os.path.join(one_hot, "rank%%r_arg%d.bin" % i)
              for i in range(len(ARGUMENTS))}
    for i, (name, count, rho) in enumerate(ARGUMENTS):
        for q, j in ((i % RANKS, (5 * i + 1) % count),
                     ((i + 2) % RANKS, (7 * i + 3) % count)):
            losses = []
            for sign in (1, -1):
                case = os.path.join(work, "%s-rank%d-%d%s" % (name, q, j, "+-"[sign < 0]))
                perturbed = os.path.join(case, "in")
                os.makedirs(perturbed, exist_ok=True)
                for r in range(RANKS):
                    values = list(args[r][i])
                    if r == q:
                        values[j] += sign * STEP
                    write(os.path.join(perturbed, "%d.bin" % r), values)
                run("forward", case, {**inputs, i: os.path.join(perturbed, "%r.bin")})
                totals = [read(rank_file(case, r, "result", 0), "f64")[0]
                          for r in range(RANKS)]
                for r in range(1, RANKS):
                    check.close("rank %d loss of %s" % (r, case), totals[r], totals[0], 0.0)
                losses.append(totals[0])
            difference = (losses[0] - losses[1]) / (2 * STEP)
            grad = grads[q][i][j]
            tolerance = (rho * abs(grad)
                         + 2.0**-40 * (1 + abs(losses[0]) + abs(losses[1])) / (2 * STEP))
            check.close("rank %d d%s[%d]" % (q, name, j), grad, difference, tolerance)
            print("rank %d d%s[%d]: generated %.17g, central difference %.17g"
                  % (q, name, j, grad, difference))
    return check.finish()


if __name__ == "__main__":
    sys.exit(main())
