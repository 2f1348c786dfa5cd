"""Trains examples/nanogpt or examples/llama on 4 ranks with prec
(python -m prec_torch, then prec-run), printing the loss of every step, then
the same module, initial weights, batches and policy with PyTorch FSDP2
(gloo), and writes both loss curves (CSV, a text plot, and a PNG where
matplotlib is installed).

Usage: python examples/train_compare.py nanogpt|llama [--steps 300]
           [--ranks 4] [--policy bf16|f32] [--no-fsdp2] [--out DIR]

Run it with the environment `make check-torch` creates:
build/venv-torch/bin/python examples/train_compare.py nanogpt
"""
import argparse
import csv
import os
import re
import shlex
import subprocess
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "python"))

MODELS = {
    "nanogpt": dict(vocab=256, dim=32, heads=2, seq=32, layers=4, batch=4),
    "llama": dict(vocab=256, dim=32, heads=2, seq=32, layers=4, batch=4),
}
LR, BETAS, EPS, WD = 3e-3, (0.9, 0.95), 1e-8, 0.1


def text_plot(curves, width=72, height=16):
    """Loss curves as characters: one symbol per curve, `*` where they meet."""
    values = [v for _, ys in curves for v in ys]
    lo, hi = min(values), max(values)
    steps = max(len(ys) for _, ys in curves)
    grid = [[" "] * width for _ in range(height)]
    for symbol, ys in curves:
        for i, y in enumerate(ys):
            col = i * (width - 1) // max(steps - 1, 1)
            row = round((hi - y) / (hi - lo or 1) * (height - 1))
            grid[row][col] = "*" if grid[row][col] not in (" ", symbol) else symbol
    lines = ["%8.3f |%s" % (hi - r * (hi - lo) / (height - 1), "".join(row))
             for r, row in enumerate(grid)]
    lines.append("         +" + "-" * width)
    lines.append("          step 0%s%d" % (" " * (width - 10 - len(str(steps - 1))), steps - 1))
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model", choices=sorted(MODELS))
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--ranks", type=int, default=4)
    parser.add_argument("--policy", choices=["bf16", "f32"], default="bf16")
    parser.add_argument("--no-fsdp2", action="store_true")
    parser.add_argument("--out")
    options = parser.parse_args()
    config = MODELS[options.model]
    out = os.path.abspath(options.out or os.path.join(REPO, "build", "examples", options.model))
    os.makedirs(out, exist_ok=True)
    tokens = os.path.join(out, "tokens.u16")
    subprocess.run([sys.executable, os.path.join(REPO, "utils", "byte-tokens.py"), tokens],
                   check=True, stdout=subprocess.DEVNULL)
    model = os.path.join(REPO, "examples", options.model, "model.py")
    command = [sys.executable, "-m", "prec_torch", model + ":" + options.model,
               "--factory-kwargs", ",".join("%s=%d" % kv for kv in config.items()),
               "--loss", "cross_entropy", "--mesh", str(options.ranks), "--reduce-dtype", "f32",
               "--optimizer", "adamw", "--lr", repr(LR), "--betas", "%r,%r" % BETAS,
               "--eps", repr(EPS), "--weight-decay", repr(WD), "--tokens", tokens,
               "--steps", str(options.steps), "--out", os.path.join(out, "prec")]
    if options.policy == "bf16":
        command += ["--param-dtype", "bf16"]
    env = dict(os.environ, PYTHONPATH=os.path.join(REPO, "python"))
    made = subprocess.run(command, env=env, stdout=subprocess.PIPE, text=True)
    if made.returncode:
        return made.returncode
    print(made.stdout, end="")
    run = shlex.split(made.stdout.strip().splitlines()[-1])

    # prec: the loss (the step's last result) of every step as it comes.
    start = time.time()
    prec = {}
    process = subprocess.Popen(run + ["--print", "summary"], stdout=subprocess.PIPE, text=True)
    for line in process.stdout:
        match = re.match(r"step (\d+): result (\d+) = (\S+)", line)
        if match:
            step, index = int(match.group(1)), int(match.group(2))
            if prec.get(step, (-1, 0))[0] < index:
                if step - 1 in prec and step not in prec:
                    print("prec  step %4d  loss %.6f" % (step - 1, prec[step - 1][1]))
                prec[step] = (index, float(match.group(3)))
    if process.wait():
        return process.returncode
    print("prec  step %4d  loss %.6f" % (options.steps - 1, prec[options.steps - 1][1]))
    prec_losses = [prec[s][1] for s in range(options.steps)]
    print("prec: %d steps in %.1f s (compile included)" % (options.steps, time.time() - start))

    rows = [["step", "prec"]] + [[s, v] for s, v in enumerate(prec_losses)]
    curves = [("p", prec_losses)]
    if not options.no_fsdp2:
        import torch
        from prec_torch import fsdp2

        start = time.time()
        fsdp2_config = dict(
            model=model + ":" + options.model, wrap=model + ":blocks", factory_kwargs=config,
            init=os.path.join(out, "prec", "init.safetensors"), batch=config["batch"],
            seq=config["seq"], steps=options.steps, ranks=options.ranks,
            param_dtype=torch.bfloat16 if options.policy == "bf16" else None,
            reduce_dtype=torch.float32, optimizer="adamw", lr=LR, betas=BETAS, eps=EPS,
            weight_decay=WD)
        losses, _ = fsdp2.train(fsdp2_config, fsdp2.read_tokens(tokens), os.path.join(out, "fsdp2.pt"))
        print("FSDP2: %d steps in %.1f s" % (options.steps, time.time() - start))
        rows = [["step", "prec", "fsdp2"]] + [[s, a, b] for s, (a, b) in enumerate(zip(prec_losses, losses))]
        curves.append(("f", losses))
        every = max(options.steps // 12, 1)
        print("steps      prec (mean)  FSDP2 (mean)  largest |prec - FSDP2|")
        for first in range(0, options.steps, every):
            a, b = prec_losses[first:first + every], losses[first:first + every]
            print("%4d-%-4d  %.4f       %.4f        %.4g" % (
                first, first + len(a) - 1, sum(a) / len(a), sum(b) / len(b),
                max(abs(x - y) for x, y in zip(a, b))))
    with open(os.path.join(out, "loss.csv"), "w", newline="") as f:
        csv.writer(f).writerows(rows)
    plot = text_plot(curves)
    with open(os.path.join(out, "loss.txt"), "w") as f:
        f.write(plot + "\n")
    print("loss (p: prec, f: FSDP2, *: both)\n" + plot)
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        plt.figure(figsize=(7, 4))
        for symbol, ys in curves:
            plt.plot(ys, label={"p": "prec", "f": "FSDP2"}[symbol], linewidth=1)
        plt.xlabel("step")
        plt.ylabel("loss")
        plt.legend()
        plt.savefig(os.path.join(out, "loss.png"), dpi=100)
    except ImportError:
        pass
    print("wrote %s, %s" % (os.path.join(out, "loss.csv"), os.path.join(out, "loss.txt")))
    return 0


if __name__ == "__main__":
    sys.exit(main())
