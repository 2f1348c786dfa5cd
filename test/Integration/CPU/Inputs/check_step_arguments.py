"""Float64 reference of step_arguments.mlir.

Usage: check_step_arguments.py CASE DIR RANKS

Compares result 0 of every rank in DIR (prec-run --output-dir) with the
case's value computed in float64 from the arguments prec-run wrote, which are
the arguments as initialized. Every case runs in f32: a sum of n terms
accumulated in f32, in any order, is off by at most (n - 1) u sum(|terms|)
(first order, u = 2^-24), and each product rounded to f32 adds u |product|.
After several steps each result must still be that of the initial
arguments: a step that wrote into an argument it does not feed back would
add the initial value again (C + 2 A B, g^4, ...), far outside these
tolerances.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from reference import Checker, UNIT_ROUNDOFF, read, rank_file  # noqa: E402

U = UNIT_ROUNDOFF["f32"]


def matmul_acc(args):
    a, b, c = args
    out = []
    for i in range(4):
        for j in range(4):
            terms = [c[4 * i + j]] + [a[8 * i + k] * b[4 * k + j] for k in range(8)]
            # 9 terms summed, 8 products rounded.
            out.append((sum(terms), (len(terms) - 1) * U * sum(map(abs, terms))
                        + U * sum(abs(t) for t in terms[1:])))
    return out


def column_sums(args):
    x, acc = args
    out = []
    for j in range(8):
        terms = [acc[j]] + [x[8 * i + j] for i in range(4)]
        out.append((sum(terms), (len(terms) - 1) * U * sum(map(abs, terms))))
    return out


def square(args):
    _, g = args
    return [(v * v, U * v * v) for v in g]


CASES = {
    "matmul_acc": (3, matmul_acc),
    "column_sums": (2, column_sums),
    # The loop adds the rows in order: the column sums again.
    "row_loop": (2, column_sums),
    "square": (2, square),
}


def main():
    case, directory, ranks = sys.argv[1], sys.argv[2], int(sys.argv[3])
    num_args, reference = CASES[case]
    checker = Checker(case)
    for rank in range(ranks):
        args = [read(rank_file(directory, rank, "arg", i), "f32")
                for i in range(num_args)]
        got = read(rank_file(directory, rank, "result", 0), "f32")
        want = reference(args)
        if len(got) != len(want):
            print("%s: rank %d: %d values, expected %d"
                  % (case, rank, len(got), len(want)))
            return 1
        for i, (value, (expected, tolerance)) in enumerate(zip(got, want)):
            checker.close("rank %d [%d]" % (rank, i), value, expected, tolerance)
    return checker.finish()


if __name__ == "__main__":
    sys.exit(main())
