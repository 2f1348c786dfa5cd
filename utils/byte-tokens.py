#!/usr/bin/env python3
"""A text as a stream of byte-level tokens for prec-run --data.

Usage: byte-tokens.py [--input TEXT] [--dtype u8|u16|u32] [--val-fraction F] OUT

Each byte of TEXT (default: /usr/share/common-licenses/GPL-3, which every
Debian system has) is one token in [0, 256), written little-endian as DTYPE
(default u16, as nanoGPT's train.bin), so that a vocabulary of 256 covers
it: `prec-run --data idx:u16=OUT ...` with the argument's prec.range = [0,
256] or wider. With --val-fraction, the last F of the text goes to OUT with
`.val` before its extension instead (nanoGPT's val.bin).
"""
import argparse
import os
import struct
import sys

FORMATS = {"u8": "B", "u16": "H", "u32": "I"}


def write(path, tokens, dtype):
    with open(path, "wb") as out:
        out.write(struct.pack("<%d%s" % (len(tokens), FORMATS[dtype]), *tokens))
    print("%s: %d %s tokens" % (path, len(tokens), dtype))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out")
    parser.add_argument("--input", default="/usr/share/common-licenses/GPL-3")
    parser.add_argument("--dtype", choices=sorted(FORMATS), default="u16")
    parser.add_argument("--val-fraction", type=float, default=0.0)
    args = parser.parse_args()
    if not 0.0 <= args.val_fraction < 1.0:
        parser.error("--val-fraction must be in [0, 1), got %g" % args.val_fraction)
    try:
        tokens = list(open(args.input, "rb").read())
    except OSError as error:
        parser.error("cannot read --input: %s" % error)
    split = len(tokens) - int(len(tokens) * args.val_fraction)
    write(args.out, tokens[:split], args.dtype)
    if args.val_fraction:
        stem, extension = os.path.splitext(args.out)
        write(stem + ".val" + extension, tokens[split:], args.dtype)
    return 0


if __name__ == "__main__":
    sys.exit(main())
