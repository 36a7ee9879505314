// Scoring arithmetic on a hand-made kill matrix: detection counts witnessed mutants only, the
// reward-hack family is kept out of the fault total, per-rule and per-task tallies add up.
#include <gtest/gtest.h>

#include "audit/scoring.h"

namespace kaudit::audit {
namespace {

using mutators::Family;

ScoredMutant m(std::string id, std::string task, std::string rule, Family f, bool witnessed,
               std::map<std::string, bool> killed_by) {
  ScoredMutant s;
  s.id = std::move(id);
  s.task = task;
  s.kernel = task + "/k";
  s.rule = std::move(rule);
  s.family = f;
  s.witnessed = witnessed;
  s.killed_by = std::move(killed_by);
  return s;
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
  // False kills of a neutral variant and of the reference, not of the mutants' own kernel (that
  // case: RejectingTheOriginalDetectsNothing).
  const std::vector<FalseKill> fk = {{"strong", "relu/k~neutral-block-size-doubled", "relu", "t1", "x"},
                                     {"strong", "reference-fp32", "relu", "t2", "y"}};
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

// A checker that rejects a kernel's own original cannot tell its mutants from it: its kills of
// them count as misses (and are counted apart), in each mode by that mode's false kills; a false
// kill of another kernel or of a neutral variant changes nothing.
TEST(Scoring, RejectingTheOriginalDetectsNothing) {
  auto mk = [](std::string id, std::string kernel, bool witnessed) {
    ScoredMutant s = m(std::move(id), "t", "r", Family::Arithmetic, witnessed, {{"gated", true}, {"plain", true}});
    s.kernel = std::move(kernel);
    s.strict_killed_by = s.killed_by;
    return s;
  };
  const std::vector<ScoredMutant> mutants = {mk("a1", "t/hybrid", true), mk("a2", "t/hybrid", true),
                                             mk("a3", "t/hybrid", false), mk("b1", "t/own", true)};
  const std::vector<FalseKill> fk = {{"gated", "t/hybrid", "t", "t1", "library-compute"},
                                     {"plain", "t/own~neutral-block-size-halved", "t", "t1", "x"}};
  const std::vector<FalseKill> strict_fk = {{"plain", "t/own", "t", "t1", "x"}};
  const auto scores = score_oracles(mutants, {"gated", "plain"}, fk, strict_fk);
  const OracleScore& gated = scores.at(0);
  const OracleScore& plain = scores.at(1);
  EXPECT_EQ(gated.faults.witnessed, 3u);
  EXPECT_EQ(gated.faults.killed, 1u);  // only b1: the hybrid's two witnessed kills are misses
  EXPECT_EQ(gated.kills_of_rejected_originals, 2u);  // a3 is unwitnessed: in no count
  EXPECT_EQ(gated.faults_strict.killed, 3u);         // witness mode rejected no original
  EXPECT_EQ(gated.strict_kills_of_rejected_originals, 0u);
  EXPECT_EQ(plain.faults.killed, 3u);                // a neutral variant's false kill discounts nothing
  EXPECT_EQ(plain.faults_strict.killed, 2u);         // in witness mode it rejected t/own itself
  EXPECT_EQ(plain.strict_kills_of_rejected_originals, 1u);
  EXPECT_EQ(to_json(gated)["kills_of_rejected_originals"], 2);
  EXPECT_EQ(to_json(plain)["witness_mode"]["kills_of_rejected_originals"], 1);
}

// Oracle mode against witness mode on a hand-made matrix: the oracle-mode verdicts over the
// witness-mode denominator, over the oracle-witnessed one, the witness-mode verdicts, and kills
// by cause (witnessed mutants only, fault families summed apart from the reward hacks).
TEST(Scoring, BothModesBothDenominatorsAndKillsByCause) {
  auto mk = [](std::string id, Family f, bool witnessed, bool oracle_witnessed, bool killed, std::string cause,
               bool strict, std::string strict_cause) {
    ScoredMutant s = m(std::move(id), "t", "r", f, witnessed, {{"kb", killed}});
    s.oracle_witnessed = oracle_witnessed;
    if (killed) s.cause["kb"] = cause;
    s.strict_killed_by["kb"] = strict;
    if (strict) s.strict_cause["kb"] = strict_cause;
    return s;
  };
  const std::vector<ScoredMutant> mutants = {
      // A race: witnessed strictly (stale shared memory read as poison), benign on a GPU.
      mk("s1", Family::Synchronization, true, false, false, "", true, "wrong-output"),
      mk("s2", Family::Synchronization, true, true, true, "wrong-output", true, "barrier-divergence"),
      mk("s3", Family::Synchronization, true, true, false, "", true, "wrong-output"),
      // An unwritten tail: NaN in witness mode, zeros in oracle mode.
      mk("b1", Family::Boundary, true, true, true, "wrong-output", true, "nan-inf"),
      mk("b2", Family::Boundary, true, false, false, "", true, "out-of-bounds"),
      mk("b3", Family::Boundary, false, false, false, "", false, ""),
      mk("h1", Family::RewardHack, true, true, true, "crash", true, "crash"),
  };
  const std::vector<FalseKill> fk = {{"kb", "t/k~neutral-block-size-halved", "t", "t1", "x"}};
  const std::vector<FalseKill> strict_fk = {{"kb", "t/k~neutral-block-size-halved", "t", "t1", "x"},
                                            {"kb", "t/k2", "t", "t2", "y"}};
  const auto scores = score_oracles(mutants, {"kb"}, fk, strict_fk);
  const OracleScore& s = scores.at(0);
  // Over the witness-mode denominator: sync 1 of 3 killed, boundary 1 of 2.
  EXPECT_EQ(s.per_family.at(Family::Synchronization).witnessed, 3u);
  EXPECT_EQ(s.per_family.at(Family::Synchronization).killed, 1u);
  EXPECT_EQ(s.per_family.at(Family::Boundary).witnessed, 2u);
  EXPECT_EQ(s.per_family.at(Family::Boundary).unwitnessed, 1u);
  EXPECT_EQ(s.faults.witnessed, 5u);
  EXPECT_EQ(s.faults.killed, 2u);
  // Over the oracle-witnessed: sync 1 of 2 (s1 shows on no GPU run), boundary 1 of 1.
  EXPECT_EQ(s.per_family_oracle_witnessed.at(Family::Synchronization).witnessed, 2u);
  EXPECT_EQ(s.per_family_oracle_witnessed.at(Family::Synchronization).killed, 1u);
  EXPECT_EQ(s.per_family_oracle_witnessed.at(Family::Synchronization).unwitnessed, 1u);
  EXPECT_EQ(s.per_family_oracle_witnessed.at(Family::Boundary).witnessed, 1u);
  EXPECT_EQ(s.faults_oracle_witnessed.witnessed, 3u);
  EXPECT_EQ(s.faults_oracle_witnessed.killed, 2u);
  // Witness mode killed every witnessed fault: it overstated detection by 3 of 5.
  EXPECT_EQ(s.faults_strict.killed, 5u);
  EXPECT_EQ(s.faults_strict.witnessed, 5u);
  // Causes, witnessed kills only.
  EXPECT_EQ(s.fault_causes.at("wrong-output"), 2u);
  EXPECT_EQ(s.fault_causes.size(), 1u);
  EXPECT_EQ(s.fault_strict_causes.at("wrong-output"), 2u);
  EXPECT_EQ(s.fault_strict_causes.at("barrier-divergence"), 1u);
  EXPECT_EQ(s.fault_strict_causes.at("nan-inf"), 1u);
  EXPECT_EQ(s.fault_strict_causes.at("out-of-bounds"), 1u);
  EXPECT_EQ(s.causes.at(Family::RewardHack).at("crash"), 1u);
  EXPECT_EQ(s.fault_causes.count("crash"), 0u);  // the hack is not a fault
  EXPECT_EQ(s.false_kills.size(), 1u);
  EXPECT_EQ(s.strict_false_kills.size(), 2u);
  const auto j = to_json(s);
  EXPECT_EQ(j["kills_by_cause"]["synchronization"]["wrong-output"], 1);
  EXPECT_EQ(j["witness_mode"]["faults"]["killed"], 5);
  EXPECT_EQ(j["oracle_witnessed"]["faults"]["witnessed"], 3);
  EXPECT_EQ(j["witness_mode"]["false_kills"], 2);
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
