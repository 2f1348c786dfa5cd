"""Checks step_data.mlir's @integers as prec-run --output-dir wrote it.

Usage: check_integers.py DIR SCALARS

Generated integer tensors must hold values of their range (prec.range, else
[0, 2) for i1 and [0, 64) for wider integers) and not a constant: at least
half of the range's values appear among 64 draws (i1: both). The i8 result
is the argument plus 1; the scalars (i8, i1, i16) must be SCALARS exactly.
"""
import os
import struct
import sys

FORMATS = {"i1": "B", "i8": "b", "i16": "h", "i64": "q"}


def read(directory, kind, index, dtype):
    data = open(os.path.join(directory, "rank0_%s%d.bin" % (kind, index)), "rb").read()
    code = FORMATS[dtype]
    return list(struct.unpack("<%d%s" % (len(data) // struct.calcsize(code), code), data))


def main():
    directory, scalars = sys.argv[1], [int(v) for v in sys.argv[2].split(",")]
    failures = 0
    for index, dtype, lo, hi in ((0, "i1", 0, 2), (1, "i8", 0, 64), (2, "i16", -5, 5),
                                 (3, "i64", 0, 64)):
        values = read(directory, "arg", index, dtype)
        outside = [v for v in values if not lo <= v < hi]
        distinct = len(set(values))
        ok = not outside and distinct >= max(2, (hi - lo) // 2)
        print("argument %d (%s): %d values in [%d, %d), %d distinct: %s"
              % (index, dtype, len(values) - len(outside), lo, hi, distinct,
                 "ok" if ok else "FAILED"))
        failures += not ok
    plus_one = read(directory, "result", 1, "i8")
    ok = plus_one == [v + 1 for v in read(directory, "arg", 1, "i8")]
    print("i8 + 1: %s" % ("ok" if ok else "FAILED"))
    failures += not ok
    got = [read(directory, "result", 4, "i8")[0], read(directory, "result", 5, "i1")[0],
           read(directory, "result", 6, "i16")[0]]
    print("scalars: %s (want %s)" % (got, scalars))
    failures += got != scalars
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
