#!/usr/bin/env bash
# Builds kaudit's libFuzzer harnesses (tests/fuzz/) with clang 19, AddressSanitizer and
# UndefinedBehaviorSanitizer, in build-fuzz/, and runs each on seeds made from the repository's
# own specs, tasks and bindings. Usage: tools/fuzz.sh [RUNS_PER_HARNESS] (default 20000).
# Exit 0 when no harness found anything; a finding stops with the input that caused it saved in
# build-fuzz/findings/. Needs clang-19 and libclang-rt-19-dev (tools/setup.sh installs them).
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-20000}
build=${KAUDIT_FUZZ_BUILD:-build-fuzz}
flags="-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined"
mkdir -p "$build"
cmake -S . -B "$build" -G Ninja -DCMAKE_C_COMPILER=clang-19 -DCMAKE_CXX_COMPILER=clang++-19 \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS="$flags" -DKAUDIT_BUILD_TESTS=OFF \
  -DKAUDIT_BUILD_BENCHMARKS=OFF -DKAUDIT_BUILD_FUZZERS=ON -DKAUDIT_WITH_CLANG=OFF > "$build/configure.log" ||
  { cat "$build/configure.log"; exit 1; }
harnesses=(spec task binding record killmatrix)
cmake --build "$build" --target "${harnesses[@]/%/_fuzz}" -- -j"${KAUDIT_JOBS:-2}"
seeds="$build/seeds"
rm -rf "$seeds"
mkdir -p "$seeds"/{spec,task,binding,record,killmatrix} "$build/findings"
cp suites/*.json "$seeds/spec/"
for t in corpus/tasks/*/task.json; do cp "$t" "$seeds/task/$(basename "$(dirname "$t")").json"; done
for k in corpus/kernels/*/*.json; do cp "$k" "$seeds/binding/$(basename "$k")"; done
printf 'kaudit-sha256 %s\n{"false_kills":[]}' "$(printf '{"false_kills":[]}' | sha256sum | cut -c1-64)" > "$seeds/record/good"
printf '{"false_kills":[]}' > "$seeds/record/no-digest"
# An audit folder in one input: summary.json, a NUL byte, kill-matrix.jsonl.
{
  printf '{"oracles":[{"oracle":"kernelbench","false_kill_list":[{"member":"m","task":"t","trial":"x","detail":"d"}]}]}\0'
  printf '{"id":"a1","kernel":"relu/relu_float4","rule":"r","family":"arithmetic","ran":true,"witnessed":true,"killed_by":{"kernelbench":true}}\n'
  printf '{"id":"a2","kernel":"relu/relu_float4","rule":"r","family":"reward-hack","ran":true,"witnessed":false,"killed_by":{"kernelbench":false}}\n'
} > "$seeds/killmatrix/audit"
printf '{"oracles":[{"oracle":"a"},{"oracle":"b"}]}\0{"ran":false}\n' > "$seeds/killmatrix/two-oracles"
# LeakSanitizer is off: libtorch keeps allocations until exit by design.
export ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1
total=0
for h in "${harnesses[@]}"; do
  echo "== $h: $runs runs"
  "$build/tests/fuzz/${h}_fuzz" -runs="$runs" -max_len=16384 -timeout=10 -rss_limit_mb=4096 \
    -artifact_prefix="$build/findings/$h-" -print_final_stats=1 "$seeds/$h" 2> "$build/$h.log" ||
    { tail -40 "$build/$h.log"; echo "kaudit fuzz: $h found a problem (input saved in $build/findings/)"; exit 1; }
  grep -E "stat::number_of_executed_units|Done" "$build/$h.log" | tail -2
  total=$((total + $(grep -oP 'stat::number_of_executed_units: *\K[0-9]+' "$build/$h.log" || echo 0)))
done
echo "kaudit fuzz: $total executions, no finding"
