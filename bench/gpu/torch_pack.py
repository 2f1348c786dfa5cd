#!/usr/bin/env python3
"""The work of prec's fused pack kernel, done by PyTorch on the same GPU.

prec's pack kernel (bench/gpu/pack.mlir, timed by prec_bench_gpu_pack) reads
f32 gradients once, divides them by the pre-divisor and writes bf16 once.
PyTorch does the same work unfused:

  to-then-div   grad.to(torch.bfloat16) then div_(d): the cast writes bf16,
                the division reads and writes it again (and divides in bf16,
                rounding twice);
  fsdp2-copy-in FSDP2's reduce-scatter copy-in: the cast to reduce_dtype,
                torch._chunk_cat into the flat reduce-scatter buffer (one
                chunk per rank), then the pre-division on that buffer
                (torch.distributed.fsdp._fully_shard._fsdp_collectives);
  copy          a device-to-device copy of the f32 input, the bandwidth
                baseline prec_bench_gpu_pack measures too.

Prints the time of each and its effective bandwidth (bytes the fused kernel
must move, 6 bytes per element, over the time), so the figures compare with
prec_bench_gpu_pack's directly.

  python3 bench/gpu/torch_pack.py [--elements N] [--world-size W]
"""

import argparse

import torch


def time_per_call(fn, iterations):
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    start = torch.cuda.Event(enable_timing=True)
    end = torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(iterations):
        fn()
    end.record()
    torch.cuda.synchronize()
    return start.elapsed_time(end) / 1e3 / iterations


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--elements", type=int, default=67108864)
    parser.add_argument("--world-size", type=int, default=8)
    parser.add_argument("--divisor", type=float, default=4.0)
    parser.add_argument("--iterations", type=int, default=50)
    args = parser.parse_args()

    if not torch.cuda.is_available():
        raise SystemExit("torch_pack.py: no CUDA device")
    n, d = args.elements, args.divisor
    grad = torch.randn(n, device="cuda", dtype=torch.float32)
    flat = torch.empty(n, device="cuda", dtype=torch.bfloat16)
    copy = torch.empty_like(grad)
    fused_bytes = n * (4 + 2)

    def to_then_div():
        grad.to(torch.bfloat16).div_(d)

    def fsdp2_copy_in():
        cast = grad.to(torch.bfloat16)
        torch._chunk_cat([cast], dim=0, num_chunks=args.world_size,
                         out=flat.view(args.world_size, -1))
        flat.div_(d)

    def device_copy():
        copy.copy_(grad)

    print(f"device: {torch.cuda.get_device_name()}, torch {torch.__version__}")
    copy_seconds = time_per_call(device_copy, args.iterations)
    copy_bandwidth = 2 * 4 * n / copy_seconds
    print(f"copy: {copy_seconds * 1e6:.1f} us, {copy_bandwidth / 1e9:.0f} GB/s")
    for name, fn in (("to-then-div", to_then_div),
                     ("fsdp2-copy-in", fsdp2_copy_in)):
        seconds = time_per_call(fn, args.iterations)
        bandwidth = fused_bytes / seconds
        print(f"{name}: {seconds * 1e6:.1f} us, {bandwidth / 1e9:.0f} GB/s "
              f"of the fused kernel's bytes, {bandwidth / copy_bandwidth:.2f} x "
              f"the copy's bandwidth")


if __name__ == "__main__":
    main()
