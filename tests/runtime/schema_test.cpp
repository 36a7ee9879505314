// Mutant schemata: the schema with no mutant active behaves as the original, and each switched
// mutant behaves exactly as its standalone build; edits that cannot be switched fall back.
#include <ATen/ATen.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <gtest/gtest.h>

#include "runtime/cpu/schema.h"
#include "tests/runtime/kernel_fixture.h"
#include "common/files.h"

using kaudit::cpu::SchemaEdit;
using kaudit::runtime::Status;

namespace {

const std::string kSource = R"(#include <torch/extension.h>
template <int N> struct Constant { static constexpr int value = N; };
__global__ void k(const float* x, float* y, int n) {
  constexpr int kOne = 1;
  __shared__ float buf[128];
  int t = threadIdx.x;
  int i = blockIdx.x * blockDim.x + t;
  buf[t] = i < n ? x[i] : 0.0f;  // stage the input
  __syncthreads();
  float v = buf[blockDim.x - 1 - t];
  if (i < n) y[i] = 2.0f * v + Constant<kOne>::value;
}
torch::Tensor run(torch::Tensor x) {
  auto y = torch::zeros_like(x);
  int n = x.numel();
  k<<<(n + 127) / 128, 128>>>(x.data_ptr<float>(), y.data_ptr<float>(), n);
  return y;
}
)";

SchemaEdit edit(const std::string& original, const std::string& replacement, int occurrence = 0) {
  std::size_t pos = kSource.find(original);
  for (int k = 0; k < occurrence; ++k) pos = kSource.find(original, pos + 1);
  EXPECT_NE(pos, std::string::npos) << original;
  return {pos, pos + original.size(), replacement};
}

SchemaEdit insert_at(const std::string& before, const std::string& text) {
  const std::size_t pos = kSource.find(before);
  EXPECT_NE(pos, std::string::npos) << before;
  return {pos, pos, text};
}

std::string apply(const SchemaEdit& e) {
  std::string s = kSource;
  s.replace(e.begin, e.end - e.begin, e.replacement);
  return s;
}

at::Tensor run_library(const std::filesystem::path& lib, const at::Tensor& x, int mutant, Status* status = nullptr) {
  kaudit::runtime::RunRequest req;
  req.library = lib;
  req.args = {kaudit::runtime::EntryArg::of(x.clone())};
  req.options.active_mutant = mutant;
  // Memory-check mode: a mutant writing past a tensor (the dropped guard) is reported the same way
  // in both builds, instead of corrupting whatever the heap holds there.
  kaudit::runtime::WorkerLimits limits;
  limits.memcheck = true;
  auto r = kaudit::test::test_runner(limits).run(req);
  if (status) *status = r.status;
  return r.status == Status::Ok ? r.outputs.at(0) : at::Tensor();
}

TEST(Schema, SwitchedMutantsMatchTheirStandaloneBuilds) {
  const std::vector<SchemaEdit> edits = {
      edit("2.0f", "3.0f"),                              // arithmetic constant (expression)
      edit("2.0f", "2.0f / 2.0f"),                       // same span: shares the conditional chain
      edit("i < n", "true", 1),                          // dropped guard (expression in a condition)
      edit("  __syncthreads();\n", "\n"),                // removed barrier (statement)
      edit("(n + 127) / 128", "n / 128"),                // host launch arithmetic: floor-div grid
      edit("buf[128]", "buf[64]"),                       // array size: cannot be switched
      edit("buf[blockDim.x - 1 - t]", "buf[t]"),         // overlaps the next one: second schema
      edit("blockDim.x - 1 - t", "(blockDim.x - 1 - t) / 2"),
      // A declaration in statement form: the braces of the switch would hide `v` from its use on
      // the next line. The compiler names the use; the declaring edit is the one moved out.
      edit("float v = buf[blockDim.x - 1 - t];", "float v = buf[t] * 0.5f;"),
      // Insertions (empty spans): a statement where a statement may start is switched; text
      // inserted inside an expression is not.
      insert_at("  int t = threadIdx.x;", "if (blockIdx.x == gridDim.x - 1) return;"),
      insert_at("2.0f * v", "-"),
      // A call statement whose replacement is a statement: switched with its `;`.
      edit("__syncthreads()", "if (t > 1000) __syncthreads()"),
      // A constant: its errors go on where it is used (the template argument on the line of the
      // 2.0f edits); only the first error's line is moved out, so those edits stay switched.
      edit("kOne = 1", "kOne = 2"),
      // A barrier moved above a commented statement: the replacement spans lines and holds a `//`
      // comment, which must not swallow the rest of the switch when it is put on one line.
      edit("buf[t] = i < n ? x[i] : 0.0f;  // stage the input\n  __syncthreads();",
           "__syncthreads();  // stage the input\n  buf[t] = i < n ? x[i] : 0.0f;"),
      // A directive needs a line of its own: built standalone.
      edit("if (i < n) y[i]", "\n#pragma GCC unroll 1\n  for (int r = 0; r < 1; ++r) if (i < n) y[i]"),
  };
  auto plan = kaudit::cpu::build_schemata(kaudit::test::test_compiler(), kSource, "schema_kernel.cu", "run", edits);
  ASSERT_FALSE(plan.schemata.empty());
  EXPECT_GE(plan.schemata.size(), 2u);  // the overlapping pair cannot share one schema
  EXPECT_EQ(plan.standalone, (std::vector<std::size_t>{5, 8, 10, 12, 14}))
      << "only the array size, the declaration, the insertion inside an expression, the constant and the "
         "directive should need their own builds";

  auto x = at::randn({1000});
  auto original = kaudit::test::test_compiler().build(kSource, "schema_kernel.cu", "run");
  ASSERT_TRUE(original.ok) << original.diagnostics;
  const at::Tensor expected = run_library(original.library, x, 0);
  for (const auto& s : plan.schemata) {
    ASSERT_TRUE(s.build.ok);
    EXPECT_TRUE(at::equal(run_library(s.build.library, x, 0), expected)) << "schema with no mutant active";
    for (std::size_t k = 0; k < s.edits.size(); ++k) {
      const SchemaEdit& e = edits[s.edits[k]];
      auto standalone = kaudit::test::test_compiler().build(apply(e), "schema_kernel.cu", "run");
      ASSERT_TRUE(standalone.ok) << standalone.diagnostics;
      Status st_schema, st_alone;
      at::Tensor a = run_library(s.build.library, x, s.switch_value[k], &st_schema);
      at::Tensor b = run_library(standalone.library, x, 0, &st_alone);
      ASSERT_EQ(st_schema, st_alone) << e.replacement;
      if (st_alone == Status::Ok) {
        EXPECT_TRUE(a.equal(b) || (a.isnan().equal(b.isnan()) && a.nan_to_num().equal(b.nan_to_num())))
            << "mutant '" << e.replacement << "' differs from its standalone build";
        EXPECT_FALSE(a.equal(expected)) << "mutant '" << e.replacement << "' did not change the output";
      }
    }
  }
}

TEST(Schema, SourcesKeepLineNumbersAndGroupSpans) {
  auto schemata = kaudit::cpu::schema_sources(kSource, {edit("2.0f", "3.0f"), edit("2.0f", "4.0f")});
  ASSERT_EQ(schemata.size(), 1u);
  EXPECT_EQ(schemata[0].edits.size(), 2u);
  EXPECT_NE(schemata[0].source.find("(kaudit_active_mutant == 1) ? (3.0f) : (kaudit_active_mutant == 2) ? (4.0f) : (2.0f)"),
            std::string::npos)
      << schemata[0].source;
  const auto body = schemata[0].source.substr(schemata[0].source.find("#line 1\n") + 8);
  EXPECT_EQ(std::count(body.begin(), body.end(), '\n'), std::count(kSource.begin(), kSource.end(), '\n'));
}

}  // namespace

// The precompiled prelude (runtime/cpu/compile.h) is made for both fiber modes, and a library
// built with it is byte-for-byte the one built without it.
TEST(CpuCompiler, PrecompiledPreludeGivesTheSameLibrary) {
  namespace fs = std::filesystem;
  const auto bytes = [](const fs::path& p) { return kaudit::read_file(p).value_or(std::string()); };
  // The same cache folder both times: the compiler records the source file's path in the library.
  const fs::path cache = fs::path(KAUDIT_TEST_CACHE) / "pch-test";
  fs::remove_all(cache);
  std::string with_pch;
  {
    const kaudit::cpu::CpuCompiler compiler(cache);
    const auto a = compiler.build(kSource, "pch_kernel.cu", "run");
    ASSERT_TRUE(a.ok) << a.diagnostics;
    std::size_t headers = 0;
    for (const auto& e : fs::recursive_directory_iterator(cache / "cpu-pch"))
      if (e.is_regular_file() && e.path().extension() == ".gch") ++headers;
    EXPECT_EQ(headers, 2u);
    with_pch = bytes(a.library);
  }
  fs::remove_all(cache);
  ::setenv("KAUDIT_NO_PCH", "1", 1);
  const kaudit::cpu::CpuCompiler compiler(cache);
  const auto b = compiler.build(kSource, "pch_kernel.cu", "run");
  ::unsetenv("KAUDIT_NO_PCH");
  ASSERT_TRUE(b.ok) << b.diagnostics;
  EXPECT_FALSE(fs::exists(cache / "cpu-pch"));
  EXPECT_TRUE(with_pch == bytes(b.library)) << "libraries differ";
  fs::remove_all(cache);
}
