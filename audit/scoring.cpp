#include "audit/scoring.h"

#include <cstdio>
#include <set>

namespace kaudit::audit {

std::string percent(std::size_t part, std::size_t whole) {
  if (whole == 0) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", 100.0 * double(part) / double(whole));
  return buf;
}

namespace {
void count(Tally& t, bool witnessed, bool killed) {
  if (!witnessed) {
    ++t.unwitnessed;
    return;
  }
  ++t.witnessed;
  if (killed) ++t.killed;
}
bool lookup(const std::map<std::string, bool>& m, const std::string& key) {
  const auto it = m.find(key);
  return it != m.end() && it->second;
}
std::string cause_of(const std::map<std::string, std::string>& m, const std::string& key) {
  const auto it = m.find(key);
  return it == m.end() || it->second.empty() ? "unknown" : it->second;
}
}  // namespace

std::vector<OracleScore> score_oracles(const std::vector<ScoredMutant>& mutants,
                                       const std::vector<std::string>& oracles,
                                       const std::vector<FalseKill>& false_kills,
                                       const std::vector<FalseKill>& strict_false_kills) {
  std::vector<OracleScore> out;
  for (const auto& name : oracles) {
    OracleScore s;
    s.oracle = name;
    for (auto f : mutators::kAllFamilies) {
      s.per_family[f];
      s.per_family_oracle_witnessed[f];
      s.per_family_strict[f];
      s.causes[f];
      s.strict_causes[f];
    }
    // The kernels whose own original this oracle rejects, per mode (see scoring.h).
    std::set<std::string> rejected, strict_rejected;
    for (const auto& fk : false_kills)
      if (fk.oracle == name) rejected.insert(fk.member);
    for (const auto& fk : strict_false_kills)
      if (fk.oracle == name) strict_rejected.insert(fk.member);
    for (const auto& m : mutants) {
      bool killed = lookup(m.killed_by, name), strict = lookup(m.strict_killed_by, name);
      if (killed && rejected.count(m.kernel)) {
        killed = false;
        s.kills_of_rejected_originals += m.witnessed;
      }
      if (strict && strict_rejected.count(m.kernel)) {
        strict = false;
        s.strict_kills_of_rejected_originals += m.witnessed;
      }
      const bool fault = m.family != mutators::Family::RewardHack;
      count(s.per_family[m.family], m.witnessed, killed);
      count(s.per_rule[m.rule], m.witnessed, killed);
      count(s.per_family_strict[m.family], m.witnessed, strict);
      if (m.witnessed) count(s.per_family_oracle_witnessed[m.family], m.oracle_witnessed, killed);
      if (fault) {
        count(s.faults, m.witnessed, killed);
        count(s.per_task[m.task], m.witnessed, killed);
        count(s.faults_strict, m.witnessed, strict);
        if (m.witnessed) count(s.faults_oracle_witnessed, m.oracle_witnessed, killed);
      }
      if (m.witnessed && killed) {
        const std::string c = cause_of(m.cause, name);
        ++s.causes[m.family][c];
        if (fault) ++s.fault_causes[c];
      }
      if (m.witnessed && strict) {
        const std::string c = cause_of(m.strict_cause, name);
        ++s.strict_causes[m.family][c];
        if (fault) ++s.fault_strict_causes[c];
      }
    }
    for (const auto& fk : false_kills)
      if (fk.oracle == name) s.false_kills.push_back(fk);
    for (const auto& fk : strict_false_kills)
      if (fk.oracle == name) s.strict_false_kills.push_back(fk);
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
  nlohmann::json fam_ow = nlohmann::json::object(), fam_strict = nlohmann::json::object(),
                 causes = nlohmann::json::object(), strict_causes = nlohmann::json::object(), sfk = nlohmann::json::array();
  for (const auto& [f, t] : s.per_family_oracle_witnessed) fam_ow[std::string(mutators::family_name(f))] = to_json(t);
  for (const auto& [f, t] : s.per_family_strict) fam_strict[std::string(mutators::family_name(f))] = to_json(t);
  for (const auto& [f, c] : s.causes) causes[std::string(mutators::family_name(f))] = c;
  for (const auto& [f, c] : s.strict_causes) strict_causes[std::string(mutators::family_name(f))] = c;
  causes["all faults"] = s.fault_causes;
  strict_causes["all faults"] = s.fault_strict_causes;
  for (const auto& k : s.strict_false_kills)
    sfk.push_back({{"member", k.member}, {"task", k.task}, {"trial", k.trial}, {"detail", k.detail}});
  return {{"oracle", s.oracle},
          {"mode", "oracle"},
          {"per_family", fam},
          {"faults", to_json(s.faults)},
          {"per_rule", rules},
          {"per_task", tasks},
          {"false_kills", s.false_kills.size()},
          {"false_kill_list", fk},
          {"kills_of_rejected_originals", s.kills_of_rejected_originals},
          {"kills_by_cause", causes},
          {"oracle_witnessed", {{"per_family", fam_ow}, {"faults", to_json(s.faults_oracle_witnessed)}}},
          {"witness_mode", {{"per_family", fam_strict},
                            {"faults", to_json(s.faults_strict)},
                            {"kills_by_cause", strict_causes},
                            {"false_kills", s.strict_false_kills.size()},
                            {"kills_of_rejected_originals", s.strict_kills_of_rejected_originals},
                            {"false_kill_list", sfk}}}};
}

}  // namespace kaudit::audit
