#!/usr/bin/env python3
"""Turns a flat FSDP step (prec-fully-shard / prec_torch with `--mesh N`)
into its two-level form on HOSTS hosts of N / HOSTS ranks: the grid
`shard.grid @G(shape = N)` becomes `shape = HOSTSxM` with
`prec.inter_host_axes = array<i16: 0>`, and every `grid_axes = [0]` on it
(the collectives and the arguments' `prec.shard`) becomes `[0, 1]`, so each
collective keeps its group of N ranks in the same order (rank r is grid
coordinate (r / M, r % M)), the shards and results stay bit for bit where they
were, and prec-decompose-collectives splits the collectives in two levels.
With `--inter-host-dtype DTYPE`, the gradients' reduce_scatters and
all_reduces on the grid (the ops that reduce over `grid_axes = [0]` and carry
a `backward_dtype`, i.e. that prec-generate-backward made from the forward's
all_gathers) get `inter_host_dtype = DTYPE`: their partial sums cross hosts in
DTYPE. The loss's all_reduce keeps its acc_dtype.

  two_level.py IN.mlir OUT.mlir --hosts 2 [--inter-host-dtype bf16]
"""
import argparse
import re
import sys

GRID = re.compile(r"^(\s*)shard\.grid @(\w+)\(shape = (\d+)\)\s*$", re.M)


def two_level(text, hosts, inter_host_dtype=None):
    grids = GRID.findall(text)
    if len(grids) != 1:
        raise ValueError("expected one one-dimensional shard.grid, found %d" % len(grids))
    indent, name, size = grids[0][0], grids[0][1], int(grids[0][2])
    if hosts < 2 or size % hosts or size // hosts < 2:
        raise ValueError("a grid of %d ranks cannot be split in %d hosts of 2 ranks or more"
                         % (size, hosts))
    text = GRID.sub("%sshard.grid @%s(shape = %dx%d) {prec.inter_host_axes = array<i16: 0>}"
                    % (indent, name, hosts, size // hosts), text)
    # Collectives on the grid, and the arguments' prec.shard on it.
    ops = re.compile(r"(on @%s grid_axes = )\[0\]" % name)
    shards = re.compile(r"(grid = @%s, grid_axes = )\[0\]" % name)
    text, n_ops = ops.subn(r"\g<1>[0, 1]", text)
    text, _ = shards.subn(r"\g<1>[0, 1]", text)
    if not n_ops:
        raise ValueError("no collective on @%s with grid_axes = [0]" % name)
    if inter_host_dtype:
        grads = re.compile(r"(prec\.(?:reduce_scatter|all_reduce) %%\w+ on @%s grid_axes = "
                           r"\[0, 1\])( [^:\n]* backward_dtype = )" % name)
        text, n_grads = grads.subn(r"\g<1> inter_host_dtype = %s\g<2>" % inter_host_dtype, text)
        if not n_grads:
            raise ValueError("no gradient reduction on @%s" % name)
    return text


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("input")
    parser.add_argument("output")
    parser.add_argument("--hosts", type=int, default=2)
    parser.add_argument("--inter-host-dtype")
    options = parser.parse_args()
    with open(options.input) as f:
        text = f.read()
    try:
        text = two_level(text, options.hosts, options.inter_host_dtype)
    except ValueError as error:
        sys.exit("two_level.py: %s: %s" % (options.input, error))
    with open(options.output, "w") as f:
        f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
