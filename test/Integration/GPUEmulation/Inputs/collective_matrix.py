"""The collective matrix: every collective in every wire/accumulation dtype
pair and reduction, on a group of N ranks, emulated GPU against CPU.

usage:
  collective_matrix.py generate N MODULE     writes the module for N ranks
  collective_matrix.py compare N CPU_DIR GPU_DIR
                                             compares two prec-run --output-dir

Shards have 37 elements (a prime): every bandwidth kernel runs its scalar
tail after the 16-byte vectors, and a 36-element slice at offset 1 of an
argument gives the pack kernel a misaligned view (the alignment fallback).

Results whose arithmetic is the same on both paths must be identical: moves
(all_gather, all_to_all: one rounding each) and reductions whose acc_dtype
is wider than forward_dtype (prec's unpack kernel sums the received wire
chunks in rank order, on both paths). Reductions with acc_dtype ==
forward_dtype run in the backend (NCCL's native reduction, the local
backend's on the CPU), which may sum in another order: those must agree
within 2 (N + 1) u_acc sum|terms| (divided by N for avg) plus one rounding
of the result.
"""

import os
import struct
import sys

SHARD = 37
UNIT = {"f64": 2.0 ** -53, "f32": 2.0 ** -24, "bf16": 2.0 ** -8,
        "f16": 2.0 ** -11, "f8E4M3FN": 2.0 ** -4, "f8E5M2": 2.0 ** -3}
BYTES = {"f64": 8, "f32": 4, "bf16": 2, "f16": 2, "f8E4M3FN": 1, "f8E5M2": 1}
PAIRS = [("f32", "f32"), ("bf16", "f32"), ("f16", "f32"), ("f16", "f16"),
         ("bf16", "bf16"), ("f64", "f64")]
MOVES = ["f32", "bf16", "f16", "f64"]


def scaling(dtype):
    """fp8 on the wire needs scales (one amax over the tensor)."""
    return " scaling = <dynamic>" if dtype.startswith("f8") else ""


def entries(n):
    """(name, argument type, result type, op text with %x, native) per
    collective; `native` marks backend reductions."""
    out = []
    for dtype in MOVES:
        src = "f64" if dtype == "f64" else "f32"
        out.append((f"all_gather_{dtype}", f"tensor<{SHARD}x{src}>",
                    f"tensor<{SHARD * n}x{dtype}>",
                    f"prec.all_gather %x on @g gather_axis = 0 forward_dtype = {dtype}"
                    + scaling(dtype), False))
        out.append((f"all_to_all_{dtype}", f"tensor<{SHARD * n}x{src}>",
                    f"tensor<{SHARD * n}x{dtype}>",
                    f"prec.all_to_all %x on @g split_axis = 0 concat_axis = 0 forward_dtype = {dtype}"
                    + scaling(dtype), False))
    for forward, acc in PAIRS:
        src = "f64" if acc == "f64" else "f32"
        for reduction in ("sum", "avg"):
            attrs = (f"reduction = <{reduction}> forward_dtype = {forward}"
                     f"{scaling(forward)} acc_dtype = {acc}")
            native = forward == acc
            out.append((f"reduce_scatter_{forward}_{acc}_{reduction}",
                        f"tensor<{SHARD * n}x{src}>", f"tensor<{SHARD}x{src}>",
                        f"prec.reduce_scatter %x on @g scatter_axis = 0 {attrs}",
                        native))
            out.append((f"all_reduce_{forward}_{acc}_{reduction}",
                        f"tensor<{SHARD}x{src}>", f"tensor<{SHARD}x{src}>",
                        f"prec.all_reduce %x on @g {attrs}", native))
    for reduction in ("max", "min"):
        out.append((f"all_reduce_f32_{reduction}", f"tensor<{SHARD}xf32>",
                    f"tensor<{SHARD}xf32>",
                    f"prec.all_reduce %x on @g reduction = <{reduction}>", False))
    # The misaligned view: elements 1..36 of the argument.
    out.append(("all_gather_bf16_misaligned", f"tensor<{SHARD}xf32>",
                f"tensor<{(SHARD - 1) * n}xbf16>",
                f"prec.all_gather %x on @g gather_axis = 0 forward_dtype = bf16",
                False))
    return out


def generate(n, path):
    lines = [f"shard.grid @g(shape = {n})", ""]
    items = entries(n)
    params = ", ".join(f"%a{i}: {arg}" for i, (_, arg, _, _, _) in enumerate(items))
    results = ", ".join(res for _, _, res, _, _ in items)
    lines.append(f"func.func @matrix({params}) -> ({results}) {{")
    names = []
    for i, (name, arg, res, op, _) in enumerate(items):
        source = f"%a{i}"
        if name.endswith("misaligned"):
            lines.append(f"  %v{i} = tensor.extract_slice %a{i}[1] [{SHARD - 1}] [1]"
                         f" : {arg} to tensor<{SHARD - 1}xf32>")
            source, arg = f"%v{i}", f"tensor<{SHARD - 1}xf32>"
        lines.append(f"  // {name}")
        lines.append(f"  %r{i} = {op.replace('%x', source)} : {arg} -> {res}")
        if "xf8" in res:
            # prec-run writes no fp8 tensors: their bytes, widened to i32.
            bytes_type = res.split("x")[0] + "xi8>"
            lines.append(f"  %c{i} = arith.bitcast %r{i} : {res} to {bytes_type}")
            lines.append(f"  %b{i} = arith.extui %c{i} : {bytes_type} to "
                         + res.split("x")[0] + "xi32>")
            names.append(f"%b{i}")
        else:
            names.append(f"%r{i}")
    results = ", ".join(res.split("x")[0] + "xi32>" if "xf8" in res else res
                        for _, _, res, _, _ in items)
    lines[2] = lines[2][:lines[2].index("-> (")] + f"-> ({results}) {{"
    lines.append(f"  return {', '.join(names)} : {results}")
    lines.append("}")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def read(path, dtype):
    with open(path, "rb") as f:
        data = f.read()
    if dtype == "f64":
        return list(struct.unpack(f"<{len(data) // 8}d", data))
    if dtype == "f32":
        return list(struct.unpack(f"<{len(data) // 4}f", data))
    raise ValueError(dtype)


def compare(n, cpu_dir, gpu_dir):
    failures = 0
    identical = 0
    within = 0
    items = entries(n)
    for index, (name, arg, res, _, native) in enumerate(items):
        for rank in range(n):
            files = [os.path.join(d, f"rank{rank}_result{index}.bin")
                     for d in (cpu_dir, gpu_dir)]
            blobs = []
            for path in files:
                with open(path, "rb") as f:
                    blobs.append(f.read())
            cpu, gpu = blobs
            if cpu == gpu:
                identical += 1
                continue
            if len(cpu) != len(gpu) or not native:
                failures += 1
                print(f"{name} rank {rank}: results differ "
                      f"({'bit for bit expected' if not native else 'sizes'})")
                continue
            dtype = res.split("x")[-1].rstrip(">")
            acc = name.split("_")[3]
            terms = [read(os.path.join(cpu_dir, f"rank{q}_arg{index}.bin"), dtype)
                     for q in range(n)]
            a, b = read(files[0], dtype), read(files[1], dtype)
            divisor = n if name.endswith("avg") else 1
            bad = 0
            for i in range(len(a)):
                k = rank * SHARD + i if name.startswith("reduce_scatter") else i
                magnitude = sum(abs(t[k]) for t in terms) / divisor
                tolerance = (2 * (n + 1) * UNIT[acc] * magnitude
                             + 2 * UNIT[dtype] * abs(a[i]))
                if not abs(a[i] - b[i]) <= tolerance:
                    bad += 1
                    if bad <= 3:
                        print(f"{name} rank {rank} [{i}]: CPU {a[i]!r}, "
                              f"emulated {b[i]!r}, tolerance {tolerance:.3g}")
            if bad:
                failures += 1
            else:
                within += 1
    total = len(items) * n
    print(f"collective matrix on {n} ranks: {identical} of {total} results "
          f"identical, {within} within tolerance, {failures} failed")
    return 1 if failures else 0


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "generate":
        generate(int(sys.argv[2]), sys.argv[3])
        return 0
    if len(sys.argv) == 5 and sys.argv[1] == "compare":
        return compare(int(sys.argv[2]), sys.argv[3], sys.argv[4])
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main())
