#!/usr/bin/env bash
# Runs tools/gpu/shared_oob_probe.cu over buffer sizes and offsets past the end (and some before
# the start) of a __shared__ buffer, static and dynamic, reads and writes: where the GPU starts to
# fault is what oracle mode's shared-memory model must reproduce (docs/ORACLES.md).
# Usage: tools/gpu/shared_oob_probe.sh [OUT_DIR]   (writes shared_oob_probe.txt there)
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${1:-.}
mkdir -p "$out"
bin=$(mktemp -d)/shared_oob_probe
/usr/local/cuda/bin/nvcc -O2 -arch=sm_90 -o "$bin" tools/gpu/shared_oob_probe.cu || exit 1
{
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  for kind in static-read static-write dynamic-read dynamic-write; do
    for size in 256 1000 1100 2100; do
      for extra in -257 -256 -255 -64 -1 0 1 8 16 24 32 48 64 96 128 160 192 224 256 288 320 512 1024 2048 4096 16384 65536; do
        if [ "$extra" -lt 0 ]; then off=$extra; else off=$((size + extra)); fi
        timeout 20 "$bin" "$kind" "$size" "$off" || echo "$kind $size $off process-failed $?"
      done
    done
  done
} > "$out/shared_oob_probe.txt" 2>&1
