#include "audit/scoring.h"

#include <cstdio>

namespace kaudit::audit {

std::string percent(std::size_t part, std::size_t whole) {
  if (whole == 0) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", 100.0 * double(part) / double(whole));
  return buf;
}

namespace {
void count(Tally& t, const ScoredMutant& m, bool killed) {
  if (!m.witnessed) {
    ++t.unwitnessed;
    return;
  }
  ++t.witnessed;
  if (killed) ++t.killed;
}
}  // namespace

std::vector<OracleScore> score_oracles(const std::vector<ScoredMutant>& mutants,
                                       const std::vector<std::string>& oracles,
                                       const std::vector<FalseKill>& false_kills) {
  std::vector<OracleScore> out;
  for (const auto& name : oracles) {
    OracleScore s;
    s.oracle = name;
    for (auto f : mutators::kAllFamilies) s.per_family[f];
    for (const auto& m : mutants) {
      const auto it = m.killed_by.find(name);
      const bool killed = it != m.killed_by.end() && it->second;
      count(s.per_family[m.family], m, killed);
      count(s.per_rule[m.rule], m, killed);
      if (m.family != mutators::Family::RewardHack) {
        count(s.faults, m, killed);
        count(s.per_task[m.task], m, killed);
      }
    }
    for (const auto& fk : false_kills)
      if (fk.oracle == name) s.false_kills.push_back(fk);
    out.push_back(std::move(s));
  }
  return out;
}

nlohmann::json to_json(const Tally& t) {
  return {{"witnessed", t.witnessed}, {"killed", t.killed}, {"missed", t.missed()},
          {"unwitnessed", t.unwitnessed}, {"detection", t.detection()}};
}

nlohmann::json to_json(const OracleScore& s) {
  nlohmann::json fam = nlohmann::json::object(), rules = nlohmann::json::object(),
                 tasks = nlohmann::json::object(), fk = nlohmann::json::array();
  for (const auto& [f, t] : s.per_family) fam[std::string(mutators::family_name(f))] = to_json(t);
  for (const auto& [r, t] : s.per_rule) rules[r] = to_json(t);
  for (const auto& [k, t] : s.per_task) tasks[k] = to_json(t);
  for (const auto& k : s.false_kills)
    fk.push_back({{"member", k.member}, {"task", k.task}, {"trial", k.trial}, {"detail", k.detail}});
  return {{"oracle", s.oracle}, {"per_family", fam}, {"faults", to_json(s.faults)},
          {"per_rule", rules}, {"per_task", tasks}, {"false_kills", s.false_kills.size()},
          {"false_kill_list", fk}};
}

}  // namespace kaudit::audit
