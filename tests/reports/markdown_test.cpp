// The Markdown report's per-task-category table (reports/markdown.h): each oracle's per-task
// tallies summed over a category's tasks, categories in their fixed order, tasks without one last.
#include <gtest/gtest.h>

#include "audit/scoring.h"
#include "mutators/pipeline/pipeline.h"
#include "reports/markdown.h"

namespace {
using json = nlohmann::json;

json summary_of(const std::vector<kaudit::audit::ScoredMutant>& mutants) {
  const auto scores = kaudit::audit::score_oracles(mutants, {"o"}, {}, {});
  json o = kaudit::audit::to_json(scores[0]);
  o["shape_preset"] = "small";
  o["spec"] = "";
  return {{"backend", "cpu"},
          {"witness_tolerance", {{"kind", "allclose"}, {"rtol", 0.01}, {"atol", 0.01}}},
          {"oracles", json::array({o})},
          {"pipeline", kaudit::mutators::pipeline_summary_json(kaudit::mutators::MutationPipeline{})},
          {"audited", mutants.size()}};
}

TEST(MarkdownReport, MissRatesPerTaskCategorySumTheCategorysTasks) {
  std::vector<kaudit::audit::ScoredMutant> mutants;
  const auto add = [&](const std::string& task, bool killed) {
    kaudit::audit::ScoredMutant m;
    m.id = task + std::to_string(mutants.size());
    m.task = task;
    m.kernel = task + "/k";
    m.rule = "arith-add-to-sub";
    m.family = kaudit::mutators::Family::Arithmetic;
    m.witnessed = m.oracle_witnessed = true;
    m.killed_by["o"] = m.strict_killed_by["o"] = killed;
    if (killed) m.cause["o"] = m.strict_cause["o"] = "wrong-output";
    mutants.push_back(m);
  };
  add("relu", true);
  add("relu", false);
  add("gelu", true);
  add("gelu", true);    // elementwise: 1 of 4 missed
  add("cumsum", false);  // scan: 1 of 1
  add("imported", true);  // no category: 0 of 1
  json summary = summary_of(mutants);
  const std::string without = kaudit::reports::markdown_report(summary, json::array());
  EXPECT_EQ(without.find("Per task category"), std::string::npos) << "a run from before categories has no table";

  summary["task_categories"] = {{"relu", "elementwise"}, {"gelu", "elementwise"}, {"cumsum", "scan"}, {"imported", ""}};
  const std::string md = kaudit::reports::markdown_report(summary, json::array());
  const auto at = [&](const std::string& row) {
    const auto pos = md.find(row);
    EXPECT_NE(pos, std::string::npos) << row << " in\n" << md;
    return pos;
  };
  const auto elementwise = at("| elementwise | 2 | 4 | 25.0 |");
  const auto scan = at("| scan | 1 | 1 | 100.0 |");
  const auto none = at("| uncategorized | 1 | 1 | 0.0 |");
  EXPECT_LT(elementwise, scan);
  EXPECT_LT(scan, none);
  EXPECT_EQ(md.find("| reduction |"), std::string::npos) << "a category without tasks has no row";
}

}  // namespace
