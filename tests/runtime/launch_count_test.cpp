// The CUDA backend's launch counting (runtime/cuda/include/kaudit_launch_count.h) is a matter of
// how a build is linked, so it is checked here with nvcc alone, no GPU needed: a launch the CUDA
// runtime refuses for want of a device is still one the code asked for, and counted. The same
// count on a device is Gpu.TheWrappersOwnLaunchesAreCountedPerCall (gpu_tests).
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "common/process.h"
#include "runtime/cuda/build.h"

namespace {
namespace fs = std::filesystem;

const char* const kLaunchesThree = R"(
#include "kaudit_launch_count.h"
__global__ void add_one(float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] += 1.0f;
}
extern "C" int launch_three(float* p, int n) {
  add_one<<<1, 32>>>(p, n);
  add_one<<<dim3(4, 2), 64, 256, (cudaStream_t)0x5000>>>(p, n);
  void* args[] = {&p, &n};
  cudaLaunchKernel((const void*)add_one, dim3(3), dim3(32), args, 0, 0);
  return 0;
}
)";

// Builds kLaunchesThree (as PTX, which any GPU from sm_75 on compiles at load: a GPU's refusal of a
// missing image is not counted, and would fail the test) into a shared library in `dir` with `extra` flags; "" when nvcc fails.
std::string build(const fs::path& dir, const std::vector<std::string>& extra, std::string* diagnostics) {
  const fs::path src = dir / "launches.cu", lib = dir / ("launches" + std::to_string(extra.size()) + ".so");
  std::ofstream(src) << kLaunchesThree;
  std::vector<std::string> argv = {kaudit::cuda::find_nvcc(), "-std=c++17", "-arch=compute_75", "--shared", "-Xcompiler",
                                   "-fPIC", "-I", kaudit::cuda::gpu_include_dir(), src.string(), "-o", lib.string()};
  argv.insert(argv.end(), extra.begin(), extra.end());
  const auto r = kaudit::run_process(argv, 300);
  *diagnostics = r.err + r.out + r.spawn_error;
  return r.ok() ? lib.string() : "";
}

TEST(LaunchCount, AWrappedBuildCountsEveryLaunchItsCodeMakes) {
  const auto probe = kaudit::run_process({kaudit::cuda::find_nvcc(), "--version"}, 60);
  if (!probe.ok()) GTEST_SKIP() << "no nvcc (" << kaudit::cuda::find_nvcc() << "): the CUDA toolkit is not installed";
  const fs::path dir = fs::temp_directory_path() / ("kaudit-launch-count-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::string diagnostics;
  const std::string counted = build(dir, kaudit::cuda::launch_count_flags(), &diagnostics);
  ASSERT_FALSE(counted.empty()) << diagnostics;
  const std::string plain = build(dir, {}, &diagnostics);
  ASSERT_FALSE(plain.empty()) << diagnostics;
  for (const auto& [lib, per_call] : {std::pair{counted, 3}, std::pair{plain, -1}}) {
    void* h = dlopen(lib.c_str(), RTLD_NOW | RTLD_LOCAL);
    ASSERT_NE(h, nullptr) << dlerror();
    const auto launch = reinterpret_cast<int (*)(float*, int)>(dlsym(h, "launch_three"));
    const auto launches = reinterpret_cast<int (*)()>(dlsym(h, "kaudit_gpu_launches"));
    ASSERT_TRUE(launch && launches);
    EXPECT_EQ(launches(), per_call < 0 ? -1 : 0) << lib;
    launch(nullptr, 0);
    launch(nullptr, 0);
    EXPECT_EQ(launches(), per_call < 0 ? -1 : 2 * per_call) << lib;
    // Each launch's configuration, as the worker reads it for the run's launch log: grid, block,
    // dynamic shared bytes, stream handle (never dereferenced: no device here).
    const auto record = reinterpret_cast<int (*)(int, unsigned long long*)>(dlsym(h, "kaudit_gpu_launch_record"));
    ASSERT_TRUE(record);
    unsigned long long r[8] = {};
    if (per_call < 0) {
      EXPECT_EQ(record(0, r), 0);
      continue;
    }
    const std::vector<std::vector<unsigned long long>> expected = {
        {1, 1, 1, 32, 1, 1, 0, 0}, {4, 2, 1, 64, 1, 1, 256, 0x5000}, {3, 1, 1, 32, 1, 1, 0, 0}};
    for (int n = 0; n < 6; ++n) {
      ASSERT_EQ(record(n, r), 1) << n;
      EXPECT_EQ(std::vector<unsigned long long>(r, r + 8), expected[n % 3]) << n;
    }
    EXPECT_EQ(record(6, r), 0);  // not launched yet
    EXPECT_EQ(record(-1, r), 0);
  }
  fs::remove_all(dir);
}

// A build PyTorch's extension builder makes from an exported solution file (kaudit export-mutants)
// carries both headers written out: no include of kaudit's folders is left, and its launch count
// answers -1 there (no wraps in that link).
TEST(LaunchCount, AStandaloneSourceCarriesTheCountWithoutKauditsFolders) {
  const std::string text = kaudit::cuda::standalone_gpu_source("torch::Tensor run(torch::Tensor x) { return x; }\n",
                                                               "k.cu", "run", "kaudit_lib", "a test");
  EXPECT_EQ(text.find("#include \"kaudit_"), std::string::npos) << text;
  EXPECT_EQ(text.find("#line"), std::string::npos);
  EXPECT_NE(text.find("kaudit_gpu_launches"), std::string::npos);
  EXPECT_NE(text.find("#if defined(KAUDIT_COUNT_LAUNCHES)"), std::string::npos);
  EXPECT_NE(text.find("KAUDIT_GPU_ENTRY(::run, kaudit_lib)"), std::string::npos);
}

}  // namespace
