#!/usr/bin/env bash
# GPU audits of a mutant set, one task at a time, so that a run cut off by a time limit (a device
# call) still leaves the tasks it finished. Usage (on the GPU machine, after tools/gpu/setup.sh):
#   LIMIT=SECONDS tools/gpu/audit-by-task.sh SET OUT [TASK...]
# SET: `kaudit mutate --out SET` made on a CPU machine; OUT/<task>/ gets each task's audit folder
# and OUT/<task>.err its progress. Default tasks: every task of the set. LIMIT (default 3600) bounds
# the whole loop. The audits share one cache (KAUDIT_CACHE, default OUT/cache).
set -uo pipefail
cd "$(dirname "$0")/../.."
set_dir=$1 out=$2
shift 2
start=$(date +%s)
tasks=("$@")
((${#tasks[@]})) || mapfile -t tasks < <(python3 -c "import json,sys
print('\n'.join(sorted({json.loads(l)['kernel'].split('/')[0] for l in open(sys.argv[1])})))" "$set_dir/kernels.jsonl")
mkdir -p "$out"
export KAUDIT_CACHE=${KAUDIT_CACHE:-$out/cache}
for t in "${tasks[@]}"; do
  left=$(( ${LIMIT:-3600} - ($(date +%s) - start) ))
  ((left < 30)) && break
  kernels=$(python3 -c "import json,sys
print(' '.join('--kernel ' + json.loads(l)['kernel'] for l in open(sys.argv[1]) if json.loads(l)['kernel'].startswith(sys.argv[2] + '/')))" "$set_dir/kernels.jsonl" "$t")
  # shellcheck disable=SC2086
  timeout "$left" build-gpu/tools/kaudit audit --backend cuda --mutants "$set_dir" $kernels --out "$out/$t" \
    >"$out/$t.txt" 2>"$out/$t.err"
  echo "$t: exit $? after $(( $(date +%s) - start )) s"
  grep "done:" "$out/$t.err"
done
