"""Checks a generated backward function by central differences on every coordinate.

Usage: check_gradients.py PREC_RUN MODULE WORK_DIR --ranks N --forward F
           --backward B --arg NAME:ROWSxCOLS[:SCALE[:RHO]]... [options]

The module is an f64 program. F(arguments) returns a loss; with
--loss=same every rank returns the same L (checked), with --loss=sum rank r
returns L_r and L = sum_r L_r. B(arguments[, seed]) returns, for every
argument, SCALE times dL/d(this rank's argument):
  --seed=argument: B takes the loss gradient as a last tensor<f64> argument.
      A seed of 1 on rank 0 and 0 elsewhere gives the gradient (L is the
      same on every rank, and the SPMD transpose sums seed_r * dL_r/dx);
      1 on every rank must give exactly N times it (a power-of-two N scales
      without rounding).
  --seed=ones: B is called with a seed of 1 on every rank from a wrapper
      added to the module (the loss of a training step, L = sum_r L_r).
SCALE is 1 unless the gradient reduction averages (FSDP's all_gather: 1/N).

Every coordinate j of every argument of every rank q is checked: one
prec-run of a function added to the module evaluates F on all 2 x (number
of coordinates) perturbed inputs, the argument of rank q with coordinate j
moved by +h and -h, in a loop, and

    D = (L(+h) - L(-h)) / (2 h)

must match the gradient. The tolerance has two parts:
  * truncation: the programs' losses are polynomials of degree at most two
    in any single coordinate (see each module), so the central difference
    has no truncation error, whatever h (its error term is h^2/6 times the
    third derivative, here 0). That lets h be large, h = 1/8; prec-run's
    arguments are multiples of 2^-23 in [-1, 1), so x +- h is exact;
  * rounding: each evaluated loss L is off by at most eps (1 + |L|)
    (--loss-error eps, derived in each test from f64's unit roundoff
    2^-53, the number of roundings on a path and how much larger the
    magnitudes of the terms are than L), so D is off by at most
    eps (2 + |L(+h)| + |L(-h)|) / (2 h);
  * plus RHO |g| where the generated gradient is rounded to a narrower
    dtype on its way back (2^-24 for a round trip through f32).
So |g - D| <= RHO |g| + eps (2 + |L(+h)| + |L(-h)|) / (2 h).

A zero, halved, or sign-flipped gradient is off by |g|, which is far above
that bound for most coordinates: the check also requires that, for each
argument, at least half of the coordinates have |D| above 4 times their
tolerance, so that a backward function returning zeros cannot pass.
"""
import argparse
import os
import re
import struct
import subprocess
import sys

from reference import Checker, read, rank_file

STEP = 0.125


def write(path, values):
    with open(path, "wb") as out:
        out.write(struct.pack("<%dd" % len(values), *values))


def parse_argument(spec):
    fields = spec.split(":")
    rows, cols = (int(v) for v in fields[1].split("x"))
    scale = eval(fields[2], {}) if len(fields) > 2 else 1.0  # e.g. 1/4
    rho = eval(fields[3], {}) if len(fields) > 3 else 0.0  # e.g. 2**-24
    return {"name": fields[0], "rows": rows, "cols": cols, "scale": float(scale),
            "rho": float(rho)}


def tensor_type(arg):
    return "tensor<%dx%dxf64>" % (arg["rows"], arg["cols"])


def wrappers(forward, backward, arguments, seed, perturbations):
    """MLIR functions added to the module: @fd_losses evaluates the forward
    function on every perturbation of a plan (argument index, flat
    coordinate, delta; delta 0 on the ranks not perturbed); @fd_backward
    calls the backward function with a seed of 1 where --seed=ones."""
    types = [tensor_type(a) for a in arguments]
    params = ", ".join("%%a%d: %s" % (k, t) for k, t in enumerate(types))
    lines = []
    p = perturbations
    lines.append("func.func @fd_losses(%s, %%plan: tensor<%dx3xf64>) -> tensor<%dxf64> {"
                 % (params, p, p))
    lines.append("  %c0 = arith.constant 0 : index")
    lines.append("  %c1 = arith.constant 1 : index")
    lines.append("  %c2 = arith.constant 2 : index")
    lines.append("  %%cp = arith.constant %d : index" % p)
    lines.append("  %zero = arith.constant 0.0 : f64")
    lines.append("  %%init = tensor.empty() : tensor<%dxf64>" % p)
    lines.append("  %%losses = scf.for %%p = %%c0 to %%cp step %%c1 iter_args(%%acc = %%init)"
                 " -> (tensor<%dxf64>) {" % p)
    lines.append("    %%wf = tensor.extract %%plan[%%p, %%c0] : tensor<%dx3xf64>" % p)
    lines.append("    %%jf = tensor.extract %%plan[%%p, %%c1] : tensor<%dx3xf64>" % p)
    lines.append("    %%delta = tensor.extract %%plan[%%p, %%c2] : tensor<%dx3xf64>" % p)
    lines.append("    %wi = arith.fptosi %wf : f64 to i64")
    lines.append("    %w = arith.index_cast %wi : i64 to index")
    lines.append("    %ji = arith.fptosi %jf : f64 to i64")
    lines.append("    %j = arith.index_cast %ji : i64 to index")
    moved = []
    for k, arg in enumerate(arguments):
        # Arguments other than the plan's get x + 0 written to coordinate 0.
        lines.append("    %%k%d = arith.constant %d : index" % (k, k))
        lines.append("    %%is%d = arith.cmpi eq, %%w, %%k%d : index" % (k, k))
        lines.append("    %%j%d = arith.select %%is%d, %%j, %%c0 : index" % (k, k))
        lines.append("    %%d%d = arith.select %%is%d, %%delta, %%zero : f64" % (k, k))
        lines.append("    %%cols%d = arith.constant %d : index" % (k, arg["cols"]))
        lines.append("    %%r%d = arith.divui %%j%d, %%cols%d : index" % (k, k, k))
        lines.append("    %%c%dc = arith.remui %%j%d, %%cols%d : index" % (k, k, k))
        lines.append("    %%x%d = tensor.extract %%a%d[%%r%d, %%c%dc] : %s" % (k, k, k, k, types[k]))
        lines.append("    %%y%d = arith.addf %%x%d, %%d%d : f64" % (k, k, k))
        lines.append("    %%b%d = tensor.insert %%y%d into %%a%d[%%r%d, %%c%dc] : %s"
                     % (k, k, k, k, k, types[k]))
        moved.append("%%b%d" % k)
    lines.append("    %%l = func.call @%s(%s) : (%s) -> tensor<f64>"
                 % (forward, ", ".join(moved), ", ".join(types)))
    lines.append("    %lv = tensor.extract %l[] : tensor<f64>")
    lines.append("    %%next = tensor.insert %%lv into %%acc[%%p] : tensor<%dxf64>" % p)
    lines.append("    scf.yield %%next : tensor<%dxf64>" % p)
    lines.append("  }")
    lines.append("  return %%losses : tensor<%dxf64>" % p)
    lines.append("}")
    if seed == "ones":
        args = ", ".join("%%a%d" % k for k in range(len(arguments)))
        results = ", ".join(types)
        lines.append("func.func @fd_backward(%s) -> (%s) {" % (params, results))
        lines.append("  %seed = arith.constant dense<1.0> : tensor<f64>")
        lines.append("  %%g:%d = func.call @%s(%s, %%seed) : (%s, tensor<f64>) -> (%s)"
                     % (len(arguments), backward, args, ", ".join(types), results))
        lines.append("  return %s : %s" % (", ".join("%%g#%d" % k for k in range(len(arguments))),
                                           results))
        lines.append("}")
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("prec_run")
    parser.add_argument("module")
    parser.add_argument("work")
    parser.add_argument("--ranks", type=int, required=True)
    parser.add_argument("--forward", required=True)
    parser.add_argument("--backward", required=True)
    parser.add_argument("--loss", choices=["same", "sum"], required=True)
    parser.add_argument("--seed", choices=["argument", "ones"], required=True)
    parser.add_argument("--loss-error", type=lambda v: float(eval(v, {})), required=True)
    parser.add_argument("--arg", action="append", type=parse_argument, required=True)
    options = parser.parse_args()
    ranks, arguments, work = options.ranks, options.arg, options.work
    os.makedirs(work, exist_ok=True)

    coordinates = [(q, k, j) for k, a in enumerate(arguments)
                   for q in range(ranks) for j in range(a["rows"] * a["cols"])]
    plan = [(q, k, j, sign) for q, k, j in coordinates for sign in (1, -1)]
    position = {c: 2 * i for i, c in enumerate(coordinates)}
    module = os.path.join(work, "module.mlir")
    added = wrappers(options.forward, options.backward, arguments, options.seed, len(plan))
    text = open(options.module).read().rstrip()
    if re.search(r"^module\b", text, re.MULTILINE):
        # An explicit module (prec-opt's output): the wrappers go inside it.
        assert text.endswith("}")
        text = text[:-1] + added + "}"
    else:
        text += "\n" + added
    with open(module, "w") as out:
        out.write(text + "\n")

    def run(entry, output_dir, files):
        os.makedirs(output_dir, exist_ok=True)
        command = [options.prec_run, module, "--entry", entry, "--print", "none",
                   "--output-dir", output_dir]
        for index, pattern in sorted(files.items()):
            command += ["--arg", "%d=%s" % (index, pattern)]
        subprocess.run(command, check=True)

    # Gradients; the arguments are prec-run's seeded ones.
    n = len(arguments)
    grads_dir = os.path.join(work, "backward")
    check = Checker("gradients of %s on %d ranks" % (options.forward, ranks))
    if options.seed == "argument":
        seeds = os.path.join(work, "seeds")
        os.makedirs(seeds, exist_ok=True)
        for r in range(ranks):
            write(os.path.join(seeds, "one-hot%d.bin" % r), [1.0 if r == 0 else 0.0])
            write(os.path.join(seeds, "ones%d.bin" % r), [1.0])
        ones = os.path.join(work, "backward-ones")
        run(options.backward, grads_dir, {n: os.path.join(seeds, "one-hot%r.bin")})
        run(options.backward, ones, {n: os.path.join(seeds, "ones%r.bin")})
    else:
        run("fd_backward", grads_dir, {})
    args = [[read(rank_file(grads_dir, r, "arg", k), "f64") for k in range(n)]
            for r in range(ranks)]
    grads = [[read(rank_file(grads_dir, r, "result", k), "f64") for k in range(n)]
             for r in range(ranks)]
    if options.seed == "argument":
        for r in range(ranks):
            for k, a in enumerate(arguments):
                scaled = read(rank_file(ones, r, "result", k), "f64")
                for j, value in enumerate(scaled):
                    check.close("rank %d d%s[%d] with seed 1 on every rank" % (r, a["name"], j),
                                value, ranks * grads[r][k][j], 0.0)

    # Every perturbation in one run; the arguments as the backward run had them.
    plan_dir = os.path.join(work, "plan")
    os.makedirs(plan_dir, exist_ok=True)
    for r in range(ranks):
        rows = []
        for q, k, j, sign in plan:
            rows += [k, j, sign * STEP if q == r else 0.0]
        write(os.path.join(plan_dir, "%d.bin" % r), rows)
    losses_dir = os.path.join(work, "losses")
    inputs = {k: os.path.join(grads_dir, "rank%%r_arg%d.bin" % k) for k in range(n)}
    inputs[n] = os.path.join(plan_dir, "%r.bin")
    run("fd_losses", losses_dir, inputs)
    per_rank = [read(rank_file(losses_dir, r, "result", 0), "f64") for r in range(ranks)]
    if options.loss == "same":
        for r in range(1, ranks):
            for i in range(len(plan)):
                check.close("rank %d loss %d" % (r, i), per_rank[r][i], per_rank[0][i], 0.0)
        totals = per_rank[0]
    else:
        totals = [sum(per_rank[r][i] for r in range(ranks)) for i in range(len(plan))]

    for k, a in enumerate(arguments):
        significant = 0
        count = 0
        for q in range(ranks):
            for j in range(a["rows"] * a["cols"]):
                i = position[(q, k, j)]
                difference = (totals[i] - totals[i + 1]) / (2 * STEP)
                grad = grads[q][k][j] / a["scale"]
                tolerance = (a["rho"] * abs(grad) + options.loss_error
                             * (2 + abs(totals[i]) + abs(totals[i + 1])) / (2 * STEP))
                check.close("rank %d d%s[%d]" % (q, a["name"], j), grad, difference, tolerance)
                count += 1
                significant += abs(difference) > 4 * tolerance
        print("d%s: %d of %d coordinates above 4 times their tolerance"
              % (a["name"], significant, count))
        if 2 * significant < count:
            print("d%s: too few coordinates tell a wrong gradient from zero" % a["name"])
            check.failures += 1
    return check.finish()


if __name__ == "__main__":
    sys.exit(main())
