// NvrtcCompiler: determinism, diagnostics, cache, template instantiation, image equivalence.
// Every test skips cleanly when NVRTC is unavailable.
#include <gtest/gtest.h>

#include <filesystem>
#include <cstdlib>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/sandbox.h"
#include "mutators/compile/dedup.h"
#include "mutators/compile/nvrtc.h"
#include "test_util.h"

namespace kaudit::mutators {
namespace {

using testing::corpus_kernel;
using testing::read_text;
using testing::replace_nth;
using testing::TempCacheDir;

constexpr const char* kTinyKernel = R"(#include <torch/extension.h>
__global__ void scale_kernel(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = 3.0f * x[i];
}
torch::Tensor scale(torch::Tensor x) {
  auto y = torch::empty_like(x);
  int n = x.numel();
  scale_kernel<<<(n + 255) / 256, 256>>>(x.data_ptr<float>(), y.data_ptr<float>(), n);
  return y;
}
)";

TEST(Nvrtc, ReportsVersionAndOptions) {
  NvrtcCompiler nvrtc("");
  KAUDIT_REQUIRE_NVRTC(nvrtc);
  EXPECT_TRUE(std::regex_match(nvrtc.nvrtc_version(), std::regex(R"(\d+\.\d+)")))
      << nvrtc.nvrtc_version();
  const auto& o = nvrtc.options();
  auto has = [&](const std::string& s) { return std::find(o.begin(), o.end(), s) != o.end(); };
  EXPECT_TRUE(has("--gpu-architecture=sm_90"));
  EXPECT_TRUE(has("-std=c++17"));
  EXPECT_TRUE(has("-default-device"));
  EXPECT_TRUE(has("-rdc=true"));
  for (const std::string& opt : o) {
    EXPECT_NE(opt, "-G");
    EXPECT_NE(opt, "-lineinfo");
    EXPECT_NE(opt, "--generate-line-info");
  }
  EXPECT_FALSE(NvrtcCompiler::prelude().empty());
}

TEST(Nvrtc, SameTextGivesTheSameImageColdAndWarm) {
  TempCacheDir dir;
  NvrtcCompiler cached(dir.path());
  NvrtcCompiler uncached("");
  KAUDIT_REQUIRE_NVRTC(cached);
  const std::string src = corpus_kernel("softmax", "softmax_block_smem");

  CompileResult a = uncached.compile(src, "softmax_block_smem.cu");
  CompileResult b = uncached.compile(src, "softmax_block_smem.cu");
  ASSERT_TRUE(a.ok()) << a.log;
  ASSERT_TRUE(b.ok()) << b.log;
  EXPECT_EQ(a.image_sha256.size(), 64u);
  EXPECT_EQ(a.image_sha256, b.image_sha256);  // two independent NVRTC runs, byte-identical CUBIN
  EXPECT_FALSE(a.cache_hit);
  EXPECT_FALSE(b.cache_hit);

  CompileResult cold = cached.compile(src, "softmax_block_smem.cu");
  CompileResult warm = cached.compile(src, "softmax_block_smem.cu");
  ASSERT_TRUE(cold.ok());
  ASSERT_TRUE(warm.ok());
  EXPECT_FALSE(cold.cache_hit);
  EXPECT_TRUE(warm.cache_hit);
  EXPECT_EQ(cold.image_sha256, a.image_sha256);
  EXPECT_EQ(warm.image_sha256, a.image_sha256);
  EXPECT_LT(warm.milliseconds, cold.milliseconds);
}

TEST(Nvrtc, ImageDoesNotDependOnTheFileName) {
  NvrtcCompiler nvrtc("");
  KAUDIT_REQUIRE_NVRTC(nvrtc);
  CompileResult a = nvrtc.compile(kTinyKernel, "a/one.cu");
  CompileResult b = nvrtc.compile(kTinyKernel, "b/two.cu");
  ASSERT_TRUE(a.ok()) << a.log;
  EXPECT_EQ(a.image_sha256, b.image_sha256);
}

// The fp16/bf16 headers are pulled in only for sources that mention half or bfloat16 types; that
// choice must never change an image by itself.
TEST(Nvrtc, OptionalPreludePartsDoNotChangeTheImage) {
  NvrtcCompiler nvrtc("");
  KAUDIT_REQUIRE_NVRTC(nvrtc);
  CompileResult plain = nvrtc.compile(kTinyKernel, "t.cu");
  CompileResult with_word = nvrtc.compile(std::string(kTinyKernel) + "// half bfloat16\n", "t.cu");
  ASSERT_TRUE(plain.ok()) << plain.log;
  ASSERT_TRUE(with_word.ok()) << with_word.log;
  EXPECT_EQ(plain.image_sha256, with_word.image_sha256);
}

TEST(Nvrtc, SyntaxErrorIsFailedWithFileLineDiagnostic) {
  NvrtcCompiler nvrtc("");
  KAUDIT_REQUIRE_NVRTC(nvrtc);
  // Line 4 loses its semicolon.
  const std::string bad = replace_nth(kTinyKernel, "y[i] = 3.0f * x[i];", "y[i] = 3.0f * x[i]");
  CompileResult r = nvrtc.compile(bad, "kernels/bad.cu");
  EXPECT_EQ(r.status, CompileResult::Failed);
  EXPECT_TRUE(r.image_sha256.empty());
  EXPECT_TRUE(
      std::regex_match(r.first_diagnostic, std::regex(R"(kernels/bad\.cu:[45]: error: .+)")))
      << r.first_diagnostic;
  EXPECT_NE(r.log.find("kernels/bad.cu:"), std::string::npos) << r.log;
  EXPECT_EQ(r.log.find(NvrtcCompiler::kInternalFileName), std::string::npos) << r.log;

  // An undeclared identifier in the host wrapper is reported at its line too.
  const std::string bad_host =
      replace_nth(kTinyKernel, "int n = x.numel();", "int n = x.numel_typo();");
  CompileResult h = nvrtc.compile(bad_host, "host.cu");
  EXPECT_EQ(h.status, CompileResult::Failed);
  EXPECT_TRUE(
      std::regex_match(h.first_diagnostic, std::regex(R"(host\.cu:8: error: .*numel_typo.*)")))
      << h.first_diagnostic;
}

TEST(Nvrtc, SecondCompileIsACacheHitAndTheCacheFileIsSmallJson) {
  TempCacheDir dir;
  NvrtcCompiler nvrtc(dir.path());
  KAUDIT_REQUIRE_NVRTC(nvrtc);
  CompileResult first = nvrtc.compile(kTinyKernel, "tiny.cu");
  ASSERT_TRUE(first.ok()) << first.log;
  EXPECT_FALSE(first.cache_hit);

  const std::filesystem::path file =
      dir.path() / "nvrtc" / (nvrtc.cache_key(kTinyKernel) + ".json");
  ASSERT_TRUE(std::filesystem::exists(file)) << file;
  // A record: a digest line, then the JSON (common/cache.h).
  const std::string record = read_text(file);
  ASSERT_EQ(record.rfind("kaudit-sha256 ", 0), 0u) << record;
  auto j = nlohmann::json::parse(record.substr(record.find('\n') + 1));
  EXPECT_EQ(j.at("status"), "ok");
  EXPECT_EQ(j.at("image_sha256"), first.image_sha256);
  EXPECT_TRUE(j.contains("first_diagnostic"));
  EXPECT_LT(std::filesystem::file_size(file), 4096u);  // the image itself is not stored
  size_t entries = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir.path() / "nvrtc")) {
    (void)e;
    ++entries;  // no temporary file is left behind
  }
  EXPECT_EQ(entries, 1u);

  CompileResult second = nvrtc.compile(kTinyKernel, "tiny.cu");
  EXPECT_TRUE(second.cache_hit);
  EXPECT_EQ(second.status, CompileResult::Ok);
  EXPECT_EQ(second.image_sha256, first.image_sha256);

  // A different source is a different key; a different file name is not.
  EXPECT_NE(nvrtc.cache_key(kTinyKernel), nvrtc.cache_key(std::string(kTinyKernel) + "\n"));
  EXPECT_TRUE(nvrtc.compile(kTinyKernel, "elsewhere/tiny.cu").cache_hit);

  // A failure is cached too, and its diagnostic follows the caller's file name.
  const std::string bad = replace_nth(kTinyKernel, "3.0f * x[i];", "3.0f * x[i]");
  CompileResult f1 = nvrtc.compile(bad, "one.cu");
  CompileResult f2 = nvrtc.compile(bad, "two.cu");
  EXPECT_EQ(f1.status, CompileResult::Failed);
  EXPECT_FALSE(f1.cache_hit);
  EXPECT_TRUE(f2.cache_hit);
  EXPECT_EQ(f2.status, CompileResult::Failed);
  EXPECT_EQ(f1.first_diagnostic.rfind("one.cu:", 0), 0u) << f1.first_diagnostic;
  EXPECT_EQ(f2.first_diagnostic.rfind("two.cu:", 0), 0u) << f2.first_diagnostic;

  // A corrupt cache entry is ignored and rewritten.
  { std::ofstream(file) << "{not json"; }
  CompileResult third = nvrtc.compile(kTinyKernel, "tiny.cu");
  EXPECT_FALSE(third.cache_hit);
  EXPECT_EQ(third.image_sha256, first.image_sha256);
  EXPECT_TRUE(nvrtc.compile(kTinyKernel, "tiny.cu").cache_hit);

  // A record changed behind its digest (here: another image hash) is not used either.
  {
    std::string forged = read_text(file);
    const auto at = forged.find(first.image_sha256);
    ASSERT_NE(at, std::string::npos);
    forged.replace(at, 64, std::string(64, 'f'));
    std::ofstream(file, std::ios::binary | std::ios::trunc) << forged;
  }
  CompileResult fourth = nvrtc.compile(kTinyKernel, "tiny.cu");
  EXPECT_FALSE(fourth.cache_hit);
  EXPECT_EQ(fourth.image_sha256, first.image_sha256);
}

// `i < n` and `n > i` are the same program: same image (equivalent to the original). Two
// different spellings of one real change (`i <= n`, `n >= i`) are duplicates of each other.
TEST(Nvrtc, SwappedComparisonIsTheSameImage) {
  NvrtcCompiler nvrtc("");
  KAUDIT_REQUIRE_NVRTC(nvrtc);
  const std::string src = corpus_kernel("relu", "relu_gridstride");
  const std::string loop = "i < n; i += stride";
  std::vector<std::string> mutants = {
      replace_nth(src, loop, "n > i; i += stride"), replace_nth(src, loop, "i <= n; i += stride"),
      replace_nth(src, loop, "n >= i; i += stride"),
      replace_nth(src, loop, "i < n; i += stride +"),  // stillborn
  };
  CompileResult orig = nvrtc.compile(src, "relu_gridstride.cu");
  ASSERT_TRUE(orig.ok()) << orig.log;
  std::vector<CompileResult> results = compile_all(nvrtc, mutants, "relu_gridstride.cu");
  ASSERT_EQ(results.size(), 4u);
  EXPECT_EQ(results[0].image_sha256, orig.image_sha256);
  EXPECT_NE(results[1].image_sha256, orig.image_sha256);
  EXPECT_EQ(results[1].image_sha256, results[2].image_sha256);

  auto c = classify_images(orig.image_sha256, results);
  EXPECT_EQ(c[0].kind, ImageClass::Equivalent);
  EXPECT_EQ(c[1].kind, ImageClass::Distinct);
  EXPECT_EQ(c[2].kind, ImageClass::Duplicate);
  EXPECT_EQ(c[2].duplicate_of, 1u);
  EXPECT_EQ(c[3].kind, ImageClass::Stillborn);
  EXPECT_EQ(c[3].first_diagnostic.rfind("relu_gridstride.cu:", 0), 0u) << c[3].first_diagnostic;

  // The same in the host wrapper (the wrapper is part of the image).
  CompileResult host_swap = nvrtc.compile(replace_nth(src, "if (n == 0)", "if (0 == n)"), "r.cu");
  EXPECT_EQ(host_swap.image_sha256, orig.image_sha256);
}

// A constant changed inside a template kernel changes the image: the instantiation requested by
// the host wrapper's launch is in the image.
TEST(Nvrtc, ConstantInTemplateKernelChangesTheImage) {
  NvrtcCompiler nvrtc("");
  KAUDIT_REQUIRE_NVRTC(nvrtc);
  struct Case {
    const char* task;
    const char* name;
    const char* from;
    const char* to;
  };
  // explicit template argument through a constexpr, a deduced-in-dispatch scalar_t, a bool
  // template, two-argument templates
  const Case cases[] = {
      {"softmax", "softmax_block_smem", "for (int s = BLOCK / 2; s > 0; s >>= 1)",
       "for (int s = BLOCK / 2; s > 1; s >>= 1)"},
      {"gelu", "gelu_dispatch", "i + 3 * step < n", "i + 2 * step < n"},
      {"softmax", "softmax_block_float4", "o.w = expf(v.w - row_max) * inv;",
       "o.w = expf(v.w - row_max) * inv * 2.0f;"},
      {"maxpool2d", "maxpool2d_template", "float m = src[0];", "float m = src[1];"},
      {"sum_dim", "sum_dim_smem", "__shared__ float partial[ROWS][COLS + 1];",
       "__shared__ float partial[ROWS][COLS + 2];"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(std::string(c.task) + "/" + c.name);
    const std::string src = corpus_kernel(c.task, c.name);
    CompileResult a = nvrtc.compile(src, c.name);
    CompileResult b = nvrtc.compile(replace_nth(src, c.from, c.to), c.name);
    ASSERT_TRUE(a.ok()) << a.log;
    ASSERT_TRUE(b.ok()) << b.log;
    EXPECT_NE(a.image_sha256, b.image_sha256);
  }
}

// The control for the test above: a template kernel that nothing launches is not instantiated,
// so no change inside it can reach the image.
TEST(Nvrtc, TemplateKernelThatIsNeverLaunchedIsNotInTheImage) {
  NvrtcCompiler nvrtc("");
  KAUDIT_REQUIRE_NVRTC(nvrtc);
  const std::string src =
      replace_nth(kTinyKernel, "#include <torch/extension.h>\n",
                  "#include <torch/extension.h>\n"
                  "template <int K>\n"
                  "__global__ void never_launched(float* y) { y[threadIdx.x] = K * 5.0f; }\n");
  CompileResult a = nvrtc.compile(src, "t.cu");
  CompileResult b = nvrtc.compile(replace_nth(src, "K * 5.0f", "K * 7.0f"), "t.cu");
  ASSERT_TRUE(a.ok()) << a.log;
  EXPECT_EQ(a.image_sha256, b.image_sha256);
  // ... until the wrapper launches it.
  const std::string launched = replace_nth(
      src, "return y;", "never_launched<3><<<1, 32>>>(y.data_ptr<float>());\n  return y;");
  CompileResult c = nvrtc.compile(launched, "t.cu");
  CompileResult d = nvrtc.compile(replace_nth(launched, "K * 5.0f", "K * 7.0f"), "t.cu");
  ASSERT_TRUE(c.ok()) << c.log;
  EXPECT_NE(c.image_sha256, d.image_sha256);
}

TEST(Nvrtc, HostSideMutantsChangeTheImageOnlyWhenTheWrapperIsInIt) {
  NvrtcCompiler with_host("");
  NvrtcOptions device_only_options;
  device_only_options.host_code_in_image = false;
  NvrtcCompiler device_only("", device_only_options);
  KAUDIT_REQUIRE_NVRTC(with_host);
  const std::string src = corpus_kernel("relu", "relu_gridstride");
  const std::string floor_div = replace_nth(src, "(n + threads - 1) / threads", "n / threads");
  EXPECT_NE(with_host.compile(src, "r.cu").image_sha256,
            with_host.compile(floor_div, "r.cu").image_sha256);
  CompileResult d0 = device_only.compile(src, "r.cu");
  CompileResult d1 = device_only.compile(floor_div, "r.cu");
  ASSERT_TRUE(d0.ok()) << d0.log;
  EXPECT_EQ(d0.image_sha256, d1.image_sha256);
  // Device-only images still hold every template instantiation the wrapper launches.
  const std::string tsrc = corpus_kernel("softmax", "softmax_block_smem");
  EXPECT_NE(device_only.compile(tsrc, "s.cu").image_sha256,
            device_only.compile(replace_nth(tsrc, "s > 0", "s > 1"), "s.cu").image_sha256);
}

TEST(Nvrtc, CompileAllKeepsOrderAndMatchesSequentialCompiles) {
  NvrtcCompiler nvrtc("");
  KAUDIT_REQUIRE_NVRTC(nvrtc);
  std::vector<std::string> sources = {
      kTinyKernel,
      replace_nth(kTinyKernel, "3.0f", "4.0f"),
      replace_nth(kTinyKernel, "3.0f * x[i];", "3.0f * x[i]"),
      kTinyKernel,
  };
  auto par = compile_all(nvrtc, sources, "tiny.cu", 2);
  ASSERT_EQ(par.size(), sources.size());
  for (size_t i = 0; i < sources.size(); ++i) {
    CompileResult seq = nvrtc.compile(sources[i], "tiny.cu");
    EXPECT_EQ(par[i].status, seq.status) << i;
    EXPECT_EQ(par[i].image_sha256, seq.image_sha256) << i;
    EXPECT_EQ(par[i].first_diagnostic, seq.first_diagnostic) << i;
  }
  EXPECT_EQ(par[0].image_sha256, par[3].image_sha256);
  EXPECT_NE(par[0].image_sha256, par[1].image_sha256);
  EXPECT_EQ(par[2].status, CompileResult::Failed);
  EXPECT_TRUE(compile_all(nvrtc, {}).empty());
}

// compile_all's worker processes and its in-process fallback give the same answers.
TEST(Nvrtc, WorkerProcessesAndInProcessCompilesAgree) {
  TempCacheDir dir;
  NvrtcCompiler nvrtc(dir.path());
  KAUDIT_REQUIRE_NVRTC(nvrtc);
  EXPECT_FALSE(nvrtc_worker_executable().empty()) << "kaudit_nvrtc_worker was not built";
  std::vector<std::string> sources;
  for (const char* c : {"1.0f", "2.0f", "3.0f", "4.0f", "5.0f"})
    sources.push_back(replace_nth(kTinyKernel, "3.0f", c));
  sources.push_back(replace_nth(kTinyKernel, "y[i] = 3.0f * x[i];", "y[i] = 3.0f * x[i]"));

  CompileAllOptions in_process;
  in_process.max_parallelism = 2;
  in_process.worker_processes = false;
  NvrtcCompiler uncached("");
  auto local = compile_all(uncached, sources, "w.cu", in_process);
  CompileAllOptions workers;
  workers.max_parallelism = 3;
  auto remote = compile_all(nvrtc, sources, "w.cu", workers);
  ASSERT_EQ(local.size(), remote.size());
  for (size_t i = 0; i < sources.size(); ++i) {
    EXPECT_EQ(local[i].status, remote[i].status) << i;
    EXPECT_EQ(local[i].image_sha256, remote[i].image_sha256) << i;
    EXPECT_EQ(local[i].first_diagnostic, remote[i].first_diagnostic) << i;
    EXPECT_FALSE(remote[i].cache_hit);
  }
  EXPECT_EQ(remote[5].status, CompileResult::Failed);
  EXPECT_EQ(remote[5].first_diagnostic.rfind("w.cu:", 0), 0u) << remote[5].first_diagnostic;
  // The workers wrote the cache of this compiler.
  for (const std::string& s : sources) EXPECT_TRUE(nvrtc.compile(s, "w.cu").cache_hit);
  auto warm = compile_all(nvrtc, sources, "w.cu", workers);
  for (const CompileResult& r : warm) EXPECT_TRUE(r.cache_hit);
}

TEST(Nvrtc, WorkerFromAnotherConfigurationIsNotUsed) {
  NvrtcCompiler nvrtc("");
  KAUDIT_REQUIRE_NVRTC(nvrtc);
  // A "worker" that is not one: compile_all must notice and compile in this process.
  ::setenv("KAUDIT_NVRTC_WORKER", "/bin/cat", 1);
  auto results =
      compile_all(nvrtc, {kTinyKernel, replace_nth(kTinyKernel, "3.0f", "6.0f")}, "c.cu", 2);
  ::unsetenv("KAUDIT_NVRTC_WORKER");
  ASSERT_EQ(results.size(), 2u);
  EXPECT_TRUE(results[0].ok()) << results[0].log;
  EXPECT_TRUE(results[1].ok()) << results[1].log;
  EXPECT_EQ(results[0].image_sha256, nvrtc.compile(kTinyKernel, "c.cu").image_sha256);
}

// An NVRTC worker is confined (issue 21, item 3): a source that includes a file outside the
// system's and the toolkit's folders cannot read it, so no diagnostic carries its text. With the
// sandbox off, the same source reads it: the control that shows the test can fail.
TEST(NvrtcWorker, AnOutsideIncludeCannotBeRead) {
  NvrtcCompiler probe("");
  KAUDIT_REQUIRE_NVRTC(probe);
  if (sandbox::available_layers().landlock_abi == 0) GTEST_SKIP() << "no Landlock on this machine";
  TempCacheDir outside;
  const std::filesystem::path secret = outside.path() / "secret.h";
  std::ofstream(secret) << "kaudit_secret_7f3a;\n";
  const std::string source = "#include \"" + secret.string() + "\"\n" + kTinyKernel;
  auto compile = [&](bool sandbox_on) {
    if (!sandbox_on) ::setenv("KAUDIT_SANDBOX", "off", 1);
    NvrtcCompiler nvrtc("");  // no cache: each compile is a real one
    CompileAllOptions one;
    one.max_parallelism = 1;
    const CompileResult r = compile_all(nvrtc, {source}, "s.cu", one).at(0);
    ::unsetenv("KAUDIT_SANDBOX");
    return r;
  };
  const CompileResult open = compile(false);
  EXPECT_EQ(open.status, CompileResult::Failed);
  EXPECT_NE(open.log.find("kaudit_secret_7f3a"), std::string::npos) << open.log;
  const CompileResult confined = compile(true);
  EXPECT_EQ(confined.status, CompileResult::Failed);
  EXPECT_EQ(confined.log.find("kaudit_secret_7f3a"), std::string::npos) << confined.log;
  EXPECT_NE(confined.first_diagnostic.find("secret.h"), std::string::npos) << confined.first_diagnostic;
}

// A compile that overruns its limit is stopped and reported Failed, and the worker that takes its
// place compiles the next source (no NVRTC compile takes under a millisecond, the limit here).
TEST(NvrtcWorker, ACompileOverItsTimeIsStoppedAndFailed) {
  NvrtcCompiler nvrtc("");
  KAUDIT_REQUIRE_NVRTC(nvrtc);
  const std::vector<std::string> sources = {kTinyKernel, replace_nth(kTinyKernel, "3.0f", "5.0f"),
                                            replace_nth(kTinyKernel, "3.0f", "7.0f")};
  CompileAllOptions strict;
  strict.max_parallelism = 1;
  strict.job_timeout_seconds = 0.001;
  const std::vector<CompileResult> stopped = compile_all(nvrtc, sources, "t.cu", strict);
  ASSERT_EQ(stopped.size(), sources.size());
  for (const CompileResult& r : stopped) {
    EXPECT_EQ(r.status, CompileResult::Failed);
    EXPECT_NE(r.first_diagnostic.find("took longer than 0.001 s"), std::string::npos) << r.first_diagnostic;
  }
  CompileAllOptions usual;
  usual.max_parallelism = 1;
  for (const CompileResult& r : compile_all(nvrtc, sources, "t.cu", usual)) EXPECT_TRUE(r.ok()) << r.log;
}

TEST(Nvrtc, UnavailableIsReportedNotThrown) {
  NvrtcCompiler nvrtc("");
  if (nvrtc.available()) {
    EXPECT_TRUE(nvrtc.compile(kTinyKernel, "t.cu").ok());
  } else {
    CompileResult r = nvrtc.compile(kTinyKernel, "t.cu");
    EXPECT_EQ(r.status, CompileResult::Unavailable);
    EXPECT_NE(r.first_diagnostic.find("NVRTC unavailable"), std::string::npos);
    EXPECT_EQ(classify_images("", {r})[0].kind, ImageClass::Unknown);
  }
}

}  // namespace
}  // namespace kaudit::mutators
