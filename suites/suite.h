// kaudit::cover -- suites from a finished audit with full kill-matrix rows (`kaudit cover`).
//
//   audit::AuditResult r = audit::run_audit(corpus, options_with_full_matrix);
//   CoverReport c = cover_audit(r, budget, witness_comparator);
//
// Per task, the kill matrix is its legal pool inputs x its witnessed mutants (every family; a
// cell kills when the mutant fails that input under the witness comparator). On it:
//  - full coverage: greedy_cover without a budget; the number of inputs it needs;
//  - coverage at budgets 1, 2, 3, 5: witnessed mutants killed by the first k greedy choices;
//  - held-out: the task's witnessed mutants split by in_selection_half; a suite is chosen on the
//    selection half at each budget and scored on the held-out half, side by side with every
//    oracle of the audit scored on the same held-out mutants (fault families, as the main table);
//  - the suite: greedy on all witnessed mutants at `budget` (0: full coverage), written as an
//    oracle spec with per-task trials, the witness comparator and the float64 reference. Only
//    legal inputs are candidates, so no member of the correct set fails it (zero false kills by
//    construction; `kaudit cover` re-runs the corpus kernels on it before writing the file).
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "audit/audit.h"
#include "oracle/spec.h"

namespace kaudit::cover {

inline constexpr std::size_t kReportedBudgets[] = {1, 2, 3, 5};

struct TaskCover {
  std::string task;
  std::size_t legal_inputs = 0;
  std::size_t witnessed = 0;
  std::size_t coverable = 0;                 // witnessed mutants some legal input kills
  std::size_t inputs_for_full = 0;           // greedy, no budget
  std::map<std::size_t, std::size_t> killed_at_budget;  // budget -> witnessed mutants killed
  std::vector<std::string> suite;            // the chosen recipes' names, in greedy order
};

struct HeldOutScore {
  std::size_t witnessed = 0;  // held-out witnessed mutants of the fault families
  std::size_t killed = 0;
  double detection() const { return witnessed ? double(killed) / double(witnessed) : 0.0; }
};

struct CoverReport {
  std::vector<TaskCover> tasks;
  double median_inputs_for_full = 0;
  std::size_t max_inputs_for_full = 0;
  std::size_t witnessed = 0;
  std::map<std::size_t, std::size_t> killed_at_budget;  // over all tasks
  // Held-out half (fault families): the suite chosen on the selection half per budget, and each
  // oracle of the audit.
  std::map<std::size_t, HeldOutScore> held_out_suite;
  std::map<std::string, HeldOutScore> held_out_oracles;
  std::size_t selection_witnessed = 0;
  std::size_t budget = 0;  // of the suite (0: full coverage)
  oracle::OracleSpec suite;
  std::size_t suite_inputs = 0;
};

// Throws std::invalid_argument when a witnessed mutant's row lacks a legal input's outcome (the
// audit did not run with full_matrix).
CoverReport cover_audit(const audit::AuditResult& result, std::size_t budget, const oracle::Comparator& witness);

nlohmann::json to_json(const CoverReport& r);
std::string to_markdown(const CoverReport& r);

}  // namespace kaudit::cover
