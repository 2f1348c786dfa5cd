"""Checks that no measured error of precision_report.mlir's collectives
exceeds either bound prec-run --precision-report=json states for them.

Usage: check_precision_report.py NUM_RANKS RUN_DIR...

Each RUN_DIR holds one seed's run: report.json (the report) and the raw
arguments and results of every rank (--output-dir). For every element of
every result, against a float64 reference:

- own bound: |got - f(x)| <= bound * s(x), with x the collective's input as
  the program computed it (the f32 square rounded to bf16, the f32
  argument, or the reduce_scatter's result) and s = sum_q |x_q| / divisor
  for reductions, |x| for moves;
- end to end: |got - f(x*)| <= end_to_end_bound * s(x*), with x* the exact
  value (the square in float64, exact for an f32 argument) and s(x*) the
  magnitudes of the exact terms (for the all_gather of the reduce_scatter's
  sum: sum_q |y_q|).

Both bounds must also say something: over all seeds, the largest observed
error of every nonzero bound is at least 1/1000 of it. The all_gather's own
bound is 0: its results must equal its bf16 inputs exactly.
"""
import json
import os
import sys

from reference import read, rank_file, round_to

NONVACUOUS = 1e-3


def main():
    n = int(sys.argv[1])
    runs = sys.argv[2:]
    # result index -> (own bound, end-to-end bound, worst own ratio, worst e2e ratio)
    worst = {}
    failures = 0
    for run in runs:
        report = json.load(open(os.path.join(run, "report.json")))
        bounds = {}
        for entry in report:
            for name in entry["moves"]:
                if name.startswith("result"):
                    bounds[int(name[len("result"):])] = entry
        if sorted(bounds) != [0, 1, 2, 3, 4]:
            print("%s: the report names results %s, want 0 to 4" % (run, sorted(bounds)))
            return 1
        x = [read(rank_file(run, r, "arg", 0), "f32") for r in range(n)]
        y = [read(rank_file(run, r, "arg", 1), "f32") for r in range(n)]
        results = [[read(rank_file(run, r, "result", i), "f32") for i in range(4)]
                   + [read(rank_file(run, r, "result", 4), "bf16")] for r in range(n)]

        def square(v):
            # The program's f32 product rounded to bf16, and the exact one.
            return round_to(round_to(v * v, "f32"), "bf16"), v * v

        def check(index, r, i, got, computed, exact, scale, exact_scale):
            nonlocal failures
            entry = bounds[index]
            own, e2e = entry["bound"], entry["end_to_end_bound"]
            record = worst.setdefault(index, [own, e2e, 0.0, 0.0])
            for slot, bound, want, s in ((2, own, computed, scale),
                                         (3, e2e, exact, exact_scale)):
                error = abs(got - want)
                if error > bound * s:
                    failures += 1
                    if failures <= 10:
                        print("%s: result %d rank %d [%d]: |%r - %r| = %.3g > %s bound %.3g * %.3g"
                              % (run, index, r, i, got, want, error,
                                 "own" if slot == 2 else "end-to-end", bound, s))
                if s > 0 and bound > 0:
                    record[slot] = max(record[slot], error / (bound * s))

        for r in range(n):
            # reduce_scatter of the bf16 squares, averaged: rank r holds
            # slice r of the 64 elements.
            for i in range(16):
                k = r * 16 + i
                pairs = [square(x[q][k]) for q in range(n)]
                check(0, r, i, results[r][0][i],
                      sum(p[0] for p in pairs) / n, sum(p[1] for p in pairs) / n,
                      sum(abs(p[0]) for p in pairs) / n, sum(abs(p[1]) for p in pairs) / n)
            # reduce_scatter and all_reduce of y: the input is exact.
            for i in range(12):
                k = r * 12 + i
                terms = [y[q][k] for q in range(n)]
                s = sum(abs(t) for t in terms)
                check(1, r, i, results[r][1][i], sum(terms), sum(terms), s, s)
            for i in range(48):
                terms = [y[q][i] for q in range(n)]
                s = sum(abs(t) for t in terms)
                check(2, r, i, results[r][2][i], sum(terms), sum(terms), s, s)
            # all_gather of the bf16 squares: rank q's block.
            for i in range(4 * 48):
                computed, exact = square(y[i // 48][i % 48])
                check(3, r, i, results[r][3][i], computed, exact, abs(computed), abs(exact))
            # all_gather of the sums (result 1) in bf16: rank q's 12 sums,
            # the sum of y over the ranks at q * 12 + i.
            for i in range(48):
                q, k = i // 12, i % 12
                mine = results[q][1][k]
                terms = [y[p][q * 12 + k] for p in range(n)]
                check(4, r, i, results[r][4][i], mine, sum(terms), abs(mine),
                      sum(abs(t) for t in terms))
    for index, (own, e2e, own_ratio, e2e_ratio) in sorted(worst.items()):
        print("result %d: own bound %.3e, largest error/bound %.3f; end-to-end bound %.3e, "
              "largest error/bound %.3f" % (index, own, own_ratio, e2e, e2e_ratio))
        if e2e_ratio < NONVACUOUS:
            print("result %d: the end-to-end bound is vacuous (largest error below 1/1000 of it)"
                  % index)
            failures += 1
        if own > 0 and own_ratio < NONVACUOUS:
            print("result %d: the own bound is vacuous (largest error below 1/1000 of it)" % index)
            failures += 1
    print("%d seeds, %d failures" % (len(runs), failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
