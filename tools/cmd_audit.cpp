// kaudit audit [--oracle SPEC]... [--corpus PATH] [--out DIR] [--json]: the main job.
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include "audit/audit.h"
#include "audit/shard.h"
#include "common/files.h"
#include "common/sha256.h"
#include "reports/markdown.h"
#include "reports/run_dir.h"
#include "corpus/corpus.h"
#include "runtime/worker.h"
#include "tools/cli.h"
#include "tools/audit_args.h"
#include "tools/cli_common.h"

namespace kaudit::cli {
namespace {

const char* kHelp =
    "usage: kaudit audit [--oracle SPEC]... [--corpus PATH] [--out DIR] [--json] [--kernel TASK/NAME]...\n"
    "                    [--rule ID]... [--witness-tol T] [--timeout S] [--thread-budget N] [--jobs N]\n"
    "                    [--cache DIR] [--full-matrix] [--no-schemata] [--backend cpu|cuda] [--mutants DIR]\n"
    "                    [--preset P] [--shard I/N]\n"
    "       kaudit audit --from DIR --oracle SPEC... [--out OUT] [--corpus PATH] [--cache DIR] [--jobs N]\n"
    "       kaudit audit --from DIR --solutions SOL --oracle-command CMD [--oracle-name N] [--command-timeout S]\n"
    "                    [--jobs N] [--out OUT] [--json]\n\n"
    "Measures correctness checkers (oracle specs) on the mutants of a corpus (default: the built-in\n"
    "one), on the CPU backend (or on this machine's GPU: --backend cuda):\n"
    "  1. mutate: every rule at every site, compiled with NVRTC, deduplicated by image;\n"
    "  2. pool: every built-in and named oracle's trials, the gate's recipes (signs, magnitudes, odd shapes) and\n"
    "     structured patterns (constant rows, one-hot, alternating signs, exp overflow/underflow);\n"
    "  3. legality: an input is legal when every correct kernel of the task, their neutral variants\n"
    "     (rounding order, block size) and the float32 reference stay within the witness tolerance\n"
    "     of the float64 reference;\n"
    "  4. witness: each distinct mutant runs on the legal inputs, cheap first (isolated workers); the\n"
    "     first on which it fails (wrong output, crash, timeout, out-of-bounds...) is its witness;\n"
    "  5. score: per oracle and family, the witnessed mutants it misses, and its false kills (correct\n"
    "     kernels or the float32 reference it rejects).\n"
    "Unwitnessed mutants never enter a rate. Results are cached: a re-run reuses them.\n\n"
    "  --oracle SPEC    a built-in oracle name (suites/NAME.json) or a spec file; repeatable; default all\n"
    "  --corpus PATH    corpus folder (tasks/ and kernels/)\n"
    "  --out DIR        report folder (default kaudit-out): report.md, summary.json, mutants.jsonl,\n"
    "                   kill-matrix.jsonl, pools.json, sources.json (a run directory: `kaudit report DIR`)\n"
    "  --json           print summary.json instead of the table\n"
    "  --kernel ID      only this kernel (repeatable)      --rule ID   only this rule (repeatable)\n"
    "  --witness-tol T  allclose rtol = atol = T for witnesses and legality (default 1e-2)\n"
    "  --timeout S      CPU s per kernel run, 0.01 to 3600 (default 2)   --jobs N  workers, 1 to 1024 (default: cores)\n"
    "  --thread-budget N  CUDA threads a run may start, those of kernels run on fibers (barriers, warp\n"
    "                   collectives) counting 128; a launch over it starts nothing and is a\n"
    "                   thread-budget timeout (default 2^27 = 134217728; 0: no limit)\n"
    "  --cache DIR      cache (default $KAUDIT_CACHE or ~/.cache/kaudit)\n"
    "  --backend B      cpu (default: the emulator) or cuda (nvcc builds run on this machine's GPU;\n"
    "                   --timeout is then wall-clock seconds, default 5)\n"
    "  --mutants DIR    audit the mutant set `kaudit mutate --out DIR` wrote instead of generating\n"
    "                   mutants (no Clang needed: how a GPU machine without Clang audits)\n"
    "  --preset P       every spec, the gate's recipes and the patterns at the task shape preset P\n"
    "                   (kernelbench-v0, kernelbench: the benchmark's sizes, docs/CORPUS.md) instead of\n"
    "                   `small`; odd and explicit shapes stay. The report names each spec's preset\n"    "  --full-matrix    run every mutant on every legal input (full kill-matrix rows, for set cover)\n"
    "                   instead of stopping at the witness; completes cached rows\n"
    "  --no-schemata    build every mutant on its own instead of many behind a switch in one build\n"
    "                   (much slower; its kill matrix must equal the default's: with a fresh --cache,\n"
    "                   a check of the schemata)\n"
    "  --from DIR       score the named oracles on the finished run DIR (`kaudit audit --out DIR`)\n"
    "                   and write DIR's files with them added to OUT: its kernels, mutants, settings\n"
    "                   and witnesses are kept (its kill-matrix rows stand in for the cache, so only the\n"
    "                   new oracles' trials run); an oracle whose trials are not in DIR's pool is refused\n"
    "  --oracle-command CMD  score a checker's own harness on the finished run DIR: CMD (words split as\n"
    "                   a shell would; {solution}, {problem}, {mutant}, {switch}, {kernel}, {task} filled in;\n"
    "                   $KAUDIT_MUTANT_SWITCH set) evaluates the KernelBench solution files of\n"
    "                   `kaudit export-mutants DIR --format kernelbench-solution --out SOL`, once per\n"
    "                   witnessed mutant and per original; its verdict is a last stdout line\n"
    "                   {\"pass\": bool, \"cause\", \"reason\"} or its exit status (0 pass, 1 fail; a signal,\n"
    "                   a timeout (--command-timeout, default 900 s) or another status fails the mutant);\n"
    "                   --jobs N evaluations at once (default 1); the oracle is named --oracle-name\n"
    "                   (default \"command\") in OUT's files\n"
    "  --shard I/N      audit only shard I of N (1 <= I <= N): whole tasks, split the same way on every\n"
    "                   machine (by their kernels' source size); `kaudit merge` joins the N run\n"
    "                   directories into the one an unsharded audit writes\n"
    "Exit status: 0; 1 when something was skipped (listed); 2 on a usage error or a bad spec.\n";

// "I/N" with 1 <= I <= N <= 1024.
std::pair<std::size_t, std::size_t> parse_shard(const std::string& v) {
  const auto slash = v.find('/');
  const auto number = [&](const std::string& s) -> std::size_t {
    if (s.empty() || s.size() > 4 || s.find_first_not_of("0123456789") != std::string::npos) return 0;
    return std::stoul(s);
  };
  const std::size_t i = slash == std::string::npos ? 0 : number(v.substr(0, slash));
  const std::size_t n = slash == std::string::npos ? 0 : number(v.substr(slash + 1));
  if (i < 1 || n < 1 || n > 1024 || i > n)
    throw std::invalid_argument("--shard takes I/N, shard I of N with 1 <= I <= N <= 1024 (e.g. 1/2), not '" + v + "'");
  return {i, n};
}

// What the shards of one split must agree on besides the summary's settings (reports/merge.h): the
// whole plan, the selection of kernels and rules, the flags that change the kill matrix, and
// digests of the audited tasks' files and of the mutant set, so that shards audited on machines
// with different corpora, selections or mutant sets are refused at merge instead of mixed.
nlohmann::json split_json(const audit::ShardPlan& plan, const corpus::Corpus& corpus, const AuditArgs& a) {
  const audit::AuditOptions& o = a.options;
  Sha256 files;
  for (const auto& name : plan.tasks) {
    const corpus::Task* t = corpus.find_task(name);
    for (const auto& path : {t->task_json, t->problem_py}) {
      const auto text = read_file(path);
      files.update(name).update(std::string(1, '\0')).update(text ? *text : std::string("(unreadable)")).update(std::string(1, '\0'));
    }
  }
  std::vector<std::string> kernels = audit::shard_kernels(corpus, o.only, plan.tasks);
  for (const auto& id : kernels) files.update(id).update(std::string(1, '\0')).update(corpus.find_kernel(id)->source).update(std::string(1, '\0'));
  std::string set_digest;
  if (!a.mutants.empty()) {
    Sha256 set;
    for (const char* f : {"mutants.jsonl", "kernels.jsonl"}) {
      const auto text = read_file(a.mutants / f);
      set.update(text ? *text : std::string("(unreadable)")).update(std::string(1, '\0'));
    }
    set_digest = set.hex_digest();
  }
  return {{"plan", plan.shards},
          {"kernels", kernels},
          {"rules", o.sites.rules},
          {"full_matrix", o.full_matrix},
          {"schemata", o.schemata},
          {"include_unverified", a.include_unverified},
          {"corpus_files_sha256", files.hex_digest()},
          {"mutant_set_sha256", set_digest}};
}

nlohmann::json summary_json(const audit::AuditResult& r, const std::vector<oracle::OracleSpec>& oracles,
                            const audit::AuditOptions& options, const std::string& corpus_path) {
  const oracle::Comparator& witness = options.witness;
  nlohmann::json j;
  j["backend"] = r.backend;
  j["corpus"] = corpus_path;
  j["witness_tolerance"] = {{"kind", oracle::comparator_name(witness.kind)}, {"rtol", witness.rtol}, {"atol", witness.atol}};
  j["preset"] = options.preset;
  if (options.cuda)
    j["run_limits"] = {{"wall_seconds", options.timeout_seconds}};
  else
    j["run_limits"] = {{"cpu_seconds", options.timeout_seconds}, {"thread_budget", options.thread_budget}};
  j["pipeline"] = mutators::pipeline_summary_json(r.pipeline);
  j["pipeline"].erase("per_rule");
  std::size_t witnessed = 0;
  for (const auto& m : r.mutants) witnessed += m.scored.witnessed;
  j["audited"] = r.mutants.size();
  j["witnessed"] = witnessed;
  nlohmann::json os = nlohmann::json::array();
  for (std::size_t i = 0; i < r.scores.size(); ++i) {
    nlohmann::json o = audit::to_json(r.scores[i]);
    o["shape_preset"] = oracles[i].shape_preset;
    o["spec"] = oracles[i].file.empty() ? "" : oracles[i].file.filename().string();
    os.push_back(o);
  }
  j["oracles"] = os;
  j["problems"] = r.problems;
  j["runs"] = r.runs;
  j["seconds"] = r.seconds;
  j["stage_seconds"] = r.stage_seconds;
  j["workers"] = {{"started", r.worker_starts}, {"start_seconds", r.worker_start_seconds}, {"runner_seconds", r.runner_seconds}};
  return j;
}

}  // namespace

int audit_command(const std::vector<std::string>& args) {
  if (std::find(args.begin(), args.end(), "--oracle-command") != args.end()) return command_oracle_audit(args);
  std::filesystem::path out_dir = "kaudit-out";
  bool json_out = false;
  std::vector<std::string> oracle_names;
  AuditArgs shared;
  audit::AuditOptions& options = shared.options;
  std::vector<oracle::OracleSpec> oracles;
  std::filesystem::path from;                  // --from DIR
  std::optional<reports::RunDir> prior_run;    // ... read
  std::optional<std::pair<std::size_t, std::size_t>> shard;  // --shard I/N
  try {
    for (std::size_t i = 0; i < args.size(); ++i) {
      const std::string& a = args[i];
      const auto value = [&](const char* flag) { return flag_value(args, i, flag); };
      if (a == "--help" || a == "-h") { std::fputs(kHelp, stdout); return 0; }
      else if (a == "--json") json_out = true;
      else if (a == "--oracle") oracle_names.push_back(value("--oracle"));
      else if (a == "--out") out_dir = value("--out");
      else if (a == "--full-matrix") options.full_matrix = true;
      else if (a == "--no-schemata") options.schemata = false;
      else if (a == "--from") from = value("--from");
      else if (a == "--shard") shard = parse_shard(value("--shard"));
      else if (!parse_audit_flag(args, i, shared)) throw std::invalid_argument("unknown argument " + a);
    }
    if (shard && !from.empty()) throw std::invalid_argument("--shard and --from do not go together: merge the shards, then --from");
    if (!from.empty()) {
      if (oracle_names.empty()) throw std::invalid_argument("--from needs --oracle: the checker to score on the run");
      prior_run = read_from_run(from, args, shared);
    }
    oracles = resolve_oracles(oracle_names);  // a bad spec stops here, before any work
    if (prior_run)
      for (const auto& spec : oracles)
        if (const auto had = prior_run->oracles(); std::find(had.begin(), had.end(), spec.name) != had.end())
          throw std::invalid_argument(from.string() + " already scored '" + spec.name + "'; --from adds other oracles");
    options.pool_specs = resolve_oracles({});  // the built-ins' trials are always in the pool
  } catch (const oracle::SpecError& e) {
    std::fprintf(stderr, "kaudit audit: %s\n", e.what());
    return 2;
  } catch (const reports::RunDirError& e) {
    std::fprintf(stderr, "kaudit audit: --from: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "kaudit audit: %s\n%s", e.what(), kHelp);
    return 2;
  }
  options.oracles = oracles;
  auto loaded = load_for_audit("audit", shared);
  if (!loaded) return 2;
  oracles = options.oracles;  // at --preset, if given
  nlohmann::json shard_json;
  if (shard) {
    try {
      const audit::ShardPlan plan = audit::plan_shards(loaded->corpus, options.only, shard->second);
      const auto& tasks = plan.shards[shard->first - 1];
      // What every shard of one split must share, recorded before the shard narrows the selection.
      const nlohmann::json split = split_json(plan, loaded->corpus, shared);
      options.only = audit::shard_kernels(loaded->corpus, options.only, tasks);
      shard_json = {{"index", shard->first}, {"count", shard->second}, {"tasks", tasks}, {"all_tasks", plan.tasks},
                    {"split", split}};
      options.progress("shard " + std::to_string(shard->first) + "/" + std::to_string(shard->second) + ": " +
                       std::to_string(tasks.size()) + " of " + std::to_string(plan.tasks.size()) + " tasks, " +
                       std::to_string(options.only.size()) + " kernels");
    } catch (const std::invalid_argument& e) {
      std::fprintf(stderr, "kaudit audit: --shard: %s\n", e.what());
      return 2;
    }
  }
  const std::filesystem::path& root = shared.root;
  std::optional<audit::AuditResult> prior;
  if (prior_run) {
    if (const std::string e = run_mismatch(*prior_run, loaded->corpus, options); !e.empty()) {
      std::fprintf(stderr, "kaudit audit: --from %s: %s\n", from.c_str(), e.c_str());
      return 2;
    }
    prior = reports::audit_result(*prior_run);
    options.prior = &*prior;
  }
  const audit::AuditResult r = audit::run_audit(loaded->corpus, options);

  reports::RunFiles files;
  files.summary = summary_json(r, oracles, options, root.filename().string());
  if (shard) files.summary["shard"] = shard_json;
  nlohmann::json categories = nlohmann::json::object();  // the report's per-category table
  for (const auto& p : r.pools)
    if (const corpus::Task* t = loaded->corpus.find_task(p.task)) categories[p.task] = t->category;
  files.summary["task_categories"] = categories;
  try {
    if (prior_run) {
      files = reports::add_oracles(*prior_run, r, files.summary);
    } else {
      files.pools = reports::pools_json(r.pools);
      files.report_md = reports::markdown_report(files.summary, files.pools);
      files.mutants_jsonl = mutators::mutants_jsonl(r.pipeline);
      for (const auto& m : r.mutants) files.kill_matrix.push_back(reports::kill_record(m));
      for (const auto& k : loaded->corpus.kernels)
        for (const auto& m : r.pipeline.mutants)
          if (m.mutant.kernel == k.id()) {
            files.sources[m.mutant.site.file] = k.source;
            break;
          }
    }
  } catch (const reports::RunDirError& e) {
    std::fprintf(stderr, "kaudit audit: --from: %s\n", e.what());
    return 1;
  }
  const nlohmann::json& summary = files.summary;
  const std::string table = files.report_md;
  try {
    reports::write_run_dir(out_dir, files);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "kaudit audit: %s\n", e.what());
    return 1;
  }
  if (json_out) {
    std::cout << summary.dump(2) << "\n";
  } else {
    std::cout << table;
    std::printf("\n%zu kernel runs, %.0f s (%zu kernels from the audit cache). Reports in %s/\n", r.runs, r.seconds,
                r.cached_kernels, out_dir.c_str());
  }
  for (const auto& p : r.problems) std::fprintf(stderr, "skipped: %s\n", p.c_str());
  return r.problems.empty() && loaded->diagnostics.empty() ? 0 : 1;
}

}  // namespace kaudit::cli
