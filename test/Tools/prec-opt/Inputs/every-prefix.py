"""Feeds prec-opt truncated copies of IR files and fails on any crash.

Usage: every-prefix.py PREC_OPT FILE...

Every `// -----` chunk of each file is cut at every line end and at a spread
of byte offsets; all the truncated chunks go to one prec-opt process with
-split-input-file, which must exit with 0 or 1 (a diagnostic), within a
timeout. On a crash, the chunks are retried one by one to name the culprit.
"""
import subprocess
import sys

SEPARATOR = "\n// -----\n"
TIMEOUT_SECONDS = 120


def truncations(chunk):
    cuts = {i + 1 for i, c in enumerate(chunk) if c == "\n"}
    cuts.update(range(0, len(chunk), max(1, len(chunk) // 16)))
    return [chunk[:cut] for cut in sorted(cuts)]


def run(prec_opt, text):
    return subprocess.run([prec_opt, "-", "-split-input-file", "-o", "/dev/null"],
                          input=text.encode(), capture_output=True,
                          timeout=TIMEOUT_SECONDS)


def main():
    prec_opt, files = sys.argv[1], sys.argv[2:]
    pieces = []
    for path in files:
        for chunk in open(path, encoding="utf-8").read().split(SEPARATOR):
            pieces.extend(truncations(chunk))
    result = run(prec_opt, SEPARATOR.join(pieces))
    print("%d truncated inputs, exit code %d" % (len(pieces), result.returncode))
    if result.returncode in (0, 1):
        return 0
    for piece in pieces:
        single = run(prec_opt, piece)
        if single.returncode not in (0, 1):
            print("crash (exit code %d) on:\n%s\n%s" % (
                single.returncode, piece, single.stderr.decode(errors="replace")[-2000:]))
            return 1
    print(result.stderr.decode(errors="replace")[-2000:])
    return 1


if __name__ == "__main__":
    sys.exit(main())
