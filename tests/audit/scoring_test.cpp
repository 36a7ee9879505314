// Scoring arithmetic on a hand-made kill matrix: detection counts witnessed mutants only, the
// reward-hack family is kept out of the fault total, per-rule and per-task tallies add up.
#include <gtest/gtest.h>

#include "audit/scoring.h"

namespace kaudit::audit {
namespace {

using mutators::Family;

ScoredMutant m(std::string id, std::string task, std::string rule, Family f, bool witnessed,
               std::map<std::string, bool> killed_by) {
  return {std::move(id), task, task + "/k", std::move(rule), f, witnessed, std::move(killed_by)};
}

TEST(Scoring, HandMadeMatrix) {
  const std::vector<ScoredMutant> mutants = {
      m("a", "relu", "bound-drop-guard", Family::Boundary, true, {{"weak", false}, {"strong", true}}),
      m("b", "relu", "bound-drop-guard", Family::Boundary, true, {{"weak", true}, {"strong", true}}),
      m("c", "softmax", "bound-loop-lt-to-le", Family::Boundary, true, {{"weak", false}, {"strong", false}}),
      m("d", "softmax", "prec-expf-to-intrinsic", Family::Precision, false, {{"weak", true}, {"strong", true}}),
      m("e", "softmax", "prec-drop-max-subtraction", Family::Precision, true, {{"weak", false}}),
      m("f", "relu", "hack-return-input", Family::RewardHack, true, {{"weak", false}, {"strong", true}}),
  };
  const std::vector<FalseKill> fk = {{"strong", "relu/k", "relu", "t1", "x"}, {"strong", "reference-fp32", "relu", "t2", "y"}};
  const auto scores = score_oracles(mutants, {"weak", "strong", "absent"}, fk);
  ASSERT_EQ(scores.size(), 3u);
  const auto& weak = scores[0];
  const auto& strong = scores[1];
  const auto& absent = scores[2];

  // Boundary: 3 witnessed; weak kills 1, strong 2.
  EXPECT_EQ(weak.per_family.at(Family::Boundary).witnessed, 3u);
  EXPECT_EQ(weak.per_family.at(Family::Boundary).killed, 1u);
  EXPECT_EQ(weak.per_family.at(Family::Boundary).missed(), 2u);
  EXPECT_EQ(strong.per_family.at(Family::Boundary).killed, 2u);
  EXPECT_DOUBLE_EQ(strong.per_family.at(Family::Boundary).detection(), 2.0 / 3.0);
  // Precision: "d" is unwitnessed, so it is in no denominator even though both oracles "kill" it;
  // "e" has no entry for "strong": not killed.
  EXPECT_EQ(weak.per_family.at(Family::Precision).witnessed, 1u);
  EXPECT_EQ(weak.per_family.at(Family::Precision).unwitnessed, 1u);
  EXPECT_EQ(weak.per_family.at(Family::Precision).killed, 0u);
  EXPECT_EQ(strong.per_family.at(Family::Precision).killed, 0u);
  // Faults exclude the reward hack; the hack has its own line.
  EXPECT_EQ(weak.faults.witnessed, 4u);
  EXPECT_EQ(weak.faults.killed, 1u);
  EXPECT_EQ(strong.faults.killed, 2u);
  EXPECT_EQ(strong.per_family.at(Family::RewardHack).witnessed, 1u);
  EXPECT_EQ(strong.per_family.at(Family::RewardHack).killed, 1u);
  EXPECT_EQ(weak.per_family.at(Family::RewardHack).killed, 0u);
  // Every family is present, even empty ones.
  EXPECT_EQ(weak.per_family.size(), mutators::kAllFamilies.size());
  EXPECT_EQ(weak.per_family.at(Family::Indexing).witnessed, 0u);
  EXPECT_DOUBLE_EQ(weak.per_family.at(Family::Indexing).detection(), 0.0);
  // Per rule (all families) and per task (faults only).
  EXPECT_EQ(strong.per_rule.at("bound-drop-guard").killed, 2u);
  EXPECT_EQ(strong.per_rule.at("hack-return-input").killed, 1u);
  EXPECT_EQ(strong.per_task.at("relu").witnessed, 2u);
  EXPECT_EQ(strong.per_task.at("softmax").witnessed, 2u);
  EXPECT_EQ(strong.per_task.at("softmax").unwitnessed, 1u);
  // False kills go to their oracle only.
  EXPECT_EQ(strong.false_kills.size(), 2u);
  EXPECT_TRUE(weak.false_kills.empty());
  // An oracle no mutant mentions kills nothing.
  EXPECT_EQ(absent.faults.witnessed, 4u);
  EXPECT_EQ(absent.faults.killed, 0u);

  const auto j = to_json(strong);
  EXPECT_EQ(j["per_family"]["boundary"]["missed"], 1);
  EXPECT_EQ(j["false_kills"], 2);
  EXPECT_EQ(j["faults"]["witnessed"], 4);
}

}  // namespace
}  // namespace kaudit::audit

TEST(Scoring, PercentHasOneDecimalAndADashForNothing) {
  EXPECT_EQ(kaudit::audit::percent(1, 8), "12.5");
  EXPECT_EQ(kaudit::audit::percent(2, 3), "66.7");
  EXPECT_EQ(kaudit::audit::percent(0, 5), "0.0");
  EXPECT_EQ(kaudit::audit::percent(5, 5), "100.0");
  EXPECT_EQ(kaudit::audit::percent(0, 0), "-");
}
