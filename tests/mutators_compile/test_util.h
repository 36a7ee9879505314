// Helpers shared by the kaudit_nvrtc tests.
#pragma once

#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <system_error>
#include <unistd.h>

#include "mutators/compile/nvrtc.h"
#include "common/files.h"

namespace kaudit::mutators::testing {

inline std::string read_text(const std::filesystem::path& p) { return kaudit::read_file(p).value_or(std::string()); }

inline std::filesystem::path corpus_dir() { return KAUDIT_CORPUS_DIR; }
inline std::filesystem::path fixtures_dir() { return KAUDIT_NVRTC_FIXTURES_DIR; }

inline std::string corpus_kernel(std::string_view task, std::string_view name) {
  return read_text(corpus_dir() / "kernels" / task / (std::string(name) + ".cu"));
}

// A small kernel text: `scale(y, x, n)` with the given body (lines of its own, each ending in a
// newline), after `before` at file scope, and the host wrapper `run` that launches it on x.
inline std::string scale_kernel(std::string_view before, std::string_view body) {
  return "\n#include <torch/extension.h>\n" + std::string(before) +
         "__global__ void scale(float* y, const float* x, int n) {\n" + std::string(body) +
         "}\n"
         "torch::Tensor run(torch::Tensor x) {\n"
         "    auto y = torch::empty_like(x);\n"
         "    const int n = x.numel();\n"
         "    scale<<<(n + 255) / 256, 256>>>(y.data_ptr<float>(), x.data_ptr<float>(), n);\n"
         "    return y;\n"
         "}\n";
}

// `text` with the n-th (0-based) occurrence of `from` replaced by `to`; fails the test if absent.
inline std::string replace_nth(const std::string& text, std::string_view from, std::string_view to,
                               int n = 0) {
  size_t pos = text.find(from);
  for (int i = 0; i < n && pos != std::string::npos; ++i) pos = text.find(from, pos + 1);
  EXPECT_NE(pos, std::string::npos) << "pattern not found: " << from;
  if (pos == std::string::npos) return text;
  std::string out = text;
  out.replace(pos, from.size(), to);
  return out;
}

// A fresh cache directory under the build tree, removed at the end of the test.
class TempCacheDir {
 public:
  TempCacheDir() {
    static std::atomic<int> counter{0};
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    std::string name = info ? std::string(info->test_suite_name()) + "." + info->name() : "nvrtc";
    path_ = std::filesystem::path(KAUDIT_TEST_CACHE) / "nvrtc_tests" /
            (name + "-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
    std::filesystem::create_directories(path_, ec);
  }
  ~TempCacheDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace kaudit::mutators::testing

// Skips the test cleanly on a machine without NVRTC.
#define KAUDIT_REQUIRE_NVRTC(compiler)                                     \
  do {                                                                     \
    if (!(compiler).available())                                           \
      GTEST_SKIP() << (compiler).compile("", "probe.cu").first_diagnostic; \
  } while (0)
