"""Token streams for step_data.mlir's @token_sums, and the check of its sums.

Usage:
  data_windows.py stream PATH LENGTH      tokens (7 i + 3) mod 1000, u16
  data_windows.py files DIR RANKS STEPS   one i32 file of 4 tokens a step
                                          and rank: step<s>_rank<r>.bin
  data_windows.py check (stream PATH | files DIR) RANKS STEPS < prec-run's output
                                          (a stream of u16 tokens)

@token_sums returns, at every step, the sum of rank 0's 4 tokens and of
every rank's. With a stream of L tokens there are W = floor(L / 4) whole
windows, and step s of rank r reads window (s * RANKS + r) mod W; with one
file a step, its file. Sums of at most 8 integers below 1000 are exact in
f32, so the comparison is exact.
"""
import os
import re
import struct
import sys

COUNT = 4


def stream_tokens(length):
    return [(7 * i + 3) % 1000 for i in range(length)]


def file_tokens(step, rank):
    return [(31 * step + 11 * rank + 5 * j) % 1000 for j in range(COUNT)]


def main():
    command = sys.argv[1]
    if command == "stream":
        tokens = stream_tokens(int(sys.argv[3]))
        open(sys.argv[2], "wb").write(struct.pack("<%dH" % len(tokens), *tokens))
        return 0
    if command == "files":
        directory, ranks, steps = sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
        for s in range(steps):
            for r in range(ranks):
                path = os.path.join(directory, "step%d_rank%d.bin" % (s, r))
                open(path, "wb").write(struct.pack("<4i", *file_tokens(s, r)))
        return 0
    kind, where, ranks, steps = sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
    if kind == "stream":
        data = open(where, "rb").read()
        tokens = struct.unpack("<%dH" % (len(data) // 2), data)
        windows = len(tokens) // COUNT
        def window(s, r):
            k = (s * ranks + r) % windows
            return tokens[k * COUNT:(k + 1) * COUNT]
    else:
        window = file_tokens
    got = {}
    for line in sys.stdin:
        match = re.match(r"step (\d+): result (\d) = (\S+)", line)
        if match:
            got[(int(match.group(1)), int(match.group(2)))] = float(match.group(3))
    mismatches = 0
    for s in range(steps):
        want = (sum(window(s, 0)), sum(sum(window(s, r)) for r in range(ranks)))
        for i in (0, 1):
            if got.get((s, i)) != want[i]:
                mismatches += 1
                print("step %d result %d: got %s, want %s" % (s, i, got.get((s, i)), want[i]))
    print("windows: %d steps checked, %d mismatches" % (steps, mismatches))
    return 1 if mismatches or len(got) != 2 * steps else 0


if __name__ == "__main__":
    sys.exit(main())
