// Test helper: build a CUDA source for the CPU backend and run its entry function in a worker.
#pragma once
#include <ATen/ATen.h>

#include <memory>
#include <string>
#include <vector>

#include "runtime/cpu/compile.h"
#include "runtime/worker.h"

namespace kaudit::test {

struct KernelRun {
  runtime::RunResult result;
  std::string build_error;
};

// Argument for the entry function: a tensor or a scalar.
struct Arg {
  at::Tensor tensor;
  bool is_tensor = false;
  std::int64_t i = 0;
  double d = 0;
  bool is_double = false;
  Arg(at::Tensor t) : tensor(std::move(t)), is_tensor(true) {}
  Arg(int v) : i(v) {}
  Arg(std::int64_t v) : i(v) {}
  Arg(double v) : d(v), is_double(true) {}
};

// A correct kernel (entry "run": y = 2 * x), run after a failing or hostile one to show that its
// verdict is unaffected.
extern const char* const kTwiceKernel;

cpu::CpuCompiler& test_compiler();
// One runner per limits configuration, shared by the tests of a binary.
runtime::IsolatedRunner& test_runner(const runtime::WorkerLimits& limits = {});

KernelRun build_and_run(const std::string& source, const std::string& entry, const std::vector<Arg>& args,
                        const runtime::WorkerLimits& limits = {}, rt::RunOptions options = {});
// The same on a runner of the caller's (a test that needs its own workers, e.g. unsandboxed).
KernelRun build_and_run_on(runtime::IsolatedRunner& runner, const std::string& source, const std::string& entry,
                           const std::vector<Arg>& args, rt::RunOptions options = {});

}  // namespace kaudit::test
