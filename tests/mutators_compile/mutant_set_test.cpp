// Mutant sets (mutators/pipeline/mutant_set.h): what `kaudit mutate --out DIR` writes reads back
// into the same records, and every kind of mismatch or damage is an error naming the file, the
// line and the fix.
#include "mutators/pipeline/mutant_set.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "test_util.h"

namespace kaudit::mutators {
namespace {

using testing::TempCacheDir;

const std::string kKernel = testing::scale_kernel("",
                                                  "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                                                  "    if (i < n) y[i] = x[i] * 2.0f + 1.0f;\n");

void write(const std::filesystem::path& p, const std::string& text) { std::ofstream(p, std::ios::binary) << text; }

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

std::string joined(const std::vector<std::string>& lines) {
  std::string s;
  for (const auto& l : lines) s += l + "\n";
  return s;
}

class MutantSetTest : public ::testing::Test {
 protected:
  void SetUp() override {
    NvrtcCompiler nvrtc(cache_.path());
    kernel_ = {"t/scale", "corpus/kernels/t/scale.cu", kKernel};
    PipelineOptions options;
    options.sites.rules = {"arith-add-to-sub", "arith-mul-to-div", "index-blockdim-to-griddim"};
    pipeline_ = run_mutation_pipeline({kernel_}, nvrtc, options);
    ASSERT_FALSE(pipeline_.mutants.empty());
    NeutralVariant v{"t/scale~neutral-x", "t/scale", "neutral-x", 1, std::string(kKernel) + "// variant\n"};
    mutants_ = mutants_jsonl(pipeline_);
    kernels_ = kernels_jsonl({kernel_}, {{"t/scale", {v}}}, {});
    dir_ = cache_.path() / "set";
    std::filesystem::create_directories(dir_);
    write(dir_ / "mutants.jsonl", mutants_);
    write(dir_ / "kernels.jsonl", kernels_);
  }
  // The error reading the set gives, with mutants.jsonl's line `line` (1-based) replaced by `text`.
  std::string error_with_mutant_line(std::size_t line, const std::string& text) {
    auto lines = lines_of(mutants_);
    lines.at(line - 1) = text;
    write(dir_ / "mutants.jsonl", joined(lines));
    return error_reading({kernel_});
  }
  std::string error_reading(const std::vector<KernelSourceInfo>& kernels) {
    try {
      (void)read_mutant_set(dir_, kernels);
    } catch (const MutantSetError& e) {
      return e.what();
    }
    return "";
  }

  TempCacheDir cache_;
  KernelSourceInfo kernel_;
  MutationPipeline pipeline_;
  std::string mutants_, kernels_;
  std::filesystem::path dir_;
};

TEST_F(MutantSetTest, ReadsBackWhatWasWritten) {
  const MutantSet set = read_mutant_set(dir_, {kernel_});
  ASSERT_EQ(set.pipeline.mutants.size(), pipeline_.mutants.size());
  for (std::size_t i = 0; i < set.pipeline.mutants.size(); ++i) {
    const MutantRecord& a = set.pipeline.mutants[i];
    const MutantRecord& b = pipeline_.mutants[i];
    EXPECT_EQ(a.mutant.id, b.mutant.id);
    EXPECT_EQ(a.mutant.kernel, b.mutant.kernel);
    EXPECT_EQ(a.mutant.source, b.mutant.source);
    EXPECT_EQ(a.status, b.status);
    EXPECT_EQ(a.image_sha256, b.image_sha256);
    EXPECT_EQ(a.duplicate_of, b.duplicate_of);
    // The switchable range the schemata use, and every field of the site but the (widened) range.
    const auto ea = switchable_edit(kKernel, a.mutant.site), eb = switchable_edit(kKernel, b.mutant.site);
    EXPECT_EQ(ea.begin, eb.begin);
    EXPECT_EQ(ea.end, eb.end);
    EXPECT_EQ(ea.replacement, eb.replacement);
    EXPECT_EQ(a.mutant.site.begin_pos, b.mutant.site.begin_pos);
    EXPECT_EQ(a.mutant.site.end_pos, b.mutant.site.end_pos);
    EXPECT_EQ(a.mutant.site.family, b.mutant.site.family);
  }
  EXPECT_EQ(mutants_jsonl(set.pipeline), mutants_);  // byte for byte
  ASSERT_EQ(set.neutral.at("t/scale").size(), 1u);
  EXPECT_EQ(set.neutral.at("t/scale")[0].source, std::string(kKernel) + "// variant\n");
  EXPECT_EQ(set.kernels, std::vector<std::string>{"t/scale"});
}

TEST_F(MutantSetTest, ASetOfAnotherKernelVersionIsRefused) {
  KernelSourceInfo edited = kernel_;
  edited.source += "// edited\n";
  const std::string e = error_reading({edited});
  EXPECT_NE(e.find("kernels.jsonl:1: the set was made from another version of t/scale"), std::string::npos) << e;
  EXPECT_NE(e.find("kaudit mutate --out DIR"), std::string::npos) << e;
  const std::string missing = error_reading({});
  EXPECT_NE(missing.find("kernels.jsonl:1: kernel t/scale is not in the corpus given"), std::string::npos) << missing;
}

TEST_F(MutantSetTest, DamagedLinesAreErrorsNamingTheLine) {
  EXPECT_NE(error_with_mutant_line(2, "{not json").find("mutants.jsonl:2: not a JSON object"), std::string::npos);
  auto record = nlohmann::json::parse(lines_of(mutants_)[0]);
  auto other = record;
  other["replacement"] = "y[i] = 0";  // an edit the id does not name
  EXPECT_NE(error_with_mutant_line(1, other.dump()).find("mutants.jsonl:1: mutant " + record["id"].get<std::string>() +
                                                         " does not match the text of t/scale"),
            std::string::npos);
  other = record;
  other["end"] = 1u << 30;  // past the kernel's end
  EXPECT_NE(error_with_mutant_line(1, other.dump()).find("does not match the text"), std::string::npos);
  other = record;
  other.erase("schema_begin");  // a set of an older kaudit
  const std::string old = error_with_mutant_line(1, other.dump());
  EXPECT_NE(old.find("mutants.jsonl:1: not a record of this kaudit's mutant set"), std::string::npos) << old;
  other = record;
  other["family"] = "cosmic-rays";
  EXPECT_NE(error_with_mutant_line(1, other.dump()).find("unknown family"), std::string::npos);
  other = record;
  other["kernel"] = "t/other";
  EXPECT_NE(error_with_mutant_line(1, other.dump()).find("which kernels.jsonl does not list"), std::string::npos);
  const auto lines = lines_of(mutants_);
  ASSERT_GT(lines.size(), 1u);
  EXPECT_NE(error_with_mutant_line(2, lines[0]).find("listed twice"), std::string::npos);
  std::filesystem::remove(dir_ / "mutants.jsonl");
  EXPECT_NE(error_reading({kernel_}).find("mutants.jsonl: cannot be read"), std::string::npos);
}

}  // namespace
}  // namespace kaudit::mutators
