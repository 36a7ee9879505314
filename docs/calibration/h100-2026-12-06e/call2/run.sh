#!/usr/bin/env bash
# Device call 2: float32 references on the GPU (the default placement), KernelBench's checks on the
# convolutions whose float32 answer is TF32's on the GPU, the guard mutants of issue 19, timing.
cd "$(dirname "$0")/../../../.."  # the repository root
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
el setup; tools/gpu/setup.sh build-gpu kaudit gpu_tests > $OUT/setup.log 2>&1 || { tail -40 $OUT/setup.log; exit 1; }
el gpu_tests; timeout 100 build-gpu/tests/runtime/gpu_tests --gtest_filter='Gpu.References*:Gpu.ACheckersLoop*' > $OUT/gpu_tests.txt 2>&1; grep -E "OK|FAIL|Failure|free before|PASSED" $OUT/gpu_tests.txt | head
K=build-gpu/tools/kaudit
KS="--kernel conv2d_grouped/gconv2d_direct --kernel conv2d_grouped/gconv2d_smem_filter --kernel conv_transpose2d/ct2d_gather_direct --kernel conv_transpose2d/ct2d_tile_phase --kernel conv2d/conv2d_direct"
for m in default 0; do
  el check-v0-$m; KAUDIT_DEVICE_REFERENCES=$([ $m = 0 ] && echo 0 || echo float32) timeout 120 $K check --backend cuda --oracle kernelbench --oracle kernelbench-v0.1 --oracle kernelbench-verified --preset kernelbench-v0 $KS --json > $OUT/check-v0-$m.json 2> $OUT/check-v0-$m.err
  python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(json.dumps(d)[:1500])" $OUT/check-v0-$m.json
done
el guard; bash docs/calibration/h100-2026-12-06e/call2/run-guard.sh
el check-kb; timeout 100 $K check --backend cuda --oracle kernelbench --preset kernelbench --kernel conv2d/conv2d_direct > $OUT/check-kb-conv2d.txt 2>&1; tail -5 $OUT/check-kb-conv2d.txt
el done
