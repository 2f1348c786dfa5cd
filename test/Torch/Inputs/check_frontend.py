"""Checks what python -m prec_torch wrote for examples/nanogpt/model.py and
that the trained state comes back into PyTorch.

Usage: check_frontend.py OUT PRINTED_OUTPUT

- init.safetensors (read by safetensors.torch, not by prec_torch) holds
  every parameter of the module built by the factory with the same seed,
  bit for bit, in f32 (the master dtype), the tied lm_head.weight once
  (under wte.weight);
- the printed prec-run command runs (3 steps) and its final.safetensors
  loads into a fresh module with prec_torch.load_state_dict: the tied
  lm_head.weight is wte.weight again, every parameter moved, AdamW's
  moments and step are there.
"""
import os
import shlex
import subprocess
import sys

import torch
from safetensors.torch import load_file

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
sys.path.insert(0, os.path.join(REPO, "python"))
sys.path.insert(0, os.path.join(REPO, "examples", "nanogpt"))
from prec_torch import load_state_dict  # noqa: E402
from model import nanogpt  # noqa: E402

CONFIG = dict(vocab=256, dim=16, heads=2, seq=8, layers=2, batch=2)


def main():
    out, printed = sys.argv[1], open(sys.argv[2]).read()
    failures = []
    torch.manual_seed(0)
    model, _ = nanogpt(**CONFIG)
    init = load_file(os.path.join(out, "init.safetensors"))
    names = [n for n, _ in model.named_parameters()]
    if sorted(init) != sorted(names):
        failures.append("init names %s, want %s" % (sorted(init), sorted(names)))
    for name, p in model.named_parameters():
        if name in init and not (init[name].dtype == torch.float32 and torch.equal(init[name], p.detach())):
            failures.append("init %s differs from the module's" % name)
    print("init: %d tensors, lm_head.weight %s" % (len(init), "absent" if "lm_head.weight" not in init else "present"))

    command = shlex.split(printed.strip().splitlines()[-1])
    command[command.index("--steps") + 1] = "3"
    subprocess.run(command + ["--print", "none"], check=True)
    final = load_file(os.path.join(out, "final.safetensors"))
    fresh, _ = nanogpt(**CONFIG)
    state = load_state_dict(fresh, os.path.join(out, "final.safetensors"))
    if fresh.lm_head.weight is not fresh.wte.weight or not torch.equal(fresh.lm_head.weight, final["wte.weight"]):
        failures.append("lm_head.weight is not the trained wte.weight")
    moved = sum(not torch.equal(final[n], init[n]) for n in names)
    if moved != len(names):
        failures.append("only %d of %d parameters moved" % (moved, len(names)))
    moments = sorted(k for k in state if k.startswith("exp_avg"))
    print("final: %d parameters moved, %d moments, step %s" % (moved, len(moments), state["step"].item()))
    for failure in failures:
        print(failure)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
