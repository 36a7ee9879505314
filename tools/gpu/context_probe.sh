#!/usr/bin/env bash
# The cost of CUDA contexts on this GPU machine (tools/gpu/context_probe.cu says why it matters):
#   1. five contexts made one after another (each in its own process, timed from the shell too);
#   2. N contexts made at once (N = 4, 16): are they made one at a time?
#   3. a process launching tiny kernels while 20 processes fault one after another, then 4 at a
#      time: does a fault in one context stall the others, and for how long?
# Usage: tools/gpu/context_probe.sh [OUT_DIR]   (writes context_probe.txt there)
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${1:-.}
mkdir -p "$out"
bin=$(mktemp -d)/context_probe
/usr/local/cuda/bin/nvcc -O2 -o "$bin" tools/gpu/context_probe.cu -lcuda || exit 1
ms() { date +%s%N; }
{
  echo "# 1. one at a time"
  for i in 1 2 3 4 5; do
    t=$(ms); "$bin" create; echo "  process wall: $(( ($(ms) - t) / 1000000 )) ms"
  done
  for n in 4 16; do
    echo "# 2. $n at once"
    t=$(ms)
    for i in $(seq "$n"); do "$bin" create & done
    wait
    echo "  all $n done after $(( ($(ms) - t) / 1000000 )) ms"
  done
  echo "# 3a. latency while 20 processes fault one after another"
  "$bin" latency 14 &
  lat=$!
  sleep 2
  t=$(ms)
  for i in $(seq 20); do "$bin" crash; done
  echo "  20 faulting processes, one after another: $(( ($(ms) - t) / 1000000 )) ms"
  wait $lat
  echo "# 3b. latency while 20 processes fault, 4 at a time"
  "$bin" latency 12 &
  lat=$!
  sleep 2
  t=$(ms)
  for r in 1 2 3 4 5; do
    pids=()
    for i in 1 2 3 4; do "$bin" crash & pids+=($!); done
    wait "${pids[@]}"
  done
  echo "  20 faulting processes, 4 at a time: $(( ($(ms) - t) / 1000000 )) ms"
  wait $lat
} 2>&1 | tee "$out/context_probe.txt"
