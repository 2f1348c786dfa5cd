"""Checks fp8-linear.mlir on N ranks.

Usage: check_fp8_linear.py OUTPUT_DIR NUM_RANKS

The gathered fp8 weight and its scale must be what fp8_reference.py gives
for the shards of all ranks, bit for bit. y = (x @ q) * scale is compared
with the same product in float64 from the fp8 weight (f32 accumulation of
16 exact products: 16 u(f32) of the magnitude, and one rounding of the
rescale), and with the exact x @ w within the quantization error of the
weight: sum_k |x_k| * (2^-4 |w_k| + scale * 2^-10) plus the rounding.
"""
import sys

import fp8_reference as fp8
from reference import Checker, UNIT_ROUNDOFF as U, read, rank_file

K = 16
NAME = "f8E4M3FN"


def main():
    directory, n = sys.argv[1], int(sys.argv[2])
    weight = [v for r in range(n) for v in read(rank_file(directory, r, "arg", 0), "f32")]
    scale = fp8.tensor_scale(fp8.amax(weight), NAME)
    bits = [fp8.quantize(v, scale, NAME) for v in weight]
    check = Checker("fp8 linear on %d ranks" % n)
    for r in range(n):
        x = read(rank_file(directory, r, "arg", 1), "bf16")
        y = read(rank_file(directory, r, "result", 0), "f32")
        got_bits = list(open(rank_file(directory, r, "result", 1), "rb").read())
        got_scale = read(rank_file(directory, r, "result", 2), "f32")[0]
        check.close("rank %d scale" % r, got_scale, scale, 0.0)
        for i, (want, got) in enumerate(zip(bits, got_bits)):
            check.close("rank %d weight[%d]" % (r, i), got, want, 0.0)
        for i in range(len(x) // K):
            for j in range(K):
                terms = [x[i * K + k] * fp8.decode(bits[k * K + j], NAME) for k in range(K)]
                magnitude = sum(abs(t) for t in terms) * scale
                model = sum(terms) * scale
                check.close("rank %d y[%d][%d]" % (r, i, j), y[i * K + j], model,
                            (K + 1) * U["f32"] * magnitude)
                exact = sum(x[i * K + k] * weight[k * K + j] for k in range(K))
                quantization = sum(abs(x[i * K + k]) * (2.0**-4 * abs(weight[k * K + j])
                                                         + scale * 2.0**-10)
                                   for k in range(K))
                check.close("rank %d y[%d][%d] against x @ w" % (r, i, j), y[i * K + j],
                            exact, quantization + (K + 1) * U["f32"] * magnitude)
    return check.finish()


if __name__ == "__main__":
    sys.exit(main())
