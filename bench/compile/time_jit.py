#!/usr/bin/env python3
"""Times prec-run's compilation of a small GPT's training step, lowering and
JIT apart.

The step is gen_nanogpt_step.py's (2 layers by default): its forward, the
backward prec-generate-backward writes for it, gradient averaging and SGD.
prec-run lowers it with prec-lower-to-cpu and JIT-compiles it for the host;
it says how long each took on its "compiled" line. The run with the least
CPU time (user + system of prec-run, which also runs one step) of REPEAT
counts. Target: the whole compilation within 5 s.

  time_jit.py [--prec-run build/bin/prec-run] [--prec-opt build/bin/prec-opt]
              [--layers 2] [--repeat 3]
"""

import argparse
import os
import re
import resource
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_nanogpt_step  # noqa: E402

COMPILED = re.compile(r"compiled @\S+ in ([0-9.]+) s \(lowering ([0-9.]+) s, "
                      r"JIT ([0-9.]+) s\)")


def run(command):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    result = subprocess.run(command, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if result.returncode != 0:
        sys.exit(f"{' '.join(command)} failed (exit status "
                 f"{result.returncode}):\n{result.stderr[-4000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, result


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--prec-run", default="build/bin/prec-run")
    parser.add_argument("--prec-opt", default="build/bin/prec-opt")
    parser.add_argument("--layers", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as directory:
        path = os.path.join(directory, "gpt_step.mlir")
        with open(path, "w") as f:
            f.write(gen_nanogpt_step.module(args.layers))
        _, generated = run([args.prec_opt, "--prec-generate-backward", path])
        backward = generated.stdout.split("func.func private @loss_backward(")[1]
        lines = backward.split("\n  return ")[0].count("\n") + 1
        print(f"{args.layers}-layer GPT step: the module has "
              f"{generated.stdout.count(chr(10))} lines after "
              f"prec-generate-backward, the backward function {lines}")

        scalar = len(gen_nanogpt_step.parameters(args.layers)) + 3
        runs = []
        for _ in range(args.repeat):
            cpu, result = run([args.prec_run, path, "--print", "none",
                               "--steps", "1", "--scalar", f"{scalar}=0.01"])
            match = COMPILED.search(result.stderr)
            if not match:
                sys.exit("no compile times in prec-run's output:\n"
                         + result.stderr[-2000:])
            runs.append((cpu, *map(float, match.groups())))
        cpu, total, lowering, jit = min(runs)
        print(f"best of {args.repeat} (least CPU time): CPU {cpu:.2f} s; "
              f"wall: compiled in {total:.2f} s (lowering {lowering:.2f} s, "
              f"JIT {jit:.2f} s)")
        print("Target: compiled within 5 s.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
