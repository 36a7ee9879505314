#include "reports/mte.h"

#include <map>

namespace kaudit::reports {
namespace {
using json = nlohmann::json;

std::string witness_text(const KillRecord& k, const RunDir& run) { return "witness: " + run.witness_text(k); }

}  // namespace

json mutation_testing_report(const RunDir& run, const std::string& oracle) {
  const json& summary = run.oracle_summary(oracle);  // throws for an unknown oracle
  if (run.sources.empty())
    throw RunDirError((run.dir / "sources.json").string() +
                      ": missing (the run was written before kaudit kept the kernels' sources): re-run `kaudit audit "
                      "--out " + run.dir.string() + "`");
  std::map<std::string, const KillRecord*> audited;
  for (const auto& k : run.kill_matrix) audited[k.id] = &k;

  json files = json::object();
  for (const auto& r : run.mutants) {
    const auto& site = r.mutant.site;
    const std::string file = site.file;
    if (!files.contains(file)) {
      const auto src = run.sources.find(file);
      if (src == run.sources.end())
        throw RunDirError((run.dir / "sources.json").string() + ": no source for " + file +
                          ", which mutants.jsonl names (re-run the audit)");
      files[file] = {{"language", "cpp"}, {"source", src->second}, {"mutants", json::array()}};
    }
    json m = {{"id", r.mutant.id},
              {"mutatorName", site.rule},
              {"replacement", site.replacement},
              {"description", std::string(mutators::family_name(site.family)) + ": '" + site.original + "' -> '" +
                                  site.replacement + "'"},
              {"location", {{"start", {{"line", site.begin_pos.line}, {"column", site.begin_pos.column}}},
                            {"end", {{"line", site.end_pos.line}, {"column", site.end_pos.column}}}}}};
    std::string status = "Ignored", reason;
    switch (r.status) {
      case mutators::ImageClass::Stillborn:
        status = "CompileError";
        reason = "does not compile: " + r.first_diagnostic;
        break;
      case mutators::ImageClass::Duplicate:
        reason = "duplicate: the same compiled image as mutant " + r.duplicate_of;
        break;
      case mutators::ImageClass::Equivalent:
        reason = "equivalent: its compiled image is the original kernel's";
        break;
      case mutators::ImageClass::Unknown:
        reason = "not compiled (no NVRTC), so not deduplicated and not audited";
        break;
      case mutators::ImageClass::Distinct: {
        const auto it = audited.find(r.mutant.id);
        if (it == audited.end()) {
          reason = "not audited in this run (outside its --kernel or --rule selection)";
          break;
        }
        const KillRecord& k = *it->second;
        if (!k.ran) {
          reason = "not run: " + k.note;
        } else if (!k.witnessed) {
          reason = "unwitnessed: no legal input of the pool makes it fail, so it is in no rate";
        } else if (k.killed_by.count(oracle) && k.killed_by.at(oracle)) {
          const std::string cause = k.cause.count(oracle) ? k.cause.at(oracle) : "";
          status = cause == "timeout" ? "Timeout" : "Killed";
          const auto t = k.trial.find(oracle);
          if (t != k.trial.end()) m["killedBy"] = json::array({k.task + "/" + t->second});
          reason = oracle + " rejects it (" + cause + (t != k.trial.end() ? ", at trial " + t->second : "") + "); " +
                   witness_text(k, run);
        } else {
          status = "Survived";
          reason = oracle + " accepts it; the fault is real, " + witness_text(k, run);
        }
        break;
      }
    }
    m["status"] = status;
    m["statusReason"] = reason;
    files[file]["mutants"].push_back(m);
  }

  // The oracle's trials, per task, as the tests that kill mutants.
  const std::string prefix = oracle + "/";
  json tests = json::array();
  for (const auto& p : run.pools)
    for (const auto& in : p.value("inputs", json::array()))
      for (const auto& use : in.value("used_by", json::array())) {
        const std::string u = use.get<std::string>();
        if (u.rfind(prefix, 0) != 0) continue;
        const std::string task = p.value("task", "");
        tests.push_back({{"id", task + "/" + u.substr(prefix.size())}, {"name", task + ": " + u}});
      }

  json report = {{"schemaVersion", "2"},
                 {"thresholds", {{"high", 80}, {"low", 60}}},
                 {"files", files},
                 {"testFiles", {{oracle, {{"tests", tests}}}}},
                 {"framework", {{"name", "kaudit"}}},
                 {"config", {{"oracle", oracle},
                             {"backend", run.summary.value("backend", "")},
                             {"shape_preset", summary.value("shape_preset", "")},
                             {"run_directory", run.dir.string()}}}};
  return report;
}

std::string mutation_testing_page(const nlohmann::json& report, const std::string& viewer_js, const std::string& title) {
  // Inside a <script>, "</" could end the element early (a kernel source may hold "</"): JSON and
  // JavaScript read "<\/" as the same two characters.
  std::string data = report.dump();
  for (std::size_t p = data.find("</"); p != std::string::npos; p = data.find("</", p + 3)) data.replace(p, 2, "<\\/");
  std::string escaped_title;
  for (char c : title) {
    if (c == '<') escaped_title += "&lt;";
    else if (c == '&') escaped_title += "&amp;";
    else if (c == '"') escaped_title += "&quot;";
    else escaped_title += c;
  }
  return "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>kaudit: " + escaped_title +
         " (mutation-testing-elements)</title>\n<script>\n" + viewer_js +
         "\n</script>\n</head>\n<body>\n<mutation-test-report-app title-postfix=\"" + escaped_title +
         "\"></mutation-test-report-app>\n<script>\ndocument.querySelector('mutation-test-report-app').report = " + data +
         ";\n</script>\n</body>\n</html>\n";
}

}  // namespace kaudit::reports
