// The run directory (reports/run_dir.h): a kill record survives its JSON, and what cannot be read
// (missing, cut short, another run format, a record of another shape) is an error naming the
// file, and the line where there is one.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "common/files.h"
#include "reports/run_dir.h"

namespace {
namespace fs = std::filesystem;
using kaudit::reports::KillRecord;
using kaudit::reports::RunDirError;

KillRecord sample() {
  KillRecord r;
  r.id = "0123456789abcdef";
  r.task = "relu";
  r.kernel = "relu/relu_gridstride";
  r.rule = "bound-loop-lt-to-le";
  r.family = "boundary";
  r.file = "corpus/kernels/relu/relu_gridstride.cu";
  r.range = "11:76-11:77";
  r.original = "<";
  r.replacement = "<=";
  r.ran = r.witnessed = r.oracle_witnessed = true;
  r.killed_by = {{"a", true}, {"b", false}};
  r.strict_killed_by = {{"a", true}, {"b", true}};
  r.cause = {{"a", "crash"}};
  r.strict_cause = {{"a", "out-of-bounds"}, {"b", "out-of-bounds"}};
  r.trial = {{"a", "trial-3"}};
  r.outcomes = {"pass", "out-of-bounds"};
  r.witness = 1;
  r.witness_outcome = "out-of-bounds";
  r.oracle_witness = 1;
  r.oracle_witness_cause = "crash";
  r.note = "n";
  return r;
}

TEST(RunDir, AKillRecordSurvivesItsJson) {
  const KillRecord a = sample();
  const KillRecord b = kaudit::reports::kill_record_from_json(nlohmann::json::parse(to_json(a).dump()));
  EXPECT_EQ(to_json(a), to_json(b));
  EXPECT_EQ(b.trial.at("a"), "trial-3");
  EXPECT_EQ(b.range, "11:76-11:77");
  EXPECT_EQ(b.witness, 1);
  KillRecord unwitnessed = sample();
  unwitnessed.witness = unwitnessed.oracle_witness = -1;
  EXPECT_FALSE(to_json(unwitnessed).contains("witness"));
  EXPECT_EQ(kaudit::reports::kill_record_from_json(to_json(unwitnessed)).witness, -1);
  EXPECT_FALSE(to_json(unwitnessed).contains("second_call"));  // not probed
  EXPECT_EQ(unwitnessed.shown_at(), -1);
}

// A mutant only the second-call probe shows wrong: no witness, the probe's two inputs and outcome.
TEST(RunDir, ASecondCallWitnessSurvivesItsJson) {
  KillRecord a = sample();
  a.witness = -1;
  a.outcomes = {"pass", "pass", "pass"};
  a.second_call_probed = true;
  a.second_call_witness = 2;
  a.second_call_first = 0;
  a.second_call_outcome = "wrong-output";
  const nlohmann::json j = to_json(a);
  EXPECT_EQ(j["second_call"], (nlohmann::json{{"witness", 2}, {"first", 0}, {"outcome", "wrong-output"}}));
  const KillRecord b = kaudit::reports::kill_record_from_json(nlohmann::json::parse(j.dump()));
  EXPECT_EQ(to_json(b), j);
  EXPECT_TRUE(b.second_call_probed);
  EXPECT_EQ(b.shown_at(), 2);
  KillRecord none = a;
  none.second_call_witness = none.second_call_first = -1;  // probed, nothing shown
  EXPECT_EQ(kaudit::reports::kill_record_from_json(to_json(none)).second_call_witness, -1);
  EXPECT_TRUE(kaudit::reports::kill_record_from_json(to_json(none)).second_call_probed);
  nlohmann::json bad = j;
  bad["second_call"].erase("first");
  EXPECT_THROW(kaudit::reports::kill_record_from_json(bad), std::exception);
}

TEST(RunDir, AContractWitnessSurvivesItsJson) {
  KillRecord a = sample();
  a.witness = -1;
  a.outcomes = {"pass", "pass", "pass"};
  a.second_call_probed = true;  // probed, nothing shown
  a.contract_checked = true;
  a.contract_witness = 1;
  a.contract_cause = "library-compute";
  const nlohmann::json j = to_json(a);
  EXPECT_EQ(j["contract"], (nlohmann::json{{"witness", 1}, {"cause", "library-compute"}}));
  const KillRecord b = kaudit::reports::kill_record_from_json(nlohmann::json::parse(j.dump()));
  EXPECT_EQ(to_json(b), j);
  EXPECT_EQ(b.shown_at(), 1);
  KillRecord unchecked = a;
  unchecked.contract_checked = false;
  EXPECT_FALSE(to_json(unchecked).contains("contract"));
  EXPECT_EQ(kaudit::reports::kill_record_from_json(to_json(unchecked)).shown_at(), -1);
  nlohmann::json bad = j;
  bad["contract"].erase("cause");
  EXPECT_THROW(kaudit::reports::kill_record_from_json(bad), std::exception);
}

struct TempDir {
  fs::path path = fs::temp_directory_path() / ("kaudit_run_dir_" + std::to_string(::getpid()));
  TempDir() { fs::create_directories(path); }
  ~TempDir() { kaudit::remove_tree(path); }
};

// The error of read_run_dir(dir), or "" when it reads.
std::string read_error(const fs::path& dir) {
  try {
    kaudit::reports::read_run_dir(dir);
    return "";
  } catch (const RunDirError& e) {
    return e.what();
  }
}

TEST(RunDir, WhatCannotBeReadIsAnErrorNamingTheFile) {
  TempDir t;
  EXPECT_NE(read_error(t.path / "nothing").find("not a folder"), std::string::npos);
  EXPECT_NE(read_error(t.path).find("summary.json: missing"), std::string::npos) << read_error(t.path);

  kaudit::reports::RunFiles files;
  files.summary = {{"oracles", nlohmann::json::array({{{"oracle", "a"}, {"per_family", nlohmann::json::object()}}})}};
  files.pools = nlohmann::json::array();
  files.kill_matrix = {sample()};
  files.sources = {{"corpus/kernels/relu/relu_gridstride.cu", "source"}};
  kaudit::reports::write_run_dir(t.path, files);
  const auto run = kaudit::reports::read_run_dir(t.path);
  EXPECT_EQ(run.summary.at("run_format"), kaudit::reports::kRunFormat);
  ASSERT_EQ(run.kill_matrix.size(), 1u);
  EXPECT_EQ(to_json(run.kill_matrix[0]), to_json(sample()));
  EXPECT_EQ(run.sources.size(), 1u);
  EXPECT_EQ(run.oracles(), std::vector<std::string>{"a"});
  EXPECT_THROW(run.oracle_summary("z"), RunDirError);

  // A kill matrix cut short, a record of another shape (on line 2), another run format.
  const std::string line = to_json(sample()).dump();
  kaudit::write_file_atomically(t.path / "kill-matrix.jsonl", line + "\n" + line.substr(0, 40));
  EXPECT_NE(read_error(t.path).find("kill-matrix.jsonl: its last line is cut short"), std::string::npos)
      << read_error(t.path);
  kaudit::write_file_atomically(t.path / "kill-matrix.jsonl", line + "\n{\"id\": 5}\n");
  EXPECT_NE(read_error(t.path).find("kill-matrix.jsonl:2: not a record"), std::string::npos) << read_error(t.path);
  kaudit::write_file_atomically(t.path / "kill-matrix.jsonl", line + "\n");
  auto summary = run.summary;
  summary["run_format"] = 99;
  kaudit::write_file_atomically(t.path / "summary.json", summary.dump());
  EXPECT_NE(read_error(t.path).find("summary.json: run format 99, this kaudit reads 1"), std::string::npos)
      << read_error(t.path);
  summary.erase("run_format");  // written before the format had a number: the same layout
  kaudit::write_file_atomically(t.path / "summary.json", summary.dump());
  EXPECT_EQ(read_error(t.path), "");
  kaudit::write_file_atomically(t.path / "mutants.jsonl", "{\"id\": \"x\"}\n");
  EXPECT_NE(read_error(t.path).find("mutants.jsonl:1: not a record"), std::string::npos) << read_error(t.path);
}

}  // namespace
