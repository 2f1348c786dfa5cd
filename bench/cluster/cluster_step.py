#!/usr/bin/env python3
"""prec against PyTorch FSDP2 on an emulated cluster of HOSTS hosts x M ranks
(scripts/emulated-cluster.sh: shared memory inside a host, TCP over links
limited to each of RATES between hosts): the step time of the nanoGPT-style
model of examples/nanogpt in four configurations, in one run.

  fsdp2         PyTorch FSDP2, gloo over TCP, fully_shard per block and on the
                root, MixedPrecisionPolicy(param_dtype=bf16, reduce_dtype=f32),
                AdamW; one process per rank under the same mpirun
  prec flat     the step `python -m prec_torch --mesh N` writes (FSDP over N
                ranks, the same policy and AdamW), prec-run --backend mpi
  prec 2-level  the same step on a HOSTSxM grid whose axis 0 crosses hosts
                (prec_torch --hosts HOSTS): every collective in two levels
  prec 2-level bf16  and the gradients' partial sums cross hosts in bf16
                (prec_torch --inter-host-reduce-dtype bf16: inter_host_dtype =
                bf16 on the gradient reduce_scatters)
  prec 2-level bf16 overlap  and its transports started early and waited
                for late (prec-run --overlap), in buckets of at most
                --bucket-bytes, so that communication runs beside compute
  prec 2-level fp8 overlap  the same with the partial sums across hosts in
                f8E4M3FN, a scale per rank's partial sums
                (--inter-host-reduce-dtype f8E4M3FN)
  prec 2-level fp8, flat overlap  (only with --configs) without --overlap;
                the flat step with --overlap

Per configuration and rate: the step time (median of rank 0's STEPS steps
after WARMUP; prec-run --step-times, FSDP2 between its steps' ends, each
ended by the loss's all_reduce), its ratio to FSDP2's, the bytes per step
that crossed hosts (measured on the links: what the hosts' ports of the
switch received, IP and TCP headers included, over the whole run divided by
its steps), the payload the ranks sent (prec-run --traffic, the runtime's
count) to ranks on other hosts and inside their host, and in all, and
the share of a step prec spends in collectives (prec-run --profile; prec's
collectives block, so all of it is exposed; with --overlap it is the time
the rank waited for started transports, the exposed part).

  VENV/bin/python bench/cluster/cluster_step.py [--rates 1gbit,10gbit]
      [--dim 384] [--layers 4] [--heads 6] [--seq 64] [--batch 4]
      [--warmup 2] [--steps 5] [--hosts 2] [--ranks-per-host 2]
      [--prec-run build/bin/prec-run] [--prec-opt build/bin/prec-opt]
      [--bucket-bytes 1048576]
      [--out DIR] [--configs fsdp2,flat,two-level,two-level-bf16,two-level-bf16-overlap,
                             two-level-fp8-overlap]

VENV has torch, torch-mlir, safetensors and ml_dtypes (docs/PyTorch.md).
Needs root and `ip netns` (the emulated cluster), Open MPI's mpirun.
"""
import argparse
import json
import os
import re
import shlex
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, HERE)
LR, BETAS, EPS, WD = 3e-3, (0.9, 0.95), 1e-8, 0.1
CONFIGS = ["fsdp2", "flat", "two-level", "two-level-bf16", "two-level-bf16-overlap",
           "two-level-fp8-overlap"]
# Not run by default: the flat step with --overlap (for one rank per host,
# where a grid has no second level), fp8 partial sums without it.
EXTRA_CONFIGS = ["flat-overlap", "two-level-fp8"]
GLOO_PORT = 29517  # inside the run's own namespaces: no one else listens there


def mpirun(ranks):
    return ["env", "OMPI_ALLOW_RUN_AS_ROOT=1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1",
            "mpirun", "--oversubscribe", "--bind-to", "none", "-np", str(ranks)]


# --- one FSDP2 rank (under mpirun, in a host's namespace) ---------------------

def fsdp2_rank(config_path):
    with open(config_path) as f:
        config = json.load(f)
    master = os.environ["PREC_CLUSTER_HOSTS"].split()[0]
    rank = int(os.environ["OMPI_COMM_WORLD_RANK"])
    ranks = int(os.environ["OMPI_COMM_WORLD_SIZE"])
    # Gloo between the hosts' addresses (rank 0 is on the first host).
    os.environ.update(MASTER_ADDR=master, MASTER_PORT=str(GLOO_PORT),
                      GLOO_SOCKET_IFNAME="eth0")
    import torch
    import torch.distributed as dist
    from torch.distributed.device_mesh import init_device_mesh
    from torch.distributed.fsdp import MixedPrecisionPolicy, fully_shard

    from prec_torch import fsdp2
    from prec_torch.cli import load_factory
    from prec_torch.state import load_state_dict

    torch.set_num_threads(1)
    dist.init_process_group("gloo", rank=rank, world_size=ranks)
    mesh = init_device_mesh("cpu", (ranks,))
    tokens = fsdp2.read_tokens(config["tokens"])
    model, _ = load_factory(config["model"])(**config["factory_kwargs"])
    load_state_dict(model, config["init"])
    policy = MixedPrecisionPolicy(param_dtype=torch.bfloat16, reduce_dtype=torch.float32)
    for module in load_factory(config["wrap"])(model):
        fully_shard(module, mesh=mesh, mp_policy=policy)
    fully_shard(model, mesh=mesh, mp_policy=policy)
    opt = fsdp2.make_optimizer(config, model.parameters())
    kw = config["factory_kwargs"]
    times = []
    dist.barrier()
    last = time.perf_counter()
    for s in range(config["warmup"] + config["steps"]):
        ids, targets = fsdp2.window(tokens, s, rank, ranks, kw["batch"], kw["seq"])
        loss = fsdp2.cross_entropy(model(ids), targets)
        loss.backward()
        opt.step()
        opt.zero_grad()
        total = loss.detach().double().clone()
        dist.all_reduce(total)  # ends the step on every rank, as prec's loss
        total.item()
        now = time.perf_counter()
        times.append(now - last)
        last = now
    if rank == 0:
        print("fsdp2: step times " + " ".join("%.6f" % t for t in times), flush=True)
    dist.destroy_process_group()
    sys.stdout.flush()
    os._exit(0)  # gloo's threads can abort the interpreter's teardown


# --- inside the cluster (the switch's namespace) ------------------------------

def link_bytes(hosts):
    """Bytes the hosts have sent over their links: what the switch's ports
    received."""
    total = 0
    for h in range(hosts):
        with open("/sys/class/net/h%d/statistics/rx_bytes" % h) as f:
            total += int(f.read())
    return total


def run_inside(plan_path):
    with open(plan_path) as f:
        plan = json.load(f)
    ranks = plan["ranks"]
    results = {}
    for name, command in plan["commands"].items():
        before = link_bytes(plan["hosts"])
        started = time.perf_counter()
        done = subprocess.run(mpirun(ranks) + command, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True)
        wall = time.perf_counter() - started
        across = link_bytes(plan["hosts"]) - before
        with open(os.path.join(plan["out"], "%s-%s.log" % (plan["rate"], name)), "w") as f:
            f.write(done.stdout)
        if done.returncode:
            sys.exit("%s failed (status %d):\n%s" % (shlex.join(command), done.returncode,
                                                    done.stdout[-4000:]))
        results[name] = dict(output=done.stdout, across=across, wall=wall)
        print("cluster_step: %s at %s: %.1f s" % (name, plan["rate"], wall), flush=True)
    with open(plan["result"], "w") as f:
        json.dump(results, f)
    return 0


# --- parsing ------------------------------------------------------------------

def parse(name, output, across, warmup, steps):
    total = warmup + steps
    if name == "fsdp2":
        times = [float(t) for t in re.search(r"fsdp2: step times (.*)", output).group(1).split()]
    else:
        times = [float(t) for t in re.findall(r"step \d+/\d+ took ([0-9.]+) s", output)]
    if len(times) != total:
        raise SystemExit("%s: expected %d step times, found %d:\n%s"
                         % (name, total, len(times), output[-3000:]))
    row = dict(step=statistics.median(times[warmup:]), times=times,
               across=across / total, payload=None, comm=None, comm_ms=None,
               background_ms=None)
    if name != "fsdp2":
        # Per rank: the payload it sent, and what of it went to other hosts
        # (printed where the step moved bytes between hosts).
        sent = [(int(b), int(a or 0)) for b, a in re.findall(
            r"traffic per step, as the runtime counted the last one: .*"
            r"sent (\d+) bytes(?: \((\d+) to other hosts\))?", output)]
        shares, comm_ms, background_ms = [], [], []
        for block in re.findall(r"profile, per step of \d+.*?\n((?:  .*\n)+)", output):
            step = float(re.search(r"step\s+([0-9.]+) ms", block).group(1))
            comm = float(re.search(r"collectives\s+([0-9.]+) ms", block).group(1))
            shares.append(comm / step)
            comm_ms.append(comm)
            background = re.search(r"started transports \(bg\)\s+([0-9.]+) ms", block)
            if background:
                background_ms.append(float(background.group(1)))
        row["payload"] = sum(b for b, _ in sent) if sent else None
        row["payload_across"] = sum(a for _, a in sent) if sent else None
        row["comm"] = statistics.mean(shares) if shares else None
        row["comm_ms"] = statistics.mean(comm_ms) if comm_ms else None
        row["background_ms"] = (statistics.mean(background_ms)
                                if background_ms else None)
    return row


# --- the driver ---------------------------------------------------------------

def export(options, out, tokens, topology=()):
    """prec_torch's step (FSDP over every rank, or with `topology`, its
    options for the hosts) into `out`, and the prec-run command it prints."""
    model = os.path.join(ROOT, "examples", "nanogpt", "model.py")
    kwargs = dict(vocab=256, dim=options.dim, heads=options.heads, seq=options.seq,
                  layers=options.layers, batch=options.batch)
    ranks = options.hosts * options.ranks_per_host
    made = subprocess.run(
        [sys.executable, "-m", "prec_torch", model + ":nanogpt",
         "--factory-kwargs", ",".join("%s=%d" % kv for kv in kwargs.items()),
         "--loss", "cross_entropy", "--mesh", str(ranks),
         "--param-dtype", "bf16", "--reduce-dtype", "f32", "--optimizer", "adamw",
         "--lr", repr(LR), "--betas", "%r,%r" % BETAS, "--eps", repr(EPS),
         "--weight-decay", repr(WD), "--tokens", tokens,
         "--steps", str(options.warmup + options.steps), *topology,
         "--prec-opt", options.prec_opt, "--prec-run", options.prec_run, "--out", out],
        env=dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python")),
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if made.returncode:
        sys.exit(made.stderr)
    command = shlex.split(made.stdout.strip().splitlines()[-1])
    if "--save" in command:  # the trained state: not part of a step
        del command[command.index("--save"):command.index("--save") + 2]
    del command[command.index("--ranks"):command.index("--ranks") + 2]
    return model, kwargs, command


def fmt_bytes(b):
    return "-" if b is None else "%.1f MB" % (b / 1e6)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rates", default="1gbit,10gbit")
    parser.add_argument("--dim", type=int, default=384)
    parser.add_argument("--heads", type=int, default=6)
    parser.add_argument("--layers", type=int, default=4)
    parser.add_argument("--seq", type=int, default=64)
    parser.add_argument("--batch", type=int, default=4)
    parser.add_argument("--warmup", type=int, default=2)
    parser.add_argument("--steps", type=int, default=5)
    parser.add_argument("--hosts", type=int, default=2)
    parser.add_argument("--ranks-per-host", type=int, default=2)
    parser.add_argument("--configs", default=",".join(CONFIGS))
    parser.add_argument("--bucket-bytes", type=int, default=1 << 20,
                        help="the overlapped configuration's bucket cap")
    parser.add_argument("--prec-run", default=os.path.join(ROOT, "build/bin/prec-run"))
    parser.add_argument("--prec-opt", default=os.path.join(ROOT, "build/bin/prec-opt"))
    parser.add_argument("--out", default="/tmp/prec-cluster-step")
    parser.add_argument("--report", action="store_true",
                        help="print the table again from the outputs a run left in --out")
    parser.add_argument("--fsdp2-rank", help=argparse.SUPPRESS)
    parser.add_argument("--inside", help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.fsdp2_rank:
        return fsdp2_rank(options.fsdp2_rank)
    if options.inside:
        return run_inside(options.inside)

    configs = options.configs.split(",")
    unknown = [c for c in configs if c not in CONFIGS + EXTRA_CONFIGS]
    if unknown:
        sys.exit("cluster_step.py: unknown configuration(s) %s; expected some of %s"
                 % (", ".join(unknown), ",".join(CONFIGS + EXTRA_CONFIGS)))
    out = os.path.abspath(options.out)
    os.makedirs(out, exist_ok=True)
    rows = {}
    if options.report:
        for rate in options.rates.split(","):
            with open(os.path.join(out, "result-%s.json" % rate)) as f:
                measured = json.load(f)
            rows[rate] = {name: parse(name, m["output"], m["across"], options.warmup,
                                      options.steps) for name, m in measured.items()}
        return print_report(options, configs, out, rows, None)
    ranks = options.hosts * options.ranks_per_host
    tokens = os.path.join(out, "tokens.u16")
    subprocess.run([sys.executable, os.path.join(ROOT, "utils", "byte-tokens.py"), tokens],
                   check=True, stdout=subprocess.DEVNULL)
    started = time.perf_counter()
    model, kwargs, run = export(options, out, tokens)
    print("cluster_step: export %.1f s; prec-run: %s" % (time.perf_counter() - started,
                                                        shlex.join(run)), flush=True)
    steps = {"flat": run[1], "flat-overlap": run[1]}  # prec-run STEP.mlir ...
    # The two-level steps from the same export and seed (the same
    # init.safetensors, so the flat run's command loads it), made only when
    # asked for (one rank per host has no second level).
    hosts = ["--hosts", str(options.hosts)]
    for name, topology in (("two-level", hosts),
                           ("two-level-bf16", hosts + ["--inter-host-reduce-dtype", "bf16"]),
                           ("two-level-fp8",
                            hosts + ["--inter-host-reduce-dtype", "f8E4M3FN"])):
        if not any(c.startswith(name) for c in configs):
            continue
        _, _, command = export(options, os.path.join(out, name), tokens, topology)
        steps[name] = command[1]
    for name in ("two-level-bf16", "two-level-fp8"):
        if name in steps:
            steps[name + "-overlap"] = steps[name]
    fsdp2_config = os.path.join(out, "fsdp2.json")
    with open(fsdp2_config, "w") as f:
        json.dump(dict(model=model + ":nanogpt", wrap=model + ":blocks", factory_kwargs=kwargs,
                       init=os.path.join(out, "init.safetensors"), tokens=tokens,
                       warmup=options.warmup, steps=options.steps, optimizer="adamw", lr=LR,
                       betas=BETAS, eps=EPS, weight_decay=WD), f)
    commands = {}
    for name in configs:
        if name == "fsdp2":
            commands[name] = ["-x", "PREC_CLUSTER_HOSTS", sys.executable,
                              os.path.abspath(__file__), "--fsdp2-rank", fsdp2_config]
        else:
            commands[name] = ([run[0], steps[name], "--backend", "mpi"] + run[2:] +
                              ["--print", "none", "--step-times", "--profile", "--traffic"])
            if name.endswith("-overlap"):
                commands[name] += ["--overlap", "--max-bucket-bytes",
                                   str(options.bucket_bytes)]
    for rate in options.rates.split(","):
        plan = os.path.join(out, "plan-%s.json" % rate)
        result = os.path.join(out, "result-%s.json" % rate)
        with open(plan, "w") as f:
            json.dump(dict(ranks=ranks, hosts=options.hosts, rate=rate, out=out,
                           result=result, commands=commands), f)
        cluster = [os.path.join(ROOT, "scripts", "emulated-cluster.sh"), "--hosts",
                   str(options.hosts), "--ranks-per-host", str(options.ranks_per_host),
                   "--rate", rate, "--", sys.executable, os.path.abspath(__file__),
                   "--inside", plan]
        done = subprocess.run(cluster)
        if done.returncode:
            sys.exit("cluster_step.py: the run at %s failed (status %d)"
                     % (rate, done.returncode))
        with open(result) as f:
            measured = json.load(f)
        rows[rate] = {name: parse(name, m["output"], m["across"], options.warmup,
                                  options.steps) for name, m in measured.items()}
    return print_report(options, configs, out, rows, os.getloadavg())


def print_report(options, configs, out, rows, load):
    with open("/proc/cpuinfo") as f:
        cpu = re.search(r"model name\s*:\s*(.*)", f.read()).group(1)
    print("\n%d hosts x %d ranks; nanoGPT dim %d, %d layers, %d heads, %d x %d tokens per rank;"
          " median of %d steps after %d; %s, %d cores; load at the end %s"
          % (options.hosts, options.ranks_per_host, options.dim, options.layers, options.heads,
             options.batch, options.seq, options.steps, options.warmup, cpu, os.cpu_count(),
             " ".join("%.2f" % l for l in load) if load else "(not recorded: --report)"))
    print("| link | configuration | step | vs FSDP2 | across hosts / step (links) "
          "| payload across hosts / step | payload inside hosts / step "
          "| payload sent / step, all ranks | collectives / step "
          "| collectives' share | started transports (bg) / step |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for rate, by_name in rows.items():
        base = by_name.get("fsdp2", {}).get("step")
        for name in configs:
            r = by_name[name]
            # The runtime's count of the payload (prec-run --traffic), and
            # what of it went to ranks on other hosts.
            across = r.get("payload_across")
            inside = None if r["payload"] is None else r["payload"] - across
            print("| %s | %s | %.3f s | %s | %s | %s | %s | %s | %s | %s | %s |"
                  % (rate, name, r["step"], "%.2f" % (r["step"] / base) if base else "-",
                     fmt_bytes(r["across"]), fmt_bytes(across), fmt_bytes(inside),
                     fmt_bytes(r["payload"]),
                     "-" if r["comm_ms"] is None else "%.0f ms" % r["comm_ms"],
                     "-" if r["comm"] is None else "%.0f%%" % (100 * r["comm"]),
                     "-" if r.get("background_ms") is None
                     else "%.0f ms" % r["background_ms"]))
    if load:
        with open(os.path.join(out, "results.json"), "w") as f:
            json.dump(rows, f, indent=1)
    for rate, by_name in rows.items():
        prec = [by_name[n]["step"] for n in configs if n != "fsdp2"]
        if "fsdp2" in by_name and prec:
            best = min(prec)
            print("at %s: prec's best step is %.2f x FSDP2's (target <= 0.5: %s)"
                  % (rate, best / by_name["fsdp2"]["step"],
                     "met" if best <= 0.5 * by_name["fsdp2"]["step"] else "not met"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
