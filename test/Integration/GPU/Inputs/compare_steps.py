"""Compares the per-step scalars of two prec-run runs of the same program.

Usage: compare_steps.py CPU_OUTPUT GPU_OUTPUT NUM_STEPS DTYPE

Both outputs hold the lines "step K: result I = VALUE" of prec-run --steps.
The runs start from the same arguments (the same seed) and differ only in
the order of their sums, so every value must agree to within
NUM_STEPS * 256 * u_DTYPE relative (sums of up to 128 terms on each side,
compounded once per step), plus half a unit of the last printed digit of
each of the two values.
"""
import os
import re
import sys

# The CPU suite's reference module, by path (shared, not copied).
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "CPU", "Inputs"))
from reference import UNIT_ROUNDOFF as U  # noqa: E402

LINE = re.compile(r"^step (\d+): result (\d+) = (\S+)$")


def read_steps(path):
    values = {}
    with open(path) as output:
        for line in output:
            match = LINE.match(line.strip())
            if match:
                values[(int(match[1]), int(match[2]))] = match[3]
    return values


def print_error(text):
    """Half a unit of the last digit that `text` shows."""
    mantissa, _, exponent = text.lower().partition("e")
    decimals = len(mantissa.partition(".")[2])
    return 0.5 * 10.0 ** (int(exponent or 0) - decimals)


def main():
    cpu, gpu = read_steps(sys.argv[1]), read_steps(sys.argv[2])
    steps, dtype = int(sys.argv[3]), sys.argv[4]
    tolerance = steps * 256 * U[dtype]
    if {step for step, _ in cpu} != set(range(steps)):
        sys.exit(f"{sys.argv[1]}: expected steps 0 to {steps - 1}, got {sorted(cpu)}")
    if cpu.keys() != gpu.keys():
        sys.exit(f"the runs report different values: {sorted(cpu)} and {sorted(gpu)}")
    failures = 0
    for key in sorted(cpu):
        expected, got = float(cpu[key]), float(gpu[key])
        allowed = (tolerance * abs(expected) + print_error(cpu[key]) +
                   print_error(gpu[key]))
        if not abs(got - expected) <= allowed:
            print(f"step {key[0]} result {key[1]}: CPU {cpu[key]}, GPU {gpu[key]}, "
                  f"allowed difference {allowed:.3g}")
            failures += 1
    if failures:
        sys.exit(f"{failures} of {len(cpu)} values outside tolerance")
    print(f"{len(cpu)} values agree within {tolerance:.3g} relative "
          "and the printed digits")


if __name__ == "__main__":
    main()
