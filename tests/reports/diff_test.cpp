// kaudit diff's arithmetic on hand-made sides and its reading of audit folders: deltas per family,
// newly missed / killed mutants, newly rejected kernels, the regression flag, and the errors for
// runs that cannot be compared or folders that are not audits.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "reports/diff.h"

namespace {

using namespace kaudit;
using mutators::Family;
using regress::RunSide;
using regress::Verdict;

RunSide side(const std::string& label, std::vector<std::tuple<std::string, Family, bool, bool>> mutants,
             std::vector<std::string> rejected = {}) {
  RunSide s{label, label, {}, {}};
  for (const auto& [id, family, witnessed, killed] : mutants) s.mutants[id] = Verdict{"t/k", "rule", family, witnessed, killed};
  for (const auto& member : rejected) s.false_kills.push_back({label, member, "t", "trial", "detail"});
  return s;
}

TEST(Diff, DeltasNewlyMissedAndKilled) {
  const auto base = side("base", {{"a", Family::Arithmetic, true, true},
                                  {"b", Family::Arithmetic, true, false},
                                  {"c", Family::Precision, true, true},
                                  {"d", Family::Precision, false, false},  // unwitnessed: in no rate
                                  {"h", Family::RewardHack, true, false}});
  const auto head = side("head", {{"a", Family::Arithmetic, true, true},
                                  {"b", Family::Arithmetic, true, true},
                                  {"c", Family::Precision, true, false},
                                  {"d", Family::Precision, false, true},
                                  {"h", Family::RewardHack, true, true}});
  const auto d = regress::diff_sides(base, head);
  EXPECT_EQ(d.base_family.at(Family::Arithmetic).killed, 1u);
  EXPECT_EQ(d.head_family.at(Family::Arithmetic).killed, 2u);
  EXPECT_EQ(d.base_family.at(Family::Precision).witnessed, 1u);
  EXPECT_EQ(d.head_family.at(Family::Precision).killed, 0u);
  EXPECT_EQ(d.base_faults.witnessed, 3u);  // the hack is not a fault
  EXPECT_EQ(d.head_faults.killed, 2u);
  ASSERT_EQ(d.newly_killed.size(), 2u);
  EXPECT_EQ(d.newly_killed[0].first, "b");
  EXPECT_EQ(d.newly_killed[1].first, "h");
  ASSERT_EQ(d.newly_missed.size(), 1u);
  EXPECT_EQ(d.newly_missed[0].first, "c");
  EXPECT_TRUE(d.regression);  // precision dropped, even though the total did not
  const auto j = regress::to_json(d);
  EXPECT_EQ(j["per_family"]["arithmetic"]["head_killed"], 2);
  EXPECT_EQ(j["regression"], true);
}

// --min-detection FAMILY=P: a floor on head's detection per family or over all faults.
TEST(Diff, DetectionFloorsNameEveryFamilyBelowThem) {
  const auto base = side("base", {{"a", Family::Arithmetic, true, true}, {"b", Family::Arithmetic, true, true},
                                  {"c", Family::Boundary, true, true}, {"d", Family::Boundary, false, false}});
  const auto head = side("head", {{"a", Family::Arithmetic, true, true}, {"b", Family::Arithmetic, true, false},
                                  {"c", Family::Boundary, true, true}, {"d", Family::Boundary, false, false}});
  const auto d = regress::diff_sides(base, head);
  using regress::parse_detection_floor;
  EXPECT_TRUE(regress::floors_not_met(d, {parse_detection_floor("arithmetic=50"), parse_detection_floor("boundary=100"),
                                          parse_detection_floor("precision=90")})  // nothing witnessed: no floor
                  .empty());
  const auto below = regress::floors_not_met(d, {parse_detection_floor("arithmetic=50.1"), parse_detection_floor("all=70")});
  ASSERT_EQ(below.size(), 2u);
  EXPECT_NE(below[0].find("arithmetic: 50.0% detected by head, below the floor of 50.1%"), std::string::npos) << below[0];
  EXPECT_NE(below[1].find("all faults: 66.7%"), std::string::npos) << below[1];
  for (const char* bad : {"arithmetic", "arith=50", "boundary=101", "boundary=-1", "boundary=5x", "=5", "all="})
    EXPECT_THROW(parse_detection_floor(bad), std::invalid_argument) << bad;
}

TEST(Diff, FalseKillsRisingIsARegression) {
  const auto base = side("base", {{"a", Family::Indexing, true, true}});
  const auto same = side("head", {{"a", Family::Indexing, true, true}});
  EXPECT_FALSE(regress::diff_sides(base, same).regression);
  const auto stricter = side("head", {{"a", Family::Indexing, true, true}}, {"t/correct"});
  const auto d = regress::diff_sides(base, stricter);
  EXPECT_TRUE(d.regression);
  ASSERT_EQ(d.newly_rejected.size(), 1u);
  EXPECT_EQ(d.newly_rejected[0].member, "t/correct");
  EXPECT_TRUE(regress::diff_sides(stricter, base).no_longer_rejected.size() == 1);
  EXPECT_FALSE(regress::diff_sides(stricter, base).regression);
}

TEST(Diff, DifferentMutantsOrWitnessesCannotBeCompared) {
  const auto base = side("base", {{"a", Family::Indexing, true, true}, {"b", Family::Indexing, true, true}});
  const auto other = side("head", {{"a", Family::Indexing, true, true}, {"z", Family::Indexing, true, true}});
  try {
    regress::diff_sides(base, other);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("different mutants or witnesses"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("e.g. b"), std::string::npos) << e.what();
  }
  const auto unwitnessed = side("head", {{"a", Family::Indexing, true, true}, {"b", Family::Indexing, false, false}});
  EXPECT_THROW(regress::diff_sides(base, unwitnessed), std::invalid_argument);
}

TEST(Diff, ReadsAnAuditFolder) {
  const auto dir = std::filesystem::temp_directory_path() / ("kaudit_diff_test_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  // Not an audit folder.
  EXPECT_THROW(regress::side_from_directory(dir, "", "dir"), std::runtime_error);
  std::ofstream(dir / "summary.json") << R"({"oracles": [
    {"oracle": "o1", "false_kill_list": [{"member": "t/k", "task": "t", "trial": "x", "detail": "d"}]},
    {"oracle": "o2", "false_kill_list": []}]})";
  std::ofstream(dir / "kill-matrix.jsonl")
      << R"({"id": "m1", "kernel": "t/k", "rule": "r", "family": "boundary", "ran": true, "witnessed": true, "killed_by": {"o1": true, "o2": false}})"
      << "\n"
      << R"({"id": "m2", "kernel": "t/k", "rule": "r", "family": "boundary", "ran": false, "witnessed": false, "killed_by": {}})"
      << "\n";
  try {
    regress::side_from_directory(dir, "", "dir");  // two oracles: which one?
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(":ORACLE"), std::string::npos) << e.what();
  }
  const auto s = regress::side_from_directory(dir, "o1", "dir:o1");
  ASSERT_EQ(s.mutants.size(), 1u);  // m2 did not run
  EXPECT_TRUE(s.mutants.at("m1").killed);
  EXPECT_EQ(s.mutants.at("m1").family, Family::Boundary);
  ASSERT_EQ(s.false_kills.size(), 1u);
  EXPECT_FALSE(regress::side_from_directory(dir, "o2", "dir:o2").mutants.at("m1").killed);
  EXPECT_THROW(regress::side_from_directory(dir, "o3", "dir:o3"), std::runtime_error);
  std::filesystem::remove_all(dir);
}

// Issue 21: folders whose files hold values of other types than an audit writes are errors naming
// the file (and line), never an exception out of the reader.
TEST(Diff, MalformedAuditFoldersAreErrorsNamingTheFile) {
  const auto dir = std::filesystem::temp_directory_path() / ("kaudit_diff_bad_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string good_summary = R"({"oracles": [{"oracle": "o1", "false_kill_list": []}]})";
  const std::string good_line =
      R"({"id": "m1", "kernel": "t/k", "rule": "r", "family": "boundary", "ran": true, "witnessed": true, "killed_by": {"o1": true}})";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"5", good_line},
      {R"({"oracles": 5})", good_line},
      {R"({"oracles": [5]})", good_line},
      {R"({"oracles": [{"oracle": 7}]})", good_line},
      {R"({"oracles": [{"oracle": "o1", "false_kill_list": [3]}]})", good_line},
      {good_summary, "5"},
      {good_summary, R"({"ran": "yes"})"},
      {good_summary, R"({"ran": true, "family": "boundary", "killed_by": []})"},
      {good_summary, R"({"ran": true, "family": "boundary", "killed_by": {"o1": "killed"}})"},
      {good_summary, R"({"ran": true, "family": 3, "killed_by": {"o1": true}})"},
  };
  for (const auto& [summary, line] : cases) {
    std::ofstream(dir / "summary.json", std::ios::trunc) << summary;
    std::ofstream(dir / "kill-matrix.jsonl", std::ios::trunc) << line << "\n";
    try {
      regress::side_from_directory(dir, "o1", "dir");
      ADD_FAILURE() << "accepted: " << summary << " / " << line;
    } catch (const std::runtime_error& e) {
      const std::string what = e.what();
      EXPECT_TRUE(what.find("summary.json") != std::string::npos || what.find("kill-matrix.jsonl:1") != std::string::npos)
          << what;
    } catch (const std::exception& e) {
      ADD_FAILURE() << "not a runtime_error for " << summary << " / " << line << ": " << e.what();
    }
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
