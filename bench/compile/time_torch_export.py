#!/usr/bin/env python3
"""Times the way from a PyTorch model to a compiled training step: a
GPT-2-style model (12 layers, width 768, 12 heads, vocabulary 50,257,
sequence 64, tied embeddings, f32) exported through torch-mlir, turned into
an FSDP step on 4 ranks (`prec-opt --prec-from-torch`, bf16 gathers, f32
reductions, AdamW), then lowered and JIT-compiled for the host by prec-run
(`--dump-object`: everything but running it). Each stage's CPU time (user +
system of the child), the least of REPEAT runs. Target: lowering and JIT
within 30 s.

  time_torch_export.py --python VENV/bin/python [--prec-opt build/bin/prec-opt]
      [--prec-run build/bin/prec-run] [--layers 12] [--dim 768] [--repeat 1]

VENV has PyPI torch and torch-mlir (utils/torch-export/export_models.py);
--export FILE skips the export and uses a nanogpt.mlir made by it.
"""

import argparse
import os
import resource
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def run(command):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    result = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if result.returncode != 0:
        sys.exit("%s failed (exit status %d):\n%s"
                 % (" ".join(command), result.returncode, result.stderr[-4000:]))
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--python")
    parser.add_argument("--export")
    parser.add_argument("--prec-opt", default=os.path.join(ROOT, "build/bin/prec-opt"))
    parser.add_argument("--prec-run", default=os.path.join(ROOT, "build/bin/prec-run"))
    parser.add_argument("--layers", type=int, default=12)
    parser.add_argument("--dim", type=int, default=768)
    parser.add_argument("--repeat", type=int, default=1)
    options = parser.parse_args()
    if not options.python and not options.export:
        sys.exit("give --python (a venv with torch and torch-mlir) or --export FILE")

    with tempfile.TemporaryDirectory() as work:
        export = options.export
        if not export:
            seconds = run([options.python, os.path.join(ROOT, "utils/torch-export/export_models.py"),
                           work, "--dim", str(options.dim), "--heads", str(options.dim // 64),
                           "--vocab", "50257", "--seq", "64", "--layers", str(options.layers),
                           "--dtype", "f32"])
            export = os.path.join(work, "nanogpt.mlir")
            print("export (torch-mlir, three models): %.2f s CPU" % seconds)
        step = os.path.join(work, "step.mlir")
        shard = min(run([options.prec_opt, export, "-o", step,
                         "--prec-from-torch=mesh=4 param-dtype=bf16 reduce-dtype=f32 "
                         "optimizer=adamw"]) for _ in range(options.repeat))
        with open(step) as f:
            lines = sum(1 for _ in f)
        print("prec-opt --prec-from-torch: %.2f s CPU (%d lines)" % (shard, lines))
        compiled = min(run([options.prec_run, step, "--dump-object", os.path.join(work, "step.o")])
                       for _ in range(options.repeat))
        print("prec-run lowering + JIT (--dump-object): %.2f s CPU (target 30 s)" % compiled)


if __name__ == "__main__":
    main()
