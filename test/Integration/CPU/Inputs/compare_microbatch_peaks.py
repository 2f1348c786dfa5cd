"""Compares the peak memory of the two microbatch schedules of the
transformer block step.

Usage: compare_microbatch_peaks.py PREC_RUN LOOP_MODULE BATCHED_MODULE

Runs one step of each module (examples/transformer_block_hsdp_step.mlir,
whose microbatch loop holds the forward and backward compute, and
examples/transformer_block_hsdp_batched_step.mlir, which computes both
microbatches at once) on 4 ranks with prec-run --profile, reads every
rank's peak of buffers in use, and checks that the loop form needs less by
about one microbatch's activations.

One microbatch is B = 8 tokens of width D = 16 through two blocks of hidden
width H = 32. Per block the forward computes the sums of squares (B f32),
the normalized n (B x D bf16), h = n W1 (B x H f32), a = SiLU(h) (B x H
bf16), y = a W2 and the residual sum (B x D f32 each); then the error and
its square (B x D f32 each):

    A_all   = 2 (4B + 2BD + 4BH + 2BH + 4BD + 4BD) + 2 (4BD)   = 6720 bytes.

Of these the backward pass reads, per block, the sums of squares, n, h, a
and the block's input (the first block's input is an argument), and the
error:

    A_saved = 2 (4B + 2BD + 4BH + 2BH) + 4BD + 4BD             = 4672 bytes.

The batched form holds the second microbatch's saved activations while it
differentiates the first, so its peak exceeds the loop form's by at least
A_saved; a loop form that kept every microbatch's activations would not.
At most it holds, for that microbatch, every forward value, their gradients
(at most twice their size, where a bf16 value's gradient is an f32
accumulator) and its copy of the gathered bf16 weights and their gradients
(W = 2 (2D + 2DH + 2HD) = 4160 bytes each):

    difference <= 3 A_all + 2 W = 28480 bytes,

which a counter that added up the ranks (4 times each peak) would exceed.
"""
import re
import subprocess
import sys

B, D, H = 8, 16, 32
A_ALL = 2 * (4 * B + 2 * B * D + 4 * B * H + 2 * B * H + 4 * B * D + 4 * B * D) + 2 * 4 * B * D
A_SAVED = 2 * (4 * B + 2 * B * D + 4 * B * H + 2 * B * H) + 4 * B * D + 4 * B * D
W = 2 * (2 * D + 2 * D * H + 2 * H * D)
RANKS = 4


def peak(prec_run, module):
    """The peak of buffers in use of every rank; they must agree."""
    output = subprocess.run(
        [prec_run, module, "--profile", "--print", "none", "--scalar", "18=1",
         "--scalar", "21=0.01"],
        check=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        universal_newlines=True).stdout
    peaks = [int(v) for v in re.findall(r"peak buffers in use\s+(\d+) bytes", output)]
    if len(peaks) != RANKS:
        sys.exit("%s: expected %d ranks' peaks, got %r in:\n%s"
                 % (module, RANKS, peaks, output))
    if len(set(peaks)) != 1:
        sys.exit("%s: the ranks' peaks differ: %r" % (module, peaks))
    return peaks[0]


def main():
    prec_run, loop_module, batched_module = sys.argv[1:4]
    loop, batched = peak(prec_run, loop_module), peak(prec_run, batched_module)
    difference = batched - loop
    low, high = A_SAVED, 3 * A_ALL + 2 * W
    print("peak buffers in use per rank: loop form %d bytes, batched form %d bytes"
          % (loop, batched))
    print("difference %d bytes (expected between %d and %d)" % (difference, low, high))
    if not low <= difference <= high:
        print("FAILED: the difference is outside [A_saved, 3 A_all + 2 W]")
        return 1
    print("OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
