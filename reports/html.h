// kaudit::reports -- a finished audit as one self-contained HTML page: no script, no style sheet
// or font from elsewhere, so it opens from disk with no network. It holds
//   - the per-family miss table per oracle (oracle mode), each number a link to the mutants it
//     counts;
//   - plots drawn here as inline SVG: missed % per family for every oracle side by side, kills by
//     cause per oracle, and which pool inputs the witnesses are (the recipes that expose faults);
//   - every witnessed mutant: its kernel, rule and site, the source line before and after, its
//     witness, and every oracle's verdict with its cause and the trial that killed it.
// Sweeps and suites are not part of a run directory: given their JSON (`kaudit cover`'s cover.json,
// `kaudit sweep --json`), the page adds coverage against the suite's budget with the held-out
// detection of the suites and of every oracle, and the tolerance-sweep curve.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "reports/run_dir.h"

namespace kaudit::reports {

// `cover`, `sweep`: null when not given. Throws nlohmann::json::exception on JSON of another shape.
std::string html_report(const RunDir& run, const nlohmann::json& cover = nullptr, const nlohmann::json& sweep = nullptr);

}  // namespace kaudit::reports
