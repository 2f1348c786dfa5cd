#!/usr/bin/env python3
"""Times `prec-opt --prec-lower-to-cpu` on generated FSDP steps of L layers.

For each L (default 1024, 2048, 4096) the module from gen_fsdp_step.py is
lowered REPEAT times, in rounds over all L; the run with the least CPU time
counts. Each doubling of L should cost at most 2.1x the time (linear compile
time with some slack).
The pipeline runs as the runner runs it, without verifying the module after
each pass (`--verify-each=false`; the runner verifies once, after the
pipeline); --verify-each times prec-opt's default, which verifies after every
pass. With --passes the runs are made under --mlir-timing and the passes that
take the most time are listed for every L, which is how a superlinear pass is
found (a pass's time then includes its verification, if any).

  time_lower_to_cpu.py [--prec-opt build/bin/prec-opt] [--layers 1024 2048 4096]
                       [--repeat 5] [--passes] [--shared-input] [--verify-each]
"""

import argparse
import os
import re
import resource
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_fsdp_step  # noqa: E402

TARGET_RATIO = 2.1
PIPELINE = "--prec-lower-to-cpu"


def lower(prec_opt, path, extra=()):
    """(wall seconds, CPU seconds, stderr) of one lowering. CPU time (user +
    system of prec-opt) is what the ratios use: on a shared machine it moves
    far less with the load than wall time. The result is written as bytecode:
    the text form repeats the LLVM struct type of the step's L results on
    each of the L lines that build it, so printing text alone is quadratic
    in L and would hide the lowering's own scaling."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    result = subprocess.run(
        [prec_opt, PIPELINE, *extra, path, "--emit-bytecode", "-o",
         os.devnull],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if result.returncode != 0:
        sys.exit(f"{prec_opt} {PIPELINE} {path} failed (exit status "
                 f"{result.returncode}):\n{result.stderr[-4000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, result.stderr


# A line of --mlir-timing-display=list: user time (when measured), then wall
# time, then the name: "  1.2345 ( 12.3%)  1.2001 ( 12.1%)  PassName".
TIMING_LINE = re.compile(
    r"^\s*(?:[0-9.]+\s+\(\s*[0-9.]+%\)\s+)?([0-9.]+)\s+\(\s*[0-9.]+%\)\s+(.*\S)\s*$")


def pass_times(report):
    """Wall seconds per pass name from a --mlir-timing list report."""
    times = {}
    for line in report.splitlines():
        match = TIMING_LINE.match(line)
        if match and match.group(2) not in ("Total", "Rest", "root"):
            times[match.group(2)] = times.get(match.group(2), 0.0) + float(
                match.group(1))
    return times


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--prec-opt", default="build/bin/prec-opt")
    parser.add_argument("--layers", type=int, nargs="+",
                        default=[1024, 2048, 4096])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--passes", action="store_true",
                        help="also list per-pass times from --mlir-timing")
    parser.add_argument("--shared-input", action="store_true",
                        help="steps whose layers all read one tensor "
                        "(gen_fsdp_step.py --shared-input)")
    parser.add_argument("--verify-each", action="store_true",
                        help="verify the module after each pass, as prec-opt "
                        "does by default (the runner verifies once, at the "
                        "end)")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as directory:
        paths = {}
        for layers in args.layers:
            paths[layers] = os.path.join(directory, f"fsdp_step_{layers}.mlir")
            with open(paths[layers], "w") as f:
                f.write(gen_fsdp_step.module(layers, args.shared_input))

        extra = [f"--verify-each={'true' if args.verify_each else 'false'}"]
        if args.passes:
            extra += ["--mlir-timing", "--mlir-timing-display=list"]
        # Rounds over all sizes rather than all repetitions of one size
        # after another: a change of the machine's load then slows every
        # size alike instead of one of them.
        runs = {layers: [] for layers in args.layers}
        for _ in range(args.repeat):
            for layers in args.layers:
                runs[layers].append(lower(args.prec_opt, paths[layers], extra))
        best = {layers: min(runs[layers], key=lambda run: run[1])
                for layers in args.layers}

        print(f"| layers | CPU time (best of {args.repeat}) | ratio | "
              "wall time | ratio |")
        print("| --- | --- | --- | --- | --- |")
        previous = None
        for layers in args.layers:
            wall, cpu, _ = best[layers]
            cpu_ratio = wall_ratio = ""
            if previous is not None:
                cpu_ratio = f"{cpu / best[previous][1]:.2f}"
                wall_ratio = f"{wall / best[previous][0]:.2f}"
            print(f"| {layers} | {cpu:.2f} s | {cpu_ratio} | {wall:.2f} s | "
                  f"{wall_ratio} |")
            previous = layers
        print(f"\nTarget: each doubling of the layers at most {TARGET_RATIO}x "
              "the time. The module was verified "
              + ("after each pass (prec-opt's default)." if args.verify_each
                 else "after no pass (the runner verifies it once, after the "
                 "pipeline)."))

        if args.passes:
            per_size = {layers: pass_times(best[layers][2])
                        for layers in args.layers}
            first, last = args.layers[0], args.layers[-1]
            names = sorted(per_size[last], key=per_size[last].get, reverse=True)
            print()
            print("| pass (wall) | " + " | ".join(f"L = {l}" for l in args.layers)
                  + f" | ratio {last}/{first} |")
            print("| --- | " + " | ".join("---" for _ in args.layers)
                  + " | --- |")
            for name in names[:12]:
                row = [per_size[l].get(name, 0.0) for l in args.layers]
                growth = row[-1] / row[0] if row[0] > 0 else float("inf")
                print(f"| {name} | " + " | ".join(f"{t:.3f} s" for t in row)
                      + f" | {growth:.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
