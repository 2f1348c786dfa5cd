#!/usr/bin/env python3
"""Times `prec-opt --prec-lower-to-cpu` on generated FSDP steps of L layers.

For each L (default 1024, 2048, 4096) the module from gen_fsdp_step.py is
lowered REPEAT times; the best wall time counts. Each doubling of L should
cost at most 2.2x the time (linear compile time with some slack); the ratios
are printed next to that target. With --passes, each size is also run once
under --mlir-timing and the passes whose time grows fastest are listed, which
is how a superlinear pass is found.

  time_lower_to_cpu.py [--prec-opt build/bin/prec-opt] [--layers 1024 2048 4096]
                       [--repeat 3] [--passes]
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_fsdp_step  # noqa: E402

TARGET_RATIO = 2.2
PIPELINE = "--prec-lower-to-cpu"


def lower(prec_opt, path, extra=()):
    start = time.perf_counter()
    result = subprocess.run(
        [prec_opt, PIPELINE, *extra, path, "-o", os.devnull],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    elapsed = time.perf_counter() - start
    if result.returncode != 0:
        sys.exit(f"{prec_opt} {PIPELINE} {path} failed:\n{result.stderr[-4000:]}")
    return elapsed, result.stderr


# A line of --mlir-timing-display=list: "  1.2345 ( 12.3%)  PassName".
TIMING_LINE = re.compile(r"^\s*([0-9.]+)\s+\(\s*[0-9.]+%\)\s+(.*\S)\s*$")


def pass_times(report):
    """Wall seconds per pass name from a --mlir-timing list report."""
    times = {}
    for line in report.splitlines():
        match = TIMING_LINE.match(line)
        if match and match.group(2) not in ("Total", "Rest"):
            times[match.group(2)] = times.get(match.group(2), 0.0) + float(
                match.group(1))
    return times


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--prec-opt", default="build/bin/prec-opt")
    parser.add_argument("--layers", type=int, nargs="+",
                        default=[1024, 2048, 4096])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--passes", action="store_true",
                        help="also list per-pass times from --mlir-timing")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as directory:
        paths = {}
        for layers in args.layers:
            paths[layers] = os.path.join(directory, f"fsdp_step_{layers}.mlir")
            with open(paths[layers], "w") as f:
                f.write(gen_fsdp_step.module(layers))

        best = {}
        for layers in args.layers:
            best[layers] = min(lower(args.prec_opt, paths[layers])[0]
                               for _ in range(args.repeat))

        print(f"| layers | {PIPELINE} (best of {args.repeat}) | "
              f"ratio to the previous size | target |")
        print("| --- | --- | --- | --- |")
        previous = None
        for layers in args.layers:
            ratio = ""
            verdict = ""
            if previous is not None:
                value = best[layers] / best[previous]
                per_doubling = value ** (
                    1.0 / max(1e-9, (layers / previous).bit_length() - 1))
                ratio = f"{value:.2f}"
                ok = per_doubling <= TARGET_RATIO
                verdict = f"<= {TARGET_RATIO} per doubling: " + (
                    "met" if ok else "MISSED")
            print(f"| {layers} | {best[layers]:.2f} s | {ratio} | {verdict} |")
            previous = layers

        if args.passes:
            per_size = {layers: pass_times(lower(
                args.prec_opt, paths[layers],
                ["--mlir-timing", "--mlir-timing-display=list"])[1])
                for layers in args.layers}
            first, last = args.layers[0], args.layers[-1]
            names = sorted(per_size[last], key=per_size[last].get, reverse=True)
            print()
            print("| pass | " + " | ".join(f"L = {l}" for l in args.layers)
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
