// One test per catalog rule: on a small kernel holding places where the rule must fire and
// places where it must not, the rule finds exactly the expected sites, in order, with the exact
// original and replacement text; and every mutant it makes still parses. The cases live in
// rules/<family>_cases.cpp.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "mutators/mutators.h"
#include "rules/rule_case.h"

namespace {

using kaudit::mutators::find_sites;
using kaudit::mutators::KernelSourceInfo;
using kaudit::mutators::rule_catalog;
using kaudit::mutators::SiteOptions;
using namespace kaudit::mutators::testing_cases;

std::vector<RuleCase> cases() {
  std::vector<RuleCase> all;
  for (auto family : {arithmetic_cases, indexing_cases, semantic_cases, boundary_cases,
                      synchronization_cases, precision_cases, reward_hack_cases}) {
    auto c = family();
    all.insert(all.end(), c.begin(), c.end());
  }
  return all;
}

class RuleTest : public testing::TestWithParam<RuleCase> {};

TEST_P(RuleTest, FiresExactlyWhereExpected) {
  const RuleCase& c = GetParam();
  ASSERT_NE(kaudit::mutators::find_rule(c.rule), nullptr) << "not in the catalog: " << c.rule;
  const KernelSourceInfo kernel{"test/" + c.rule, "tests/" + c.rule + ".cu", c.code};
  const auto result = find_sites(kernel, SiteOptions{{c.rule}});
  ASSERT_TRUE(result.parsed) << (result.diagnostics.empty() ? std::string("?")
                                                             : result.diagnostics[0].to_string());
  std::vector<Expect> got;
  for (const auto& s : result.sites) {
    EXPECT_EQ(s.rule, c.rule);
    EXPECT_EQ(s.file, kernel.file);
    EXPECT_EQ(c.code.substr(s.begin, s.end - s.begin), s.original);
    got.push_back({s.original, s.replacement});
  }
  EXPECT_EQ(got, c.sites);

  // Every mutant is still a well-formed CUDA translation unit.
  for (const auto& m : kaudit::mutators::generate_mutants(kernel, SiteOptions{{c.rule}})) {
    const auto reparsed = find_sites(KernelSourceInfo{m.id, kernel.file, m.source},
                                     SiteOptions{{c.rule}});
    EXPECT_TRUE(reparsed.parsed) << m.site.original << " -> " << m.site.replacement << ": "
                                 << (reparsed.diagnostics.empty()
                                         ? std::string("?")
                                         : reparsed.diagnostics[0].to_string());
  }
}

std::string case_name(const testing::TestParamInfo<RuleCase>& info) {
  std::string name = info.param.rule;
  for (char& ch : name) {
    if (ch == '-') ch = '_';
  }
  return name;
}

INSTANTIATE_TEST_SUITE_P(Catalog, RuleTest, testing::ValuesIn(cases()), case_name);

TEST(RuleCatalogTest, EveryRuleHasItsOwnTest) {
  std::set<std::string> tested;
  for (const RuleCase& c : cases()) {
    EXPECT_TRUE(tested.insert(c.rule).second) << "two cases for " << c.rule;
  }
  for (const auto& r : rule_catalog()) {
    EXPECT_TRUE(tested.count(r.id)) << "rule without a test: " << r.id;
  }
  EXPECT_EQ(tested.size(), rule_catalog().size());
}

}  // namespace
