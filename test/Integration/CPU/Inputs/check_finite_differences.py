"""Checks generated gradients against central differences on every coordinate.

Usage: check_finite_differences.py PREC_RUN MODULE WORK_DIR [FUNCTION...]
           [--perturb-gradient]

Each FUNCTION (default: loss) of MODULE is a differentiable f64 function of
f64 tensors returning a tensor<f64>. The checker appends to the module a
declaration of FUNCTION_backward (prec-generate-backward fills it in), an
entry that calls it with the seed 1, and an entry that evaluates FUNCTION
with every coordinate of every argument moved by +-h and +-2h; it runs both
on one rank with prec-run and compares, for every coordinate,

    D(h) = (L(x + h e) - L(x - h e)) / (2 h)

with the generated gradient g. The inputs are distinct values in [-1, 1]
spaced at least 1/n apart (n the element count of all arguments), so that
max, min and abs keep their winner and sign under the perturbations, and
multiples of 2^-20, so that x +- h and x +- 2h are exact in f32 as well.

Tolerance, h = 2^-10:
- truncation: D(h) = L' + h^2 L'''/6 + O(h^4), and D(2h) - D(h) = h^2 L''' / 2
  + O(h^4), so |D(2h) - D(h)| / 3 estimates the truncation error of D(h);
  twice that is allowed;
- rounding of the losses: each loss is an f64 result of fewer than 2^13
  roundings of unit 2^-53, so off by at most 2^-40 (1 + |L|) relative; the
  difference quotient magnifies that by 1 / (2 h);
- rounding of the gradient itself: 2^-40 |g|.
A wrong rule (a sign, a factor, a missing term) is off by a sizeable
fraction of |g|, orders of magnitude above this. --perturb-gradient adds
1e-4 (1 + |g|) to every gradient coordinate before comparing: the run must
then report every coordinate outside tolerance, which shows that each
comparison can fail.
"""
import os
import random
import re
import struct
import subprocess
import sys

from reference import Checker, read, rank_file

STEP = 2.0**-10
OFFSETS = (STEP, -STEP, 2 * STEP, -2 * STEP)


def write(path, values):
    with open(path, "wb") as out:
        out.write(struct.pack("<%dd" % len(values), *values))


def parse_signature(module, function):
    """The shapes of `function`'s arguments (all tensors of f64)."""
    match = re.search(r"func\.func\s+(?:private\s+)?@%s\s*\((.*?)\)\s*->" % function,
                      module, re.S)
    if not match:
        sys.exit("no function @%s in the module" % function)
    shapes = []
    for arg_type in re.findall(r"%\w+\s*:\s*tensor<([^>]*)>", match.group(1)):
        *dims, element = arg_type.split("x") if arg_type != "f64" else ["f64"]
        if element != "f64":
            sys.exit("@%s: expected f64 tensors, got tensor<%s>" % (function, arg_type))
        shapes.append([int(d) for d in dims])
    return shapes


def tensor_type(shape):
    return "tensor<%sf64>" % "".join("%dx" % d for d in shape)


def indices(shape):
    """Every multi-index of `shape`, in row-major order."""
    result = [[]]
    for extent in shape:
        result = [index + [i] for index in result for i in range(extent)]
    return result


def count(shape):
    n = 1
    for d in shape:
        n *= d
    return n


def entries(function, shapes):
    """The gradient and finite-difference entries of `function`."""
    types = [tensor_type(s) for s in shapes]
    params = ", ".join("%%a%d: %s" % (i, t) for i, t in enumerate(types))
    args = ", ".join("%%a%d" % i for i in range(len(shapes)))
    arg_types = ", ".join(types)
    lines = [
        "func.func private @%s_backward(%s, tensor<f64>) -> (%s)"
        % (function, arg_types, arg_types),
        "func.func @%s_gradient(%s) -> (%s) {" % (function, params, arg_types),
        "  %seed = arith.constant dense<1.0> : tensor<f64>",
        "  %%g:%d = call @%s_backward(%s, %%seed) : (%s, tensor<f64>) -> (%s)"
        % (len(shapes), function, args, arg_types, arg_types),
        "  return %s : %s" % (", ".join("%%g#%d" % i for i in range(len(shapes))),
                              arg_types),
        "}",
    ]
    total = sum(count(s) for s in shapes) * len(OFFSETS)
    lines += [
        "func.func @%s_differences(%s) -> tensor<%dxf64> {" % (function, params, total),
        "  %%acc0 = tensor.empty() : tensor<%dxf64>" % total,
    ]
    for k, offset in enumerate(OFFSETS):
        lines.append("  %%h%d = arith.constant %r : f64" % (k, offset))
    lines += ["  %%c%d = arith.constant %d : index" % (i, i)
              for i in range(max([total] + [d for s in shapes for d in s]))]
    position = 0
    for i, shape in enumerate(shapes):
        for index in indices(shape):
            at = "[%s]" % ", ".join("%%c%d" % d for d in index)
            lines.append("  %%x%d = tensor.extract %%a%d%s : %s"
                         % (position, i, at, types[i]))
            for k in range(len(OFFSETS)):
                name = "%d_%d" % (position, k)
                moved = ["%%a%d" % j for j in range(len(shapes))]
                moved[i] = "%%m%s" % name
                lines += [
                    "  %%p%s = arith.addf %%x%d, %%h%d : f64" % (name, position, k),
                    "  %%m%s = tensor.insert %%p%s into %%a%d%s : %s"
                    % (name, name, i, at, types[i]),
                    "  %%l%s = call @%s(%s) : (%s) -> tensor<f64>"
                    % (name, function, ", ".join(moved), arg_types),
                    "  %%s%s = tensor.extract %%l%s[] : tensor<f64>" % (name, name),
                    "  %%acc%d = tensor.insert %%s%s into %%acc%d[%%c%d] : tensor<%dxf64>"
                    % (position * len(OFFSETS) + k + 1, name,
                       position * len(OFFSETS) + k, position * len(OFFSETS) + k, total),
                ]
            position += 1
    lines += ["  return %%acc%d : tensor<%dxf64>" % (total, total), "}"]
    return "\n".join(lines) + "\n"


def inputs(shapes, rng):
    """Distinct multiples of 2^-20 in [-1, 1], at least 1/n apart (n the
    element count of all arguments together), split among the arguments."""
    n = sum(count(shape) for shape in shapes)
    values = [-1 + (2 * k + 1 + rng.uniform(-0.4, 0.4)) / n for k in range(n)]
    rng.shuffle(values)
    values = [round(v * 2**20) / 2**20 for v in values]
    split = []
    for shape in shapes:
        split.append(values[:count(shape)])
        values = values[count(shape):]
    return split


def main():
    argv = [a for a in sys.argv[1:] if not a.startswith("--")]
    perturb = "--perturb-gradient" in sys.argv
    prec_run, module_path, work = argv[0], argv[1], argv[2]
    functions = argv[3:] or ["loss"]
    module = open(module_path).read()
    os.makedirs(work, exist_ok=True)

    check = Checker("finite differences" + (" (gradient perturbed)" if perturb else ""))
    rng = random.Random(16)
    for function in functions:
        shapes = parse_signature(module, function)
        program = os.path.join(work, "%s.mlir" % function)
        with open(program, "w") as out:
            out.write(module + "\n" + entries(function, shapes))
        files = []
        for i, values in enumerate(inputs(shapes, rng)):
            write(os.path.join(work, "%s_arg%d_0.bin" % (function, i)), values)
            files += ["--arg", "%d=%s" % (i, os.path.join(work, "%s_arg%d_%%r.bin"
                                                           % (function, i)))]

        def run(entry):
            output = os.path.join(work, entry)
            subprocess.run([prec_run, program, "--ranks", "1", "--entry", entry,
                            "--print", "none", "--output-dir", output] + files,
                           check=True)
            return output

        gradient_dir = run(function + "_gradient")
        losses = read(rank_file(run(function + "_differences"), 0, "result", 0), "f64")
        position = 0
        for i, shape in enumerate(shapes):
            gradient = read(rank_file(gradient_dir, 0, "result", i), "f64")
            for j, index in enumerate(indices(shape)):
                plus, minus, plus2, minus2 = losses[4 * position:4 * position + 4]
                d1 = (plus - minus) / (2 * STEP)
                d2 = (plus2 - minus2) / (4 * STEP)
                g = gradient[j]
                if perturb:
                    g += 1e-4 * (1 + abs(g))
                tolerance = (2 * abs(d2 - d1) / 3
                             + 2.0**-40 * (2 + abs(plus) + abs(minus)) / (2 * STEP)
                             + 2.0**-40 * abs(g))
                check.close("@%s d(arg %d)%s" % (function, i, index), g, d1, tolerance)
                position += 1
    return check.finish()


if __name__ == "__main__":
    sys.exit(main())
