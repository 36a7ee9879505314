#!/usr/bin/env bash
# Reads below (and above) the first tensor of a fresh CUDA process, for three first-tensor sizes:
# 1 KiB (PyTorch's small pool, a 2 MiB segment), 4 MiB (a 20 MiB segment) and 64 MiB (its own).
# Output: one line per probe (docs/calibration/h200-2026-12-04b/first-tensor-probe.txt).
set -u
cd "$(dirname "$0")/../.."
export TORCH_EXTENSIONS_DIR="${TORCH_EXTENSIONS_DIR:-/tmp/kaudit-probe-ext}"
python3 tools/gpu/first_tensor_probe.py 1024 0 > /dev/null 2>&1  # builds the extension once
for size in 1024 4194304 67108864; do
  for offset in -1 -32 -256 -1024 -16384 -262144 -1048576 -4194304 1048576 5242880; do
    timeout 60 python3 tools/gpu/first_tensor_probe.py "$size" "$offset" 2>&1 | tail -1
  done
done
