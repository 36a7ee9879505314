// Untrusted kernels run in worker processes: every failure becomes a status, and the next kernel
// still runs.
#include <ATen/ATen.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "tests/runtime/kernel_fixture.h"

using kaudit::runtime::Status;
using kaudit::test::build_and_run;

namespace {

const char* const kGood = kaudit::test::kTwiceKernel;

void expect_next_kernel_runs(const kaudit::runtime::WorkerLimits& limits = {}) {
  auto x = at::arange(300, at::kFloat);
  auto r = build_and_run(kGood, "run", {x}, limits);
  ASSERT_EQ(r.result.status, Status::Ok) << r.build_error << r.result.message;
  EXPECT_TRUE(at::equal(r.result.outputs[0], x * 2));
}

TEST(Isolation, SegfaultBecomesCrash) {
  const char* src = R"(
#include <torch/extension.h>
__global__ void k(float* y) { float* p = nullptr; p[threadIdx.x + 12345] = y[0]; }
torch::Tensor run(torch::Tensor y) { k<<<1, 32>>>(y.data_ptr<float>()); return y; }
)";
  auto r = build_and_run(src, "run", {at::zeros({4})});
  ASSERT_EQ(r.build_error, "");
  EXPECT_EQ(r.result.status, Status::Crash);
  EXPECT_NE(r.result.message.find("Segmentation"), std::string::npos) << r.result.message;
  expect_next_kernel_runs();
}

TEST(Isolation, InfiniteLoopBecomesTimeout) {
  const char* src = R"(
#include <torch/extension.h>
__global__ void k(volatile float* y) { while (y[0] == 0.0f) {} }
torch::Tensor run(torch::Tensor y) { k<<<1, 1>>>(y.data_ptr<float>()); return y; }
)";
  kaudit::runtime::WorkerLimits limits;
  limits.timeout_seconds = 3;
  auto r = build_and_run(src, "run", {at::zeros({4})}, limits);
  ASSERT_EQ(r.build_error, "");
  EXPECT_EQ(r.result.status, Status::Timeout) << r.result.message;
  expect_next_kernel_runs(limits);
}

TEST(Isolation, CpuTimeBudgetEndsTheRunInsideTheWorker) {
  // With cpu_time, the worker's own timer ends the run: the message says CPU time (a wall-clock
  // kill says "worker killed"), and the reply comes well before the wall-clock backstop.
  const char* src = R"(
#include <torch/extension.h>
__global__ void k(volatile float* y) { while (y[0] == 0.0f) {} }
torch::Tensor run(torch::Tensor y) { k<<<1, 1>>>(y.data_ptr<float>()); return y; }
)";
  kaudit::runtime::WorkerLimits limits;
  limits.timeout_seconds = 1;
  limits.cpu_time = true;
  limits.threads = 1;
  auto r = build_and_run(src, "run", {at::zeros({4})}, limits);
  ASSERT_EQ(r.build_error, "");
  EXPECT_EQ(r.result.status, Status::Timeout) << r.result.message;
  EXPECT_NE(r.result.message.find("CPU time"), std::string::npos) << r.result.message;
  EXPECT_LT(r.result.seconds, kaudit::runtime::kWallBackstopSeconds) << r.result.message;
  expect_next_kernel_runs(limits);
}

TEST(Isolation, CpuTimeBudgetIsPerRun) {
  // Runs that each use a fraction of the budget never add up to a timeout across requests.
  const char* src = R"(
#include <torch/extension.h>
__global__ void k(float* y, long n) { float a = 0; for (long i = 0; i < n; ++i) a += 1e-9f * i; y[0] = a; }
torch::Tensor run(torch::Tensor y, int64_t n) { k<<<1, 1>>>(y.data_ptr<float>(), n); return y; }
)";
  kaudit::runtime::WorkerLimits limits;
  limits.timeout_seconds = 1;
  limits.cpu_time = true;
  limits.threads = 1;
  for (int i = 0; i < 6; ++i) {
    auto r = build_and_run(src, "run", {at::zeros({1}), kaudit::test::Arg(std::int64_t{500'000'000})}, limits);
    ASSERT_EQ(r.build_error, "");
    EXPECT_EQ(r.result.status, Status::Ok) << "run " << i << ": " << r.result.message;
  }
}

TEST(Isolation, BarrierDeadlockBecomesDivergence) {
  // Warp 0 waits in a shuffle for lane 5, which waits at __syncthreads: nothing can progress.
  const char* src = R"(
#include <torch/extension.h>
__global__ void k(float* y) {
  if (threadIdx.x == 5) __syncthreads();
  else y[threadIdx.x] = __shfl_sync(0xffffffff, 1.0f, 0);
}
torch::Tensor run(torch::Tensor y) { k<<<1, 32>>>(y.data_ptr<float>()); return y; }
)";
  auto r = build_and_run(src, "run", {at::zeros({32})});
  ASSERT_EQ(r.build_error, "");
  EXPECT_EQ(r.result.status, Status::BarrierDivergence) << r.result.message;
  EXPECT_NE(r.result.message.find("deadlock"), std::string::npos) << r.result.message;
  expect_next_kernel_runs();
}

TEST(Isolation, AbortBecomesCrashWithItsMessage) {
  const char* src = R"(
#include <torch/extension.h>
__global__ void k(float* y) { if (threadIdx.x == 3) __trap(); y[threadIdx.x] = 0; }
torch::Tensor run(torch::Tensor y) { k<<<1, 32>>>(y.data_ptr<float>()); return y; }
)";
  auto r = build_and_run(src, "run", {at::zeros({32})});
  ASSERT_EQ(r.build_error, "");
  EXPECT_EQ(r.result.status, Status::Crash);
  EXPECT_NE(r.result.message.find("__trap"), std::string::npos) << r.result.message;
  expect_next_kernel_runs();
}

TEST(Isolation, HostExceptionBecomesException) {
  const char* src = R"(
#include <torch/extension.h>
torch::Tensor run(torch::Tensor y) {
  TORCH_CHECK(y.dim() == 3, "expected a 3-d tensor, got ", y.dim(), " dims");
  return y;
}
)";
  auto r = build_and_run(src, "run", {at::zeros({32})});
  ASSERT_EQ(r.build_error, "");
  EXPECT_EQ(r.result.status, Status::Exception);
  EXPECT_NE(r.result.message.find("expected a 3-d tensor, got 1 dims"), std::string::npos) << r.result.message;
  expect_next_kernel_runs();
}

TEST(Isolation, MemoryCheckModeReportsOutOfBounds) {
  // The classic dropped guard: 300 elements, 384 threads, no `if (i < n)`.
  const char* src = R"(
#include <torch/extension.h>
__global__ void k(const float* x, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  y[i] = x[i] * 2.0f;
}
torch::Tensor run(torch::Tensor x) {
  auto y = torch::empty_like(x);
  k<<<(x.numel() + 127) / 128, 128>>>(x.data_ptr<float>(), y.data_ptr<float>());
  return y;
}
)";
  kaudit::runtime::WorkerLimits limits;
  limits.memcheck = true;
  auto r = build_and_run(src, "run", {at::ones({300})}, limits);
  ASSERT_EQ(r.build_error, "");
  EXPECT_EQ(r.result.status, Status::OutOfBounds) << r.result.message;
  expect_next_kernel_runs(limits);
}

// Tensors live in an arena that is inaccessible wherever no tensor is: a read far beyond the
// guard page (4 MiB past a 1.2 KB tensor) is reported too, not a crash or a read of whatever the
// process has mapped there; and it is reported the same way on every run.
TEST(Isolation, MemoryCheckModeReportsAReadFarPastATensor) {
  const char* src = R"(
#include <torch/extension.h>
__global__ void k(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i + (1 << 20)];
}
torch::Tensor run(torch::Tensor x) {
  auto y = torch::empty_like(x);
  k<<<(x.numel() + 127) / 128, 128>>>(x.data_ptr<float>(), y.data_ptr<float>(), x.numel());
  return y;
}
)";
  kaudit::runtime::WorkerLimits limits;
  limits.memcheck = true;
  for (int run = 0; run < 2; ++run) {
    auto r = build_and_run(src, "run", {at::ones({300})}, limits);
    ASSERT_EQ(r.build_error, "");
    EXPECT_EQ(r.result.status, Status::OutOfBounds) << "run " << run << ": " << r.result.message;
  }
  expect_next_kernel_runs(limits);
}

// After a run, the arena starts again from its beginning: the same run in the same worker gets
// the same addresses, whatever ran in between (here a run with larger and more tensors), so a
// mutant's wild access cannot depend on the audit's order.
TEST(Isolation, MemoryCheckModeGivesARunTheSameAddressesEveryTime) {
  const char* address_of_input = R"(
#include <torch/extension.h>
__global__ void k(const float* x, int64_t* y) { y[0] = (int64_t)x; }
torch::Tensor run(torch::Tensor x) {
  auto y = torch::empty({1}, x.options().dtype(torch::kInt64));
  k<<<1, 1>>>(x.data_ptr<float>(), y.data_ptr<int64_t>());
  return y;
}
)";
  const char* larger = R"(
#include <torch/extension.h>
torch::Tensor run(torch::Tensor x) {
  auto a = torch::empty_like(x);
  auto b = torch::empty({x.numel() * 3}, x.options());
  return b;
}
)";
  kaudit::runtime::WorkerLimits limits;
  limits.memcheck = true;
  auto first = build_and_run(address_of_input, "run", {at::ones({300})}, limits);
  ASSERT_EQ(first.result.status, Status::Ok) << first.build_error << first.result.message;
  auto between = build_and_run(larger, "run", {at::ones({100000})}, limits);
  ASSERT_EQ(between.result.status, Status::Ok) << between.build_error << between.result.message;
  auto again = build_and_run(address_of_input, "run", {at::ones({300})}, limits);
  ASSERT_EQ(again.result.status, Status::Ok) << again.build_error << again.result.message;
  EXPECT_EQ(first.result.outputs[0].item<std::int64_t>(), again.result.outputs[0].item<std::int64_t>());
}

// Reading an uninitialized local is undefined in CUDA; on the CPU backend it must at least not
// depend on what earlier runs left on the (fiber) stack, or a mutant's outcome would depend on run
// order. A kernel that reads an uninitialized array runs before and after one that leaves 7s on
// its stack: it must see the same bytes both times, with and without fibers (a barrier).
TEST(Isolation, AnUninitializedLocalDoesNotSeeEarlierRuns) {
  for (const char* barrier : {"", "__syncthreads();"}) {
    const std::string dirty = std::string(R"(
#include <torch/extension.h>
__global__ void k(float* y) {
  volatile float a[64];
  for (int i = 0; i < 64; ++i) a[i] = 7.0f + threadIdx.x;
  )") + barrier + R"(
  y[threadIdx.x] = a[threadIdx.x % 64];
}
torch::Tensor run(torch::Tensor y) { k<<<1, 32>>>(y.data_ptr<float>()); return y; }
)";
    const std::string reader = std::string(R"(
#include <torch/extension.h>
__global__ void k(float* y) {
  float a[64];
  )") + barrier + R"(
  float s = 0.0f;
  for (int i = 0; i < 64; ++i) s += a[i];
  y[threadIdx.x] = s;
}
torch::Tensor run(torch::Tensor y) { k<<<1, 32>>>(y.data_ptr<float>()); return y; }
)";
    auto first = build_and_run(reader, "run", {at::zeros({32})});
    ASSERT_EQ(first.result.status, Status::Ok) << first.build_error << first.result.message;
    auto between = build_and_run(dirty, "run", {at::zeros({32})});
    ASSERT_EQ(between.result.status, Status::Ok) << between.build_error << between.result.message;
    auto again = build_and_run(reader, "run", {at::zeros({32})});
    ASSERT_EQ(again.result.status, Status::Ok) << again.build_error << again.result.message;
    EXPECT_TRUE(at::equal(first.result.outputs[0], again.result.outputs[0]))
        << "barrier '" << barrier << "': " << first.result.outputs[0] << " vs " << again.result.outputs[0];
  }
}

TEST(Isolation, MemoryLimitStopsARunawayAllocation) {
  const char* src = R"(
#include <torch/extension.h>
torch::Tensor run(torch::Tensor y) {
  auto big = torch::empty({int64_t(1) << 40}, y.options());
  return big;
}
)";
  kaudit::runtime::WorkerLimits limits;
  limits.memory_bytes = std::uint64_t(4) << 30;
  auto r = build_and_run(src, "run", {at::zeros({4})}, limits);
  ASSERT_EQ(r.build_error, "");
  EXPECT_NE(r.result.status, Status::Ok);
  expect_next_kernel_runs(limits);
}

TEST(Isolation, CompileErrorNamesTheLine) {
  const char* src = "#include <torch/extension.h>\n__global__ void k(float* y) {\n  y[0] = undefined_name;\n}\n"
                    "torch::Tensor run(torch::Tensor y) { k<<<1,1>>>(y.data_ptr<float>()); return y; }\n";
  auto r = build_and_run(src, "run", {at::zeros({4})});
  EXPECT_NE(r.build_error.find("test_kernel.cu:3"), std::string::npos) << r.build_error;
  EXPECT_NE(r.build_error.find("undefined_name"), std::string::npos) << r.build_error;
}

}  // namespace

namespace {

// A run that replies and then kills its process (here a thread left behind aborts 200 ms later;
// in the audit, a mutant's stray write corrupting the heap does the same). No reply is owed for
// that death: the next run must get its own reply, not a report of the earlier death.
TEST(Isolation, ADeathAfterTheReplyDoesNotShiftLaterReplies) {
  const char* src = R"(
#include <torch/extension.h>
#include <cstdlib>
#include <thread>
#include <unistd.h>
__global__ void k(float* y) { y[threadIdx.x] = 1.0f; }
torch::Tensor run(torch::Tensor y) {
  k<<<1, 4>>>(y.data_ptr<float>());
  std::thread([] { usleep(200000); std::abort(); }).detach();
  return y;
}
)";
  auto r = build_and_run(src, "run", {at::zeros({4})});
  ASSERT_EQ(r.build_error, "");
  ASSERT_EQ(r.result.status, Status::Ok) << r.result.message;
  EXPECT_TRUE(at::equal(r.result.outputs[0], at::ones({4})));
  usleep(600000);
  expect_next_kernel_runs();
  expect_next_kernel_runs();
}

}  // namespace

// The runner's account of its time (ExchangeTimes, what an audit's "runners busy" line splits):
// one exchange per run, one start for a fresh worker, and the worker's own time inside the wait
// for its reply. A run that sleeps half a second in the kernel shows up in the worker's part.
TEST(Isolation, ExchangeTimesAccountForEachRun) {
  const char* src = R"(
#include <torch/extension.h>
#include <unistd.h>
__global__ void twice(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = 2.0f * x[i];
}
torch::Tensor run(torch::Tensor x) {
  usleep(500000);
  auto y = torch::empty_like(x);
  twice<<<(x.numel() + 127) / 128, 128>>>(x.data_ptr<float>(), y.data_ptr<float>(), x.numel());
  return y;
}
)";
  kaudit::runtime::IsolatedRunner runner(KAUDIT_EXE, {});
  auto r = kaudit::test::build_and_run_on(runner, src, "run", {at::arange(1000, at::kFloat)});
  ASSERT_EQ(r.result.status, Status::Ok) << r.build_error << r.result.message;
  auto r2 = kaudit::test::build_and_run_on(runner, src, "run", {at::arange(1000, at::kFloat)});
  ASSERT_EQ(r2.result.status, Status::Ok) << r2.result.message;
  const kaudit::runtime::ExchangeTimes& t = runner.times();
  EXPECT_EQ(t.exchanges, 2u);
  EXPECT_EQ(t.starts, 1);
  EXPECT_GT(t.start, 0.0);
  EXPECT_GE(t.served, 1.0);        // two runs of half a second each, timed by the worker
  // The worker's time lies inside the span from sending to the reply read. Not inside the reply
  // wait alone: the worker can read the request's last byte, and start its clock, before the
  // runner's write returns (seen in CI: reply 1.0439 s, served 1.0466 s).
  EXPECT_GE(t.send + t.reply, t.served);
  EXPECT_GE(t.send, 0.0);
  EXPECT_EQ(t.device_copies, 0.0);  // a CPU worker copies nothing to a device
  const kaudit::runtime::ExchangeTimes none = t - t;
  EXPECT_EQ(none.exchanges, 0u);
  EXPECT_EQ(none.served, 0.0);
}

namespace {

// The libraries a process maps, by file name (/proc/PID/maps).
std::set<std::string> mapped_libraries(pid_t pid) {
  std::ifstream maps("/proc/" + std::to_string(pid) + "/maps");
  std::set<std::string> out;
  for (std::string line; std::getline(maps, line);)
    if (auto slash = line.find('/'); slash != std::string::npos && line.find(".so", slash) != std::string::npos)
      out.insert(line.substr(slash));
  return out;
}

TEST(Isolation, TheWorkerMapsStandInsInsteadOfTheLibrariesItNeverUses) {
  // runtime/worker_libs.py decides at build time which libraries a CPU worker can do without; a
  // worker started here must map the empty stand-ins, none of the real ones, and still run
  // kernels (the whole test suite runs on such workers).
  const std::string standins = kaudit::runtime::worker_library_standins(KAUDIT_EXE);
  if (standins.empty()) GTEST_SKIP() << "no stand-ins were made for this build (runtime/worker_libs.py)";
  std::vector<std::string> replaced;
  std::ifstream readme(standins + "/README");
  for (std::string line; std::getline(readme, line);)
    if (line.rfind("lib", 0) == 0) replaced.push_back(line);
  ASSERT_FALSE(replaced.empty());
  auto libraries_of_a_worker = [&](bool with_standins) {
    if (!with_standins) setenv("KAUDIT_WORKER_STANDINS", "0", 1);
    kaudit::runtime::IsolatedRunner runner(KAUDIT_EXE, {});
    auto x = at::arange(300, at::kFloat);
    auto r = kaudit::test::build_and_run_on(runner, kGood, "run", {x});
    unsetenv("KAUDIT_WORKER_STANDINS");
    EXPECT_EQ(r.result.status, Status::Ok) << r.build_error << r.result.message;
    if (r.result.status == Status::Ok) {
      EXPECT_TRUE(at::equal(r.result.outputs[0], x * 2));
    }
    return mapped_libraries(runner.worker_pid());
  };
  const auto with = libraries_of_a_worker(true), without = libraries_of_a_worker(false);
  for (const auto& name : replaced) {
    bool real = false, standin = false;
    for (const auto& path : with)
      if (path.size() >= name.size() && path.compare(path.size() - name.size(), name.size(), name) == 0)
        (path.rfind(standins, 0) == 0 ? standin : real) = true;
    EXPECT_FALSE(real) << name << " is mapped from its real file";
    EXPECT_TRUE(standin) << name << "'s stand-in is not mapped";
  }
  EXPECT_LT(with.size() * 2, without.size()) << with.size() << " libraries with the stand-ins, " << without.size()
                                              << " without";
}

}  // namespace

namespace {

// The worker's virtual memory size (what RLIMIT_AS bounds), in bytes.
std::uint64_t virtual_memory_bytes(pid_t pid) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(status, line);)
    if (line.rfind("VmSize:", 0) == 0) return std::stoull(line.substr(7)) * 1024;  // "VmSize:  123 kB"
  return 0;
}

// A worker whose zygote cannot read a request (here: no address space left for a 2 GiB input
// under its RLIMIT_AS) fails on its own; no kernel code ran. The run is repeated once on a fresh
// worker, and the result says it was kaudit's failure, which an audit reports and does not count
// as the kernel's crash. The next request runs normally.
TEST(Isolation, AWorkerThatFailsOnItsOwnIsReplacedAndTheKernelIsNotBlamed) {
  std::uint64_t baseline = 0;
  {
    kaudit::runtime::WorkerLimits one_thread;
    one_thread.threads = 1;
    kaudit::runtime::IsolatedRunner probe(KAUDIT_EXE, one_thread);
    auto r = kaudit::test::build_and_run_on(probe, kGood, "run", {at::arange(300, at::kFloat)});
    ASSERT_EQ(r.result.status, Status::Ok) << r.build_error << r.result.message;
    baseline = virtual_memory_bytes(probe.worker_pid());
  }
  ASSERT_GT(baseline, 0u);
  kaudit::runtime::WorkerLimits limits;
  limits.threads = 1;  // the run's own threads stay within the margin on a machine of many cores
  limits.memory_bytes = baseline + (std::uint64_t(512) << 20);
  kaudit::runtime::IsolatedRunner runner(KAUDIT_EXE, limits);
  const at::Tensor huge = at::empty({std::int64_t(1) << 29}, at::kFloat);  // 2 GiB, never touched here
  auto r = kaudit::test::build_and_run_on(runner, kGood, "run", {huge});
  ASSERT_EQ(r.build_error, "");
  EXPECT_EQ(r.result.status, Status::Crash);
  EXPECT_TRUE(r.result.worker_failure);
  EXPECT_NE(r.result.message.find("not the kernel"), std::string::npos) << r.result.message;
  EXPECT_EQ(runner.worker_failures(), 2);  // the first attempt and its repetition on a fresh worker
  EXPECT_EQ(runner.starts(), 2);
  const auto x = at::arange(300, at::kFloat);
  auto next = kaudit::test::build_and_run_on(runner, kGood, "run", {x});
  ASSERT_EQ(next.result.status, Status::Ok) << next.result.message;
  EXPECT_FALSE(next.result.worker_failure);
  EXPECT_TRUE(at::equal(next.result.outputs[0], x * 2));
}

// The second-call probe (RunRequest::first_call): the entry is called on the first values, then on
// the run's own in the same buffers, in one process. A wrapper that remembers its last answer by
// input address returns the first call's answer; a stateless kernel returns its own.
TEST(Isolation, ASecondCallInTheSameBuffersShowsWhatTheFirstLeft) {
  const char* cached = R"(
#include <torch/extension.h>
__global__ void twice(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = 2.0f * x[i];
}
torch::Tensor run(torch::Tensor x) {
  auto y = torch::empty_like(x);
  twice<<<(x.numel() + 127) / 128, 128>>>(x.data_ptr<float>(), y.data_ptr<float>(), x.numel());
  return [&]() -> torch::Tensor { static const void* seen = nullptr; static torch::Tensor kept;
    if (kept.defined() && x.data_ptr() == seen) return kept; seen = x.data_ptr(); kept = y; return y; }();
}
)";
  const auto x = at::arange(300, at::kFloat), other = at::full({300}, 7.0f);
  const auto run = [&](const char* source, std::vector<at::Tensor> first) {
    const auto b = kaudit::test::test_compiler().build(source, "test_kernel.cu", "run");
    EXPECT_TRUE(b.ok) << b.diagnostics;
    kaudit::runtime::RunRequest req;
    req.library = b.library;
    req.args.push_back(kaudit::runtime::EntryArg::of(x));
    req.first_call = std::move(first);
    return kaudit::test::test_runner().run(req);
  };
  const auto alone = run(cached, {});
  ASSERT_EQ(alone.status, Status::Ok) << alone.message;
  EXPECT_TRUE(at::equal(alone.outputs[0], x * 2));  // one call: nothing to remember
  const auto second = run(cached, {other});
  ASSERT_EQ(second.status, Status::Ok) << second.message;
  EXPECT_TRUE(at::equal(second.outputs[0], other * 2));  // the first call's answer, for x
  const auto stateless = run(kGood, {other});
  ASSERT_EQ(stateless.status, Status::Ok) << stateless.message;
  EXPECT_TRUE(at::equal(stateless.outputs[0], x * 2));
  EXPECT_TRUE(at::equal(x, at::arange(300, at::kFloat)));  // the caller's tensor is the worker's copy's source only
  EXPECT_FALSE(second.first_call_failed);
  // A first call that does not complete is the run's result, marked as the first call's.
  const char* picky = R"(
#include <torch/extension.h>
torch::Tensor run(torch::Tensor x) {
  TORCH_CHECK(x.data_ptr<float>()[0] != 7.0f, "a seven first");
  return x;
}
)";
  const auto failed_first = run(picky, {other});
  EXPECT_EQ(failed_first.status, Status::Exception) << failed_first.message;
  EXPECT_TRUE(failed_first.first_call_failed);
  const auto misfit = run(kGood, {at::zeros({5})});
  EXPECT_EQ(misfit.status, Status::Exception);
  EXPECT_NE(misfit.message.find("first call"), std::string::npos) << misfit.message;
  expect_next_kernel_runs();
}

}  // namespace
