#!/usr/bin/env bash
# Builds prec with AddressSanitizer and UndefinedBehaviorSanitizer (any
# report is fatal) in its own build directory and runs the whole suite there:
# lit (the tools, prec-run's JIT-compiled programs calling the instrumented
# runtime, the mpirun tests) and the runtime's gtest suites.
#
# usage: scripts/check-sanitize.sh [BUILD_DIR]     (default: build-sanitize)
#        scripts/check-sanitize.sh --runtime [BUILD_DIR]
#                                   (default: build-sanitize-runtime)
# --runtime builds only the runtime (runtime/ on its own, a few minutes) and
# runs check-precrt: its gtest suites and the mpirun tests, the lost-rank
# tests included. CI runs that part (docs/Testing.md).
#
# LLVM's and Open MPI's libraries are not instrumented. Open MPI keeps
# allocations until exit, which LeakSanitizer would report as leaks of the
# test processes (suppressed by library, which needs the slow unwinder:
# their frames have no frame pointers); leak checking is on for everything
# else. The slow unwinder deadlocks in programs that JIT-compile (prec-run,
# the runner's and C API's tests, the embedding examples): the JIT registers
# its code's unwind tables with libgcc, whose frame lock is held while
# libgcc allocates, and the allocation's stack trace then unwinds through
# libgcc again (GCC 12's unwinder). So the runtime's suites, which JIT
# nothing, keep the slow unwinder, and lit runs with the fast one; lit's
# %mpirun turns leak checking off for the JIT-compiled programs it starts
# (test/lit.cfg.py), which the fast unwinder cannot suppress by library. LLVM's allocators poison and unpoison memory from inline code, which
# is instrumented here but not in Debian's libMLIR.so: their manual
# poisoning is ignored (allow_user_poisoning=0), or memory the library reuses
# reads as poisoned.
# UBSan's flags are given explicitly: HandleLLVMOptions reads them from
# LLVM_UBSAN_FLAGS, which only LLVM's own build defines (left empty, an
# "Address;Undefined" build gets no UBSan at all). vptr needs RTTI, which
# LLVM is built without.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
ubsan="-fsanitize=undefined -fno-sanitize=vptr -fno-sanitize-recover=all"
runtime_only=false
if [ "${1:-}" = --runtime ]; then
  runtime_only=true
  shift
fi
jobs=${JOBS:-$(nproc)}

# Configured on every run: a directory configured with other flags (one from
# before UBSan's flags were passed) is brought in line and rebuilt.
if $runtime_only; then
  build=${1:-$root/build-sanitize-runtime}
  flags="-fsanitize=address $ubsan -fno-omit-frame-pointer"
  cmake -S "$root/runtime" -B "$build" -G Ninja \
      -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      -DPRECRT_BUILD_BENCHMARKS=OFF \
      -DCMAKE_C_FLAGS="$flags" -DCMAKE_CXX_FLAGS="$flags" \
      -DCMAKE_EXE_LINKER_FLAGS="$flags" -DCMAKE_SHARED_LINKER_FLAGS="$flags" \
      -DCMAKE_MODULE_LINKER_FLAGS="$flags" \
      -DCMAKE_C_COMPILER_LAUNCHER=ccache \
      -DCMAKE_CXX_COMPILER_LAUNCHER=ccache
else
  build=${1:-$root/build-sanitize}
  cmake -S "$root" -B "$build" -G Ninja \
      -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      -DLLVM_ENABLE_ASSERTIONS=ON \
      -DLLVM_USE_SANITIZER="Address;Undefined" \
      -DLLVM_UBSAN_FLAGS="$ubsan" \
      -DMLIR_DIR="${MLIR_DIR:-/usr/lib/llvm-22/lib/cmake/mlir}" \
      -DCMAKE_C_COMPILER_LAUNCHER=ccache \
      -DCMAKE_CXX_COMPILER_LAUNCHER=ccache
fi
asan="detect_leaks=1:abort_on_error=1:allow_user_poisoning=0:strict_string_checks=1:detect_stack_use_after_return=1:suppressions=$root/scripts/sanitize/asan.supp"
user_asan=${ASAN_OPTIONS:-}
export LSAN_OPTIONS="suppressions=$root/scripts/sanitize/lsan.supp:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
# unwinder slow|fast: the ASan options of the processes a target runs.
with_unwinder() {
  local fast=0
  [ "$1" = fast ] && fast=1
  echo "$asan:fast_unwind_on_malloc=$fast${user_asan:+:$user_asan}"
}
if $runtime_only; then
  ASAN_OPTIONS=$(with_unwinder slow) \
    cmake --build "$build" -j "$jobs" --target check-precrt
else
  cmake --build "$build" -j "$jobs"
  ASAN_OPTIONS=$(with_unwinder slow) \
    cmake --build "$build" -j "$jobs" --target check-precrt
  ASAN_OPTIONS=$(with_unwinder fast) \
    cmake --build "$build" -j "$jobs" --target check-prec-lit
fi
