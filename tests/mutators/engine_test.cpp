// The engine around the rules: catalog listing, parsing and diagnostics, site order and scope,
// mutant ids and text.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <regex>
#include <set>
#include <tuple>

#include "mutators/mutators.h"

namespace {

namespace m = kaudit::mutators;

const char* const kGoodKernel = R"cu(#include <torch/extension.h>
#include <cuda_runtime.h>

__global__ void scale_kernel(const float* __restrict__ x, float* __restrict__ y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        y[i] = 2.0f * x[i];
    }
}

// ---- host ----
torch::Tensor scale_forward(torch::Tensor x) {
    TORCH_CHECK(x.is_cuda() && x.dim() == 1, "x must be a 1-D CUDA tensor");
    auto y = torch::empty_like(x);
    const int n = x.numel();
    const int threads = 256;
    scale_kernel<<<(n + threads - 1) / threads, threads>>>(x.data_ptr<float>(), y.data_ptr<float>(), n);
    return y;
}
)cu";

const char* const kBadKernel = R"cu(#include <torch/extension.h>
__global__ void broken(float* y) {
    y[0] = 1.0f
}
)cu";

m::KernelSourceInfo good() { return {"scale/scale_good", "corpus/kernels/scale/scale_good.cu", kGoodKernel}; }
m::KernelSourceInfo bad() { return {"scale/scale_bad", "corpus/kernels/scale/scale_bad.cu", kBadKernel}; }

// ---- catalog ------------------------------------------------------------------------------------

TEST(CatalogTest, HasAtLeastFortyRulesAndFivePerFamily) {
  const auto& catalog = m::rule_catalog();
  EXPECT_GE(catalog.size(), 40u);
  std::map<m::Family, int> per_family;
  std::set<std::string> ids;
  const std::regex kebab("^[a-z0-9]+(-[a-z0-9]+)*$");
  for (const auto& r : catalog) {
    ++per_family[r.family];
    EXPECT_TRUE(ids.insert(r.id).second) << "duplicate id " << r.id;
    EXPECT_TRUE(std::regex_match(r.id, kebab)) << r.id;
    EXPECT_FALSE(r.description.empty()) << r.id;
    EXPECT_EQ(r.description.find('\n'), std::string::npos) << r.id;
    EXPECT_NE(r.scopes, 0u) << r.id;
    EXPECT_EQ(m::find_rule(r.id), &r);
  }
  for (m::Family f : m::kAllFamilies) {
    EXPECT_GE(per_family[f], 5) << m::family_name(f);
  }
  EXPECT_EQ(m::find_rule("no-such-rule"), nullptr);
}

TEST(CatalogTest, IsSortedByFamilyThenId) {
  const auto& catalog = m::rule_catalog();
  const auto rank = [](m::Family f) {
    return std::find(m::kAllFamilies.begin(), m::kAllFamilies.end(), f) - m::kAllFamilies.begin();
  };
  for (size_t i = 1; i < catalog.size(); ++i) {
    const auto a = std::make_tuple(rank(catalog[i - 1].family), catalog[i - 1].id);
    const auto b = std::make_tuple(rank(catalog[i].family), catalog[i].id);
    EXPECT_LT(a, b);
  }
}

TEST(CatalogTest, RulesJsonListsIdFamilyDescription) {
  const nlohmann::json j = m::rules_json();
  ASSERT_TRUE(j.is_array());
  ASSERT_EQ(j.size(), m::rule_catalog().size());
  for (size_t i = 0; i < j.size(); ++i) {
    const auto& r = j[i];
    EXPECT_EQ(r.at("id"), m::rule_catalog()[i].id);
    EXPECT_TRUE(m::family_from_name(r.at("family").get<std::string>()).has_value());
    EXPECT_TRUE(r.at("description").is_string());
    EXPECT_TRUE(r.at("scope").is_string());
    EXPECT_EQ(r.size(), 4u);
  }
}

TEST(CatalogTest, RulesTableHasEveryRule) {
  const std::string table = m::rules_table();
  EXPECT_EQ(table.rfind("ID", 0), 0u);
  for (const auto& r : m::rule_catalog()) {
    EXPECT_NE(table.find("\n" + r.id + " "), std::string::npos) << r.id;
  }
  EXPECT_NE(table.find(std::to_string(m::rule_catalog().size()) + " rules:"), std::string::npos);
}

TEST(CatalogTest, FamilyNamesRoundTrip) {
  for (m::Family f : m::kAllFamilies) {
    EXPECT_EQ(m::family_from_name(m::family_name(f)), f);
  }
  EXPECT_EQ(m::family_name(m::Family::RewardHack), "reward-hack");
  EXPECT_FALSE(m::family_from_name("Arithmetic").has_value());
  EXPECT_EQ(m::scope_names(m::kScopeDevice | m::kScopeLaunch), "device|launch");
}

// ---- parsing ------------------------------------------------------------------------------------

TEST(ParseTest, GoodKernelParsesWithHostWrapper) {
  const auto r = m::find_sites(good());
  ASSERT_TRUE(r.parsed);
  EXPECT_TRUE(r.diagnostics.empty());
  // The host wrapper's launch arithmetic is reachable: the ceil-div grid.
  const auto it = std::find_if(r.sites.begin(), r.sites.end(), [](const m::Site& s) {
    return s.rule == "bound-ceil-div-to-floor";
  });
  ASSERT_NE(it, r.sites.end());
  EXPECT_EQ(it->original, "(n + threads - 1) / threads");
  EXPECT_EQ(it->replacement, "n / threads");
  EXPECT_EQ(it->begin_pos, (m::SourcePos{17, 20}));
}

TEST(ParseTest, SyntaxErrorGivesTheClangDiagnosticWithFileLineColumn) {
  const auto r = m::find_sites(bad());
  EXPECT_FALSE(r.parsed);
  EXPECT_TRUE(r.sites.empty());
  ASSERT_FALSE(r.diagnostics.empty());
  const auto& d = r.diagnostics[0];
  EXPECT_EQ(d.file, "corpus/kernels/scale/scale_bad.cu");
  EXPECT_EQ(d.line, 3);
  EXPECT_EQ(d.column, 16);
  EXPECT_EQ(d.severity, "error");
  EXPECT_NE(d.message.find("expected ';'"), std::string::npos) << d.message;
  EXPECT_EQ(d.to_string().rfind("corpus/kernels/scale/scale_bad.cu:3:16: error: ", 0), 0u)
      << d.to_string();
}

TEST(ParseTest, UnknownHeaderIsNamed) {
  const m::KernelSourceInfo k{"x/y", "x/y.cu", "#include <thrust/device_vector.h>\n__global__ void k() {}\n"};
  const auto r = m::find_sites(k);
  EXPECT_FALSE(r.parsed);
  ASSERT_FALSE(r.diagnostics.empty());
  EXPECT_EQ(r.diagnostics[0].file, "x/y.cu");
  EXPECT_EQ(r.diagnostics[0].line, 1);
  EXPECT_NE(r.diagnostics[0].message.find("thrust/device_vector.h"), std::string::npos);
}

TEST(ParseTest, GenerateMutantsThrowsParseError) {
  try {
    (void)m::generate_mutants(bad());
    FAIL() << "no ParseError";
  } catch (const m::ParseError& e) {
    EXPECT_EQ(e.kernel(), "scale/scale_bad");
    ASSERT_FALSE(e.diagnostics().empty());
    EXPECT_NE(std::string(e.what()).find("corpus/kernels/scale/scale_bad.cu:3:16: error"),
              std::string::npos)
        << e.what();
  }
}

TEST(ParseTest, KernelThatDoesNotParseDoesNotStopTheOthers) {
  m::KernelSourceInfo other = good();
  other.id = "scale/scale_other";
  const auto run = m::generate_mutants(std::vector<m::KernelSourceInfo>{good(), bad(), other});
  ASSERT_EQ(run.failures.size(), 1u);
  EXPECT_EQ(run.failures[0].kernel, "scale/scale_bad");
  EXPECT_EQ(run.failures[0].file, "corpus/kernels/scale/scale_bad.cu");
  ASSERT_FALSE(run.failures[0].diagnostics.empty());
  EXPECT_EQ(run.failures[0].diagnostics[0].line, 3);

  const size_t per_kernel = m::generate_mutants(good()).size();
  ASSERT_GT(per_kernel, 0u);
  ASSERT_EQ(run.mutants.size(), 2 * per_kernel);
  EXPECT_EQ(run.mutants.front().kernel, "scale/scale_good");
  EXPECT_EQ(run.mutants.back().kernel, "scale/scale_other");
}

// ---- sites --------------------------------------------------------------------------------------

TEST(SitesTest, OrderedByOffsetThenRuleAndUnique) {
  const auto r = m::find_sites(good());
  ASSERT_TRUE(r.parsed);
  for (size_t i = 1; i < r.sites.size(); ++i) {
    const auto& a = r.sites[i - 1];
    const auto& b = r.sites[i];
    EXPECT_LT(std::tie(a.begin, a.rule, a.end, a.replacement),
              std::tie(b.begin, b.rule, b.end, b.replacement));
  }
}

TEST(SitesTest, LineColumnMatchOffsets) {
  const std::string src = kGoodKernel;
  for (const auto& s : m::find_sites(good()).sites) {
    int line = 1, col = 1;
    for (size_t i = 0; i < s.begin; ++i) {
      if (src[i] == '\n') {
        ++line;
        col = 1;
      } else {
        ++col;
      }
    }
    EXPECT_EQ(s.begin_pos, (m::SourcePos{line, col})) << s.rule;
    EXPECT_LE(s.end, src.size());
    EXPECT_EQ(src.substr(s.begin, s.end - s.begin), s.original);
  }
}

TEST(SitesTest, MacroBodiesAndHostChecksAreNotMutated) {
  const m::KernelSourceInfo k{"macro/k", "macro/k.cu", R"cu(
#define SQUARE(a) ((a) * (a))
__global__ void k(float* y, const float* x, int n) {
    y[0] = SQUARE(x[0] + 1.0f);
}
torch::Tensor f(torch::Tensor x) {
    const int n = x.numel();
    TORCH_CHECK(n * 2 > 1 && x.dim() + 1 == 2, "checks are not launch arithmetic");
    k<<<1, 32>>>(x.data_ptr<float>(), x.data_ptr<float>(), n);
    return x;
}
)cu"};
  const auto r = m::find_sites(k, m::SiteOptions{{"arith-mul-to-div", "arith-add-to-sub"}});
  ASSERT_TRUE(r.parsed);
  ASSERT_EQ(r.sites.size(), 1u);  // only the '+' written in the macro argument
  EXPECT_EQ(r.sites[0].rule, "arith-add-to-sub");
  EXPECT_EQ(r.sites[0].begin_pos, (m::SourcePos{4, 24}));
}

TEST(SitesTest, UnknownRuleIsRejected) {
  EXPECT_THROW(m::find_sites(good(), m::SiteOptions{{"no-such-rule"}}), std::invalid_argument);
}

TEST(SitesTest, RuleFilterSelectsOnlyThoseRules) {
  const auto r = m::find_sites(good(), m::SiteOptions{{"index-threadidx-axis-swap"}});
  ASSERT_EQ(r.sites.size(), 1u);
  EXPECT_EQ(r.sites[0].rule, "index-threadidx-axis-swap");
  EXPECT_EQ(r.sites[0].family, m::Family::Indexing);
}

// ---- mutants ------------------------------------------------------------------------------------

TEST(MutantTest, IdIsAStableContentHash) {
  const std::string id = m::mutant_id("content", "arith-add-to-sub", 10, 11, "-");
  EXPECT_EQ(id.size(), 16u);
  EXPECT_TRUE(std::regex_match(id, std::regex("^[0-9a-f]{16}$")));
  // Golden value: the same on every machine and every run. Independently:
  //   python3 -c "import hashlib; f=['kaudit-mutant-v1','content','arith-add-to-sub','10','11','-'];
  //   print(hashlib.sha256(''.join(f'{len(x)}:{x}\n' for x in f).encode()).hexdigest()[:16])"
  EXPECT_EQ(id, "0cab10d32b8cffcb");
  EXPECT_NE(id, m::mutant_id("content!", "arith-add-to-sub", 10, 11, "-"));
  EXPECT_NE(id, m::mutant_id("content", "arith-sub-to-add", 10, 11, "-"));
  EXPECT_NE(id, m::mutant_id("content", "arith-add-to-sub", 11, 11, "-"));
  EXPECT_NE(id, m::mutant_id("content", "arith-add-to-sub", 10, 12, "-"));
  EXPECT_NE(id, m::mutant_id("content", "arith-add-to-sub", 10, 11, "*"));
  // Field boundaries are unambiguous.
  EXPECT_NE(m::mutant_id("ab", "c", 1, 2, "x"), m::mutant_id("a", "bc", 1, 2, "x"));
}

TEST(MutantTest, SourceIsTheOriginalWithTheSiteApplied) {
  const auto k = good();
  const auto mutants = m::generate_mutants(k);
  ASSERT_FALSE(mutants.empty());
  std::set<std::string> ids;
  for (const auto& mu : mutants) {
    EXPECT_TRUE(ids.insert(mu.id).second) << "duplicate id " << mu.id;
    EXPECT_EQ(mu.kernel, k.id);
    EXPECT_EQ(mu.id, m::mutant_id(k.source, mu.site.rule, mu.site.begin, mu.site.end,
                                  mu.site.replacement));
    const std::string expected = k.source.substr(0, mu.site.begin) + mu.site.replacement +
                                 k.source.substr(mu.site.end);
    EXPECT_EQ(mu.source, expected);
    EXPECT_NE(mu.source, k.source);
  }
}

TEST(MutantTest, TwoRunsGiveIdenticalMutants) {
  const auto a = m::generate_mutants(good());
  const auto b = m::generate_mutants(good());
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].id, b[i].id);
    EXPECT_EQ(a[i].site, b[i].site);
    EXPECT_EQ(a[i].source, b[i].source);
  }
}

TEST(MutantTest, JsonRecord) {
  const auto mutants = m::generate_mutants(good(), m::SiteOptions{{"bound-ceil-div-to-floor"}});
  ASSERT_EQ(mutants.size(), 1u);
  const nlohmann::json j = m::to_json(mutants[0]);
  EXPECT_EQ(j.at("id"), mutants[0].id);
  EXPECT_EQ(j.at("kernel"), "scale/scale_good");
  EXPECT_EQ(j.at("rule"), "bound-ceil-div-to-floor");
  EXPECT_EQ(j.at("family"), "boundary");
  EXPECT_EQ(j.at("file"), "corpus/kernels/scale/scale_good.cu");
  EXPECT_EQ(j.at("range"), "17:20-17:47");
  EXPECT_EQ(j.at("original"), "(n + threads - 1) / threads");
  EXPECT_EQ(j.at("replacement"), "n / threads");
  EXPECT_FALSE(j.contains("source"));
}

TEST(MutantTest, ApplySite) {
  m::Site s;
  s.begin = 2;
  s.end = 3;
  s.replacement = "XY";
  EXPECT_EQ(m::apply_site("abcd", s), "abXYd");
  s.end = 2;  // insertion
  EXPECT_EQ(m::apply_site("abcd", s), "abXYcd");
}

}  // namespace
