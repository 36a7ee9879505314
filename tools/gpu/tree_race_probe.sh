#!/usr/bin/env bash
# Runs tools/gpu/tree_race_probe.cu: a shared-memory tree reduction without its in-loop barrier,
# at grid sizes from under one block per SM to many (docs/ORACLES.md, "Races"), and appends the
# SASS of its three kernels (whether the guarded tree step is a branch or predicated: what an idle
# warp does while the others reduce).
# Usage: tools/gpu/tree_race_probe.sh [OUT_DIR]   (writes tree_race_probe.txt there)
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${1:-.}
mkdir -p "$out"
bin=$(mktemp -d)/tree_race_probe
/usr/local/cuda/bin/nvcc -O3 -arch=sm_90 -o "$bin" tools/gpu/tree_race_probe.cu || exit 1
timeout 120 "$bin" > "$out/tree_race_probe.txt" 2>&1
echo "rc=$?" >> "$out/tree_race_probe.txt"
/usr/local/cuda/bin/cuobjdump -sass "$bin" >> "$out/tree_race_probe.txt" 2>&1
