#!/usr/bin/env python3
"""Repairs two defects of MLIR 22's MPI-to-LLVM lowering for Open MPI in a
lowered module (LLVM dialect), so that upstream's convert-shard-to-mpi can be
run against Debian's Open MPI 4.1:

- MPI_SUM is declared as the global `ompi_mpi_sum`, which Open MPI does not
  define (its name is `ompi_mpi_op_sum`): the JIT fails with "Symbols not
  found: [ ompi_mpi_sum ]".
- The communicator MPI_Comm_split returns is loaded as an i32 (MPICH's
  integer handles) and sign-extended, but Open MPI's MPI_Comm is a pointer:
  the truncated handle crashes MPI_Allreduce.

usage: patch_openmpi_abi.py IN OUT
"""
import re
import sys

text = open(sys.argv[1]).read()
text = re.sub(r"@ompi_mpi_sum\b", "@ompi_mpi_op_sum", text)

lines = text.split("\n")
patched = 0
for i, line in enumerate(lines):
    if "llvm.call @MPI_Comm_split(" not in line:
        continue
    handle = re.search(r"%(\w+)\)", line.split("(", 1)[1]).group(1)
    load = re.compile(r"(\s*)%(\w+) = llvm.load %" + handle + r" : !llvm.ptr -> i32$")
    for j in range(i + 1, min(i + 4, len(lines))):
        m = load.match(lines[j])
        if not m:
            continue
        lines[j] = lines[j][: -len("i32")] + "i64"
        sext = re.compile(r"(\s*)%(\w+) = llvm.sext %" + m.group(2) + r" : i32 to i64$")
        for k in range(j + 1, min(j + 3, len(lines))):
            s = sext.match(lines[k])
            if s:
                lines[k] = f"{s.group(1)}%{s.group(2)} = llvm.or %{m.group(2)}, %{m.group(2)} : i64"
                patched += 1
                break
        break
if patched == 0:
    sys.exit("patch_openmpi_abi.py: no MPI_Comm_split handle load found")
# The module's DLTI attribute and the grid symbol are not known to mlir-runner.
text = "\n".join(lines)
text = re.sub(r'module attributes \{dlti.map = #dlti.map<"MPI:Implementation" = "OpenMPI">\} \{',
              "module {", text, count=1)
text = re.sub(r"^\s*shard.grid @\w+\(.*\)\n", "", text, flags=re.M)
open(sys.argv[2], "w").write(text)
