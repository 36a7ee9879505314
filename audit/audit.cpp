// The audit engine: run_audit runs the stages of audit/stages.h in order (audit.h lists them).
#include "audit/audit.h"

#include <algorithm>
#include <chrono>
#include <set>

#include "audit/audit_cache.h"
#include "audit/stages.h"
#include "common/cache.h"
#include "common/progress.h"
#include "oracle/gate.h"
#include "oracle/judge.h"

namespace kaudit::audit {
namespace fs = std::filesystem;
using nlohmann::json;

const char* outcome_name(Outcome o) {
  switch (o) {
    case Outcome::Pass: return "pass";
    case Outcome::WrongOutput: return "wrong-output";
    case Outcome::Crash: return "crash";
    case Outcome::Timeout: return "timeout";
    case Outcome::BarrierDivergence: return "barrier-divergence";
    case Outcome::LaunchError: return "launch-error";
    case Outcome::OutOfBounds: return "out-of-bounds";
    case Outcome::Exception: return "exception";
    case Outcome::NotRun: return "not-run";
    case Outcome::ThreadBudget: return "thread-budget";
  }
  return "?";
}

std::optional<Outcome> outcome_from_name(std::string_view name) {
  for (int o = 0; o <= static_cast<int>(Outcome::ThreadBudget); ++o)
    if (name == outcome_name(static_cast<Outcome>(o))) return static_cast<Outcome>(o);
  return std::nullopt;
}

std::string recipe_key(const oracle::Recipe& r) {
  json j = r;
  j.erase("name");
  return j.dump();
}

AuditRun::AuditRun(const AuditOptions& options)
    : options(options),
      backend(options.cache_dir, options.cuda),
      cache(cache::prepare_dir(options.cache_dir, "audit")),
      references(options.cache_dir, oracle::default_export_script()),
      runners(options, backend) {
  out.backend = backend.name();
  references.set_placement(oracle::reference_placement(backend.cuda()));
  for (const auto& o : options.oracles) oracle_names.push_back(o.name);
}

void AuditRun::say(const std::string& line) const {
  if (options.progress) options.progress(line);
}

void AuditRun::lap(const char* stage) {
  const auto now = std::chrono::steady_clock::now();
  out.stage_seconds[stage] += std::chrono::duration<double>(now - last_lap_).count();
  last_lap_ = now;
}

void AuditRun::count_runs(std::size_t n) {
  std::lock_guard lock(mu);
  out.runs += n;
}

std::vector<const corpus::Kernel*> mutate(AuditRun& run, const corpus::Corpus& corpus) {
  const AuditOptions& options = run.options;
  AuditResult& out = run.out;
  std::vector<const corpus::Kernel*> kernels;
  std::vector<mutators::KernelSourceInfo> sources;
  for (const auto& k : corpus.kernels) {
    if (!options.only.empty() && std::find(options.only.begin(), options.only.end(), k.id()) == options.only.end())
      continue;
    if (options.mutant_set && !options.mutant_set->neutral.count(k.id())) {
      out.problems.push_back(k.id() + ": not in the mutant set, not audited (make the set with `kaudit mutate --out DIR` on this corpus)");
      continue;
    }
    kernels.push_back(&k);
    sources.push_back({k.id(), k.file, k.source});
  }
  run.say("mutate: " + std::to_string(kernels.size()) + " kernels");
  if (options.mutant_set) {
    // The set's mutants of the audited kernels (and rules, when some are named), in its order.
    std::set<std::string> audited;
    for (const auto* k : kernels) audited.insert(k->id());
    const auto& rules = options.sites.rules;
    out.pipeline.kernels = kernels.size();
    out.pipeline.nvrtc_version = options.mutant_set->pipeline.nvrtc_version;
    for (const auto& r : options.mutant_set->pipeline.mutants)
      if (audited.count(r.mutant.kernel) &&
          (rules.empty() || std::find(rules.begin(), rules.end(), r.mutant.site.rule) != rules.end()))
        out.pipeline.mutants.push_back(r);
  } else {
    const mutators::NvrtcCompiler nvrtc(options.cache_dir);
    mutators::PipelineOptions popts;
    popts.sites = options.sites;
    // The mutate stage's lines (cold, NVRTC compiles take minutes): a line every 20 s with an
    // estimate of the time left, and one at the end of each stage.
    StageProgress meter([&](const std::string& text, bool) { run.say(text); }, false, 20);
    popts.progress = [&](std::string_view stage, std::size_t done, std::size_t total) { meter.update(stage, done, total); };
    out.pipeline = mutators::run_mutation_pipeline(sources, nvrtc, popts);
  }
  run.lap("mutate (generate, NVRTC, dedup)");
  return kernels;
}

AuditResult run_audit(const corpus::Corpus& corpus, const AuditOptions& options) {
  // The audit generates its mutants unless given a set: without the Clang rule engine, stop
  // before any work.
  if (!options.mutant_set && !mutators::clang_available()) throw mutators::ClangUnavailable();
  AuditRun run(options);

  const std::vector<const corpus::Kernel*> kernels = mutate(run, corpus);
  MutantsByKernel by_kernel;
  for (const auto& r : run.out.pipeline.mutants)
    if (r.status == mutators::ImageClass::Distinct || r.status == mutators::ImageClass::Unknown)
      by_kernel[r.mutant.kernel].push_back(&r);
  export_references(run, corpus, kernels);

  for (const auto& task : corpus.tasks) {
    std::vector<const corpus::Kernel*> members;
    for (const auto* k : kernels)
      if (k->task == task.name) members.push_back(k);
    if (members.empty()) continue;
    TaskRun tr(run, task, std::move(members));
    prepare_pool(run, tr);
    run.lap("pool (inputs, float64/float32 references)");
    decide_legality(run, tr);
    run.lap("legality (neutral variants, member builds and runs)");
    false_kills(run, tr);
    run.lap("false kills");
    audit_mutants(run, tr, by_kernel);  // laps its builds and its runs
    for (auto& f : tr.infra_failures) run.out.problems.push_back("no result (not cached, re-run): " + f);
    run.out.pools.push_back(std::move(tr.result));
  }

  AuditResult& out = run.out;
  std::vector<ScoredMutant> scored;
  for (const auto& a : out.mutants)
    if (a.ran) scored.push_back(a.scored);
  out.scores = score_oracles(scored, run.oracle_names, out.false_kills, out.strict_false_kills);
  for (const auto& f : out.pipeline.parse_failures) out.problems.push_back(f.kernel + ": does not parse");
  for (const auto& f : out.pipeline.compile_failures) out.problems.push_back(f.kernel + ": NVRTC rejects the original");
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - run.start).count();
  const RunnerPool::Times total = run.runners.times();
  out.worker_starts = total.exchanges.starts;
  out.worker_start_seconds = total.exchanges.start;
  out.runner_seconds = time_parts(total);
  return std::move(out);
}

std::vector<PoolInput> candidate_pool(const corpus::Task& task, const std::vector<oracle::OracleSpec>& pool_specs,
                                      const std::vector<oracle::OracleSpec>& scored, const std::string& preset) {
  std::vector<PoolInput> pool;
  std::map<std::string, std::size_t> index;
  const auto add = [&](const oracle::Recipe& r, const std::string& user) {
    const std::string key = recipe_key(r);
    auto it = index.find(key);
    if (it == index.end()) {
      PoolInput in;
      in.recipe = r;
      in.key = key;
      it = index.emplace(key, pool.size()).first;
      pool.push_back(std::move(in));
    }
    auto& users = pool[it->second].used_by;
    if (std::find(users.begin(), users.end(), user) == users.end()) users.push_back(user);
  };
  for (const auto& spec : pool_specs)
    for (const auto& t : oracle::trials_for(spec, task.name)) add(t, spec.name + "/" + t.name);
  for (const auto& r : oracle::gate_recipes(task, preset)) add(r, "gate/" + r.name);
  for (const auto& r : oracle::pattern_recipes(preset)) add(r, "pattern/" + r.name);
  for (const auto& spec : scored)
    for (const auto& t : oracle::trials_for(spec, task.name)) add(t, spec.name + "/" + t.name);
  for (auto& in : pool) {
    try {
      const auto dims = oracle::dims_for(task, in.recipe);
      for (const auto& input : task.inputs) {
        std::int64_t n = 1;
        for (auto d : corpus::shape_of(input, dims)) n *= d;
        in.elements += n;
      }
    } catch (const std::exception& e) {
      in.usable = false;
      in.note = e.what();
    }
  }
  std::stable_sort(pool.begin(), pool.end(),
                   [](const PoolInput& a, const PoolInput& b) { return a.elements < b.elements; });
  return pool;
}

}  // namespace kaudit::audit
