"""Checks the generated gradient of an exported model against central
differences on every coordinate of every float argument, in f64.

Usage: check_model_gradients.py PREC_RUN MODULE WORK_DIR --int-range N
           [--perturb-gradient]

MODULE is a PyTorch export (utils/torch-export/export_models.py) as it is:
a public `@loss` of f64 parameters and f64 or i64 inputs returning a
tensor<f64>. The checker marks `@loss` `prec.differentiable`, declares
`@loss_backward` and adds two entries: one calls the backward function with
the seed 1, the other evaluates `@loss` in a loop over a plan of
perturbations (argument, flat coordinate, offset), each coordinate of each
float argument moved by +-h and +-2h. Both run on one rank with prec-run.
Float arguments are distinct multiples of 2^-20 in [-1, 1] (see
check_finite_differences.py); integer arguments (token ids, targets) are
(7 j + 3) mod N for the j-th element, N = --int-range (the vocabulary).

The tolerance is check_finite_differences.py's: the truncation error of
D(h) estimated from D(2h), plus 2^-40 (1 + |L|) per loss, magnified by
1 / (2h), plus 2^-40 |g|. --perturb-gradient adds 1e-4 (1 + |g|) to every
gradient coordinate: the run must then fail on every coordinate.
"""
import argparse
import os
import random
import re
import struct
import subprocess
import sys

from check_finite_differences import OFFSETS, STEP, count, inputs
from reference import Checker, read, rank_file


def parse_signature(module):
    match = re.search(r"func\.func\s+@loss\s*\((.*?)\)\s*->\s*tensor<f64>\s*\{", module, re.S)
    if not match:
        sys.exit("no function @loss(...) -> tensor<f64> in the module")
    args = []
    for arg_type in re.findall(r"%\w+\s*:\s*tensor<([^>]*)>", match.group(1)):
        *dims, element = arg_type.split("x")
        if element not in ("f64", "i64"):
            sys.exit("@loss: expected f64 or i64 tensors, got tensor<%s>" % arg_type)
        args.append(([int(d) for d in dims], element))
    return match, args


def tensor_type(shape, element):
    return "tensor<%s%s>" % ("".join("%dx" % d for d in shape), element)


def entries(args, plan_size):
    types = [tensor_type(s, e) for s, e in args]
    floats = [i for i, (_, e) in enumerate(args) if e == "f64"]
    grad_types = [types[i] for i in floats]
    params = ", ".join("%%a%d: %s" % (i, t) for i, t in enumerate(types))
    all_args = ", ".join("%%a%d" % i for i in range(len(args)))
    lines = [
        "func.func private @loss_backward(%s, tensor<f64>) -> (%s)"
        % (", ".join(types), ", ".join(grad_types)),
        "func.func @loss_gradient(%s) -> (%s) {" % (params, ", ".join(grad_types)),
        "  %seed = arith.constant dense<1.0> : tensor<f64>",
        "  %%g:%d = call @loss_backward(%s, %%seed) : (%s, tensor<f64>) -> (%s)"
        % (len(floats), all_args, ", ".join(types), ", ".join(grad_types)),
        "  return %s : %s" % (", ".join("%%g#%d" % i for i in range(len(floats))),
                              ", ".join(grad_types)),
        "}",
        "func.func @loss_differences(%s, %%plan: tensor<%dx3xf64>) -> tensor<%dxf64> {"
        % (params, plan_size, plan_size),
        "  %c0 = arith.constant 0 : index",
        "  %c1 = arith.constant 1 : index",
        "  %c2 = arith.constant 2 : index",
        "  %%cp = arith.constant %d : index" % plan_size,
        "  %zero = arith.constant 0.0 : f64",
        "  %%init = tensor.empty() : tensor<%dxf64>" % plan_size,
        "  %%losses = scf.for %%p = %%c0 to %%cp step %%c1 iter_args(%%acc = %%init)"
        " -> (tensor<%dxf64>) {" % plan_size,
        "    %%wf = tensor.extract %%plan[%%p, %%c0] : tensor<%dx3xf64>" % plan_size,
        "    %%jf = tensor.extract %%plan[%%p, %%c1] : tensor<%dx3xf64>" % plan_size,
        "    %%delta = tensor.extract %%plan[%%p, %%c2] : tensor<%dx3xf64>" % plan_size,
        "    %wi = arith.fptosi %wf : f64 to i64",
        "    %w = arith.index_cast %wi : i64 to index",
        "    %ji = arith.fptosi %jf : f64 to i64",
        "    %j = arith.index_cast %ji : i64 to index",
    ]
    moved = []
    for k, (shape, element) in enumerate(args):
        if element != "f64":
            moved.append("%%a%d" % k)
            continue
        # Arguments other than the plan's get x + 0 written to coordinate 0.
        lines += [
            "    %%k%d = arith.constant %d : index" % (k, k),
            "    %%is%d = arith.cmpi eq, %%w, %%k%d : index" % (k, k),
            "    %%j%d = arith.select %%is%d, %%j, %%c0 : index" % (k, k),
            "    %%d%d = arith.select %%is%d, %%delta, %%zero : f64" % (k, k),
        ]
        # The flat coordinate's multi-index, row-major.
        rest = "%%j%d" % k
        index = []
        for axis in reversed(range(len(shape))):
            lines += [
                "    %%n%d_%d = arith.constant %d : index" % (k, axis, shape[axis]),
                "    %%i%d_%d = arith.remui %s, %%n%d_%d : index" % (k, axis, rest, k, axis),
                "    %%q%d_%d = arith.divui %s, %%n%d_%d : index" % (k, axis, rest, k, axis),
            ]
            index.insert(0, "%%i%d_%d" % (k, axis))
            rest = "%%q%d_%d" % (k, axis)
        at = "[%s]" % ", ".join(index)
        lines += [
            "    %%x%d = tensor.extract %%a%d%s : %s" % (k, k, at, types[k]),
            "    %%y%d = arith.addf %%x%d, %%d%d : f64" % (k, k, k),
            "    %%b%d = tensor.insert %%y%d into %%a%d%s : %s" % (k, k, k, at, types[k]),
        ]
        moved.append("%%b%d" % k)
    lines += [
        "    %%l = func.call @loss(%s) : (%s) -> tensor<f64>" % (", ".join(moved), ", ".join(types)),
        "    %lv = tensor.extract %l[] : tensor<f64>",
        "    %%next = tensor.insert %%lv into %%acc[%%p] : tensor<%dxf64>" % plan_size,
        "    scf.yield %%next : tensor<%dxf64>" % plan_size,
        "  }",
        "  return %%losses : tensor<%dxf64>" % plan_size,
        "}",
    ]
    return "\n".join(lines) + "\n"


def write(path, values, fmt):
    with open(path, "wb") as out:
        out.write(struct.pack("<%d%s" % (len(values), fmt), *values))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("prec_run")
    parser.add_argument("module")
    parser.add_argument("work")
    parser.add_argument("--int-range", type=int, required=True)
    parser.add_argument("--perturb-gradient", action="store_true")
    options = parser.parse_args()
    os.makedirs(options.work, exist_ok=True)

    # The export marks float inputs prec.no_grad; their gradients are checked
    # too.
    module = re.sub(r",\s*prec\.no_grad", "", open(options.module).read())
    match, args = parse_signature(module)
    floats = [k for k, (_, e) in enumerate(args) if e == "f64"]
    plan = [(k, j, offset) for k in floats for j in range(count(args[k][0]))
            for offset in OFFSETS]
    head = module[:match.end() - 1] + "attributes {prec.differentiable} " + module[match.end() - 1:]
    # The entries go inside the export's module, before its resources.
    body_end = head.rindex("}", 0, head.find("{-#") if "{-#" in head else len(head))
    program = os.path.join(options.work, "loss.mlir")
    with open(program, "w") as out:
        out.write(head[:body_end] + entries(args, len(plan)) + head[body_end:])

    rng = random.Random(16)
    values = inputs([args[k][0] for k in floats], rng)
    files = []
    for k, (shape, element) in enumerate(args):
        path = os.path.join(options.work, "arg%d_0.bin" % k)
        if element == "f64":
            write(path, values[floats.index(k)], "d")
        else:
            write(path, [(7 * j + 3) % options.int_range for j in range(count(shape))], "q")
        files += ["--arg", "%d=%s" % (k, os.path.join(options.work, "arg%d_%%r.bin" % k))]
    write(os.path.join(options.work, "plan_0.bin"),
          [v for row in plan for v in row], "d")

    def run(entry, extra):
        output = os.path.join(options.work, entry)
        subprocess.run([options.prec_run, program, "--ranks", "1", "--entry", entry,
                        "--print", "none", "--output-dir", output] + files + extra,
                       check=True)
        return output

    gradient_dir = run("loss_gradient", [])
    losses = read(rank_file(run("loss_differences", [
        "--arg", "%d=%s" % (len(args), os.path.join(options.work, "plan_%r.bin"))]),
        0, "result", 0), "f64")
    check = Checker("model gradients" + (" (gradient perturbed)" if options.perturb_gradient
                                         else ""))
    position = 0
    for result, k in enumerate(floats):
        gradient = read(rank_file(gradient_dir, 0, "result", result), "f64")
        for j in range(count(args[k][0])):
            plus, minus, plus2, minus2 = losses[4 * position:4 * position + 4]
            d1 = (plus - minus) / (2 * STEP)
            d2 = (plus2 - minus2) / (4 * STEP)
            g = gradient[j]
            if options.perturb_gradient:
                g += 1e-4 * (1 + abs(g))
            tolerance = (2 * abs(d2 - d1) / 3
                         + 2.0**-40 * (2 + abs(plus) + abs(minus)) / (2 * STEP)
                         + 2.0**-40 * abs(g))
            check.close("d(arg %d)[%d]" % (k, j), g, d1, tolerance)
            position += 1
    return check.finish()


if __name__ == "__main__":
    sys.exit(main())
