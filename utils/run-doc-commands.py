#!/usr/bin/env python3
"""Runs the commands of the documentation's shell blocks, as written.

Every ```sh block of the given Markdown files whose commands are concrete
(no placeholder such as program.mlir, N or [--option]) runs in a scratch
directory where `build` is the build directory and `examples`, `bench`,
`test` and `runtime` are the source tree's, with build/bin on PATH, so that
`build/bin/prec-run ...` and `prec-run ...` both work as a reader types
them. A block's commands run in order in one shell, stopping at the first
failure. Blocks with placeholders and `make` targets (the quick start,
which is what CI runs) are listed as skipped, with the reason.

Under mpirun as root, Open MPI needs --allow-run-as-root, which the
documentation says; the environment variables that stand for it are set
here (and the one that keeps Open MPI's shared memory working in
containers), so that the commands stay the ones a non-root reader runs.

Exit status 1 if any command fails or if no command ran.
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile

# A token that stands for something the reader supplies.
PLACEHOLDERS = re.compile(
    r"\bprogram\.(mlir|ll|o)\b|\bmodel\.mlir\b|\bstep\.mlir\b|\bmain\.cpp\b"
    r"|\[--|\s-np N\b|\s\.\.\.(\s|$)|\bI=V\b|\bI=PATH\b|<[a-z ]+>"
)
LINKED = ["examples", "bench", "test", "runtime", "utils"]


def shell_blocks(path):
    """(first line number, [commands]) of each ```sh block, continuation
    lines joined and comments dropped."""
    lines = open(path, encoding="utf-8").read().splitlines()
    blocks, current, start, inside = [], None, 0, False
    for number, line in enumerate(lines, 1):
        if not inside and re.match(r"^```(sh|bash)\s*$", line):
            inside, current, start = True, [], number + 1
            continue
        if inside and line.startswith("```"):
            inside = False
            commands, pending = [], ""
            for text in current:
                pending += text.rstrip()
                if pending.endswith("\\"):
                    pending = pending[:-1] + " "
                    continue
                command = re.sub(r"\s+#.*$", "", pending).strip()
                if command and not command.startswith("#"):
                    commands.append(command)
                pending = ""
            blocks.append((start, commands))
            continue
        if inside:
            current.append(line)
    return blocks


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", required=True, help="the source tree")
    parser.add_argument("--build", required=True, help="the build directory")
    parser.add_argument("--timeout", type=int, default=300)
    parser.add_argument("files", nargs="+", help="Markdown files, relative to --source")
    args = parser.parse_args()

    env = dict(os.environ)
    env["PATH"] = os.path.join(os.path.abspath(args.build), "bin") + os.pathsep + env["PATH"]
    env["OMPI_ALLOW_RUN_AS_ROOT"] = "1"
    env["OMPI_ALLOW_RUN_AS_ROOT_CONFIRM"] = "1"
    # Containers forbid the cross-memory attach of Open MPI's shared memory.
    env["OMPI_MCA_btl_vader_single_copy_mechanism"] = "none"

    ran, failed = 0, 0
    for name in args.files:
        for start, commands in shell_blocks(os.path.join(args.source, name)):
            where = f"{name}:{start}"
            if not commands:
                continue
            if any(c.startswith("make ") or c == "make" for c in commands):
                print(f"skipped {where}: make targets")
                continue
            placeholder = next((c for c in commands if PLACEHOLDERS.search(c)), None)
            if placeholder:
                print(f"skipped {where}: placeholder in '{placeholder}'")
                continue
            with tempfile.TemporaryDirectory() as scratch:
                os.symlink(os.path.abspath(args.build), os.path.join(scratch, "build"))
                for link in LINKED:
                    os.symlink(os.path.join(os.path.abspath(args.source), link),
                               os.path.join(scratch, link))
                for command in commands:
                    result = subprocess.run(
                        ["bash", "-c", command], cwd=scratch, env=env,
                        stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                        text=True, timeout=args.timeout)
                    ran += 1
                    if result.returncode != 0:
                        failed += 1
                        print(f"FAILED {where}: {command}\n  exit {result.returncode}:")
                        print("  " + "\n  ".join(result.stdout.splitlines()[-15:]))
                        break
                    print(f"ran {where}: {command}")
    print(f"doc commands: {ran} run, {failed} failed")
    return 1 if failed or ran == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
