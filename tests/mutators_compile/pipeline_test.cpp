// The mutation pipeline (mutators/pipeline): generate -> NVRTC -> classification, on small kernels
// whose outcomes are known, and the `kaudit mutate` command end to end.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>

#include "common/process.h"
#include "mutators/pipeline/pipeline.h"
#include "test_util.h"

namespace kaudit::mutators {
namespace {

using testing::TempCacheDir;

// `(i + 1) + (i + 1)` with either inner `+` turned into `-` is `2 * i` both ways: the two
// arith-add-to-sub mutants on line 7 compile to one image (the second is a duplicate of the first). A mutant in a dead,
// internal-linkage helper leaves the image unchanged (equivalent). A literal changed inside a
// static_assert does not compile (stillborn).
const std::string kKernel = testing::scale_kernel(
    "static __device__ float unused_helper(float a) { return a * 2.0f; }\n",
    "    static_assert(sizeof(float) == 4, \"float is 32-bit\");\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n) y[i] = x[i] * (float)((i + 1) + (i + 1));\n");

std::vector<const MutantRecord*> of_rule(const MutationPipeline& p, std::string_view rule) {
  std::vector<const MutantRecord*> out;
  for (const auto& r : p.mutants)
    if (r.mutant.site.rule == rule) out.push_back(&r);
  return out;
}

TEST(MutationPipeline, ClassifiesDuplicatesEquivalentsAndStillborn) {
  TempCacheDir cache;
  NvrtcCompiler nvrtc(cache.path());
  KAUDIT_REQUIRE_NVRTC(nvrtc);
  PipelineOptions options;
  options.sites.rules = {"arith-add-to-sub", "arith-mul-to-div", "arith-int-const-dec"};
  const auto p = run_mutation_pipeline({{"t/scale", "t/scale.cu", kKernel}}, nvrtc, options);
  ASSERT_TRUE(p.parse_failures.empty());
  ASSERT_TRUE(p.compile_failures.empty());

  std::vector<const MutantRecord*> inner;  // the two `i + 1` of line 7
  for (const auto* r : of_rule(p, "arith-add-to-sub"))
    if (r->mutant.site.begin_pos.line == 7 && r->mutant.site.begin_pos.column != 46) inner.push_back(r);
  ASSERT_EQ(inner.size(), 2u);
  EXPECT_EQ(inner[0]->status, ImageClass::Distinct);
  EXPECT_EQ(inner[1]->status, ImageClass::Duplicate);
  EXPECT_EQ(inner[1]->duplicate_of, inner[0]->mutant.id);
  EXPECT_EQ(inner[0]->image_sha256, inner[1]->image_sha256);

  // `a * 2.0f` in the dead helper is equivalent; `blockIdx.x * blockDim.x` is distinct.
  bool saw_equivalent = false;
  for (const auto* r : of_rule(p, "arith-mul-to-div")) {
    if (r->mutant.site.begin_pos.line == 3) {
      EXPECT_EQ(r->status, ImageClass::Equivalent);
      EXPECT_EQ(r->image_sha256, p.original_images.at("t/scale"));
      saw_equivalent = true;
    } else {
      EXPECT_EQ(r->status, ImageClass::Distinct) << r->mutant.site.original;
    }
  }
  EXPECT_TRUE(saw_equivalent);

  bool saw_stillborn = false;
  for (const auto* r : of_rule(p, "arith-int-const-dec")) {
    if (r->mutant.site.begin_pos.line != 5) continue;  // the `4` in the static_assert
    EXPECT_EQ(r->status, ImageClass::Stillborn);
    EXPECT_TRUE(r->image_sha256.empty());
    EXPECT_NE(r->first_diagnostic.find("t/scale.cu:5"), std::string::npos) << r->first_diagnostic;
    saw_stillborn = true;
  }
  EXPECT_TRUE(saw_stillborn);

  // The counts partition the mutants, in total and per family.
  const PipelineCounts c = p.counts();
  EXPECT_EQ(c.total.generated, p.mutants.size());
  EXPECT_EQ(c.total.generated, c.total.stillborn + c.total.duplicate + c.total.equivalent + c.total.distinct);
  EXPECT_EQ(c.per_family.size(), kAllFamilies.size());
  // Also `(i + 0) + (i + 1)` and `(i + 1) + (i + 0)` (arith-int-const-dec): the same image.
  EXPECT_EQ(c.per_rule.at("arith-add-to-sub").duplicate, 1u);
  EXPECT_EQ(c.per_rule.at("arith-int-const-dec").duplicate, 1u);
  EXPECT_EQ(c.per_family.at(Family::Arithmetic).duplicate, 2u);
  const auto j = pipeline_summary_json(p);
  for (const char* key : {"generated", "stillborn", "duplicate", "equivalent", "distinct", "per_family"})
    EXPECT_TRUE(j.contains(key)) << key;
  EXPECT_EQ(j["per_family"]["arithmetic"]["duplicate"], 2);
}

TEST(MutationPipeline, AKernelThatDoesNotParseIsSkippedAndTheOthersMutate) {
  TempCacheDir cache;
  NvrtcCompiler nvrtc(cache.path());
  PipelineOptions options;
  options.sites.rules = {"bound-drop-guard"};
  const auto p = run_mutation_pipeline(
      {{"t/broken", "t/broken.cu", "__global__ void k(float* y) { y[0] = 1.0f }\n"},
       {"t/scale", "t/scale.cu", kKernel}},
      nvrtc, options);
  ASSERT_EQ(p.parse_failures.size(), 1u);
  EXPECT_EQ(p.parse_failures[0].kernel, "t/broken");
  ASSERT_FALSE(p.parse_failures[0].diagnostics.empty());
  EXPECT_EQ(p.parse_failures[0].diagnostics[0].file, "t/broken.cu");
  EXPECT_EQ(p.parse_failures[0].diagnostics[0].line, 1);
  EXPECT_EQ(p.mutants.size(), 1u);  // the `i < n` guard
  for (const auto& r : p.mutants) EXPECT_EQ(r.mutant.kernel, "t/scale");
  EXPECT_EQ(pipeline_summary_json(p)["parse_failures"].size(), 1u);
}

TEST(UnifiedDiff, OneLineEditWithContext) {
  const std::string text = "a\nb\nc\nd x\ne\nf\ng\nh\n";
  Site s;
  s.rule = "r";
  s.file = "k.cu";
  s.begin = text.find('x');
  s.end = s.begin + 1;
  s.begin_pos = {4, 3};
  s.end_pos = {4, 4};
  s.replacement = "y";
  EXPECT_EQ(unified_diff(text, s),
            "--- a/k.cu\n+++ b/k.cu\n@@ -1,7 +1,7 @@ r\n a\n b\n c\n-d x\n+d y\n e\n f\n g\n");
}

TEST(UnifiedDiff, InsertionOfALineAtTheStart) {
  const std::string text = "one\ntwo\n";
  Site s;
  s.rule = "r";
  s.file = "k.cu";
  s.begin = s.end = 0;
  s.begin_pos = s.end_pos = {1, 1};
  s.replacement = "zero\n";
  EXPECT_EQ(unified_diff(text, s), "--- a/k.cu\n+++ b/k.cu\n@@ -1,2 +1,3 @@ r\n-one\n+zero\n+one\n two\n");
}

// `kaudit mutate` on two corpus kernels: two runs write byte-identical mutants.jsonl, every line
// has the documented keys, --show prints the diff of a listed mutant, bad input exits 2.
TEST(MutateCommand, DeterministicJsonlShowAndErrors) {
  TempCacheDir dir;
  const std::string out1 = (dir.path() / "a").string(), out2 = (dir.path() / "b").string();
  const std::string cache = (dir.path() / "cache").string();
  const std::vector<std::string> base = {KAUDIT_EXE, "mutate", KAUDIT_CORPUS_DIR, "--kernel", "relu/relu_float4",
                                         "--kernel", "softmax/softmax_block_smem", "--cache", cache, "--json"};
  auto args1 = base, args2 = base;
  args1.insert(args1.end(), {"--out", out1});
  args2.insert(args2.end(), {"--out", out2});
  const auto r1 = kaudit::run_process(args1, 900);
  ASSERT_EQ(r1.exit_code, 0) << r1.err;
  const auto r2 = kaudit::run_process(args2, 900);
  ASSERT_EQ(r2.exit_code, 0) << r2.err;
  const std::string jsonl = testing::read_text(out1 + "/mutants.jsonl");
  ASSERT_FALSE(jsonl.empty());
  EXPECT_EQ(jsonl, testing::read_text(out2 + "/mutants.jsonl"));

  const auto summary = nlohmann::json::parse(r1.out);
  EXPECT_EQ(summary["kernels"], 2);
  std::size_t lines = 0;
  std::string first_id;
  std::set<std::string> ids;
  std::istringstream in(jsonl);
  for (std::string line; std::getline(in, line); ++lines) {
    const auto j = nlohmann::json::parse(line);
    for (const char* key : {"id", "kernel", "rule", "family", "file", "range", "original", "replacement",
                            "status", "image"})
      ASSERT_TRUE(j.contains(key)) << key << " missing in " << line;
    EXPECT_TRUE(j["file"].get<std::string>().rfind("corpus/kernels/", 0) == 0) << j["file"];
    EXPECT_TRUE(ids.insert(j["id"].get<std::string>()).second) << "id twice: " << j["id"];
    if (first_id.empty()) first_id = j["id"];
  }
  EXPECT_EQ(summary["generated"], lines);

  const auto show = kaudit::run_process({KAUDIT_EXE, "mutate", KAUDIT_CORPUS_DIR, "--show", first_id}, 120);
  EXPECT_EQ(show.exit_code, 0) << show.err;
  EXPECT_NE(show.out.find("--- a/corpus/kernels/"), std::string::npos) << show.out;
  EXPECT_NE(show.out.find("\n-"), std::string::npos);
  EXPECT_NE(show.out.find("\n+"), std::string::npos);

  const auto missing = kaudit::run_process({KAUDIT_EXE, "mutate", "/nonexistent/corpus"}, 60);
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("/nonexistent/corpus"), std::string::npos) << missing.err;
  const auto bad_rule = kaudit::run_process({KAUDIT_EXE, "mutate", "--rule", "no-such-rule"}, 60);
  EXPECT_EQ(bad_rule.exit_code, 2);
  EXPECT_NE(bad_rule.err.find("no-such-rule"), std::string::npos) << bad_rule.err;
  const auto bad_id = kaudit::run_process({KAUDIT_EXE, "mutate", KAUDIT_CORPUS_DIR, "--show", "0000000000000000"}, 120);
  EXPECT_EQ(bad_id.exit_code, 1);
}

}  // namespace
}  // namespace kaudit::mutators
