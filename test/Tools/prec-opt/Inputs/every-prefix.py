"""Feeds prec-opt truncated copies of IR files and fails on any crash.

Usage: every-prefix.py PREC_OPT FILE...

Each file is cut at many points (every line end and a spread of byte
offsets); prec-opt must exit with 0 or 1, within a timeout, for every cut.
"""
import subprocess
import sys

TIMEOUT_SECONDS = 20


def cut_points(text):
    points = {i + 1 for i, c in enumerate(text) if c == "\n"}
    points.update(range(0, len(text), max(1, len(text) // 200)))
    return sorted(points)


def main():
    prec_opt, files = sys.argv[1], sys.argv[2:]
    failures = 0
    runs = 0
    for path in files:
        text = open(path, encoding="utf-8").read()
        for cut in cut_points(text):
            runs += 1
            result = subprocess.run(
                [prec_opt, "-", "-split-input-file", "-o", "/dev/null"],
                input=text[:cut].encode(),
                capture_output=True,
                timeout=TIMEOUT_SECONDS,
            )
            if result.returncode not in (0, 1):
                failures += 1
                print(f"{path}: cut at byte {cut}: exit code {result.returncode}")
                print(result.stderr.decode(errors="replace")[-2000:])
    print(f"{runs} truncated inputs, {failures} crashes")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
