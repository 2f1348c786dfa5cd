"""Inputs and checks of divisors-round-once.mlir (one rank).

  generate DIR   writes f16.bin (every positive normal f16 value, 30720) and
                 bf16.bin (every positive normal bf16 value, 32512)
  check DIR      compares each result with the float64 quotient x / 0.1
                 rounded once to nearest even in the result's type
  check-backward DIR RANKS
                 compares backward-divisors-round-once.mlir's gathered
                 gradients on every rank with the exact quotients x / 0.1
                 and x / RANKS rounded once

Each result is the exact quotient x / d rounded once to nearest even, d the
double nearest 0.1 (the divisor as written, 0.1 + 5.6e-18): with one rank
the sum adds nothing, and the type the quotient is rounded to holds the
result exactly. Quotients beyond the largest finite value round to
infinity. The tolerance is 0: the reference rounds exactly as the contract
says. A float64 quotient rounded again is not that: x / d lies just below
10 x, which the f64 division returns for most f16 x, and where 10 x is a
midpoint of f16 (2755 of the 30720 inputs) it then ties to even, upwards
about half the time, one ulp above the quotient rounded once.
"""
from fractions import Fraction
import math
import os
import struct
import sys

from reference import Checker, read, rank_file

F16_NORMALS = range(0x0400, 0x7C00)
BF16_NORMALS = range(0x0080, 0x7F80)
DIVISOR = Fraction(0.1)


def generate(directory):
    with open(os.path.join(directory, "f16.bin"), "wb") as out:
        out.write(struct.pack("<%dH" % len(F16_NORMALS), *F16_NORMALS))
    with open(os.path.join(directory, "bf16.bin"), "wb") as out:
        out.write(struct.pack("<%dH" % len(BF16_NORMALS), *BF16_NORMALS))


def round_once(quotient, bits, max_exponent):
    """A positive rational `quotient` rounded to nearest even with `bits`
    significand bits, overflowing to infinity from 2^(max_exponent + 1)
    less half an ulp on; below 2^(1 - max_exponent), the smallest normal
    value, the spacing of the subnormals."""
    exponent = math.floor(math.log2(quotient))
    while Fraction(2)**exponent > quotient:
        exponent -= 1
    while Fraction(2)**(exponent + 1) <= quotient:
        exponent += 1
    ulp = Fraction(2)**(max(exponent, 1 - max_exponent) - bits + 1)
    units, rest = divmod(quotient, ulp)
    if rest > ulp / 2 or (rest == ulp / 2 and units % 2 == 1):
        units += 1
    rounded = units * ulp
    return math.inf if rounded >= 2**(max_exponent + 1) else float(rounded)


def check(directory):
    f16_in = read(os.path.join(directory, "f16.bin"), "f16")
    bf16_in = read(os.path.join(directory, "bf16.bin"), "bf16")
    checker = Checker("x / 0.1 rounded once")
    cases = [(0, "f16", f16_in, 11, 15), (1, "f16", f16_in, 11, 15),
             (2, "bf16", bf16_in, 8, 127), (3, "bf16", bf16_in, 8, 127),
             (4, "f16", f16_in, 11, 15), (5, "f16", f16_in, 11, 15)]
    for index, dtype, inputs, bits, max_exponent in cases:
        got = read(rank_file(directory, 0, "result", index), dtype)
        wrong = 0
        for i, x in enumerate(inputs):
            want = round_once(Fraction(x) / DIVISOR, bits, max_exponent)
            if got[i] != want:
                wrong += 1
            if math.isinf(want):
                checker.close("result %d[%d] (x = %r)" % (index, i, x),
                              0.0 if got[i] == want else 1.0, 0.0, 0)
            else:
                checker.close("result %d[%d] (x = %r)" % (index, i, x), got[i], want, 0)
        print("result %d (%s): %d of %d quotients not rounded once"
              % (index, dtype, wrong, len(inputs)))
    return checker.finish()


def check_backward(directory, ranks):
    """Each rank's gradients gather every rank's g / divisor, with g every
    positive normal value of the dtype on every rank."""
    f16_in = read(os.path.join(directory, "f16.bin"), "f16")
    bf16_in = read(os.path.join(directory, "bf16.bin"), "bf16")
    checker = Checker("gradients of divided collectives rounded once")
    cases = [(0, "f16", f16_in, 11, 15, DIVISOR),
             (1, "f16", f16_in, 11, 15, Fraction(ranks)),
             (2, "bf16", bf16_in, 8, 127, DIVISOR),
             (3, "bf16", bf16_in, 8, 127, Fraction(ranks))]
    for index, dtype, inputs, bits, max_exponent, divisor in cases:
        want = [round_once(Fraction(x) / divisor, bits, max_exponent)
                for x in inputs] * ranks
        for rank in range(ranks):
            got = read(rank_file(directory, rank, "result", index), dtype)
            wrong = 0
            for i, w in enumerate(want):
                if got[i] != w:
                    wrong += 1
                if math.isinf(w):
                    checker.close("rank %d result %d[%d]" % (rank, index, i),
                                  0.0 if got[i] == w else 1.0, 0.0, 0)
                else:
                    checker.close("rank %d result %d[%d]" % (rank, index, i),
                                  got[i], w, 0)
            print("rank %d result %d (%s, / %s): %d of %d quotients not "
                  "rounded once" % (rank, index, dtype, float(divisor), wrong,
                                    len(want)))
    return checker.finish()


if __name__ == "__main__":
    if sys.argv[1] == "generate":
        generate(sys.argv[2])
    elif sys.argv[1] == "check-backward":
        sys.exit(check_backward(sys.argv[2], int(sys.argv[3])))
    else:
        sys.exit(check(sys.argv[2]))
