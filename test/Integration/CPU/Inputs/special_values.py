"""Writes argument files with NaNs of both signs and several payloads,
infinities and negative zeros among random values in [-1, 1):

    special_values.py DIR RANKS NAME:DTYPE:COUNT...

writes DIR/NAME_R.bin for every rank R (prec-run --arg I=DIR/NAME_%r.bin),
DTYPE f32, f64 or bf16. About one element in seven is special, so that the
sums over ranks meet NaNs with NaNs and infinities of opposite signs.
"""

import random
import struct
import sys
import zlib

SPECIALS = {
    "f32": [0x7FC00000, 0xFFC00000, 0x7F800001, 0xFF912345, 0x7FA5A5A5,
            0x7F800000, 0xFF800000, 0x80000000],
    "f64": [0x7FF8000000000000, 0xFFF8000000000000, 0x7FF0000000000001,
            0xFFF1234512345678, 0x7FF0000000000000, 0xFFF0000000000000,
            0x8000000000000000],
    "bf16": [0x7FC0, 0xFFC0, 0x7F81, 0xFF91, 0x7F80, 0xFF80, 0x8000],
}


def word(dtype, value):
    if dtype == "f64":
        return struct.unpack("<Q", struct.pack("<d", value))[0]
    bits = struct.unpack("<I", struct.pack("<f", value))[0]
    return bits >> 16 if dtype == "bf16" else bits


def main():
    directory, ranks = sys.argv[1], int(sys.argv[2])
    for spec in sys.argv[3:]:
        name, dtype, count = spec.split(":")
        count = int(count)
        fmt = {"f32": "I", "f64": "Q", "bf16": "H"}[dtype]
        for rank in range(ranks):
            draw = random.Random(zlib.crc32(("%s %d" % (name, rank)).encode()))
            words = [draw.choice(SPECIALS[dtype]) if draw.random() < 1 / 7
                     else word(dtype, draw.uniform(-1, 1))
                     for _ in range(count)]
            with open("%s/%s_%d.bin" % (directory, name, rank), "wb") as out:
                out.write(struct.pack("<%d%s" % (count, fmt), *words))


if __name__ == "__main__":
    main()
