// kaudit::reports -- the run directory's record formats that need nothing of the audit engine:
// summary.json's outline and run format, and kill-matrix.jsonl's records (KillRecord). Kept apart
// from run_dir.h so a reader of these two files (kaudit diff, its fuzz harness in tests/fuzz) links
// no more than the JSON library and the family names.
#pragma once
#include <filesystem>
#include <functional>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace kaudit::reports {

constexpr int kRunFormat = 1;

// A missing, truncated or foreign file: the message names the file (and line) and what to do.
struct RunDirError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// One line of kill-matrix.jsonl: an audited mutant, its witnesses and every oracle's verdict.
struct KillRecord {
  std::string id, task, kernel, rule, family;
  std::string file, range, original, replacement;  // the site (also in mutants.jsonl)
  bool ran = false, witnessed = false, oracle_witnessed = false;
  std::map<std::string, bool> killed_by, strict_killed_by;         // oracle -> verdict (oracle, witness mode)
  std::map<std::string, std::string> cause, strict_cause;          // oracle -> why, when killed
  std::map<std::string, std::string> trial;                        // oracle -> the trial that killed it
  std::vector<std::string> outcomes;                               // per pool input (witness comparator)
  int witness = -1;                                                // pool index, -1: unwitnessed
  std::string witness_outcome;
  int oracle_witness = -1;
  std::string oracle_witness_cause;
  // The second-call probe (audit::MutantAudit): probed or not, the input a second call failed on
  // (-1: none), the first call's input and the second call's outcome.
  bool second_call_probed = false;
  int second_call_witness = -1, second_call_first = -1;
  std::string second_call_outcome;
  // The contract check (audit::MutantAudit): checked or not, the input of the breach (-1: none) and
  // its cause ("library-compute", "no-launch").
  bool contract_checked = false;
  int contract_witness = -1;
  std::string contract_cause;
  std::string note;
  // The input that shows it at fault: its witness, else its second-call witness, else its
  // contract witness; -1: none.
  int shown_at() const {
    if (witness >= 0) return witness;
    if (second_call_probed && second_call_witness >= 0) return second_call_witness;
    return contract_checked ? contract_witness : -1;
  }
};
nlohmann::json to_json(const KillRecord& r);
// Throws nlohmann::json::exception (type errors) or std::invalid_argument (a missing field).
KillRecord kill_record_from_json(const nlohmann::json& j);

// summary.json, its outline checked (the oracles, each named, with a well-formed
// false_kill_list) and its run format; and kill-matrix.jsonl. Throw RunDirError naming the file
// (and line) and the fix.
nlohmann::json read_summary(const std::filesystem::path& dir);
std::vector<KillRecord> read_kill_matrix(const std::filesystem::path& dir);

namespace detail {
// What the readers of run_dir.cpp share with these: the error for a file (line 0: none), a whole
// JSON file, and a JSON-lines file line by line through `parse` (a line it rejects is an error
// naming the line).
RunDirError file_error(const std::filesystem::path& path, int line, const std::string& what);
nlohmann::json read_json(const std::filesystem::path& path);
void read_jsonl(const std::filesystem::path& path, const std::function<void(const nlohmann::json&)>& parse);
extern const char* const kNotARun;
}  // namespace detail

}  // namespace kaudit::reports
