#!/usr/bin/env python3
"""Error and time of bench/shard/matmul_allreduce.mlir's step through
upstream's convert-shard-to-mpi and through convert-shard-to-prec.

Each input is a pair NAME=PATH: PATH is either the upstream driver's
standard output (rank 0 printed the result's f32 bit patterns and the
seconds of all steps) or a prec-run --output-dir (rank*_result0.bin holds
the bit patterns, rank*_result1.bin the seconds, as f64).

The reference is A @ B in float64 of the same f32 inputs (the formula of
run_steps.mlir, in numpy's float32 arithmetic, which rounds as the
compiled code does). Errors are given relative to |A| @ |B|, the scale every
rounding of the step is proportional to, and in units of the wire dtype's
unit roundoff u (f32: 2^-24, bf16: 2^-8): the first partial products are
exact sums of 4 products in f32 (at most 3u_f32), the wire rounds each
partial once (u_wire) and the all-reduce sums 4 partials (3u of its
accumulation dtype).

usage: compare.py ITERS NAME=PATH...
"""
import os
import re
import sys

import numpy as np

M, K, N, RANKS = 512, 16, 512, 4


def formula(x, y, fx, fy, m):
    r = ((x * fx + y * fy) % m).astype(np.float32)
    return r / np.float32(m) - np.float32(0.5)


def inputs():
    i, k = np.meshgrid(np.arange(M), np.arange(K), indexing="ij")
    a = formula(i, k, 37, 11, 97)
    k, j = np.meshgrid(np.arange(K), np.arange(N), indexing="ij")
    b = formula(k, j, 13, 29, 89)
    return a, b


def read_upstream(path):
    text = open(path).read()
    body = text[text.index("data =") + len("data ="):]
    numbers = [int(v) for v in re.findall(r"-?\d+", body[: body.rindex("]") + 1])]
    seconds = float(body[body.rindex("]") + 1:].split()[0])
    bits = np.array(numbers, dtype=np.int64).astype(np.uint32)
    return bits.view(np.float32).reshape(M, N), [seconds]


def read_prec(directory):
    results, seconds = [], []
    for rank in range(RANKS):
        bits = np.fromfile(os.path.join(directory, "rank%d_result0.bin" % rank), dtype=np.uint32)
        results.append(bits.view(np.float32).reshape(M, N))
        seconds.append(float(np.fromfile(os.path.join(directory, "rank%d_result1.bin" % rank),
                                         dtype=np.float64)[0]))
    for rank in range(1, RANKS):
        if not np.array_equal(results[rank].view(np.uint32), results[0].view(np.uint32)):
            sys.exit("%s: rank %d's result differs from rank 0's" % (directory, rank))
    return results[0], seconds


def main():
    iters = int(sys.argv[1])
    a, b = inputs()
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    reference = a64 @ b64
    scale = np.abs(a64) @ np.abs(b64)
    print("| lowering | wire / accumulation | max error / (|A| @ |B|) | in units of u_wire | ms per step |")
    print("| --- | --- | --- | --- | --- |")
    for spec in sys.argv[2:]:
        name, path = spec.rsplit("=", 1)
        c, seconds = read_upstream(path) if os.path.isfile(path) else read_prec(path)
        error = np.max(np.abs(c.astype(np.float64) - reference) / scale)
        wire = "bf16" if "bf16" in name else "f32"
        u = 2.0 ** -8 if wire == "bf16" else 2.0 ** -24
        print("| %s | %s / f32 | %.3g | %.3g | %.2f |" % (
            name, wire, error, error / u, 1000.0 * max(seconds) / iters))
        if not np.isfinite(error) or error / u > 8:
            sys.exit("%s: error %.3g u exceeds the bound of this step" % (name, error / u))


if __name__ == "__main__":
    sys.exit(main())
