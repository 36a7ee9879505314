#include "reports/run_files.h"

#include <sstream>

#include "common/files.h"
#include "mutators/mutators.h"

namespace kaudit::reports {
namespace fs = std::filesystem;
using json = nlohmann::json;

namespace detail {
const char* const kNotARun = " (is it a `kaudit audit --out` folder of this kaudit? Re-run `kaudit audit --out DIR`)";

RunDirError file_error(const fs::path& path, int line, const std::string& what) {
  return RunDirError(path.string() + (line ? ":" + std::to_string(line) : std::string()) + ": " + what + kNotARun);
}

json read_json(const fs::path& path) {
  const auto text = read_file(path);
  if (!text) throw file_error(path, 0, "missing or unreadable");
  json j = json::parse(*text, nullptr, false);
  if (j.is_discarded()) throw file_error(path, 0, "not JSON (truncated?)");
  return j;
}

// Each line through `parse`; a line that is not JSON, or that `parse` rejects, is an error
// naming it. A last line without its newline is a truncated file.
void read_jsonl(const fs::path& path, const std::function<void(const json&)>& parse) {
  const auto text = read_file(path);
  if (!text) throw file_error(path, 0, "missing or unreadable");
  if (!text->empty() && text->back() != '\n') throw file_error(path, 0, "its last line is cut short (truncated?)");
  std::istringstream in(*text);
  int n = 0;
  for (std::string line; std::getline(in, line);) {
    ++n;
    if (line.empty()) continue;
    const json j = json::parse(line, nullptr, false);
    if (j.is_discarded()) throw file_error(path, n, "not JSON");
    try {
      parse(j);
    } catch (const std::exception& e) {
      throw file_error(path, n, std::string("not a record of this format: ") + e.what());
    }
  }
}

}  // namespace detail

using detail::file_error;
using detail::kNotARun;
using detail::read_json;
using detail::read_jsonl;

json to_json(const KillRecord& r) {
  json j = {{"id", r.id}, {"task", r.task}, {"kernel", r.kernel}, {"rule", r.rule}, {"family", r.family},
            {"ran", r.ran}, {"witnessed", r.witnessed}, {"oracle_witnessed", r.oracle_witnessed},
            {"killed_by", r.killed_by}, {"cause", r.cause}, {"witness_mode_killed_by", r.strict_killed_by},
            {"witness_mode_cause", r.strict_cause}, {"outcomes", r.outcomes}};
  if (!r.trial.empty()) j["killing_trial"] = r.trial;
  if (!r.file.empty()) j["site"] = {{"file", r.file}, {"range", r.range}, {"original", r.original},
                                    {"replacement", r.replacement}};
  if (r.witness >= 0) {
    j["witness"] = r.witness;
    j["witness_outcome"] = r.witness_outcome;
  }
  if (r.oracle_witness >= 0) {
    j["oracle_witness"] = r.oracle_witness;
    j["oracle_witness_cause"] = r.oracle_witness_cause;
  }
  if (r.second_call_probed)
    j["second_call"] = {{"witness", r.second_call_witness}, {"first", r.second_call_first}, {"outcome", r.second_call_outcome}};
  if (r.contract_checked) j["contract"] = {{"witness", r.contract_witness}, {"cause", r.contract_cause}};
  if (!r.note.empty()) j["note"] = r.note;
  return j;
}

KillRecord kill_record_from_json(const json& j) {
  if (!j.is_object()) throw std::invalid_argument("not a JSON object");
  for (const char* key : {"id", "kernel", "family", "ran", "witnessed", "killed_by"})
    if (!j.contains(key)) throw std::invalid_argument(std::string("no \"") + key + "\"");
  KillRecord r;
  r.id = j.at("id").get<std::string>();
  r.task = j.value("task", "");
  r.kernel = j.at("kernel").get<std::string>();
  r.rule = j.value("rule", "");
  r.family = j.at("family").get<std::string>();
  if (!mutators::family_from_name(r.family)) throw std::invalid_argument("unknown family '" + r.family + "'");
  r.ran = j.at("ran").get<bool>();
  r.witnessed = j.at("witnessed").get<bool>();
  r.oracle_witnessed = j.value("oracle_witnessed", false);
  r.killed_by = j.at("killed_by").get<std::map<std::string, bool>>();
  r.cause = j.value("cause", std::map<std::string, std::string>{});
  r.strict_killed_by = j.value("witness_mode_killed_by", std::map<std::string, bool>{});
  r.strict_cause = j.value("witness_mode_cause", std::map<std::string, std::string>{});
  r.trial = j.value("killing_trial", std::map<std::string, std::string>{});
  r.outcomes = j.value("outcomes", std::vector<std::string>{});
  if (j.contains("site")) {
    const json& s = j.at("site");
    r.file = s.value("file", "");
    r.range = s.value("range", "");
    r.original = s.value("original", "");
    r.replacement = s.value("replacement", "");
  }
  r.witness = j.value("witness", -1);
  r.witness_outcome = j.value("witness_outcome", "");
  r.oracle_witness = j.value("oracle_witness", -1);
  r.oracle_witness_cause = j.value("oracle_witness_cause", "");
  if (j.contains("second_call")) {
    const json& s = j.at("second_call");
    r.second_call_probed = true;
    r.second_call_witness = s.at("witness").get<int>();
    r.second_call_first = s.at("first").get<int>();
    r.second_call_outcome = s.at("outcome").get<std::string>();
  }
  if (j.contains("contract")) {
    const json& c = j.at("contract");
    r.contract_checked = true;
    r.contract_witness = c.at("witness").get<int>();
    r.contract_cause = c.at("cause").get<std::string>();
  }
  r.note = j.value("note", "");
  return r;
}

json read_summary(const fs::path& dir) {
  if (!fs::is_directory(dir)) throw RunDirError(dir.string() + ": not a folder" + kNotARun);
  const fs::path path = dir / "summary.json";
  json summary = read_json(path);
  if (!summary.is_object() || !summary.contains("oracles") || !summary["oracles"].is_array())
    throw file_error(path, 0, "no \"oracles\" list");
  const json& format = summary.contains("run_format") ? summary["run_format"] : json(1);
  if (format != kRunFormat)
    throw RunDirError(path.string() + ": run format " + format.dump() + ", this kaudit reads " + std::to_string(kRunFormat) +
                      " (written by another version of kaudit: re-run the audit with this one)");
  for (const auto& o : summary["oracles"])
    if (!o.is_object() || !o.contains("oracle") || !o["oracle"].is_string() ||
        (o.contains("false_kill_list") && !o["false_kill_list"].is_array()))
      throw file_error(path, 0, "an entry of \"oracles\" without an \"oracle\" name or with a malformed false_kill_list");
  return summary;
}

std::vector<KillRecord> read_kill_matrix(const fs::path& dir) {
  std::vector<KillRecord> records;
  read_jsonl(dir / "kill-matrix.jsonl", [&](const json& j) { records.push_back(kill_record_from_json(j)); });
  return records;
}

}  // namespace kaudit::reports
