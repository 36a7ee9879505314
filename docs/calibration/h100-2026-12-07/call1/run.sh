#!/usr/bin/env bash
# one device call: build, GPU tests, CUDA audit of the small launch-count set
start=$(date +%s)
( time bash tools/gpu/setup.sh build-gpu kaudit gpu_tests ) > $OUT/build.log 2>&1
echo "build rc=$? at $(( $(date +%s) - start )) s" | tee -a $OUT/summary.txt
nvidia-smi --query-gpu=name,driver_version --format=csv >> $OUT/summary.txt
timeout 200 build-gpu/tests/runtime/gpu_tests --gtest_filter='Gpu.TheWrapper*:Gpu.LibraryCompute*:Gpu.ASecondCall*:Gpu.ACorrectKernel*:Gpu.ReferencesRun*' > $OUT/gpu_tests_sel.log 2>&1
echo "gpu_tests sel rc=$? at $(( $(date +%s) - start )) s" | tee -a $OUT/summary.txt
( time timeout 200 build-gpu/tools/kaudit audit --backend cuda --mutants gpu-in/set --oracle kernelbench --oracle examples/oracles/gym_v9_gates.json --cache /tmp/kc --out /tmp/aud ) > $OUT/audit_cuda.log 2>&1
echo "audit rc=$? at $(( $(date +%s) - start )) s" | tee -a $OUT/summary.txt
left=$(( 570 - ($(date +%s) - start) ))
if [ $left -gt 60 ]; then timeout $left build-gpu/tests/runtime/gpu_tests > $OUT/gpu_tests_all.log 2>&1; echo "gpu_tests all rc=$? at $(( $(date +%s) - start )) s" | tee -a $OUT/summary.txt; fi
cp /tmp/aud/summary.json /tmp/aud/report.md /tmp/aud/kill-matrix.jsonl $OUT/ 2>/dev/null; ls /tmp/aud >> $OUT/summary.txt 2>&1
