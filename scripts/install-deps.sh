#!/usr/bin/env bash
# Installs every Debian package prec needs to build and test, and nothing
# else. Quick when everything is present. Run as root or with sudo.
set -euo pipefail

packages=(
  # Build
  cmake ninja-build g++ ccache python3
  # LLVM/MLIR 22: libMLIR.so, mlir-tblgen, mlir-opt, FileCheck, lit
  llvm-22-dev llvm-22-tools libmlir-22-dev mlir-22-tools
  # The tools' allocator (optional: without it they use the C library's)
  libjemalloc-dev
  # The gemm of CPU contractions, loaded at run time (optional: without it
  # precrt uses its builtin kernel)
  libopenblas0
  # Runtime: MPI backend and its tests
  libopenmpi-dev openmpi-bin
  # Runtime tests and benchmarks
  libgtest-dev libbenchmark-dev
  # Plots of bench/numerics
  python3-matplotlib
)

missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" ||
    missing+=("$package")
done
[ ${#missing[@]} -eq 0 ] && exit 0

sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
echo "installing: ${missing[*]}"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
