#!/usr/bin/env bash
# As run on the GPU machine on 2026-12-06 (docs/calibration/solutions-2026-12-06/README.md says how gpu-carry/ was made).
# GPU call 1: CUDA audit of linear_relu at kernelbench-v0 (= its problem.py's shapes), then a
# KernelBench-style harness (tools/gpu/kernelbench_eval.py) on the exported solution files of
# every audited mutant, scored as oracles on that run.
set -u
OUT=${OUT:-/tmp/out}
K="--kernel linear_relu/linear_relu_tiled --kernel linear_relu/linear_relu_naive"
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/gpu.txt
t0=$(date +%s)
tools/gpu/setup.sh build-gpu kaudit > $OUT/build.log 2>&1 || { tail -40 $OUT/build.log; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"
# Warm the solution builds (load_inline, one per file), several at once.
t0=$(date +%s)
ls gpu-carry/sol/solutions/*.py | MAX_JOBS=2 xargs -P 16 -I{} sh -c 'python3 -c "import runpy,sys; runpy.run_path(sys.argv[1])" {} > /dev/null 2>> '$OUT'/prebuild.err || echo "prebuild failed: {}"'
echo "prebuild $(( $(date +%s) - t0 )) s"
t0=$(date +%s)
timeout 170 build-gpu/tools/kaudit audit --backend cuda --mutants gpu-carry/set --preset kernelbench-v0 $K \
  --oracle kernelbench --oracle kernelbench-v0.1 --out $OUT/cuda-run > $OUT/cuda-audit.txt 2>&1; echo "cuda audit rc=$? $(( $(date +%s) - t0 )) s"
head -14 $OUT/cuda-run/report.md
for P in head v0.1; do
  t0=$(date +%s)
  IN=$OUT/cuda-run; [ "$P" = v0.1 ] && IN=$OUT/scored-head
  timeout 170 build-gpu/tools/kaudit audit --from $IN --solutions gpu-carry/sol \
    --oracle-command "python3 tools/gpu/kernelbench_eval.py {solution} {problem} --protocol $P" \
    --oracle-name harness-$P --jobs 14 --command-timeout 120 --out $OUT/scored-$P > $OUT/scored-$P.txt 2>&1
  echo "harness $P rc=$? $(( $(date +%s) - t0 )) s"; tail -3 $OUT/scored-$P.txt
done
head -14 $OUT/scored-v0.1/report.md
cd $OUT && tar czf results.tgz cuda-run scored-head scored-v0.1 && rm -rf cuda-run scored-head scored-v0.1
