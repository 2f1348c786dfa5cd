#!/usr/bin/env python3
"""Tables and a plot of reduction error against group size.

Runs prec_bench_reduction_error (the simulation, CSV on stdout), checks its
bounds against the ones prec-error-bounds computes for the same collectives
(a generated module, `prec-opt --prec-error-bounds=json=-`), prints markdown
tables and writes a log-log PNG of error against N. The plot needs matplotlib
(Debian's python3-matplotlib: run with /usr/bin/python3); without --plot only
the tables are made.

  /usr/bin/python3 bench/numerics/reduction_error_report.py \\
      --bench build/bin/prec_bench_reduction_error \\
      --prec-opt build/bin/prec-opt --plot docs/images/reduction-error.png
"""

import argparse
import csv
import io
import json
import math
import subprocess
import sys

ALGORITHMS = ["f32 ring", "bf16->f32 direct", "bf16 ring", "f16 ring avg"]
DISTRIBUTIONS = ["normal", "positive", "cancelling"]

# The same collectives in prec: input f32, result f32, per algorithm.
COLLECTIVES = {
    "f32 ring": "",
    "bf16->f32 direct": "forward_dtype = bf16 acc_dtype = f32",
    "bf16 ring": "forward_dtype = bf16 acc_dtype = bf16",
    "f16 ring avg": "reduction = <avg> forward_dtype = f16 acc_dtype = f16",
}
EXPECTED_ALGORITHM = {"f32 ring": "ring", "bf16->f32 direct": "direct",
                      "bf16 ring": "ring", "f16 ring avg": "ring"}


def read_rows(bench, elements):
    output = subprocess.run([bench, str(elements)], check=True,
                            stdout=subprocess.PIPE, text=True).stdout
    rows = list(csv.DictReader(io.StringIO(output)))
    for row in rows:
        row["n"] = int(row["n"])
        for key in ("bound", "max_vs_abs_sum", "mean_vs_abs_sum", "max_vs_sum",
                    "median_vs_sum"):
            row[key] = float(row[key])
    return rows


def bounds_module(sizes):
    lines = [f"shard.grid @g{n}(shape = {n})" for n in sizes]
    lines.append("func.func @reductions(%x: tensor<1024xf32>) {")
    for n in sizes:
        for name in ALGORITHMS:
            attributes = f" {COLLECTIVES[name]}" if COLLECTIVES[name] else ""
            lines.append(f"  %r{n}_{ALGORITHMS.index(name)} = prec.all_reduce "
                         f"%x on @g{n}{attributes} : tensor<1024xf32> -> "
                         "tensor<1024xf32>")
    lines += ["  return", "}", ""]
    return "\n".join(lines)


def compiler_bounds(prec_opt, sizes):
    """{(n, algorithm): bound} from prec-error-bounds on the same ops."""
    result = subprocess.run(
        [prec_opt, "--prec-infer-precision", "--prec-error-bounds=json=-",
         "-o", "/dev/null", "-"],
        input=bounds_module(sizes), check=True, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True)
    entries = json.loads(result.stdout)
    expected = [(n, name) for n in sizes for name in ALGORITHMS]
    if len(entries) != len(expected):
        sys.exit(f"prec-error-bounds gave {len(entries)} bounds, "
                 f"expected {len(expected)}")
    bounds = {}
    for (n, name), entry in zip(expected, entries):
        if (entry["group_size"] != n
                or entry["algorithm"] != EXPECTED_ALGORITHM[name]):
            sys.exit(f"unexpected prec-error-bounds entry for N = {n}, "
                     f"{name}: {entry}")
        bounds[(n, name)] = (float("nan") if entry["bound"] is None
                             else float(entry["bound"]))
    return bounds


def check_bounds(rows, bounds):
    for row in rows:
        theirs = bounds[(row["n"], row["algorithm"])]
        ours = row["bound"]
        same = (math.isnan(ours) and math.isnan(theirs)) or math.isclose(
            ours, theirs, rel_tol=1e-5, abs_tol=1e-12)
        if not same:
            sys.exit(f"bound mismatch for N = {row['n']}, {row['algorithm']}: "
                     f"simulation {ours}, prec-error-bounds {theirs}")


def fmt(value):
    if math.isnan(value):
        return "none"
    if math.isinf(value):
        return "inf"
    if value == 0:
        return "0"
    return f"{value:.1e}"


def print_tables(rows):
    index = {(r["distribution"], r["n"], r["algorithm"]): r for r in rows}
    sizes = sorted({r["n"] for r in rows})
    print("Error relative to sum_i |x_i| / divisor, max (mean) over the "
          "elements:\n")
    print("| N | algorithm | bound | " + " | ".join(DISTRIBUTIONS) + " |")
    print("| --- | --- | --- | " + " | ".join("---" for _ in DISTRIBUTIONS)
          + " |")
    for n in sizes:
        for name in ALGORITHMS:
            cells = []
            for distribution in DISTRIBUTIONS:
                r = index[(distribution, n, name)]
                cells.append(f"{fmt(r['max_vs_abs_sum'])} "
                             f"({fmt(r['mean_vs_abs_sum'])})")
            bound = index[(DISTRIBUTIONS[0], n, name)]["bound"]
            print(f"| {n} | {name} | {fmt(bound)} | " + " | ".join(cells)
                  + " |")
    print("\nError relative to |sum_i x_i| / divisor, median (max) over the "
          "elements:\n")
    print("| N | algorithm | " + " | ".join(DISTRIBUTIONS) + " |")
    print("| --- | --- | " + " | ".join("---" for _ in DISTRIBUTIONS) + " |")
    for n in (sizes[0], sizes[len(sizes) // 2], sizes[-1]):
        for name in ALGORITHMS:
            cells = []
            for distribution in DISTRIBUTIONS:
                r = index[(distribution, n, name)]
                cells.append(f"{fmt(r['median_vs_sum'])} "
                             f"({fmt(r['max_vs_sum'])})")
            print(f"| {n} | {name} | " + " | ".join(cells) + " |")


def plot(rows, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    colors = {"f32 ring": "tab:blue", "bf16->f32 direct": "tab:green",
              "bf16 ring": "tab:red", "f16 ring avg": "tab:purple"}
    figure, axes = plt.subplots(1, len(DISTRIBUTIONS), figsize=(15, 6),
                                sharey=True)
    for axis, distribution in zip(axes, DISTRIBUTIONS):
        for name in ALGORITHMS:
            series = sorted((r for r in rows if r["distribution"] ==
                             distribution and r["algorithm"] == name),
                            key=lambda r: r["n"])
            sizes = [r["n"] for r in series]
            # Exact results (error 0) have no place on a log axis.
            def positive(values):
                return [v if v > 0 else float("nan") for v in values]
            axis.plot(sizes, positive([r["max_vs_abs_sum"] for r in series]),
                      "o-", color=colors[name], label=f"{name}: max")
            axis.plot(sizes, positive([r["mean_vs_abs_sum"] for r in series]),
                      ".:", color=colors[name], label=f"{name}: mean")
            axis.plot(sizes, [r["bound"] for r in series], "--",
                      color=colors[name], alpha=0.6, label=f"{name}: bound")
        axis.set_xscale("log", base=2)
        axis.set_yscale("log")
        axis.set_title(distribution)
        axis.set_xlabel("group size N")
        axis.grid(True, which="major", alpha=0.3)
    axes[0].set_ylabel("|error| / (sum |x_i| / divisor)")
    # Bounds above 1 say nothing; the bf16 ring's has none from N = 512.
    axes[0].set_ylim(1e-9, 2)
    handles, labels = axes[0].get_legend_handles_labels()
    figure.legend(handles, labels, loc="lower center", ncol=len(ALGORITHMS),
                  fontsize=8)
    figure.suptitle("Reduction error against group size: max (solid), mean "
                    "(dotted) and prec-error-bounds' bound (dashed)")
    figure.tight_layout(rect=(0, 0.12, 1, 1))
    figure.savefig(path, dpi=100)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bench", default="build/bin/prec_bench_reduction_error")
    parser.add_argument("--prec-opt", default="build/bin/prec-opt",
                        help="cross-check the bounds with prec-error-bounds "
                             "('' to skip)")
    parser.add_argument("--elements", type=int, default=16384,
                        help="simulated elements per N and distribution")
    parser.add_argument("--plot", help="write the PNG here")
    args = parser.parse_args()

    rows = read_rows(args.bench, args.elements)
    if args.prec_opt:
        check_bounds(rows, compiler_bounds(args.prec_opt,
                                           sorted({r["n"] for r in rows})))
        print("Bounds: equal to prec-error-bounds' for every N and "
              "algorithm.\n")
    above = [r for r in rows if r["max_vs_abs_sum"] > r["bound"]]
    print(f"Measured errors above their bound: {len(above)} of {len(rows)}"
          + "".join(f"\n  N = {r['n']}, {r['algorithm']}, {r['distribution']}"
                    for r in above) + "\n")
    print_tables(rows)
    if args.plot:
        plot(rows, args.plot)
    return 0


if __name__ == "__main__":
    sys.exit(main())
