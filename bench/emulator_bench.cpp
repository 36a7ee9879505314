// Emulator cost per CUDA thread, run in-process on the CPU backend (no worker round trip).
// Targets (docs/ARCHITECTURE.md): <= 5 ns per thread for a barrier-free elementwise kernel and
// <= 60 ns per thread per barrier region for a shared-memory reduction, on a 2-core machine; a
// warp-shuffle reduction is measured per thread per warp collective against the same 60 ns.
// Counters: ns_per_thread, ns_per_thread_region, and target_ns for the reader's comparison.
#include <ATen/ATen.h>
#include <benchmark/benchmark.h>

#include <memory>
#include <stdexcept>

#include "runtime/cpu/compile.h"
#include "runtime/kernel_library.h"

namespace {
using kaudit::runtime::EntryArg;
using kaudit::runtime::KernelLibrary;

const char* kElementwise = R"(
#include <torch/extension.h>
__global__ void scale_add(const float* x, float* y, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + 1.0f;
}
// The output is preallocated: the benchmark measures the emulator, not the allocator.
torch::Tensor run(torch::Tensor x, torch::Tensor y) {
  int n = x.numel();
  scale_add<<<(n + 255) / 256, 256>>>(x.data_ptr<float>(), y.data_ptr<float>(), 2.0f, n);
  return y;
}
)";

// 256 threads: one load region + 8 tree levels, each ending at a barrier = 9 barrier regions.
const char* kReduction = R"(
#include <torch/extension.h>
__global__ void block_sum(const float* x, float* out, int n) {
  __shared__ float s[256];
  int t = threadIdx.x, i = blockIdx.x * 256 + t;
  s[t] = i < n ? x[i] : 0.0f;
  __syncthreads();
  for (int stride = 128; stride > 0; stride >>= 1) {
    if (t < stride) s[t] += s[t + stride];
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = s[0];
}
torch::Tensor run(torch::Tensor x, torch::Tensor out) {
  int n = x.numel();
  block_sum<<<(n + 255) / 256, 256>>>(x.data_ptr<float>(), out.data_ptr<float>(), n);
  return out;
}
)";
constexpr int kReductionRegions = 9;

// 256 threads: each warp reduces its 32 values with five shuffles, lane 0 stores the warp's sum:
// five warp-collective regions per thread (the pattern of softmax, layernorm and the losses).
const char* kWarpShuffle = R"(
#include <torch/extension.h>
__global__ void warp_sum(const float* x, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = i < n ? x[i] : 0.0f;
  for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_down_sync(0xffffffffu, v, offset);
  if ((threadIdx.x & 31) == 0 && i < n) out[i / 32] = v;
}
torch::Tensor run(torch::Tensor x, torch::Tensor out) {
  int n = x.numel();
  warp_sum<<<(n + 255) / 256, 256>>>(x.data_ptr<float>(), out.data_ptr<float>(), n);
  return out;
}
)";
constexpr int kWarpShuffleRegions = 5;

// A 16x16-tiled matrix product (the corpus's matmul_tiled idiom): per tile two shared stores, a
// barrier, 16 multiply-adds from shared memory, a barrier. In oracle mode every statement of
// device code is a step point (emulator.h, Mode), so this measures what step points cost: per
// thread, 2 + 16 + 2 statements per tile. Counter ns_per_thread_region: per thread and tile.
const char* kTiledMatmul = R"(
#include <torch/extension.h>
#define T 16
__global__ void mm(const float* a, const float* b, float* c, int n) {
  __shared__ float as[T][T];
  __shared__ float bs[T][T];
  int tx = threadIdx.x, ty = threadIdx.y;
  int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
  float acc = 0.0f;
  for (int t = 0; t < n / T; ++t) {
    as[ty][tx] = a[row * n + t * T + tx];
    bs[ty][tx] = b[(t * T + ty) * n + col];
    __syncthreads();
    for (int k = 0; k < T; ++k) acc += as[ty][k] * bs[k][tx];
    __syncthreads();
  }
  c[row * n + col] = acc;
}
torch::Tensor run(torch::Tensor a, torch::Tensor b, torch::Tensor c) {
  int n = a.size(0);
  mm<<<dim3(n / T, n / T), dim3(T, T)>>>(a.data_ptr<float>(), b.data_ptr<float>(), c.data_ptr<float>(), n);
  return c;
}
)";

std::unique_ptr<KernelLibrary> load(const char* src) {
  static kaudit::cpu::CpuCompiler compiler(KAUDIT_BENCH_CACHE);
  auto b = compiler.build(src, "bench.cu", "run");
  if (!b.ok) throw std::runtime_error(b.diagnostics);
  return std::make_unique<KernelLibrary>(b.library);
}

void run_kernel(benchmark::State& state, const KernelLibrary& lib, int64_t n, int64_t outputs, double regions,
                double target_ns) {
  auto x = at::rand({n});
  std::vector<EntryArg> args{EntryArg::of(x), EntryArg::of(at::empty({outputs}))};
  lib.call(args, {});  // warm-up: fiber stacks, TBB threads and first-touch pages are one-time costs
  for (auto _ : state) {
    auto r = lib.call(args, {});
    if (r.threw || r.fault.kind != kaudit::rt::FaultKind::None) state.SkipWithError("kernel failed");
    benchmark::DoNotOptimize(r.outputs);
  }
  const double threads = (double)n * state.iterations();
  state.counters["ns_per_thread"] = benchmark::Counter(threads * 1e-9, benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  state.counters["ns_per_thread_region"] =
      benchmark::Counter(threads * regions * 1e-9, benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  state.counters["target_ns"] = target_ns;
}

// Oracle mode: blocks in order, step points on (what a harness run of the audit does).
kaudit::rt::RunOptions oracle_mode() {
  kaudit::rt::RunOptions o;
  o.mode = kaudit::rt::Mode::Oracle;
  o.serial_blocks = true;
  return o;
}

void run_matmul(benchmark::State& state, const kaudit::rt::RunOptions& options) {
  static auto lib = load(kTiledMatmul);
  const int64_t n = state.range(0);
  auto a = at::rand({n, n}), b = at::rand({n, n});
  std::vector<EntryArg> args{EntryArg::of(a), EntryArg::of(b), EntryArg::of(at::empty({n, n}))};
  lib->call(args, options);
  for (auto _ : state) {
    auto r = lib->call(args, options);
    if (r.threw || r.fault.kind != kaudit::rt::FaultKind::None) state.SkipWithError("kernel failed");
    benchmark::DoNotOptimize(r.outputs);
  }
  const double thread_tiles = double(n) * n * (n / 16) * state.iterations();
  state.counters["ns_per_thread_region"] =
      benchmark::Counter(thread_tiles * 1e-9, benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
void BM_TiledMatmulWitnessMode(benchmark::State& state) { run_matmul(state, {}); }
BENCHMARK(BM_TiledMatmulWitnessMode)->Arg(128)->Unit(benchmark::kMillisecond)->UseRealTime();
void BM_TiledMatmulOracleMode(benchmark::State& state) { run_matmul(state, oracle_mode()); }
BENCHMARK(BM_TiledMatmulOracleMode)->Arg(128)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_SharedMemoryReductionFibersOracleMode(benchmark::State& state) {
  static auto lib = load(kReduction);
  const int64_t n = state.range(0);
  auto x = at::rand({n});
  std::vector<EntryArg> args{EntryArg::of(x), EntryArg::of(at::empty({(n + 255) / 256}))};
  lib->call(args, oracle_mode());
  for (auto _ : state) {
    auto r = lib->call(args, oracle_mode());
    if (r.threw || r.fault.kind != kaudit::rt::FaultKind::None) state.SkipWithError("kernel failed");
    benchmark::DoNotOptimize(r.outputs);
  }
  state.counters["ns_per_thread_region"] = benchmark::Counter(double(n) * kReductionRegions * state.iterations() * 1e-9,
                                                              benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_SharedMemoryReductionFibersOracleMode)->Arg(1 << 18)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_ElementwisePlainLoop(benchmark::State& state) {
  static auto lib = load(kElementwise);
  run_kernel(state, *lib, state.range(0), state.range(0), 1, 5.0);
}
BENCHMARK(BM_ElementwisePlainLoop)->Arg(1 << 22)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_SharedMemoryReductionFibers(benchmark::State& state) {
  static auto lib = load(kReduction);
  run_kernel(state, *lib, state.range(0), (state.range(0) + 255) / 256, kReductionRegions, 60.0);
}
BENCHMARK(BM_SharedMemoryReductionFibers)->Arg(1 << 20)->MinTime(2.0)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_WarpShuffleReductionFibers(benchmark::State& state) {
  static auto lib = load(kWarpShuffle);
  run_kernel(state, *lib, state.range(0), state.range(0) / 32, kWarpShuffleRegions, 60.0);
}
BENCHMARK(BM_WarpShuffleReductionFibers)->Arg(1 << 20)->MinTime(2.0)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
