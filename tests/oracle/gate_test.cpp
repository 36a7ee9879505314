// End-to-end tests of the verification gate on a small fixture corpus (tests/fixtures/gate_corpus):
// one correct kernel and three broken ones (floor-div grid dropping the tail block, a compile
// error, a segfault). The gate must pass the first, reject each of the others with the right
// reason, and keep going after every failure.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "common/process.h"
#include "corpus/corpus.h"
#include "oracle/gate.h"

namespace {

// `kaudit COMMAND <the gate corpus> --json --cache <the test cache> ARGS...`: its exit status,
// stderr, and stdout parsed as JSON (null when empty).
struct JsonRun {
  int exit_code = -1;
  std::string err;
  nlohmann::json out;
};
JsonRun kaudit_json(const char* command, const std::vector<std::string>& args) {
  std::vector<std::string> argv = {KAUDIT_EXE, command, KAUDIT_GATE_CORPUS, "--json", "--cache", KAUDIT_TEST_CACHE};
  argv.insert(argv.end(), args.begin(), args.end());
  const auto r = kaudit::run_process(argv, 600);
  JsonRun j{r.exit_code, r.err, nullptr};
  if (!r.out.empty()) j.out = nlohmann::json::parse(r.out);
  return j;
}

const kaudit::oracle::KernelVerdict& find(const kaudit::oracle::GateReport& r, const std::string& id) {
  for (const auto& v : r.kernels)
    if (v.kernel == id) return v;
  throw std::runtime_error("no verdict for " + id);
}

class GateFixture : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    auto loaded = kaudit::corpus::load_corpus(KAUDIT_GATE_CORPUS);
    ASSERT_TRUE(loaded.ok());
    kaudit::oracle::GateOptions opts;
    opts.cache_dir = KAUDIT_TEST_CACHE;
    opts.worker_exe = KAUDIT_EXE;
    report_ = new kaudit::oracle::GateReport(kaudit::oracle::run_gate(loaded.corpus, opts));
  }
  static void TearDownTestSuite() { delete report_; }
  static kaudit::oracle::GateReport* report_;
};
kaudit::oracle::GateReport* GateFixture::report_ = nullptr;

TEST_F(GateFixture, PassesTheCorrectKernelOnEveryRecipe) {
  const auto& v = find(*report_, "twice/correct");
  EXPECT_TRUE(v.passed) << v.failure;
  EXPECT_GE(v.cases.size(), 7u);  // five distributions and two odd shapes
  for (const auto& c : v.cases) EXPECT_TRUE(c.passed) << c.recipe;
}

TEST_F(GateFixture, RejectsADroppedTailBlockOnTheOddShape) {
  const auto& v = find(*report_, "twice/tail_dropped");
  EXPECT_FALSE(v.passed);
  // N=1024 is a multiple of 256: the fault is invisible there and shows on N=1000.
  EXPECT_TRUE(v.cases.at(0).passed);
  EXPECT_NE(v.failure.find("gate-odd-0"), std::string::npos) << v.failure;
  EXPECT_NE(v.failure.find("N=1000"), std::string::npos) << v.failure;
  EXPECT_NE(v.failure.find("index 768"), std::string::npos) << v.failure;  // first element of the dropped block
}

TEST_F(GateFixture, RejectsAKernelThatDoesNotBuildWithTheCompilerMessage) {
  const auto& v = find(*report_, "twice/no_build");
  EXPECT_FALSE(v.passed);
  EXPECT_NE(v.failure.find("no_build.cu:4"), std::string::npos) << v.failure;
  EXPECT_NE(v.failure.find("undeclared"), std::string::npos) << v.failure;
}

TEST_F(GateFixture, ACrashIsAVerdictAndTheNextKernelStillRuns) {
  const auto& v = find(*report_, "twice/segfault");
  EXPECT_FALSE(v.passed);
  EXPECT_EQ(v.cases.at(0).status, kaudit::runtime::Status::Crash);
  EXPECT_TRUE(find(*report_, "twice/correct").passed);  // verified in the same run
  EXPECT_EQ(report_->kernels.size(), 7u);
  EXPECT_EQ(report_->passed(), 2u);  // twice/correct and pow13/squarings
}

// pow13 on gate-large: |x| above ~918 overflows float32 and not float64, so no float32 kernel can
// meet the float64 reference; the Model run in float32 misses it too (infinities), and the case
// is judged against that float32 answer. Everywhere else the float64 reference judges.
TEST_F(GateFixture, WhereTheModelInFloat32MissesTooTheKernelIsJudgedAgainstIt) {
  const auto& v = find(*report_, "pow13/squarings");
  EXPECT_TRUE(v.passed) << v.failure;
  int by_fp32 = 0;
  for (const auto& c : v.cases) {
    EXPECT_TRUE(c.passed) << c.recipe;
    EXPECT_EQ(c.judged_by_fp32, c.recipe == "gate-large") << c.recipe;
    by_fp32 += c.judged_by_fp32;
    if (c.judged_by_fp32) {
      EXPECT_FALSE(c.fp32_miss.ok);
      EXPECT_NE(c.fp32_miss.reason.find("inf"), std::string::npos) << c.fp32_miss.to_string();
    }
  }
  EXPECT_EQ(by_fp32, 1);
}

TEST_F(GateFixture, AKernelThatMatchesNeitherReferenceStillFails) {
  const auto& v = find(*report_, "pow13/saturating");  // clamps to FLT_MAX where float32 is infinite
  EXPECT_FALSE(v.passed);
  EXPECT_NE(v.failure.find("gate-large"), std::string::npos) << v.failure;
  EXPECT_NE(v.failure.find("judged against the Model run in float32"), std::string::npos) << v.failure;
  for (const auto& c : v.cases) EXPECT_EQ(c.passed, c.recipe != "gate-large") << c.recipe;
}

TEST_F(GateFixture, AFailingReferenceExportNamesProblemPyAndTheLine) {
  const auto& v = find(*report_, "broken_model/copy");
  EXPECT_FALSE(v.passed);
  EXPECT_EQ(v.cases.size(), 1u);  // no point in trying the other recipes
  EXPECT_NE(v.failure.find("reference export failed"), std::string::npos) << v.failure;
  EXPECT_NE(v.failure.find("problem.py:10"), std::string::npos) << v.failure;
  EXPECT_NE(v.failure.find("broken on purpose"), std::string::npos) << v.failure;
}

TEST(VerifyCommand, JsonReportAndExitCode) {
  const JsonRun r = kaudit_json("verify", {"--kernel", "twice/correct", "--kernel", "twice/tail_dropped"});
  EXPECT_EQ(r.exit_code, 1) << r.err;  // one kernel fails
  const nlohmann::json& j = r.out;
  EXPECT_EQ(j["tasks"], 1);  // only the task of the selected kernels
  EXPECT_EQ(j["kernels"], 2);
  EXPECT_EQ(j["passed"], 1);
  ASSERT_EQ(j["failed"].size(), 1u);
  EXPECT_EQ(j["failed"][0]["kernel"], "twice/tail_dropped");
  // Every case says where its host time went.
  ASSERT_EQ(j["results"].size(), 2u);
  for (const auto& k : j["results"]) {
    ASSERT_FALSE(k["cases"].empty());
    for (const auto& c : k["cases"]) {
      const auto& p = c["phase_seconds"];
      for (const char* phase : {"inputs", "reference", "run", "judge"}) {
        ASSERT_TRUE(p.contains(phase)) << c.dump();
        EXPECT_GE(p[phase].get<double>(), 0.0) << phase;
      }
      EXPECT_GT(p["run"].get<double>(), 0.0) << c.dump();  // a kernel run in a worker takes time
    }
  }
}

TEST(VerifyCommand, APresetRunsTheGateAtItAndATaskWithoutItIsRefused) {
  const JsonRun r = kaudit_json("verify", {"--kernel", "twice/correct", "--preset", "kernelbench"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json& j = r.out;
  EXPECT_EQ(j["preset"], "kernelbench");
  const auto& cases = j["results"][0]["cases"];
  EXPECT_EQ(cases[0]["recipe"], "gate-uniform01");
  EXPECT_EQ(cases[0]["dims"]["N"], 4096);  // the task's kernelbench preset, not small's 1024
  EXPECT_EQ(cases.back()["dims"]["N"], 1);  // odd shapes stay
  auto missing = kaudit::run_process({KAUDIT_EXE, "verify", KAUDIT_GATE_CORPUS, "--kernel", "twice/correct",
                                      "--preset", "kernelbench-v0"}, 60);
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("task 'twice' has no such preset"), std::string::npos) << missing.err;
  EXPECT_NE(missing.err.find("twice/task.json"), std::string::npos) << missing.err;
}

TEST(VerifyCommand, UnknownKernelIsAUsageError) {
  auto r = kaudit::run_process({KAUDIT_EXE, "verify", KAUDIT_GATE_CORPUS, "--kernel", "twice/nope"}, 60);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("no kernel 'twice/nope'"), std::string::npos) << r.err;
}

}  // namespace

namespace {
TEST(CheckCommand, EveryBuiltInOracleAcceptsACorrectExactKernel) {
  const JsonRun r = kaudit_json("check", {"--kernel", "twice/correct", "--kernel", "twice/tail_dropped"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json& j = r.out;
  EXPECT_EQ(j["kernels"], 2);
  ASSERT_EQ(j["false_kills"].size(), 6u);
  for (const auto& row : j["results"]) {
    for (const auto& [oracle, cell] : row["oracles"].items()) {
      // y = 2x is exact in fp32: every oracle accepts it. The floor-div grid only shows on odd
      // shapes, which only ci-fuzz tries.
      if (row["kernel"] == "twice/correct" || oracle != "ci-fuzz") EXPECT_EQ(cell, "accept") << row["kernel"] << " " << oracle;
      else EXPECT_EQ(cell.get<std::string>().rfind("REJECT", 0), 0u) << cell;
    }
  }
}

TEST(CheckCommand, APresetMovesTheTrialsAndTheReportSaysWhatRan) {
  const JsonRun r = kaudit_json("check", {"--kernel", "twice/correct", "--oracle", "kernelbench-v0", "--preset", "kernelbench"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json& j = r.out;
  EXPECT_EQ(j["backend"], "cpu");
  EXPECT_EQ(j["preset"], "kernelbench");
  const auto& row = j["results"][0];
  EXPECT_EQ(row["oracles"]["kernelbench-v0"], "accept");
  EXPECT_GE(row["trials_run"]["kernelbench-v0"].get<int>(), 1);
  EXPECT_GT(row["harness_seconds"]["kernelbench-v0"].get<double>(), 0);
  auto missing = kaudit::run_process({KAUDIT_EXE, "check", KAUDIT_GATE_CORPUS, "--kernel", "twice/correct",
                                      "--preset", "kernelbench-v0"}, 60);
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("task 'twice' has no such preset"), std::string::npos) << missing.err;
}

// A checker that makes its own inputs (tests/fixtures/external_checkers/own_inputs.py): its
// tensors, not kaudit's recipes, are what the kernel runs on and what the checker is shown; on
// its odd-shape trial (N = 1000) the floor-div grid drops the tail and the checker sees it.
TEST(CheckCommand, AnExternalCheckersOwnInputsAreTheTrials) {
  const std::string fixtures = std::string(KAUDIT_GATE_CORPUS) + "/../external_checkers/";
  const JsonRun r = kaudit_json("check", {"--kernel", "twice/correct", "--kernel", "twice/tail_dropped", "--oracle",
                                          fixtures + "own_inputs.json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const auto& row : r.out["results"]) {
    const std::string cell = row["oracles"]["own-inputs"];
    if (row["kernel"] == "twice/correct") {
      EXPECT_EQ(cell, "accept");
    } else {
      EXPECT_EQ(cell, "REJECT(mine-odd)");
      EXPECT_NE(row["rejections"]["own-inputs"]["reason"].get<std::string>().find("mine-odd: outputs differ"),
                std::string::npos) << row;
    }
  }
  // Inputs of another shape than task.json's: an error naming the input and both shapes.
  const auto bad = kaudit::run_process({KAUDIT_EXE, "check", KAUDIT_GATE_CORPUS, "--kernel", "twice/correct", "--oracle",
                                        fixtures + "wrong_inputs.json", "--cache", KAUDIT_TEST_CACHE}, 120);
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("oracle 'wrong-inputs': its checker's inputs for task 'twice', trial 0 'short': input 'x' is "
                         "Float[1023], task.json says float32 [1024]"),
            std::string::npos)
      << bad.err;
}

// `kaudit check` asks an external checker about a run that did not complete: a harness that skips
// a crashed trial (tests/fixtures/external_checkers/passes_crashes.json) is asked about the crash
// and about the trials the dead process would have run, and accepts the kernel that segfaults;
// the checker without that bug rejects it by the crash.
TEST(CheckCommand, AnExternalCheckerDecidesOnARunThatCrashed) {
  const std::string fixtures = std::string(KAUDIT_GATE_CORPUS) + "/../external_checkers/";
  const JsonRun r = kaudit_json("check", {"--kernel", "twice/correct", "--kernel", "twice/segfault", "--oracle",
                                          fixtures + "passes_crashes.json", "--oracle",
                                          std::string(KAUDIT_GATE_CORPUS) + "/../../../examples/oracles/kernelbench_like.json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  int rows = 0;
  for (const auto& row : r.out["results"]) {
    ++rows;
    if (row["kernel"] == "twice/correct") {
      EXPECT_EQ(row["oracles"]["passes-crashes"], "accept") << row;
      EXPECT_EQ(row["oracles"]["kernelbench-like"], "accept") << row;
    } else {
      EXPECT_EQ(row["oracles"]["passes-crashes"], "accept") << row;
      EXPECT_EQ(row["oracles"]["kernelbench-like"].get<std::string>().rfind("REJECT", 0), 0u) << row;
      EXPECT_NE(row["rejections"]["kernelbench-like"]["reason"].get<std::string>().find("crash"), std::string::npos) << row;
    }
  }
  EXPECT_EQ(rows, 2);
}

TEST(CheckCommand, UnknownOracleNamesTheBuiltIns) {
  auto r = kaudit::run_process({KAUDIT_EXE, "check", KAUDIT_GATE_CORPUS, "--oracle", "kernelbench-v7"}, 60);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("no built-in oracle 'kernelbench-v7'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("gym-v9"), std::string::npos) << r.err;
}
}  // namespace

namespace {
TEST(RulesCommand, JsonListsEveryFamilyWithIdFamilyDescription) {
  if (!KAUDIT_TEST_HAVE_CLANG) GTEST_SKIP() << "kaudit built without Clang LibTooling (tools/no_clang_test.cmake)";
  auto r = kaudit::run_process({KAUDIT_EXE, "rules", "--json"}, 60);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  ASSERT_TRUE(j.is_array());
  std::set<std::string> families, ids;
  for (const auto& rule : j) {
    ASSERT_TRUE(rule.contains("id") && rule.contains("family") && rule.contains("description")) << rule;
    families.insert(rule["family"].get<std::string>());
    EXPECT_TRUE(ids.insert(rule["id"].get<std::string>()).second) << "duplicate id " << rule["id"];
  }
  EXPECT_EQ(families, (std::set<std::string>{"arithmetic", "indexing", "semantic", "boundary", "synchronization",
                                             "precision", "reward-hack"}));
  auto bad = kaudit::run_process({KAUDIT_EXE, "rules", "--jsn"}, 60);
  EXPECT_EQ(bad.exit_code, 2);
}
}  // namespace
