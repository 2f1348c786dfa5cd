"""Checks the first step of a `prec-fully-shard` training step of an exported
model on N ranks against an independent float64 reference.

Usage: check_fully_shard_step.py PREC_OPT PREC_RUN MODULE WORK_DIR --ranks N
           --int-range V [--mesh RxS] [--optimizer sgd|adamw] [--options OPTS]
           [--sample K] [--perturb-lr]

MODULE is a PyTorch export (utils/torch-export/export_models.py) as it is, in
f64. The step comes from `prec-opt --prec-from-torch="mesh=N optimizer=..."`
(or `mesh=RxS`, HSDP: R replicas of S shards; OPTS appended, e.g.
`reshard-after-forward=false`) with nothing written by hand; it runs one
step with prec-run on N ranks from
the full parameters (distinct multiples of 2^-20, check_finite_differences'
inputs) cut into the blocks the step's `prec.shard` attributes describe, and
rank r's batch: token ids (7 j + 3 + 5 r) mod V and targets (3 j + 1 + 11 r)
mod V.

The reference does not use prec's gradients: the gradient of each rank's
loss is taken by central differences of the unsharded `@loss` (in f64, by
check_model_gradients' plan of perturbations, on every coordinate or on K
sampled ones of each parameter, always including its last row), averaged
over the ranks; the step's loss must be the mean of the ranks' losses, and
each coordinate's update the optimizer's, on every rank that holds it:

- sgd: -lr g;
- adamw (step 1, PyTorch's formula): m = (1 - b1) g, v = (1 - b2) g^2,
  p' = p (1 - lr wd) - lr m / (1 - b1) / (sqrt(v / (1 - b2)) + eps).

Tolerances: t_g, the difference quotient's (check_model_gradients: the
truncation error estimated from D(2h), plus 2^-40 (1 + |L|) per loss,
magnified by 1 / (2h)), averaged over the ranks, carried through the
optimizer's formula by its derivative's largest value over g +- t_g (lr t_g
for sgd; lr eps t_g / (|g| - t_g + eps)^2 for adamw's p'), plus 2^-50 |p|
for the f64 rounding of the update; padding rows must stay exactly 0. The
loss: 2^-40 (1 + |L|). --perturb-lr makes the reference use lr (1 + 2^-10):
the run must then fail.
"""
import argparse
import math
import os
import random
import re
import struct
import subprocess
import sys

from check_finite_differences import OFFSETS, STEP, count, inputs
from check_model_gradients import entries, parse_signature, write
from reference import Checker, read, rank_file

LR = 0.25
BETA1, BETA2, EPS, WEIGHT_DECAY = 0.9, 0.999, 1e-8, 0.01


def batch(shape, rank, kind, vocab):
    if kind == 0:
        return [(7 * j + 3 + 5 * rank) % vocab for j in range(count(shape))]
    return [(3 * j + 1 + 11 * rank) % vocab for j in range(count(shape))]


def finite_differences(options, module, args, params, batches, coordinates):
    """Per rank: the loss and, per (argument, flat coordinate), the
    difference quotient and its tolerance."""
    match, _ = parse_signature(module)
    plan = [(k, j, offset) for k in params for j in coordinates[k] for offset in OFFSETS]
    plan.append((params[0], 0, 0.0))  # the loss itself
    head = (module[:match.end() - 1] + "attributes {prec.differentiable} "
            + module[match.end() - 1:])
    body_end = head.rindex("}", 0, head.find("{-#") if "{-#" in head else len(head))
    program = os.path.join(options.work, "loss.mlir")
    with open(program, "w") as out:
        out.write(head[:body_end] + entries(args, len(plan)) + head[body_end:])
    write(os.path.join(options.work, "plan_0.bin"), [v for row in plan for v in row], "d")
    results = []
    for rank, files in enumerate(batches):
        output = os.path.join(options.work, "differences%d" % rank)
        subprocess.run([options.prec_run, program, "--ranks", "1", "--entry", "loss_differences",
                        "--print", "none", "--output-dir", output] + files
                       + ["--arg", "%d=%s" % (len(args), os.path.join(options.work, "plan_%r.bin"))],
                       check=True)
        losses = read(rank_file(output, 0, "result", 0), "f64")
        gradient = {}
        position = 0
        for k in params:
            for j in coordinates[k]:
                plus, minus, plus2, minus2 = losses[4 * position:4 * position + 4]
                d1 = (plus - minus) / (2 * STEP)
                d2 = (plus2 - minus2) / (4 * STEP)
                tolerance = (2 * abs(d2 - d1) / 3
                             + 2.0**-40 * (2 + abs(plus) + abs(minus)) / (2 * STEP))
                gradient[k, j] = (d1, tolerance)
                position += 1
        results.append((losses[-1], gradient))
    return results


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("prec_opt")
    parser.add_argument("prec_run")
    parser.add_argument("module")
    parser.add_argument("work")
    parser.add_argument("--ranks", type=int, required=True)
    parser.add_argument("--int-range", type=int, required=True)
    parser.add_argument("--mesh")
    parser.add_argument("--options", default="")
    parser.add_argument("--optimizer", choices=["sgd", "adamw"], default="sgd")
    parser.add_argument("--sample", type=int, default=0)
    parser.add_argument("--perturb-lr", action="store_true")
    options = parser.parse_args()
    os.makedirs(options.work, exist_ok=True)
    n = options.ranks
    mesh = options.mesh or str(n)
    shards = int(mesh.split("x")[-1])  # the last axis shards; rank r holds block r % shards

    module = open(options.module).read()
    _, args = parse_signature(module)
    names = re.findall(r'prec\.name = "([^"]*)"', module[:module.index(") ->", module.index("@loss("))])
    params = [k for k, (_, e) in enumerate(args) if e == "f64"]
    ints = [k for k, (_, e) in enumerate(args) if e != "f64"]

    # The step, from the export as it is.
    step = os.path.join(options.work, "step.mlir")
    subprocess.run([options.prec_opt, options.module, "-o", step,
                    "--prec-from-torch=mesh=%s optimizer=%s lr=%r %s"
                    % (mesh, options.optimizer, LR, options.options)],
                   check=True)

    rng = random.Random(16)
    values = dict(zip(params, inputs([args[k][0] for k in params], rng)))
    sample = random.Random(7)
    coordinates = {}
    for k in params:
        shape = args[k][0]
        total = count(shape)
        row = total // shape[0]
        if options.sample and total > options.sample:
            picked = set(sample.sample(range(total), options.sample))
            picked.update(range(total - row, total))  # the last row
            coordinates[k] = sorted(picked)
        else:
            coordinates[k] = list(range(total))

    # Shards: block r % shards of dim 0 in ceil(rows / shards) rows, zero
    # padding.
    run_files = []
    for k in params:
        shape = args[k][0]
        rows, row = shape[0], count(shape) // shape[0]
        block = -(-rows // shards)
        for r in range(n):
            g = r % shards
            data = values[k][g * block * row:(g + 1) * block * row]
            data += [0.0] * (block * row - len(data))
            write(os.path.join(options.work, "p%d_%d.bin" % (k, r)), data, "d")
        run_files += ["--arg", "%s=%s" % (names[k], os.path.join(options.work, "p%d_%%r.bin" % k))]
    batches = [[] for _ in range(n)]
    for kind, k in enumerate(ints):
        for r in range(n):
            path = os.path.join(options.work, "b%d_%d.bin" % (k, r))
            write(path, batch(args[k][0], r, kind, options.int_range), "q")
            batches[r] += ["--arg", "%d=%s" % (k, path)]
        run_files += ["--arg", "%s=%s" % (names[k], os.path.join(options.work, "b%d_%%r.bin" % k))]
    for k in params:
        for r in range(n):
            path = os.path.join(options.work, "full%d_%d.bin" % (k, r))
            write(path, values[k], "d")
            batches[r] += ["--arg", "%d=%s" % (k, path)]
    if options.optimizer == "adamw":
        run_files += ["--zeros", "exp_avg*"]
    output = os.path.join(options.work, "step")
    subprocess.run([options.prec_run, step, "--ranks", str(n), "--print", "none",
                    "--output-dir", output] + run_files, check=True)

    reference = finite_differences(options, module, args, params, batches, coordinates)
    lr = LR * (1 + 2.0**-10 if options.perturb_lr else 1)
    check = Checker("fully-shard step on %d rank(s)%s%s" % (
        n, "" if mesh == str(n) else " (mesh %s)" % mesh,
        " (lr perturbed)" if options.perturb_lr else ""))
    loss_index = len(params) * (3 if options.optimizer == "adamw" else 1) + (
        1 if options.optimizer == "adamw" else 0)
    want_loss = sum(loss for loss, _ in reference) / n
    for r in range(n):
        got_loss = read(rank_file(output, r, "result", loss_index), "f64")[0]
        check.close("loss on rank %d" % r, got_loss, want_loss, 2.0**-40 * (1 + abs(want_loss)))

    for index, k in enumerate(params):
        shape = args[k][0]
        rows, row = shape[0], count(shape) // shape[0]
        block = -(-rows // shards)
        for r in range(n):
            got = read(rank_file(output, r, "result", index), "f64")
            for local in range(block * row):
                j = (r % shards) * block * row + local
                if j >= count(shape):
                    check.close("%s padding [%d] on rank %d" % (names[k], local, r), got[local], 0.0, 0.0)
                    continue
                if (k, j) not in reference[0][1]:
                    continue  # not sampled
                g = sum(grad[k, j][0] for _, grad in reference) / n
                t = sum(grad[k, j][1] for _, grad in reference) / n
                p = values[k][j]
                if options.optimizer == "sgd":
                    want = -lr * g
                    tolerance = lr * t
                else:
                    m = (1 - BETA1) * g
                    v = (1 - BETA2) * g * g
                    want = (p * (1 - lr * WEIGHT_DECAY) - p
                            - lr * (m / (1 - BETA1)) / (math.sqrt(v / (1 - BETA2)) + EPS))
                    tolerance = lr * EPS * t / (max(abs(g) - t, 0.0) + EPS) ** 2
                tolerance += 2.0**-50 * (abs(p) + lr)
                check.close("d %s[%d] on rank %d" % (names[k], j, r), got[local] - p, want, tolerance)
    return check.finish()


if __name__ == "__main__":
    sys.exit(main())
