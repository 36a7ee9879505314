// The CUDA backend on a real GPU (label gpu; each test skips where runtime/cuda/device.h finds no
// usable GPU): nvcc builds, the CUDA worker, and what becomes of a run that faults, hangs or asks
// for an impossible launch. After each, a correct kernel still gets its right answer.
#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <future>
#include <map>
#include <string>
#include <vector>

#include "common/files.h"
#include "corpus/corpus.h"
#include "mutators/cuda_model/cuda_model.h"
#include "oracle/harness.h"
#include "oracle/recipes.h"
#include "oracle/reference.h"
#include "runtime/cuda/build.h"
#include "runtime/cuda/device.h"
#include "runtime/shared_tensor.h"
#include "runtime/worker.h"
#include "tests/mutators_compile/fixture_entry.h"
#include "tests/runtime/kernel_fixture.h"

namespace {
using kaudit::runtime::EntryArg;
using kaudit::runtime::Status;

#define SKIP_WITHOUT_GPU()                                                       \
  if (const auto& gpu = kaudit::cuda::probe_gpu(); !gpu.problem.empty()) {      \
    GTEST_SKIP() << gpu.problem;                                                 \
  }

// Writes a terabyte past its output: an illegal address on any GPU.
const char* const kWildKernel = R"(
#include <torch/extension.h>
__global__ void wild(float* y) { y[threadIdx.x + (1ll << 40)] = 1.0f; }
torch::Tensor run(torch::Tensor x) {
  auto y = torch::empty_like(x);
  wild<<<1, 32>>>(y.data_ptr<float>());
  return y;
}
)";

kaudit::cuda::CudaCompiler& compiler() {
  static kaudit::cuda::CudaCompiler c(KAUDIT_TEST_CACHE, kaudit::cuda::probe_gpu().arch());
  return c;
}

kaudit::runtime::IsolatedRunner& gpu_runner() {
  kaudit::runtime::WorkerLimits limits;
  limits.cuda = true;
  limits.timeout_seconds = 20;  // the first run of a worker creates its CUDA context
  static kaudit::runtime::IsolatedRunner runner(KAUDIT_EXE, limits);
  return runner;
}

kaudit::runtime::RunResult run(const std::string& source, const std::string& entry, const at::Tensor& x) {
  const kaudit::cuda::CudaBuild b = compiler().build(source, "gpu_test.cu", entry);
  EXPECT_TRUE(b.ok) << b.diagnostics;
  if (!b.ok) return {};
  kaudit::runtime::RunRequest req;
  req.library = b.library;
  req.args = {EntryArg::of(x)};
  return gpu_runner().run(req);
}

void expect_twice_still_right() {
  const at::Tensor x = at::arange(1000, at::kFloat);
  const auto r = run(kaudit::test::kTwiceKernel, "run", x);
  ASSERT_EQ(r.status, Status::Ok) << r.message;
  ASSERT_EQ(r.outputs.size(), 1u);
  EXPECT_TRUE(at::equal(r.outputs[0], x * 2));
}

TEST(Gpu, ACorrectKernelRunsOnTheDevice) {
  SKIP_WITHOUT_GPU();
  expect_twice_still_right();
  expect_twice_still_right();  // the same worker, its library loaded once
}

// The host idioms the CPU models accept (tests/mutators_compile/fixtures, the CudaModels test) also
// build with nvcc through the GPU builds' <torch/extension.h> (runtime/cuda/include/torch): a
// wrapper that computes with torch around its kernels, a pybind11 block, the runtime API. The
// builds run at once (each is one nvcc process).
TEST(Gpu, EveryHostIdiomFixtureBuildsAgainstTheMachinesLibtorch) {
  SKIP_WITHOUT_GPU();
  // What nvcc and PyTorch 2.11 reject (measured on an H100, 2026-12-07: docs/calibration/
  // h100-2026-12-07), with a phrase of the diagnostic; the Clang parse and NVRTC accept both (the CPU
  // build neither: the CudaModels test's list).
  const std::map<std::string, std::string> known = {
      // Its entry takes no tensor (a host runtime API walk-through): no torch operator to register.
      {"host_runtime_api.cu", "entry function parameter type not supported"},
      // AT_DISPATCH on x.type() (a DeprecatedTypeProperties): PyTorch 2.11 takes a ScalarType only.
      {"misc_host_idioms.cu", "DeprecatedTypeProperties"},
  };
  std::vector<std::pair<std::string, std::future<kaudit::cuda::CudaBuild>>> builds;
  for (const auto& e : std::filesystem::directory_iterator(KAUDIT_NVRTC_FIXTURES_DIR)) {
    if (e.path().extension() != ".cu") continue;
    const std::string name = e.path().filename().string();
    const std::string source = kaudit::read_file(e.path()).value_or("");
    const std::string entry = kaudit::mutators::testing::entry_of(source);
    builds.emplace_back(name, std::async(std::launch::async, [source, name, entry] {
                          return compiler().build(source, name, entry);
                        }));
  }
  ASSERT_GE(builds.size(), 12u);
  for (const auto& [name, why] : known) {
    EXPECT_TRUE(std::any_of(builds.begin(), builds.end(), [&](const auto& b) { return b.first == name; }))
        << name << " is listed but is no fixture";
  }
  for (auto& [name, build] : builds) {
    const kaudit::cuda::CudaBuild b = build.get();
    const auto k = known.find(name);
    EXPECT_EQ(b.ok, k == known.end()) << name << ": " << b.diagnostics.substr(0, 1500);
    if (k != known.end()) {
      EXPECT_NE(b.diagnostics.find(k->second), std::string::npos) << name << ": " << b.diagnostics;
    }
  }
}

// kaudit's CUDA model (mutators/cuda_model/manifest.txt) is real CUDA and torch: every header and
// every probe that the Clang parse, NVRTC and the CPU build accept (CudaModel.*) also builds with
// nvcc against the machine's libtorch, so the three models do not drift from what a GPU accepts.
TEST(Gpu, EveryHeaderAndProbeOfTheCudaModelBuildsAgainstTheMachinesLibtorch) {
  SKIP_WITHOUT_GPU();
  const auto build_all = [](const std::vector<std::pair<std::string, std::string>>& texts) {
    std::vector<std::pair<std::string, std::future<kaudit::cuda::CudaBuild>>> builds;
    for (const auto& [name, source] : texts)
      builds.emplace_back(name, std::async(std::launch::async, [source = source] {
                            return compiler().build(source, "cuda_model_probe.cu", "probe_forward");
                          }));
    std::vector<std::pair<std::string, kaudit::cuda::CudaBuild>> done;
    for (auto& [name, build] : builds) done.emplace_back(name, build.get());
    return done;
  };
  std::vector<std::string> headers;
  for (const auto& h : kaudit::cuda_model::manifest().headers) headers.push_back(h.name);
  std::vector<std::pair<std::string, std::string>> texts = {{"all headers", kaudit::cuda_model::header_source(headers)}};
  for (const auto& p : kaudit::cuda_model::manifest().probes)
    texts.push_back({(p.host ? "host: " : "device: ") + p.name, kaudit::cuda_model::probe_source(p)});
  for (const auto& [name, b] : build_all(texts)) {
    EXPECT_TRUE(b.ok) << name << ": " << b.diagnostics.substr(0, 2000);
    if (b.ok || name != "all headers") continue;
    // Each header alone names the ones nvcc and the machine's libtorch reject.
    std::vector<std::pair<std::string, std::string>> alone;
    for (const auto& h : headers) alone.push_back({"<" + h + ">", kaudit::cuda_model::header_source({h})});
    for (const auto& [header, one] : build_all(alone))
      EXPECT_TRUE(one.ok) << header << ": " << one.diagnostics.substr(0, 600);
  }
}

// The second-call probe on the device (runtime::RunRequest::first_call): the first call sees other
// values in the argument's buffer, the second the run's own, and the run returns the second's
// outputs; a first call that throws is the run's result, marked as the first call's. (Stateful
// kernels are not run on this backend: a context's process keeps its libraries between runs.)
TEST(Gpu, ASecondCallInTheSameBuffersReturnsItsOwnOutputs) {
  SKIP_WITHOUT_GPU();
  const at::Tensor x = at::arange(1000, at::kFloat), other = at::full({1000}, 7.0f);
  const auto probe = [&](const char* source, const at::Tensor& first) {
    const kaudit::cuda::CudaBuild b = compiler().build(source, "gpu_test.cu", "run");
    EXPECT_TRUE(b.ok) << b.diagnostics;
    kaudit::runtime::RunRequest req;
    req.library = b.library;
    req.args = {EntryArg::of(x)};
    req.first_call = {first};
    return gpu_runner().run(req);
  };
  const auto r = probe(kaudit::test::kTwiceKernel, other);
  ASSERT_EQ(r.status, Status::Ok) << r.message;
  ASSERT_EQ(r.outputs.size(), 1u);
  EXPECT_TRUE(at::equal(r.outputs[0], x * 2));
  EXPECT_FALSE(r.first_call_failed);
  const char* picky = R"(
#include <torch/extension.h>
torch::Tensor run(torch::Tensor x) {
  TORCH_CHECK(x.cpu().data_ptr<float>()[0] != 7.0f, "a seven first");
  return x * 2;
}
)";
  const auto failed = probe(picky, other);
  EXPECT_EQ(failed.status, Status::Exception) << failed.message;
  EXPECT_TRUE(failed.first_call_failed);
  const auto misfit = probe(kaudit::test::kTwiceKernel, at::zeros({5}));
  EXPECT_EQ(misfit.status, Status::Exception);
  EXPECT_NE(misfit.message.find("first call"), std::string::npos) << misfit.message;
  expect_twice_still_right();
}

// A wrapper's library compute is counted on the device too (ATen's operator callbacks:
// runtime/cuda/gpu_run.h, library_calls_during), one per call the wrapper makes, and so are its
// own launches (include/kaudit_launch_count.h), not libtorch's.
TEST(Gpu, LibraryComputeIsCountedPerCallTheWrapperMakes) {
  SKIP_WITHOUT_GPU();
  const char* hybrid = R"(
#include <torch/extension.h>
__global__ void relu_inplace(float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = y[i] > 0.0f ? y[i] : 0.0f;
}
torch::Tensor run(torch::Tensor x) {
  auto y = torch::nn::functional::linear(x, x);
  int n = y.numel();
  relu_inplace<<<(n + 127) / 128, 128>>>(y.data_ptr<float>(), n);
  return y;
}
)";
  const at::Tensor x = at::randn({16, 16});
  const auto r = run(hybrid, "run", x);
  ASSERT_EQ(r.status, Status::Ok) << r.message;
  ASSERT_EQ(r.outputs.size(), 1u);
  EXPECT_TRUE(at::allclose(r.outputs[0], at::relu(at::linear(x, x)), 1e-4, 1e-5));
  EXPECT_EQ(r.library_calls, 1);
  EXPECT_EQ(r.launches, 1);  // relu_inplace; linear's GEMM is libtorch's
  const auto plain = run(kaudit::test::kTwiceKernel, "run", at::arange(100, at::kFloat));
  ASSERT_EQ(plain.status, Status::Ok) << plain.message;
  EXPECT_EQ(plain.library_calls, 0);
  EXPECT_EQ(plain.launches, 1);
}

// Launches are counted however the wrapper makes them (<<<>>>, cudaLaunchKernel by name), per
// call; a launch refused for its configuration is none (as on the CPU backend), and a wrapper that
// computes with torch alone launches none of its own.
TEST(Gpu, TheWrappersOwnLaunchesAreCountedPerCall) {
  SKIP_WITHOUT_GPU();
  const std::string add_one = R"(
#include <torch/extension.h>
__global__ void add_one(float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] += 1.0f;
}
)";
  const std::string three = add_one + R"(
torch::Tensor run(torch::Tensor x) {
  auto y = x.clone();
  float* p = y.data_ptr<float>();
  int n = y.numel();
  add_one<<<(n + 127) / 128, 128>>>(p, n);
  cudaStream_t s;
  cudaStreamCreate(&s);
  add_one<<<dim3((n + 63) / 64), 64, 32, s>>>(p, n);
  cudaStreamSynchronize(s);
  cudaStreamDestroy(s);
  void* args[] = {&p, &n};
  cudaLaunchKernel((const void*)add_one, dim3((n + 127) / 128), dim3(128), args, 0, 0);
  return y;
}
)";
  const std::string refused_then_one = add_one + R"(
torch::Tensor run(torch::Tensor x) {
  auto y = x.clone();
  int n = y.numel();
  add_one<<<1, 2048>>>(y.data_ptr<float>(), n);  // more than 1024 threads a block: refused
  (void)cudaGetLastError();
  add_one<<<(n + 127) / 128, 128>>>(y.data_ptr<float>(), n);
  return y;
}
)";
  const char* none = R"(
#include <torch/extension.h>
__global__ void unused(float* y) { y[0] = 0.0f; }
torch::Tensor run(torch::Tensor x) { return x * 2 + 0; }
)";
  const at::Tensor x = at::arange(300, at::kFloat);
  for (int round = 0; round < 2; ++round) {  // the count is per call, not since the library loaded
    const auto r = run(three, "run", x);
    ASSERT_EQ(r.status, Status::Ok) << r.message;
    EXPECT_TRUE(at::equal(r.outputs.at(0), x + 3));
    EXPECT_EQ(r.launches, 3);
    // Each launch's grid, block, shared bytes and stream (a created stream is 1, the default 0).
    EXPECT_EQ(r.launch_log, nlohmann::json::parse(R"([
      {"grid": [3, 1, 1], "block": [128, 1, 1], "shared_bytes": 0, "stream": 0},
      {"grid": [5, 1, 1], "block": [64, 1, 1], "shared_bytes": 32, "stream": 1},
      {"grid": [3, 1, 1], "block": [128, 1, 1], "shared_bytes": 0, "stream": 0}])"))
        << r.launch_log.dump();
  }
  const auto one = run(refused_then_one, "run", x);
  ASSERT_EQ(one.status, Status::Ok) << one.message;
  EXPECT_TRUE(at::equal(one.outputs.at(0), x + 1));
  EXPECT_EQ(one.launches, 1);
  EXPECT_EQ(one.launch_log.size(), 1u);  // the refused launch is none
  const auto n = run(none, "run", x);
  ASSERT_EQ(n.status, Status::Ok) << n.message;
  EXPECT_EQ(n.launches, 0);
}

// Tensors of 16 MiB and more travel through kept buffers on both sides (runtime/host_buffers.h):
// the inputs the worker reads and the outputs it copies back. Runs of different sizes and
// contents, one after another, each get exactly their own answer, never bytes of an earlier run.
TEST(Gpu, LargeTensorsComeBackExactlyRunAfterRun) {
  SKIP_WITHOUT_GPU();
  for (const std::int64_t n : {std::int64_t{8} << 20, std::int64_t{8} << 20, std::int64_t{5} << 20, std::int64_t{8} << 20}) {
    const at::Tensor x = at::arange(n, at::kFloat).add_(static_cast<double>(n % 7));
    const auto r = run(kaudit::test::kTwiceKernel, "run", x);
    ASSERT_EQ(r.status, Status::Ok) << r.message;
    ASSERT_EQ(r.outputs.size(), 1u);
    EXPECT_TRUE(at::equal(r.outputs[0], x * 2)) << n << " elements";
  }
}

// A pool tensor in a sealed memfd reaches the CUDA context as its descriptor, mapped read-only
// and copied to the device from there (runtime/shared_tensor.h), with the same result as bytes.
TEST(Gpu, ASharedInputIsHandedOverAsAFile) {
  SKIP_WITHOUT_GPU();
  const at::Tensor x = kaudit::runtime::share_in_memfd(at::arange(std::int64_t{8} << 20, at::kFloat));
  ASSERT_TRUE(kaudit::runtime::shared_bytes(x));
  for (int round = 0; round < 2; ++round) {
    const auto before = gpu_runner().times();
    const auto r = run(kaudit::test::kTwiceKernel, "run", x);
    ASSERT_EQ(r.status, Status::Ok) << r.message;
    ASSERT_EQ(r.outputs.size(), 1u);
    EXPECT_TRUE(at::equal(r.outputs[0], x * 2));
    EXPECT_EQ((gpu_runner().times() - before).bytes_shared, x.nbytes());
  }
}

// The broken context's process ends; the worker's zygote forks the next, which says ready on the
// same pipes: one start more, the same worker.
TEST(Gpu, AnIllegalAddressIsACrashAndTheNextRunGetsAFreshContext) {
  SKIP_WITHOUT_GPU();
  expect_twice_still_right();
  const pid_t worker = gpu_runner().worker_pid();
  const int starts = gpu_runner().starts();
  const auto r = run(kWildKernel, "run", at::ones({32}));
  EXPECT_EQ(r.status, Status::Crash) << r.message;
  EXPECT_NE(r.message.find("cudaErrorIllegalAddress"), std::string::npos) << r.message;
  expect_twice_still_right();
  EXPECT_EQ(gpu_runner().worker_pid(), worker);
  EXPECT_EQ(gpu_runner().starts(), starts + 1);
}

// nvcc runs confined (issue 21, item 3): a kernel that includes a file outside the system's, the
// toolkit's and libtorch's folders fails to build, and the diagnostics do not carry the file. With
// the sandbox off the same text builds the file's contents in: the control that the test can fail.
TEST(Gpu, NvccCannotReadAFileOutsideItsFolders) {
  SKIP_WITHOUT_GPU();
  char folder[] = "/tmp/kaudit-nvcc-outside-XXXXXX";
  ASSERT_NE(mkdtemp(folder), nullptr);
  const std::string secret = std::string(folder) + "/secret.h";
  FILE* f = std::fopen(secret.c_str(), "w");
  ASSERT_NE(f, nullptr);
  std::fputs("kaudit_secret_5b1c;\n", f);
  std::fclose(f);
  const std::string source = "#include \"" + secret + "\"\n" + kaudit::test::kTwiceKernel;
  kaudit::cuda::CudaCompiler uncached(std::string(folder) + "/cache", kaudit::cuda::probe_gpu().arch());
  ::setenv("KAUDIT_SANDBOX", "off", 1);
  const kaudit::cuda::CudaBuild open = uncached.build(source, "outside.cu", "run");
  ::unsetenv("KAUDIT_SANDBOX");
  EXPECT_FALSE(open.ok);
  EXPECT_NE(open.diagnostics.find("kaudit_secret_5b1c"), std::string::npos) << open.diagnostics;
  const kaudit::cuda::CudaBuild confined = uncached.build(source, "outside.cu", "run");
  EXPECT_FALSE(confined.ok);
  EXPECT_EQ(confined.diagnostics.find("kaudit_secret_5b1c"), std::string::npos) << confined.diagnostics;
  EXPECT_NE(confined.diagnostics.find("secret.h"), std::string::npos) << confined.diagnostics;
  kaudit::remove_tree(folder);  // not std::filesystem::remove_all: common/files.h says why
  expect_twice_still_right();  // a confined build of a correct kernel
}

TEST(Gpu, AnImpossibleLaunchIsALaunchError) {
  SKIP_WITHOUT_GPU();
  const char* too_big = R"(
#include <torch/extension.h>
__global__ void k(float* y) { y[threadIdx.x] = 1.0f; }
torch::Tensor run(torch::Tensor x) {
  auto y = torch::empty_like(x);
  k<<<1, 4096>>>(y.data_ptr<float>());
  return y;
}
)";
  const auto r = run(too_big, "run", at::ones({4096}));
  EXPECT_EQ(r.status, Status::LaunchError) << r.message;
  expect_twice_still_right();
}

TEST(Gpu, AHangingKernelIsATimeout) {
  SKIP_WITHOUT_GPU();
  const char* spin = R"(
#include <torch/extension.h>
__global__ void spin(volatile float* y) { while (y[0] == 0.0f) {} }
torch::Tensor run(torch::Tensor x) {
  auto y = torch::zeros_like(x);
  spin<<<1, 1>>>(y.data_ptr<float>());
  return y;
}
)";
  const auto r = run(spin, "run", at::ones({4}));
  EXPECT_EQ(r.status, Status::Timeout) << r.message;
  expect_twice_still_right();
}

TEST(Gpu, AWrapperExceptionIsAnException) {
  SKIP_WITHOUT_GPU();
  const char* check = R"(
#include <torch/extension.h>
torch::Tensor run(torch::Tensor x) {
  TORCH_CHECK(x.dim() == 2, "expected a matrix");
  return x;
}
)";
  const auto r = run(check, "run", at::ones({4}));
  EXPECT_EQ(r.status, Status::Exception) << r.message;
  EXPECT_NE(r.message.find("expected a matrix"), std::string::npos) << r.message;
  expect_twice_still_right();
}

// Oracle mode on the GPU: a checker's loop (two trials, reference first) served by the CUDA worker
// with PyTorch's caching allocator. A correct kernel passes both trials; one that faults is killed
// with the cause "crash" on its first trial, and the loop after it, on a fresh worker, passes.
kaudit::oracle::HarnessResult harness(const std::string& source, const at::Tensor& x,
                                      kaudit::oracle::HarnessRequest& rq) {
  const kaudit::cuda::CudaBuild b = compiler().build(source, "gpu_test.cu", "run");
  EXPECT_TRUE(b.ok) << b.diagnostics;
  rq.library = b.library;
  rq.comparator = {kaudit::oracle::ComparatorKind::Allclose, 1e-2, 1e-2, false, {}};
  rq.models = {{}};
  for (int t = 0; t < 2; ++t) {
    kaudit::oracle::HarnessTrial trial;
    trial.inputs = {x + t};
    kaudit::oracle::HarnessArg arg;
    arg.kind = kaudit::oracle::HarnessArg::Kind::Input;
    trial.args = {arg};
    trial.harness_reference = trial.judge_reference = {(x + t) * 2};
    rq.trials.push_back(trial);
  }
  return kaudit::oracle::run_harness(gpu_runner(), rq);
}

TEST(Gpu, ACheckersLoopRunsOnTheDevice) {
  SKIP_WITHOUT_GPU();
  const at::Tensor x = at::arange(1000, at::kFloat);
  kaudit::oracle::HarnessRequest good;
  const auto r = harness(kaudit::test::kTwiceKernel, x, good);
  ASSERT_EQ(r.trials.size(), 2u);
  EXPECT_FALSE(kaudit::oracle::harness_verdict(good, r).killed);
  EXPECT_TRUE(at::equal(r.trials[1].outputs.at(0), (x + 1) * 2));

  kaudit::oracle::HarnessRequest bad;
  const auto v = kaudit::oracle::harness_verdict(bad, harness(kWildKernel, x, bad));
  EXPECT_TRUE(v.killed);
  EXPECT_EQ(v.trial, 0);
  EXPECT_EQ(v.cause, "crash") << v.detail;

  kaudit::oracle::HarnessRequest again;
  const auto r2 = harness(kaudit::test::kTwiceKernel, x, again);
  EXPECT_FALSE(kaudit::oracle::harness_verdict(again, r2).killed);
}

// The task's Model on the device (oracle/reference.h): the outputs come back to the host, the
// float64 reference is the host's up to summation order, and the host process keeps no device
// memory once a forward is done (cuda/device.h, prepare_host_process: no caching allocator there,
// and no variable left for the processes it starts): forwards moving about 1.2 GB, against 64 MiB
// for what stays after a first small forward has set up cuBLAS; a caching allocator would keep the
// forwards' blocks.
TEST(Gpu, ReferencesRunOnTheDeviceAndLeaveNoMemoryBehind) {
  SKIP_WITHOUT_GPU();
  ASSERT_EQ(kaudit::cuda::prepare_host_process(), "");
  EXPECT_EQ(std::getenv("PYTORCH_NO_CUDA_MEMORY_CACHING"), nullptr);
  std::vector<kaudit::corpus::Diagnostic> diags;
  const auto task = kaudit::corpus::load_task(std::filesystem::path(KAUDIT_FIXTURES_DIR) / "corpus_good/tasks/linear_relu", diags);
  ASSERT_TRUE(task) << (diags.empty() ? "" : diags[0].message);
  kaudit::oracle::ReferenceStore store(KAUDIT_TEST_CACHE, kaudit::oracle::default_export_script());
  const at::Device gpu(at::kCUDA, 0);
  store.set_placement({gpu, gpu});
  kaudit::corpus::Assignment dims = kaudit::corpus::resolve(*task, "small");
  kaudit::oracle::Recipe recipe;
  recipe.seed = 7;
  // What a first forward sets up stays, by design (the context's lazily loaded cuBLAS kernels, its
  // workspaces: 190 MB on an H100 with PyTorch 2.11): a small forward first, then the count.
  const kaudit::oracle::Reference ref = store.load(*task, dims);
  ASSERT_TRUE(ref.device(at::kFloat).is_cuda());
  for (const auto dtype : {at::kDouble, at::kFloat})
    (void)ref.forward(kaudit::oracle::make_inputs(*task, recipe, dims), dtype);
  const std::int64_t before = kaudit::cuda::device_free_bytes();
  for (auto& [name, value] : dims)
    if (name == "B") value = 1 << 22;
  const auto inputs = kaudit::oracle::make_inputs(*task, recipe, dims);
  const auto host64 = ref.forward(inputs, at::kDouble, at::kCPU);
  const auto dev64 = ref.forward(inputs, at::kDouble);
  const auto dev32 = ref.forward(inputs, at::kFloat);
  const std::int64_t after = kaudit::cuda::device_free_bytes();
  ASSERT_EQ(dev64.size(), host64.size());
  EXPECT_TRUE(dev64[0].device().is_cpu());
  EXPECT_EQ(dev64[0].scalar_type(), at::kDouble);
  EXPECT_EQ(dev32[0].scalar_type(), at::kFloat);
  EXPECT_TRUE(at::allclose(dev64[0], host64[0], 1e-12, 1e-12));
  EXPECT_TRUE(at::allclose(dev32[0].to(at::kDouble), host64[0], 1e-3, 1e-3));
  EXPECT_EQ(store.host_fallbacks(), 0);
  ASSERT_GE(before, 0);
  EXPECT_LT(std::llabs(after - before), std::int64_t(64) << 20) << "free before " << before << ", after " << after;
}

}  // namespace
