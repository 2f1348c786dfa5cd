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

Given examples/transformer_block_step.mlir (two residual blocks with
RMSNorm and SiLU, 4 ranks, AdamW with lr 0.01), the same three variants
({prec.grad_dtype = f32} on all six gathers; all f32 as in
test/Integration/CPU/transformer-block-step.test) against float64 AdamW
training; the time per step and its parts come from prec-run --profile, and
the peak of buffers in use per rank with them.
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


def study_fsdp(prec_run, example, work, steps, plot):
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


# examples/transformer_block_step.mlir: width D, hidden H, B tokens per rank.
D, H, B = 16, 32, 8
RMS_EPS = 1e-6
T_LR, BETA1, BETA2, ADAM_EPS, WD = 0.01, 0.9, 0.999, 1e-8, 1e-2
# Per parameter: full shape (rows, columns; columns 1 for vectors).
T_PARAMS = [(D, 1), (D, H), (H, D), (D, 1), (D, H), (H, D)]


def transformer_sources(example):
    text = open(example).read()
    gathered = re.sub(r"(forward_dtype = bf16 backward_dtype = f32)\n",
                      r"\1 {prec.grad_dtype = f32}\n", text)
    assert gathered.count("prec.grad_dtype") == 6
    # Casts between equal types are invalid: in f32 they become max(v, v).
    f32 = re.sub(r"arith\.extf (%[a-z0-9_]+) : bf16 to f32",
                 r"arith.maximumf \1, \1 : f32", text)
    f32 = re.sub(r"arith\.truncf (%[a-z0-9_]+) : f32 to bf16",
                 r"arith.maximumf \1, \1 : f32", f32)
    return {"bf16 grads": text, "f32 grads": gathered,
            "all f32": f32.replace("bf16", "f32")}


def run_transformer(prec_run, module, out, steps, inputs, profile=False):
    command = [prec_run, module, "--ranks", str(RANKS), "--steps", str(steps),
               "--scalar", "18=1", "--scalar", "21=%r" % T_LR, "--print", "summary",
               "--output-dir", out]
    if profile:
        command += ["--profile"]
    for index, pattern in inputs.items():
        command += ["--arg", "%d=%s" % (index, pattern)]
    done = subprocess.run(command, check=True, capture_output=True, text=True)
    text = done.stdout + done.stderr
    losses = [float(v) for v in re.findall(r"step \d+: result 19 = (\S+)", text)]
    return losses, text


def sigmoid(v):
    return 1 / (1 + math.exp(-v))


def transformer_gradients(params, x, target):
    """One rank's loss and gradients of the six full parameters, in float64."""
    saved = []
    for block in range(2):
        gain, w1, w2 = params[3 * block:3 * block + 3]
        r_t = [(sum(v * v for v in row) / D + RMS_EPS) ** -0.5 for row in x]
        n = [[x[t][f] * r_t[t] * gain[f][0] for f in range(D)] for t in range(B)]
        h = matmul(n, w1)
        a = [[v * sigmoid(v) for v in row] for row in h]
        y = matmul(a, w2)
        saved.append((x, r_t, n, h, a))
        x = [[x[t][f] + y[t][f] for f in range(D)] for t in range(B)]
    loss = sum((x[t][f] - target[t][f]) ** 2 for t in range(B) for f in range(D)) / (B * D)
    dx = [[2 * (x[t][f] - target[t][f]) / (B * D) for f in range(D)] for t in range(B)]
    grads = [None] * 6
    for block in (1, 0):
        gain, w1, w2 = params[3 * block:3 * block + 3]
        xb, r_t, n, h, a = saved[block]
        dw2 = matmul(transpose(a), dx)
        da = matmul(dx, transpose(w2))
        dh = [[da[t][j] * sigmoid(h[t][j]) * (1 + h[t][j] * (1 - sigmoid(h[t][j])))
               for j in range(H)] for t in range(B)]
        dw1 = matmul(transpose(n), dh)
        dn = matmul(dh, transpose(w1))
        dgain = [[sum(dn[t][f] * xb[t][f] * r_t[t] for t in range(B))] for f in range(D)]
        u = [[dn[t][f] * gain[f][0] for f in range(D)] for t in range(B)]
        for t in range(B):
            dot = sum(u[t][f] * xb[t][f] for f in range(D))
            for f in range(D):
                dx[t][f] += r_t[t] * u[t][f] - r_t[t] ** 3 / D * xb[t][f] * dot
        grads[3 * block:3 * block + 3] = [dgain, dw1, dw2]
    return loss, grads


def transformer_reference(params, xs, ts, steps):
    """float64 AdamW on the mean over ranks of each rank's mean squared error,
    with prec-run's f32 learning rate."""
    lr = struct.unpack("<f", struct.pack("<f", T_LR))[0]
    moments = [([[0.0] * len(row) for row in p], [[0.0] * len(row) for row in p])
               for p in params]
    trajectory, losses = {}, []
    for step in range(1, steps + 1):
        total = [[[0.0] * len(row) for row in p] for p in params]
        loss = 0.0
        for x, t in zip(xs, ts):
            rank_loss, grads = transformer_gradients(params, x, t)
            loss += rank_loss / RANKS
            for acc, grad in zip(total, grads):
                for i, row in enumerate(grad):
                    for j, v in enumerate(row):
                        acc[i][j] += v / RANKS
        losses.append(loss)
        updated = []
        for p, g, (m, v) in zip(params, total, moments):
            rows = []
            for i in range(len(p)):
                row = []
                for j in range(len(p[i])):
                    m[i][j] = BETA1 * m[i][j] + (1 - BETA1) * g[i][j]
                    v[i][j] = BETA2 * v[i][j] + (1 - BETA2) * g[i][j] ** 2
                    m_hat = m[i][j] / (1 - BETA1 ** step)
                    v_hat = v[i][j] / (1 - BETA2 ** step)
                    row.append(p[i][j] * (1 - lr * WD) - lr * m_hat / (math.sqrt(v_hat) + ADAM_EPS))
                rows.append(row)
            updated.append(rows)
        params = updated
        trajectory[step] = params
    return trajectory, losses


def transformer_error(prec_dir, ref):
    num = den = 0.0
    for index, ((_, cols), matrix) in enumerate(zip(T_PARAMS, ref)):
        flat = [v for r in range(RANKS)
                for v in read(rank_file(prec_dir, r, "result", index), "f32")]
        want = [v for row in matrix for v in row]
        num += sum((a - b) ** 2 for a, b in zip(flat, want))
        den += sum(b * b for b in want)
    return math.sqrt(num / den)


def parse_profile(text):
    """Rank 0's step time and its parts (ms) and peak of buffers in use."""
    block = text[text.index("rank 0: profile"):]
    def ms(name):
        return float(re.search(r"\n  %s\s+([0-9.]+) ms" % re.escape(name), block).group(1))
    return {"step": ms("step"), "gemm": ms("gemm (precrtCompiledMatmul)"),
            "compute": ms("compute kernels"), "pack": ms("pack/unpack kernels"),
            "collectives": ms("collectives"),
            "peak": int(re.search(r"peak buffers in use\s+(\d+) bytes", block).group(1))}


def study_transformer(prec_run, example, work, steps, plot):
    sources = transformer_sources(example)
    modules = {}
    for name, text in sources.items():
        modules[name] = os.path.join(work, name.replace(" ", "_") + ".mlir")
        open(modules[name], "w").write(text)

    # Zero moments, and the initial arguments from prec-run's seeded
    # initialization, shared by every variant.
    init = os.path.join(work, "init")
    os.makedirs(init, exist_ok=True)
    inputs = {}
    for index, (rows, cols) in enumerate(T_PARAMS * 2):
        path = os.path.join(init, "zeros%d.bin" % (6 + index))
        with open(path, "wb") as out:
            out.write(struct.pack("<%df" % (rows * cols // RANKS), *([0.0] * (rows * cols // RANKS))))
        inputs[6 + index] = path
    run_transformer(prec_run, modules["bf16 grads"], init, 1, inputs)
    for i in list(range(6)) + [19, 20]:
        inputs[i] = os.path.join(init, "rank%%r_arg%d.bin" % i)
    params = []
    for i, (rows, cols) in enumerate(T_PARAMS):
        flat = [v for r in range(RANKS) for v in read(rank_file(init, r, "arg", i), "f32")]
        params.append(rows_of(flat, cols))
    xs = [rows_of(read(rank_file(init, r, "arg", 19), "f32"), D) for r in range(RANKS)]
    ts = [rows_of(read(rank_file(init, r, "arg", 20), "f32"), D) for r in range(RANKS)]
    trajectory, ref_losses = transformer_reference(params, xs, ts, steps)

    checkpoints = [k for k in CHECKPOINTS if k <= steps]
    if steps not in checkpoints:
        checkpoints.append(steps)
    errors, losses, profiles = {}, {}, {}
    for name, module in modules.items():
        errors[name] = []
        for k in checkpoints:
            out = os.path.join(work, "%s-%d" % (name.replace(" ", "_"), k))
            curve, _ = run_transformer(prec_run, module, out, k, inputs)
            errors[name].append(transformer_error(out, trajectory[k]))
        losses[name] = curve
        profiles[name] = parse_profile(run_transformer(
            prec_run, module, os.path.join(work, "timing"), 200, inputs, profile=True)[1])

    print("| step | " + " | ".join("%s: rel. weight error" % n for n in modules) + " |")
    print("| --- |" + " --- |" * len(modules))
    for i, k in enumerate(checkpoints):
        print("| %d | " % k + " | ".join("%.2e" % errors[n][i] for n in modules) + " |")
    print()
    print("| step | float64 loss | " + " | ".join("%s loss" % n for n in modules) + " |")
    print("| --- | --- |" + " --- |" * len(modules))
    for k in checkpoints:
        print("| %d | %.6g | " % (k, ref_losses[k - 1])
              + " | ".join("%.6g" % losses[n][k - 1] for n in modules) + " |")
    print()
    print("| variant | step | gemm | compute kernels | pack/unpack | collectives | peak buffers in use |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for name in modules:
        p = profiles[name]
        print("| %s | %.3f ms | %.3f ms | %.3f ms | %.3f ms | %.3f ms | %d bytes |"
              % (name, p["step"], p["gemm"], p["compute"], p["pack"], p["collectives"], p["peak"]))
    print("\nload average after the runs: %s" % " ".join(
        "%.2f" % v for v in os.getloadavg()))

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
        fig.suptitle("examples/transformer_block_step.mlir, 4 ranks, AdamW lr %g" % T_LR)
        fig.tight_layout()
        fig.savefig(plot, dpi=100)


def main():
    prec_run, example, work = sys.argv[1:4]
    steps = int(sys.argv[4]) if len(sys.argv) > 4 else 40
    plot = sys.argv[5] if len(sys.argv) > 5 else None
    os.makedirs(work, exist_ok=True)
    if "transformer_block_step" in os.path.basename(example):
        study_transformer(prec_run, example, work, steps, plot)
    else:
        study_fsdp(prec_run, example, work, steps, plot)


if __name__ == "__main__":
    main()
