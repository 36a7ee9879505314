#include "solutions/command_oracle.h"

#include <atomic>
#include <chrono>
#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include "common/process.h"
#include "oracle/reference.h"
#include "solutions/kernelbench_solutions.h"

namespace kaudit::solutions {
namespace fs = std::filesystem;
using nlohmann::json;

std::vector<std::string> split_command(const std::string& line) {
  std::vector<std::string> words;
  std::string cur;
  bool in_word = false;
  char quote = 0;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quote) {
      if (c == quote) quote = 0;
      else if (c == '\\' && quote == '"' && i + 1 < line.size() && (line[i + 1] == '"' || line[i + 1] == '\\')) cur += line[++i];
      else cur += c;
    } else if (c == '\'' || c == '"') {
      quote = c;
      in_word = true;
    } else if (c == '\\' && i + 1 < line.size()) {
      cur += line[++i];
      in_word = true;
    } else if (c == ' ' || c == '\t' || c == '\n') {
      if (in_word) words.push_back(cur);
      cur.clear();
      in_word = false;
    } else {
      cur += c;
      in_word = true;
    }
  }
  if (quote) throw std::invalid_argument("the command has an unterminated " + std::string(1, quote) + " quote");
  if (in_word) words.push_back(cur);
  if (words.empty()) throw std::invalid_argument("the command is empty");
  return words;
}

void check_placeholders(const std::vector<std::string>& argv) {
  static const std::set<std::string> known = {"solution", "problem", "mutant", "switch", "kernel", "task", "python"};
  for (const auto& word : argv)
    for (std::size_t open = word.find('{'); open != std::string::npos; open = word.find('{', open + 1)) {
      const std::size_t close = word.find('}', open);
      if (close == std::string::npos) break;
      const std::string name = word.substr(open + 1, close - open - 1);
      if (!known.count(name))
        throw std::invalid_argument("the command names {" + name + "}, which is no placeholder (" +
                                    "{solution} {problem} {mutant} {switch} {kernel} {task} {python})");
    }
}

namespace {

std::string substitute(const std::string& word, const std::map<std::string, std::string>& fields) {
  std::string out;  // one pass: a value that holds "{...}" is not scanned again
  for (std::size_t i = 0; i < word.size();) {
    const std::size_t close = word[i] == '{' ? word.find('}', i) : std::string::npos;
    const auto it = close == std::string::npos ? fields.end() : fields.find(word.substr(i + 1, close - i - 1));
    if (it != fields.end()) {
      out += it->second;
      i = close + 1;
    } else {
      out += word[i++];
    }
  }
  return out;
}

std::string tail(const std::string& s, std::size_t n = 600) { return s.size() <= n ? s : "..." + s.substr(s.size() - n); }

// The last non-empty line of `out` as a verdict object, if it is one.
std::optional<json> verdict_line(const std::string& out) {
  std::size_t end = out.find_last_not_of(" \t\r\n");
  if (end == std::string::npos) return std::nullopt;
  const std::size_t begin = out.rfind('\n', end);
  const std::string line = out.substr(begin == std::string::npos ? 0 : begin + 1, end + 1 - (begin == std::string::npos ? 0 : begin + 1));
  const json j = json::parse(line, nullptr, false);
  if (j.is_discarded() || !j.is_object() || !j.contains("pass") || !j["pass"].is_boolean()) return std::nullopt;
  return j;
}

struct Evaluation {
  std::string mutant;  // id, or "original"
  std::string kernel, task, solution, problem;
  int switch_value = 0;
  CommandVerdict verdict;
  bool broken = false;  // exit status not 0 or 1 and no verdict line (the first original's check)
  std::string error;
};

}  // namespace

CommandVerdict run_command_oracle(const CommandOracle& oracle, const std::map<std::string, std::string>& fields) {
  std::vector<std::string> argv = {"/usr/bin/env", std::string(kSwitchVariable) + "=" + fields.at("switch")};
  std::map<std::string, std::string> all = fields;
  all.emplace("python", oracle::default_python());
  for (const auto& w : oracle.argv) argv.push_back(substitute(w, all));
  const auto t0 = std::chrono::steady_clock::now();
  const ProcessResult r = run_process(argv, oracle.timeout_seconds);
  CommandVerdict v;
  v.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (!r.started) throw CommandOracleError("cannot run the command '" + oracle.argv[0] + "': " + r.spawn_error);
  if (r.timed_out) {
    v.cause = "timeout";
    v.reason = "no verdict within " + std::to_string(oracle.timeout_seconds) + " s";
  } else if (const auto line = verdict_line(r.out)) {
    const auto text = [&](const char* key) {  // a field the harness may leave out or set to null
      const auto it = line->find(key);
      return it != line->end() && it->is_string() ? it->get<std::string>() : std::string();
    };
    v.said = true;
    v.pass = (*line)["pass"].get<bool>();
    v.cause = v.pass ? "" : text("cause");
    if (!v.pass && v.cause.empty()) v.cause = "rejected";
    v.reason = text("reason");
  } else if (r.term_signal) {
    v.cause = "crash";
    v.reason = "the harness died of signal " + std::to_string(r.term_signal) + ": " + tail(r.err);
  } else if (r.exit_code == 0) {
    v.pass = true;
  } else if (r.exit_code == 1) {
    v.cause = "rejected";
    v.reason = tail(r.err);
  } else {
    v.cause = "harness-exception";
    v.reason = "exit status " + std::to_string(r.exit_code) + ": " + tail(r.err);
  }
  return v;
}

CommandScoring score_command_oracle(const reports::RunDir& run, const audit::AuditResult& prior,
                                    const CommandOracle& oracle, const fs::path& solutions_dir,
                                    const std::function<void(const std::string&)>& progress) {
  const fs::path manifest_path = solutions_dir / "solutions.json";
  std::ifstream in(manifest_path);
  if (!in) throw CommandOracleError(manifest_path.string() + ": cannot be read (write it with `kaudit export-mutants " +
                                    run.dir.string() + " --format kernelbench-solution --out " + solutions_dir.string() + "`)");
  const json manifest = json::parse(in, nullptr, false);
  if (manifest.is_discarded() || manifest.value("format", "") != kManifestFormat)
    throw CommandOracleError(manifest_path.string() + ": not a " + std::string(kManifestFormat) + " manifest");
  const auto abs = [&](const std::string& rel) { return fs::absolute(solutions_dir / rel).lexically_normal().string(); };

  // What to evaluate: every audited kernel's original, then every witnessed mutant.
  std::vector<Evaluation> evals;
  std::set<std::string> kernels;
  for (const auto& m : prior.mutants) kernels.insert(m.scored.kernel);
  for (const auto& kid : kernels) {
    if (!manifest["kernels"].contains(kid))
      throw CommandOracleError(manifest_path.string() + ": no original of " + kid + ", a kernel of the run " +
                               run.dir.string() + " (export the whole run)");
    const json& k = manifest["kernels"][kid];
    evals.push_back({"original", kid, k.value("task", ""), abs(k.value("original", "")), abs(k.value("problem", "")), 0, {}, false, ""});
  }
  const std::size_t originals = evals.size();
  std::map<std::string, const json*> exported;
  for (const auto& m : manifest["mutants"]) exported.emplace(m.value("id", ""), &m);
  for (const auto& m : prior.mutants) {
    if (!m.ran || !m.scored.witnessed) continue;
    const auto it = exported.find(m.scored.id);
    if (it == exported.end())
      throw CommandOracleError(manifest_path.string() + ": no solution for the witnessed mutant " + m.scored.id + " (" +
                               m.scored.kernel + ") of the run " + run.dir.string() +
                               " (export the whole run, from the same corpus)");
    const json& e = *it->second;
    evals.push_back({m.scored.id, m.scored.kernel, m.scored.task, abs(e.value("solution", "")), abs(e.value("problem", "")),
                     e.value("switch", 0), {}, false, ""});
  }

  CommandScoring out;
  const auto evaluate = [&](Evaluation& e) {
    e.verdict = run_command_oracle(oracle, {{"solution", e.solution}, {"problem", e.problem}, {"mutant", e.mutant},
                                            {"switch", std::to_string(e.switch_value)}, {"kernel", e.kernel}, {"task", e.task}});
  };
  const auto t0 = std::chrono::steady_clock::now();
  std::atomic<std::size_t> done{0};
  std::atomic<bool> stop{false};
  std::mutex mu;
  std::string failure;
  // Evaluations [from, to), `jobs` at once; the first error stops the others.
  const auto run_range = [&](std::size_t from, std::size_t to) {
    std::atomic<std::size_t> next{from};
    const auto worker = [&] {
      for (std::size_t i; !stop && (i = next++) < to;) {
        try {
          evaluate(evals[i]);
        } catch (const std::exception& ex) {
          std::lock_guard<std::mutex> lock(mu);
          if (failure.empty()) failure = evals[i].mutant + " of " + evals[i].kernel + " (" + evals[i].solution + "): " + ex.what();
          stop = true;
          return;
        }
        const std::size_t d = ++done;
        if (progress && (d % 20 == 0 || d == evals.size()))
          progress("command oracle " + oracle.name + ": " + std::to_string(d) + "/" + std::to_string(evals.size()) +
                   " evaluations (" + std::to_string(originals) + " originals)");
      }
    };
    std::vector<std::thread> pool;
    for (unsigned j = 0; j < std::max(1u, oracle.jobs); ++j) pool.emplace_back(worker);
    for (auto& t : pool) t.join();
    if (!failure.empty()) throw CommandOracleError(failure);
  };
  // The originals first: a harness that cannot run at all must not grade anything. It shows as a
  // harness that passes none of them and says no verdict of its own on any (a Python harness that
  // raises exits 1, as a rejection by exit status does), or that dies or fails otherwise on one.
  run_range(0, originals);
  bool any_passed = false, any_said = false;
  for (std::size_t i = 0; i < originals; ++i) {
    any_passed = any_passed || evals[i].verdict.pass;
    any_said = any_said || evals[i].verdict.said;
  }
  for (std::size_t i = 0; i < originals; ++i) {
    const CommandVerdict& v = evals[i].verdict;
    const bool broken = v.cause == "harness-exception" || v.cause == "crash" || v.cause == "timeout" ||
                        (!any_passed && !any_said);
    if (!v.pass && broken)
      throw CommandOracleError("the command failed on the original of " + evals[i].kernel + ", a correct kernel (" +
                               v.cause + ": " + v.reason + "); a harness that cannot run correct kernels cannot grade "
                               "their mutants" + (v.cause == "timeout" ? " (a first build may need a longer --command-timeout)" : "") +
                               ". Command: " + oracle.argv[0] + " ...");
  }
  run_range(originals, evals.size());
  out.evaluations = json::array();
  for (const auto& e : evals)
    out.evaluations.push_back({{"mutant", e.mutant}, {"kernel", e.kernel}, {"switch", e.switch_value},
                               {"pass", e.verdict.pass}, {"cause", e.verdict.cause}, {"reason", e.verdict.reason},
                               {"seconds", e.verdict.seconds}});

  // The verdicts, as an added audit of the run's mutants.
  out.added = prior;
  std::map<std::string, const Evaluation*> by_id;
  for (std::size_t i = originals; i < evals.size(); ++i) by_id.emplace(evals[i].mutant, &evals[i]);
  std::vector<audit::ScoredMutant> scored;
  for (auto& m : out.added.mutants) {
    if (const auto it = by_id.find(m.scored.id); it != by_id.end()) {
      const CommandVerdict& v = it->second->verdict;
      m.scored.killed_by[oracle.name] = m.scored.strict_killed_by[oracle.name] = !v.pass;
      if (!v.pass) m.scored.cause[oracle.name] = m.scored.strict_cause[oracle.name] = v.cause;
    }
    scored.push_back(m.scored);
  }
  std::vector<audit::FalseKill> false_kills;
  for (std::size_t i = 0; i < originals; ++i)
    if (!evals[i].verdict.pass)
      false_kills.push_back({oracle.name, evals[i].kernel, evals[i].task, "command",
                             evals[i].verdict.cause + (evals[i].verdict.reason.empty() ? "" : ": " + evals[i].verdict.reason)});
  out.added.scores = audit::score_oracles(scored, {oracle.name}, false_kills, false_kills);
  out.added.false_kills = out.added.strict_false_kills = false_kills;
  json entry = audit::to_json(out.added.scores.at(0));
  std::string command;
  for (const auto& w : oracle.argv) command += (command.empty() ? "" : " ") + w;
  entry["shape_preset"] = "the harness's own";
  entry["spec"] = "command: " + command;
  entry["kind"] = "command";
  out.summary = {{"oracles", json::array({entry})},
                 {"runs", evals.size()},
                 {"seconds", std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count()},
                 {"problems", json::array()}};
  return out;
}

}  // namespace kaudit::solutions
