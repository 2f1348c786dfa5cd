#!/usr/bin/env python3
"""prec against PyTorch FSDP2 on the example models: step time and peak
memory per rank, where prec's step goes, and the time from export to the
first step.

For each model (examples/nanogpt, examples/llama) and width, one run:

1. `python -m prec_torch` exports the module (tokens of utils/byte-tokens.py,
   cross-entropy, `--mesh RANKS --param-dtype bf16 --reduce-dtype f32`,
   AdamW) and writes step.mlir and init.safetensors;
2. the printed prec-run command runs WARMUP + STEPS steps with `--profile`
   (RANKS rank threads in one process);
3. prec_torch.fsdp2's setup trains the same module from the same
   init.safetensors on the same token windows with fully_shard per block and
   on the root, MixedPrecisionPolicy(param_dtype=bfloat16,
   reduce_dtype=float32) and the same AdamW, on RANKS gloo processes with
   torch.set_num_threads(1) each, for WARMUP + STEPS steps.

Step time: the mean of the STEPS steps after WARMUP. prec-run's from its
progress lines (`step K/N after T s`, at most one a second: the first line at
or after WARMUP to the last; where steps take under a second, from a second
run of WARMUP steps: the difference of the two runs' `N step(s) in S s`);
FSDP2's between barriers on every rank, rank 0's figure. Peak memory per rank:
peak RSS (getrusage's ru_maxrss). prec-run is one process for all ranks and
its compiler: its peak RSS divided by RANKS; each FSDP2 rank is a process: the
largest of their peaks. Both also as the growth over the process's RSS before
the model (FSDP2: after importing torch and joining the process group;
prec-run: `peak buffers in use` of --profile, what the generated code
allocated). Export to first step: the export's wall time plus prec-run's, from
its start to its first progress line (lowering, JIT, loading, one step), or
where there is none, to the end of the run of the warm-up step.

  VENV/bin/python bench/torch/fsdp2_models.py [--models nanogpt,llama]
      [--widths 512,1024] [--layers 4] [--seq 32] [--batch 2] [--ranks 4]
      [--warmup 1] [--steps 3] [--prec-run build/bin/prec-run]
      [--prec-opt build/bin/prec-opt] [--out DIR]

VENV has torch, torch-mlir, safetensors and ml_dtypes (docs/PyTorch.md).
Not part of any test target: it measures time.
"""
import argparse
import json
import os
import re
import resource
import shlex
import subprocess
import sys
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "python"))
LR, BETAS, EPS, WD = 3e-3, (0.9, 0.95), 1e-8, 0.1


def rss_kib():
    with open("/proc/self/status") as f:
        return int(re.search(r"VmRSS:\s+(\d+)", f.read()).group(1))


def fsdp2_rank(rank, config, port, out):
    import torch
    import torch.distributed as dist
    from torch.distributed.fsdp import MixedPrecisionPolicy, fully_shard

    from prec_torch import fsdp2
    from prec_torch.cli import load_factory
    from prec_torch.state import load_state_dict

    ranks = config["ranks"]
    mesh = fsdp2.init_ranks(rank, ranks, port)
    tokens = fsdp2.read_tokens(config["tokens"])
    before = rss_kib()
    model, _ = load_factory(config["model"])(**config["factory_kwargs"])
    load_state_dict(model, config["init"])
    policy = MixedPrecisionPolicy(param_dtype=torch.bfloat16, reduce_dtype=torch.float32)
    for module in load_factory(config["wrap"])(model):
        fully_shard(module, mesh=mesh, mp_policy=policy)
    fully_shard(model, mesh=mesh, mp_policy=policy)
    opt = fsdp2.make_optimizer(config, model.parameters())
    kw = config["factory_kwargs"]

    def step(s):
        ids, targets = fsdp2.window(tokens, s, rank, ranks, kw["batch"], kw["seq"])
        loss = fsdp2.cross_entropy(model(ids), targets)
        loss.backward()
        opt.step()
        opt.zero_grad()
        total = loss.detach().double().clone()
        dist.all_reduce(total)
        return total.item() / ranks

    losses = [step(s) for s in range(config["warmup"])]
    dist.barrier()
    started = time.perf_counter()
    losses += [step(config["warmup"] + s) for s in range(config["steps"])]
    dist.barrier()
    seconds = (time.perf_counter() - started) / config["steps"]
    with open(os.path.join(out, "fsdp2_rank%d.json" % rank), "w") as f:
        json.dump(dict(step=seconds, losses=losses, before_kib=before,
                       peak_kib=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss), f)
    dist.destroy_process_group()


def run_fsdp2(config, out):
    import torch.multiprocessing as mp
    from prec_torch import fsdp2
    port = fsdp2.free_port()
    mp.spawn(fsdp2_rank, args=(config, port, out), nprocs=config["ranks"], join=True)
    ranks = [json.load(open(os.path.join(out, "fsdp2_rank%d.json" % r)))
             for r in range(config["ranks"])]
    return dict(step=ranks[0]["step"], losses=ranks[0]["losses"],
                peak_kib=max(r["peak_kib"] for r in ranks),
                growth_kib=max(r["peak_kib"] - r["before_kib"] for r in ranks))


def launch(command):
    """prec-run's stderr lines with the seconds since its start, its stdout,
    its resource usage and its wall time."""
    started = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    stdout = []
    reader = threading.Thread(target=lambda: stdout.append(process.stdout.read()))
    reader.start()
    lines = [(time.perf_counter() - started, line) for line in process.stderr]
    reader.join()
    _, status, usage = os.wait4(process.pid, 0)
    if os.waitstatus_to_exitcode(status):
        sys.exit("%s failed:\n%s" % (shlex.join(command), "".join(l for _, l in lines)[-4000:]))
    return lines, stdout[0], usage, time.perf_counter() - started


def run_seconds(lines):
    """prec-run's own time for its steps (`N step(s) in S s`)."""
    return float(re.search(r"step\(s\) in ([0-9.]+) s", "".join(l for _, l in lines)).group(1))


def run_prec(command, warmup, steps):
    lines, profile, usage, _ = launch(command)
    progress = [(int(m.group(1)), float(m.group(2)), wall) for wall, line in lines
                for m in [re.search(r"step (\d+)/\d+ after ([0-9.]+) s", line)] if m]
    first = next((p for p in progress if p[0] >= warmup), None)
    last = progress[-1] if progress else None
    first_step_wall = progress[0][2] if progress and progress[0][0] == 1 else None
    if first is not None and first[0] < last[0]:
        step = (last[1] - first[1]) / (last[0] - first[0])
    else:
        # Steps under a second print too few progress lines: the difference
        # of this run and one of the warm-up steps alone, both prec-run's own
        # time for its steps (compilation excluded).
        short = list(command)
        short[short.index("--steps") + 1] = str(warmup)
        short.remove("--profile")
        short_lines, _, _, short_wall = launch(short)
        step = (run_seconds(lines) - run_seconds(short_lines)) / steps
        if warmup == 1:
            first_step_wall = short_wall
    compiled = float(re.search(r"compiled @\S+ in ([0-9.]+) s",
                               "".join(l for _, l in lines)).group(1))
    peaks = [int(b) for b in re.findall(r"peak buffers in use\s+(\d+) bytes", profile)]
    return dict(step=step, compiled=compiled, first_step_wall=first_step_wall,
                peak_kib=usage.ru_maxrss, buffers=max(peaks),
                profile=profile[profile.index("rank 0: profile"):].split("\nrank 1")[0]
                if "rank 0: profile" in profile else "")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default="nanogpt,llama")
    parser.add_argument("--widths", default="512,1024")
    parser.add_argument("--layers", type=int, default=4)
    parser.add_argument("--seq", type=int, default=32)
    parser.add_argument("--batch", type=int, default=2)
    parser.add_argument("--ranks", type=int, default=4)
    parser.add_argument("--warmup", type=int, default=1)
    parser.add_argument("--steps", type=int, default=3)
    parser.add_argument("--prec-run", default=os.path.join(ROOT, "build/bin/prec-run"))
    parser.add_argument("--prec-opt", default=os.path.join(ROOT, "build/bin/prec-opt"))
    parser.add_argument("--out", default="/tmp/prec-fsdp2-models")
    options = parser.parse_args()
    os.makedirs(options.out, exist_ok=True)
    tokens = os.path.join(options.out, "tokens.u16")
    subprocess.run([sys.executable, os.path.join(ROOT, "utils", "byte-tokens.py"), tokens],
                   check=True, stdout=subprocess.DEVNULL)
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"))
    rows = []
    for name in options.models.split(","):
        for width in [int(w) for w in options.widths.split(",")]:
            out = os.path.join(options.out, "%s%d" % (name, width))
            os.makedirs(out, exist_ok=True)
            model = os.path.join(ROOT, "examples", name, "model.py")
            kwargs = dict(vocab=256, dim=width, heads=width // 64, seq=options.seq,
                          layers=options.layers, batch=options.batch)
            total = options.warmup + options.steps
            started = time.perf_counter()
            made = subprocess.run(
                [sys.executable, "-m", "prec_torch", model + ":" + name,
                 "--factory-kwargs", ",".join("%s=%d" % kv for kv in kwargs.items()),
                 "--loss", "cross_entropy", "--mesh", str(options.ranks),
                 "--param-dtype", "bf16", "--reduce-dtype", "f32", "--optimizer", "adamw",
                 "--lr", repr(LR), "--betas", "%r,%r" % BETAS, "--eps", repr(EPS),
                 "--weight-decay", repr(WD), "--tokens", tokens, "--steps", str(total),
                 "--prec-opt", options.prec_opt, "--prec-run", options.prec_run, "--out", out],
                env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            export = time.perf_counter() - started
            if made.returncode:
                sys.exit(made.stderr)
            command = shlex.split(made.stdout.strip().splitlines()[-1])
            if "--save" in command:  # the trained state: not part of a step
                del command[command.index("--save"):command.index("--save") + 2]
            command += ["--profile", "--print", "none"]
            print("== %s, width %d, %d layers, %d x %d tokens per rank, %d ranks"
                  % (name, width, options.layers, options.batch, options.seq, options.ranks))
            print("export: %.1f s wall (python -m prec_torch)" % export)
            print("prec-run:", shlex.join(command), flush=True)
            prec = run_prec(command, options.warmup, options.steps)
            print(prec["profile"])
            config = dict(model=model + ":" + name, wrap=model + ":blocks",
                          factory_kwargs=kwargs, init=os.path.join(out, "init.safetensors"),
                          tokens=tokens, ranks=options.ranks, warmup=options.warmup,
                          steps=options.steps, optimizer="adamw", lr=LR, betas=BETAS, eps=EPS,
                          weight_decay=WD)
            torch_result = run_fsdp2(config, out)
            first = prec["first_step_wall"]
            row = dict(model=name, width=width, prec_step=prec["step"],
                       fsdp2_step=torch_result["step"],
                       prec_rss=prec["peak_kib"] / options.ranks,
                       fsdp2_rss=torch_result["peak_kib"], prec_buffers=prec["buffers"] / 1024,
                       fsdp2_growth=torch_result["growth_kib"], export=export,
                       compiled=prec["compiled"],
                       to_first=export + first if first is not None else None)
            rows.append(row)
            print("prec-run: %.3f s/step, peak RSS %.0f MiB per rank (%.0f MiB / %d), "
                  "peak buffers %.0f MiB per rank; compiled in %.1f s"
                  % (row["prec_step"], row["prec_rss"] / 1024, prec["peak_kib"] / 1024,
                     options.ranks, row["prec_buffers"] / 1024, row["compiled"]))
            print("FSDP2:    %.3f s/step, peak RSS %.0f MiB per rank (%.0f MiB over the "
                  "process before the model); losses %s"
                  % (row["fsdp2_step"], row["fsdp2_rss"] / 1024, row["fsdp2_growth"] / 1024,
                     ", ".join("%.4f" % l for l in torch_result["losses"])))
            print("ratio prec/FSDP2: step %.2f, peak RSS %.2f; export to first step %s"
                  % (row["prec_step"] / row["fsdp2_step"], row["prec_rss"] / row["fsdp2_rss"],
                     "%.1f s" % row["to_first"] if row["to_first"] else "-"), flush=True)
    print("\n| model | width | prec-run step | FSDP2 step | ratio | prec-run peak RSS / rank "
          "| FSDP2 peak RSS / rank | ratio | prec buffers / rank | FSDP2 growth / rank "
          "| export to first step |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for r in rows:
        print("| %s | %d | %.3f s | %.3f s | **%.2f** | %.0f MiB | %.0f MiB | **%.2f** | %.0f MiB "
              "| %.0f MiB | %s |"
              % (r["model"], r["width"], r["prec_step"], r["fsdp2_step"],
                 r["prec_step"] / r["fsdp2_step"], r["prec_rss"] / 1024, r["fsdp2_rss"] / 1024,
                 r["prec_rss"] / r["fsdp2_rss"], r["prec_buffers"] / 1024,
                 r["fsdp2_growth"] / 1024, "%.1f s" % r["to_first"] if r["to_first"] else "-"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
