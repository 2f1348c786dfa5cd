#!/usr/bin/env bash
# Creates (or reuses) the virtual environment that the PyTorch frontend's
# tests run in: PyPI's torch (its CUDA build, which imports and runs on a
# machine without a GPU), torch-mlir, safetensors and ml_dtypes.
#
# Usage: scripts/setup-torch-venv.sh VENV_DIR
#
# A second run finds everything installed and returns in a second or two;
# pip's download cache (~/.cache/pip) is kept, so a fresh VENV_DIR reinstalls
# from it without downloading again.
set -euo pipefail
venv=${1:?usage: setup-torch-venv.sh VENV_DIR}
python=${PYTHON:-python3}
packages=(torch==2.15.0 torch-mlir==20261001 safetensors ml_dtypes numpy)

check() {
  "$venv/bin/python" -c "import torch, torch_mlir, safetensors, ml_dtypes, numpy" 2>/dev/null
}

if [ -x "$venv/bin/python" ] && check; then
  exit 0
fi
if ! "$python" -c "import venv, ensurepip" 2>/dev/null; then
  echo "setup-torch-venv: $python has no venv/ensurepip module; install python3-venv" >&2
  exit 1
fi
echo "setup-torch-venv: installing ${packages[*]} into $venv (about 5 GB, a few minutes)"
"$python" -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --upgrade pip
"$venv/bin/python" -m pip install --quiet "${packages[@]}"
check || { echo "setup-torch-venv: $venv cannot import torch, torch_mlir, safetensors, ml_dtypes" >&2; exit 1; }
echo "setup-torch-venv: $venv ready"
