"""Checks the output of prec-run --profile.

Usage: check_profile.py OUTPUT RANKS GEMMS COLLECTIVES

Every rank reports every category; GEMMS gemm calls and COLLECTIVES
collective calls per step; no part is negative, waiting is part of the
collectives, and the timed parts add up to the step (the rest, host code
between them, is not negative beyond the clock's resolution).
"""
import re
import sys

CATEGORIES = ["step", "gemm (precrtCompiledMatmul)", "compute kernels",
              "pack/unpack kernels", "collectives", "of which waiting",
              "other host code"]


def main():
    path, ranks, gemms, collectives = sys.argv[1], *map(int, sys.argv[2:])
    text = open(path).read()
    blocks = re.split(r"^rank (\d+): profile.*\n", text, flags=re.M)[1:]
    if len(blocks) != 2 * ranks:
        print("expected %d profiles, got %d" % (ranks, len(blocks) // 2))
        return 1
    for rank, block in zip(blocks[::2], blocks[1::2]):
        parts, calls = {}, {}
        for line in block.splitlines():
            match = re.match(r"\s+(.*?)\s+(-?[0-9.]+) ms(?:\s+-?[0-9.]+%\s+(\d+) calls)?", line)
            if match:
                parts[match.group(1)] = float(match.group(2))
                if match.group(3):
                    calls[match.group(1)] = int(match.group(3))
        missing = [c for c in CATEGORIES if c not in parts]
        if missing:
            print("rank %s: missing %s" % (rank, missing))
            return 1
        step = parts["step"]
        timed = sum(parts[c] for c in CATEGORIES[1:5])
        checks = [
            (calls["gemm (precrtCompiledMatmul)"] == gemms, "gemm calls"),
            (calls["collectives"] == collectives, "collective calls"),
            (all(parts[c] >= 0 for c in CATEGORIES[:-1]), "negative part"),
            (parts["of which waiting"] <= parts["collectives"], "waiting > collectives"),
            (step > 0 and timed <= step * 1.001 + 0.002, "parts exceed the step"),
            (abs(timed + parts["other host code"] - step) <= 0.002 + step * 0.001,
             "parts do not add up to the step"),
        ]
        for ok, what in checks:
            if not ok:
                print("rank %s: %s: %r %r" % (rank, what, parts, calls))
                return 1
    print("%d profiles checked" % ranks)
    return 0


if __name__ == "__main__":
    sys.exit(main())
