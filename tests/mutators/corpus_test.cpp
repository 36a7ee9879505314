// The mutation engine over the real corpus (corpus/kernels/<task>/<name>.cu): every kernel
// parses, every family finds targets, runs are deterministic, and a broken kernel among them is
// reported without stopping the rest.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "mutators/mutators.h"

namespace {

namespace fs = std::filesystem;
namespace m = kaudit::mutators;

// The corpus kernels, sorted by path; `file` is the repository-relative path so that sites and
// ids do not depend on where the checkout lives.
const std::vector<m::KernelSourceInfo>& corpus() {
  static const std::vector<m::KernelSourceInfo> kernels = [] {
    std::vector<fs::path> paths;
    for (const auto& e : fs::recursive_directory_iterator(KAUDIT_CORPUS_KERNELS_DIR)) {
      if (e.is_regular_file() && e.path().extension() == ".cu") paths.push_back(e.path());
    }
    std::sort(paths.begin(), paths.end());
    std::vector<m::KernelSourceInfo> out;
    for (const auto& p : paths) {
      m::KernelSourceInfo k = m::read_kernel_source(p.string());
      k.file = "corpus/kernels/" + p.parent_path().filename().string() + "/" +
               p.filename().string();
      out.push_back(std::move(k));
    }
    return out;
  }();
  return kernels;
}

const m::MutationRun& corpus_run() {
  static const m::MutationRun run = m::generate_mutants(corpus());
  return run;
}

TEST(CorpusTest, AllKernelsParse) {
  ASSERT_GE(corpus().size(), 33u);
  for (const auto& k : corpus()) {
    const auto r = m::find_sites(k);
    EXPECT_TRUE(r.parsed) << k.id << ": "
                          << (r.diagnostics.empty() ? std::string("?") : r.diagnostics[0].to_string());
    EXPECT_FALSE(r.sites.empty()) << k.id;
  }
  EXPECT_TRUE(corpus_run().failures.empty());
}

TEST(CorpusTest, EveryFamilyHasMutants) {
  std::map<std::string, int> per_family;
  for (const auto& mu : corpus_run().mutants) ++per_family[std::string(m::family_name(mu.site.family))];
  std::ostringstream summary;
  for (m::Family f : m::kAllFamilies) {
    const std::string name(m::family_name(f));
    EXPECT_GT(per_family[name], 0) << name;
    summary << name << "=" << per_family[name] << " ";
  }
  RecordProperty("mutants_per_family", summary.str());
  RecordProperty("mutants", static_cast<int>(corpus_run().mutants.size()));
}

TEST(CorpusTest, IdsAreUniqueAndSitesLieInTheKernel) {
  std::set<std::string> ids;
  std::map<std::string, const m::KernelSourceInfo*> by_id;
  for (const auto& k : corpus()) by_id[k.id] = &k;
  for (const auto& mu : corpus_run().mutants) {
    EXPECT_TRUE(ids.insert(mu.id).second) << "duplicate mutant id " << mu.id;
    const m::KernelSourceInfo& k = *by_id.at(mu.kernel);
    ASSERT_LE(mu.site.end, k.source.size());
    EXPECT_EQ(k.source.substr(mu.site.begin, mu.site.end - mu.site.begin), mu.site.original);
    EXPECT_EQ(mu.site.file, k.file);
  }
}

TEST(CorpusTest, TwoRunsGiveIdenticalMutantLists) {
  const m::MutationRun again = m::generate_mutants(corpus());
  const auto& first = corpus_run().mutants;
  ASSERT_EQ(again.mutants.size(), first.size());
  for (size_t i = 0; i < first.size(); ++i) {
    EXPECT_EQ(again.mutants[i].id, first[i].id);
    EXPECT_EQ(again.mutants[i].site, first[i].site);
    EXPECT_EQ(again.mutants[i].source, first[i].source);
  }
}

TEST(CorpusTest, MutantsOfSampleKernelsStillParse) {
  // One kernel per idiom-heavy family (warp shuffles + float4, tiled smem, templates + dispatch).
  const std::set<std::string> sample = {"softmax/softmax_block_float4", "matmul/matmul_tiled",
                                        "gelu/gelu_dispatch"};
  size_t checked = 0;
  for (const auto& mu : corpus_run().mutants) {
    if (!sample.count(mu.kernel)) continue;
    const auto r = m::find_sites(m::KernelSourceInfo{mu.id, mu.site.file, mu.source},
                                 m::SiteOptions{{"hack-remove-launch"}});
    EXPECT_TRUE(r.parsed) << mu.kernel << " " << mu.site.rule << " " << mu.site.original
                          << " -> " << mu.site.replacement << ": "
                          << (r.diagnostics.empty() ? std::string("?") : r.diagnostics[0].to_string());
    ++checked;
  }
  EXPECT_GT(checked, 100u);
}

TEST(CorpusTest, BrokenKernelIsReportedAndTheOthersStillMutate) {
  std::vector<m::KernelSourceInfo> kernels = corpus();
  m::KernelSourceInfo broken = kernels.front();
  broken.id = "broken/" + broken.id;
  broken.file = "corpus/kernels/broken/broken.cu";
  const size_t at = broken.source.find("__global__");
  ASSERT_NE(at, std::string::npos);
  broken.source.insert(at, "int oops(\n");
  kernels.insert(kernels.begin() + 1, broken);

  const m::MutationRun run = m::generate_mutants(kernels);
  ASSERT_EQ(run.failures.size(), 1u);
  EXPECT_EQ(run.failures[0].kernel, broken.id);
  ASSERT_FALSE(run.failures[0].diagnostics.empty());
  EXPECT_EQ(run.failures[0].diagnostics[0].file, "corpus/kernels/broken/broken.cu");
  EXPECT_GT(run.failures[0].diagnostics[0].line, 0);
  EXPECT_EQ(run.mutants.size(), corpus_run().mutants.size());
}

}  // namespace
