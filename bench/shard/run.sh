#!/usr/bin/env bash
# The same partitioned program through upstream's MPI lowering and through
# prec's, on 4 MPI processes: bench/shard/matmul_allreduce.mlir through
# sharding-propagation and shard-partition, then
#   upstream: convert-shard-to-mpi, one-shot bufferization, loops, LLVM,
#             mlir-runner with Open MPI's libmpi.so (f32 wire and sum);
#   prec:     convert-shard-to-prec (defaults: f32 wire; and
#             #prec.policy<reduce = bf16>: bf16 wire, f32 sum), prec-run.
# compare.py prints the error against float64 and the time per step.
#
# usage: bench/shard/run.sh [BUILD_DIR] [ITERS]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:-$here/../../build}" && pwd)
iters=${2:-100}
out=$(mktemp -d)
[ -n "${KEEP:-}" ] || trap 'rm -rf "$out"' EXIT; echo "work directory: $out" >&2
llvm=$(llvm-config-22 --prefix 2>/dev/null || echo /usr/lib/llvm-22)
opt="$llvm/bin/mlir-opt"
mpirun="env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl_vader_single_copy_mechanism=none mpirun --oversubscribe -np 4"

# Partition, and append the function that runs the steps.
"$opt" "$here/matmul_allreduce.mlir" \
  --pass-pipeline='builtin.module(func.func(sharding-propagation,shard-partition))' \
  -o "$out/partitioned.mlir"
append() {  # MODULE FILE... > OUT: FILEs' text inside MODULE's last brace
  python3 - "$@" <<'PY'
import sys
module = open(sys.argv[1]).read().rstrip()
assert module.endswith("}")
print(module[:-1] + "".join(open(f).read() for f in sys.argv[2:]) + "}")
PY
}
append "$out/partitioned.mlir" "$here/run_steps.mlir" > "$out/program.mlir"

# Upstream: MPI dialect, a main that initializes MPI, LLVM, mlir-runner.
"$opt" "$out/program.mlir" --convert-shard-to-mpi -o "$out/mpi.mlir"
sed "s/ITERS/$iters/" "$here/mpi_main.mlir" > "$out/main.mlir"
append "$out/mpi.mlir" "$out/main.mlir" \
  | sed '0,/^module {/s//module attributes {dlti.map = #dlti.map<"MPI:Implementation" = "OpenMPI">} {/' \
  > "$out/upstream.mlir"
"$opt" "$out/upstream.mlir" \
  --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map allow-return-allocs-from-loops" \
  --convert-linalg-to-loops --convert-scf-to-cf --expand-strided-metadata \
  --lower-affine --finalize-memref-to-llvm --convert-to-llvm \
  --reconcile-unrealized-casts -o "$out/upstream-llvm.mlir"
python3 "$here/patch_openmpi_abi.py" "$out/upstream-llvm.mlir" "$out/upstream-run.mlir"
libmpi=$(ls /usr/lib/*/libmpi.so | head -1)
$mpirun "$llvm/bin/mlir-runner" "$out/upstream-run.mlir" -e main \
  -entry-point-result=void \
  -shared-libs="$llvm/lib/libmlir_c_runner_utils.so,$llvm/lib/libmlir_runner_utils.so,$libmpi" \
  > "$out/upstream.txt"

# prec: the same partitioned program, two policies.
for policy in f32 bf16; do
  option=""
  [ "$policy" = bf16 ] && option="{policy=#prec.policy<reduce=bf16>}"
  "$build/bin/prec-opt" "$out/program.mlir" \
    --pass-pipeline="builtin.module(convert-shard-to-prec$option)" -o "$out/prec-$policy.mlir"
  mkdir -p "$out/prec-$policy"
  $mpirun "$build/bin/prec-run" --backend mpi "$out/prec-$policy.mlir" --entry run_steps \
    --scalar 0="$iters" --output-dir "$out/prec-$policy" --print none
done

python3 "$here/compare.py" "$iters" "convert-shard-to-mpi=$out/upstream.txt" \
  "convert-shard-to-prec, defaults=$out/prec-f32" \
  "convert-shard-to-prec, reduce=bf16=$out/prec-bf16"
