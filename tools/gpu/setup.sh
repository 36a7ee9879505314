#!/usr/bin/env bash
# Configures and builds kaudit on a GPU machine without apt (the H200 machine of issue 20: Ubuntu
# 24.04, CUDA 13, PyTorch with its libtorch in `python3`, CMake, ninja, nlohmann/json, GoogleTest;
# no TBB, no Clang 19, no compiled Boost.Context, no libseccomp headers). kaudit builds against
# that PyTorch's libtorch, which has CUDA; what is missing is left out (docs/ARCHITECTURE.md,
# "Optional dependencies"). Usage: tools/gpu/setup.sh [BUILD_DIR] [TARGET...]
# (default build-gpu, and the targets kaudit, gpu_tests, runtime_tests and fiber_ucontext_tests).
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build-gpu}
shift || true
targets=("$@")
((${#targets[@]})) || targets=(kaudit gpu_tests runtime_tests fiber_ucontext_tests)
torch_prefix=$(python3 -c 'import torch; print(torch.utils.cmake_prefix_path)') || {
  echo "kaudit gpu setup: python3 has no torch: install PyTorch with CUDA (its libtorch is what kaudit links)" >&2
  exit 1
}
export CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$torch_prefix" \
  -DKAUDIT_PYTHON="$(command -v python3)" -DKAUDIT_BUILD_BENCHMARKS=OFF
cmake --build "$build" --target "${targets[@]}"
