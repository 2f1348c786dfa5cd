"""Checks all-reduce-direct.mlir's results against a float64 reference.

Usage: check_all_reduce.py OUTPUT_DIR NUM_RANKS BOUNDS_JSON

The all_reduces round each input once to the wire dtype (u_w), sum the N
wire values in acc_dtype in rank order (gamma(N - 1, u_acc) relative to the
sum of magnitudes), divide (one rounding in acc_dtype unless N is a power of
two) and round the result once to the gathered dtype (u_w, or the result's
u when it is narrower). With M = sum |x_i| / divisor and S the exact
result:

  |got - S| <= (u_w + gamma(N - 1, u_acc) + u_div) M (1 + u_w)
               + u_final (|S| + (u_w + gamma + u_div) M (1 + u_w))

max and min select a wire value, which the final rounding keeps: they are
exact.

Each error is also checked against the bound prec-error-bounds states for
its all_reduce (BOUNDS_JSON, in the order of the program), so that the
bound covers what the lowering does.
"""
import json
import sys

from reference import Checker, UNIT_ROUNDOFF as U, read, rank_file, round_to


def gamma(k, u):
    return k * u / (1 - k * u)


def is_power_of_two(n):
    return n & (n - 1) == 0


def main():
    directory, n = sys.argv[1], int(sys.argv[2])
    bounds = [entry["bound"] for entry in json.load(open(sys.argv[3]))]
    arg_types = ["f32", "f32", "bf16", "f64"]
    result_types = ["f32", "f32", "bf16", "f32", "f32", "f64", "bf16"]
    args = [[read(rank_file(directory, r, "arg", i), t)
             for i, t in enumerate(arg_types)] for r in range(n)]
    results = [[read(rank_file(directory, r, "result", i), t)
                for i, t in enumerate(result_types)] for r in range(n)]
    check = Checker("direct all_reduce on %d ranks" % n)
    # Results whose reference lies outside its tolerance somewhere, so that
    # zeros (or any constant) would fail.
    discriminating = set()

    def check_sum(name, index, arg, wire, acc, final, divisor, r):
        got = results[r][index]
        for i in range(len(got)):
            terms = [args[q][arg][i] for q in range(n)]
            want = sum(terms) / divisor
            magnitude = sum(abs(t) for t in terms) / divisor
            u_div = 0.0 if is_power_of_two(divisor) else U[acc]
            before = (U[wire] + gamma(n - 1, U[acc]) + u_div) * magnitude * (1 + U[wire])
            tolerance = before + U[final] * (abs(want) + before)
            check.close("rank %d %s[%d]" % (r, name, i), got[i], want, tolerance)
            check.close("rank %d %s[%d] within prec-error-bounds" % (r, name, i),
                        got[i], want, bounds[index] * magnitude)
            if abs(want) > tolerance:
                discriminating.add(name)

    def check_select(name, index, pick, r):
        got = results[r][index]
        for i in range(len(got)):
            want = pick(round_to(args[q][0][i], "bf16") for q in range(n))
            check.close("rank %d %s[%d]" % (r, name, i), got[i], want, 0.0)
            # The bound is relative to the inputs before the wire rounding.
            raw = [args[q][0][i] for q in range(n)]
            check.close("rank %d %s[%d] within prec-error-bounds" % (r, name, i),
                        got[i], pick(raw), bounds[index] * sum(abs(t) for t in raw))
            if want != 0.0:
                discriminating.add(name)

    for r in range(n):
        check_sum("sum", 0, 0, "bf16", "f32", "bf16", 1, r)
        check_sum("one", 1, 1, "bf16", "f32", "bf16", 1, r)
        check_sum("avg", 2, 2, "bf16", "f32", "bf16", n, r)
        check_select("max", 3, max, r)
        check_select("min", 4, min, r)
        check_sum("wide", 5, 3, "f32", "f64", "f32", 1, r)
        check_sum("narrow", 6, 0, "bf16", "f32", "bf16", 1, r)
        # Every rank holds the same bits.
        for index in range(len(result_types)):
            if results[r][index] != results[0][index]:
                check.close("rank %d result %d equals rank 0's" % (r, index), 1.0, 0.0, 0.0)
    for name in ["sum", "one", "avg", "max", "min", "wide", "narrow"]:
        if name not in discriminating:
            check.close("%s: some reference value beyond its tolerance" % name, 1.0, 0.0, 0.0)
    return check.finish()


if __name__ == "__main__":
    sys.exit(main())
