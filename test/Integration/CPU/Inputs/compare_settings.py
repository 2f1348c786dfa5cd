"""Runs programs under prec-run with its default settings and with each
setting that README.md says gives "the same values, bit for bit", and
compares every file --output-dir writes (every argument and result of every
rank) byte for byte against the default run.

    compare_settings.py PREC_RUN WORK [--nan-payloads] SETTING... \
        -- PROGRAM ARGS... [-- ...]

A SETTING is a name from SETTINGS below. After each `--` come a program and
its prec-run arguments (files named @NAME@ in them are made in WORK: see
FILES). Prints, per program and setting, how many files differ, and the
first differing element of each differing file. Exits 1 if any file differs
or is missing, and if a run wrote no file at all (a comparison of nothing
would pass).

With --nan-payloads, an f32 or f64 result (the types as prec-run prints
them) may hold another NaN where the default run holds a NaN: docs/Prec.md,
"Which NaN", says why the settings keep which elements are NaN, and every
other bit, but not a NaN's sign and payload. Narrower results, and every
other bit of these, must still be the same. The number of NaNs compared is
printed, and a run with NaN inputs whose results hold none fails.
"""

import os
import re
import shutil
import struct
import subprocess
import sys

# Each setting: (extra prec-run arguments, extra environment). Blocks of 256
# bytes cut every direct all_reduce and reduce_scatter that prec cuts at all
# (the defaults, 1 MiB, leave a test program's small ones whole).
SETTINGS = {
    "unfused": (["--fuse-kernels=false"], {}),
    "all-reduce-blocks": (["--all-reduce-block-bytes=256"], {}),
    "reduce-scatter-blocks": (["--reduce-scatter-block-bytes=256"], {}),
    "blocks-unfused": (["--all-reduce-block-bytes=256",
                        "--reduce-scatter-block-bytes=256",
                        "--fuse-kernels=false"], {}),
    "no-windows": (["--peer-windows=false"], {}),
    "private-windows": ([], {"PRECRT_SHARED_WINDOWS": "0"}),
    "no-cache": (["--cache-buffers=false"], {}),
}


def zeros(count):
    return struct.pack("<%df" % count, *([0.0] * count))


# Argument files some programs need: @NAME@ in a program's arguments is the
# path of NAME in WORK.
FILES = {
    # An amax history of examples/fp8_delayed_step.mlir (2 x 16), in
    # [0.5, 1.5).
    "history": lambda: struct.pack(
        "<32f", *[0.5 + ((i * 37) % 32) / 32 for i in range(32)]),
    # Zero moments of examples/transformer_block_step.mlir (4 ranks): 4 and
    # 128 elements per shard.
    "zeros4": lambda: zeros(4),
    "zeros128": lambda: zeros(128),
    # The same of the HSDP variants (2 shards): 8 and 256 elements.
    "zeros8": lambda: zeros(8),
    "zeros256": lambda: zeros(256),
}


FLOAT_FORMATS = {"f32": ("<%dI", 4, 0x7F800000, 0x007FFFFF),
                 "f64": ("<%dQ", 8, 0x7FF0000000000000, 0x000FFFFFFFFFFFFF)}


def is_nan(word, exponent, mantissa):
    return word & exponent == exponent and word & mantissa != 0


def nan_aware_difference(a, b, dtype):
    """The first element of `a` and `b` (of `dtype`) that differs other
    than as two NaNs, or None; and the number of NaNs in `a`."""
    fmt, size, exponent, mantissa = FLOAT_FORMATS[dtype]
    if len(a) != len(b) or len(a) % size:
        return "sizes %d and %d bytes" % (len(a), len(b)), 0
    x = struct.unpack(fmt % (len(a) // size), a)
    y = struct.unpack(fmt % (len(b) // size), b)
    nans = 0
    for i, (p, q) in enumerate(zip(x, y)):
        if is_nan(p, exponent, mantissa):
            nans += 1
            if is_nan(q, exponent, mantissa):
                continue
        if p != q:
            return "element %d: 0x%x and 0x%x" % (i, p, q), nans
    return None, nans


def result_types(stdout):
    """Result index -> element type, from prec-run's summary lines."""
    types = {}
    for match in re.finditer(r"result (\d+): tensor<(?:\d+x)*([a-zA-Z0-9]+)>",
                             stdout):
        types[int(match.group(1))] = match.group(2)
    return types


def first_difference(a, b):
    if len(a) != len(b):
        return "sizes %d and %d bytes" % (len(a), len(b))
    for i in range(0, len(a) - len(a) % 4, 4):
        if a[i:i + 4] != b[i:i + 4]:
            x, = struct.unpack("<I", a[i:i + 4])
            y, = struct.unpack("<I", b[i:i + 4])
            return "element %d: 0x%08x and 0x%08x" % (i // 4, x, y)
    for i in range(len(a)):
        if a[i] != b[i]:
            return "byte %d: 0x%02x and 0x%02x" % (i, a[i], b[i])
    return "same"


def substitute(arg, work):
    parts = arg.split("@")
    # Odd positions are file names.
    return "".join(os.path.join(work, p + ".bin") if i % 2 else p
                   for i, p in enumerate(parts))


def run(prec_run, program, args, out, setting):
    """Runs the program; returns the result element types it printed."""
    extra, env = SETTINGS[setting] if setting else ([], {})
    os.makedirs(out)
    environment = dict(os.environ)
    environment.update(env)
    command = [prec_run, program] + args + extra + [
        "--output-dir", out, "--print", "summary" if setting is None else "none"]
    done = subprocess.run(command, env=environment, capture_output=True,
                          text=True)
    if done.returncode != 0:
        sys.exit("%s failed:\n%s" % (" ".join(command), done.stderr))
    return result_types(done.stdout)


def main():
    prec_run, work = sys.argv[1:3]
    rest = sys.argv[3:]
    nan_payloads = rest[:1] == ["--nan-payloads"]
    if nan_payloads:
        rest = rest[1:]
    split = rest.index("--")
    settings = rest[:split]
    programs = []
    for item in rest[split + 1:]:
        if item == "--":
            programs.append([])
        elif not programs:
            programs.append([item])
        else:
            programs[-1].append(item)
    for setting in settings:
        if setting not in SETTINGS:
            sys.exit("unknown setting '%s'" % setting)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    for name, make in FILES.items():
        with open(os.path.join(work, name + ".bin"), "wb") as out:
            out.write(make())

    failed = False
    for index, (program, *args) in enumerate(programs):
        args = [substitute(a, work) for a in args]
        label = os.path.basename(program)
        base = os.path.join(work, "%d-default" % index)
        types = run(prec_run, program, args, base, None)
        names = sorted(os.listdir(base))
        if not names:
            print("%s: no files written" % label)
            failed = True
            continue
        for setting in settings:
            out = os.path.join(work, "%d-%s" % (index, setting))
            run(prec_run, program, args, out, setting)
            differing = []
            nans = 0
            for name in names:
                path = os.path.join(out, name)
                if not os.path.exists(path):
                    differing.append((name, "missing"))
                    continue
                a = open(os.path.join(base, name), "rb").read()
                b = open(path, "rb").read()
                result = re.search(r"_result(\d+)\.bin$", name)
                dtype = types.get(int(result.group(1))) if result else None
                if nan_payloads and dtype in FLOAT_FORMATS:
                    how, count = nan_aware_difference(a, b, dtype)
                    nans += count
                    if how:
                        differing.append((name, how))
                elif a != b:
                    differing.append((name, first_difference(a, b)))
            print("%s: %s: %d of %d files differ%s" %
                  (label, setting, len(differing), len(names),
                   ", %d NaN results compared as NaNs" % nans
                   if nan_payloads else ""))
            if nan_payloads and not nans:
                print("  no NaN result to compare")
                failed = True
            for name, how in differing:
                print("  %s: %s" % (name, how))
            failed = failed or bool(differing)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
