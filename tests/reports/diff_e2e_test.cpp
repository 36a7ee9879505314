// `kaudit diff` and `kaudit sweep` end to end on a two-kernel slice with a known difference:
// ReLU returning its input (hack-return-input) passes kernelbench-v0.1 (non-negative inputs) and
// fails kernelbench-verified (its x(-1) trial).
#include <gtest/gtest.h>

#include <fstream>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "common/process.h"

namespace {

const std::vector<std::string> kSlice = {"--kernel", "softmax/softmax_block_smem", "--kernel", "relu/relu_gridstride",
                                         "--rule", "prec-drop-max-subtraction", "--rule", "hack-return-input",
                                         "--cache", KAUDIT_TEST_CACHE};

kaudit::ProcessResult kaudit_run(std::vector<std::string> args, bool slice = true) {
  args.insert(args.begin(), KAUDIT_EXE);
  if (slice) args.insert(args.end(), kSlice.begin(), kSlice.end());
  return kaudit::run_process(args, 1500);
}

bool lists_relu_hack(const nlohmann::json& list) {
  for (const auto& m : list)
    if (m["kernel"] == "relu/relu_gridstride" && m["rule"] == "hack-return-input") return true;
  return false;
}

TEST(DiffCommand, NamesTheNewlyKilledMutantsAndExitsOnRegression) {
  const auto up = kaudit_run({"diff", "kernelbench-v0.1", "kernelbench-verified", "--json", "--fail-on-regression"});
  ASSERT_EQ(up.exit_code, 0) << up.err;  // verified kills at least what v0.1 kills here
  const auto j = nlohmann::json::parse(up.out);
  EXPECT_TRUE(lists_relu_hack(j["newly_killed"])) << j.dump(1);
  EXPECT_TRUE(j["newly_missed"].empty());
  EXPECT_EQ(j["regression"], false);

  const auto down = kaudit_run({"diff", "kernelbench-verified", "kernelbench-v0.1", "--json", "--fail-on-regression"});
  EXPECT_EQ(down.exit_code, 1) << down.err;
  const auto k = nlohmann::json::parse(down.out);
  EXPECT_TRUE(lists_relu_hack(k["newly_missed"]));
  EXPECT_EQ(k["regression"], true);
  // Without --fail-on-regression a regression is reported, not an error.
  EXPECT_EQ(kaudit_run({"diff", "kernelbench-verified", "kernelbench-v0.1"}).exit_code, 0);

  // A finished audit folder as a side gives the same answer.
  const auto dir = std::filesystem::path(KAUDIT_TEST_CACHE) / "diff_e2e_v01";
  std::filesystem::remove_all(dir);
  ASSERT_EQ(kaudit_run({"audit", "--oracle", "kernelbench-v0.1", "--out", dir.string()}).exit_code, 0);
  const auto from_dir = kaudit_run({"diff", dir.string(), "kernelbench-verified", "--json"});
  ASSERT_EQ(from_dir.exit_code, 0) << from_dir.err;
  EXPECT_EQ(nlohmann::json::parse(from_dir.out)["newly_killed"], j["newly_killed"]);

  // A CI gate on finished run directories (docs/CI-GATE.md): no kernel runs, floors per family.
  const auto gate = kaudit_run({"diff", dir.string(), dir.string() + ":kernelbench-v0.1", "--fail-on-regression",
                                "--min-detection", "all=0", "--json"});
  EXPECT_EQ(gate.exit_code, 0) << gate.err;
  EXPECT_NE(gate.err.find("kaudit diff: 0 kernel runs (both sides read from finished runs)"), std::string::npos) << gate.err;
  EXPECT_TRUE(nlohmann::json::parse(gate.out)["floors_not_met"].empty());
  const auto floor = kaudit_run({"diff", dir.string(), dir.string(), "--min-detection", "reward-hack=100"}, false);
  EXPECT_EQ(floor.exit_code, 1) << floor.err;  // v0.1 misses the relu hack
  EXPECT_NE(floor.out.find("Below a floor: reward-hack:"), std::string::npos) << floor.out;
  EXPECT_EQ(kaudit_run({"diff", dir.string(), dir.string(), "--min-detection", "reward=1"}, false).exit_code, 2);

  // A folder audited on other mutants cannot be compared with this slice.
  const auto other = kaudit_run({"diff", dir.string(), "kernelbench-verified", "--kernel", "softmax/softmax_block_smem",
                                 "--rule", "prec-drop-max-subtraction", "--cache", KAUDIT_TEST_CACHE},
                                false);
  EXPECT_EQ(other.exit_code, 2);
  EXPECT_NE(other.err.find("different mutants or witnesses"), std::string::npos) << other.err;
}

// docs/CI-GATE.md's flow: the base branch's spec renamed, both scored in one audit (one pool, the
// same witnesses), the run directory's two sides compared with floors.
TEST(DiffCommand, TwoSpecsOfOneNameGateInOneAudit) {
  const auto dir = std::filesystem::path(KAUDIT_TEST_CACHE) / "diff_e2e_gate";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  std::ifstream in(std::string(KAUDIT_SUITES_DIR) + "/kernelbench-verified.json");
  nlohmann::json base = nlohmann::json::parse(in);
  base["name"] = "kernelbench-verified-base";
  std::ofstream(dir / "base.json") << base.dump();
  const auto run = dir / "run";
  ASSERT_EQ(kaudit_run({"audit", "--oracle", (dir / "base.json").string(), "--oracle", "kernelbench-v0.1", "--out",
                        run.string()})
                .exit_code,
            0);
  // The pull request's spec (v0.1's) misses the relu hack the base (Verified) killed.
  const auto gate = kaudit_run({"diff", run.string() + ":kernelbench-verified-base", run.string() + ":kernelbench-v0.1",
                                "--fail-on-regression", "--json"},
                               false);
  EXPECT_EQ(gate.exit_code, 1) << gate.err;
  EXPECT_TRUE(lists_relu_hack(nlohmann::json::parse(gate.out)["newly_missed"])) << gate.out;
  const auto same = kaudit_run({"diff", run.string() + ":kernelbench-verified-base", run.string() + ":kernelbench-verified-base",
                                "--fail-on-regression", "--min-detection", "all=0"},
                               false);
  EXPECT_EQ(same.exit_code, 0) << same.out << same.err;
}

TEST(SweepCommand, LooserTolerancesNeverDetectOrRejectMore) {
  const auto r = kaudit_run({"sweep", "--oracle", "kernelbench", "--tolerances", "1e-5,1e-4,1e-3,1e-2,1e-1", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["sweep"].size(), 5u);
  std::size_t previous_killed = SIZE_MAX, previous_fk = SIZE_MAX;
  std::size_t witnessed = 0;
  for (const auto& row : j["sweep"]) {
    std::size_t killed = 0;
    witnessed = 0;
    for (const auto& [family, t] : row["per_family"].items()) {
      killed += t["killed"].get<std::size_t>();
      witnessed += t["witnessed"].get<std::size_t>();
    }
    EXPECT_LE(killed, previous_killed) << row;
    EXPECT_LE(row["false_kills"].get<std::size_t>(), previous_fk) << row;
    previous_killed = killed;
    previous_fk = row["false_kills"];
  }
  EXPECT_GT(witnessed, 0u);
  EXPECT_EQ(kaudit_run({"sweep", "--oracle", "kernelbench", "--tolerances", "1e-2,abc"}, false).exit_code, 2);
}

}  // namespace
