// kaudit::regress (reports/diff.h) -- tolerance-regression tools: `kaudit diff` and `kaudit sweep`.
//
// A side of a diff is one oracle's verdicts on one audit: per mutant whether it is witnessed and
// whether the oracle kills it, plus the oracle's false kills. Sides come from a run made here
// (side_from_result) or from a finished audit directory (side_from_directory: kill-matrix.jsonl
// and summary.json). Two sides can be compared only when they were audited on the same mutants
// with the same witnesses; otherwise the rates would have different denominators.
#pragma once

#include <filesystem>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "audit/audit.h"
#include "audit/scoring.h"

namespace kaudit::regress {

struct Verdict {
  std::string kernel, rule;
  mutators::Family family = mutators::Family::Arithmetic;
  bool witnessed = false;
  bool killed = false;
};

struct RunSide {
  std::string label;   // what the user named: a spec, or DIR[:ORACLE]
  std::string oracle;  // the oracle's name
  std::map<std::string, Verdict> mutants;  // by mutant id (audited mutants that ran)
  std::vector<audit::FalseKill> false_kills;
};

// Throws std::invalid_argument when the oracle was not scored in `result`.
RunSide side_from_result(const audit::AuditResult& result, const std::string& oracle, const std::string& label);
// `oracle` may be empty when the audit scored exactly one. Throws std::runtime_error naming the
// file and what is missing.
RunSide side_from_directory(const std::filesystem::path& dir, const std::string& oracle, const std::string& label);

struct DiffReport {
  std::string base, head;
  std::map<mutators::Family, audit::Tally> base_family, head_family;
  audit::Tally base_faults, head_faults;
  std::vector<std::pair<std::string, Verdict>> newly_missed;  // killed by base, not by head
  std::vector<std::pair<std::string, Verdict>> newly_killed;  // killed by head, not by base
  std::vector<audit::FalseKill> newly_rejected;               // head false kills base does not have
  std::vector<audit::FalseKill> no_longer_rejected;
  // Detection dropped in some family, or head has more false kills than base.
  bool regression = false;
};

// Throws std::invalid_argument when the sides were audited on different mutants or witnesses.
DiffReport diff_sides(const RunSide& base, const RunSide& head);

// A floor on HEAD's detection: `kaudit diff --min-detection FAMILY=P` (a family name, or "all"
// for the six fault families together; P in percent of witnessed mutants).
struct DetectionFloor {
  std::string family;
  double percent = 0;
};
// Parses "FAMILY=P"; throws std::invalid_argument naming the text and what is accepted.
DetectionFloor parse_detection_floor(const std::string& text);
// One line per floor HEAD is below ("boundary: 61.2% detected, below the floor of 70%"); a family
// HEAD has no witnessed mutant of is not below any floor.
std::vector<std::string> floors_not_met(const DiffReport& d, const std::vector<DetectionFloor>& floors);

nlohmann::json to_json(const DiffReport& d);
std::string to_markdown(const DiffReport& d);

}  // namespace kaudit::regress
