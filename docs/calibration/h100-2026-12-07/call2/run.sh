#!/usr/bin/env bash
start=$(date +%s)
el() { echo $(( $(date +%s) - start )); }
( time bash tools/gpu/setup.sh build-gpu kaudit gpu_tests ) > $OUT/build.log 2>&1
echo "build rc=$? at $(el) s" | tee -a $OUT/summary.txt
nvidia-smi --query-gpu=name,driver_version --format=csv >> $OUT/summary.txt
timeout 240 build-gpu/tests/runtime/gpu_tests --gtest_filter='Gpu.EveryHostIdiom*:Gpu.TheWrapper*:Gpu.ASecondCall*:Gpu.ReferencesRun*' > $OUT/gpu_tests_sel.log 2>&1
echo "gpu_tests sel rc=$? at $(el) s" | tee -a $OUT/summary.txt
( time timeout 230 python3 tools/gpu/calibrate.py run gpu-in/bundle /tmp/cal --reps 3 --jobs 16 --timeout 10 --deadline 170 --build-dir /tmp/builds --fresh-process ) > $OUT/calibrate.log 2>&1
echo "calibrate rc=$? at $(el) s" | tee -a $OUT/summary.txt
(cd /tmp/cal && tar czf $OUT/cal.tgz .)
left=$(( 575 - $(el) ))
if [ $left -gt 60 ]; then timeout $left build-gpu/tests/runtime/gpu_tests --gtest_filter='-Gpu.EveryHostIdiom*:Gpu.TheWrapper*:Gpu.ASecondCall*:Gpu.ReferencesRun*' > $OUT/gpu_tests_rest.log 2>&1; echo "gpu_tests rest rc=$? at $(el) s" | tee -a $OUT/summary.txt; fi
