"""Checks scaled-collectives.mlir's results on N ranks.

Usage: check_scaled_collectives.py OUTPUT_DIR NUM_RANKS

Each result is recomputed in Python from the ranks' inputs with the
semantics of docs/Prec.md (fp8_reference.py: amax, scale, quantization by
table lookup) and must match bit for bit. Each is also compared with the
exact float64 value it approximates, within the error the formats allow:
half a spacing of the fp8 format relative to the value (or half a subnormal
step times the scale), the f32 roundings of quotient, product and sum, and,
for MX blocks, the saturation the format defines above its largest value.
"""
import math
import sys

import fp8_reference as fp8
from reference import Checker, UNIT_ROUNDOFF as U, read, rank_file, round_to

COLS = 64


def rows(values):
    return [values[i:i + COLS] for i in range(0, len(values), COLS)]


def quantize_error(x, scale, name):
    """Bound on |dequantize(quantize(x)) - x| without saturation."""
    return (fp8.spacing_bound(name) * abs(x) + fp8.subnormal_step(name) * scale / 2
            + 2 * U["f32"] * abs(x))


def main():
    directory, n = sys.argv[1], int(sys.argv[2])
    w = [read(rank_file(directory, r, "arg", 0), "f32") for r in range(n)]
    v = [read(rank_file(directory, r, "arg", 1), "f32") for r in range(n)]
    g = [read(rank_file(directory, r, "arg", 2), "f32") for r in range(n)]
    check = Checker("scaled collectives on %d ranks" % n)
    exact = Checker("scaled collectives on %d ranks, against float64" % n)

    # Dynamic gathers: one scale from the amax over all ranks.
    for index, inputs, name, dtype in [(0, w, "f8E4M3FN", "f32"),
                                       (1, v, "f8E5M2", "bf16")]:
        everything = [x for part in inputs for x in part]
        scale = fp8.tensor_scale(fp8.amax(everything), name)
        for r in range(n):
            got = read(rank_file(directory, r, "result", index), dtype)
            for i, x in enumerate(everything):
                want = round_to(fp8.dequantize(fp8.quantize(x, scale, name), scale, name),
                                dtype)
                check.close("result %d[%d] on rank %d" % (index, i, r), got[i], want, 0.0)
                bound = quantize_error(x, scale, name) + U[dtype] * abs(x) * 2
                exact.close("result %d[%d]" % (index, i), got[i], x, bound)

    # Block-scaled gather: every rank's blocks of 32 with their own scales.
    name = "f8E4M3FN"
    gathered = []
    for r in range(n):
        for row in rows(w[r]):
            for start in range(0, COLS, 32):
                block = row[start:start + 32]
                scale = fp8.block_scale(fp8.amax(block), name)
                gathered += [(x, scale) for x in block]
    for r in range(n):
        got = read(rank_file(directory, r, "result", 2), "f32")
        for i, (x, scale) in enumerate(gathered):
            want = fp8.dequantize_f32(fp8.quantize(x, scale, name), scale, name)
            check.close("result 2[%d] on rank %d" % (i, r), got[i], want, 0.0)
            # MX: a block's elements above the largest finite value saturate.
            saturation = max(0.0, abs(x) - fp8.largest(name) * scale)
            exact.close("result 2[%d]" % i, got[i], x,
                        quantize_error(x, scale, name) + saturation)

    # Reductions: each rank's terms with its own scales, summed in f32 in
    # rank order, then divided (avg) once.
    def rank_scales(r, name, kind, block):
        if kind == "dynamic":
            scale = fp8.tensor_scale(fp8.amax(g[r]), name)
            return [scale] * len(g[r])
        scales = []
        for row in rows(g[r]):
            for start in range(0, COLS, block):
                scale = fp8.block_scale(fp8.amax(row[start:start + block]), name)
                scales += [scale] * block
        return scales

    chunk = 2 * COLS
    for index, name, kind, divisor, scatter in [(3, "f8E5M2", "dynamic", n, True),
                                                (4, "f8E4M3FN", "block", 1, True),
                                                (5, "f8E4M3FN", "dynamic", 1, False)]:
        scales = [rank_scales(r, name, kind, 32) for r in range(n)]
        for r in range(n):
            got = read(rank_file(directory, r, "result", index), "f32")
            offset = r * chunk if scatter else 0
            for i in range(len(got)):
                acc = 0.0
                bound = 0.0
                exact_sum = 0.0
                for q in range(n):
                    x, scale = g[q][offset + i], scales[q][offset + i]
                    term = fp8.dequantize_f32(fp8.quantize(x, scale, name), scale, name)
                    acc = fp8.f32(acc + term)
                    exact_sum += x
                    saturation = max(0.0, abs(x) - fp8.largest(name) * scale)
                    bound += quantize_error(x, scale, name) + saturation
                    bound += (n + 1) * U["f32"] * abs(x)
                want = fp8.f32(acc / divisor)
                check.close("result %d[%d] on rank %d" % (index, i, r), got[i], want, 0.0)
                exact.close("result %d[%d] on rank %d" % (index, i, r), got[i],
                            exact_sum / divisor, bound / divisor)

    # Block-scaled all_to_all (blocks of 16): chunk j of rank q lands as
    # chunk q on rank j, dequantized with q's scales.
    name = "f8E5M2"
    scales = [rank_scales(q, name, "block", 16) for q in range(n)]
    for r in range(n):
        got = read(rank_file(directory, r, "result", 6), "f32")
        for q in range(n):
            for i in range(chunk):
                x, scale = g[q][r * chunk + i], scales[q][r * chunk + i]
                want = fp8.dequantize_f32(fp8.quantize(x, scale, name), scale, name)
                check.close("result 6[%d] on rank %d" % (q * chunk + i, r),
                            got[q * chunk + i], want, 0.0)
                saturation = max(0.0, abs(x) - fp8.largest(name) * scale)
                exact.close("result 6[%d]" % (q * chunk + i), got[q * chunk + i], x,
                            quantize_error(x, scale, name) + saturation)

    # Delayed gradient wire: q = quantize(g, s) with s from the history's
    # max (the same on every rank), fp8 terms summed in f32 in rank order,
    # times s (one f32 rounding).
    name = "f8E5M2"
    history = read(rank_file(directory, 0, "arg", 3), "f32")
    scale = fp8.tensor_scale(max(history), name)
    for r in range(n):
        got = read(rank_file(directory, r, "result", 7), "f32")
        for i in range(chunk):
            acc, bound, exact_sum = 0.0, 0.0, 0.0
            for q in range(n):
                x = g[q][r * chunk + i]
                acc = fp8.f32(acc + fp8.decode(fp8.quantize(x, scale, name), name))
                exact_sum += x
                saturation = max(0.0, abs(x) - fp8.largest(name) * scale)
                bound += quantize_error(x, scale, name) + saturation
                bound += (n + 2) * U["f32"] * abs(x)
            want = fp8.f32(acc * scale)
            check.close("result 7[%d] on rank %d" % (i, r), got[i], want, 0.0)
            exact.close("result 7[%d] on rank %d" % (i, r), got[i], exact_sum, bound)

    return check.finish() | exact.finish()


if __name__ == "__main__":
    sys.exit(main())
