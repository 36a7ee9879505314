#!/usr/bin/env bash
# GPU audits of a mutant set, one audit per task, so that a run cut off by a time limit (a device
# call) still leaves the tasks it finished. Usage (on the GPU machine, after tools/gpu/setup.sh):
#   LIMIT=SECONDS PARALLEL=N tools/gpu/audit-by-task.sh SET OUT [TASK or TASK/KERNEL...]
# SET: `kaudit mutate --out SET` made on a CPU machine; OUT/<task>/ gets each task's audit folder
# and OUT/<task>.err its progress (TASK/KERNEL: one kernel, in OUT/TASK-KERNEL). Default tasks: every task of the set. LIMIT (default 3600) bounds
# the whole loop. PARALLEL (default 1) tasks are audited at once, each with its share of the cores
# (--jobs) and of the GPU's memory (--gpu-memory-share 0.9/PARALLEL), so one task's nvcc builds
# and legality runs overlap another's mutant runs. The audits
# share one cache (KAUDIT_CACHE, default OUT/cache; its entries are sealed files, safe to share).
# Each audit keeps its task's pool (inputs, references, recorded reference allocations) in up to
# half the host's memory / PARALLEL (--pool-memory-gb), the rest in unlinked files in the cache's
# folder: at kernelbench-v0, conv2d's, rmsnorm's and layernorm's pools are tens of GB each
# (docs/calibration/h200-2026-12-03-v0b), so give those PARALLEL=1 or a cache on a large disk.
# The requests in flight to its workers hold up to a quarter of the host's memory / PARALLEL
# (--run-memory-gb); a run waits for room.
# AUDIT_ARGS: more `kaudit audit` flags for every task, e.g. AUDIT_ARGS="--preset kernelbench-v0".
set -uo pipefail
cd "$(dirname "$0")/../.."
set_dir=$1 out=$2
shift 2
start=$(date +%s)
parallel=${PARALLEL:-1}
jobs=$(( $(nproc) / parallel ))
share=$(python3 -c "print(round(0.9 / $parallel, 4))")
# The host's memory: HOST_MEMORY_GB where MemTotal understates it (a machine whose memory grows
# as it is used: the device tool's KINDS.md), else MemTotal.
host_gb=${HOST_MEMORY_GB:-$(python3 -c "import os; print(os.sysconf('SC_PHYS_PAGES') * os.sysconf('SC_PAGE_SIZE') / 2**30)")}
pool_gb=$(python3 -c "print(round($host_gb / 2 / $parallel, 1))")
run_gb=$(python3 -c "print(round($host_gb / 4 / $parallel, 1))")
((jobs < 1)) && jobs=1
tasks=("$@")
((${#tasks[@]})) || mapfile -t tasks < <(python3 -c "import json,sys
print('\n'.join(sorted({json.loads(l)['kernel'].split('/')[0] for l in open(sys.argv[1])})))" "$set_dir/kernels.jsonl")
mkdir -p "$out"
export KAUDIT_CACHE=${KAUDIT_CACHE:-$out/cache}
audit_task() {
  local t=$1 left=$2 name=${1//\//-}
  local kernels
  kernels=$(python3 -c "import json,sys
print(' '.join('--kernel ' + json.loads(l)['kernel'] for l in open(sys.argv[1]) if json.loads(l)['kernel'] == sys.argv[2] or json.loads(l)['kernel'].startswith(sys.argv[2] + '/')))" "$set_dir/kernels.jsonl" "$t")
  # shellcheck disable=SC2086
  timeout "$left" build-gpu/tools/kaudit audit --backend cuda --mutants "$set_dir" $kernels --jobs "$jobs" \
    --gpu-memory-share "$share" --pool-memory-gb "$pool_gb" --run-memory-gb "$run_gb" ${AUDIT_ARGS:-} \
    --out "$out/$name" >"$out/$name.txt" 2>"$out/$name.err"
  echo "$t: exit $? after $(( $(date +%s) - start )) s"
  grep "done:\|exception" "$out/$name.err"
}
for t in "${tasks[@]}"; do
  while (( $(jobs -rp | wc -l) >= parallel )); do wait -n; done
  left=$(( ${LIMIT:-3600} - ($(date +%s) - start) ))
  ((left < 30)) && break
  audit_task "$t" "$left" &
done
wait
