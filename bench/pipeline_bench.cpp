// Speed of the mutation pipeline and the audit on the built-in corpus (issue 3 item 7, issue 4
// item 6). Writes Google Benchmark JSON; no test asserts on time.
//
//   BM_GenerateMutants   every rule over every corpus kernel (Clang parse + matchers), in process:
//                        counter mutants_per_second
//   BM_MutateCold        `kaudit mutate` with an empty cache (NVRTC compiles everything): seconds
//   BM_MutateWarm        the same command again on that cache: seconds, warm_over_cold
//                        (target: at most 0.10)
//   BM_SchemaBuild/<id>  CPU schemata (runtime/cpu/schema.h) holding every mutant of one corpus
//                        kernel, empty build cache (the precompiled prelude made beforehand, as
//                        one audit makes it once): seconds (target: 5 per kernel); counters say
//                        how many mutants a schema could not hold (built one by one);
//                        KAUDIT_NO_PCH=1 measures without the precompiled prelude
//   BM_AuditCold         `kaudit audit` on the whole corpus, empty cache: seconds (target: 1200)
//   BM_AuditWarm         the same again on that cache: seconds (target: 120); the cache is removed
//                        unless KAUDIT_BENCH_KEEP_CACHE=1
// The audit pair is slow (it is the whole main job); `cmake --build build --target bench` skips
// it, `--target bench-audit` runs it.
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <unistd.h>
#include <vector>

#include "common/process.h"
#include "corpus/corpus.h"
#include "mutators/mutators.h"
#include "mutators/pipeline/pipeline.h"
#include "runtime/cpu/compile.h"
#include "runtime/cpu/schema.h"

namespace {

namespace fs = std::filesystem;

const kaudit::corpus::Corpus& corpus() {
  static const kaudit::corpus::Corpus c = kaudit::corpus::load_corpus(KAUDIT_CORPUS_DIR).corpus;
  return c;
}

std::vector<kaudit::mutators::KernelSourceInfo> sources() {
  std::vector<kaudit::mutators::KernelSourceInfo> out;
  for (const auto& k : corpus().kernels) out.push_back({k.id(), k.file, k.source});
  return out;
}

fs::path fresh_dir(const std::string& name) {
  const fs::path p = fs::path(KAUDIT_BENCH_CACHE) / (name + "-" + std::to_string(::getpid()));
  fs::remove_all(p);
  fs::create_directories(p);
  return p;
}

// Runs the kaudit CLI; returns wall seconds, or -1 (and skips) on failure.
double run_kaudit(benchmark::State& state, std::vector<std::string> args) {
  args.insert(args.begin(), KAUDIT_EXE);
  const auto t0 = std::chrono::steady_clock::now();
  const auto r = kaudit::run_process(args, 4 * 3600);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (r.exit_code != 0 && r.exit_code != 1) {  // 1: something was skipped, still measured
    state.SkipWithError(("kaudit failed: " + r.err.substr(0, 500)).c_str());
    return -1;
  }
  return s;
}

void BM_GenerateMutants(benchmark::State& state) {
  const auto kernels = sources();
  std::size_t mutants = 0;
  for (auto _ : state) {
    const auto run = kaudit::mutators::generate_mutants(kernels);
    mutants = run.mutants.size();
    benchmark::DoNotOptimize(mutants);
  }
  state.counters["mutants"] = static_cast<double>(mutants);
  state.counters["mutants_per_second"] =
      benchmark::Counter(static_cast<double>(mutants) * static_cast<double>(state.iterations()),
                         benchmark::Counter::kIsRate);
}
BENCHMARK(BM_GenerateMutants)->Unit(benchmark::kMillisecond)->Iterations(3);

double g_mutate_cold = 0;
fs::path g_mutate_cache;

void BM_MutateCold(benchmark::State& state) {
  for (auto _ : state) {
    g_mutate_cache = fresh_dir("mutate");
    const double s = run_kaudit(state, {"mutate", KAUDIT_CORPUS_DIR, "--cache", g_mutate_cache.string(), "--out",
                                        (g_mutate_cache / "out").string(), "--json"});
    if (s < 0) return;
    g_mutate_cold = s;
    state.SetIterationTime(s);
  }
  state.counters["seconds"] = g_mutate_cold;
}
BENCHMARK(BM_MutateCold)->Iterations(1)->UseManualTime()->Unit(benchmark::kSecond);

void BM_MutateWarm(benchmark::State& state) {
  if (g_mutate_cold <= 0) {
    state.SkipWithError("needs BM_MutateCold first");
    return;
  }
  double s = 0;
  for (auto _ : state) {
    s = run_kaudit(state, {"mutate", KAUDIT_CORPUS_DIR, "--cache", g_mutate_cache.string(), "--out",
                           (g_mutate_cache / "out").string(), "--json"});
    if (s < 0) return;
    state.SetIterationTime(s);
  }
  state.counters["seconds"] = s;
  state.counters["warm_over_cold"] = s / g_mutate_cold;
  fs::remove_all(g_mutate_cache);
}
BENCHMARK(BM_MutateWarm)->Iterations(1)->UseManualTime()->Unit(benchmark::kSecond);

void BM_SchemaBuild(benchmark::State& state, const std::string& id) {
  const auto* found = corpus().find_kernel(id);
  if (!found) {
    state.SkipWithError(("no corpus kernel " + id).c_str());
    return;
  }
  const auto& k = *found;
  const auto mutants = kaudit::mutators::generate_mutants(
      kaudit::mutators::KernelSourceInfo{k.id(), k.file, k.source});
  std::vector<kaudit::cpu::SchemaEdit> edits;
  for (const auto& m : mutants) {
    auto e = kaudit::mutators::switchable_edit(k.source, m.site);  // as the audit builds them
    edits.push_back({e.begin, e.end, std::move(e.replacement)});
  }
  std::size_t standalone = 0, schemata = 0;
  for (auto _ : state) {
    const fs::path cache = fresh_dir("schema");
    const kaudit::cpu::CpuCompiler compiler(cache);
    // The precompiled prelude is made once per cache (one audit shares it over every kernel): make
    // it before the clock starts, with a build of the unmutated kernel that the schemata never reuse.
    compiler.build(k.source + "\n// warm-up\n", k.file, k.entry);
    const auto t0 = std::chrono::steady_clock::now();
    const auto plan = kaudit::cpu::build_schemata(compiler, k.source, k.file, k.entry, edits);
    state.SetIterationTime(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    standalone = plan.standalone.size();
    schemata = plan.schemata.size();
    fs::remove_all(cache);
  }
  state.counters["mutants"] = static_cast<double>(edits.size());
  state.counters["schemata"] = static_cast<double>(schemata);
  state.counters["standalone"] = static_cast<double>(standalone);  // built one by one by the audit
}

double g_audit_cold = 0;
fs::path g_audit_cache;

void BM_AuditCold(benchmark::State& state) {
  for (auto _ : state) {
    g_audit_cache = fresh_dir("audit");
    // The reports stay next to the benchmark JSON (the cache is removed afterwards).
    const double s = run_kaudit(state, {"audit", "--corpus", KAUDIT_CORPUS_DIR, "--cache", g_audit_cache.string(),
                                        "--out", KAUDIT_BENCH_RESULTS "/audit-cold-out", "--json"});
    if (s < 0) return;
    g_audit_cold = s;
    state.SetIterationTime(s);
  }
  state.counters["seconds"] = g_audit_cold;
}
BENCHMARK(BM_AuditCold)->Iterations(1)->UseManualTime()->Unit(benchmark::kSecond);

void BM_AuditWarm(benchmark::State& state) {
  if (g_audit_cold <= 0) {
    state.SkipWithError("needs BM_AuditCold first");
    return;
  }
  double s = 0;
  for (auto _ : state) {
    s = run_kaudit(state, {"audit", "--corpus", KAUDIT_CORPUS_DIR, "--cache", g_audit_cache.string(), "--out",
                           KAUDIT_BENCH_RESULTS "/audit-warm-out", "--json"});
    if (s < 0) return;
    state.SetIterationTime(s);
  }
  state.counters["seconds"] = s;
  state.counters["warm_over_cold"] = s / g_audit_cold;
  // KAUDIT_BENCH_KEEP_CACHE=1 keeps the audit's cache (its path is in the label), so that `kaudit
  // cover` can complete the same kill matrix instead of recomputing it.
  const char* keep = std::getenv("KAUDIT_BENCH_KEEP_CACHE");
  if (keep && std::string(keep) == "1") state.SetLabel("cache kept: " + g_audit_cache.string());
  else fs::remove_all(g_audit_cache);
}
BENCHMARK(BM_AuditWarm)->Iterations(1)->UseManualTime()->Unit(benchmark::kSecond);

}  // namespace

int main(int argc, char** argv) {
  // A small kernel, a reduction and the largest one.
  for (const char* id : {"relu/relu_float4", "softmax/softmax_block_smem", "matmul/matmul_regtile"}) {
    benchmark::RegisterBenchmark((std::string("BM_SchemaBuild/") + id).c_str(), BM_SchemaBuild, std::string(id))
        ->Iterations(1)
        ->UseManualTime()
        ->Unit(benchmark::kSecond);
  }
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
