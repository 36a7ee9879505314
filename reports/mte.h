// kaudit::reports -- a finished audit as a mutation-testing-elements report (the JSON that
// Stryker's mutation-testing-elements viewer renders, schema version 2 of the published
// mutation-testing-report-schema), one report per oracle: the schema has one status per mutant.
//
// Statuses, for oracle O:
//   witnessed, killed by O ........ Killed (Timeout when O's loop saw a hang), killedBy: the trial
//   witnessed, accepted by O ...... Survived (statusReason: the witness that proves the fault)
//   unwitnessed, equivalent, duplicate, not run ... Ignored (never in a rate, as in report.md)
//   stillborn (does not compile) .. CompileError
// so the viewer's mutation score is O's detection rate over the witnessed mutants, every family
// together (reward hacks included). Tests are O's trials, per task ("TASK/TRIAL"); files are the
// kernels' sources as the audit read them (the run directory's sources.json).
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "reports/run_dir.h"

namespace kaudit::reports {

// Throws RunDirError when the run has no sources (written before sources.json) or no oracle O.
nlohmann::json mutation_testing_report(const RunDir& run, const std::string& oracle);

// One self-contained page showing `report` in Stryker's viewer: the viewer's bundle
// (`viewer_js`, mutation-testing-elements' dist/mutation-test-elements.js, which tools/setup.sh
// fetches) and the report inline, nothing fetched. `title` names the oracle.
std::string mutation_testing_page(const nlohmann::json& report, const std::string& viewer_js, const std::string& title);

}  // namespace kaudit::reports
