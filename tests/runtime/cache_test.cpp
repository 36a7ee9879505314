// Issue 21, item 4: a cached kernel library is used only when its bytes match the digest recorded
// when it was built. A truncated library, or another kernel's copied over it, is reported, built
// again, and the run's result stays correct.
#include <ATen/ATen.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "common/cache.h"
#include "tests/runtime/kernel_fixture.h"

using kaudit::runtime::Status;
namespace fs = std::filesystem;

namespace {

// A source of its own (the process id in a comment): its cache entry is this test's to damage.
std::string kernel(const char* factor) {
  return "// cache test " + std::to_string(getpid()) + R"(
#include <torch/extension.h>
__global__ void scale(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = )" + factor + R"(f * x[i];
}
torch::Tensor run(torch::Tensor x) {
  auto y = torch::empty_like(x);
  scale<<<(x.numel() + 127) / 128, 128>>>(x.data_ptr<float>(), y.data_ptr<float>(), x.numel());
  return y;
}
)";
}

kaudit::runtime::RunResult run_library(const fs::path& library, const at::Tensor& x) {
  kaudit::runtime::RunRequest req;
  req.library = library;
  req.args.push_back(kaudit::runtime::EntryArg::of(x));
  return kaudit::test::test_runner().run(req);
}

TEST(CacheIntegrity, ADamagedKernelLibraryIsReportedAndBuiltAgain) {
  auto& compiler = kaudit::test::test_compiler();
  const std::string twice = kernel("2.0"), thrice = kernel("3.0");
  auto a = compiler.build(twice, "twice.cu", "run");
  auto b = compiler.build(thrice, "thrice.cu", "run");
  ASSERT_TRUE(a.ok && b.ok) << a.diagnostics << b.diagnostics;
  ASSERT_TRUE(fs::is_regular_file(kaudit::cache::digest_path(a.library)));
  EXPECT_TRUE(compiler.build(twice, "twice.cu", "run").cache_hit);
  const auto x = at::arange(300, at::kFloat);

  // Another kernel's library copied over this one (what a hostile kernel did to the cache).
  fs::copy_file(b.library, a.library, fs::copy_options::overwrite_existing);
  testing::internal::CaptureStderr();
  auto rebuilt = compiler.build(twice, "twice.cu", "run");
  const std::string err = testing::internal::GetCapturedStderr();
  ASSERT_TRUE(rebuilt.ok) << rebuilt.diagnostics;
  EXPECT_FALSE(rebuilt.cache_hit);
  EXPECT_NE(err.find(a.library.string()), std::string::npos) << err;  // reported, naming the file
  auto r = run_library(rebuilt.library, x);
  ASSERT_EQ(r.status, Status::Ok) << r.message;
  EXPECT_TRUE(at::equal(r.outputs[0], x * 2));

  // Truncated (a full disk, an interrupted copy): built again, not an audit of false kills.
  fs::resize_file(a.library, fs::file_size(a.library) / 3);
  rebuilt = compiler.build(twice, "twice.cu", "run");
  ASSERT_TRUE(rebuilt.ok) << rebuilt.diagnostics;
  EXPECT_FALSE(rebuilt.cache_hit);
  r = run_library(rebuilt.library, x);
  ASSERT_EQ(r.status, Status::Ok) << r.message;
  EXPECT_TRUE(at::equal(r.outputs[0], x * 2));
  EXPECT_TRUE(compiler.build(twice, "twice.cu", "run").cache_hit);

  for (const auto& lib : {a.library, b.library}) {
    fs::remove(lib);
    fs::remove(kaudit::cache::digest_path(lib));
  }
}

}  // namespace
