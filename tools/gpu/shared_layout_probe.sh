#!/usr/bin/env bash
# Runs tools/gpu/shared_layout_probe.cu over offsets before, inside and past two shared buffers of
# one block (two static; static and dynamic): which buffer a read past another reaches, and where
# the block's window ends (docs/ORACLES.md, "Shared memory").
# Usage: tools/gpu/shared_layout_probe.sh [OUT_DIR]   (writes shared_layout_probe.txt there)
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${1:-.}
mkdir -p "$out"
bin=$(mktemp -d)/shared_layout_probe
/usr/local/cuda/bin/nvcc -O2 -arch=sm_90 -o "$bin" tools/gpu/shared_layout_probe.cu || exit 1
{
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  # a[] is 1000 floats (4000 B), the second buffer 100 (400 B): 4400 B together, 4480 rounded to 128.
  for kind in two-static-a static-dynamic-a; do
    for off in -257 -256 -1 999 1000 1007 1016 1017 1024 1050 1099 1100 1101 1110 1119 1120 1121 1130 1200 1500 2000 4000; do
      timeout 20 "$bin" "$kind" "$off" || echo "$kind $off process-failed $?"
    done
  done
  for kind in two-static-b static-dynamic-d; do
    for off in -1100 -1001 -1000 -999 -257 -256 -1 99 100 101 110 119 120 121 130 200 400 1000 1100; do
      timeout 20 "$bin" "$kind" "$off" || echo "$kind $off process-failed $?"
    done
  done
} > "$out/shared_layout_probe.txt" 2>&1
