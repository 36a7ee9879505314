#include "reports/markdown.h"

#include <cstdio>
#include <map>
#include <set>
#include <sstream>

#include "audit/scoring.h"
#include "corpus/corpus.h"
#include "mutators/mutators.h"

namespace kaudit::reports {
namespace {
using json = nlohmann::json;
using mutators::Family;

std::string fam(Family f) { return std::string(mutators::family_name(f)); }

// "12.5" missed % of a tally ({"witnessed","missed",...}), or "-".
std::string missed_pct(const json& t) {
  return audit::percent(t.at("missed").get<std::size_t>(), t.at("witnessed").get<std::size_t>());
}

// A per-family table over the six fault families, their sum and the reward hacks: `cells` gives
// a row's cells after the family name, one string per column.
template <typename Cells>
void family_rows(std::ostringstream& os, const Cells& cells) {
  for (auto f : mutators::kAllFamilies)
    if (f != Family::RewardHack) os << "| " << fam(f) << " |" << cells(f, false) << "\n";
  os << "| **all faults** |" << cells(Family::Arithmetic, true) << "\n";
  os << "| reward-hack |" << cells(Family::RewardHack, false) << "\n";
}

// The tables after the first: the second denominator, what witness mode would have said, and the
// kills by cause.
std::string mode_tables(const json& oracles) {
  std::ostringstream os;
  if (oracles.empty()) return os.str();
  const auto header = [&](const char* first, const char* extra) {
    os << "| " << first << " |" << extra;
    for (const auto& o : oracles) os << " " << o.at("oracle").get<std::string>() << " |";
    os << "\n|---|" << (std::string(extra).empty() ? "" : "---:|");
    for (std::size_t i = 0; i < oracles.size(); ++i) os << "---:|";
    os << "\n";
  };
  const auto tally = [](const json& part, Family f, bool all) -> const json& {
    return all ? part.at("faults") : part.at("per_family").at(fam(f));
  };
  os << "\nOver the mutants also witnessed in oracle mode (faults that show under a checker's harness on a "
        "GPU at all; the reference study counted only such faults): missed %.\n\n";
  header("family", " witnessed in oracle mode |");
  family_rows(os, [&](Family f, bool all) {
    std::string row = " " + std::to_string(tally(oracles[0].at("oracle_witnessed"), f, all).at("witnessed").get<std::size_t>()) + " |";
    for (const auto& o : oracles) row += " " + missed_pct(tally(o.at("oracle_witnessed"), f, all)) + " |";
    return row;
  });
  os << "\nWitness mode's verdicts on the same mutants (the strict emulator: NaN-filled outputs, the memory "
        "checker, divergence, warp-major races; what kaudit reported before oracle mode): missed %, and in "
        "brackets how many points of detection it credited the checker with beyond oracle mode.\n\n";
  header("family", "");
  family_rows(os, [&](Family f, bool all) {
    std::string row;
    for (const auto& o : oracles) {
      const json& strict = tally(o.at("witness_mode"), f, all);
      const json& faithful = tally(o, f, all);
      char over[32] = "";
      const auto witnessed = strict.at("witnessed").get<std::size_t>();
      if (witnessed)
        std::snprintf(over, sizeof over, " (%+.1f)",
                      100.0 * (strict.at("killed").get<double>() - faithful.at("killed").get<double>()) / double(witnessed));
      row += " " + missed_pct(strict) + over + " |";
    }
    return row;
  });
  os << "| false kills (correct set) |";
  for (const auto& o : oracles) os << " " << o.at("witness_mode").at("false_kills").get<std::size_t>() << " |";
  os << "\n\nKills by cause, oracle mode (witnessed fault mutants; witness mode's in brackets):\n\n";
  const auto fault_causes = [](const json& part) -> json {
    const json& causes = part.at("kills_by_cause");
    return causes.contains("all faults") ? causes.at("all faults") : json::object();
  };
  std::set<std::string> causes;
  for (const auto& o : oracles) {
    const json oc = fault_causes(o), sc = fault_causes(o.at("witness_mode"));  // not temporaries: items() refers to them
    for (auto it = oc.begin(); it != oc.end(); ++it) causes.insert(it.key());
    for (auto it = sc.begin(); it != sc.end(); ++it) causes.insert(it.key());
  }
  os << "| oracle |";
  for (const auto& c : causes) os << " " << c << " |";
  os << "\n|---|";
  for (std::size_t i = 0; i < causes.size(); ++i) os << "---:|";
  os << "\n";
  for (const auto& o : oracles) {
    os << "| " << o.at("oracle").get<std::string>() << " |";
    const json oc = fault_causes(o), sc = fault_causes(o.at("witness_mode"));
    for (const auto& c : causes)
      os << " " << oc.value(c, std::size_t{0}) << " (" << sc.value(c, std::size_t{0}) << ") |";
    os << "\n";
  }
  return os.str();
}

// Per task category (summary.json "task_categories", written since categories exist): each
// oracle's per-task tallies of the fault families summed over the category's tasks.
std::string category_table(const json& summary) {
  std::ostringstream os;
  const json& oracles = summary.at("oracles");
  if (!summary.contains("task_categories") || oracles.empty()) return os.str();
  std::map<std::string, std::vector<std::string>> tasks_of;
  for (const auto& [task, category] : summary.at("task_categories").items())
    tasks_of[category.get<std::string>().empty() ? "uncategorized" : category.get<std::string>()].push_back(task);
  std::vector<std::string> order(std::begin(corpus::kTaskCategories), std::end(corpus::kTaskCategories));
  order.push_back("uncategorized");
  os << "\nPer task category, fault families (missed % of witnessed mutants):\n\n| category | tasks | witnessed |";
  for (const auto& o : oracles) os << " " << o.at("oracle").get<std::string>() << " |";
  os << "\n|---|---:|---:|";
  for (std::size_t i = 0; i < oracles.size(); ++i) os << "---:|";
  os << "\n";
  const auto sum = [](const json& per_task, const std::vector<std::string>& tasks, const char* field) {
    std::size_t n = 0;
    for (const auto& t : tasks)
      if (per_task.contains(t)) n += per_task.at(t).at(field).get<std::size_t>();
    return n;
  };
  for (const auto& category : order) {
    const auto it = tasks_of.find(category);
    if (it == tasks_of.end()) continue;
    os << "| " << category << " | " << it->second.size() << " | "
       << sum(oracles[0].at("per_task"), it->second, "witnessed") << " |";
    for (const auto& o : oracles)
      os << " " << audit::percent(sum(o.at("per_task"), it->second, "missed"), sum(o.at("per_task"), it->second, "witnessed"))
         << " |";
    os << "\n";
  }
  return os.str();
}

}  // namespace

std::string markdown_report(const json& summary, const json& pools) {
  std::ostringstream os;
  const json& oracles = summary.at("oracles");
  const json& pipeline = summary.at("pipeline");
  const std::string backend = summary.at("backend").get<std::string>();
  const json& tol = summary.at("witness_tolerance");
  if (backend == "cpu")
    os << "Missed % of witnessed mutants, per family and oracle, oracle verdicts in oracle mode (each checker's "
          "harness modelled on a GPU: docs/ORACLES.md), witnesses in witness mode (CPU backend; oracle shape presets:";
  else
    os << "Missed % of witnessed mutants, per family and oracle, oracle verdicts in oracle mode (each checker's "
          "harness run on the GPU: docs/ORACLES.md), witnesses from plain runs on the GPU (" << backend
       << " backend; oracle shape presets:";
  for (const auto& o : oracles) os << " " << o.at("oracle").get<std::string>() << "=" << o.at("shape_preset").get<std::string>();
  os << "; witness tolerance allclose rtol=atol=" << tol.at("rtol").get<double>() << ").\n\n";
  os << "| family | generated | distinct | witnessed | unwitnessed |";
  for (const auto& o : oracles) os << " " << o.at("oracle").get<std::string>() << " |";
  os << "\n|---|---:|---:|---:|---:|";
  for (std::size_t i = 0; i < oracles.size(); ++i) os << "---:|";
  os << "\n";
  if (oracles.empty()) return os.str();
  const auto row = [&](const std::string& name, std::size_t generated, std::size_t distinct, const json& first,
                       auto&& tally_of) {
    os << "| " << name << " | " << generated << " | " << distinct << " | " << first.at("witnessed").get<std::size_t>()
       << " | " << first.at("unwitnessed").get<std::size_t>() << " |";
    for (const auto& o : oracles) os << " " << missed_pct(tally_of(o)) << " |";
    os << "\n";
  };
  std::size_t fault_generated = 0, fault_distinct = 0;
  for (auto f : mutators::kAllFamilies) {
    if (f == Family::RewardHack) continue;
    const json& c = pipeline.at("per_family").at(fam(f));
    fault_generated += c.at("generated").get<std::size_t>();
    fault_distinct += c.at("distinct").get<std::size_t>();
    row(fam(f), c.at("generated").get<std::size_t>(), c.at("distinct").get<std::size_t>(),
        oracles[0].at("per_family").at(fam(f)), [f](const json& o) -> const json& { return o.at("per_family").at(fam(f)); });
  }
  row("**all faults**", fault_generated, fault_distinct, oracles[0].at("faults"),
      [](const json& o) -> const json& { return o.at("faults"); });
  const json& hack = pipeline.at("per_family").at(fam(Family::RewardHack));
  row("reward-hack", hack.at("generated").get<std::size_t>(), hack.at("distinct").get<std::size_t>(),
      oracles[0].at("per_family").at(fam(Family::RewardHack)),
      [](const json& o) -> const json& { return o.at("per_family").at(fam(Family::RewardHack)); });
  os << "| false kills (correct set) | | | | |";
  for (const auto& o : oracles) os << " " << o.at("false_kills").get<std::size_t>() << " |";
  os << "\n\nPipeline: " << pipeline.at("generated").get<std::size_t>() << " generated, "
     << pipeline.at("stillborn").get<std::size_t>() << " stillborn, " << pipeline.at("duplicate").get<std::size_t>()
     << " duplicate, " << pipeline.at("equivalent").get<std::size_t>() << " equivalent, "
     << pipeline.at("distinct").get<std::size_t>() << " distinct";
  if (pipeline.value("unknown", std::size_t{0})) os << ", " << pipeline.at("unknown").get<std::size_t>() << " unknown (no NVRTC)";
  std::size_t legal = 0, inputs = 0, kernels = 0, neutral = 0, dropped = 0;
  for (const auto& p : pools) {
    for (const auto& in : p.at("inputs")) {
      ++inputs;
      legal += in.at("legal").get<bool>();
    }
    for (const auto& m : p.at("correct_set")) {
      const std::string kind = m.at("kind").get<std::string>();
      const bool admitted = m.at("admitted").get<bool>();
      kernels += kind == "kernel";
      neutral += kind == "neutral" && admitted;
      dropped += kind == "neutral" && !admitted;
    }
  }
  os << "; " << summary.at("audited").get<std::size_t>() << " audited on " << inputs << " pool inputs (" << legal
     << " legal) over " << pools.size() << " tasks.\n";
  os << "Correct set (legality and false kills): " << kernels << " corpus kernels, " << neutral
     << " neutral variants (" << dropped << " more failed the sanity inputs and were dropped: pools.json), "
     << "the float32 reference of each task.\n";
  os << mode_tables(oracles);
  os << category_table(summary);
  return os.str();
}

}  // namespace kaudit::reports
