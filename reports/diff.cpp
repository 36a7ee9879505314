#include "reports/diff.h"

#include "reports/run_files.h"

#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>
#include <tuple>

namespace kaudit::regress {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

bool is_fault(mutators::Family f) { return f != mutators::Family::RewardHack; }

std::string pct(const audit::Tally& t) { return audit::percent(t.killed, t.witnessed); }


json verdict_json(const std::string& id, const Verdict& v) {
  return {{"id", id}, {"kernel", v.kernel}, {"rule", v.rule}, {"family", std::string(mutators::family_name(v.family))}};
}

}  // namespace

RunSide side_from_result(const audit::AuditResult& result, const std::string& oracle, const std::string& label) {
  if (std::none_of(result.scores.begin(), result.scores.end(), [&](const audit::OracleScore& s) { return s.oracle == oracle; }))
    throw std::invalid_argument("the audit did not score oracle '" + oracle + "'");
  RunSide side{label, oracle, {}, {}};
  for (const auto& m : result.mutants) {
    if (!m.ran) continue;
    const auto it = m.scored.killed_by.find(oracle);
    side.mutants[m.scored.id] = {m.scored.kernel, m.scored.rule, m.scored.family, m.scored.witnessed,
                                 it != m.scored.killed_by.end() && it->second};
  }
  for (const auto& f : result.false_kills)
    if (f.oracle == oracle) side.false_kills.push_back(f);
  return side;
}

RunSide side_from_directory(const fs::path& dir, const std::string& oracle_in, const std::string& label) {
  // The run directory's formats are reports/run_dir.h's: its reader checks them and names the
  // file and line of anything malformed.
  const json summary = reports::read_summary(dir);
  const fs::path summary_path = dir / "summary.json";
  std::vector<std::string> names;
  for (const auto& o : summary["oracles"]) names.push_back(o["oracle"].get<std::string>());
  std::string oracle = oracle_in;
  if (oracle.empty()) {
    if (names.size() != 1) {
      std::string list;
      for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
      throw std::runtime_error(summary_path.string() + ": the audit scored " + std::to_string(names.size()) +
                               " oracles (" + list + "); name one as " + dir.string() + ":ORACLE");
    }
    oracle = names[0];
  }
  const auto so = std::find_if(summary["oracles"].begin(), summary["oracles"].end(),
                               [&](const json& o) { return o.value("oracle", "") == oracle; });
  if (so == summary["oracles"].end()) throw std::runtime_error(summary_path.string() + ": no oracle '" + oracle + "' in this audit");
  RunSide side{label, oracle, {}, {}};
  try {
    for (const auto& f : so->value("false_kill_list", json::array()))
      side.false_kills.push_back({oracle, f.value("member", ""), f.value("task", ""), f.value("trial", ""), f.value("detail", "")});
  } catch (const json::exception& e) {
    throw std::runtime_error(summary_path.string() + ": a malformed false kill (" + e.what() + ")");
  }
  for (const auto& m : reports::read_kill_matrix(dir)) {
    if (!m.ran) continue;
    const auto verdict = m.killed_by.find(oracle);
    if (verdict == m.killed_by.end())
      throw std::runtime_error((dir / "kill-matrix.jsonl").string() + ": mutant " + m.id + " has no verdict of '" +
                               oracle + "' (is it a `kaudit audit --out` folder of this kaudit?)");
    side.mutants[m.id] = {m.kernel, m.rule, *mutators::family_from_name(m.family), m.witnessed, verdict->second};
  }
  return side;
}

DiffReport diff_sides(const RunSide& base, const RunSide& head) {
  std::vector<std::string> only_base, only_head;
  for (const auto& [id, v] : base.mutants) {
    const auto it = head.mutants.find(id);
    if (it == head.mutants.end() || it->second.witnessed != v.witnessed) only_base.push_back(id);
  }
  for (const auto& [id, v] : head.mutants) {
    const auto it = base.mutants.find(id);
    if (it == base.mutants.end() || it->second.witnessed != v.witnessed) only_head.push_back(id);
  }
  if (!only_base.empty() || !only_head.empty())
    throw std::invalid_argument(
        base.label + " and " + head.label + " were audited on different mutants or witnesses: " +
        std::to_string(only_base.size()) + " differ on the " + base.label + " side" +
        (only_base.empty() ? "" : " (e.g. " + only_base[0] + ")") + ", " + std::to_string(only_head.size()) + " on the " +
        head.label + " side" + (only_head.empty() ? "" : " (e.g. " + only_head[0] + ")") +
        "; audit both on the same corpus, rules and witness tolerance");
  DiffReport d;
  d.base = base.label;
  d.head = head.label;
  for (auto f : mutators::kAllFamilies) {
    d.base_family[f];
    d.head_family[f];
  }
  for (const auto& [id, b] : base.mutants) {
    const Verdict& h = head.mutants.at(id);
    if (!b.witnessed) continue;
    for (auto [tally, killed] : {std::pair{&d.base_family[b.family], b.killed}, std::pair{&d.head_family[b.family], h.killed}}) {
      ++tally->witnessed;
      tally->killed += killed;
    }
    if (is_fault(b.family)) {
      ++d.base_faults.witnessed;
      ++d.head_faults.witnessed;
      d.base_faults.killed += b.killed;
      d.head_faults.killed += h.killed;
    }
    if (b.killed && !h.killed) d.newly_missed.emplace_back(id, b);
    if (!b.killed && h.killed) d.newly_killed.emplace_back(id, b);
  }
  const auto contains = [](const std::vector<audit::FalseKill>& list, const audit::FalseKill& f) {
    return std::any_of(list.begin(), list.end(), [&](const audit::FalseKill& g) {
      return std::tie(g.task, g.member) == std::tie(f.task, f.member);
    });
  };
  for (const auto& f : head.false_kills)
    if (!contains(base.false_kills, f)) d.newly_rejected.push_back(f);
  for (const auto& f : base.false_kills)
    if (!contains(head.false_kills, f)) d.no_longer_rejected.push_back(f);
  for (auto f : mutators::kAllFamilies)
    if (d.head_family[f].killed < d.base_family[f].killed) d.regression = true;
  if (head.false_kills.size() > base.false_kills.size() || !d.newly_rejected.empty()) d.regression = true;
  return d;
}

DetectionFloor parse_detection_floor(const std::string& text) {
  const auto eq = text.find('=');
  const std::string help = "--min-detection takes FAMILY=P (a family or 'all', P a percent from 0 to 100), not '" + text + "'";
  if (eq == std::string::npos) throw std::invalid_argument(help);
  DetectionFloor f{text.substr(0, eq), 0};
  if (f.family != "all" && !mutators::family_from_name(f.family)) throw std::invalid_argument(help + ": unknown family");
  const std::string number = text.substr(eq + 1);
  std::size_t used = 0;
  try {
    f.percent = std::stod(number, &used);
  } catch (const std::exception&) {
    throw std::invalid_argument(help);
  }
  if (used != number.size() || !(f.percent >= 0 && f.percent <= 100)) throw std::invalid_argument(help);
  return f;
}

std::vector<std::string> floors_not_met(const DiffReport& d, const std::vector<DetectionFloor>& floors) {
  std::vector<std::string> out;
  for (const auto& f : floors) {
    const audit::Tally& t = f.family == "all" ? d.head_faults : d.head_family.at(*mutators::family_from_name(f.family));
    if (t.witnessed == 0 || 100.0 * t.detection() >= f.percent) continue;
    char buf[200];
    std::snprintf(buf, sizeof buf, "%s: %.1f%% detected by %s, below the floor of %g%%",
                  f.family == "all" ? "all faults" : f.family.c_str(), 100.0 * t.detection(), d.head.c_str(), f.percent);
    out.push_back(buf);
  }
  return out;
}

json to_json(const DiffReport& d) {
  json fam = json::object();
  for (auto f : mutators::kAllFamilies) {
    const auto& b = d.base_family.at(f);
    const auto& h = d.head_family.at(f);
    fam[std::string(mutators::family_name(f))] = {{"witnessed", b.witnessed}, {"base_killed", b.killed},
                                                   {"head_killed", h.killed}, {"base_detection", b.detection()},
                                                   {"head_detection", h.detection()},
                                                   {"delta", h.detection() - b.detection()}};
  }
  json missed = json::array(), killed = json::array(), rejected = json::array(), accepted = json::array();
  for (const auto& [id, v] : d.newly_missed) missed.push_back(verdict_json(id, v));
  for (const auto& [id, v] : d.newly_killed) killed.push_back(verdict_json(id, v));
  for (const auto& f : d.newly_rejected) rejected.push_back({{"member", f.member}, {"task", f.task}, {"trial", f.trial}, {"detail", f.detail}});
  for (const auto& f : d.no_longer_rejected) accepted.push_back({{"member", f.member}, {"task", f.task}, {"trial", f.trial}});
  return {{"base", d.base},
          {"head", d.head},
          {"per_family", fam},
          {"faults", {{"witnessed", d.base_faults.witnessed}, {"base_detection", d.base_faults.detection()},
                      {"head_detection", d.head_faults.detection()},
                      {"delta", d.head_faults.detection() - d.base_faults.detection()}}},
          {"newly_missed", missed},
          {"newly_killed", killed},
          {"newly_rejected", rejected},
          {"no_longer_rejected", accepted},
          {"regression", d.regression}};
}

std::string to_markdown(const DiffReport& d) {
  std::ostringstream os;
  os << "Detection % of witnessed mutants: base " << d.base << ", head " << d.head << ".\n\n"
     << "| family | witnessed | base | head | delta (points) |\n|---|---:|---:|---:|---:|\n";
  const auto delta = [](const audit::Tally& b, const audit::Tally& h) {
    if (b.witnessed == 0) return std::string("-");
    char buf[32];
    std::snprintf(buf, sizeof buf, "%+.1f", 100.0 * (h.detection() - b.detection()));
    return std::string(buf);
  };
  for (auto f : mutators::kAllFamilies) {
    const auto& b = d.base_family.at(f);
    const auto& h = d.head_family.at(f);
    os << "| " << mutators::family_name(f) << " | " << b.witnessed << " | " << pct(b) << " | " << pct(h) << " | " << delta(b, h) << " |\n";
  }
  os << "| **all faults** | " << d.base_faults.witnessed << " | " << pct(d.base_faults) << " | " << pct(d.head_faults)
     << " | " << delta(d.base_faults, d.head_faults) << " |\n\n";
  os << d.newly_killed.size() << " mutants newly killed by head, " << d.newly_missed.size() << " newly missed; "
     << d.newly_rejected.size() << " correct-set members newly rejected, " << d.no_longer_rejected.size()
     << " no longer rejected.\n";
  const auto list = [&](const char* title, const std::vector<std::pair<std::string, Verdict>>& v) {
    if (v.empty()) return;
    os << "\n" << title << ":\n";
    for (const auto& [id, m] : v) os << "  " << id << "  " << m.kernel << "  " << m.rule << "\n";
  };
  list("Newly missed (killed by base, not by head)", d.newly_missed);
  list("Newly killed (killed by head, not by base)", d.newly_killed);
  if (!d.newly_rejected.empty()) {
    os << "\nNewly rejected correct kernels:\n";
    for (const auto& f : d.newly_rejected) os << "  " << f.member << " (" << f.task << ", trial " << f.trial << ")\n";
  }
  os << (d.regression ? "\nRegression: head detects less in some family or rejects more correct kernels.\n"
                      : "\nNo regression.\n");
  return os.str();
}

}  // namespace kaudit::regress
