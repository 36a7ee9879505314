#!/usr/bin/env bash
# Issue 19: the 33 mutants oracle mode's guard below the first segment newly kills, on the GPU in
# fresh processes and in long-lived workers (docs/calibration/h200-2026-12-04b/README.md).
cd "$(dirname "$0")/../../../.."  # the repository root
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
el fresh; timeout 210 python3 tools/gpu/calibrate.py run ${GUARD_BUNDLE:-gpu-in/guard} $OUT/fresh --reps 5 --jobs 16 --timeout 10 --deadline 150 --build-dir $OUT/builds --fresh-process > $OUT/fresh.log 2>&1; tail -5 $OUT/fresh.log
el workers; timeout 150 python3 tools/gpu/calibrate.py run ${GUARD_BUNDLE:-gpu-in/guard} $OUT/workers --reps 5 --jobs 16 --timeout 10 --deadline 100 --build-dir $OUT/builds > $OUT/workers.log 2>&1; tail -5 $OUT/workers.log
rm -rf $OUT/builds
el done
