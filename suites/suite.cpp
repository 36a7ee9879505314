#include "suites/suite.h"

#include <algorithm>
#include <cstdio>
#include <set>
#include <sstream>
#include <stdexcept>

#include "suites/cover.h"

namespace kaudit::cover {

namespace {

bool is_fault(mutators::Family f) { return f != mutators::Family::RewardHack; }

bool kills(audit::Outcome o) { return o != audit::Outcome::Pass && o != audit::Outcome::NotRun; }

// The kill matrix of one task restricted to `mutants` (indices into result.mutants).
KillMatrix task_matrix(const audit::AuditResult& result, const audit::TaskPool& pool,
                       const std::vector<std::size_t>& legal, const std::vector<std::size_t>& mutants) {
  KillMatrix m;
  for (std::size_t p : legal) m.cost.push_back(pool.inputs[p].elements);
  m.kills.assign(legal.size(), std::vector<bool>(mutants.size(), false));
  for (std::size_t j = 0; j < mutants.size(); ++j) {
    const audit::MutantAudit& a = result.mutants[mutants[j]];
    m.mutants.push_back(a.scored.id);
    m.family.push_back(static_cast<int>(a.scored.family));
    for (std::size_t i = 0; i < legal.size(); ++i) {
      const audit::Outcome o = a.row.at(legal[i]);
      if (o == audit::Outcome::NotRun)
        throw std::invalid_argument("mutant " + a.scored.id + " has no outcome on legal input " +
                                    pool.inputs[legal[i]].recipe.name + " of " + pool.task +
                                    ": the audit must run with full kill-matrix rows (--full-matrix)");
      m.kills[i][j] = kills(o);
    }
  }
  return m;
}

std::string pct(const HeldOutScore& s) { return audit::percent(s.killed, s.witnessed); }

}  // namespace

CoverReport cover_audit(const audit::AuditResult& result, std::size_t budget, const oracle::Comparator& witness) {
  CoverReport r;
  r.budget = budget;
  r.suite.name = budget ? "kaudit-cover-k" + std::to_string(budget) : "kaudit-cover-full";
  r.suite.description = "Hidden-input suite from kaudit cover: per task, the greedy set cover of its witnessed mutants "
                        "over the legal pool inputs" +
                        (budget ? " (at most " + std::to_string(budget) + " inputs per task)" : std::string(" (full coverage)")) +
                        "; float64 reference, the audit's witness tolerance.";
  r.suite.source = "kaudit cover";
  r.suite.reference = oracle::ReferencePrecision::Fp64;
  r.suite.comparator = witness;
  std::set<std::string> oracle_names;
  for (const auto& s : result.scores) r.held_out_oracles[s.oracle];
  std::vector<std::size_t> full_counts;

  for (const audit::TaskPool& pool : result.pools) {
    TaskCover tc;
    tc.task = pool.task;
    std::vector<std::size_t> legal;
    for (std::size_t p = 0; p < pool.inputs.size(); ++p)
      if (pool.inputs[p].usable && pool.inputs[p].legal) legal.push_back(p);
    tc.legal_inputs = legal.size();
    std::vector<std::size_t> witnessed, selection, held_out;
    for (std::size_t i = 0; i < result.mutants.size(); ++i) {
      const auto& a = result.mutants[i];
      if (a.scored.task != pool.task || !a.ran || !a.scored.witnessed) continue;
      witnessed.push_back(i);
      (in_selection_half(a.scored.id) ? selection : held_out).push_back(i);
    }
    tc.witnessed = witnessed.size();
    r.witnessed += witnessed.size();
    if (witnessed.empty()) {
      r.tasks.push_back(std::move(tc));
      continue;
    }

    // Whole task: full coverage, coverage per budget, and the suite.
    const KillMatrix m = task_matrix(result, pool, legal, witnessed);
    const CoverResult full = greedy_cover(m);
    tc.coverable = full.coverable;
    tc.inputs_for_full = full.chosen.size();
    full_counts.push_back(full.chosen.size());
    for (std::size_t b : kReportedBudgets) {
      const std::size_t k = std::min(b, full.covered_after.size());
      tc.killed_at_budget[b] = k ? full.covered_after[k - 1] : 0;
      r.killed_at_budget[b] += tc.killed_at_budget[b];
    }
    const std::size_t take = budget ? std::min(budget, full.chosen.size()) : full.chosen.size();
    std::set<std::string> names;
    for (std::size_t c = 0; c < take; ++c) {
      oracle::Recipe recipe = pool.inputs[legal[full.chosen[c]]].recipe;
      std::string name = recipe.name;
      for (int n = 2; !names.insert(name).second; ++n) name = recipe.name + "-" + std::to_string(n);
      recipe.name = name;
      tc.suite.push_back(name);
      r.suite.task_trials[pool.task].push_back(std::move(recipe));
      ++r.suite_inputs;
    }

    // Held-out: choose on the selection half, score on the other half (fault families).
    std::vector<std::size_t> held_faults;  // columns of m (positions in `witnessed`)
    for (std::size_t j = 0; j < witnessed.size(); ++j)
      if (!in_selection_half(result.mutants[witnessed[j]].scored.id) && is_fault(result.mutants[witnessed[j]].scored.family))
        held_faults.push_back(j);
    r.selection_witnessed += selection.size();
    const KillMatrix ms = task_matrix(result, pool, legal, selection);
    for (std::size_t b : kReportedBudgets) {
      const CoverResult chosen = greedy_cover(ms, b);
      HeldOutScore& s = r.held_out_suite[b];
      s.witnessed += held_faults.size();
      s.killed += killed_by(m, chosen.chosen, held_faults);
    }
    for (std::size_t j : held_faults) {
      const auto& a = result.mutants[witnessed[j]];
      for (auto& [name, s] : r.held_out_oracles) {
        ++s.witnessed;
        const auto it = a.scored.killed_by.find(name);
        s.killed += it != a.scored.killed_by.end() && it->second;
      }
    }
    r.tasks.push_back(std::move(tc));
  }
  if (!full_counts.empty()) {
    std::sort(full_counts.begin(), full_counts.end());
    const std::size_t n = full_counts.size();
    r.median_inputs_for_full = n % 2 ? double(full_counts[n / 2]) : (full_counts[n / 2 - 1] + full_counts[n / 2]) / 2.0;
    r.max_inputs_for_full = full_counts.back();
  }
  return r;
}

nlohmann::json to_json(const CoverReport& r) {
  using nlohmann::json;
  json tasks = json::array();
  for (const auto& t : r.tasks) {
    json at = json::object();
    for (const auto& [b, k] : t.killed_at_budget) at[std::to_string(b)] = k;
    tasks.push_back({{"task", t.task}, {"legal_inputs", t.legal_inputs}, {"witnessed", t.witnessed},
                     {"coverable", t.coverable}, {"inputs_for_full_coverage", t.inputs_for_full},
                     {"killed_at_budget", at}, {"suite", t.suite}});
  }
  json coverage = json::object();
  for (const auto& [b, k] : r.killed_at_budget)
    coverage[std::to_string(b)] = {{"killed", k}, {"witnessed", r.witnessed},
                                   {"coverage", r.witnessed ? double(k) / double(r.witnessed) : 0.0}};
  const auto score = [](const HeldOutScore& s) {
    return json{{"witnessed", s.witnessed}, {"killed", s.killed}, {"detection", s.detection()}};
  };
  json suite = json::object(), oracles = json::object();
  for (const auto& [b, s] : r.held_out_suite) suite[std::to_string(b)] = score(s);
  for (const auto& [o, s] : r.held_out_oracles) oracles[o] = score(s);
  return {{"tasks", tasks},
          {"inputs_for_full_coverage", {{"median", r.median_inputs_for_full}, {"max", r.max_inputs_for_full}}},
          {"coverage_at_budget", coverage},
          {"held_out", {{"split", "SHA-256(\"kaudit-split-v1:\" + mutant id), first byte even: selection half"},
                        {"selection_witnessed", r.selection_witnessed},
                        {"families", "the six fault families"},
                        {"suite_at_budget", suite},
                        {"oracles", oracles}}},
          {"suite", {{"name", r.suite.name}, {"budget", r.budget}, {"inputs", r.suite_inputs}}}};
}

std::string to_markdown(const CoverReport& r) {
  std::ostringstream os;
  os << "Greedy set cover per task over the legal pool inputs (witnessed mutants of every family; CPU backend, "
        "small preset).\n\n| task | legal inputs | witnessed | coverable | inputs for full coverage |";
  for (std::size_t b : kReportedBudgets) os << " killed at " << b << " |";
  os << "\n|---|---:|---:|---:|---:|";
  for (std::size_t i = 0; i < std::size(kReportedBudgets); ++i) os << "---:|";
  os << "\n";
  for (const auto& t : r.tasks) {
    os << "| " << t.task << " | " << t.legal_inputs << " | " << t.witnessed << " | " << t.coverable << " | "
       << t.inputs_for_full << " |";
    for (std::size_t b : kReportedBudgets) {
      const auto it = t.killed_at_budget.find(b);
      os << " " << (it == t.killed_at_budget.end() ? 0 : it->second) << " |";
    }
    os << "\n";
  }
  char buf[64];
  std::snprintf(buf, sizeof buf, "%g", r.median_inputs_for_full);
  os << "\nInputs for full coverage per task: median " << buf << ", maximum " << r.max_inputs_for_full << ".\n";
  os << "Coverage over all tasks:";
  for (const auto& [b, k] : r.killed_at_budget) {
    os << " budget " << b << ": " << audit::percent(k, r.witnessed) << "%;";
  }
  os << " (" << r.witnessed << " witnessed).\n\n";
  os << "Held-out detection (suite chosen on the selection half of each task's witnessed mutants, scored on the "
        "other half; fault families):\n\n| checker | held-out witnessed | detected % |\n|---|---:|---:|\n";
  for (const auto& [b, s] : r.held_out_suite)
    os << "| kaudit suite, budget " << b << " | " << s.witnessed << " | " << pct(s) << " |\n";
  for (const auto& [o, s] : r.held_out_oracles) os << "| " << o << " | " << s.witnessed << " | " << pct(s) << " |\n";
  os << "\nSuite " << r.suite.name << ": " << r.suite_inputs << " inputs over " << r.suite.task_trials.size()
     << " tasks.\n";
  return os.str();
}

}  // namespace kaudit::cover
