"""Error of fp8 weight gathers under dynamic, delayed and MX block scaling.

Runs one prec program on 4 ranks with prec-run: the f32 shards of a weight
matrix with outliers are all-gathered as f8E4M3FN with a dynamic scale
(torchao's Float8Linear under FSDP2), with a delayed scale from an amax
history that lags the weights (they grew by 10% since), with OCP MX block
scales (32 elements, E8M0), and as bf16 for comparison. The gathered
(dequantized, f32) weights are compared with the exact shards: a table of
relative errors for the bulk of the weights and for the outliers, and
optionally a plot of the distribution of relative errors.

  /usr/bin/python3 bench/numerics/fp8_scaling_error.py --prec-run build/bin/prec-run \
      [--plot docs/images/fp8-scaling-error.png]

The weights are N(0, 0.02) with 0.1% outliers of 20x the bulk's scale
(the heavy tails of LLM weights); the seed is fixed.
"""
import argparse
import math
import os
import random
import struct
import subprocess
import sys
import tempfile

RANKS, ROWS, COLS = 4, 256, 256

PROGRAM = """
shard.grid @dp(shape = {ranks})
func.func @gathers(%w: tensor<{rows}x{cols}xf32>, %history: tensor<16xf32>)
    -> (tensor<{all}x{cols}xf32>, tensor<{all}x{cols}xf32>, tensor<{all}x{cols}xf32>,
        tensor<{all}x{cols}xf32>) {{
  %dynamic = prec.all_gather %w on @dp gather_axis = 0 forward_dtype = f8E4M3FN
               scaling = <dynamic> : tensor<{rows}x{cols}xf32> -> tensor<{all}x{cols}xf32>
  %block = prec.all_gather %w on @dp gather_axis = 0 forward_dtype = f8E4M3FN
             scaling = <block, block_size = 32> : tensor<{rows}x{cols}xf32> -> tensor<{all}x{cols}xf32>
  %hmax = prec.reduce %history dims = [0] reduction = <max> : tensor<16xf32> -> tensor<f32>
  %s = prec.scale_from_amax %hmax element_type = f8E4M3FN : tensor<f32> -> tensor<f32>
  %q = prec.quantize %w scale %s scaling = <delayed, history = 16>
         : tensor<{rows}x{cols}xf32>, tensor<f32> -> tensor<{rows}x{cols}xf8E4M3FN>
  %g = prec.all_gather %q on @dp gather_axis = 0
         : tensor<{rows}x{cols}xf8E4M3FN> -> tensor<{all}x{cols}xf8E4M3FN>
  %delayed = prec.dequantize %g scale %s scaling = <delayed, history = 16>
               : tensor<{all}x{cols}xf8E4M3FN>, tensor<f32> -> tensor<{all}x{cols}xf32>
  %bf16 = prec.all_gather %w on @dp gather_axis = 0 forward_dtype = bf16
            : tensor<{rows}x{cols}xf32> -> tensor<{all}x{cols}xf32>
  return %dynamic, %block, %delayed, %bf16 : tensor<{all}x{cols}xf32>,
      tensor<{all}x{cols}xf32>, tensor<{all}x{cols}xf32>, tensor<{all}x{cols}xf32>
}}
"""

NAMES = ["fp8 dynamic (per tensor)", "fp8 MX block (32, E8M0)",
         "fp8 delayed (history lags 10%)", "bf16"]


def f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


def make_weights(rng):
    shards = []
    for _ in range(RANKS):
        values = []
        for _ in range(ROWS * COLS):
            v = rng.gauss(0.0, 0.02)
            if rng.random() < 0.001:
                v = rng.choice([-1, 1]) * rng.uniform(0.3, 0.5)
            values.append(f32(v))
        shards.append(values)
    return shards


def summarize(errors):
    errors = sorted(errors)
    n = len(errors)
    return (sum(errors) / n, errors[n // 2], errors[int(n * 0.99)], errors[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--prec-run", required=True)
    parser.add_argument("--plot")
    args = parser.parse_args()

    rng = random.Random(20261125)
    shards = make_weights(rng)
    weights = [v for shard in shards for v in shard]
    amax = max(abs(v) for v in weights)
    with tempfile.TemporaryDirectory() as work:
        for r, shard in enumerate(shards):
            with open(os.path.join(work, "w%d.bin" % r), "wb") as out:
                out.write(struct.pack("<%df" % len(shard), *shard))
        # The weights grew by 10% since the history's steps.
        history = [amax / 1.1] + [amax / 1.1 * 0.99**k for k in range(1, 16)]
        with open(os.path.join(work, "history.bin"), "wb") as out:
            out.write(struct.pack("<16f", *history))
        with open(os.path.join(work, "gathers.mlir"), "w") as out:
            out.write(PROGRAM.format(ranks=RANKS, rows=ROWS, cols=COLS, all=RANKS * ROWS))
        subprocess.run([args.prec_run, os.path.join(work, "gathers.mlir"),
                        "--arg", "0=" + os.path.join(work, "w%r.bin"),
                        "--arg", "1=" + os.path.join(work, "history.bin"),
                        "--output-dir", work, "--print", "none"],
                       check=True)
        results = []
        for index in range(4):
            with open(os.path.join(work, "rank0_result%d.bin" % index), "rb") as f:
                data = f.read()
            results.append(struct.unpack("<%df" % (len(data) // 4), data))

    outlier = [abs(v) >= 0.25 for v in weights]
    bulk = [abs(v) >= 1e-3 and not o for v, o in zip(weights, outlier)]
    print("%d weights (%d outliers, amax %.3f) gathered on %d ranks" %
          (len(weights), sum(outlier), amax, RANKS))
    print()
    print("| wire | bulk: mean rel. error | bulk: p99 | outliers: mean rel. error | outliers: max | ||error|| / ||w|| |")
    print("| --- | --- | --- | --- | --- | --- |")
    distributions = []
    for name, got in zip(NAMES, results):
        rel = [abs(g - w) / abs(w) if w else 0.0 for g, w in zip(got, weights)]
        bulk_rel = [e for e, b in zip(rel, bulk) if b]
        outlier_rel = [e for e, o in zip(rel, outlier) if o]
        norm = math.sqrt(sum((g - w) ** 2 for g, w in zip(got, weights)) /
                         sum(w * w for w in weights))
        b, o = summarize(bulk_rel), summarize(outlier_rel)
        print("| %s | %.2e | %.2e | %.2e | %.2e | %.2e |" % (name, b[0], b[2], o[0], o[3], norm))
        distributions.append(sorted(bulk_rel))
    if args.plot:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig, ax = plt.subplots(figsize=(7, 4))
        for name, errors in zip(NAMES, distributions):
            n = len(errors)
            ax.plot([max(e, 1e-9) for e in errors], [(i + 1) / n for i in range(n)], label=name)
        ax.set_xscale("log")
        ax.set_xlabel("relative error of a gathered weight (bulk, |w| >= 1e-3)")
        ax.set_ylabel("fraction of weights")
        ax.set_title("fp8 weight gathers on %d ranks: weights with 0.1%% outliers" % RANKS)
        ax.legend(loc="lower right", fontsize=8)
        ax.grid(True, which="both", alpha=0.3)
        fig.tight_layout()
        fig.savefig(args.plot, dpi=120)
        print("\nwrote", args.plot)
    return 0


if __name__ == "__main__":
    sys.exit(main())
