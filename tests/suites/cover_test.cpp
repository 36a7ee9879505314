// Greedy set cover (suites/cover.h) on hand-made kill matrices: the choices, their order, the
// tie-breaks, budgets, and the reproducible held-out split.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "suites/cover.h"

namespace {

using kaudit::cover::greedy_cover;
using kaudit::cover::KillMatrix;

// Rows are inputs here (as strings of 0/1 over the mutants), for readability.
KillMatrix matrix(const std::vector<std::string>& inputs, std::vector<int> family = {},
                  std::vector<std::int64_t> cost = {}) {
  KillMatrix m;
  const std::size_t n = inputs.empty() ? 0 : inputs[0].size();
  for (std::size_t j = 0; j < n; ++j) m.mutants.push_back("m" + std::to_string(j));
  m.family = family.empty() ? std::vector<int>(n, 0) : family;
  m.cost = cost.empty() ? std::vector<std::int64_t>(inputs.size(), 1) : cost;
  for (const auto& row : inputs) {
    std::vector<bool> col;
    for (char c : row) col.push_back(c == '1');
    m.kills.push_back(col);
  }
  return m;
}

TEST(GreedyCover, TakesTheLargestNewKillFirstAndStopsWhenComplete) {
  // Input 2 kills the most; then inputs 0, 1 and 3 each add one: the earlier column goes first.
  const auto m = matrix({"110000", "000011", "011110", "000001"});
  const auto r = greedy_cover(m);
  EXPECT_EQ(r.chosen, (std::vector<std::size_t>{2, 0, 1}));
  EXPECT_EQ(r.covered_after, (std::vector<std::size_t>{4, 5, 6}));
  EXPECT_EQ(r.coverable, 6u);
  EXPECT_TRUE(r.complete());
}

TEST(GreedyCover, OptimalOnADisjointPartition) {
  // Three disjoint inputs of sizes 3, 2, 1 cover everything; greedy takes them largest first and
  // never the redundant ones (a subset of what is already covered).
  const auto m = matrix({"000110", "111000", "110000", "000001", "000100"});
  const auto r = greedy_cover(m);
  EXPECT_EQ(r.chosen, (std::vector<std::size_t>{1, 0, 3}));
  EXPECT_TRUE(r.complete());
}

TEST(GreedyCover, BudgetLimitsTheSuite) {
  const auto m = matrix({"110000", "000011", "011110", "000001"});
  const auto r = greedy_cover(m, 1);
  EXPECT_EQ(r.chosen, (std::vector<std::size_t>{2}));
  EXPECT_FALSE(r.complete());
  EXPECT_EQ(greedy_cover(m, 2).covered_after.back(), 5u);
}

TEST(GreedyCover, TiesGoToMoreFamiliesThenCheaperThenEarlier) {
  // Inputs 0 and 1 both kill two new mutants; 1 reaches two families, 0 one.
  EXPECT_EQ(greedy_cover(matrix({"1100", "0011"}, {0, 0, 1, 2}), 1).chosen[0], 1u);
  // Same count and families: the cheaper input wins.
  EXPECT_EQ(greedy_cover(matrix({"1100", "0011"}, {0, 1, 0, 1}, {50, 10}), 1).chosen[0], 1u);
  // A complete tie: the earlier column.
  EXPECT_EQ(greedy_cover(matrix({"1100", "0011"}, {0, 1, 0, 1}, {10, 10}), 1).chosen[0], 0u);
}

TEST(GreedyCover, UncoverableMutantsAndUselessInputs) {
  const auto m = matrix({"1000", "1000", "0100"});  // mutants 2 and 3: no input kills them
  const auto r = greedy_cover(m);
  EXPECT_EQ(r.chosen, (std::vector<std::size_t>{0, 2}));  // input 1 adds nothing after input 0
  EXPECT_EQ(r.coverable, 2u);
  EXPECT_TRUE(r.complete());
  EXPECT_TRUE(greedy_cover(matrix({})).chosen.empty());
}

TEST(GreedyCover, RaggedMatrixIsRejected) {
  auto m = matrix({"110", "011"});
  m.kills[1].pop_back();
  EXPECT_THROW(greedy_cover(m), std::invalid_argument);
}

TEST(GreedyCover, KilledByCountsASubset) {
  const auto m = matrix({"1100", "0010"});
  EXPECT_EQ(kaudit::cover::killed_by(m, {0}, {0, 1, 2, 3}), 2u);
  EXPECT_EQ(kaudit::cover::killed_by(m, {0, 1}, {1, 2, 3}), 2u);
  EXPECT_EQ(kaudit::cover::killed_by(m, {}, {0, 1}), 0u);
}

TEST(HeldOutSplit, ReproducibleAndRoughlyHalf) {
  std::size_t selection = 0;
  for (int i = 0; i < 2000; ++i) {
    const std::string id = "mutant-" + std::to_string(i);
    const bool a = kaudit::cover::in_selection_half(id);
    EXPECT_EQ(a, kaudit::cover::in_selection_half(id));
    selection += a;
  }
  EXPECT_GT(selection, 900u);
  EXPECT_LT(selection, 1100u);
  // Pinned with Python's hashlib: SHA-256("kaudit-split-v1:0123456789abcdef") starts with 0x0c.
  EXPECT_EQ(kaudit::cover::in_selection_half("0123456789abcdef"), true);
}

}  // namespace
