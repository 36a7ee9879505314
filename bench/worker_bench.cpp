// The cost of one isolated kernel run, round trip included (runtime/worker.h): the runner's
// request, the zygote's fork of a fresh process for the run, the sandbox (common/sandbox.h), the
// kernel library's load, the run, the reply relayed by the zygote. Arg 1 = sandboxed (the default),
// 0 = KAUDIT_SANDBOX=off (fork per run without the sandbox's layers). Two kernels: a plain one and
// one run on fibers (a shared-memory reduction with barriers), both on a small input, so the
// real time per iteration is what a short audit run pays. KAUDIT_BENCH_WORKER names another
// kaudit binary to serve the runs (an older build, for a before-and-after comparison);
// KAUDIT_WORKER_STANDINS=0 starts the workers with every library libtorch lists, not the empty
// stand-ins of those nothing uses (runtime/worker_libs.py). Issue 21's target: the sandboxed
// audit at most 20% slower than the unsandboxed one (docs/SECURITY.md has the measurement).
#include <ATen/ATen.h>
#include <benchmark/benchmark.h>
#include <stdlib.h>

#include <memory>
#include <stdexcept>

#include "runtime/cpu/compile.h"
#include "runtime/shared_tensor.h"
#include "runtime/worker.h"

namespace {
using kaudit::runtime::EntryArg;

const char* kPlain = R"(
#include <torch/extension.h>
__global__ void scale_add(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = 2.0f * x[i] + 1.0f;
}
torch::Tensor run(torch::Tensor x) {
  auto y = torch::empty_like(x);
  scale_add<<<(x.numel() + 255) / 256, 256>>>(x.data_ptr<float>(), y.data_ptr<float>(), x.numel());
  return y;
}
)";

const char* kFibers = R"(
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
torch::Tensor run(torch::Tensor x) {
  auto out = torch::empty({(x.numel() + 255) / 256}, x.options());
  block_sum<<<(x.numel() + 255) / 256, 256>>>(x.data_ptr<float>(), out.data_ptr<float>(), x.numel());
  return out;
}
)";

void run_isolated(benchmark::State& state, const char* source) {
  const bool sandboxed = state.range(0) != 0;
  if (sandboxed) unsetenv("KAUDIT_SANDBOX");
  else setenv("KAUDIT_SANDBOX", "off", 1);
  static kaudit::cpu::CpuCompiler compiler(KAUDIT_BENCH_CACHE);
  const kaudit::cpu::CpuBuild build = compiler.build(source, "bench.cu", "run");
  if (!build.ok) throw std::runtime_error(build.diagnostics);
  kaudit::runtime::WorkerLimits limits;  // as the audit's: one thread, CPU-time budget
  limits.threads = 1;
  limits.cpu_time = true;
  limits.timeout_seconds = 2;
  const char* worker = std::getenv("KAUDIT_BENCH_WORKER");
  kaudit::runtime::IsolatedRunner runner(worker ? worker : KAUDIT_EXE, limits);
  kaudit::runtime::RunRequest request;
  request.library = build.library;
  request.args.push_back(EntryArg::of(at::rand({4096})));
  if (runner.run(request).status != kaudit::runtime::Status::Ok) throw std::runtime_error("the benchmark kernel failed");
  for (auto _ : state) {
    auto r = runner.run(request);
    benchmark::DoNotOptimize(r.outputs);
  }
  unsetenv("KAUDIT_SANDBOX");
}

void BM_IsolatedRunPlain(benchmark::State& state) { run_isolated(state, kPlain); }
void BM_IsolatedRunFibers(benchmark::State& state) { run_isolated(state, kFibers); }
BENCHMARK(BM_IsolatedRunPlain)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_IsolatedRunFibers)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

// Keeping a pool tensor in a sealed memfd (runtime/shared_tensor.h): one copy into fresh shared
// memory, what the pool pays once per tensor so that no request copies it again. 256 MiB, the
// size of one rmsnorm input at kernelbench-v0.
void BM_ShareInMemfd(benchmark::State& state) {
  const at::Tensor t = at::rand({std::int64_t{64} << 20}, at::kFloat);
  for (auto _ : state) benchmark::DoNotOptimize(kaudit::runtime::share_in_memfd(t));
  state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(t.nbytes()));
}
BENCHMARK(BM_ShareInMemfd)->Unit(benchmark::kMillisecond)->UseRealTime();

BENCHMARK_MAIN();
