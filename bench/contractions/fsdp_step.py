#!/usr/bin/env python3
"""One FSDP training step under prec-run against PyTorch FSDP2.

The model of examples/fsdp_step.mlir at a real layer size: two linear layers
without bias, WIDTH x WIDTH each, a batch of BATCH rows per rank, a mean
squared error, SGD, on RANKS data-parallel ranks. Weights are f32 shards
gathered in bf16, gradients reduce-scattered in f32 (FSDP2's
MixedPrecisionPolicy(param_dtype=bfloat16, reduce_dtype=float32)).

prec-run runs the ranks as threads of one process; PyTorch runs them as
processes on gloo, each with one intra-op thread (torch.set_num_threads(1)),
so both use one thread per rank on the same cores. Step time is the mean over
the timed steps, after warm-up steps.

  fsdp_step.py [--width 512] [--batch 64] [--ranks 4] [--steps 20]
               [--torch-param-dtype bfloat16|float32]
               [--prec-run build/bin/prec-run] [--no-torch] [--loops] [--profile]

Not part of `make check`: it needs PyTorch, and it measures time.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile
import time


def prec_module(width, batch, ranks):
    rows = width // ranks
    shard = f"tensor<{rows}x{width}xf32>"
    full = f"tensor<{width}x{width}xbf16>"
    act_bf16 = f"tensor<{batch}x{width}xbf16>"
    act_f32 = f"tensor<{batch}x{width}xf32>"
    return f"""
shard.grid @dp(shape = {ranks})

func.func private @mlp_loss(%w1_shard: {shard}, %w2_shard: {shard},
                            %x: {act_bf16}, %target: {act_f32})
    -> tensor<f32> attributes {{prec.differentiable}} {{
  %w1 = prec.all_gather %w1_shard on @dp gather_axis = 0
          forward_dtype = bf16 backward_dtype = f32 : {shard} -> {full}
  %w2 = prec.all_gather %w2_shard on @dp gather_axis = 0
          forward_dtype = bf16 backward_dtype = f32 : {shard} -> {full}
  %zero = arith.constant 0.0 : f32
  %h_init = tensor.empty() : {act_f32}
  %h_zero = linalg.fill ins(%zero : f32) outs(%h_init : {act_f32}) -> {act_f32}
  %h_acc = linalg.matmul ins(%x, %w1 : {act_bf16}, {full})
                         outs(%h_zero : {act_f32}) -> {act_f32}
  %h = prec.cast %h_acc : {act_f32} to {act_bf16}
  %y_init = tensor.empty() : {act_f32}
  %y_zero = linalg.fill ins(%zero : f32) outs(%y_init : {act_f32}) -> {act_f32}
  %y = linalg.matmul ins(%h, %w2 : {act_bf16}, {full})
                     outs(%y_zero : {act_f32}) -> {act_f32}
  %err = arith.subf %y, %target : {act_f32}
  %sq = arith.mulf %err, %err : {act_f32}
  %loss = prec.reduce %sq dims = [0, 1] reduction = <avg> acc_dtype = f32
            : {act_f32} -> tensor<f32>
  return %loss : tensor<f32>
}}

func.func private @mlp_loss_backward({shard}, {shard}, {act_bf16}, {act_f32}, tensor<f32>)
    -> ({shard}, {shard}, {act_bf16}, {act_f32})

func.func @train_step(%w1_shard: {shard}, %w2_shard: {shard},
                      %x: {act_bf16}, %target: {act_f32}, %lr: f32)
    -> ({shard}, {shard}, tensor<f32>) {{
  %loss = call @mlp_loss(%w1_shard, %w2_shard, %x, %target)
            : ({shard}, {shard}, {act_bf16}, {act_f32}) -> tensor<f32>
  %seed = arith.constant dense<1.0> : tensor<f32>
  %grads:4 = call @mlp_loss_backward(%w1_shard, %w2_shard, %x, %target, %seed)
               : ({shard}, {shard}, {act_bf16}, {act_f32}, tensor<f32>)
                 -> ({shard}, {shard}, {act_bf16}, {act_f32})
  %w1_next = prec.sgd %w1_shard, %grads#0, %lr : {shard}, {shard}
  %w2_next = prec.sgd %w2_shard, %grads#1, %lr : {shard}, {shard}
  %mean_loss = prec.all_reduce %loss on @dp reduction = <avg> : tensor<f32> -> tensor<f32>
  return %w1_next, %w2_next, %mean_loss : {shard}, {shard}, tensor<f32>
}}
"""


def run_prec(args):
    """Seconds per step of prec-run: the run of `steps` steps minus a run of
    `warmup` steps, which holds the same compilation and first-step costs."""
    with tempfile.TemporaryDirectory() as directory:
        path = os.path.join(directory, "fsdp_step.mlir")
        with open(path, "w") as f:
            f.write(prec_module(args.width, args.batch, args.ranks))

        def run(steps, extra=()):
            command = [args.prec_run, path, "--steps", str(steps), "--scalar",
                       "4=0.01", "--print", "none",
                       "--gemm-contractions=%s" % ("false" if args.loops else "true"),
                       *extra]
            out = subprocess.run(command, check=True, capture_output=True, text=True)
            seconds = float(re.search(r"(\d+) step\(s\) in ([0-9.]+) s", out.stderr).group(2))
            return seconds, out.stdout

        short, _ = run(args.warmup)
        long, log = run(args.warmup + args.steps, ["--profile"] if args.profile else [])
        if args.profile:
            sys.stdout.write(log)
        return (long - short) / args.steps


def torch_rank(rank, args, queue):
    import torch
    import torch.distributed as dist
    from torch.distributed.device_mesh import init_device_mesh
    from torch.distributed.fsdp import MixedPrecisionPolicy, fully_shard

    torch.set_num_threads(1)
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(args.port)
    dist.init_process_group("gloo", rank=rank, world_size=args.ranks)
    mesh = init_device_mesh("cpu", (args.ranks,))
    torch.manual_seed(0)
    model = torch.nn.Sequential(
        torch.nn.Linear(args.width, args.width, bias=False),
        torch.nn.Linear(args.width, args.width, bias=False))
    policy = MixedPrecisionPolicy(param_dtype=getattr(torch, args.torch_param_dtype),
                                  reduce_dtype=torch.float32)
    for layer in model:
        fully_shard(layer, mesh=mesh, mp_policy=policy)
    fully_shard(model, mesh=mesh, mp_policy=policy)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    x = torch.rand(args.batch, args.width).to(getattr(torch, args.torch_param_dtype))
    target = torch.rand(args.batch, args.width)

    def step():
        y = model(x)
        loss = torch.nn.functional.mse_loss(y.float(), target)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        dist.all_reduce(loss.detach(), op=dist.ReduceOp.AVG)

    for _ in range(args.warmup):
        step()
    dist.barrier()
    started = time.perf_counter()
    for _ in range(args.steps):
        step()
    dist.barrier()
    if rank == 0:
        queue.put((time.perf_counter() - started) / args.steps)
    dist.destroy_process_group()


def run_torch(args):
    import torch.multiprocessing as mp
    context = mp.get_context("spawn")
    queue = context.SimpleQueue()
    mp.spawn(torch_rank, args=(args, queue), nprocs=args.ranks, join=True)
    return queue.get()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--width", type=int, default=512)
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--ranks", type=int, default=4)
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--port", type=int, default=29519)
    parser.add_argument("--prec-run", default=os.path.join(
        os.path.dirname(__file__), "..", "..", "build", "bin", "prec-run"))
    parser.add_argument("--no-torch", action="store_true")
    parser.add_argument("--torch-param-dtype", default="bfloat16",
                        choices=["bfloat16", "float32"],
                        help="FSDP2's param_dtype (float32: PyTorch's f32 "
                             "matmuls, for CPUs whose bf16 matmul is slow)")
    parser.add_argument("--loops", action="store_true",
                        help="prec-run with upstream's loop lowering of matmuls")
    parser.add_argument("--profile", action="store_true",
                        help="also print prec-run --profile's breakdown")
    args = parser.parse_args()

    prec = run_prec(args)
    print(f"width {args.width}, batch {args.batch} per rank, {args.ranks} ranks")
    label = "prec-run (loops)" if args.loops else "prec-run"
    print(f"{label:20}{prec * 1e3:8.2f} ms/step")
    if args.no_torch:
        return 0
    torch_step = run_torch(args)
    print(f"PyTorch FSDP2 gloo, param_dtype {args.torch_param_dtype}: "
          f"{torch_step * 1e3:8.2f} ms/step")
    print(f"prec-run / PyTorch  {prec / torch_step:8.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
