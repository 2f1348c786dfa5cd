"""Checks a GPU run of GPUEmulation/Inputs/fp8-gemm.mlir against the CPU's.

  check_fp8_gemm.py CPU_DIR GPU_DIR K

Both directories hold prec-run's --output-dir files of one rank: the same
arguments (a: 8 x K, w: 16 x K, f32) and result (8 x 16, f32). The GPU ran
the fp8 gemm on fp8 tensor cores, whose partial sums keep about 14 bits
(DeepSeek-V3's measurement on Hopper) until cuBLASLt promotes them to f32:
each of the K additions may lose 2^-13 of the running sum, which is at most
sum_p |a'_ip| |w'_jp| over the dequantized values. A dequantized value is
its input rounded to the fp8 grid times the scale: a (f8E4M3FN, scale 0.5)
within 2^-4 relative or 2^-10 * 0.5 absolute (half the smallest
subnormal), w (f8E5M2, scale 0.25) within 2^-3 relative or 2^-17 * 0.25;
the inputs stay far below saturation (448 * 0.5, 57344 * 0.25).
"""
import struct
import sys


def floats(path):
    data = open(path, "rb").read()
    return struct.unpack("<%df" % (len(data) // 4), data)


def main():
    cpu, gpu, k = sys.argv[1], sys.argv[2], int(sys.argv[3])
    for i in (0, 1):
        if floats("%s/rank0_arg%d.bin" % (cpu, i)) != floats("%s/rank0_arg%d.bin" % (gpu, i)):
            sys.exit("argument %d differs between the runs" % i)
    a = floats(cpu + "/rank0_arg0.bin")
    w = floats(cpu + "/rank0_arg1.bin")
    if max(map(abs, a + w)) >= 8:
        sys.exit("inputs of magnitude 8 or more: the bound assumes less")
    expected = floats(cpu + "/rank0_result0.bin")
    got = floats(gpu + "/rank0_result0.bin")
    m, n = len(a) // k, len(w) // k
    if len(expected) != m * n or len(got) != m * n or not any(expected):
        sys.exit("results of %d and %d elements (all zero: %s), expected %d"
                 % (len(expected), len(got), not any(expected), m * n))
    worst = 0.0
    for i in range(m):
        for j in range(n):
            magnitude = sum((abs(a[i * k + p]) * (1 + 2.0 ** -4) + 2.0 ** -11)
                            * (abs(w[j * k + p]) * (1 + 2.0 ** -3) + 2.0 ** -19)
                            for p in range(k))
            bound = k * 2.0 ** -13 * magnitude
            difference = abs(expected[i * n + j] - got[i * n + j])
            if difference > bound:
                sys.exit("element [%d][%d]: %r against the CPU's %r, over the bound %g"
                         % (i, j, got[i * n + j], expected[i * n + j], bound))
            worst = max(worst, difference / bound)
    print("fp8 gemm: within the bound (largest difference %.3g of it)" % worst)


main()
