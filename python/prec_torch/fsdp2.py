"""The same training with PyTorch FSDP2 on CPU ranks (gloo), for comparing
prec with it: `fully_shard` on every submodule `wrap(model)` names and on
the root, `MixedPrecisionPolicy(param_dtype, reduce_dtype)`, the batches
prec-run's `--data` gives (step s of rank r reads window (s R + r) mod W of
the token stream, targets one token later), and the initial weights of
prec_torch's init.safetensors.
"""
import os
import socket
import sys

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn.functional as F


def window(tokens, step, rank, ranks, batch, seq):
    """The ids and targets rank `rank` reads at step `step`."""
    n = batch * seq
    k = (step * ranks + rank) % (len(tokens) // n)
    ids = tokens[k * n:(k + 1) * n]
    targets = torch.cat((tokens[1:], tokens[:1]))[k * n:(k + 1) * n]
    return ids.view(batch, seq), targets.view(batch, seq)


def cross_entropy(logits, targets):
    """prec_torch's --loss cross_entropy: on logits upcast to f32."""
    wide = logits.to(torch.promote_types(logits.dtype, torch.float32))
    return F.cross_entropy(wide.reshape(-1, logits.shape[-1]), targets.reshape(-1))


def make_optimizer(config, params):
    if config["optimizer"] == "sgd":
        return torch.optim.SGD(params, lr=config["lr"], weight_decay=config.get("weight_decay") or 0.0)
    return torch.optim.AdamW(params, lr=config["lr"], betas=config["betas"], eps=config["eps"],
                             weight_decay=config.get("weight_decay", 0.01))


def _worker(rank, config, tokens, port, result):
    from torch.distributed.fsdp import MixedPrecisionPolicy, fully_shard

    from .cli import load_factory
    from .state import load_state_dict

    ranks = config["ranks"]
    mesh = init_ranks(rank, ranks, port)
    model, _ = load_factory(config["model"])(**config["factory_kwargs"])
    load_state_dict(model, config["init"])
    policy = MixedPrecisionPolicy(param_dtype=config.get("param_dtype"),
                                  reduce_dtype=config.get("reduce_dtype"))
    for module in load_factory(config["wrap"])(model):
        fully_shard(module, mesh=mesh, mp_policy=policy)
    fully_shard(model, mesh=mesh, mp_policy=policy)
    opt = make_optimizer(config, model.parameters())
    losses = []
    for step in range(config["steps"]):
        ids, targets = window(tokens, step, rank, ranks, config["batch"], config["seq"])
        loss = cross_entropy(model(ids), targets)
        loss.backward()
        opt.step()
        opt.zero_grad()
        total = loss.detach().double().clone()
        dist.all_reduce(total)
        losses.append(total.item() / ranks)
    state = {name: p.full_tensor().detach() for name, p in model.named_parameters()}
    if rank == 0:
        torch.save({"losses": losses, "state": state}, result)
    dist.destroy_process_group()
    # Gloo's threads can abort the interpreter's teardown (SIGABRT, seen
    # when several trainings share the cores); everything is written, so the
    # process leaves without it.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


def free_port():
    """A port no one listens on now: several trainings may run at once."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def init_ranks(rank, ranks, port):
    """Joins the gloo group of `ranks` processes on this machine, one
    thread each; returns its 1-D device mesh."""
    from torch.distributed.device_mesh import init_device_mesh

    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(port)
    torch.set_num_threads(1)
    dist.init_process_group("gloo", rank=rank, world_size=ranks)
    return init_device_mesh("cpu", (ranks,))


def train(config, tokens, result):
    """Trains on config["ranks"] processes; returns (the mean loss of each
    step, the full parameters after the last). config: model and wrap
    (`file.py:function`), factory_kwargs, init (safetensors), batch, seq,
    steps, ranks, param_dtype, reduce_dtype, optimizer, lr, betas, eps,
    weight_decay; `result` is the file rank 0 writes them to."""
    port = free_port()
    mp.spawn(_worker, args=(config, tokens, port, result), nprocs=config["ranks"], join=True)
    saved = torch.load(result)
    return saved["losses"], saved["state"]


def read_tokens(path):
    """A u16 token stream (utils/byte-tokens.py) as int64 ids."""
    raw = bytearray(open(path, "rb").read())
    return torch.frombuffer(raw, dtype=torch.int16).to(torch.long) & 0xFFFF
