"""Trains one module with PyTorch FSDP2 (gloo, 4 processes) and with prec
(python -m prec_torch, then prec-run on 4 ranks) from the same initial
weights, data and policy (MixedPrecisionPolicy(param_dtype, reduce_dtype=
f32); prec: --param-dtype, --reduce-dtype f32, master f32), SGD, and
compares the losses of every step and the weights after the last.

Usage: side_by_side.py WORK --prec-opt P --prec-run P [--policy f32|bf16]
           [--steps N] [--perturb-lr]

Data: byte tokens of a text (utils/byte-tokens.py); step s of rank r reads
window k = (s R + r) mod W of B*T tokens (prec-run --data's rule), targets
the same window one token later. The initial weights are prec_torch's
init.safetensors, loaded into the FSDP2 module before fully_shard.

Both are compared with a float64 reference: the same module in f64 on one
process, the mean of the ranks' losses, the same SGD. The tolerances:

- f32 (derived from the dtype, docs/Testing.md's rules): a step's loss is a
  chain of depth = 4 + 6 L stages (embedding sum; per block: two norms,
  attention's two contractions and softmax, the MLP's two contractions and
  GELU; final norm, lm_head, cross-entropy), each a contraction or
  reduction of at most K terms (K = the widest: the 4d-wide MLP, the
  vocabulary's softmax), whose result is within K u of the sum of its
  terms' magnitudes; the terms here (normalised activations, weights of
  std 0.02, probabilities) are of the size of the result, so first order
  the loss is within depth K u (1 + |L|), doubled for second-order terms:
  rel = 2 depth K u, u = 2^-24. A gradient is the same chain backwards:
  within rel G, G = the tensor's largest gradient coordinate (normwise).
  After N SGD steps a weight is within N u |p| (its roundings in f32) +
  lr sum_s rel G_s of the reference. prec against FSDP2: the sum of both
  bounds.
- bf16 (param_dtype: the module computes in bf16; both implementations
  round every stage's output to bf16, in places that differ, e.g. inside
  LayerNorm): the first-order bound above is larger than the values
  (2 depth K 2^-8 > 1), so the check is relative to FSDP2 itself: prec's
  distance from the f64 reference (the largest over the steps for the
  loss, over each tensor for the weights) is at most twice FSDP2's, plus
  the f32 bound. That is: prec under param_dtype bf16 is as accurate as
  FSDP2 under the same policy.

Each check must be able to fail: the weights must move by more than their
bound (in at least one coordinate in ten of every tensor), and
--perturb-lr makes prec's step use lr (1 + 2^-6); the test shows that the
weights then disagree.
"""
import argparse
import json
import math
import os
import re
import subprocess
import sys

import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
sys.path.insert(0, os.path.join(REPO, "python"))
sys.path.insert(0, os.path.join(REPO, "examples", "nanogpt"))

from prec_torch import fsdp2, load_state_dict, read_safetensors  # noqa: E402
from model import nanogpt  # noqa: E402

CONFIG = dict(vocab=256, dim=32, heads=2, seq=16, layers=2, batch=2)
LR = {"sgd": 0.1, "adamw": 1e-3}
BETAS, EPS, WD = (0.9, 0.999), 1e-8, 0.01


def windows(tokens, step, rank, ranks):
    return fsdp2.window(tokens, step, rank, ranks, CONFIG["batch"], CONFIG["seq"])


def optimizer(kind, params, lr):
    return fsdp2.make_optimizer({"optimizer": kind, "lr": lr, "betas": BETAS, "eps": EPS,
                                 "weight_decay": WD if kind == "adamw" else 0.0}, params)


def reference(options, tokens, init):
    """The f64 run: one process, the mean of the ranks' losses."""
    model, _ = nanogpt(**CONFIG)
    load_state_dict(model, init)
    model.double()
    opt = optimizer(options.optimizer, model.parameters(), LR[options.optimizer])
    losses, grads = [], []
    for step in range(options.steps):
        total = 0.0
        for rank in range(options.ranks):
            idx, targets = windows(tokens, step, rank, options.ranks)
            logits = model(idx)
            loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), targets.reshape(-1))
            (loss / options.ranks).backward()
            total += loss.item()
        losses.append(total / options.ranks)
        grads.append({n: p.grad.abs().max().item() for n, p in model.named_parameters()})
        opt.step()
        opt.zero_grad()
    return losses, grads, {n: p.detach() for n, p in model.named_parameters()}


def run_prec(options):
    out = os.path.join(options.work, "prec")
    lr = LR[options.optimizer]
    command = [sys.executable, "-m", "prec_torch",
               os.path.join(REPO, "examples", "nanogpt", "model.py") + ":nanogpt",
               "--factory-kwargs", ",".join("%s=%d" % kv for kv in CONFIG.items()),
               "--loss", "cross_entropy", "--mesh", str(options.ranks),
               "--reduce-dtype", "f32", "--optimizer", options.optimizer, "--lr", repr(lr),
               "--tokens", os.path.join(options.work, "tokens.u16"), "--steps", str(options.steps),
               "--prec-opt", options.prec_opt, "--prec-run", options.prec_run, "--out", out]
    if options.policy == "bf16":
        command += ["--param-dtype", "bf16"]
    if options.optimizer == "adamw":
        command += ["--betas", "%r,%r" % BETAS, "--eps", repr(EPS), "--weight-decay", repr(WD)]
    env = dict(os.environ, PYTHONPATH=os.path.join(REPO, "python"))
    made = subprocess.run(command, env=env, capture_output=True, text=True)
    if made.returncode:
        sys.exit("prec_torch failed:\n" + made.stderr)
    run = made.stdout.strip().splitlines()[-1].split()
    if options.perturb_lr:
        run += ["--scalar", "lr=%r" % (lr * (1 + 2.0**-6))]
    ran = subprocess.run(run, capture_output=True, text=True)
    if ran.returncode:
        sys.exit("prec-run failed:\n" + ran.stderr)
    losses = {}
    for step, index, value in re.findall(r"^step (\d+): result (\d+) = (\S+)$", ran.stdout, re.M):
        losses[int(step)] = float(value)  # the loss is the last result
    return [losses[s] for s in range(options.steps)], read_safetensors(os.path.join(out, "final.safetensors"))


def f32_bounds(options, loss_ref, grad_max, p_ref):
    """The f32 bounds of the module docstring: per step the loss's, per
    tensor the weights' (a tensor of bounds)."""
    u = 2.0**-24
    depth = 4 + 6 * CONFIG["layers"]
    K = max(4 * CONFIG["dim"], CONFIG["vocab"])
    rel = 2 * depth * K * u
    lr = LR[options.optimizer]
    losses = [rel * (1 + abs(loss)) for loss in loss_ref]
    weights = {name: options.steps * u * p.abs() + lr * sum(rel * g[name] for g in grad_max)
               for name, p in p_ref.items()}
    return losses, weights


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("work")
    parser.add_argument("--prec-opt", required=True)
    parser.add_argument("--prec-run", required=True)
    parser.add_argument("--policy", choices=["f32", "bf16"], default="f32")
    parser.add_argument("--optimizer", choices=["sgd"], default="sgd")
    parser.add_argument("--steps", type=int, default=5)
    parser.add_argument("--ranks", type=int, default=4)
    parser.add_argument("--perturb-lr", action="store_true")
    options = parser.parse_args()
    os.makedirs(options.work, exist_ok=True)
    subprocess.run([sys.executable, os.path.join(REPO, "utils", "byte-tokens.py"),
                    os.path.join(options.work, "tokens.u16")], check=True, capture_output=True)
    tokens = fsdp2.read_tokens(os.path.join(options.work, "tokens.u16"))

    prec_losses, prec_state = run_prec(options)
    init = os.path.join(options.work, "prec", "init.safetensors")
    model_file = os.path.join(REPO, "examples", "nanogpt", "model.py")
    config = dict(model=model_file + ":nanogpt", wrap=model_file + ":blocks",
                  factory_kwargs=CONFIG, init=init, batch=CONFIG["batch"], seq=CONFIG["seq"],
                  steps=options.steps, ranks=options.ranks,
                  param_dtype=torch.bfloat16 if options.policy == "bf16" else None,
                  reduce_dtype=torch.float32, optimizer=options.optimizer,
                  lr=LR[options.optimizer], betas=BETAS, eps=EPS,
                  weight_decay=WD if options.optimizer == "adamw" else 0.0)
    losses, state = fsdp2.train(config, tokens, os.path.join(options.work, "fsdp2.pt"))
    fsdp = {"losses": losses, "state": state}
    ref_losses, grad_max, ref_state = reference(options, tokens, init)

    loss_bounds, weight_bounds = f32_bounds(options, ref_losses, grad_max, ref_state)
    bf16 = options.policy == "bf16"
    failures, compared, nontrivial = 0, 0, 0
    fsdp_err = max(abs(a - r) for a, r in zip(fsdp["losses"], ref_losses))
    print("step  f64 reference  FSDP2          prec           |prec - FSDP2|")
    for s in range(options.steps):
        a, b, r = fsdp["losses"][s], prec_losses[s], ref_losses[s]
        print("%-4d  %.10f   %.10f   %.10f   %.3g" % (s, r, a, b, abs(a - b)))
        if bf16:
            checks = [("prec - f64", b - r, 2 * fsdp_err + loss_bounds[s])]
        else:
            checks = [("FSDP2 - f64", a - r, loss_bounds[s]), ("prec - f64", b - r, loss_bounds[s]),
                      ("prec - FSDP2", b - a, 2 * loss_bounds[s])]
        for what, diff, limit in checks:
            compared += 1
            if not abs(diff) <= limit:
                failures += 1
                print("loss of step %d: %s = %.3g, bound %.3g" % (s, what, diff, limit))
    worst = 0.0
    initial = read_safetensors(init)
    for name, want in ref_state.items():
        got, theirs = prec_state[name].double(), fsdp["state"][name].double()
        limit = weight_bounds[name]
        if bf16:
            checks = [("prec - f64", got - want, 2 * (theirs - want).abs().max() + limit)]
        else:
            checks = [("FSDP2 - f64", theirs - want, limit), ("prec - f64", got - want, limit),
                      ("prec - FSDP2", got - theirs, 2 * limit)]
        for what, diff, bound in checks:
            bad = (diff.abs() > bound).sum().item()
            compared += diff.numel()
            worst = max(worst, (diff.abs() / bound).max().item())
            if bad:
                failures += bad
                print("%s: %s off in %d of %d coordinates (largest %.3g, bound there %.3g)"
                      % (name, what, bad, diff.numel(), diff.abs().max().item(),
                         bound.max().item()))
        # A run that does not train fails: the update must exceed the bound.
        moved = ((want - initial[name].double()).abs() > 2 * limit).sum().item()
        nontrivial += moved
        if moved < want.numel() / 10:
            failures += 1
            print("%s: only %d of %d coordinates moved beyond the bound" % (name, moved, want.numel()))
    print("side by side (%s, %d steps, %d ranks%s): %d compared (%d weights moved beyond "
          "their bound), %d outside tolerance, largest difference / bound %.3g; the losses "
          "of prec and FSDP2 differ by at most %.3g relative"
          % (options.policy, options.steps, options.ranks,
             ", lr perturbed" if options.perturb_lr else "", compared, nontrivial, failures,
             worst, max(abs(a - b) / abs(a) for a, b in zip(fsdp["losses"], prec_losses))))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
