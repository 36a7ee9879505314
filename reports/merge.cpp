#include "reports/merge.h"

#include <algorithm>
#include <map>
#include <set>
#include <filesystem>
#include <sstream>

#include "audit/scoring.h"
#include "common/files.h"
#include "reports/markdown.h"

namespace kaudit::reports {
namespace {
using json = nlohmann::json;

RunDirError shard_error(const RunDir& run, const std::string& what) {
  return RunDirError((run.dir / "summary.json").string() + ": " + what);
}

// The settings every shard must share: what the audit's verdicts depend on.
// (The corpus folder's name is not compared: the split's digest of the tasks' files is.)
constexpr const char* kSameSettings[] = {"backend", "witness_tolerance", "preset", "run_limits"};

// Per oracle, what the summary says of it beyond its scores: the spec it came from and its preset.
json oracle_identity(const json& o) {
  return {{"oracle", o.value("oracle", "")}, {"spec", o.value("spec", "")}, {"shape_preset", o.value("shape_preset", "")}};
}

std::vector<audit::FalseKill> false_kills_of(const json& list, const std::string& oracle) {
  std::vector<audit::FalseKill> out;
  for (const auto& f : list)
    out.push_back({oracle, f.value("member", ""), f.value("task", ""), f.value("trial", ""), f.value("detail", "")});
  return out;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) lines.push_back(line);
  return lines;
}

std::string task_of_kernel(const std::string& id) { return id.substr(0, id.find('/')); }

// Where one audit would have put a "problems" line (audit/audit.cpp): kernels missing from the
// mutant set first, then the task loop's lines in task order, then parse and NVRTC failures; a
// line whose task cannot be read keeps its place after its kind's others.
template <typename Rank>
std::size_t problem_rank(const std::string& line, const Rank& rank) {
  const auto ends = [&](const std::string& tail) {
    return line.size() >= tail.size() && line.compare(line.size() - tail.size(), tail.size(), tail) == 0;
  };
  std::size_t kind = 1;
  if (line.find(": not in the mutant set") != std::string::npos) kind = 0;
  else if (ends(": does not parse")) kind = 2;
  else if (ends(": NVRTC rejects the original")) kind = 3;
  // The task: the word that holds the line's first "TASK/NAME".
  std::size_t task = rank("");  // unknown: after every task
  if (const auto slash = line.find('/'); slash != std::string::npos) {
    const auto space = line.rfind(' ', slash);
    task = rank(line.substr(space == std::string::npos ? 0 : space + 1, slash - (space == std::string::npos ? 0 : space + 1)));
  }
  return kind * (std::size_t(1) << 32) + task;
}

// summary.json's "shard" (tools/cmd_audit.cpp writes it), checked for shape.
struct ShardHeader {
  std::size_t index = 0, count = 0;
  std::vector<std::string> tasks, all_tasks;
  std::vector<std::vector<std::string>> plan;
  json split;
};

ShardHeader read_header(const RunDir& run) {
  if (!run.summary.contains("shard")) throw shard_error(run, "not a shard (written by `kaudit audit` without --shard I/N)");
  const json& s = run.summary["shard"];
  const auto bad = [&](const std::string& what) {
    return shard_error(run, "its \"shard\" " + what + " (not written by `kaudit audit --shard`, or edited); audit the shard again");
  };
  if (!s.is_object()) throw bad("is not an object");
  ShardHeader h;
  try {
    for (const char* key : {"index", "count"})
      if (!s.contains(key) || !s[key].is_number_unsigned()) throw bad(std::string("has no whole number \"") + key + "\"");
    h.index = s["index"].get<std::size_t>();
    h.count = s["count"].get<std::size_t>();
    if (h.count < 1 || h.count > 1024 || h.index < 1 || h.index > h.count)
      throw bad("says shard " + std::to_string(h.index) + " of " + std::to_string(h.count) + " (1 <= I <= N <= 1024)");
    h.tasks = s.at("tasks").get<std::vector<std::string>>();
    h.all_tasks = s.at("all_tasks").get<std::vector<std::string>>();
    h.split = s.at("split");
    h.plan = h.split.at("plan").get<std::vector<std::vector<std::string>>>();
  } catch (const json::exception& e) {
    throw bad(std::string("is malformed: ") + e.what());
  }
  if (!run.summary.contains("oracles") || !run.summary["oracles"].is_array() || !run.summary.contains("pipeline") ||
      !run.summary["pipeline"].is_object())
    throw shard_error(run, "has no \"oracles\" list or \"pipeline\" object");
  return h;
}

}  // namespace

RunFiles merge_shards(const std::vector<RunDir>& shards) {
  if (shards.empty()) throw RunDirError("no shards to merge");
  std::vector<ShardHeader> headers;
  for (const RunDir& run : shards) headers.push_back(read_header(run));
  const RunDir& first = shards.front();
  const ShardHeader& head = headers.front();
  const std::size_t count = head.count;
  const std::vector<std::string>& all_tasks = head.all_tasks;
  std::map<std::string, std::size_t> task_index;
  for (std::size_t i = 0; i < all_tasks.size(); ++i) task_index[all_tasks[i]] = i;
  // The plan must split the tasks: each in exactly one shard (every shard recorded the whole plan).
  {
    std::multiset<std::string> planned;
    for (const auto& tasks : head.plan) planned.insert(tasks.begin(), tasks.end());
    if (head.plan.size() != count || planned != std::multiset<std::string>(all_tasks.begin(), all_tasks.end()))
      throw shard_error(first, "its \"shard\".\"split\".\"plan\" does not split its \"all_tasks\" into " +
                                   std::to_string(count) + " shards");
  }

  std::vector<const RunDir*> by_index(count, nullptr);
  std::vector<json> identities;
  for (const auto& o : first.summary.at("oracles")) identities.push_back(oracle_identity(o));
  for (std::size_t r = 0; r < shards.size(); ++r) {
    const RunDir& run = shards[r];
    const ShardHeader& h = headers[r];
    if (h.count != count || h.all_tasks != all_tasks || h.split != head.split)
      throw shard_error(run, "a shard of another split than " + first.dir.string() +
                                 "'s: another --shard N, corpus (its files differ), --kernel or --rule selection, "
                                 "--full-matrix, --no-schemata, --include-unverified or mutant set");
    if (h.tasks != head.plan[h.index - 1])
      throw shard_error(run, "its tasks are not those its split gives shard " + std::to_string(h.index));
    if (by_index[h.index - 1])
      throw shard_error(run, "shard " + std::to_string(h.index) + "/" + std::to_string(count) + " is given twice (also " +
                                 by_index[h.index - 1]->dir.string() + ")");
    by_index[h.index - 1] = &run;
    for (const char* key : kSameSettings) {
      const json mine = run.summary.value(key, json()), theirs = first.summary.value(key, json());
      if (mine != theirs)
        throw shard_error(run, std::string("its \"") + key + "\" is " + mine.dump() + ", " + first.dir.string() + "'s is " +
                                   theirs.dump() + ": the shards of one audit must share their settings and backend (on "
                                   "the CUDA backend, the same kind of GPU)");
    }
    const json nvrtc = run.summary.at("pipeline").value("nvrtc", json()), first_nvrtc = first.summary.at("pipeline").value("nvrtc", json());
    if (nvrtc != first_nvrtc)
      throw shard_error(run, "its mutants were compiled by NVRTC " + nvrtc.dump() + ", " + first.dir.string() + "'s by " +
                                 first_nvrtc.dump() + ": images, and so duplicates, may differ");
    std::vector<json> ids;
    for (const auto& o : run.summary.at("oracles")) ids.push_back(oracle_identity(o));
    if (ids != identities)
      throw shard_error(run, "it scored other oracles than " + first.dir.string() + " (or in another order)");
    if (run.summary.contains("added_oracles"))
      throw shard_error(run, "oracles were added to this shard with --from: merge the shards first, then add them");
    if (!std::filesystem::exists(run.dir / "sources.json"))
      throw shard_error(run, "no sources.json (written by an older kaudit); audit the shard again");
    // Every record belongs to one of the shard's own tasks.
    const std::set<std::string> own(h.tasks.begin(), h.tasks.end());
    for (const auto& k : run.kill_matrix)
      if (!own.count(k.task))
        throw detail::file_error(run.dir / "kill-matrix.jsonl", 0, "mutant " + k.id + " is of task " + k.task + ", not one of this shard's");
    for (const auto& p : run.pools)
      if (!p.is_object() || !p.contains("task") || !p["task"].is_string() || !own.count(p["task"].get<std::string>()))
        throw detail::file_error(run.dir / "pools.json", 0, "an entry that is not a pool of one of this shard's tasks");
    for (const auto& m : run.mutants)
      if (!own.count(task_of_kernel(m.mutant.kernel)))
        throw detail::file_error(run.dir / "mutants.jsonl", 0, "mutant of " + m.mutant.kernel + ", not of one of this shard's tasks");
  }
  for (std::size_t i = 0; i < count; ++i)
    if (!by_index[i])
      throw RunDirError("shard " + std::to_string(i + 1) + "/" + std::to_string(count) + " of the split of " +
                        first.dir.string() + " is missing: give every shard's directory");

  const auto rank = [&](const std::string& task) {
    const auto it = task_index.find(task);
    return it == task_index.end() ? all_tasks.size() : it->second;
  };
  RunFiles files;
  files.summary = first.summary;
  // Records back in corpus order: each shard keeps a task's own order, and a task is in one shard.
  std::vector<std::pair<std::size_t, KillRecord>> matrix;
  std::vector<std::pair<std::size_t, json>> pools;
  std::vector<std::pair<std::size_t, std::string>> mutant_lines;
  std::vector<std::pair<std::size_t, mutators::MutantRecord>> mutants;
  std::vector<std::pair<std::size_t, json>> parse_failures, compile_failures;
  std::map<std::string, std::vector<std::pair<std::size_t, audit::FalseKill>>> false_kills, strict_false_kills;
  std::vector<std::pair<std::size_t, json>> problems;
  json shard_list = json::array(), task_categories = json::object();
  std::size_t kernels = 0, runs = 0;
  double seconds = 0;
  std::map<std::string, double> stage_seconds, runner_seconds;
  int workers_started = 0;
  double worker_start_seconds = 0;
  for (const RunDir* run : by_index) {
    for (const auto& k : run->kill_matrix) matrix.emplace_back(rank(k.task), k);
    for (const auto& p : run->pools) pools.emplace_back(rank(p.value("task", "")), p);
    const auto text = read_file(run->dir / "mutants.jsonl");
    if (!text) throw detail::file_error(run->dir / "mutants.jsonl", 0, "cannot be read");
    const auto lines = lines_of(*text);
    if (lines.size() != run->mutants.size())
      throw detail::file_error(run->dir / "mutants.jsonl", 0, "changed while it was read");
    for (std::size_t i = 0; i < lines.size(); ++i) {
      const std::size_t r = rank(task_of_kernel(run->mutants[i].mutant.kernel));
      mutant_lines.emplace_back(r, lines[i]);
      mutants.emplace_back(r, run->mutants[i]);
    }
    for (const auto& [file, text] : run->sources) {
      const auto [it, added] = files.sources.emplace(file, text);
      if (!added && it->second != text) throw shard_error(*run, "its source of " + file + " differs from another shard's");
    }
    try {
    const json& s = run->summary;
    const json& pipeline = s.at("pipeline");
    kernels += pipeline.value("kernels", std::size_t{0});
    for (const auto& f : pipeline.value("parse_failures", json::array()))
      parse_failures.emplace_back(rank(task_of_kernel(f.value("kernel", ""))), f);
    for (const auto& f : pipeline.value("compile_failures", json::array()))
      compile_failures.emplace_back(rank(task_of_kernel(f.value("kernel", ""))), f);
    for (const auto& o : s.at("oracles")) {
      const std::string name = o.at("oracle").get<std::string>();
      for (auto& f : false_kills_of(o.value("false_kill_list", json::array()), name))
        false_kills[name].emplace_back(rank(f.task), f);
      for (auto& f : false_kills_of(o.value("witness_mode", json::object()).value("false_kill_list", json::array()), name))
        strict_false_kills[name].emplace_back(rank(f.task), f);
    }
    for (const auto& p : s.value("problems", json::array())) problems.emplace_back(problem_rank(p.get<std::string>(), rank), p);
    if (s.contains("task_categories") && s["task_categories"].is_object())
      for (const auto& [task, category] : s["task_categories"].items()) task_categories[task] = category;
    runs += s.value("runs", std::size_t{0});
    seconds += s.value("seconds", 0.0);
    for (const auto& [stage, t] : s.value("stage_seconds", std::map<std::string, double>{})) stage_seconds[stage] += t;
    const json& w = s.value("workers", json::object());
    workers_started += w.value("started", 0);
    worker_start_seconds += w.value("start_seconds", 0.0);
    for (const auto& [part, t] : w.value("runner_seconds", std::map<std::string, double>{})) runner_seconds[part] += t;
    shard_list.push_back({{"index", s.at("shard").at("index")}, {"tasks", s.at("shard").at("tasks")},
                          {"runs", s.value("runs", 0)}, {"seconds", s.value("seconds", 0.0)}, {"directory", run->dir.string()}});
    } catch (const json::exception& e) {
      throw shard_error(*run, std::string("malformed (") + e.what() + "); audit the shard again");
    }
  }
  const auto by_rank = [](const auto& a, const auto& b) { return a.first < b.first; };
  for (auto* v : {&parse_failures, &compile_failures}) std::stable_sort(v->begin(), v->end(), by_rank);
  std::stable_sort(matrix.begin(), matrix.end(), by_rank);
  std::stable_sort(pools.begin(), pools.end(), by_rank);
  std::stable_sort(mutant_lines.begin(), mutant_lines.end(), by_rank);
  std::stable_sort(mutants.begin(), mutants.end(), by_rank);

  for (auto& [r, k] : matrix) files.kill_matrix.push_back(std::move(k));
  files.pools = json::array();
  for (auto& [r, p] : pools) files.pools.push_back(std::move(p));
  for (auto& [r, line] : mutant_lines) files.mutants_jsonl += line + "\n";

  // The pipeline's counts from the merged mutants (the audit's own function), its failures kept.
  mutators::MutationPipeline pipeline;
  pipeline.kernels = kernels;
  for (auto& [r, m] : mutants) pipeline.mutants.push_back(std::move(m));
  const json& first_pipeline = first.summary.at("pipeline");
  if (first_pipeline.contains("nvrtc") && first_pipeline["nvrtc"].is_string())
    pipeline.nvrtc_version = first_pipeline["nvrtc"].get<std::string>();
  json p = mutators::pipeline_summary_json(pipeline);
  p.erase("per_rule");
  p["parse_failures"] = json::array();
  p["compile_failures"] = json::array();
  for (auto& [r, f] : parse_failures) p["parse_failures"].push_back(f);
  for (auto& [r, f] : compile_failures) p["compile_failures"].push_back(f);
  files.summary["pipeline"] = p;

  // The scores, recomputed as the audit computes them: over the mutants that ran.
  RunDir merged;
  merged.summary = first.summary;
  merged.kill_matrix = files.kill_matrix;
  const audit::AuditResult result = audit_result(merged);
  std::vector<audit::ScoredMutant> scored;
  std::size_t witnessed = 0;
  for (const auto& m : result.mutants) {
    witnessed += m.scored.witnessed;
    if (m.ran) scored.push_back(m.scored);
  }
  std::vector<std::string> names;
  std::vector<audit::FalseKill> fk, strict_fk;
  for (const auto& o : first.summary.at("oracles")) {
    const std::string name = o.at("oracle").get<std::string>();
    names.push_back(name);
    for (const auto& [from, to] : {std::pair{&false_kills, &fk}, std::pair{&strict_false_kills, &strict_fk}}) {
      auto& list = (*from)[name];
      std::stable_sort(list.begin(), list.end(), by_rank);
      for (auto& [r, f] : list) to->push_back(f);
    }
  }
  const std::vector<audit::OracleScore> scores = audit::score_oracles(scored, names, fk, strict_fk);
  files.summary["oracles"] = json::array();
  for (std::size_t i = 0; i < scores.size(); ++i) {
    json o = audit::to_json(scores[i]);
    o["shape_preset"] = identities[i]["shape_preset"];
    o["spec"] = identities[i]["spec"];
    files.summary["oracles"].push_back(o);
  }
  files.summary["audited"] = files.kill_matrix.size();
  files.summary["witnessed"] = witnessed;
  std::stable_sort(problems.begin(), problems.end(), by_rank);
  files.summary["problems"] = json::array();
  for (auto& [r, p] : problems) files.summary["problems"].push_back(p);
  if (first.summary.contains("task_categories")) files.summary["task_categories"] = task_categories;
  files.summary["runs"] = runs;
  files.summary["seconds"] = seconds;
  files.summary["stage_seconds"] = stage_seconds;
  files.summary["workers"] = {{"started", workers_started}, {"start_seconds", worker_start_seconds},
                              {"runner_seconds", runner_seconds}};
  files.summary.erase("shard");
  files.summary["merged_shards"] = shard_list;
  files.report_md = markdown_report(files.summary, files.pools);
  return files;
}

}  // namespace kaudit::reports
