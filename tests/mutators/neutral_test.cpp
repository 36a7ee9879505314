// The neutral rules (rules/neutral.cpp): each fires exactly where a correct kernel may
// legitimately differ, with the exact replacement, and neutral_variants() applies a rule at every
// site at once (outermost first) while staying out of the mutation catalog.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "mutators/mutators.h"
#include "rules/rule_case.h"

namespace {

namespace m = kaudit::mutators;
using namespace kaudit::mutators::testing_cases;

std::vector<RuleCase> neutral_cases() {
  std::vector<RuleCase> c;
  c.push_back({"neutral-fma-contract", R"cu(
__global__ void k(float* y, const float* x, int n, double d) {
    y[0] = x[0] * x[1] + x[2];
    y[1] = x[3] + (x[4] * 2.0f);
    int i = n * 2 + 1;
    double e = d * d + d;
    y[2] = x[5] * x[6] - x[7] + i + e;
}
)cu",
               {{"x[0] * x[1] + x[2]", "fmaf(x[0], x[1], x[2])"},
                {"x[3] + (x[4] * 2.0f)", "fmaf(x[4], 2.0f, x[3])"}}});
  c.push_back({"neutral-reassociate-add", R"cu(
__global__ void k(float* y, const float* x, int n) {
    y[0] = x[0] + x[1] + x[2];
    int i = n + 1 + 2;
    double d = 1.0 + x[6] + x[7];
    y[1] = x[3] + (x[4] + x[5]) + i + d;
}
)cu",
               {{"x[0] + x[1] + x[2]", "(x[0] + (x[1] + x[2]))"},
                // the int operand converts to float either way: only the rounding order moves
                {"x[3] + (x[4] + x[5]) + i", "(x[3] + ((x[4] + x[5]) + i))"}}});
  const std::string host = std::string(kHostPrefix) + R"cu(
__global__ void k(float* y, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = 0; }
torch::Tensor run(torch::Tensor y) {
    const int threads = 256;
    const int blocks = (y.numel() + threads - 1) / threads;
    k<<<blocks, threads>>>(y.data_ptr<float>(), y.numel());
    int odd = 96;
    k<<<blocks, odd>>>(y.data_ptr<float>(), y.numel());
    k<<<blocks, 128>>>(y.data_ptr<float>(), y.numel());
    return y;
}
)cu";
  c.push_back({"neutral-block-size-halved", host, {{"256", "128"}}});
  c.push_back({"neutral-block-size-doubled", host, {{"256", "512"}}});
  return c;
}

class NeutralRuleTest : public testing::TestWithParam<RuleCase> {};

TEST_P(NeutralRuleTest, FiresExactlyWhereExpected) {
  const RuleCase& c = GetParam();
  const m::KernelSourceInfo kernel{"test/" + c.rule, "tests/" + c.rule + ".cu", c.code};
  m::SiteOptions options{{c.rule}};
  options.neutral = true;
  const auto result = m::find_sites(kernel, options);
  ASSERT_TRUE(result.parsed) << (result.diagnostics.empty() ? "?" : result.diagnostics[0].to_string());
  std::vector<Expect> got;
  for (const auto& s : result.sites) {
    EXPECT_EQ(s.family, m::Family::Neutral);
    got.push_back({s.original, s.replacement});
  }
  EXPECT_EQ(got, c.sites);
  // Not a mutator: the catalog does not know the id.
  EXPECT_EQ(m::find_rule(c.rule), nullptr);
  EXPECT_THROW(m::find_sites(kernel, m::SiteOptions{{c.rule}}), std::invalid_argument);
}

INSTANTIATE_TEST_SUITE_P(Neutral, NeutralRuleTest, testing::ValuesIn(neutral_cases()),
                         [](const testing::TestParamInfo<RuleCase>& info) {
                           std::string name = info.param.rule;
                           for (char& ch : name)
                             if (ch == '-') ch = '_';
                           return name;
                         });

TEST(NeutralRules, EveryRuleHasACaseAndNoneIsInTheCatalog) {
  std::set<std::string> tested;
  for (const auto& c : neutral_cases()) tested.insert(c.rule);
  ASSERT_FALSE(m::neutral_rule_catalog().empty());
  for (const auto& r : m::neutral_rule_catalog()) {
    EXPECT_TRUE(tested.count(r.id)) << r.id;
    EXPECT_EQ(r.family, m::Family::Neutral);
  }
  EXPECT_EQ(tested.size(), m::neutral_rule_catalog().size());
  for (const auto& r : m::rule_catalog()) EXPECT_NE(r.family, m::Family::Neutral) << r.id;
}

TEST(NeutralVariants, OneVariantPerRuleWithEverySiteAppliedOutermostFirst) {
  const m::KernelSourceInfo kernel{"t/k", "t/k.cu", R"cu(
__global__ void k(float* y, const float* x) {
    y[0] = x[0] * x[1] + x[2];
    y[1] = (x[3] * x[4] + x[5]) * x[6] + x[7];
}
)cu"};
  const auto variants = m::neutral_variants(kernel);
  ASSERT_EQ(variants.size(), 1u);  // no launch, no (a + b) + c
  EXPECT_EQ(variants[0].id, "t/k~neutral-fma-contract");
  EXPECT_EQ(variants[0].sites, 2u);  // the inner a * b + c of y[1] lies inside the outer one
  EXPECT_NE(variants[0].source.find("y[0] = fmaf(x[0], x[1], x[2]);"), std::string::npos);
  EXPECT_NE(variants[0].source.find("y[1] = fmaf((x[3] * x[4] + x[5]), x[6], x[7]);"), std::string::npos)
      << variants[0].source;
  // The variant is still a well-formed translation unit.
  EXPECT_TRUE(m::find_sites({"t/v", "t/v.cu", variants[0].source}).parsed);
}

TEST(NeutralVariants, AKernelThatDoesNotParseThrows) {
  EXPECT_THROW(m::neutral_variants({"t/bad", "t/bad.cu", "__global__ void k( {"}), m::ParseError);
}

}  // namespace
