// `kaudit cover` end to end on a two-kernel slice: the suite it writes is an oracle spec with
// per-task trials; scored by `kaudit audit --oracle suite.json` it kills every witnessed mutant
// (it was chosen to) and rejects no correct kernel; a budget below 1 is a usage error.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "common/process.h"

namespace {

const std::vector<std::string> kSlice = {"--kernel", "relu/relu_gridstride", "--kernel", "softmax/softmax_block_smem",
                                         "--rule", "prec-drop-max-subtraction", "--rule", "hack-return-input",
                                         "--rule", "bound-drop-guard", "--rule", "arith-add-to-sub"};

TEST(CoverCommand, SuiteCoversEveryWitnessedMutantAndIsAnOracleSpec) {
  const auto dir = std::filesystem::path(KAUDIT_TEST_CACHE) / "cover_e2e_out";
  std::filesystem::remove_all(dir);
  std::vector<std::string> args = {KAUDIT_EXE, "cover", "--cache", KAUDIT_TEST_CACHE, "--out", (dir / "suite.json").string(), "--json"};
  args.insert(args.end(), kSlice.begin(), kSlice.end());
  const auto r = kaudit::run_process(args, 1500);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto cover = nlohmann::json::parse(r.out);
  ASSERT_EQ(cover["tasks"].size(), 2u);
  std::size_t witnessed = 0;
  for (const auto& t : cover["tasks"]) {
    witnessed += t["witnessed"].get<std::size_t>();
    EXPECT_EQ(t["coverable"], t["witnessed"]) << t;  // witnessed means some legal input kills it
    EXPECT_EQ(t["suite"].size(), t["inputs_for_full_coverage"]) << t;
    EXPECT_LE(t["killed_at_budget"]["1"].get<std::size_t>(), t["killed_at_budget"]["2"].get<std::size_t>());
  }
  EXPECT_GT(witnessed, 0u);
  EXPECT_GE(cover["inputs_for_full_coverage"]["max"].get<double>(), cover["inputs_for_full_coverage"]["median"].get<double>());
  EXPECT_TRUE(cover["held_out"]["oracles"].contains("kernelbench-v0.1"));
  EXPECT_TRUE(std::filesystem::exists(dir / "cover.md"));

  // The suite, scored as an oracle on the same slice: every witnessed mutant killed, no false kill.
  std::ifstream in(dir / "suite.json");
  const auto suite = nlohmann::json::parse(in);
  EXPECT_EQ(suite["name"], "kaudit-cover-full");
  EXPECT_EQ(suite["reference"], "fp64");
  ASSERT_TRUE(suite.contains("task_trials"));
  std::vector<std::string> audit = {KAUDIT_EXE, "audit", "--oracle", (dir / "suite.json").string(), "--cache", KAUDIT_TEST_CACHE,
                                    "--out", (dir / "audit").string(), "--json"};
  audit.insert(audit.end(), kSlice.begin(), kSlice.end());
  const auto scored = kaudit::run_process(audit, 1500);
  ASSERT_EQ(scored.exit_code, 0) << scored.err;
  const auto summary = nlohmann::json::parse(scored.out);
  const auto& o = summary["oracles"][0];
  EXPECT_EQ(o["oracle"], "kaudit-cover-full");
  EXPECT_EQ(o["false_kills"], 0);
  std::size_t killed = 0, scored_witnessed = 0;
  for (const auto& [family, t] : o["per_family"].items()) {
    killed += t["killed"].get<std::size_t>();
    scored_witnessed += t["witnessed"].get<std::size_t>();
  }
  EXPECT_EQ(scored_witnessed, witnessed);
  EXPECT_EQ(killed, witnessed);

  // The same suite on a corpus without its tasks is refused, naming the task.
  const auto other = kaudit::run_process({KAUDIT_EXE, "audit", "--oracle", (dir / "suite.json").string(), "--corpus",
                                          KAUDIT_OTHER_CORPUS, "--out", (dir / "other").string()},
                                         120);
  EXPECT_EQ(other.exit_code, 2);
  EXPECT_NE(other.err.find("another corpus"), std::string::npos) << other.err;
}

// `kaudit cover --from DIR` reads a finished `kaudit audit --full-matrix --out DIR` and gives the
// cover of the audit run here, with no kernel run; a run without full rows says how to get them.
TEST(CoverCommand, FromAFinishedRunGivesTheSameCoverWithoutRunningKernels) {
  const auto base = std::filesystem::path(KAUDIT_TEST_CACHE) / "cover_from";
  std::filesystem::remove_all(base);
  std::vector<std::string> here = {KAUDIT_EXE, "cover", "--cache", KAUDIT_TEST_CACHE, "--out", (base / "here" / "suite.json").string(), "--json"};
  here.insert(here.end(), kSlice.begin(), kSlice.end());
  const auto a = kaudit::run_process(here, 1500);
  ASSERT_EQ(a.exit_code, 0) << a.err;
  std::vector<std::string> audit = {KAUDIT_EXE, "audit", "--full-matrix", "--cache", KAUDIT_TEST_CACHE, "--out", (base / "run").string()};
  audit.insert(audit.end(), kSlice.begin(), kSlice.end());
  ASSERT_EQ(kaudit::run_process(audit, 1500).exit_code, 0);
  // An empty cache: anything that ran a kernel or built one would have to fill it.
  const auto b = kaudit::run_process({KAUDIT_EXE, "cover", "--from", (base / "run").string(), "--out",
                                      (base / "from" / "suite.json").string(), "--json", "--cache", (base / "empty-cache").string()},
                                     300);
  ASSERT_EQ(b.exit_code, 0) << b.err;
  EXPECT_NE(b.err.find("0 kernel runs"), std::string::npos) << b.err;
  EXPECT_FALSE(std::filesystem::exists(base / "empty-cache"));
  auto ja = nlohmann::json::parse(a.out), jb = nlohmann::json::parse(b.out);
  ASSERT_FALSE(ja["tasks"].empty());
  EXPECT_EQ(ja["tasks"], jb["tasks"]);
  EXPECT_EQ(ja["held_out"], jb["held_out"]);
  std::ifstream sa(base / "here" / "suite.json"), sb(base / "from" / "suite.json");
  auto suite_a = nlohmann::json::parse(sa), suite_b = nlohmann::json::parse(sb);
  suite_a.erase("source");
  suite_b.erase("source");
  EXPECT_EQ(suite_a, suite_b);

  // Without --full-matrix a row stops at its witness (the rest "not-run"): set cover cannot run on
  // it. (A plain audit on this cache would read the full rows cached above, so the run is cut here.)
  std::filesystem::copy(base / "run", base / "plain");
  {
    std::ifstream in(base / "run" / "kill-matrix.jsonl");
    std::ofstream out(base / "plain" / "kill-matrix.jsonl", std::ios::trunc);
    bool cut = false;
    for (std::string line; std::getline(in, line);) {
      auto row = nlohmann::json::parse(line);
      if (!cut && row["witnessed"].get<bool>()) {
        for (auto& o : row["outcomes"]) o = "not-run";
        row["outcomes"][row["witness"].get<std::size_t>()] = row["witness_outcome"];
        cut = true;
      }
      out << row.dump() << "\n";
    }
    ASSERT_TRUE(cut);
  }
  const auto c = kaudit::run_process({KAUDIT_EXE, "cover", "--from", (base / "plain").string(), "--out",
                                      (base / "plain-suite.json").string()},
                                     300);
  EXPECT_EQ(c.exit_code, 2);
  EXPECT_NE(c.err.find("--full-matrix"), std::string::npos) << c.err;
}

TEST(CoverCommand, BudgetBelowOneIsAUsageError) {
  for (const char* bad : {"0", "-3", "2.5", "two"}) {
    const auto r = kaudit::run_process({KAUDIT_EXE, "cover", "--budget", bad}, 60);
    EXPECT_EQ(r.exit_code, 2) << bad;
    EXPECT_NE(r.err.find(std::string("--budget takes a whole number from 1 to 1000, not '") + bad + "'"),
              std::string::npos)
        << r.err;
  }
}

}  // namespace
