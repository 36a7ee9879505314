#include "reports/run_dir.h"

#include <algorithm>
#include <fstream>
#include <sstream>

#include "common/files.h"
#include "reports/markdown.h"

namespace kaudit::reports {
namespace fs = std::filesystem;
using json = nlohmann::json;
using detail::file_error;
using detail::kNotARun;
using detail::read_json;
using detail::read_jsonl;

KillRecord kill_record(const audit::MutantAudit& m) {
  KillRecord r;
  r.id = m.scored.id;
  r.task = m.scored.task;
  r.kernel = m.scored.kernel;
  r.rule = m.scored.rule;
  r.family = std::string(mutators::family_name(m.scored.family));
  r.file = m.file;
  r.range = m.range;
  r.original = m.original;
  r.replacement = m.replacement;
  r.ran = m.ran;
  r.witnessed = m.scored.witnessed;
  r.oracle_witnessed = m.scored.oracle_witnessed;
  r.killed_by = m.scored.killed_by;
  r.strict_killed_by = m.scored.strict_killed_by;
  r.cause = m.scored.cause;
  r.strict_cause = m.scored.strict_cause;
  r.trial = m.scored.trial;
  for (auto o : m.row) r.outcomes.push_back(audit::outcome_name(o));
  if (m.witness >= 0) {
    r.witness = m.witness;
    r.witness_outcome = audit::outcome_name(m.witness_outcome);
  }
  r.oracle_witness = m.oracle_witness;
  r.oracle_witness_cause = m.oracle_witness_cause;
  r.second_call_probed = m.second_call_probed;
  if (m.second_call_probed) {
    r.second_call_witness = m.second_call_witness;
    r.second_call_first = m.second_call_first;
    r.second_call_outcome = audit::outcome_name(m.second_call_outcome);
  }
  r.contract_checked = m.contract_checked;
  if (m.contract_checked) {
    r.contract_witness = m.contract_witness;
    r.contract_cause = m.contract_cause;
  }
  r.note = m.note;
  return r;
}



json pools_json(const std::vector<audit::TaskPool>& pools) {
  json out = json::array();
  for (const auto& p : pools) {
    json inputs = json::array();
    for (const auto& in : p.inputs)
      inputs.push_back({{"recipe", in.recipe}, {"used_by", in.used_by}, {"elements", in.elements},
                        {"usable", in.usable}, {"legal", in.legal}, {"note", in.note}});
    json members = json::array();
    for (const auto& m : p.correct_set)
      members.push_back({{"id", m.id}, {"kind", m.kind}, {"admitted", m.admitted}, {"note", m.note}});
    out.push_back({{"task", p.task}, {"inputs", inputs}, {"correct_set", members}});
  }
  return out;
}

void write_run_dir(const fs::path& dir, RunFiles& files) {
  fs::create_directories(dir);
  files.summary["run_format"] = kRunFormat;
  std::string matrix;
  for (const auto& r : files.kill_matrix) matrix += to_json(r).dump() + "\n";
  write_file_atomically(dir / "report.md", files.report_md);
  write_file_atomically(dir / "summary.json", files.summary.dump(2) + "\n");
  write_file_atomically(dir / "mutants.jsonl", files.mutants_jsonl);
  write_file_atomically(dir / "kill-matrix.jsonl", matrix);
  write_file_atomically(dir / "pools.json", files.pools.dump(1) + "\n");
  write_file_atomically(dir / "sources.json", json(files.sources).dump(1) + "\n");
}

RunDir read_run_dir(const fs::path& dir) {
  RunDir run;
  run.dir = dir;
  run.summary = read_summary(dir);
  run.kill_matrix = read_kill_matrix(dir);
  run.pools = read_json(dir / "pools.json");
  if (!run.pools.is_array()) throw file_error(dir / "pools.json", 0, "not a list of task pools");
  read_jsonl(dir / "mutants.jsonl", [&](const json& j) { run.mutants.push_back(mutators::mutant_record_from_json(j)); });
  if (fs::exists(dir / "sources.json")) {
    const json s = read_json(dir / "sources.json");
    try {
      run.sources = s.get<std::map<std::string, std::string>>();
    } catch (const json::exception&) {
      throw file_error(dir / "sources.json", 0, "not a map from file to source text");
    }
  }
  return run;
}

audit::AuditResult audit_result(const RunDir& run) {
  audit::AuditResult r;
  r.backend = run.summary.value("backend", "cpu");
  const fs::path pools_path = run.dir / "pools.json";
  try {
    for (const auto& p : run.pools) {
      audit::TaskPool pool;
      pool.task = p.at("task").get<std::string>();
      for (const auto& in : p.at("inputs")) {
        audit::PoolInput input;
        input.recipe = in.at("recipe").get<oracle::Recipe>();
        input.used_by = in.at("used_by").get<std::vector<std::string>>();
        input.elements = in.at("elements").get<std::int64_t>();
        input.usable = in.at("usable").get<bool>();
        input.legal = in.at("legal").get<bool>();
        input.note = in.at("note").get<std::string>();
        pool.inputs.push_back(std::move(input));
      }
      for (const auto& m : p.at("correct_set"))
        pool.correct_set.push_back({m.at("id").get<std::string>(), m.at("kind").get<std::string>(),
                                    m.at("admitted").get<bool>(), m.at("note").get<std::string>()});
      r.pools.push_back(std::move(pool));
    }
  } catch (const std::exception& e) {
    throw file_error(pools_path, 0, std::string("not a list of task pools: ") + e.what());
  }
  for (const auto& k : run.kill_matrix) {
    audit::MutantAudit m;
    m.scored.id = k.id;
    m.scored.task = k.task;
    m.scored.kernel = k.kernel;
    m.scored.rule = k.rule;
    m.scored.family = *mutators::family_from_name(k.family);  // checked when read
    m.scored.witnessed = k.witnessed;
    m.scored.oracle_witnessed = k.oracle_witnessed;
    m.scored.killed_by = k.killed_by;
    m.scored.cause = k.cause;
    m.scored.trial = k.trial;
    m.scored.strict_killed_by = k.strict_killed_by;
    m.scored.strict_cause = k.strict_cause;
    m.file = k.file;
    m.range = k.range;
    m.original = k.original;
    m.replacement = k.replacement;
    m.ran = k.ran;
    m.note = k.note;
    m.witness = k.witness;
    m.oracle_witness = k.oracle_witness;
    m.oracle_witness_cause = k.oracle_witness_cause;
    const auto outcome = [&](const std::string& name) {
      const auto o = audit::outcome_from_name(name);
      if (!o) throw RunDirError((run.dir / "kill-matrix.jsonl").string() + ": mutant " + k.id + ": unknown outcome '" + name + "'" + kNotARun);
      return *o;
    };
    if (k.witness >= 0) m.witness_outcome = outcome(k.witness_outcome);
    if (k.second_call_probed) {
      m.second_call_probed = true;
      m.second_call_witness = k.second_call_witness;
      m.second_call_first = k.second_call_first;
      m.second_call_outcome = outcome(k.second_call_outcome);
    }
    m.contract_checked = k.contract_checked;
    m.contract_witness = k.contract_witness;
    m.contract_cause = k.contract_cause;
    for (const auto& o : k.outcomes) m.row.push_back(outcome(o));
    r.mutants.push_back(std::move(m));
  }
  for (const auto& name : run.oracles()) {
    audit::OracleScore s;
    s.oracle = name;
    r.scores.push_back(std::move(s));
  }
  return r;
}

RunFiles add_oracles(const RunDir& run, const audit::AuditResult& added, const json& added_summary) {
  RunFiles files;
  files.summary = run.summary;
  files.pools = run.pools;
  files.sources = run.sources;
  const auto mutants = read_file(run.dir / "mutants.jsonl");
  if (!mutants) throw file_error(run.dir / "mutants.jsonl", 0, "cannot be read");
  files.mutants_jsonl = *mutants;
  const std::vector<std::string> had = run.oracles();
  std::vector<std::string> names;
  for (const auto& o : added_summary.at("oracles")) {
    const std::string name = o.at("oracle").get<std::string>();
    if (std::find(had.begin(), had.end(), name) != had.end())
      throw RunDirError((run.dir / "summary.json").string() + ": the run already scored '" + name +
                        "'; give the new checker another name");
    files.summary["oracles"].push_back(o);
    names.push_back(name);
  }
  files.summary["added_oracles"].push_back(
      {{"oracles", names}, {"runs", added_summary.value("runs", 0)}, {"seconds", added_summary.value("seconds", 0.0)}});
  for (const auto& p : added_summary.value("problems", json::array())) files.summary["problems"].push_back(p);
  std::map<std::string, const audit::MutantAudit*> by_id;
  for (const auto& m : added.mutants) by_id.emplace(m.scored.id, &m);
  for (KillRecord k : run.kill_matrix) {
    const auto it = by_id.find(k.id);
    if (it == by_id.end() || (k.ran && it->second->ran && it->second->scored.witnessed != k.witnessed))
      throw RunDirError((run.dir / "kill-matrix.jsonl").string() + ": mutant " + k.id +
                        (it == by_id.end() ? " was not audited again" : " has another witness now") +
                        ": the new audit is not of this run (another corpus, pool or kaudit?)");
    const audit::ScoredMutant& m = it->second->scored;
    for (const auto& name : names) {
      const auto copy = [&](const auto& from, auto& to) {
        if (const auto f = from.find(name); f != from.end()) to[name] = f->second;
      };
      copy(m.killed_by, k.killed_by);
      copy(m.cause, k.cause);
      copy(m.trial, k.trial);
      copy(m.strict_killed_by, k.strict_killed_by);
      copy(m.strict_cause, k.strict_cause);
    }
    files.kill_matrix.push_back(std::move(k));
  }
  files.report_md = markdown_report(files.summary, files.pools);
  return files;
}

oracle::Comparator witness_comparator(const RunDir& run) {
  const fs::path path = run.dir / "summary.json";
  if (!run.summary.contains("witness_tolerance")) throw file_error(path, 0, "no \"witness_tolerance\"");
  const json& w = run.summary["witness_tolerance"];
  oracle::Comparator c;
  const std::string kind = w.value("kind", "");
  if (kind == "allclose") c.kind = oracle::ComparatorKind::Allclose;
  else if (kind == "absolute") c.kind = oracle::ComparatorKind::Absolute;
  else if (kind == "magnitude-scaled") c.kind = oracle::ComparatorKind::MagnitudeScaled;
  else throw file_error(path, 0, "witness_tolerance.kind '" + kind + "' is not a comparator");
  c.rtol = w.value("rtol", 0.0);
  c.atol = w.value("atol", 0.0);
  return c;
}

std::vector<std::string> RunDir::oracles() const {
  std::vector<std::string> names;
  for (const auto& o : summary.at("oracles")) names.push_back(o.at("oracle").get<std::string>());
  return names;
}

std::string RunDir::input_name(const std::string& task, int index) const {
  for (const auto& p : pools)
    if (p.is_object() && p.value("task", "") == task && p.contains("inputs") && p["inputs"].is_array() && index >= 0 &&
        static_cast<std::size_t>(index) < p["inputs"].size()) {
      const json& in = p["inputs"][index];
      if (in.is_object() && in.contains("recipe") && in["recipe"].is_object()) return in["recipe"].value("name", "?");
    }
  return "?";
}

std::string RunDir::witness_text(const KillRecord& k) const {
  const auto input = [&](int i) { return "pool input #" + std::to_string(i) + " '" + input_name(k.task, i) + "'"; };
  if (k.witness >= 0) return input(k.witness) + " gives " + k.witness_outcome;
  if (k.second_call_probed && k.second_call_witness >= 0)
    return input(k.second_call_witness) + " gives " + k.second_call_outcome + " when called second, after " +
           input(k.second_call_first) + " in the same buffers";
  if (k.contract_checked && k.contract_witness >= 0)
    return input(k.contract_witness) + " gives the right output but breaks the contract (" + k.contract_cause +
           (k.contract_cause == "no-launch" ? ": no kernel launched where the original launches"
                                            : ": a library compute call where the original makes none") +
           ")";
  return "";
}

const json& RunDir::oracle_summary(const std::string& oracle) const {
  for (const auto& o : summary.at("oracles"))
    if (o.at("oracle") == oracle) return o;
  std::string list;
  for (const auto& n : oracles()) list += (list.empty() ? "" : ", ") + n;
  throw RunDirError((dir / "summary.json").string() + ": no oracle '" + oracle + "' in this audit (it scored " + list + ")");
}

}  // namespace kaudit::reports
