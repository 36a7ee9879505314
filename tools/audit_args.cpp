#include "tools/audit_args.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>

#include <map>
#include <set>

#include "runtime/worker.h"
#include "tools/cli_common.h"

namespace kaudit::cli {

AuditArgs::AuditArgs() : root(builtin_corpus_dir()) { options.cache_dir = default_cache_dir(); }

const char* const kAuditFlagsHelp =
    "  --corpus PATH    corpus folder (tasks/ and kernels/; default: the built-in corpus)\n"
    "  --kernel ID      only this kernel, TASK/NAME (repeatable)   --rule ID   only this rule (repeatable)\n"
    "  --witness-tol T  allclose rtol = atol = T for witnesses and legality (default 1e-2)\n"
    "  --timeout S      CPU seconds per kernel run, 0.01 to 3600 (default 2)\n"
    "  --jobs N         parallel workers, 1 to 1024 (default: cores)\n"
    "  --thread-budget N  CUDA threads a run may start, those of kernels run on fibers (barriers, warp\n"
    "                   collectives) counting 128; over it is a timeout (default 2^27 = 134217728; 0: none)\n"
    "  --cache DIR      cache (default $KAUDIT_CACHE or ~/.cache/kaudit)\n"
    "  --backend B      cpu (default: the emulator) or cuda (nvcc builds run on this machine's GPU;\n"
    "                   --timeout is then wall-clock seconds, default 5)\n"
    "  --gpu-memory-share F  cuda: the share of the GPU's memory all workers together may hold,\n"
    "                   0.01 to 0.95 (default 0.9; give each of several audits on one GPU a part)\n"
    "  --pool-memory-gb G  memory for a task's pool inputs and references, 0 to 1048576 GB; over it they\n"
    "                   go to unlinked files in the cache, paged in as runs need them (default: a\n"
    "                   quarter of this machine's memory)\n"
    "  --run-memory-gb G  memory the runs' inputs and references in flight to the workers may hold\n"
    "                   at once, 0 to 1048576 GB; a run waits for room, one larger than G runs alone\n"
    "                   (default: a quarter of this machine's memory)\n"
    "  --mutants DIR    audit the mutant set `kaudit mutate --out DIR` wrote instead of generating\n"
    "                   mutants (no Clang needed: how a GPU machine without Clang audits)\n"
    "  --preset P       run every spec, the gate's recipes and the patterns at the task shape preset P\n"
    "                   (e.g. kernelbench-v0, kernelbench: the benchmark's sizes, docs/CORPUS.md) instead\n"
    "                   of `small`; odd shapes and explicit shapes stay\n"
    "  --include-unverified  also take kernels the verification gate rejected at `kaudit import`\n";

bool parse_audit_flag(const std::vector<std::string>& args, std::size_t& i, AuditArgs& a) {
  const std::string& flag = args[i];
  const auto value = [&] { return flag_value(args, i, flag.c_str()); };
  if (flag == "--corpus") a.root = value();
  else if (flag == "--include-unverified") a.include_unverified = true;
  else if (flag == "--kernel") a.options.only.push_back(value());
  else if (flag == "--rule") {
    const std::string r = value();
    // Without Clang there is no catalog to check against: the rule filters the mutant set.
    if (mutators::clang_available() && !mutators::find_rule(r))
      throw std::invalid_argument("unknown rule '" + r + "' (see `kaudit rules`)");
    a.options.sites.rules.push_back(r);
  } else if (flag == "--witness-tol") {
    const double t = parse_real_flag(flag, value(), 1e-12, 0.999);
    a.options.witness.rtol = a.options.witness.atol = t;
  } else if (flag == "--timeout") {
    // At least 10 ms (a correct kernel must have time to run), at most an hour per run.
    a.options.timeout_seconds = parse_real_flag(flag, value(), 0.01, 3600);
    a.timeout_given = true;
  } else if (flag == "--thread-budget") {
    const std::string v = value();
    if (v.empty() || v.size() > 19 || v.find_first_not_of("0123456789") != std::string::npos)
      throw std::invalid_argument("--thread-budget takes a whole number of CUDA threads below 10^19 (0: no limit), not '" +
                                  v + "'");
    a.options.thread_budget = std::stoull(v);
  } else if (flag == "--jobs") a.options.jobs = static_cast<unsigned>(parse_count_flag(flag, value(), 1, 1024));
  else if (flag == "--gpu-memory-share") a.options.gpu_memory_share = parse_real_flag(flag, value(), 0.01, 0.95);
  else if (flag == "--pool-memory-gb")
    a.options.pool_memory_bytes = static_cast<std::uint64_t>(parse_real_flag(flag, value(), 0, 1048576) * double(1ull << 30));
  else if (flag == "--run-memory-gb")
    a.options.run_memory_bytes = static_cast<std::uint64_t>(parse_real_flag(flag, value(), 0, 1048576) * double(1ull << 30));
  else if (flag == "--cache") a.options.cache_dir = value();
  else if (flag == "--backend") a.cuda = parse_backend_flag(value());
  else if (flag == "--mutants") a.mutants = value();
  else if (flag == "--preset") {
    a.preset = value();
    if (a.preset.empty() || a.preset.rfind("odd:", 0) == 0)
      throw std::invalid_argument("--preset needs the name of a task preset (small, kernelbench-v0, kernelbench...)");
  }
  else return false;
  return true;
}

std::optional<corpus::LoadResult> load_for_audit(const char* command, AuditArgs& a) {
  if (a.cuda) {
    if (const std::string problem = cuda_backend_problem(); !problem.empty()) {
      std::fprintf(stderr, "kaudit %s: %s\n", command, problem.c_str());
      return std::nullopt;
    }
    a.options.cuda = true;
    // A GPU run's limit is wall-clock (a CUDA worker creates its context before its first run).
    if (!a.timeout_given) a.options.timeout_seconds = 5;
  }
  if (a.mutants.empty() && !mutators::clang_available()) {
    std::fprintf(stderr, "kaudit %s: %s; give a mutant set made where Clang is (`kaudit mutate --out DIR`, then --mutants DIR)\n",
                 command, mutators::ClangUnavailable().what());
    return std::nullopt;
  }
  if (!std::filesystem::is_directory(a.root)) {
    std::fprintf(stderr, "kaudit %s: %s: no such corpus directory (expected tasks/ and kernels/ inside)\n", command,
                 a.root.c_str());
    return std::nullopt;
  }
  corpus::LoadResult loaded = corpus::load_corpus(a.root, {.include_unverified = a.include_unverified});
  for (const auto& d : loaded.diagnostics) std::fprintf(stderr, "%s\n", d.to_string().c_str());
  note_unverified(command, loaded);
  for (const auto& id : a.options.only)
    if (!loaded.corpus.find_kernel(id)) {
      std::fprintf(stderr, "kaudit %s: no kernel '%s' in %s (ids are TASK/NAME)\n", command, id.c_str(), a.root.c_str());
      return std::nullopt;
    }
  // A trial without a shape on some task (an odd shape it lacks, a negative dim) would reject
  // every kernel there: a spec error, before any work.
  const std::vector<std::string> tasks = tasks_of(a.options.only);
  if (!a.preset.empty()) {
    if (const std::string e = missing_preset(loaded.corpus, tasks, a.preset); !e.empty()) {
      std::fprintf(stderr, "kaudit %s: %s\n", command, e.c_str());
      return std::nullopt;
    }
    for (auto* specs : {&a.options.oracles, &a.options.pool_specs})
      for (auto& spec : *specs) spec = oracle::at_preset(std::move(spec), a.preset);
    a.options.preset = a.preset;
  }
  try {
    for (const auto& spec : a.options.oracles) {
      oracle::check_spec_for_corpus(spec, loaded.corpus, tasks);
      if (const char* gate = spec.gates.unchecked_on_cuda(); a.cuda && gate)
        throw oracle::SpecError(spec.file.empty() ? std::filesystem::path(spec.name) : spec.file, 0, "gates",
                                std::string("the CUDA backend does not check the gate ") + gate +
                                    " yet (it counts library calls, not launches or unwritten outputs): audit such specs with --backend cpu");
    }
    // Inputs an external checker writes are asked for now, before the pool (oracle/external.h).
    oracle::set_stored_inputs_dir(a.options.cache_dir / "checker-inputs");
    for (auto& spec : a.options.oracles) oracle::resolve_checker_inputs(spec, loaded.corpus, tasks);
  } catch (const oracle::SpecError& e) {
    std::fprintf(stderr, "kaudit %s: %s\n", command, e.what());
    return std::nullopt;
  } catch (const oracle::ExternalCheckerError& e) {
    std::fprintf(stderr, "kaudit %s: %s\n", command, e.what());
    return std::nullopt;
  }
  // A suite made on another corpus names tasks this one lacks: its verdicts would silently cover
  // only the tasks the two share.
  for (const auto& spec : a.options.oracles)
    for (const auto& [task, trials] : spec.task_trials)
      if (!loaded.corpus.find_task(task)) {
        std::fprintf(stderr,
                     "kaudit %s: %s has inputs for task '%s', which %s does not have (a suite from another "
                     "corpus?); audit it on the corpus it was made from\n",
                     command, spec.file.empty() ? spec.name.c_str() : spec.file.c_str(), task.c_str(), a.root.c_str());
        return std::nullopt;
      }
  if (!a.mutants.empty()) {
    std::vector<mutators::KernelSourceInfo> sources;
    for (const auto& k : loaded.corpus.kernels) sources.push_back({k.id(), k.file, k.source});
    try {
      a.mutant_set = std::make_shared<const mutators::MutantSet>(mutators::read_mutant_set(a.mutants, sources));
    } catch (const mutators::MutantSetError& e) {
      std::fprintf(stderr, "kaudit %s: %s\n", command, e.what());
      return std::nullopt;
    }
    a.options.mutant_set = a.mutant_set.get();
  }
  a.options.worker_exe = runtime::worker_executable();
  const auto t0 = std::make_shared<std::chrono::steady_clock::time_point>(std::chrono::steady_clock::now());
  a.options.progress = [t0](const std::string& line) {
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - *t0).count();
    std::fprintf(stderr, "[%6.0fs] %s\n", s, line.c_str());
  };
  return loaded;
}

namespace {

// The flags `--from DIR` takes from the run instead.
constexpr const char* kRunSettings[] = {"--kernel", "--rule", "--witness-tol", "--timeout", "--thread-budget",
                                        "--preset", "--backend", "--mutants", "--full-matrix", "--no-schemata"};

}  // namespace

reports::RunDir read_from_run(const std::filesystem::path& dir, const std::vector<std::string>& args, AuditArgs& a) {
  for (const char* flag : kRunSettings)
    if (std::find(args.begin(), args.end(), flag) != args.end())
      throw std::invalid_argument(std::string("--from takes ") + flag + " from the run; leave it out");
  reports::RunDir run = reports::read_run_dir(dir);
  const std::string summary = (run.dir / "summary.json").string();
  if (run.sources.empty())
    throw std::invalid_argument(run.dir.string() + ": no sources.json (written by an older kaudit); run the audit again");
  audit::AuditOptions& o = a.options;
  o.witness = reports::witness_comparator(run);
  const nlohmann::json& limits = run.summary.value("run_limits", nlohmann::json::object());
  a.cuda = run.summary.value("backend", "cpu").rfind("cuda", 0) == 0;
  o.cuda = a.cuda;
  o.timeout_seconds = limits.value(a.cuda ? "wall_seconds" : "cpu_seconds", o.timeout_seconds);
  a.timeout_given = true;
  o.thread_budget = limits.value("thread_budget", o.thread_budget);
  if (run.summary.contains("preset")) {
    a.preset = run.summary["preset"].get<std::string>();
  } else {  // a run from before summary.json named it: the specs' presets say it, if they agree
    for (const auto& spec : run.summary.at("oracles"))
      if (spec.value("shape_preset", "small") != "small")
        throw std::invalid_argument(summary + " does not name the run's preset (an older kaudit); run the audit again");
  }
  std::set<std::string> kernels, rules;
  for (const auto& k : run.kill_matrix) kernels.insert(k.kernel);
  for (const auto& m : run.mutants) rules.insert(m.mutant.site.rule);
  o.only.assign(kernels.begin(), kernels.end());
  o.sites.rules.assign(rules.begin(), rules.end());
  return run;
}

std::string run_mismatch(const reports::RunDir& run, const corpus::Corpus& corpus, const audit::AuditOptions& o) {
  std::map<std::string, std::string> file_of;
  for (const auto& k : run.kill_matrix) file_of.emplace(k.kernel, k.file);
  for (const auto& [id, file] : file_of) {
    const corpus::Kernel* k = corpus.find_kernel(id);
    const auto source = run.sources.find(file);
    if (!k || source == run.sources.end() || source->second != k->source)
      return "kernel " + id + (k ? " has another text" : " is missing") +
             " in this corpus than in the run; give the corpus it was audited on (--corpus)";
  }
  for (const auto& p : run.pools) {
    const corpus::Task* task = corpus.find_task(p.at("task").get<std::string>());
    if (!task) return "task " + p.at("task").get<std::string>() + " is missing in this corpus";
    std::set<std::string> in_run;
    for (const auto& in : p.at("inputs")) in_run.insert(audit::recipe_key(in.at("recipe").get<oracle::Recipe>()));
    for (const auto& spec : o.oracles)
      for (const auto& t : oracle::trials_for(spec, task->name))
        if (!in_run.count(audit::recipe_key(t)))
          return spec.name + "'s trial " + t.name + " of task " + task->name +
                 " is not in the run's pool (its witnesses would change): run `kaudit audit` with every oracle, "
                 "or use a suite made from this run's pool";
  }
  return "";
}

}  // namespace kaudit::cli
