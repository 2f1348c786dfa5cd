"""Checks Inputs/two_level.mlir's results against a float64 reference and
against the same program on a grid without a topology (one level).

Usage: check_two_level.py TWO_LEVEL_DIR ONE_LEVEL_DIR HOSTS RANKS_PER_HOST
                          BOUNDS_JSON

Rank r of the @H@ x @M@ grid is host r // M, rank r % M inside it; its index
in a group over axes [0, 1] is r, over [1, 0] (r % M) * H + r // M.

Every result is checked against prec-error-bounds' bound for its op
(BOUNDS_JSON, in program order), relative to sum_i |x_i| / divisor for
reductions and |x| for gathers, and against the same bound derived here from
the dtypes: each input rounded once to the wire (u_w), M - 1 additions in
acc_dtype inside a host (gamma(M - 1, u_acc)), the partial sum rounded once
to the inter-host dtype (u_i, 0 when that is acc_dtype), H - 1 additions in
acc_dtype across hosts (gamma(H - 1, u_acc)), and for all_reduces the
finished slice rounded once to the gathered dtype (u_g).

Against the one-level run (the direct algorithm: N - 1 additions of the same
wire values in acc_dtype): results whose partial sums cross hosts in
acc_dtype differ only by the order of the additions, each side within
gamma(N - 1, u_acc) * sum |wire values| of the exact sum of the wire values,
plus each side's final rounding (u_g of its value); gathers and maxima are
the same bits. Partial sums rounded to bf16 between hosts must differ from
f32 ones somewhere (the inter-host dtype is honoured).

fp8 partial sums between hosts (results 9 to 11) are checked against the
reference only: the rounding to the inter-host dtype is u(fp8), 2^-4 for
f8E4M3FN and 2^-3 for f8E5M2, with a dynamic (f32) scale also the quotient
by it in f32 and the product with it in acc_dtype; with power-of-two block
scales the saturation of a block's largest values, 1/8 (docs/Prec.md, "Error
bounds"). A partial sum below the fp8 normal range after scaling has an
absolute error of up to half a subnormal step times its scale (at most
2^-10 amax / 448 for f8E4M3FN, less for f8E5M2), which each of the H
partial sums of an element may add, amax being at most the largest
magnitude sum_i |x_i| of any element. They must differ from the f32 ones
somewhere.
"""
import json
import sys

from reference import Checker, UNIT_ROUNDOFF as U, read, rank_file, round_to


def gamma(k, u):
    return k * u / (1 - k * u)


def main():
    two_dir, one_dir = sys.argv[1], sys.argv[2]
    hosts, per_host = int(sys.argv[3]), int(sys.argv[4])
    n = hosts * per_host
    bounds = [entry["bound"] for entry in json.load(open(sys.argv[5]))]
    arg_types = ["f32", "f32", "bf16", "f32", "f32"]
    result_types = ["f32", "f32", "f32", "f32", "bf16", "f64", "f32", "f32",
                    "f32", "f32", "f32", "f32"]

    def load(directory):
        return [[read(rank_file(directory, r, "result", i), t)
                 for i, t in enumerate(result_types)] for r in range(n)]

    args = [[read(rank_file(two_dir, r, "arg", i), t)
             for i, t in enumerate(arg_types)] for r in range(n)]
    two, one = load(two_dir), load(one_dir)
    check = Checker("two-level collectives on %d x %d ranks" % (hosts, per_host))

    def host_major(r):  # group index over axes [0, 1]
        return r

    def rank_major(r):  # group index over axes [1, 0]
        return (r % per_host) * hosts + r // per_host

    def level_bound(u_w, u_acc, u_inter, u_final):
        return ((1 + u_w) * (1 + gamma(per_host - 1, u_acc)) * (1 + u_inter)
                * (1 + gamma(hosts - 1, u_acc)) * (1 + u_final) - 1)

    def check_sum(name, index, terms, want_divisor, derived, r, i,
                  underflow=0.0):
        got = two[r][index][i]
        want = sum(terms) / want_divisor
        magnitude = sum(abs(t) for t in terms) / want_divisor
        check.close("rank %d %s[%d] within prec-error-bounds" % (r, name, i),
                    got, want, bounds[index] * magnitude + underflow)
        check.close("rank %d %s[%d] within the derived bound" % (r, name, i),
                    got, want, derived * magnitude + underflow)

    def check_like_one_level(name, index, wire_terms, u_acc, u_final, r, i):
        a, b = two[r][index][i], one[r][index][i]
        sums = gamma(n - 1, u_acc) * sum(abs(t) for t in wire_terms)
        tolerance = 2 * sums + u_final * (abs(a) + abs(b))
        check.close("rank %d %s[%d] against one level" % (r, name, i),
                    a, b, tolerance)

    rows = 8
    differs = False
    differs_fp8 = False
    u_e4m3, u_e5m2 = 2.0**-4, 2.0**-3
    u_dynamic_e4m3 = (1 + U["f32"]) * (1 + u_e4m3) * (1 + U["f32"]) - 1
    saturation = 1.0 / 8
    largest_rs = max(sum(abs(args[q][0][j]) for q in range(n))
                     for j in range(len(args[0][0])))
    largest_ar = max(sum(abs(args[q][1][j]) for q in range(n))
                     for j in range(37))
    for r in range(n):
        # reduce_scatters of arg 0 ([8 N, 3] f32) into 8 rows.
        for name, index, group, u_inter in (("rs", 0, host_major, 0.0),
                                            ("rs_bf16", 1, host_major, U["bf16"]),
                                            ("rs_swapped", 2, rank_major, 0.0)):
            g = group(r)
            derived = level_bound(U["bf16"], U["f32"], u_inter, 0.0)
            for i in range(rows * 3):
                flat = g * rows * 3 + i
                terms = [args[q][0][flat] for q in range(n)]
                check_sum(name, index, terms, 1, derived, r, i)
                if u_inter == 0.0:
                    wire = [round_to(t, "bf16") for t in terms]
                    check_like_one_level(name, index, wire, U["f32"], 0.0, r, i)
        for i in range(rows * 3):
            differs |= two[r][0][i] != two[r][1][i]
        # reduce_scatters of arg 0 with fp8 partial sums between hosts.
        g = host_major(r)
        for name, index, u_inter in (("rs_fp8", 9, u_dynamic_e4m3),
                                     ("rs_fp8_block", 10, max(u_e4m3, saturation))):
            derived = level_bound(U["bf16"], U["f32"], u_inter, 0.0)
            underflow = hosts * 2.0**-10 * largest_rs / 448
            for i in range(rows * 3):
                terms = [args[q][0][g * rows * 3 + i] for q in range(n)]
                check_sum(name, index, terms, 1, derived, r, i, underflow)
                differs_fp8 |= two[r][index][i] != two[r][0][i]
        # all_reduce of arg 1 with f8E5M2 block-scaled partial sums.
        derived = level_bound(U["bf16"], U["f32"], max(u_e5m2, saturation),
                              U["bf16"])
        for i in range(37):
            check_sum("ar_fp8", 11, [args[q][1][i] for q in range(n)], 1,
                      derived, r, i, hosts * 2.0**-10 * largest_ar / 448)
        # all_reduce of arg 1 (37 f32): bf16 between hosts, gathered in bf16.
        derived = level_bound(U["bf16"], U["f32"], U["bf16"], U["bf16"])
        for i in range(37):
            check_sum("ar", 3, [args[q][1][i] for q in range(n)], 1, derived, r, i)
        # avg of arg 2 (5x3 bf16): exact wire, f32 sums, bf16 result.
        derived = level_bound(0.0, U["f32"], 0.0, U["bf16"])
        for i in range(15):
            terms = [args[q][2][i] for q in range(n)]
            check_sum("avg", 4, terms, n, derived, r, i)
            check_like_one_level("avg", 4, [t / n for t in terms], U["f32"],
                                 U["bf16"], r, i)
        # f32 wire, f64 sums of arg 4 (11 f32), gathered in f32.
        derived = level_bound(0.0, U["f64"], 0.0, U["f32"])
        for i in range(11):
            terms = [args[q][4][i] for q in range(n)]
            check_sum("wide", 5, terms, 1, derived, r, i)
            check_like_one_level("wide", 5, terms, U["f64"], U["f32"], r, i)
        # all_gathers of arg 3 (3x2 f32) along axis 1, in group order.
        for name, index, group in (("ag", 6, host_major), ("ag_swapped", 7, rank_major)):
            source = {group(q): q for q in range(n)}
            for row in range(3):
                for col in range(2 * n):
                    q = source[col // 2]
                    x = args[q][3][row * 2 + col % 2]
                    got = two[r][index][row * 2 * n + col]
                    check.close("rank %d %s[%d, %d] is rank %d's bf16 value"
                                % (r, name, row, col, q), got, round_to(x, "bf16"), 0.0)
                    check.close("rank %d %s[%d, %d] within prec-error-bounds"
                                % (r, name, row, col), got, x, bounds[index] * abs(x))
                    check.close("rank %d %s[%d, %d] against one level"
                                % (r, name, row, col), got,
                                one[r][index][row * 2 * n + col], 0.0)
        # max of arg 1: the largest bf16 wire value, as one level has it.
        for i in range(37):
            want = max(round_to(args[q][1][i], "bf16") for q in range(n))
            check.close("rank %d max[%d]" % (r, i), two[r][8][i], want, 0.0)
            check.close("rank %d max[%d] against one level" % (r, i),
                        two[r][8][i], one[r][8][i], 0.0)
    if not differs:
        print("partial sums rounded to bf16 between hosts gave the same bits "
              "as f32 ones everywhere: the inter-host dtype was not applied")
        return 1
    if not differs_fp8:
        print("partial sums in fp8 between hosts gave the same bits as f32 "
              "ones everywhere: the inter-host dtype was not applied")
        return 1
    return check.finish()


if __name__ == "__main__":
    sys.exit(main())
