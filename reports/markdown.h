// kaudit::reports -- the Markdown report (report.md, and what `kaudit audit` prints): the
// per-family miss table first, then the second denominator, witness mode's verdicts and the
// kills by cause. Rendered from the run directory's summary.json and pools.json alone, so
// `kaudit report DIR --format md` gives the audit's own report.md byte for byte.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

namespace kaudit::reports {

// `summary`: summary.json; `pools`: pools.json. Throws nlohmann::json::exception on a summary
// that lacks what the audit writes (read_run_dir checks the outline first).
std::string markdown_report(const nlohmann::json& summary, const nlohmann::json& pools);

}  // namespace kaudit::reports
