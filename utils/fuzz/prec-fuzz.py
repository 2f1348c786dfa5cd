#!/usr/bin/env python3
"""A structured fuzzer for prec-opt (and optionally prec-run).

Inputs come from two sources, both seeded:
  * mutations of the test suite's and the examples' .mlir files (split at
    `// -----`): numbers replaced by edge values (0, -1, 2^31, 2^61, ...),
    element types swapped (f32, bf16, f8E4M3FN, f4E2M1FN, i32, ...),
    reductions, roundings and scalings exchanged, lines deleted or doubled;
  * programs generated from the ops of the prec dialect, with random grids,
    shapes, dtypes and attributes, mostly valid so that passes run deep.

Each input runs through prec-opt with one action: verify and print, the
generic form re-parsed, one pass, a pass list, or a whole pipeline. An
outcome is fine when prec-opt exits 0, or exits 1 with an `error:`
diagnostic. Everything else is a finding, written to --out as a reproducer
(the input and the command):
  * a crash: a signal, "Stack dump", "LLVM ERROR", "UNREACHABLE", an
    assertion, "terminate called";
  * a hang: no exit within --timeout seconds;
  * a non-zero exit without a diagnostic;
  * output that does not parse again (printer and parser disagree).

Usage:
  prec-fuzz.py --prec-opt build/bin/prec-opt --iterations 300 --seed 1
  prec-fuzz.py --prec-opt build/bin/prec-opt --prec-run build/bin/prec-run \\
               --seconds 3600 --out fuzz-findings     # a long run

Exit status: 0 when nothing was found, 1 otherwise.
"""
import argparse
import concurrent.futures
import os
import random
import re
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

CRASH_MARKERS = ("Stack dump", "PLEASE submit a bug report", "LLVM ERROR",
                 "UNREACHABLE", "Assertion", "terminate called",
                 "AddressSanitizer", "UndefinedBehaviorSanitizer",
                 "runtime error:")

FLOAT_TYPES = ["f64", "f32", "f16", "bf16", "f8E4M3FN", "f8E5M2"]
ODD_TYPES = ["f8E8M0FNU", "f4E2M1FN", "f8E4M3FNUZ", "i32", "i8", "index",
             "f80", "tf32"]
EDGE_INTS = ["0", "1", "-1", "2", "3", "7", "65535", "65536", "2147483647",
             "2147483648", "4294967296", "2305843009213693952",
             "4611686018427387904", "9223372036854775807", "-9223372036854775808"]
EDGE_FLOATS = ["0.0", "-0.0", "1.0", "-1.0", "0.1", "1.0e-300", "1.0e39",
               "1.0e300", "65505.0", "3.0e-45", "0x7FF0000000000000",
               "0x7FF8000000000000", "0xFFF0000000000000"]
KEYWORD_SWAPS = [("<sum>", ["<avg>", "<max>", "<min>", "<prod>"]),
                 ("<avg>", ["<sum>", "<max>"]),
                 ("<nearest_even>", ["<stochastic>"]),
                 ("<stochastic>", ["<nearest_even>"]),
                 ("<direct>", ["<ring>"]), ("<ring>", ["<direct>"]),
                 ("<dynamic>", ["<block>", "<delayed>"]),
                 ("all_gather", ["all_reduce", "reduce_scatter", "all_to_all"]),
                 ("reduce_scatter", ["all_gather", "all_reduce"]),
                 ("gather_axis", ["scatter_axis", "split_axis"]),
                 ("grid_axes = [", ["grid_axes = [7, ", "grid_axes = [-1, "])]

SINGLE_PASSES = [
    "--prec-apply-policy", "--prec-generate-backward", "--prec-infer-precision",
    "--prec-divide-factors", "--prec-fold-casts", "--prec-error-bounds",
    "--prec-materialize-scales", "--prec-bucket-collectives",
    "--prec-decompose-collectives", "--convert-prec-to-linalg",
    "--prec-accumulate-microbatches", "--canonicalize", "--cse"]
PIPELINES = ["--prec-lower-to-cpu", "--prec-lower-to-cuda-emulation",
             "--prec-lower-to-cuda"]


# ----------------------------------------------------------------------------
# Inputs
# ----------------------------------------------------------------------------

def load_corpus():
    """Every chunk of every .mlir file under test/ and examples/."""
    chunks = []
    for top in ("test", "examples"):
        for directory, _, files in os.walk(os.path.join(ROOT, top)):
            for name in sorted(files):
                if not name.endswith(".mlir"):
                    continue
                with open(os.path.join(directory, name), errors="replace") as f:
                    text = f.read()
                for chunk in text.split("// -----"):
                    body = "\n".join(line for line in chunk.splitlines()
                                     if not line.lstrip().startswith("// RUN"))
                    if "func.func" in body or "shard.grid" in body:
                        chunks.append(body)
    return chunks


def mutate(rng, text):
    """One to four random edits of `text`."""
    for _ in range(rng.randint(1, 4)):
        choice = rng.random()
        if choice < 0.3:
            # Not result numbers (`%x#N`): MLIR's parser allocates a slot
            # per result number up to N, so #2147483648 takes tens of GiB in
            # upstream code before prec sees anything.
            numbers = list(re.finditer(r"(?<![\w.#])\d+(?![\w.])", text))
            if numbers:
                m = rng.choice(numbers)
                text = text[:m.start()] + rng.choice(EDGE_INTS) + text[m.end():]
        elif choice < 0.5:
            types = list(re.finditer(r"\b(f64|f32|f16|bf16|f8E4M3FN|f8E5M2)\b", text))
            if types:
                m = rng.choice(types)
                text = text[:m.start()] + rng.choice(FLOAT_TYPES + ODD_TYPES) + text[m.end():]
        elif choice < 0.6:
            floats = list(re.finditer(r"-?\d+\.\d+(e[-+]?\d+)?", text))
            if floats:
                m = rng.choice(floats)
                text = text[:m.start()] + rng.choice(EDGE_FLOATS) + text[m.end():]
        elif choice < 0.75:
            old, news = rng.choice(KEYWORD_SWAPS)
            if old in text:
                text = text.replace(old, rng.choice(news), 1)
        elif choice < 0.87:
            lines = text.splitlines()
            if len(lines) > 2:
                del lines[rng.randrange(len(lines))]
                text = "\n".join(lines)
        else:
            lines = text.splitlines()
            if lines:
                i = rng.randrange(len(lines))
                lines.insert(i, lines[i])
                text = "\n".join(lines)
    return text


def tensor(shape, dtype):
    return "tensor<%s%s>" % ("".join("%dx" % d for d in shape), dtype)


def generate(rng):
    """A program of prec ops on one grid, mostly valid."""
    axes = [rng.choice([1, 2, 2, 3, 4, 8]) for _ in range(rng.choice([1, 1, 2, 3]))]
    if rng.random() < 0.05:
        axes[rng.randrange(len(axes))] = rng.choice([0, 65536, 2147483648])
    group_axes = sorted(rng.sample(range(len(axes)), rng.randint(1, len(axes))))
    group = 1
    for a in group_axes:
        group *= axes[a]
    axes_attr = "" if len(group_axes) == len(axes) or rng.random() < 0.2 else \
        " grid_axes = [%s]" % ", ".join(map(str, group_axes))
    lines = ["shard.grid @g(shape = %s)" % "x".join(map(str, axes))]
    rank = rng.choice([1, 1, 2, 3])
    base = [rng.choice([1, 2, 3, 4, 5, 8, 16]) for _ in range(rank)]
    args, body, results = [], [], []

    def arg(shape, dtype):
        name = "%%a%d" % len(args)
        args.append("%s: %s" % (name, tensor(shape, dtype)))
        return name

    def wire_attrs(input_dtype, reducing):
        attrs = ""
        forward = rng.choice(FLOAT_TYPES + [input_dtype] * 3)
        if forward != input_dtype:
            attrs += " forward_dtype = %s" % forward
        if forward.startswith("f8") and forward != input_dtype:
            attrs += " scaling = %s" % rng.choice(
                ["<dynamic>", "<block, 32>", "<block, 4>"])
        if reducing and rng.random() < 0.5:
            attrs += " acc_dtype = %s" % rng.choice(["f32", "f64", "f16", "bf16"])
        if rng.random() < 0.1:
            attrs += " backward_dtype = %s" % rng.choice(FLOAT_TYPES)
        return attrs

    for i in range(rng.randint(1, 5)):
        kind = rng.choice(["all_gather", "reduce_scatter", "all_reduce",
                           "all_to_all", "cast", "sgd", "adamw", "amax"])
        dtype = rng.choice(FLOAT_TYPES[:4])
        shape = list(base)
        axis = rng.randrange(rank)
        out = "%%r%d" % i
        if kind == "all_gather":
            x = arg(shape, dtype)
            gathered = list(shape)
            gathered[axis] *= group
            rtype = rng.choice([dtype, "f32", "bf16"])
            body.append("  %s = prec.all_gather %s on @g%s gather_axis = %d%s : %s -> %s"
                        % (out, x, axes_attr, axis, wire_attrs(dtype, False),
                           tensor(shape, dtype), tensor(gathered, rtype)))
            results.append((out, tensor(gathered, rtype)))
        elif kind == "reduce_scatter":
            full = list(shape)
            full[axis] *= group
            x = arg(full, dtype)
            reduction = rng.choice(["sum", "avg", "max", "min"])
            divisors = ""
            if reduction == "sum" and rng.random() < 0.2:
                divisors = " pre_divisor = %s" % rng.choice(["2.0", "0.5", "3.0", "1.0e30"])
            body.append("  %s = prec.reduce_scatter %s on @g%s scatter_axis = %d reduction = <%s>%s%s : %s -> %s"
                        % (out, x, axes_attr, axis, reduction, divisors,
                           wire_attrs(dtype, True), tensor(full, dtype),
                           tensor(shape, dtype)))
            results.append((out, tensor(shape, dtype)))
        elif kind == "all_reduce":
            x = arg(shape, dtype)
            reduction = rng.choice(["sum", "avg", "max", "min"])
            body.append("  %s = prec.all_reduce %s on @g%s reduction = <%s>%s : %s -> %s"
                        % (out, x, axes_attr, reduction, wire_attrs(dtype, True),
                           tensor(shape, dtype), tensor(shape, dtype)))
            results.append((out, tensor(shape, dtype)))
        elif kind == "all_to_all":
            split = rng.randrange(rank)
            concat = rng.randrange(rank)
            src = list(shape)
            src[split] *= group
            dst = list(src)
            dst[split] //= max(group, 1)
            dst[concat] *= group
            x = arg(src, dtype)
            body.append("  %s = prec.all_to_all %s on @g%s split_axis = %d concat_axis = %d%s : %s -> %s"
                        % (out, x, axes_attr, split, concat, wire_attrs(dtype, False),
                           tensor(src, dtype), tensor(dst, dtype)))
            results.append((out, tensor(dst, dtype)))
        elif kind == "cast":
            x = arg(shape, dtype)
            to = rng.choice(FLOAT_TYPES[:4])
            body.append("  %s = prec.cast %s : %s to %s"
                        % (out, x, tensor(shape, dtype), tensor(shape, to)))
            results.append((out, tensor(shape, to)))
        elif kind == "sgd":
            p = arg(shape, "f32")
            g = arg(shape, rng.choice(["f32", "bf16", "f16"]))
            args.append("%%lr%d: f32" % i)
            gtype = args[-2].split(": ")[1]
            body.append("  %s = prec.sgd %s, %s, %%lr%d : %s, %s"
                        % (out, p, g, i, tensor(shape, "f32"), gtype))
            results.append((out, tensor(shape, "f32")))
        elif kind == "adamw":
            p = arg(shape, "f32")
            g = arg(shape, "bf16")
            m = arg(shape, "f32")
            v = arg(shape, "f32")
            args.append("%%lr%d: f32" % i)
            args.append("%%step%d: f32" % i)
            body.append("  %s:3 = prec.adamw %s, %s, %s, %s, %%lr%d, %%step%d : %s, %s"
                        % (out, p, g, m, v, i, i, tensor(shape, "f32"),
                           tensor(shape, "bf16")))
            results.append((out + "#0", tensor(shape, "f32")))
        else:
            x = arg(shape, dtype)
            body.append("  %s = prec.amax %s : %s -> f32" % (out, x, tensor(shape, dtype)))
            results.append((out, "f32"))
    lines.append("func.func @step(%s) -> (%s) {" % (
        ", ".join(args), ", ".join(t for _, t in results)))
    lines.extend(body)
    lines.append("  return %s : %s" % (", ".join(v for v, _ in results),
                                       ", ".join(t for _, t in results)))
    lines.append("}")
    return "\n".join(lines) + "\n", axes


# ----------------------------------------------------------------------------
# Running
# ----------------------------------------------------------------------------

def classify(returncode, stderr, timed_out):
    """None when the outcome is fine, else what is wrong."""
    if timed_out:
        return "hang"
    for marker in CRASH_MARKERS:
        if marker in stderr:
            return "crash (%s)" % marker
    if returncode < 0:
        return "crash (signal %d)" % -returncode
    if returncode != 0 and "error:" not in stderr:
        return "exit %d without a diagnostic" % returncode
    return None


def run(command, text, timeout):
    try:
        done = subprocess.run(command, input=text, capture_output=True,
                              text=True, timeout=timeout, errors="replace")
        return done.returncode, done.stdout, done.stderr, False
    except subprocess.TimeoutExpired:
        return None, "", "", True


def check_one(task):
    """Runs one input with one action; returns whether it was accepted (exit
    0) and the findings as (what, command, input) tuples."""
    text, action, tools, timeout = task
    prec_opt = tools["prec-opt"]
    findings = []
    accepted = False
    if action and action[0] == "prec-run":
        ranks = action[1]
        command = [tools["prec-run"], "--ranks", str(ranks), "--print", "none",
                   "--timeout-ms", "5000", "--max-memory", "1G"]
        with tempfile.NamedTemporaryFile("w", suffix=".mlir", delete=False) as f:
            f.write(text)
            path = f.name
        try:
            code, _, err, hung = run(command + [path], None, timeout * 3)
        finally:
            os.unlink(path)
        problem = classify(code if code is not None else 0, err, hung)
        if problem:
            findings.append((problem, command + ["input.mlir"], text))
        return code == 0, findings
    command = [prec_opt] + list(action) + ["-"]
    code, out, err, hung = run(command, text, timeout)
    problem = classify(code if code is not None else 0, err, hung)
    if problem:
        findings.append((problem, command, text))
        return False, findings
    accepted = code == 0
    # What prec-opt printed must parse again, in both forms.
    if code == 0 and out.strip() and "--prec-lower" not in " ".join(action):
        for form in ([], ["--mlir-print-op-generic"]):
            again = [prec_opt] + form + ["-"]
            code2, out2, err2, hung2 = run(again, out, timeout)
            problem = classify(code2 if code2 is not None else 0, err2, hung2)
            if problem or code2 != 0:
                findings.append(("printed output does not parse again: %s"
                                 % (problem or err2.strip().splitlines()[:1]),
                                 command + ["|"] + again, text))
                break
    return accepted, findings


def pick_action(rng, with_run, axes):
    choice = rng.random()
    if with_run and axes is not None and choice < 0.05:
        ranks = 1
        for a in axes:
            ranks *= a
        if 1 <= ranks <= 16:
            return ("prec-run", ranks)
    if choice < 0.15:
        return ()
    if choice < 0.25:
        return ("--mlir-print-op-generic",)
    if choice < 0.6:
        return (rng.choice(SINGLE_PASSES),)
    if choice < 0.75:
        return tuple(rng.sample(SINGLE_PASSES, rng.randint(2, 4)))
    return (rng.choice(PIPELINES),)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--prec-opt", required=True)
    parser.add_argument("--prec-run", help="also run generated programs")
    parser.add_argument("--iterations", type=int, default=0,
                        help="inputs to try (0: until --seconds)")
    parser.add_argument("--seconds", type=float, default=0,
                        help="stop after this long (0: after --iterations)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--timeout", type=float, default=30.0,
                        help="seconds before a prec-opt run counts as a hang")
    parser.add_argument("--out", help="directory for reproducers of findings")
    args = parser.parse_args()
    if not args.iterations and not args.seconds:
        parser.error("give --iterations or --seconds")

    rng = random.Random(args.seed)
    corpus = load_corpus()
    tools = {"prec-opt": args.prec_opt, "prec-run": args.prec_run}
    started = time.time()

    def tasks():
        produced = 0
        while True:
            if args.iterations and produced >= args.iterations:
                return
            if args.seconds and time.time() - started > args.seconds:
                return
            produced += 1
            if rng.random() < 0.5:
                text, axes = mutate(rng, rng.choice(corpus)), None
            else:
                text, axes = generate(rng)
                if rng.random() < 0.3:
                    text = mutate(rng, text)
                    axes = None
            yield (text, pick_action(rng, bool(args.prec_run), axes), tools,
                   args.timeout)

    findings, tried, accepted = [], 0, 0

    def collect(future):
        nonlocal tried, accepted
        ok, found = future.result()
        findings.extend(found)
        tried += 1
        accepted += ok

    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        pending = set()
        source = tasks()
        for task in source:
            pending.add(pool.submit(check_one, task))
            if len(pending) >= 2 * args.jobs:
                done, pending = concurrent.futures.wait(
                    pending, return_when=concurrent.futures.FIRST_COMPLETED)
                for future in done:
                    collect(future)
        for future in concurrent.futures.as_completed(pending):
            collect(future)

    for index, (what, command, text) in enumerate(findings):
        print("finding %d: %s\n  command: %s" % (index, what, " ".join(command)))
        if args.out:
            os.makedirs(args.out, exist_ok=True)
            path = os.path.join(args.out, "finding-%d.mlir" % index)
            with open(path, "w") as f:
                f.write("// %s\n// command: %s\n%s" % (what, " ".join(command), text))
            print("  input: %s" % path)
        else:
            print("  input:\n" + "\n".join("    " + l for l in text.splitlines()))
    print("prec-fuzz: %d inputs in %.0f s (%d accepted, the rest diagnosed), "
          "%d findings (seed %d)" % (tried, time.time() - started, accepted,
                                     len(findings), args.seed))
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
