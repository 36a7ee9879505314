// NVRTC cost per kernel compile (mutators/compile/nvrtc.h), on the built-in corpus.
//
//   BM_NvrtcColdCompile/<i>     one corpus kernel, cache disabled: milliseconds per compile of it
//   BM_NvrtcColdCorpusSerial    every corpus kernel in turn, one thread, cache disabled
//   BM_NvrtcColdCorpusParallel  compile_all over the corpus (TBB, all cores), cache disabled:
//                               wall milliseconds per kernel -- the figure to set against the
//                               reference study's 84 ms per mutant (FACTS.md section 1)
//   BM_NvrtcWarmCacheHit        a cached compile (what a re-run of `kaudit mutate` pays)
//
// Counters: ms_per_compile (wall milliseconds per kernel compile), compiles_per_second.
// Without NVRTC every benchmark is skipped with a message.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <system_error>
#include <unistd.h>
#include <vector>

#include "mutators/compile/nvrtc.h"
#include "common/files.h"

#ifndef KAUDIT_CORPUS_DIR
#define KAUDIT_CORPUS_DIR "corpus"
#endif

namespace {

using kaudit::mutators::CompileResult;
using kaudit::mutators::NvrtcCompiler;

struct CorpusKernel {
  std::string name;  // "<task>/<file>"
  std::string source;
};

const std::vector<CorpusKernel>& corpus() {
  static const std::vector<CorpusKernel> kernels = [] {
    std::vector<CorpusKernel> out;
    std::error_code ec;
    const std::filesystem::path root = std::filesystem::path(KAUDIT_CORPUS_DIR) / "kernels";
    for (auto it = std::filesystem::recursive_directory_iterator(root, ec);
         !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
      if (it->path().extension() != ".cu") continue;
      out.push_back({it->path().parent_path().filename().string() + "/" + it->path().filename().string(),
                     kaudit::read_file(it->path()).value_or(std::string())});
    }
    std::sort(out.begin(), out.end(),
              [](const CorpusKernel& a, const CorpusKernel& b) { return a.name < b.name; });
    return out;
  }();
  return kernels;
}

const NvrtcCompiler& cold_compiler() {
  static const NvrtcCompiler compiler{std::filesystem::path{}};  // empty path: no cache
  return compiler;
}

bool ready(benchmark::State& state, const NvrtcCompiler& compiler) {
  if (!compiler.available()) {
    state.SkipWithError("NVRTC unavailable (built without the CUDA toolkit)");
    return false;
  }
  if (corpus().empty()) {
    state.SkipWithError("no corpus kernels under " KAUDIT_CORPUS_DIR "/kernels");
    return false;
  }
  return true;
}

void set_counters(benchmark::State& state, double total_ms, double compiles) {
  if (compiles <= 0) return;
  state.counters["ms_per_compile"] = benchmark::Counter(total_ms / compiles);
  state.counters["compiles_per_second"] = benchmark::Counter(1000.0 * compiles / total_ms);
}

void BM_NvrtcColdCompile(benchmark::State& state) {
  const NvrtcCompiler& nvrtc = cold_compiler();
  if (!ready(state, nvrtc)) return;
  const CorpusKernel& k = corpus()[static_cast<size_t>(state.range(0)) % corpus().size()];
  state.SetLabel(k.name);
  nvrtc.compile(k.source, k.name);  // NVRTC's one-time initialisation is not a compile
  double total_ms = 0;
  for (auto _ : state) {
    const auto t0 = std::chrono::steady_clock::now();
    CompileResult r = nvrtc.compile(k.source, k.name);
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    if (!r.ok()) {
      state.SkipWithError(("compile failed: " + r.first_diagnostic).c_str());
      return;
    }
    state.SetIterationTime(ms / 1000.0);
    total_ms += ms;
  }
  set_counters(state, total_ms, static_cast<double>(state.iterations()));
}
BENCHMARK(BM_NvrtcColdCompile)
    ->DenseRange(0, 32, 8)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);

void BM_NvrtcColdCorpusSerial(benchmark::State& state) {
  const NvrtcCompiler& nvrtc = cold_compiler();
  if (!ready(state, nvrtc)) return;
  nvrtc.compile(corpus()[0].source, corpus()[0].name);
  double total_ms = 0, compiles = 0;
  for (auto _ : state) {
    const auto t0 = std::chrono::steady_clock::now();
    for (const CorpusKernel& k : corpus())
      benchmark::DoNotOptimize(nvrtc.compile(k.source, k.name));
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    state.SetIterationTime(ms / 1000.0);
    total_ms += ms;
    compiles += static_cast<double>(corpus().size());
  }
  set_counters(state, total_ms, compiles);
  state.SetLabel(std::to_string(corpus().size()) + " kernels, 1 thread");
}
BENCHMARK(BM_NvrtcColdCorpusSerial)->Iterations(1)->UseManualTime()->Unit(benchmark::kMillisecond);

void BM_NvrtcColdCorpusParallel(benchmark::State& state) {
  const NvrtcCompiler& nvrtc = cold_compiler();
  if (!ready(state, nvrtc)) return;
  std::vector<std::string> sources;
  for (const CorpusKernel& k : corpus()) sources.push_back(k.source);
  nvrtc.compile(sources[0], "warmup.cu");
  double total_ms = 0, compiles = 0;
  for (auto _ : state) {
    const auto t0 = std::chrono::steady_clock::now();
    benchmark::DoNotOptimize(kaudit::mutators::compile_all(nvrtc, sources, "kernel.cu"));
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    state.SetIterationTime(ms / 1000.0);
    total_ms += ms;
    compiles += static_cast<double>(sources.size());
  }
  set_counters(state, total_ms, compiles);
  state.SetLabel(std::to_string(sources.size()) + " kernels, compile_all");
}
BENCHMARK(BM_NvrtcColdCorpusParallel)
    ->Iterations(1)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);

void BM_NvrtcWarmCacheHit(benchmark::State& state) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("kaudit-nvrtc-bench-" + std::to_string(::getpid()));
  {
    const NvrtcCompiler nvrtc(dir);
    if (!ready(state, nvrtc)) return;
    const CorpusKernel& k = corpus()[0];
    nvrtc.compile(k.source, k.name);  // fills the cache
    double total_ms = 0;
    for (auto _ : state) {
      const auto t0 = std::chrono::steady_clock::now();
      CompileResult r = nvrtc.compile(k.source, k.name);
      const double ms =
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
      if (!r.cache_hit) {
        state.SkipWithError("expected a cache hit");
        break;
      }
      state.SetIterationTime(ms / 1000.0);
      total_ms += ms;
    }
    set_counters(state, total_ms, static_cast<double>(state.iterations()));
    state.SetLabel(k.name);
  }
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
}
BENCHMARK(BM_NvrtcWarmCacheHit)->UseManualTime()->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
