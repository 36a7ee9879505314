#include "tests/runtime/kernel_fixture.h"

#include <map>
#include <tuple>

namespace kaudit::test {

const char* const kTwiceKernel = R"(
#include <torch/extension.h>
__global__ void twice(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = 2.0f * x[i];
}
torch::Tensor run(torch::Tensor x) {
  auto y = torch::empty_like(x);
  twice<<<(x.numel() + 127) / 128, 128>>>(x.data_ptr<float>(), y.data_ptr<float>(), x.numel());
  return y;
}
)";

cpu::CpuCompiler& test_compiler() {
  static cpu::CpuCompiler compiler(KAUDIT_TEST_CACHE);
  return compiler;
}

runtime::IsolatedRunner& test_runner(const runtime::WorkerLimits& limits) {
  static std::map<std::tuple<double, std::uint64_t, bool, int, bool, std::uint64_t>,
                  std::unique_ptr<runtime::IsolatedRunner>>
      runners;
  auto key = std::make_tuple(limits.timeout_seconds, limits.memory_bytes, limits.memcheck, limits.threads,
                             limits.cpu_time, limits.thread_budget);
  auto& r = runners[key];
  if (!r) r = std::make_unique<runtime::IsolatedRunner>(KAUDIT_EXE, limits);
  return *r;
}

KernelRun build_and_run(const std::string& source, const std::string& entry, const std::vector<Arg>& args,
                        const runtime::WorkerLimits& limits, rt::RunOptions options) {
  return build_and_run_on(test_runner(limits), source, entry, args, options);
}

KernelRun build_and_run_on(runtime::IsolatedRunner& runner, const std::string& source, const std::string& entry,
                           const std::vector<Arg>& args, rt::RunOptions options) {
  KernelRun run;
  cpu::CpuBuild b = test_compiler().build(source, "test_kernel.cu", entry);
  if (!b.ok) {
    run.build_error = b.diagnostics;
    return run;
  }
  runtime::RunRequest req;
  req.library = b.library;
  req.options = options;
  for (const auto& a : args) {
    if (a.is_tensor) req.args.push_back(runtime::EntryArg::of(a.tensor));
    else if (a.is_double) req.args.push_back(runtime::EntryArg::of_double(a.d));
    else req.args.push_back(runtime::EntryArg::of_int(a.i));
  }
  run.result = runner.run(req);
  return run;
}

}  // namespace kaudit::test
