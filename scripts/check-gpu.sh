#!/usr/bin/env bash
# All of prec's GPU work in one call: on a machine with a CUDA GPU, the lit
# tests that depend on one (REQUIRES: cuda-gpu: test/Integration/GPU, the
# examples compiled ahead of time, the tools' GPU paths) and the emulated
# GPU suite beside them. Without a GPU it says so and exits 0; the emulated
# suite (test/Integration/GPUEmulation) runs in `make check` everywhere.
#
# usage: scripts/check-gpu.sh [BUILD_DIR]     (default: build)
#
# The build directory must hold a configured, built prec (make build); on a
# lent GPU machine without MLIR, carry it with the source tree.
# PRECRT_CUDA_DRIVER_LIBRARY and PRECRT_NCCL_LIBRARY are passed on.
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
# Every lit test that depends on a GPU (REQUIRES: cuda-gpu, or UNSUPPORTED
# where one is present), and the emulated suite, which must agree.
exec $lit -sv "$build/test/Integration/GPU" "$build/test/Integration/GPUEmulation" \
  "$build/test/Tools/precrt-gpu-probe" "$build/test/Tools/prec-run" \
  "$build/test/Examples/aot"
