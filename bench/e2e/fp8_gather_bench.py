"""Time of fp8 weight all-gathers against the bf16 all-gather, 4 ranks.

Three prec programs gather the same f32 weight shards (ROWS x COLS per
rank), each run for --steps steps under mpirun with the MPI backend (or on
the local backend's threads with --local); prec-run reports the time of the
steps' calls (--profile, the slowest rank). The bf16 gather (FSDP's param_dtype) is the
baseline measured in the same run:

  bf16             cast the shard to bf16, gather bf16, bf16 result
  fp8 + scale      torchao's Float8Linear form: amax, all_reduce(max), scale,
                   quantize, gather fp8, fp8 result and its scale
  fp8 + precomputed scale
                   the gather of FSDP2's fp8 all-gather hook
                   (fsdp_pre_all_gather) as torchao runs it: the scale is an
                   argument, computed with every other weight's in one amax
                   all_reduce after the optimizer step
                   (precompute_float8_dynamic_scale_for_fsdp), so the gather
                   quantizes and gathers
  fp8 dequantized  the same gather dequantized to a bf16 result

  python3 bench/e2e/fp8_gather_bench.py --prec-run build/bin/prec-run [--local]

Prints the median time per step over --repeats runs of each program and
the ratio to bf16, with the bytes each rank sends and receives per gather.
"""
import argparse
import os
import re
import statistics
import struct
import subprocess
import sys
import tempfile

RANKS = 4

PROGRAMS = {
    "bf16": """
shard.grid @dp(shape = 4)
func.func @gather(%w: tensor<{r}x{c}xf32>) -> tensor<{a}x{c}xbf16> {{
  %g = prec.all_gather %w on @dp gather_axis = 0 forward_dtype = bf16
         : tensor<{r}x{c}xf32> -> tensor<{a}x{c}xbf16>
  return %g : tensor<{a}x{c}xbf16>
}}
""",
    "fp8 + scale": """
shard.grid @dp(shape = 4)
func.func @gather(%w: tensor<{r}x{c}xf32>) -> (tensor<{a}x{c}xf8E4M3FN>, tensor<f32>) {{
  %am = prec.amax %w : tensor<{r}x{c}xf32> -> tensor<f32>
  %m = prec.all_reduce %am on @dp reduction = <max> : tensor<f32> -> tensor<f32>
  %s = prec.scale_from_amax %m element_type = f8E4M3FN : tensor<f32> -> tensor<f32>
  %q = prec.quantize %w scale %s scaling = <dynamic>
         : tensor<{r}x{c}xf32>, tensor<f32> -> tensor<{r}x{c}xf8E4M3FN>
  %g = prec.all_gather %q on @dp gather_axis = 0
         : tensor<{r}x{c}xf8E4M3FN> -> tensor<{a}x{c}xf8E4M3FN>
  return %g, %s : tensor<{a}x{c}xf8E4M3FN>, tensor<f32>
}}
""",
    "fp8 + precomputed scale": """
shard.grid @dp(shape = 4)
func.func @gather(%w: tensor<{r}x{c}xf32>, %s: tensor<f32>) -> (tensor<{a}x{c}xf8E4M3FN>, tensor<f32>) {{
  %q = prec.quantize %w scale %s scaling = <dynamic>
         : tensor<{r}x{c}xf32>, tensor<f32> -> tensor<{r}x{c}xf8E4M3FN>
  %g = prec.all_gather %q on @dp gather_axis = 0
         : tensor<{r}x{c}xf8E4M3FN> -> tensor<{a}x{c}xf8E4M3FN>
  return %g, %s : tensor<{a}x{c}xf8E4M3FN>, tensor<f32>
}}
""",
    "fp8 dequantized": """
shard.grid @dp(shape = 4)
func.func @gather(%w: tensor<{r}x{c}xf32>) -> tensor<{a}x{c}xbf16> {{
  %g = prec.all_gather %w on @dp gather_axis = 0 forward_dtype = f8E4M3FN
         scaling = <dynamic> : tensor<{r}x{c}xf32> -> tensor<{a}x{c}xbf16>
  return %g : tensor<{a}x{c}xbf16>
}}
""",
}

WIRE_BYTES = {"bf16": 2, "fp8 + scale": 1, "fp8 + precomputed scale": 1,
              "fp8 dequantized": 1}


def run(prec_run, path, steps, local, scale_path, extra):
    """Seconds per step: the calls of the step function alone, from
    prec-run's --profile, of the slowest rank. prec-run's total ("N step(s)
    in S s") also counts the ranks' setup (argument initialization) and
    result handling, which are not the gather's."""
    command = [prec_run, path, "--steps", str(steps), "--print", "none",
               "--profile"] + extra
    if "precomputed" in path:
        # The scale of weights in [-1, 1): amax / max_finite(f8E4M3FN).
        command += ["--arg", "1=" + scale_path]
    if not local:
        command = ["mpirun", "--oversubscribe", "-np", str(RANKS)] + command + [
            "--backend", "mpi"]
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1",
               OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    out = subprocess.run(command, capture_output=True, text=True, env=env, check=True)
    text = out.stdout + out.stderr
    per_rank = re.findall(r"^\s+step\s+([0-9.]+) ms$", text, re.MULTILINE)
    if len(per_rank) != RANKS:
        sys.exit("expected a profile of each of %d ranks in prec-run's output:\n%s"
                 % (RANKS, text))
    return max(float(ms) for ms in per_rank) / 1e3


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--prec-run", required=True)
    parser.add_argument("--rows", type=int, default=2048)
    parser.add_argument("--cols", type=int, default=1024)
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--local", action="store_true",
                        help="ranks as threads (the local backend) instead of mpirun")
    parser.add_argument("--prec-run-arg", action="append", default=[],
                        help="one more argument for prec-run (repeatable), "
                             "such as --vector-bits=0")
    args = parser.parse_args()
    r, c = args.rows, args.cols
    times = {name: [] for name in PROGRAMS}
    with tempfile.TemporaryDirectory() as work:
        paths = {}
        for name, text in PROGRAMS.items():
            paths[name] = os.path.join(work, name.replace(" ", "_") + ".mlir")
            with open(paths[name], "w") as out:
                out.write(text.format(r=r, c=c, a=RANKS * r))
        scale_path = os.path.join(work, "scale.bin")
        with open(scale_path, "wb") as out:
            out.write(struct.pack("<f", 1.0 / 448.0))
        # Interleaved, so that every program sees the same machine load.
        for _ in range(args.repeats):
            for name in PROGRAMS:
                times[name].append(run(args.prec_run, paths[name], args.steps,
                                       args.local, scale_path,
                                       args.prec_run_arg))
    elements = r * c
    print("%d ranks (%s), %d x %d f32 per rank (%.0f MiB), %d steps x %d runs" %
          (RANKS, "local threads" if args.local else "mpirun, MPI backend", r, c,
           elements * 4 / 2**20, args.steps, args.repeats))
    print()
    print("| gather | ms per step (median) | vs bf16 | bytes sent per rank | received per rank |")
    print("| --- | --- | --- | --- | --- |")
    base = statistics.median(times["bf16"])
    for name in PROGRAMS:
        t = statistics.median(times[name])
        # fp8 + precomputed scale: the scale is an argument, not sent.
        sent = elements * WIRE_BYTES[name] + (4 if "+ scale" in name else 0)
        print("| %s | %.2f | %.2f | %.1f MiB | %.1f MiB |" %
              (name, t * 1e3, t / base, sent / 2**20, sent * (RANKS - 1) / 2**20))
    return 0


if __name__ == "__main__":
    sys.exit(main())
