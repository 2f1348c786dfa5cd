"""Checks shard-collectives.mlir's results against a float64 reference.

The reference follows upstream shard's definitions, not prec's lowering: on
grid 2x2 rank r has coordinates (r // 2, r % 2); a collective's group holds
the ranks that differ only on its grid axes, and a rank's index in the group
linearizes its coordinates on those axes in the order listed, last fastest.

Usage: check_shard_collectives.py OUTPUT_DIR
"""
import sys

from reference import Checker, UNIT_ROUNDOFF as U, read, rank_file, round_to

SHAPE = (2, 2)
ROWS, COLS = 4, 4


def coords(rank):
    return (rank // SHAPE[1], rank % SHAPE[1])


def group(rank, axes):
    """The world ranks of `rank`'s group, in group order."""
    mine = coords(rank)
    members = []
    for other in range(SHAPE[0] * SHAPE[1]):
        c = coords(other)
        if all(c[a] == mine[a] for a in range(2) if a not in axes):
            key = 0
            for a in axes:
                key = key * SHAPE[a] + c[a]
            members.append((key, other))
    return [other for _, other in sorted(members)]


def main():
    directory = sys.argv[1]
    n = SHAPE[0] * SHAPE[1]
    x = [read(rank_file(directory, r, "arg", 0), "f32") for r in range(n)]
    kinds = ["sum0", "avg1", "max01", "gather10", "scatter01", "exchange1", "min10"]
    results = [{k: read(rank_file(directory, r, "result", i), "f32")
                for i, k in enumerate(kinds)} for r in range(n)]
    check = Checker("shard collectives on a 2x2 grid")
    wire = lambda v: round_to(v, "bf16")

    def reduced(r, axes, i, combine):
        return combine([wire(x[q][i]) for q in group(r, axes)])

    for r in range(n):
        got = results[r]
        for i in range(ROWS * COLS):
            # Sums: each term rounded once to bf16 (relative u_bf16 each),
            # accumulated in f32, and the reduced slice gathered on the bf16
            # wire (one more u_bf16 of at most the magnitude, as
            # prec-error-bounds counts for a direct all-reduce).
            for name, axes, divide in (("sum0", [0], 1), ("avg1", [1], 2)):
                terms = [x[q][i] for q in group(r, axes)]
                magnitude = sum(abs(t) for t in terms) / divide
                tolerance = (2 * U["bf16"] + U["bf16"] ** 2
                             + (len(terms) + 1) * U["f32"]) * magnitude
                check.close("rank %d %s[%d]" % (r, name, i), got[name][i],
                            sum(terms) / divide, tolerance)
            # max and min of bf16-rounded values are exact.
            check.close("rank %d max01[%d]" % (r, i), got["max01"][i],
                        reduced(r, [0, 1], i, max), 0.0)
            check.close("rank %d min10[%d]" % (r, i), got["min10"][i],
                        reduced(r, [1, 0], i, min), 0.0)
        # all_gather over [1, 0] along dim 1: chunk k from group member k,
        # values rounded once to the bf16 wire.
        members = group(r, [1, 0])
        for row in range(ROWS):
            for k, q in enumerate(members):
                for col in range(COLS):
                    check.close("rank %d gather10[%d][%d]" % (r, row, k * COLS + col),
                                got["gather10"][row * 4 * COLS + k * COLS + col],
                                wire(x[q][row * COLS + col]), 0.0)
        # reduce_scatter over [0, 1] along dim 0: slice = index in the group.
        members = group(r, [0, 1])
        index = members.index(r)
        for col in range(COLS):
            terms = [x[q][index * COLS + col] for q in members]
            tolerance = (U["bf16"] + (n + 1) * U["f32"]) * sum(abs(t) for t in terms)
            check.close("rank %d scatter01[%d]" % (r, col), got["scatter01"][col],
                        sum(terms), tolerance)
        # all_to_all over [1]: split dim 0 in 2 chunks of 2 rows, chunk j to
        # member j; received chunks concatenated along dim 1 in member order.
        # No policy entry applies: f32 travels unchanged.
        members = group(r, [1])
        index = members.index(r)
        for row in range(2):
            for k, q in enumerate(members):
                for col in range(COLS):
                    check.close("rank %d exchange1[%d][%d]" % (r, row, k * COLS + col),
                                got["exchange1"][row * 2 * COLS + k * COLS + col],
                                x[q][(index * 2 + row) * COLS + col], 0.0)
    return check.finish()


if __name__ == "__main__":
    sys.exit(main())
