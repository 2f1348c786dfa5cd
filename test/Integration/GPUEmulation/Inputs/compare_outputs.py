"""Compares the --output-dir files of two prec-run runs byte for byte.

usage: compare_outputs.py CPU_DIR GPU_DIR RANKS [--arguments-only]

Every rank's arguments (the same seed gives the same inputs) and results
must exist in both directories and be identical; prints the first
differing bytes otherwise. With --arguments-only, results are not compared
(where the two transports sum in different orders, the float64 checkers
judge them).
"""

import os
import sys


def main():
    cpu_dir, gpu_dir, ranks = sys.argv[1], sys.argv[2], int(sys.argv[3])
    arguments_only = sys.argv[4:] == ["--arguments-only"]
    if len(sys.argv) not in (4, 5) or (len(sys.argv) == 5 and not arguments_only):
        print(__doc__)
        return 2
    names = sorted(n for n in os.listdir(cpu_dir) if n.endswith(".bin")
                   and not (arguments_only and "_result" in n))
    expected = {f"rank{r}_" for r in range(ranks)}
    if not names or {n.split("_")[0] + "_" for n in names} != expected:
        print(f"expected the files of ranks 0..{ranks - 1} in {cpu_dir}")
        return 1
    failed = 0
    for name in names:
        gpu_path = os.path.join(gpu_dir, name)
        if not os.path.exists(gpu_path):
            print(f"{name}: missing from {gpu_dir}")
            failed += 1
            continue
        with open(os.path.join(cpu_dir, name), "rb") as f:
            cpu = f.read()
        with open(gpu_path, "rb") as f:
            gpu = f.read()
        if cpu == gpu:
            continue
        failed += 1
        if len(cpu) != len(gpu):
            print(f"{name}: {len(cpu)} bytes on the CPU, {len(gpu)} emulated")
            continue
        first = next(i for i in range(len(cpu)) if cpu[i] != gpu[i])
        print(f"{name}: first difference at byte {first}: CPU "
              f"{cpu[first:first + 8].hex()}, emulated {gpu[first:first + 8].hex()}")
    if failed:
        print(f"{failed} of {len(names)} files differ")
        return 1
    print(f"{len(names)} files identical")
    return 0


if __name__ == "__main__":
    sys.exit(main())
