#!/bin/bash
# Device call: the CUDA backend on tasks with a constant forward argument (import study's
# 5_Matrix_scalar_multiplication, 93_masked_cumsum), then the GPU test suite.
set -x
cd "$(dirname "$0")/.."
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/device.txt 2>&1
( time bash tools/gpu/setup.sh build-gpu kaudit gpu_tests ) > $OUT/build.log 2>&1 || { tail -50 $OUT/build.log; exit 1; }
K=build-gpu/tools/kaudit
( time $K verify gpu-in/kb4 --backend cuda --json ) > $OUT/verify-small.json 2> $OUT/verify-small.err
( time $K verify gpu-in/kb4 --backend cuda --preset kernelbench --kernel matrix_scalar_multiplication/5_matrix_scalar_multiplication_gpt_4o_1 --kernel matrix_scalar_multiplication/5_matrix_scalar_multiplication_gemini_1_5_flash_1 --kernel masked_cumsum/93_masked_cumsum_llama_3_1_405b_1 --json ) > $OUT/verify-kb.json 2> $OUT/verify-kb.err
( time build-gpu/tests/runtime/gpu_tests ) > $OUT/gpu_tests.log 2>&1
tail -5 $OUT/verify-small.err $OUT/verify-kb.err; tail -3 $OUT/gpu_tests.log
