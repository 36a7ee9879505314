#!/usr/bin/env bash
# One device call: build, GPU tests, the TF32 probe, the CUDA worker after its pool limit, and the
# gate at kernelbench with references on the GPU and on the host.
cd "$(dirname "$0")/../../../.."  # the repository root
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
el setup; tools/gpu/setup.sh build-gpu kaudit gpu_tests > $OUT/setup.log 2>&1 || { tail -40 $OUT/setup.log; exit 1; }
el gpu_tests; timeout 150 build-gpu/tests/runtime/gpu_tests --gtest_filter='Gpu.References*:Gpu.ACorrect*:Gpu.ACheckersLoop*:Gpu.ASharedInput*' > $OUT/gpu_tests.txt 2>&1; tail -4 $OUT/gpu_tests.txt
el tf32; timeout 120 python3 tools/gpu/tf32_probe.py corpus/tasks/{conv2d,conv2d_strided,conv2d_pointwise,conv2d_grouped,conv1d_depthwise_bias_relu,conv_transpose2d,conv2d_relu_bias,matmul,linear_relu} > $OUT/tf32.jsonl 2>&1; cut -c1-400 $OUT/tf32.jsonl
K=build-gpu/tools/kaudit
el check-small; timeout 90 $K check --backend cuda --kernel relu/relu_gridstride --kernel conv2d/conv2d_direct > $OUT/check-small.txt 2>&1; tail -12 $OUT/check-small.txt
el verify-conv-dev; /usr/bin/time -v timeout 150 $K verify --backend cuda --preset kernelbench --kernel conv2d/conv2d_direct --json --progress --timeout 200 > $OUT/conv-kb-device.json 2> $OUT/conv-kb-device.err; grep -E "case|Elapsed|Maximum resident" $OUT/conv-kb-device.err | tail -12
el verify-conv-host; KAUDIT_DEVICE_REFERENCES=0 /usr/bin/time -v timeout 150 $K verify --backend cuda --preset kernelbench --kernel conv2d/conv2d_direct --json --progress --timeout 200 > $OUT/conv-kb-host.json 2> $OUT/conv-kb-host.err; grep -E "case|Elapsed|Maximum resident" $OUT/conv-kb-host.err | tail -12
el check-v0; for m in device host; do
  if [ $m = host ]; then export KAUDIT_DEVICE_REFERENCES=0; fi
  timeout 100 $K check --backend cuda --oracle kernelbench --oracle kernelbench-v0.1 --preset kernelbench-v0 --kernel conv2d/conv2d_direct --kernel conv2d_strided/conv2d_strided_gridstride > $OUT/check-v0-$m.txt 2>&1; tail -8 $OUT/check-v0-$m.txt
done; unset KAUDIT_DEVICE_REFERENCES
el verify-relu-dev; /usr/bin/time -v timeout 120 $K verify --backend cuda --preset kernelbench --kernel relu/relu_gridstride --json --progress --timeout 200 > $OUT/relu-kb-device.json 2> $OUT/relu-kb-device.err; grep -E "case|Elapsed|Maximum resident" $OUT/relu-kb-device.err | tail -12
el done
