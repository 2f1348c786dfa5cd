"""Checkpoints of checkpoint_step.mlir in safetensors, and their float64 check.

Usage:
  checkpoint.py init CASE FILE        the initial state of CASE (fsdp, hsdp,
                                      solo)
  checkpoint.py check CASE INIT SAVED STEPS OUTDIR
                                      SAVED (prec-run --save after STEPS
                                      steps from INIT) against a float64
                                      reference, and the last loss in OUTDIR
  checkpoint.py bad KIND INIT FILE    INIT spoiled as KIND says

The safetensors format is written and read here with struct and json (an
8-byte little-endian header length, the JSON header, the data), as
safetensors.torch does, so that the test needs no package.

Tolerances (u = 2^-24, every operation in f32): each value carries a bound e
on its error, propagated from the values (docs/Testing.md): a product a b
adds |a| e_b + e_a |b| and u |a b|, a sum adds the operands' bounds and u
|sum|; the loss, a sum of 12 terms per rank and of the 4 ranks' sums, adds
(n - 1) u sum(|terms|) per sum. The bounds are doubled for second-order
terms. The step counter and the bias, which add 0.5 to values of at most 3,
are exact in f32 only up to rounding: they carry the same bounds.
"""
import json
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from reference import Checker, UNIT_ROUNDOFF, round_to  # noqa: E402

U = UNIT_ROUNDOFF["f32"]
LR = 0.5
BETA = 0.75
CASES = {
    # full rows, rows a rank, ranks holding a block each, replicas
    "fsdp": {"rows": 10, "block": 3, "group": 4, "replicas": 1},
    "hsdp": {"rows": 5, "block": 3, "group": 2, "replicas": 2},
    "solo": {"rows": 3, "block": 3, "group": 1, "replicas": 1},
}
COLS = 4


def write_safetensors(path, tensors, header_extra=None, truncate=0):
    """tensors: [(name, dtype, shape, bytes)]."""
    header, data, offset = {}, b"", 0
    for name, dtype, shape, raw in tensors:
        header[name] = {"dtype": dtype, "shape": shape,
                        "data_offsets": [offset, offset + len(raw)]}
        data += raw
        offset += len(raw)
    header.update(header_extra or {})
    text = json.dumps(header).encode()
    text += b" " * ((8 - len(text) % 8) % 8)
    blob = struct.pack("<Q", len(text)) + text + data
    with open(path, "wb") as f:
        f.write(blob[:len(blob) - truncate] if truncate else blob)


def read_safetensors(path):
    blob = open(path, "rb").read()
    (length,) = struct.unpack("<Q", blob[:8])
    header = json.loads(blob[8:8 + length])
    data = blob[8 + length:]
    tensors = {}
    for name, entry in header.items():
        if name == "__metadata__":
            continue
        begin, end = entry["data_offsets"]
        tensors[name] = (entry["dtype"], entry["shape"], data[begin:end])
    return tensors


def f32s(values):
    return struct.pack("<%df" % len(values), *values)


def unpack_f32(raw):
    return list(struct.unpack("<%df" % (len(raw) // 4), raw))


def initial_state(case):
    """Deterministic f32 values in [-1, 1)."""
    rows = CASES[case]["rows"]
    state, x = {}, 12345
    def draw(n):
        nonlocal x
        out = []
        for _ in range(n):
            x = (1103515245 * x + 12345) % 2**31
            out.append(round_to(x / 2**30 - 1.0, "f32"))
        return out
    state["h.0.weight"] = ("F32", [rows, COLS], draw(rows * COLS))
    state["h.0.bias"] = ("F32", [COLS], draw(COLS))
    if case == "fsdp":
        # hsdp and solo start without optimizer state and step: zeros and
        # the default.
        state["exp_avg.h.0.weight"] = ("F32", [rows, COLS], draw(rows * COLS))
        state["step"] = ("F32", [], [5.0])
    # A tensor the step does not take is left alone.
    state["lm_head.weight"] = ("F32", [2, COLS], draw(2 * COLS))
    return state


def init(case, path):
    state = initial_state(case)
    write_safetensors(path, [(n, d, s, f32s(v)) for n, (d, s, v) in state.items()])


def reference(case, steps):
    """(values, bounds) of each saved tensor after `steps` steps, and the
    last step's loss with its bound."""
    state = initial_state(case)
    w = state["h.0.weight"][2]
    b = state["h.0.bias"][2]
    n = len(w)
    m = state["exp_avg.h.0.weight"][2] if "exp_avg.h.0.weight" in state else [0.0] * n
    step = state["step"][2][0] if "step" in state else 0.0
    ew, em, eb, es = [0.0] * n, [0.0] * n, [0.0] * COLS, 0.0
    for _ in range(steps):
        mb = [BETA * v for v in m]
        emb = [BETA * e + U * abs(v) for e, v in zip(em, mb)]
        m = [p + q for p, q in zip(mb, w)]
        em = [e1 + e2 + U * abs(v) for e1, e2, v in zip(emb, ew, m)]
        d = [LR * v for v in m]
        ed = [LR * e + U * abs(v) for e, v in zip(em, d)]
        w = [p - q for p, q in zip(w, d)]
        ew = [e1 + e2 + U * abs(v) for e1, e2, v in zip(ew, ed, w)]
        b = [v + LR for v in b]
        eb = [e + U * abs(v) for e, v in zip(eb, b)]
        step += 1.0
        es += U * abs(step)
    # The loss: every rank's sum of its block (padding is 0), over all ranks.
    replicas = CASES[case]["replicas"]
    terms = w * replicas
    local = COLS * CASES[case]["block"]
    loss = sum(terms)
    eloss = (sum(ew) * replicas
             + (local - 1) * U * sum(map(abs, terms))
             + (CASES[case]["group"] * replicas - 1) * U * sum(map(abs, terms)))
    twice = lambda bounds: [2 * e for e in bounds]
    return ({"h.0.weight": (w, twice(ew)), "exp_avg.h.0.weight": (m, twice(em)),
             "h.0.bias": (b, twice(eb)), "step": ([step], [2 * es])},
            (loss, 2 * eloss))


def check(case, init_path, saved_path, steps, outdir):
    checker = Checker("checkpoint %s" % case)
    saved = read_safetensors(saved_path)
    want, (loss, eloss) = reference(case, steps)
    rows = CASES[case]["rows"]
    shapes = {"h.0.weight": [rows, COLS], "exp_avg.h.0.weight": [rows, COLS],
              "h.0.bias": [COLS], "step": []}
    if sorted(saved) != sorted(shapes):
        print("%s: saved tensors %s, expected %s" % (checker.name, sorted(saved), sorted(shapes)))
        return 1
    for name, shape in shapes.items():
        dtype, got_shape, raw = saved[name]
        if dtype != "F32" or got_shape != shape:
            print("%s: %s is %s %s, expected F32 %s" % (checker.name, name, dtype, got_shape, shape))
            return 1
        for i, (got, (value, bound)) in enumerate(zip(unpack_f32(raw), zip(*want[name]))):
            checker.close("%s[%d]" % (name, i), got, value, bound)
    (got_loss,) = unpack_f32(open(os.path.join(outdir, "rank0_result4.bin"), "rb").read())
    checker.close("loss", got_loss, loss, eloss)
    return checker.finish()


def bad(kind, init_path, path):
    """INIT with one thing wrong."""
    tensors = [(n, e["dtype"], e["shape"], e["raw"]) for n, e in
               ((n, {"dtype": d, "shape": s, "raw": r})
                for n, (d, s, r) in read_safetensors(init_path).items())]
    if kind == "missing":
        tensors = [t for t in tensors if t[0] != "h.0.weight"]
    elif kind == "dtype":
        tensors = [(n, "BF16" if n == "h.0.weight" else d, s,
                    r[: len(r) // 2] if n == "h.0.weight" else r)
                   for n, d, s, r in tensors]
    elif kind == "shape":
        # The block's shape, not the whole tensor's.
        tensors = [(n, d, [3, COLS] if n == "h.0.weight" else s,
                    r[: 3 * COLS * 4] if n == "h.0.weight" else r)
                   for n, d, s, r in tensors]
    elif kind == "truncated":
        write_safetensors(path, tensors, truncate=7)
        return 0
    elif kind == "json":
        blob = b'{"h.0.weight": {"dtype": "F32", '
        with open(path, "wb") as f:
            f.write(struct.pack("<Q", len(blob)) + blob)
        return 0
    elif kind == "length":
        with open(path, "wb") as f:
            f.write(struct.pack("<Q", 1 << 40) + b"{}")
        return 0
    elif kind == "offsets":
        write_safetensors(path, tensors, header_extra={
            "extra": {"dtype": "F32", "shape": [2], "data_offsets": [0, 4]}})
        return 0
    else:
        raise ValueError(kind)
    write_safetensors(path, tensors)
    return 0


def main():
    command = sys.argv[1]
    if command == "init":
        init(sys.argv[2], sys.argv[3])
        return 0
    if command == "check":
        return check(sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]), sys.argv[6])
    if command == "bad":
        return bad(sys.argv[2], sys.argv[3], sys.argv[4])
    raise ValueError(command)


if __name__ == "__main__":
    sys.exit(main())
