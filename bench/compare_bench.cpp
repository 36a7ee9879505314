// The comparators on a native-shape output (rmsnorm at kernelbench-v0: 16 x 64 x 256 x 256 floats,
// 268 MB): an audit compares every run's output with the witness tolerance and each oracle's, so
// at native shapes this is most of the host's work (docs/calibration/h200-2026-12-03-v0d). Each
// benchmark runs on one thread (Arg 1: as an audit's runner thread on a busy machine) or on all
// (Arg 0). "DoubleCopies" is the element pass as it was before oracle/compare.cpp split it into
// chunks (tests/oracle/serial_compare.h): the before of the comparison. Also make_inputs for one
// input of that shape. Run: `build/bench/compare_bench --benchmark_out=F --benchmark_out_format=json`.
#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <benchmark/benchmark.h>

#include <optional>

#include "common/parallel.h"

#include "oracle/compare.h"
#include "oracle/recipes.h"
#include "tests/oracle/serial_compare.h"

namespace {

constexpr int64_t kElements = int64_t(16) * 64 * 256 * 256;

struct Pair {
  at::Tensor out, ref64;
};
const Pair& pair() {
  static const Pair p = [] {
    at::manual_seed(3);
    at::Tensor ref = at::randn({kElements}, at::kDouble);
    return Pair{(ref + 1e-6 * at::randn({kElements}, at::kDouble)).to(at::kFloat), ref};
  }();
  return p;
}

// The comparators and make_inputs run on kaudit's pool (oracle/host_loop.h); the serial loops of
// before on ATen's (its element passes). Both are held to one thread for Arg 1.
struct Threads {
  explicit Threads(const benchmark::State& state) {
    if (state.range(0) == 1) limit.emplace(1);
    at::set_num_threads(state.range(0) == 1 ? 1 : all);
  }
  ~Threads() { at::set_num_threads(all); }
  static inline const int all = at::get_num_threads();
  std::optional<kaudit::parallel::Limit> limit;
};

void BM_CompareAllclose(benchmark::State& state) {
  const Threads threads(state);
  const at::Tensor ref32 = pair().ref64.to(at::kFloat);
  for (auto _ : state) benchmark::DoNotOptimize(kaudit::oracle::compare_allclose(pair().out, ref32, 1e-2, 1e-2));
  state.SetItemsProcessed(state.iterations() * kElements);
}
void BM_CompareAllcloseDoubleCopies(benchmark::State& state) {
  const Threads threads(state);
  const at::Tensor ref32 = pair().ref64.to(at::kFloat);
  for (auto _ : state) benchmark::DoNotOptimize(kaudit::test::serial_allclose(pair().out, ref32, 1e-2, 1e-2, false));
  state.SetItemsProcessed(state.iterations() * kElements);
}
void BM_CompareGate(benchmark::State& state) {
  const Threads threads(state);
  for (auto _ : state) benchmark::DoNotOptimize(kaudit::oracle::compare_gate(pair().out, pair().ref64, 1e-4, 1e-5));
  state.SetItemsProcessed(state.iterations() * kElements);
}
void BM_CompareGateDoubleCopies(benchmark::State& state) {
  const Threads threads(state);
  for (auto _ : state) benchmark::DoNotOptimize(kaudit::test::serial_gate(pair().out, pair().ref64, 1e-4, 1e-5));
  state.SetItemsProcessed(state.iterations() * kElements);
}
BENCHMARK(BM_CompareAllclose)->Arg(1)->Arg(0)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_CompareAllcloseDoubleCopies)->Arg(1)->Arg(0)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_CompareGate)->Arg(1)->Arg(0)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_CompareGateDoubleCopies)->Arg(1)->Arg(0)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_MakeInputs(benchmark::State& state) {
  const Threads threads(state);
  kaudit::corpus::Task task;
  task.name = "bench";
  kaudit::corpus::InputSpec in;
  in.name = "x";
  in.dtype = "float32";
  in.shape = {std::string("N")};
  task.inputs.push_back(in);
  kaudit::oracle::Recipe recipe;
  recipe.distribution = kaudit::oracle::Distribution::Normal;
  for (auto _ : state) benchmark::DoNotOptimize(kaudit::oracle::make_inputs(task, recipe, {{"N", kElements}}));
  state.SetItemsProcessed(state.iterations() * kElements);
}
BENCHMARK(BM_MakeInputs)->Arg(1)->Arg(0)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
