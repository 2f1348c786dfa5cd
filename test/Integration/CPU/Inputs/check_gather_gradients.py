"""Checks the gradients of gathers (gather_gradients.mlir) against float64.

Usage: check_gather_gradients.py PREC_RUN MODULE WORK_DIR [PREC_RUN_OPTION...]

Runs @gather_gradients on one rank with index tensors that repeat rows and
hold indices outside the tables (negative ones, the table's extent, and
beyond), and random f32 result gradients; then recomputes each table's
gradient in float64: element e sums the result gradients of the points
whose indices name e, and a point whose index lies outside the table adds
nothing anywhere.

Tolerance: the gradient is an f32 sum of the n contributions to an element
(in some order, the two reads of @embed's table summed apart and then
added), each contribution an f32 input, so it is off by at most
(n - 1) 2^-24 sum |contribution| (reference.py's bound for a sum
accumulated in f32). An element nothing reads must be exactly 0: an index
outside the table that were added anyway would land there (the out-of-range
column 3 of the 5x3 table at row 1 is element [2, 0] of its buffer, column
-1 at row 2 is [1, 2]), or outside the buffer.
"""
import os
import struct
import subprocess
import sys

from reference import UNIT_ROUNDOFF, Checker, read, rank_file

IDS = [1, 3, 1, -1, 8, 1]
IDS2 = [3, 100, 0, 3, -5, 1]
TARGETS = [2, -100, 7, 8, 2, 0]
ROWS = [1, 2, 1, 5, 4, 1]
COLS = [3, -1, 0, 0, 2, 0]


def write_i64(path, values):
    with open(path, "wb") as out:
        out.write(struct.pack("<%dq" % len(values), *values))


def main():
    prec_run, module, work = sys.argv[1:4]
    files = {}
    for name, values in (("ids", IDS), ("ids2", IDS2), ("targets", TARGETS),
                         ("rows", ROWS), ("cols", COLS)):
        files[name] = os.path.join(work, name + ".bin")
        write_i64(files[name], values)
    out = os.path.join(work, "out")
    command = [prec_run, module, "--ranks", "1", "--print", "none", "--output-dir", out]
    command += ["--arg=%s=%s" % item for item in files.items()] + sys.argv[4:]
    subprocess.run(command, check=True)

    def arg(index):
        return read(rank_file(out, 0, "arg", index), "f32")

    def result(index):
        return read(rank_file(out, 0, "result", index), "f32")

    # Contributions per element (flat index into the table), point order.
    def scatter(shape, points):
        sums = [[] for _ in range(shape[0] * shape[1])]
        for index, value in points:
            if all(0 <= i < n for i, n in zip(index, shape)):
                sums[index[0] * shape[1] + index[1]].append(value)
        return sums

    dy_embed, dy_pick, dy_pair = arg(3), arg(6), arg(10)
    cases = [
        ("embed", (8, 4), result(0),
         [((ids[t], d), dy_embed[t * 4 + d])
          for ids in (IDS, IDS2) for t in range(6) for d in range(4)]),
        ("pick", (6, 8), result(1),
         [((t, TARGETS[t]), dy_pick[t]) for t in range(6)]),
        ("pair", (5, 3), result(2),
         [((ROWS[t], COLS[t]), dy_pair[t * 2 + k]) for t in range(6) for k in range(2)]),
    ]
    status = 0
    for name, shape, got, points in cases:
        # Most elements of the pick's gradient are ones no target names, whose
        # exact 0 is part of what is checked: one in twenty must be nonzero.
        checker = Checker("%s gradient" % name, min_nontrivial=0.05)
        for flat, terms in enumerate(scatter(shape, points)):
            want = sum(terms)
            tolerance = max(len(terms) - 1, 0) * UNIT_ROUNDOFF["f32"] * sum(abs(v) for v in terms)
            checker.close("element [%d, %d] (%d terms)" % (flat // shape[1], flat % shape[1], len(terms)),
                          got[flat], want, tolerance)
        status |= checker.finish()
    return status


if __name__ == "__main__":
    sys.exit(main())
