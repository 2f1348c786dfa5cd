#!/usr/bin/env python3
"""precrt's gemm (precrtCompiledMatmul) against the libraries on the machine.

For each shape and dtype combination of a training step's contractions,
times precrtCompiledMatmul (OpenBLAS's sgemm, or the builtin kernel with
PRECRT_BLAS_LIBRARY=none) through ctypes, and the same product of the same
values with PyTorch (its bf16 matmul, and its f32 matmul, MKL, of the values
widened to f32) and NumPy (its own OpenBLAS, f32), all on one thread.
Prints GFLOP/s and precrt's throughput over the best library's for the same
input dtypes (and over PyTorch's f32 matmul).

  OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1 \\
    python3 bench/contractions/matmul.py [--precrt build/runtime/libprecrt.so]

Not part of `make check`: it measures time, and needs NumPy (PyTorch
optional).
"""
import argparse
import ctypes
import os
import sys
import time

import numpy as np

F32, BF16 = 1, 3
SHAPES = [  # (m, n, k, A transposed): forward, the backward's x^T @ g, square
    (64, 512, 512, False),
    (512, 512, 64, True),
    (64, 2048, 2048, False),
    (512, 512, 512, False),
]


def timed(function, min_seconds=0.3):
    function()
    runs, started = 0, time.perf_counter()
    while True:
        function()
        runs += 1
        elapsed = time.perf_counter() - started
        if elapsed >= min_seconds:
            return elapsed / runs


def bf16_bits(values):
    """Round-to-nearest-even f32 -> bf16 bit patterns (uint16)."""
    bits = values.astype(np.float32).view(np.uint32)
    rounded = bits + 0x7FFF + ((bits >> 16) & 1)
    return (rounded >> 16).astype(np.uint16)


def widen(bits):
    return (bits.astype(np.uint32) << 16).view(np.float32)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    here = os.path.dirname(os.path.abspath(__file__))
    parser.add_argument("--precrt", default=os.path.join(
        here, "..", "..", "build", "runtime", "libprecrt.so"))
    args = parser.parse_args()

    precrt = ctypes.CDLL(args.precrt)
    precrt.precrtCompiledMatmulKernel.restype = ctypes.c_char_p
    i64, i32, ptr = ctypes.c_int64, ctypes.c_int32, ctypes.c_void_p
    precrt.precrtCompiledMatmul.argtypes = [i64] * 4 + [i32, ptr, i64, i64, i64] * 3
    precrt.precrtCompiledMatmul.restype = i32
    try:
        import torch
        torch.set_num_threads(1)
    except ImportError:
        torch = None
    print("precrt kernel:", precrt.precrtCompiledMatmulKernel().decode())
    print("torch:", torch.__version__ if torch else "not installed",
          "| numpy:", np.__version__)

    rng = np.random.default_rng(0)
    header = ("%-20s %-14s %9s %9s %9s %9s %7s %7s" %
              ("m x n x k", "dtypes", "precrt", "torch", "torch f32", "numpy",
               "/best", "/t.f32"))
    print(header + "\n" + "GFLOP/s".rjust(len(header) // 2))
    for m, n, k, a_transposed in SHAPES:
        flops = 2.0 * m * n * k
        a32 = rng.uniform(-1, 1, (k, m) if a_transposed else (m, k)).astype(np.float32)
        b32 = rng.uniform(-1, 1, (k, n)).astype(np.float32)
        for name in ("bf16 x bf16->f32", "f32 x f32->f32"):
            narrow = name.startswith("bf16")
            if narrow:
                a_store, b_store = bf16_bits(a32), bf16_bits(b32)
                a_vals, b_vals = widen(a_store), widen(b_store)
                dtype, size = BF16, 2
            else:
                a_store, b_store, a_vals, b_vals = a32, b32, a32, b32
                dtype, size = F32, 4
            a_logical = a_vals.T if a_transposed else a_vals
            c = np.zeros((m, n), np.float32)
            # Strides of A's logical (i, p) in elements.
            a_strides = (1, m) if a_transposed else (k, 1)

            def run_precrt():
                precrt.precrtCompiledMatmul(
                    1, m, n, k, dtype, a_store.ctypes.data, 0, *a_strides,
                    dtype, b_store.ctypes.data, 0, n, 1,
                    F32, c.ctypes.data, 0, n, 1)

            c[:] = 0
            run_precrt()
            reference = a_logical.astype(np.float64) @ b_vals.astype(np.float64)
            error = np.abs(c - reference).max()
            bound = (k + 1) * 2.0**-24 * (np.abs(a_logical) @ np.abs(b_vals)).max()
            assert error <= bound, (error, bound)

            results = {"precrt": flops / timed(run_precrt)}
            a_np = a_vals.T if a_transposed else a_vals
            results["numpy"] = flops / timed(lambda: a_np @ b_vals) if not narrow else None
            if torch is not None:
                ta = torch.from_numpy(np.ascontiguousarray(a_vals))
                tb = torch.from_numpy(b_vals)
                if a_transposed:
                    ta = ta.t()
                t_narrow_a, t_narrow_b = ta.to(torch.bfloat16), tb.to(torch.bfloat16)
                if narrow:
                    results["torch"] = flops / timed(lambda: t_narrow_a @ t_narrow_b)
                else:
                    results["torch"] = None
                results["torch f32"] = flops / timed(lambda: ta @ tb)
            best = max(v for key, v in results.items()
                       if key != "precrt" and v is not None and
                       (key != "torch f32" or not narrow))
            line = "%-20s %-14s" % ("%dx%dx%d%s" % (m, n, k, " (A^T)" if a_transposed else ""),
                                    name)
            for key in ("precrt", "torch", "torch f32", "numpy"):
                value = results.get(key)
                line += " %9s" % ("%.1f" % (value / 1e9) if value else "-")
            line += " %7.2f" % (results["precrt"] / best)
            tf32 = results.get("torch f32")
            line += " %7.2f" % (results["precrt"] / tf32 if tf32 else float("nan"))
            print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
