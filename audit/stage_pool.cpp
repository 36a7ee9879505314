// Stage 2 of the audit: the pool made concrete (see stages.h).
#include <ATen/Functions.h>

#include <cstdio>
#include <set>
#include <stdexcept>

#include "audit/audit_cache.h"
#include "audit/stages.h"
#include "common/cache.h"
#include "oracle/judge.h"
#include "oracle/recipes.h"

namespace kaudit::audit {
namespace fs = std::filesystem;

const std::vector<at::Tensor>& oracle_reference(const oracle::OracleSpec& o, const Prepared& p) {
  return o.reference == oracle::ReferencePrecision::Fp64 ? p.ref64 : p.ref32;
}

oracle::TrialJudge external_judge(const oracle::OracleSpec& spec, const TaskRun& tr, std::size_t oracle,
                                  const std::vector<std::pair<std::size_t, std::string>>& trials) {
  if (!spec.external) return {};
  return [&tr, oracle, &trials, &spec](std::size_t t, const oracle::HarnessTrialResult& run) {
    const oracle::RunFacts about = oracle::run_facts(run);
    return oracle::judge_outputs(spec, judge_facts(tr, oracle, trials.at(t).first, &about), run.outputs);
  };
}

oracle::JudgeFacts judge_facts(const TaskRun& tr, std::size_t oracle, std::size_t p, const oracle::RunFacts* run) {
  oracle::JudgeFacts f;
  f.task = &tr.task;
  f.run = run;
  const auto& trials = tr.oracle_trials.at(oracle);
  for (std::size_t i = 0; i < trials.size(); ++i)
    if (trials[i].first == p) {
      f.trial = trials[i].second;
      f.trial_index = i;
      break;
    }
  const Prepared& pr = tr.prepared.at(p);
  f.dims = &pr.dims;
  f.inputs = &pr.inputs;
  f.ref32 = &pr.ref32;
  f.ref64 = &pr.ref64;
  return f;
}

oracle::PreparedTrial harness_trial(const Prepared& p, bool fp64, const std::vector<at::Tensor>& judge) {
  // Replaying nothing would pass for a forward that left no blocks: a wrong verdict, not an error.
  if (fp64 && !p.traced64) throw std::logic_error("kaudit: a float64 trial without its recorded forward (audit/audit.cpp)");
  return {&p.inputs, &p.dims, &p.reference, fp64 ? &p.trace64 : &p.trace32, fp64 ? &p.ref64 : &p.ref32, &judge};
}

runtime::RunResult run_one(runtime::IsolatedRunner& runner, const corpus::Task& task, const corpus::Kernel& kernel,
                           const fs::path& library, int active_mutant, const Prepared& p) {
  runtime::RunRequest req;
  req.library = library;
  req.options.active_mutant = active_mutant;
  try {
    req.args = oracle::bind_entry_args(task, kernel, p.inputs, p.dims, p.reference);
  } catch (const std::exception& e) {
    runtime::RunResult r;
    r.status = runtime::Status::Exception;
    r.message = e.what();
    return r;
  }
  return runner.run(req);
}

std::optional<runtime::RunResult> run_second_call(runtime::IsolatedRunner& runner, const corpus::Task& task,
                                                  const corpus::Kernel& kernel, const fs::path& library, int active_mutant,
                                                  const Prepared& first, const Prepared& p) {
  runtime::RunRequest req;
  req.library = library;
  req.options.active_mutant = active_mutant;
  std::vector<runtime::EntryArg> before;
  try {
    req.args = oracle::bind_entry_args(task, kernel, p.inputs, p.dims, p.reference);
    before = oracle::bind_entry_args(task, kernel, first.inputs, first.dims, first.reference);
  } catch (const std::exception&) {
    return std::nullopt;  // run_one says why, on the plain runs
  }
  if (before.size() != req.args.size()) return std::nullopt;
  for (std::size_t i = 0; i < before.size(); ++i) {
    const runtime::EntryArg &a = before[i], &b = req.args[i];
    if (a.kind != b.kind) return std::nullopt;
    if (a.kind != runtime::EntryArg::Kind::Tensor) {
      if (a.i != b.i || a.d != b.d) return std::nullopt;
      continue;
    }
    if (!a.tensor.sizes().equals(b.tensor.sizes()) || a.tensor.scalar_type() != b.tensor.scalar_type()) return std::nullopt;
    req.first_call.push_back(a.tensor);
  }
  return runner.run(req);
}

TaskRun::TaskRun(const AuditRun& run, const corpus::Task& task, std::vector<const corpus::Kernel*> members)
    : task(task),
      members(std::move(members)),
      result{task.name, {}, {}},
      memory(run.options.pool_memory_bytes.value_or(default_pool_memory_bytes()),
             cache::prepare_dir(run.options.cache_dir, "spill")) {}

void TaskRun::note_infra(AuditRun& run, const runtime::RunResult& r, const std::string& what) {
  if (infrastructure_failure(r)) note_infra(run, what + ": " + r.message);
}

void TaskRun::note_infra(AuditRun& run, const std::string& failure) {
  std::lock_guard lock(run.mu);
  infra_failures.push_back(failure);
}

namespace {

// The reference outputs as views of the trace's copy of the same bytes where they are the same
// bytes (the recorded forward is a second run of the one that made `ref`), else kept on their own:
// one copy of each output instead of two (at native shapes an output is hundreds of MB).
void share_with_trace(std::vector<at::Tensor>& ref, const oracle::ReferenceTrace& trace, PoolMemory& memory) {
  for (at::Tensor& r : ref) {
    bool shared = false;
    if (r.is_contiguous() && r.nbytes() > 0)
      for (const auto& live : trace.live) {
        const at::Tensor& c = trace.contents.at(static_cast<std::size_t>(live.second));
        if (static_cast<std::size_t>(c.numel()) != r.nbytes() || !at::equal(r.reshape(-1).view(at::kByte), c)) continue;
        r = c.view(r.scalar_type()).view(r.sizes());
        shared = true;
        break;
      }
    if (!shared) r = memory.keep(r);
  }
}

}  // namespace

// Each missing reference is exported by a Python process of its own (about 2 s, mostly
// `import torch`, on one core): the exports of every task run here, `jobs` at a time, instead
// of one after another in the task loop. A failure is not kept: the task loop's load reports it.
void export_references(AuditRun& run, const corpus::Corpus& corpus, const std::vector<const corpus::Kernel*>& kernels) {
  const AuditOptions& options = run.options;
  std::vector<std::pair<const corpus::Task*, corpus::Assignment>> wanted;
  std::set<std::string> keys;
  for (const auto& task : corpus.tasks) {
    if (std::none_of(kernels.begin(), kernels.end(), [&](const auto* k) { return k->task == task.name; })) continue;
    for (const auto& in : candidate_pool(task, options.pool_specs, options.oracles, options.preset)) {
      if (!in.usable) continue;
      try {
        auto dims = oracle::dims_for(task, in.recipe);
        if (keys.insert(run.references.cache_key(task, corpus::init_values(task, dims))).second)
          wanted.emplace_back(&task, std::move(dims));
      } catch (const std::exception&) {
      }
    }
  }
  work_queue(wanted.size(), jobs_of(options), [&](const auto& next) {
    for (std::size_t i = 0; next(i);) {
      try {
        run.references.load(*wanted[i].first, wanted[i].second);
      } catch (const std::exception&) {
      }
    }
  });
  run.lap("pool (inputs, float64/float32 references)");
}

void prepare_pool(AuditRun& run, TaskRun& tr) {
  const AuditOptions& options = run.options;
  const corpus::Task& task = tr.task;
  // The pool specs come first, so scoring fewer or other oracles leaves the pool (and every
  // witness) of the default audit unchanged.
  tr.pool = candidate_pool(task, options.pool_specs, options.oracles, options.preset);
  auto& pool = tr.pool;
  tr.oracle_trials.assign(options.oracles.size(), {});
  {
    std::map<std::string, std::size_t> index;
    for (std::size_t p = 0; p < pool.size(); ++p) index.emplace(pool[p].key, p);
    for (std::size_t o = 0; o < options.oracles.size(); ++o)
      for (const auto& t : oracle::trials_for(options.oracles[o], task.name)) {
        const std::size_t p = index.at(recipe_key(t));
        auto& list = tr.oracle_trials[o];
        if (std::none_of(list.begin(), list.end(), [&](const auto& e) { return e.first == p; }))
          list.emplace_back(p, t.name);
      }
  }
  tr.is_trial.assign(options.oracles.size(), std::vector<bool>(pool.size(), false));
  for (std::size_t o = 0; o < options.oracles.size(); ++o)
    for (const auto& [p, trial] : tr.oracle_trials[o]) tr.is_trial[o][p] = true;
  // The float64 forward's recorded allocations are replayed only in the trials of an oracle
  // with a float64 reference (ci-fuzz's three): elsewhere they would be the largest part of the
  // pool (at native shapes every float64 intermediate is twice its input) and never read.
  std::vector<bool> replays_fp64(pool.size(), false);
  for (std::size_t o = 0; o < options.oracles.size(); ++o)
    if (options.oracles[o].reference == oracle::ReferencePrecision::Fp64)
      for (const auto& [p, trial] : tr.oracle_trials[o]) replays_fp64[p] = true;
  tr.prepared.assign(pool.size(), {});
  // Where the pool's time goes (said below): at native shapes it is minutes of host work.
  struct {
    double inputs = 0, model = 0, references = 0, recorded = 0, keeping = 0;
  } pool_seconds;
  auto pool_clock = std::chrono::steady_clock::now();
  const auto pool_lap = [&](double& part) {
    const auto now = std::chrono::steady_clock::now();
    part += std::chrono::duration<double>(now - pool_clock).count();
    pool_clock = now;
  };
  std::set<std::string> reference_keys;  // in the task's context: verdicts depend on the Model
  std::vector<std::string> fell_back;  // "input P float32": reference forwards that ran on the host instead
  for (std::size_t p = 0; p < pool.size(); ++p) {
    if (!pool[p].usable) continue;
    try {
      Prepared& pr = tr.prepared[p];
      pool_clock = std::chrono::steady_clock::now();
      pr.dims = oracle::dims_for(task, pool[p].recipe);
      pr.inputs = oracle::make_inputs(task, pool[p].recipe, pr.dims);
      pool_lap(pool_seconds.inputs);
      reference_keys.insert(run.references.cache_key(task, corpus::init_values(task, pr.dims)));
      pr.reference = run.references.load(task, pr.dims);
      pool_lap(pool_seconds.model);
      // A forward placed on the GPU that ran on the host gives another answer than the placement
      // promises (no TF32 convolutions): which one is in the task's context.
      for (auto [ref, precision, name] : {std::tuple{&pr.ref64, at::kDouble, "float64"}, std::tuple{&pr.ref32, at::kFloat, "float32"}}) {
        const int fallbacks = run.references.host_fallbacks();
        *ref = pr.reference.forward(pr.inputs, precision);
        if (run.references.host_fallbacks() != fallbacks)
          fell_back.push_back("input " + std::to_string(p) + " " + name);
      }
      pool_lap(pool_seconds.references);
      // A second forward of each, recorded: the first may allocate what only a first run does.
      // Recorded on the host; where a reference came from the GPU, its blocks hold the GPU's answer.
      if (replays_fp64[p]) {
        (void)oracle::trace_reference_forward(pr.reference, pr.inputs, at::kDouble, pr.trace64);
        if (!pr.reference.device(at::kDouble).is_cpu()) oracle::adopt_outputs(pr.trace64, pr.ref64);
        pr.traced64 = true;
      }
      (void)oracle::trace_reference_forward(pr.reference, pr.inputs, at::kFloat, pr.trace32);
      if (!pr.reference.device(at::kFloat).is_cpu()) oracle::adopt_outputs(pr.trace32, pr.ref32);
      pool_lap(pool_seconds.recorded);
      for (auto* list : {&pr.inputs, &pr.trace64.contents, &pr.trace32.contents})
        for (at::Tensor& t : *list) t = tr.memory.keep(t);
      share_with_trace(pr.ref64, pr.trace64, tr.memory);
      share_with_trace(pr.ref32, pr.trace32, tr.memory);
      pool_lap(pool_seconds.keeping);
    } catch (const SpillError& e) {
      // Not the input's fault (a full disk): leaving it out of the pool would change the
      // witnesses. The audit stops; what it finished is cached.
      throw SpillError(task.name + ": " + e.what());
    } catch (const std::exception& e) {
      pool[p].usable = false;
      pool[p].note = std::string("reference or inputs failed: ") + e.what();
    }
  }
  if (tr.memory.spilled_bytes() > 0) {
    char line[200];
    std::snprintf(line, sizeof line, "pool: %s: %.2f GB of inputs and references in memory, %.2f GB in files (--pool-memory-gb)",
                  task.name.c_str(), double(tr.memory.in_memory_bytes()) / double(1ull << 30),
                  double(tr.memory.spilled_bytes()) / double(1ull << 30));
    run.say(line);
  }
  char line[300];
  std::snprintf(line, sizeof line,
                "pool: %s: %zu inputs: %.0f s making inputs, %.0f s loading the model, %.0f s float64 and float32 "
                "references, %.0f s recorded forwards, %.0f s keeping them (memory or files)",
                task.name.c_str(), pool.size(), pool_seconds.inputs, pool_seconds.model, pool_seconds.references,
                pool_seconds.recorded, pool_seconds.keeping);
  run.say(line);
  // A reference placed on the GPU that ran on the host (reference.h): said, and the task's results
  // are cached apart.
  if (!fell_back.empty()) {
    for (const auto& f : fell_back) reference_keys.insert("ran on the host: " + f);
    const std::string line = task.name + ": " + std::to_string(fell_back.size()) +
                             " reference forward(s) placed on the GPU ran on the host (stderr says why)";
    run.say("pool: " + line);
    std::lock_guard lock(run.mu);
    run.out.problems.push_back(line);
  }
  tr.context = context_digest(pool, reference_keys, options, run.backend);
}

}  // namespace kaudit::audit
