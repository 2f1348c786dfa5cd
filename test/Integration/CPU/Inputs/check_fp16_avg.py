"""Checks examples/fp16_avg.mlir against a float64 reference.

Usage: check_fp16_avg.py OUTPUT_DIR NUM_RANKS [--expect-overflow]

Every rank's input is its f32 gradient times the loss scale (exact in f32 for
a power-of-two scale); the reference average is their float64 mean. The
lowering pre-divides each input by f (a power of two: exact), rounds it to
the f16 wire, sums in f16 on a ring (N - 1 roundings of partial sums of at
most sum|x| / f) and post-divides by N / f in f16 (one more rounding). In
units of the average, with A = sum|x| / N:

    wire:      u_f16 per input                   <= u_f16 * A
    ring:      (N - 1) u_f16 on the partial sums <= (N - 1) u_f16 * A
    post-divide                                  <= u_f16 * |average|

so the tolerance is (N + 1) u_f16 * A, plus N * 2^-24 for inputs that land
among f16's subnormals (absolute spacing 2^-24).

The checker also counts the averages whose undivided f16 sum would overflow
(|sum| > 65504) and requires every result to be finite; --expect-overflow
fails when there is no such average, i.e. when the inputs do not show what
the divisors are for.
"""
import math
import sys

from reference import Checker, UNIT_ROUNDOFF as U, read, rank_file, round_to

F16_MAX = 65504.0


def main():
    directory, n = sys.argv[1], int(sys.argv[2])
    expect_overflow = "--expect-overflow" in sys.argv[3:]
    grads = [read(rank_file(directory, r, "arg", 0), "f32") for r in range(n)]
    scales = [read(rank_file(directory, r, "arg", 1), "f32")[0] for r in range(n)]
    check = Checker("fp16_avg on %d ranks" % n)
    overflowing = 0
    not_finite = 0
    for r in range(n):
        weight = read(rank_file(directory, r, "arg", 2), "f32")
        lr = read(rank_file(directory, r, "arg", 3), "f32")[0]
        step = round_to(lr / scales[r], "f32")
        average = read(rank_file(directory, r, "result", 0), "f16")
        weight_next = read(rank_file(directory, r, "result", 1), "f32")
        for i in range(len(average)):
            inputs = [round_to(grads[q][i] * scales[q], "f32") for q in range(n)]
            want = sum(inputs) / n
            magnitude = sum(abs(x) for x in inputs) / n
            tolerance = (n + 1) * U["f16"] * magnitude + n * 2.0**-24
            if not math.isfinite(average[i]):
                not_finite += 1
                if not_finite <= 10:
                    print("%s: rank %d average[%d] is not finite: %r"
                          % (check.name, r, i, average[i]))
            if r == 0 and abs(sum(round_to(x, "f16") for x in inputs)) > F16_MAX:
                overflowing += 1
            check.close("rank %d average[%d]" % (r, i), average[i], want, tolerance)
            check.close("rank %d weight_next[%d]" % (r, i), weight_next[i],
                        weight[i] - step * want,
                        abs(step) * tolerance
                        + 2 * U["f32"] * (abs(weight[i]) + abs(step * want)))
    print("%s: %d of %d averages would overflow f16 summed without divisors, "
          "%d results not finite" % (check.name, overflowing, len(grads[0]), not_finite))
    status = check.finish()
    if expect_overflow and not overflowing:
        print("%s: no average would overflow without divisors; raise the loss scale"
              % check.name)
        return 1
    return status


if __name__ == "__main__":
    sys.exit(main())
