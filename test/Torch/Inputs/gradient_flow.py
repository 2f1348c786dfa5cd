"""Trains a module of gradient_models.py with python -m prec_torch and
prec-run, and the same steps with single-process PyTorch (the ranks'
batches one after the other, their gradients averaged, the module in eval
mode as prec trains it), in float64 and float32.

Usage: gradient_flow.py FACTORY OUT [--loss L] [--optimizer O] [--lr LR]
       [--steps S] [--kwargs K=V,...] [--prec-opt P] [--prec-run P]

Prints the frontend's summary line, then `compare: ...` with the number of
losses and weights prec gets wrong: a loss is wrong when it is further from
float64's than 1e-6 relative plus 10 times float32's distance, a weight
when it is further than 10 times float32's distance (and 1e-7 of its
magnitude) and 1e-4 of how far it moved. A parameter the step holds
constant must be absent from the checkpoint and stay put in PyTorch, and
prec_torch.load_state_dict(..., strict=False) must give a fresh module the
trained state. Exit status 1 when anything is wrong.
"""
import argparse
import inspect
import os
import re
import shlex
import subprocess
import sys

import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
sys.path.insert(0, os.path.join(REPO, "python"))
from prec_torch.cli import load_factory, parse_factory_kwargs  # noqa: E402
from prec_torch.state import load_state_dict, read_safetensors  # noqa: E402

RANKS = 2


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("factory")
    parser.add_argument("out")
    parser.add_argument("--loss", default="module")
    parser.add_argument("--optimizer", default="sgd")
    parser.add_argument("--lr", type=float, default=0.1)
    parser.add_argument("--steps", type=int, default=4)
    parser.add_argument("--kwargs", default="")
    parser.add_argument("--prec-opt", default="prec-opt")
    parser.add_argument("--prec-run", default="prec-run")
    o = parser.parse_args()
    factory = os.path.join(HERE, "gradient_models.py") + ":" + o.factory
    command = [sys.executable, "-m", "prec_torch", factory, "--loss", o.loss,
               "--mesh", str(RANKS), "--optimizer", o.optimizer, "--lr", repr(o.lr),
               "--steps", str(o.steps), "--out", o.out, "--factory-kwargs", o.kwargs,
               "--prec-opt", o.prec_opt, "--prec-run", o.prec_run]
    env = dict(os.environ, PYTHONPATH=os.path.join(REPO, "python"))
    done = subprocess.run(command, env=env, capture_output=True, text=True)
    sys.stderr.write(done.stderr)
    if done.returncode:
        return done.returncode
    printed = done.stdout.strip().splitlines()
    print(printed[0])
    run = shlex.split(printed[-1])

    def build():
        torch.manual_seed(0)
        return load_factory(factory)(**parse_factory_kwargs(o.kwargs))

    model, inputs = build()
    inputs = list(inputs)
    model.eval()
    names = list(inspect.signature(model.forward).parameters)[:len(inputs)]
    with torch.no_grad():
        y = model(*inputs)
    if o.loss == "cross_entropy":
        inputs.append(torch.zeros(y.shape[:-1], dtype=torch.long))
        names.append("targets")
    elif o.loss == "mse":
        inputs.append(torch.zeros(y.shape))
        names.append("target")

    # One batch per step and rank, as prec-run's --data reads them.
    generator = torch.Generator().manual_seed(1234)
    windows = o.steps * RANKS
    data = {}
    for name, x in zip(names, inputs):
        if x.is_floating_point():
            d, tag = torch.randn((windows,) + tuple(x.shape), generator=generator), "f32"
        else:
            high = y.shape[-1] if o.loss == "cross_entropy" else 16
            d, tag = torch.randint(0, high, (windows,) + tuple(x.shape), generator=generator), "i64"
        path = os.path.join(o.out, "data_%s.bin" % name)
        with open(path, "wb") as f:
            f.write(d.contiguous().view(-1).numpy().tobytes())
        data[name] = d
        run += ["--data", "%s:%s=%s" % (name, tag, path)]
    ran = subprocess.run(run, capture_output=True, text=True)
    if ran.returncode:
        print(ran.stdout, ran.stderr)
        return 1
    found = {int(s): float(v) for s, v in re.findall(r"^step (\d+): result \d+ = (\S+)$",
                                                     ran.stdout, re.M)}
    prec_losses = [found[s] for s in range(o.steps)]
    init = read_safetensors(os.path.join(o.out, "init.safetensors"))
    final = read_safetensors(os.path.join(o.out, "final.safetensors"))

    def reference(dtype):
        m, _ = build()
        load_state_dict(m, os.path.join(o.out, "init.safetensors"), strict=False)
        m = m.to(dtype)
        m.eval()
        params = dict(m.named_parameters())
        trained = [p for p in params.values() if p.requires_grad]
        if o.optimizer == "adamw":
            opt = torch.optim.AdamW(trained, lr=o.lr, weight_decay=0.01)
        else:
            opt = torch.optim.SGD(trained, lr=o.lr)
        losses = []
        for step in range(o.steps):
            total = 0.0
            for rank in range(RANKS):
                xs = [data[n][step * RANKS + rank] for n in names]
                xs = [x.to(dtype) if x.is_floating_point() else x for x in xs]
                out = m(*xs[:len(xs) - (o.loss != "module")])
                if o.loss == "cross_entropy":
                    loss = F.cross_entropy(out.reshape(-1, out.shape[-1]), xs[-1].reshape(-1))
                elif o.loss == "mse":
                    loss = F.mse_loss(out, xs[-1])
                else:
                    loss = out
                (loss / RANKS).backward()
                total += loss.item() / RANKS
            losses.append(total)
            opt.step()
            opt.zero_grad(set_to_none=True)
        return losses, {k: p.detach() for k, p in params.items()}

    (l64, w64), (l32, w32) = reference(torch.float64), reference(torch.float32)
    wrong = []
    for step, (a, b, c) in enumerate(zip(l64, l32, prec_losses)):
        if abs(c - a) > 1e-6 * abs(a) + 10 * abs(b - a):
            wrong.append("step %d: loss %.9g, PyTorch's %.9g (f32 %.9g)" % (step, c, a, b))
    start, _ = build()
    for name, v in w64.items():
        moved = (v - start.state_dict()[name].double()).abs().max().item()
        if name not in final:
            if name in init or moved != 0:
                wrong.append("%s is not in the checkpoint but PyTorch trains it" % name)
            continue
        d1 = (final[name].double() - v).abs().max().item()
        d2 = (w32[name].double() - v).abs().max().item()
        if d1 > 10 * max(d2, 1e-7 * max(1, v.abs().max().item())) and d1 > 1e-4 * moved:
            wrong.append("%s: %.3g from PyTorch's (f32 %.3g, moved %.3g)" % (name, d1, d2, moved))
    # The trained state back in a module the factory makes: the checkpoint's
    # parameters, and the module's own for those the step held constant.
    fresh, _ = build()
    load_state_dict(fresh, os.path.join(o.out, "final.safetensors"), strict=False)
    for name, p in fresh.named_parameters():
        if not torch.equal(p.detach(), final[name] if name in final else start.state_dict()[name]):
            wrong.append("%s is not the trained one after load_state_dict" % name)
    absent = [name for name, _ in start.named_parameters() if name not in final]
    if absent:
        print("held constant: %s" % ", ".join(absent))
    print("compare: %d losses, %d weights, %d wrong" % (len(l64), len(w64), len(wrong)))
    for line in wrong:
        print("  " + line)
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
