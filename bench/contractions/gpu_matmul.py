#!/usr/bin/env python3
"""precrt's GPU gemm (precrtCompiledGpuMatmul, cuBLASLt) against torch.matmul.

On one GPU, for transformer shapes in bf16 (f32 accumulation, bf16 output,
as prec's contract has it) and f32 (no TF32), times precrtCompiledGpuMatmul
through ctypes on PyTorch's current stream, and torch.matmul on the same
tensors, with CUDA events. Checks precrt's product against a float64
reference first (tolerance from the summation: (k + 1) u_f32 sum|a b|, plus
the output's rounding). Prints TFLOP/s and precrt's throughput over torch's;
the target is at least 0.8 at transformer shapes.

  python3 bench/contractions/gpu_matmul.py [--precrt build/runtime/libprecrt.so]

Without a GPU (or PyTorch) it says so and exits 0. cuBLASLt comes from
PRECRT_CUBLASLT_LIBRARY, else from PyTorch's wheels, else the library path.
"""
import argparse
import ctypes
import glob
import os
import sys

F32, BF16 = 1, 3
# (m, n, k, A transposed): a GPT-2-medium-sized block's projections and MLP
# at 8 x 1024 tokens, and the backward's x^T @ g.
SHAPES = [
    (8192, 3072, 1024, False),
    (8192, 1024, 4096, False),
    (8192, 4096, 1024, False),
    (1024, 4096, 8192, True),
    (4096, 4096, 4096, False),
]


def find_cublaslt():
    if os.environ.get("PRECRT_CUBLASLT_LIBRARY"):
        return os.environ["PRECRT_CUBLASLT_LIBRARY"]
    for entry in sys.path:
        for pattern in ("nvidia/cu13/lib/libcublasLt.so.13",
                        "nvidia/cublas/lib/libcublasLt.so.1[23]"):
            found = sorted(glob.glob(os.path.join(entry, pattern)))
            if found:
                return found[-1]
    return None


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    here = os.path.dirname(os.path.abspath(__file__))
    parser.add_argument("--precrt", default=os.path.join(
        here, "..", "..", "build", "runtime", "libprecrt.so"))
    parser.add_argument("--iterations", type=int, default=20)
    args = parser.parse_args()
    try:
        import torch
    except ImportError:
        print("gpu_matmul: no PyTorch; nothing to run")
        return 0
    if not torch.cuda.is_available():
        print("gpu_matmul: no GPU; nothing to run")
        return 0
    library = find_cublaslt()
    if library:
        os.environ["PRECRT_CUBLASLT_LIBRARY"] = library
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cuda.matmul.allow_bf16_reduced_precision_reduction = False
    torch.zeros(1, device="cuda")  # PyTorch's context is the primary one

    precrt = ctypes.CDLL(args.precrt)
    i64, i32, ptr = ctypes.c_int64, ctypes.c_int32, ctypes.c_void_p
    precrt.precrtCompiledGpuMatmul.argtypes = (
        [i64] * 4 + [i32, ptr, i64, i64, i64] * 3 + [i32, ptr])
    precrt.precrtCompiledGpuMatmul.restype = i32
    precrt.precrtCompiledGetError.restype = ctypes.c_char_p
    precrt.precrtGpuSetDevice(0)

    card = torch.cuda.get_device_name(0)
    print("card:", card, "| torch", torch.__version__, "| cuBLASLt:",
          library or "from the library path")
    print("%-22s %-6s %9s %9s %7s" % ("m x n x k", "dtype", "precrt",
                                       "torch", "ratio"))
    print("%-22s %-6s %9s %9s" % ("", "", "TFLOP/s", "TFLOP/s"))
    worst = None
    generator = torch.Generator(device="cuda").manual_seed(0)
    for m, n, k, a_transposed in SHAPES:
        flops = 2.0 * m * n * k
        for dtype, code in ((torch.bfloat16, BF16), (torch.float32, F32)):
            a_storage = torch.empty((k, m) if a_transposed else (m, k),
                                    device="cuda", dtype=dtype)
            a_storage.uniform_(-1, 1, generator=generator)
            b = torch.empty((k, n), device="cuda", dtype=dtype)
            b.uniform_(-1, 1, generator=generator)
            a = a_storage.t() if a_transposed else a_storage
            c = torch.zeros((m, n), device="cuda", dtype=dtype)
            stream = torch.cuda.current_stream().cuda_stream
            a_strides = a.stride()

            def run_precrt():
                status = precrt.precrtCompiledGpuMatmul(
                    1, m, n, k, code, a.data_ptr(), 0, *a_strides,
                    code, b.data_ptr(), 0, n, 1,
                    code, c.data_ptr(), 0, n, 1,
                    0,  # no reduced precision: the contract
                    stream)
                if status != 0:
                    raise RuntimeError(precrt.precrtCompiledGetError().decode())

            run_precrt()
            torch.cuda.synchronize()
            reference = a.double() @ b.double()
            bound = ((k + 1) * 2.0**-24 * (a.double().abs() @ b.double().abs())
                     + (2.0**-8 if dtype == torch.bfloat16 else 0)
                     * reference.abs())
            excess = ((c.double() - reference).abs() - bound).max().item()
            if excess > 0:
                print("gpu_matmul: precrt's product is outside its bound "
                      "by %g" % excess)
                return 1

            def timed(function):
                function()
                start = torch.cuda.Event(enable_timing=True)
                stop = torch.cuda.Event(enable_timing=True)
                start.record()
                for _ in range(args.iterations):
                    function()
                stop.record()
                stop.synchronize()
                return start.elapsed_time(stop) / 1e3 / args.iterations

            out = torch.empty((m, n), device="cuda", dtype=dtype)
            ours = flops / timed(run_precrt) / 1e12
            theirs = flops / timed(lambda: torch.matmul(a, b, out=out)) / 1e12
            ratio = ours / theirs
            if dtype == torch.bfloat16:
                worst = ratio if worst is None else min(worst, ratio)
            print("%-22s %-6s %9.1f %9.1f %7.2f" % (
                "%dx%dx%d%s" % (m, n, k, " (A^T)" if a_transposed else ""),
                "bf16" if dtype == torch.bfloat16 else "f32", ours, theirs,
                ratio))
    print("worst bf16 ratio: %.2f (target 0.80) on %s" % (worst, card))
    return 0


if __name__ == "__main__":
    sys.exit(main())
