#!/usr/bin/env bash
# All of prec's GPU work in one call: on a machine with a CUDA GPU, the lit
# tests that depend on one (REQUIRES: cuda-gpu: test/Integration/GPU, the
# examples compiled ahead of time, the tools' GPU paths) and the emulated
# GPU suite beside them, then the gemm benchmark against torch.matmul
# (bench/contractions/gpu_matmul.py, where PyTorch is installed), whose
# figures and card go to BUILD_DIR/check-gpu-results.txt for
# docs/performance.md. Without a GPU it says so and exits 0; the emulated
# suite (test/Integration/GPUEmulation) runs in `make check` everywhere.
#
# usage: scripts/check-gpu.sh [BUILD_DIR]     (default: build)
#
# The build directory must hold a configured, built prec (make build); on a
# lent GPU machine without MLIR, carry it with the source tree.
# PRECRT_CUDA_DRIVER_LIBRARY, PRECRT_NCCL_LIBRARY and PRECRT_CUBLASLT_LIBRARY
# are passed on; without the last, cuBLASLt is looked for in PyTorch's wheels.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
probe=$build/bin/precrt-gpu-probe
if [ ! -x "$probe" ]; then
  echo "check-gpu: error: $probe not found; run make build first" >&2
  exit 1
fi
if ! devices=$("$probe" 2>&1); then
  echo "check-gpu: ${devices#precrt-gpu-probe: }; nothing to run"
  exit 0
fi
echo "$devices"
lit=${LIT:-}
if [ -z "$lit" ]; then
  for candidate in /usr/lib/llvm-22/bin/lit "$(command -v lit || true)"; do
    if [ -n "$candidate" ] && [ -x "$candidate" ]; then lit=$candidate; break; fi
  done
fi
if [ -z "$lit" ]; then
  if python3 -c "import lit" 2>/dev/null; then lit="python3 -m lit"
  else echo "check-gpu: error: no lit (pip install lit)" >&2; exit 1; fi
fi
# cuBLASLt (contractions of GPU code): PyTorch's wheels ship it outside the
# library path.
if [ -z "${PRECRT_CUBLASLT_LIBRARY:-}" ]; then
  for python in python3 python; do
    found=$($python - 2>/dev/null <<'PY'
import glob, os, sys
for entry in sys.path:
    for pattern in ("nvidia/cu13/lib/libcublasLt.so.13",
                    "nvidia/cublas/lib/libcublasLt.so.1[23]"):
        hits = sorted(glob.glob(os.path.join(entry, pattern)))
        if hits:
            print(hits[-1]); sys.exit(0)
PY
) && [ -n "$found" ] && { export PRECRT_CUBLASLT_LIBRARY=$found; break; }
  done
fi
# Every lit test that depends on a GPU (REQUIRES: cuda-gpu, or UNSUPPORTED
# where one is present), and the emulated suite, which must agree.
$lit -sv "$build/test/Integration/GPU" "$build/test/Integration/GPUEmulation" \
  "$build/test/Tools/precrt-gpu-probe" "$build/test/Tools/prec-run" \
  "$build/test/Examples/aot"
status=$?
# The gemm against torch.matmul on the same card (target: 0.8 of its
# throughput at transformer shapes).
results=$build/check-gpu-results.txt
echo "$devices" > "$results"
python3 "$root/bench/contractions/gpu_matmul.py" \
  --precrt "$build/runtime/libprecrt.so" 2>&1 | tee -a "$results"
[ "${PIPESTATUS[0]}" -eq 0 ] || status=1
echo "check-gpu: figures in $results"
exit $status
