"""grad_dtype study: examples/fsdp_step.mlir trained with bf16 local weight
gradients (FSDP2's behaviour with MixedPrecisionPolicy(bf16, f32)) and with
`prec.grad_dtype = f32` on the gathered weights, against a float64 training
run of the same model from the same initial values.

Usage: grad_dtype_study.py PREC_RUN EXAMPLE WORK_DIR [STEPS] [PLOT.png]

Prints a markdown table (loss and relative weight error at several steps,
step time) and, given PLOT.png, draws loss and weight-error curves with
matplotlib. Variants, all on 4 ranks with SGD (lr 0.02):
- bf16 grads: the example as written;
- f32 grads: the same with {prec.grad_dtype = f32} on both all_gathers;
- all f32: every bf16 replaced by f32 (gathers, activations), the floor
  that f32 arithmetic reaches.
The reference recomputes the training in float64 from prec-run's initial
arguments (rank r's weight shards, inputs and targets), with no rounding.
"""
import math
import os
import re
import struct
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..",
                                "test", "Integration", "CPU", "Inputs"))
from reference import read, rank_file  # noqa: E402

RANKS, BATCH, HIDDEN, OUT, LR = 4, 8, 64, 16, 0.02
CHECKPOINTS = (1, 2, 5, 10, 20, 40, 80)


def variant_sources(example):
    text = open(example).read()
    gathered = re.sub(r"(forward_dtype = bf16 backward_dtype = f32)\n",
                      r"\1 {prec.grad_dtype = f32}\n", text)
    assert gathered.count("prec.grad_dtype") == 2
    return {"bf16 grads": text, "f32 grads": gathered,
            "all f32": text.replace("bf16", "f32")}


def run(prec_run, module, out, steps, inputs):
    command = [prec_run, module, "--ranks", str(RANKS), "--steps", str(steps),
               "--scalar", "4=%r" % LR, "--print", "summary", "--output-dir", out]
    for index, pattern in inputs.items():
        command += ["--arg", "%d=%s" % (index, pattern)]
    done = subprocess.run(command, check=True, capture_output=True, text=True)
    text = done.stdout + done.stderr
    losses = [float(v) for v in re.findall(r"step \d+: result 2 = (\S+)", text)]
    seconds = float(re.search(r"(\d+) step\(s\) in ([0-9.]+) s", text).group(2))
    return losses, seconds


def matmul(a, b):
    cols, inner = len(b[0]), len(b)
    return [[sum(row[k] * b[k][j] for k in range(inner)) for j in range(cols)] for row in a]


def transpose(a):
    return [list(r) for r in zip(*a)]


def rows_of(flat, cols):
    return [flat[i:i + cols] for i in range(0, len(flat), cols)]


def reference(w1, w2, xs, ts, steps):
    """float64 SGD on the mean over ranks of each rank's mean squared error."""
    trajectory, losses = {}, []
    for step in range(1, steps + 1):
        g1 = [[0.0] * HIDDEN for _ in range(HIDDEN)]
        g2 = [[0.0] * OUT for _ in range(HIDDEN)]
        loss = 0.0
        for x, t in zip(xs, ts):
            h = matmul(x, w1)
            y = matmul(h, w2)
            dy = [[2 * (y[i][j] - t[i][j]) / (BATCH * OUT) for j in range(OUT)]
                  for i in range(BATCH)]
            loss += sum((y[i][j] - t[i][j]) ** 2 for i in range(BATCH)
                        for j in range(OUT)) / (BATCH * OUT) / RANKS
            d2 = matmul(transpose(h), dy)
            d1 = matmul(transpose(x), matmul(dy, transpose(w2)))
            for g, d in ((g1, d1), (g2, d2)):
                for i, row in enumerate(d):
                    for j, v in enumerate(row):
                        g[i][j] += v / RANKS
        losses.append(loss)
        w1 = [[w - LR * g for w, g in zip(wr, gr)] for wr, gr in zip(w1, g1)]
        w2 = [[w - LR * g for w, g in zip(wr, gr)] for wr, gr in zip(w2, g2)]
        trajectory[step] = (w1, w2)
    return trajectory, losses


def relative_error(prec_dir, ref):
    num = den = 0.0
    for index, (matrix, cols) in enumerate(((ref[0], HIDDEN), (ref[1], OUT))):
        flat = [v for r in range(RANKS)
                for v in read(rank_file(prec_dir, r, "result", index), "f32")]
        want = [v for row in matrix for v in row]
        num += sum((a - b) ** 2 for a, b in zip(flat, want))
        den += sum(b * b for b in want)
    return math.sqrt(num / den)


def main():
    prec_run, example, work = sys.argv[1:4]
    steps = int(sys.argv[4]) if len(sys.argv) > 4 else 40
    plot = sys.argv[5] if len(sys.argv) > 5 else None
    os.makedirs(work, exist_ok=True)
    sources = variant_sources(example)
    modules = {}
    for name, text in sources.items():
        modules[name] = os.path.join(work, name.replace(" ", "_") + ".mlir")
        open(modules[name], "w").write(text)

    # The initial arguments, from prec-run's seeded initialization.
    init = os.path.join(work, "init")
    run(prec_run, modules["bf16 grads"], init, 1, {})
    inputs = {i: os.path.join(init, "rank%%r_arg%d.bin" % i) for i in range(4)}
    shards = [[read(rank_file(init, r, "arg", i), "f32") for i in (0, 1)]
              for r in range(RANKS)]
    w1 = rows_of([v for r in range(RANKS) for v in shards[r][0]], HIDDEN)
    w2 = rows_of([v for r in range(RANKS) for v in shards[r][1]], OUT)
    xs = [rows_of(read(rank_file(init, r, "arg", 2), "bf16"), HIDDEN) for r in range(RANKS)]
    ts = [rows_of(read(rank_file(init, r, "arg", 3), "f32"), OUT) for r in range(RANKS)]
    trajectory, ref_losses = reference(w1, w2, xs, ts, steps)
    # The all-f32 variant reads the same (bf16-exact) inputs as f32.
    for r in range(RANKS):
        with open(os.path.join(init, "x%d_f32.bin" % r), "wb") as out:
            out.write(struct.pack("<%df" % (BATCH * HIDDEN), *[v for row in xs[r] for v in row]))
    f32_inputs = dict(inputs)
    f32_inputs[2] = os.path.join(init, "x%r_f32.bin")

    checkpoints = [k for k in CHECKPOINTS if k <= steps]
    errors, losses, seconds = {}, {}, {}
    for name, module in modules.items():
        args = f32_inputs if name == "all f32" else inputs
        errors[name] = []
        for k in checkpoints:
            out = os.path.join(work, "%s-%d" % (name.replace(" ", "_"), k))
            curve, _ = run(prec_run, module, out, k, args)
            errors[name].append(relative_error(out, trajectory[k]))
        losses[name], _ = run(prec_run, module, os.path.join(work, name.replace(" ", "_")),
                              steps, args)
        seconds[name] = run(prec_run, module, os.path.join(work, "timing"), 500, args)[1] / 500

    print("| step | " + " | ".join("%s: rel. weight error" % n for n in modules) + " |")
    print("| --- |" + " --- |" * len(modules))
    for i, k in enumerate(checkpoints):
        print("| %d | " % k + " | ".join("%.2e" % errors[n][i] for n in modules) + " |")
    print()
    print("| step | float64 loss | " + " | ".join("%s loss" % n for n in modules) + " |")
    print("| --- | --- |" + " --- |" * len(modules))
    for k in checkpoints:
        # prec-run reports the loss of the weights before step k's update.
        print("| %d | %.6g | " % (k, ref_losses[k - 1])
              + " | ".join("%.6g" % losses[n][k - 1] for n in modules) + " |")
    print()
    print("| variant | time per step (4 ranks, 500 steps) |")
    print("| --- | --- |")
    for name in modules:
        print("| %s | %.1f us |" % (name, seconds[name] * 1e6))

    if plot:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
        left.plot(range(1, steps + 1), ref_losses, "k-", label="float64")
        for name in modules:
            left.plot(range(1, steps + 1), losses[name], "--", label=name)
            right.semilogy(checkpoints, errors[name], "o-", label=name)
        left.set_xlabel("step")
        left.set_ylabel("loss (mean over ranks)")
        left.set_yscale("log")
        left.legend()
        right.set_xlabel("step")
        right.set_ylabel("||W - W_float64|| / ||W_float64||")
        right.legend()
        fig.suptitle("examples/fsdp_step.mlir, 4 ranks, SGD lr %g" % LR)
        fig.tight_layout()
        fig.savefig(plot, dpi=100)


if __name__ == "__main__":
    main()
