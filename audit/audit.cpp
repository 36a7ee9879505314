// The audit engine (see audit.h for the stages).
#include "audit/audit.h"

#include "common/progress.h"

#include <ATen/Functions.h>
#include <ATen/Parallel.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <sstream>
#include <stdexcept>
#include <thread>

#include <unistd.h>

#include "audit/backend.h"
#include "audit/spill.h"
#include "common/cache.h"
#include "common/sha256.h"
#include "oracle/gate.h"
#include "oracle/harness.h"
#include "oracle/judge.h"
#include "oracle/reference.h"
#include "runtime/cpu/compile.h"
#include "runtime/cpu/schema.h"
#include "runtime/worker.h"

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

namespace {

// Bump when the meaning of cached audit results changes.
// v7: schemata put a replacement on one line without its comments (under v6 a `//` in a
// multi-line replacement could break every mutant of its schema).
// v8: memory-check tensors come from an arena: an access far past a tensor is out-of-bounds
// (under v7 it could be a crash, or a read of other memory).
// v9: the thread budget (outcome thread-budget), and guard pages around static shared memory (an
// access far past it is out-of-bounds; under v8 it could be a crash or a wrong output).
// v10: oracle mode (verdicts and false kills from a model of the checker's harness on a GPU,
// oracle witnesses), kill causes; TUs with shared memory run on fibers with step points.
constexpr const char* kCacheVersion = "kaudit-audit-v10";
// The oracle-mode model's own version, in the keys of what oracle mode computes (verdicts, false
// kills, oracle witnesses) only: a change of the model re-runs those, not the witness search.
// om1: the first model (docs/ORACLES.md, Oracle mode).
// om2: step points only after statements that reach shared memory.
// om3: step points before and after statements that may write shared memory, none at reads.
constexpr const char* kOracleModelVersion = "om8";

Outcome outcome_of(const runtime::RunResult& r) {
  if (r.over_thread_budget) return Outcome::ThreadBudget;
  switch (r.status) {
    case runtime::Status::Ok: return Outcome::Pass;
    case runtime::Status::Crash: return Outcome::Crash;
    case runtime::Status::Timeout: return Outcome::Timeout;
    case runtime::Status::BarrierDivergence: return Outcome::BarrierDivergence;
    case runtime::Status::LaunchError: return Outcome::LaunchError;
    case runtime::Status::OutOfBounds: return Outcome::OutOfBounds;
    case runtime::Status::Exception: return Outcome::Exception;
    // A run the sandbox stopped (a denied system call, named in the run's message), or one that
    // broke the worker protocol: hostile code. The kill matrix counts it as a crash (a kill in
    // every checker that looks at the run's status, as a real harness sees a process die).
    case runtime::Status::SandboxViolation: return Outcome::Crash;
  }
  return Outcome::Crash;
}

std::string recipe_key(const oracle::Recipe& r) {
  json j = r;
  j.erase("name");
  return j.dump();
}

// A pool input made concrete: its tensors, both references, and what each reference forward
// allocated (oracle mode replays it on the modelled device).
struct Prepared {
  corpus::Assignment dims;
  std::vector<at::Tensor> inputs;
  oracle::Reference reference;
  std::vector<at::Tensor> ref64, ref32;
  oracle::ReferenceTrace trace64, trace32;
  bool traced64 = false;  // trace64 is recorded only where a float64 oracle replays it
};

const std::vector<at::Tensor>& oracle_reference(const oracle::OracleSpec& o, const Prepared& p) {
  return o.reference == oracle::ReferencePrecision::Fp64 ? p.ref64 : p.ref32;
}

// One trial of an oracle-mode harness run on pool input `p`: the harness holds the spec's
// reference (its device footprint is that forward's) and the verdict compares against `judge`.
oracle::PreparedTrial harness_trial(const Prepared& p, bool fp64, const std::vector<at::Tensor>& judge) {
  // Replaying nothing would pass for a forward that left no blocks: a wrong verdict, not an error.
  if (fp64 && !p.traced64) throw std::logic_error("kaudit: a float64 trial without its recorded forward (audit/audit.cpp)");
  return {&p.inputs, &p.dims, &p.reference, fp64 ? &p.trace64 : &p.trace32, fp64 ? &p.ref64 : &p.ref32, &judge};
}

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

// Runs per_thread() once on each of min(jobs, n) threads; each call gets items i in [0, n) from
// one shared counter through the `next` function it is handed.
template <typename PerThread>
void work_queue(std::size_t n, unsigned jobs, PerThread per_thread) {
  jobs = static_cast<unsigned>(std::min<std::size_t>(std::max(1u, jobs), std::max<std::size_t>(n, 1)));
  std::atomic<std::size_t> counter{0};
  const auto next = [&](std::size_t& i) { return (i = counter++) < n; };
  std::vector<std::thread> threads;
  for (unsigned j = 0; j < jobs; ++j) threads.emplace_back([&] { per_thread(next); });
  for (auto& t : threads) t.join();
}

unsigned jobs_of(const AuditOptions& options) {
  return options.jobs ? options.jobs : std::max(1u, std::thread::hardware_concurrency());
}

// Isolated workers kept for the whole audit, one per job: starting one loads libtorch (about a
// second), and an audit runs hundreds of batches (legality per task, rows per kernel). Runs
// have a CPU-time budget enforced in the worker, so a verdict does not depend on how busy the
// machine is, and a run over budget costs a fork, not a new worker.
class RunnerPool {
 public:
  RunnerPool(const AuditOptions& options, const Backend& backend) {
    runtime::WorkerLimits limits = backend.worker_limits(options, jobs_of(options));
    limits.payload_budget = budget_ = std::make_shared<runtime::PayloadBudget>(
        options.run_memory_bytes.value_or(runtime::default_payload_budget_bytes()));
    for (unsigned j = 0; j < jobs_of(options); ++j)
      runners_.push_back(std::make_unique<runtime::IsolatedRunner>(options.worker_exe, limits));
    busy_.assign(runners_.size(), 0.0);
    // CUDA: this process compares each run's outputs on the threads below, as many at once as
    // there are workers; each thread's ATen work gets its share of the cores, as each worker does
    // (runtime/worker.cpp, serve_gpu_context). The CPU backend's threads keep ATen's default, as
    // its measured tables had.
    if (backend.cuda()) aten_threads_ = limits.threads;
  }
  // Runs fn(runner, i) for i in [0, n), each thread with a worker of its own.
  template <typename Fn>
  void parallel_runs(std::size_t n, Fn fn) {
    std::atomic<std::size_t> slot{0};
    work_queue(n, static_cast<unsigned>(runners_.size()), [&](const auto& next) {
      if (aten_threads_ > 0) ::at::set_num_threads(aten_threads_);  // this thread's, under OpenMP
      const std::size_t s = slot++;
      runtime::IsolatedRunner& runner = *runners_[s];
      for (std::size_t i = 0; next(i);) {
        const auto from = std::chrono::steady_clock::now();
        fn(runner, i);
        busy_[s] += std::chrono::duration<double>(std::chrono::steady_clock::now() - from).count();
      }
    });
  }
  // The budget of bytes in flight the workers share.
  const runtime::PayloadBudget& budget() const { return *budget_; }
  // Where the runners' time went so far (read between parallel_runs calls).
  struct Times {
    runtime::ExchangeTimes exchanges;
    double busy = 0;  // inside the callers' work items, exchanges included
    Times operator-(const Times& o) const { return {exchanges - o.exchanges, busy - o.busy}; }
  };
  Times times() const {
    Times t;
    for (std::size_t s = 0; s < runners_.size(); ++s) {
      t.exchanges += runners_[s]->times();
      t.busy += busy_[s];
    }
    return t;
  }

 private:
  std::vector<std::unique_ptr<runtime::IsolatedRunner>> runners_;
  std::vector<double> busy_;  // per runner slot: each is written by one thread at a time
  std::shared_ptr<runtime::PayloadBudget> budget_;
  int aten_threads_ = 0;
};

// The parts of the runners' busy time (RunnerPool::Times), named as summary.json names them
// (AuditResult::runner_seconds).
std::map<std::string, double> time_parts(const RunnerPool::Times& t) {
  const runtime::ExchangeTimes& e = t.exchanges;
  return {{"busy", t.busy},
          {"waiting_for_workers", e.start},
          {"waiting_for_memory", e.budget_wait},
          {"sending", e.send},
          {"in_workers", e.served},
          {"device_copies", e.device_copies},
          {"replies_back", std::max(0.0, e.reply - e.served)},
          {"host", std::max(0.0, t.busy - e.start - e.budget_wait - e.send - e.reply)}};
}

// One line saying where a stage's runner time went: what to speed up at native shapes.
std::string time_split(const std::string& what, const RunnerPool::Times& t) {
  auto p = time_parts(t);
  char copies[80] = "";
  if (p["device_copies"] > 0)
    std::snprintf(copies, sizeof copies, " (%.0f of it copying to and from the GPU)", p["device_copies"]);
  char line[512];
  std::snprintf(line, sizeof line,
                "%s: runners busy %.0f s = %.0f waiting for workers + %.0f for memory + %.0f sending requests + %.0f in "
                "the workers%s + %.0f replies coming back + %.0f on the host",
                what.c_str(), p["busy"], p["waiting_for_workers"], p["waiting_for_memory"], p["sending"], p["in_workers"],
                copies, p["replies_back"], p["host"]);
  std::string said = line;
  if (t.exchanges.bytes_shared > 0) {  // pool tensors handed over as files (runtime/shared_tensor.h)
    char bytes[160];
    std::snprintf(bytes, sizeof bytes, "; requests: %.2f GB written, %.2f GB handed over as files",
                  double(t.exchanges.bytes_sent) / 1e9, double(t.exchanges.bytes_shared) / 1e9);
    said += bytes;
  }
  return said;
}

// A run that says nothing about the kernel: no worker could be started, or the worker failed on
// its own twice (the machine or kaudit, not the kernel: RunResult::worker_failure). Results
// holding one are reported and never cached.
bool infrastructure_failure(const runtime::RunResult& r) { return r.worker_failure; }
// Thrown while a mutant is evaluated when one of its runs was an infrastructure failure.
struct NoResult {};

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

// JSON cache files under <cache>/audit/, records checked against their digest (common/cache.h).
std::optional<json> cache_read(const fs::path& dir, const std::string& key) {
  const auto body = cache::read_record(dir / (key + ".json"));
  if (!body) return std::nullopt;
  json j = json::parse(*body, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) return std::nullopt;  // a foreign file: recompute
  return j;
}
// A digest only says a record is the one written; one written by another kaudit, or by hand, can
// still have another shape. Decoding such a record must not abort the audit: `decode` fills its
// results from `j` and may throw (a missing key, a wrong type); then nothing of it is used, the
// record is reported once and the caller recomputes (issue 21: a `{}` legality record aborted).
template <class Decode>
bool decode_cached(const fs::path& dir, const std::string& key, const json& j, Decode&& decode) {
  try {
    decode(j);
    return true;
  } catch (const std::exception& e) {
    cache::report_damaged(dir / (key + ".json"), std::string("unexpected shape (") + e.what() + "); recomputed");
    return false;
  }
}
// The false kills cached under `key`, into `fks`; false (and `fks` empty) when there are none to use.
bool cached_false_kills(const fs::path& dir, const std::string& key, const std::string& oracle, const std::string& task,
                        std::vector<FalseKill>& fks) {
  const auto cached = cache_read(dir, key);
  const bool used = cached && decode_cached(dir, key, *cached, [&](const json& c) {
    for (const auto& f : c.at("false_kills")) fks.push_back({oracle, f.at("member"), task, f.at("trial"), f.at("detail")});
  });
  if (!used) fks.clear();
  return used;
}
void cache_write(const fs::path& dir, const std::string& key, const json& j) {
  cache::write_record(dir / (key + ".json"), j.dump());  // a cache that cannot be written only costs time
}

// What every cached result depends on besides the kernel: the pool, the witness comparator, the
// limits and the CPU toolchain. Not the oracles: verdicts and false kills are cached per oracle.
std::string context_digest(const std::vector<PoolInput>& pool, const AuditOptions& o, const Backend& backend) {
  kaudit::Sha256 h;
  const auto field = [&](const std::string& s) { h.update(std::to_string(s.size()) + ":" + s + "\n"); };
  field(kCacheVersion);
  for (const auto& p : pool) field(p.key);
  field(json{{"kind", oracle::comparator_name(o.witness.kind)}, {"rtol", o.witness.rtol}, {"atol", o.witness.atol}}.dump());
  field(std::to_string(o.timeout_seconds));
  field(std::to_string(o.thread_budget));
  field(backend.identity());  // another backend, CPU prelude or compiler may change outcomes
  return h.hex_digest();
}

std::string cache_key(const std::string& context, const std::vector<std::string>& parts) {
  kaudit::Sha256 h;
  h.update(context);
  for (const auto& s : parts) h.update(std::to_string(s.size()) + ":" + s + "\n");
  return h.hex_digest();
}

// A kernel's mutants built for the CPU backend: library and switch value per mutant (an empty
// library: it could not be built, failure says why).
struct KernelBuild {
  std::vector<fs::path> library;
  std::vector<int> switch_value;
  std::vector<std::string> failure;
};

std::string does_not_build(const Backend& backend, const cpu::CpuBuild& built) {
  return std::string("does not build for the ") + (backend.cuda() ? "CUDA" : "CPU") + " backend: " +
         built.diagnostics.substr(0, 300);
}

KernelBuild build_mutants(const Backend& backend, const corpus::Kernel& kernel,
                          const std::vector<const mutators::MutantRecord*>& records, const AuditOptions& options) {
  KernelBuild b;
  b.library.resize(records.size());
  b.switch_value.assign(records.size(), 0);
  b.failure.resize(records.size());
  std::vector<cpu::SchemaEdit> edits;
  for (const auto* r : records) {
    auto e = mutators::switchable_edit(kernel.source, r->mutant.site);
    edits.push_back({e.begin, e.end, std::move(e.replacement)});
  }
  cpu::SchemaPlan plan;
  if (options.schemata) {
    plan = backend.schemata(kernel, edits);
  } else {
    for (std::size_t i = 0; i < edits.size(); ++i) plan.standalone.push_back(i);
  }
  for (const auto& s : plan.schemata)
    for (std::size_t j = 0; j < s.edits.size(); ++j) {
      b.library[s.edits[j]] = s.build.library;
      b.switch_value[s.edits[j]] = s.switch_value[j];
    }
  // Mutants a schema cannot hold get a build each, a few at a time.
  work_queue(plan.standalone.size(), jobs_of(options), [&](const auto& next) {
    for (std::size_t n = 0; next(n);) {
      const std::size_t i = plan.standalone[n];
      const auto built = backend.build(records[i]->mutant.source, kernel);
      if (built.ok) b.library[i] = built.library;
      else b.failure[i] = does_not_build(backend, built);
    }
  });
  return b;
}

// A kernel of a task's correct set: a corpus kernel or one of its neutral variants (the same
// entry and binding, another source).
struct Member {
  std::string id;
  const corpus::Kernel* kernel;
  std::string source;
  bool neutral = false;
};

// The neutral variants come from the mutant set when there is one (made where Clang is).
std::vector<Member> correct_set_of(const std::vector<const corpus::Kernel*>& kernels, const mutators::MutantSet* set,
                                   const std::function<void(const std::string&)>& say) {
  std::vector<Member> out;
  for (const auto* k : kernels) out.push_back({k->id(), k, k->source, false});
  for (const auto* k : kernels) {
    if (set) {
      if (auto e = set->neutral_error.find(k->id()); e != set->neutral_error.end())
        say(k->id() + ": no neutral variants (" + e->second.substr(0, 200) + ")");
      if (auto n = set->neutral.find(k->id()); n != set->neutral.end())
        for (const auto& v : n->second) out.push_back({v.id, k, v.source, true});
      continue;
    }
    try {
      for (auto& v : mutators::neutral_variants({k->id(), k->file, k->source}))
        out.push_back({v.id, k, std::move(v.source), true});
    } catch (const mutators::ParseError& e) {
      say(k->id() + ": no neutral variants (" + std::string(e.what()).substr(0, 200) + ")");
    }
  }
  return out;
}

// The inputs every neutral variant must pass to be admitted: benign values on the small preset.
bool is_sanity_input(const PoolInput& in) {
  return std::any_of(in.used_by.begin(), in.used_by.end(),
                     [](const std::string& u) { return u == "gate/gate-uniform01" || u == "gate/gate-normal"; });
}

}  // namespace

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

AuditResult run_audit(const corpus::Corpus& corpus, const AuditOptions& options) {
  // The audit generates its mutants unless given a set: without the Clang rule engine, stop
  // before any work.
  if (!options.mutant_set && !mutators::clang_available()) throw mutators::ClangUnavailable();
  const Backend backend(options.cache_dir, options.cuda);
  const auto start = std::chrono::steady_clock::now();
  const auto say = [&](const std::string& s) {
    if (options.progress) options.progress(s);
  };
  AuditResult out;
  out.backend = backend.name();
  std::mutex mu;  // guards `out` and counters while workers run

  // 1. Mutants.
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
  const mutators::NvrtcCompiler nvrtc(options.cache_dir);
  mutators::PipelineOptions popts;
  popts.sites = options.sites;
  // The mutate stage's lines (cold, NVRTC compiles take minutes): a line every 20 s with an
  // estimate of the time left, and one at the end of each stage.
  StageProgress meter([&](const std::string& text, bool) { say(text); }, false, 20);
  popts.progress = [&](std::string_view stage, std::size_t done, std::size_t total) { meter.update(stage, done, total); };
  say("mutate: " + std::to_string(kernels.size()) + " kernels");
  // Wall time per stage, summed over tasks: where a cold audit spends its time.
  auto last = std::chrono::steady_clock::now();
  const auto lap = [&](const char* stage) {
    const auto now = std::chrono::steady_clock::now();
    out.stage_seconds[stage] += std::chrono::duration<double>(now - last).count();
    last = now;
  };
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
    out.pipeline = mutators::run_mutation_pipeline(sources, nvrtc, popts);
  }
  lap("mutate (generate, NVRTC, dedup)");
  std::map<std::string, std::vector<const mutators::MutantRecord*>> by_kernel;
  for (const auto& r : out.pipeline.mutants)
    if (r.status == mutators::ImageClass::Distinct || r.status == mutators::ImageClass::Unknown)
      by_kernel[r.mutant.kernel].push_back(&r);

  oracle::ReferenceStore references(options.cache_dir, oracle::default_export_script());
  const fs::path audit_cache = cache::prepare_dir(options.cache_dir, "audit");
  RunnerPool runners(options, backend);  // workers start on their first run
  std::vector<std::string> oracle_names;
  for (const auto& o : options.oracles) oracle_names.push_back(o.name);

  // Each missing reference is exported by a Python process of its own (about 2 s, mostly
  // `import torch`, on one core): the exports of every task run here, `jobs` at a time, instead
  // of one after another in the task loop. A failure is not kept: the task loop's load reports it.
  {
    std::vector<std::pair<const corpus::Task*, corpus::Assignment>> wanted;
    std::set<std::string> keys;
    for (const auto& task : corpus.tasks) {
      if (std::none_of(kernels.begin(), kernels.end(), [&](const auto* k) { return k->task == task.name; })) continue;
      for (const auto& in : candidate_pool(task, options.pool_specs, options.oracles, options.preset)) {
        if (!in.usable) continue;
        try {
          auto dims = oracle::dims_for(task, in.recipe);
          if (keys.insert(references.cache_key(task, corpus::init_values(task, dims))).second)
            wanted.emplace_back(&task, std::move(dims));
        } catch (const std::exception&) {
        }
      }
    }
    work_queue(wanted.size(), jobs_of(options), [&](const auto& next) {
      for (std::size_t i = 0; next(i);) {
        try {
          references.load(*wanted[i].first, wanted[i].second);
        } catch (const std::exception&) {
        }
      }
    });
    lap("pool (inputs, float64/float32 references)");
  }

  for (const auto& task : corpus.tasks) {
    std::vector<const corpus::Kernel*> members;
    for (const auto* k : kernels)
      if (k->task == task.name) members.push_back(k);
    if (members.empty()) continue;

    // 2. Pool, made concrete. The pool specs come first, so scoring fewer or other oracles
    // leaves the pool (and every witness) of the default audit unchanged.
    TaskPool tp{task.name, candidate_pool(task, options.pool_specs, options.oracles, options.preset), {}};
    auto& pool = tp.inputs;
    // Per oracle: the pool inputs of its trials, in the spec's trial order, with the trial names.
    std::vector<std::vector<std::pair<std::size_t, std::string>>> oracle_trials(options.oracles.size());
    {
      std::map<std::string, std::size_t> index;
      for (std::size_t p = 0; p < pool.size(); ++p) index.emplace(pool[p].key, p);
      for (std::size_t o = 0; o < options.oracles.size(); ++o)
        for (const auto& t : oracle::trials_for(options.oracles[o], task.name)) {
          const std::size_t p = index.at(recipe_key(t));
          auto& list = oracle_trials[o];
          if (std::none_of(list.begin(), list.end(), [&](const auto& e) { return e.first == p; }))
            list.emplace_back(p, t.name);
        }
    }
    // The float64 forward's recorded allocations are replayed only in the trials of an oracle
    // with a float64 reference (ci-fuzz's three): elsewhere they would be the largest part of the
    // pool (at native shapes every float64 intermediate is twice its input) and never read.
    std::vector<bool> replays_fp64(pool.size(), false);
    for (std::size_t o = 0; o < options.oracles.size(); ++o)
      if (options.oracles[o].reference == oracle::ReferencePrecision::Fp64)
        for (const auto& [p, trial] : oracle_trials[o]) replays_fp64[p] = true;
    std::vector<Prepared> prepared(pool.size());
    PoolMemory memory(options.pool_memory_bytes.value_or(default_pool_memory_bytes()),
                      cache::prepare_dir(options.cache_dir, "spill"));
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
    for (std::size_t p = 0; p < pool.size(); ++p) {
      if (!pool[p].usable) continue;
      try {
        Prepared& pr = prepared[p];
        pool_clock = std::chrono::steady_clock::now();
        pr.dims = oracle::dims_for(task, pool[p].recipe);
        pr.inputs = oracle::make_inputs(task, pool[p].recipe, pr.dims);
        pool_lap(pool_seconds.inputs);
        pr.reference = references.load(task, pr.dims);
        pool_lap(pool_seconds.model);
        pr.ref64 = pr.reference.forward(pr.inputs, at::kDouble);
        pr.ref32 = pr.reference.forward(pr.inputs, at::kFloat);
        pool_lap(pool_seconds.references);
        // A second forward of each, recorded: the first may allocate what only a first run does.
        if (replays_fp64[p]) {
          (void)oracle::trace_reference_forward(pr.reference, pr.inputs, at::kDouble, pr.trace64);
          pr.traced64 = true;
        }
        (void)oracle::trace_reference_forward(pr.reference, pr.inputs, at::kFloat, pr.trace32);
        pool_lap(pool_seconds.recorded);
        for (auto* list : {&pr.inputs, &pr.trace64.contents, &pr.trace32.contents})
          for (at::Tensor& t : *list) t = memory.keep(t);
        share_with_trace(pr.ref64, pr.trace64, memory);
        share_with_trace(pr.ref32, pr.trace32, memory);
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
    if (memory.spilled_bytes() > 0) {
      char line[200];
      std::snprintf(line, sizeof line, "pool: %s: %.2f GB of inputs and references in memory, %.2f GB in files (--pool-memory-gb)",
                    task.name.c_str(), double(memory.in_memory_bytes()) / double(1ull << 30),
                    double(memory.spilled_bytes()) / double(1ull << 30));
      say(line);
    }
    {
      char line[300];
      std::snprintf(line, sizeof line,
                    "pool: %s: %zu inputs: %.0f s making inputs, %.0f s loading the model, %.0f s float64 and float32 "
                    "references, %.0f s recorded forwards, %.0f s keeping them (memory or files)",
                    task.name.c_str(), pool.size(), pool_seconds.inputs, pool_seconds.model, pool_seconds.references,
                    pool_seconds.recorded, pool_seconds.keeping);
      say(line);
    }
    const std::string context = context_digest(pool, options, backend);
    lap("pool (inputs, float64/float32 references)");
    std::vector<std::string> infra_failures;  // runs that could not happen: reported, not cached
    const auto note_infra = [&](const runtime::RunResult& r, const std::string& what) {
      if (!infrastructure_failure(r)) return;
      std::lock_guard lock(mu);
      infra_failures.push_back(what + ": " + r.message);
    };

    // 3. Legality: the correct set on every usable input.
    std::vector<Member> correct = correct_set_of(members, options.mutant_set, say);
    std::vector<std::string> member_parts = {"legality", task.name};
    for (const auto& m : correct) member_parts.push_back(m.id + "\n" + m.source);
    const std::string legality_key = cache_key(context, member_parts);
    tp.correct_set.push_back({"reference-fp32", "reference", true, ""});
    std::vector<cpu::CpuBuild> member_builds;
    // Per oracle, member and pool input: why the oracle rejects the member there (empty: it
    // accepts, or the input is none of its trials). Filled from the legality runs, so a cold
    // audit's false kills need no runs of their own.
    std::vector<std::vector<std::string>> oracle_why;
    std::vector<std::vector<bool>> is_trial(options.oracles.size(), std::vector<bool>(pool.size(), false));
    for (std::size_t o = 0; o < options.oracles.size(); ++o)
      for (const auto& [p, trial] : oracle_trials[o]) is_trial[o][p] = true;
    const auto build_members = [&] {
      if (!member_builds.empty()) return;
      member_builds.resize(correct.size());
      work_queue(correct.size(), jobs_of(options), [&](const auto& next) {
        for (std::size_t m = 0; next(m);)
          member_builds[m] = backend.build(correct[m].source, *correct[m].kernel);
      });
    };
    std::vector<bool> cached_legal;
    std::vector<std::string> cached_note;
    std::vector<CorrectMember> cached_set;
    const auto cached_legality = cache_read(audit_cache, legality_key);
    if (cached_legality && decode_cached(audit_cache, legality_key, *cached_legality, [&](const json& c) {
          for (std::size_t p = 0; p < pool.size(); ++p) {
            cached_legal.push_back(c.at("legal").at(p).get<bool>());
            cached_note.push_back(c.at("note").at(p).get<std::string>());
          }
          for (const auto& m : c.at("correct_set"))
            cached_set.push_back({m.at("id"), m.at("kind"), m.at("admitted"), m.at("note")});
        })) {
      for (std::size_t p = 0; p < pool.size(); ++p) {
        pool[p].legal = cached_legal[p];
        pool[p].note = cached_note[p];
      }
      tp.correct_set.insert(tp.correct_set.end(), cached_set.begin(), cached_set.end());
    } else {
      say("legality: " + task.name + " (" + std::to_string(correct.size()) + " correct kernels and neutral variants x " +
          std::to_string(pool.size()) + " inputs)");
      build_members();
      const RunnerPool::Times legality_before = runners.times();
      // Per (member, input): why the member fails the witness tolerance (empty: it passes).
      std::vector<std::string> why(correct.size() * pool.size());
      std::vector<std::string> illegal(pool.size());
      oracle_why.assign(options.oracles.size(), std::vector<std::string>(correct.size() * pool.size()));
      for (std::size_t p = 0; p < pool.size(); ++p) {
        pool[p].legal = pool[p].usable;
        if (!pool[p].usable) continue;
        const auto c = oracle::apply_comparator(options.witness, prepared[p].ref32, prepared[p].ref64);
        if (!c.ok) illegal[p] = "reference-fp32: " + c.to_string();  // the float32 reference is a member too
      }
      runners.parallel_runs(correct.size() * pool.size(), [&](runtime::IsolatedRunner& runner, std::size_t i) {
        const std::size_t m = i / pool.size(), p = i % pool.size();
        const Member& member = correct[m];
        if (!pool[p].usable) return;
        if (!member_builds[m].ok) {
          why[i] = member.id + " does not build: " + member_builds[m].diagnostics.substr(0, 200);
          for (std::size_t o = 0; o < options.oracles.size(); ++o)
            if (is_trial[o][p]) oracle_why[o][i] = "does not build";
          return;
        }
        const auto r = run_one(runner, task, *member.kernel, member_builds[m].library, 0, prepared[p]);
        note_infra(r, task.name + " legality, " + member.id);
        const std::string failed = std::string(runtime::to_string(r.status)) + " " + r.message.substr(0, 200);
        if (r.status != runtime::Status::Ok) {
          why[i] = member.id + ": " + failed;
        } else {
          const auto c = oracle::apply_comparator(options.witness, r.outputs, prepared[p].ref64);
          if (!c.ok) why[i] = member.id + ": " + c.to_string();
        }
        for (std::size_t o = 0; o < options.oracles.size(); ++o) {
          if (!is_trial[o][p]) continue;
          const oracle::OracleSpec& spec = options.oracles[o];
          if (r.status != runtime::Status::Ok) {
            oracle_why[o][i] = failed;
          } else {
            const auto c = oracle::apply_comparator(spec.comparator, r.outputs, oracle_reference(spec, prepared[p]));
            if (!c.ok) oracle_why[o][i] = c.to_string();
          }
        }
        std::lock_guard lock(mu);
        ++out.runs;
      });
      say(time_split("legality: " + task.name, runners.times() - legality_before));
      // Admission: corpus kernels always; a neutral variant when it passes the sanity inputs.
      for (std::size_t m = 0; m < correct.size(); ++m) {
        CorrectMember cm{correct[m].id, correct[m].neutral ? "neutral" : "kernel", true, ""};
        if (correct[m].neutral) {
          if (!member_builds[m].ok) {
            cm.admitted = false;
            cm.note = "does not build: " + member_builds[m].diagnostics.substr(0, 200);
          }
          for (std::size_t p = 0; p < pool.size() && cm.admitted; ++p) {
            if (!is_sanity_input(pool[p]) || why[m * pool.size() + p].empty()) continue;
            cm.admitted = false;
            cm.note = "fails the sanity input " + pool[p].recipe.name + ": " + why[m * pool.size() + p];
          }
        }
        if (cm.admitted)
          for (std::size_t p = 0; p < pool.size(); ++p)
            if (!why[m * pool.size() + p].empty() && illegal[p].empty()) illegal[p] = why[m * pool.size() + p];
        tp.correct_set.push_back(std::move(cm));
      }
      for (std::size_t p = 0; p < pool.size(); ++p) {
        if (!illegal[p].empty()) {
          pool[p].legal = false;
          pool[p].note = illegal[p];
        }
      }
      json c = {{"legal", json::array()}, {"note", json::array()}, {"correct_set", json::array()}};
      for (const auto& in : pool) {
        c["legal"].push_back(in.legal);
        c["note"].push_back(in.note);
      }
      for (std::size_t m = 1; m < tp.correct_set.size(); ++m) {
        const auto& cm = tp.correct_set[m];
        c["correct_set"].push_back({{"id", cm.id}, {"kind", cm.kind}, {"admitted", cm.admitted}, {"note", cm.note}});
      }
      if (infra_failures.empty()) cache_write(audit_cache, legality_key, c);
    }

    lap("legality (neutral variants, member builds and runs)");
    // False kills, per oracle: the admitted members (and the float32 reference) on its trials,
    // under its own comparator. Cached per oracle, so scoring another oracle costs only its runs.
    std::vector<const Member*> admitted;
    for (std::size_t m = 0; m < correct.size(); ++m)
      if (tp.correct_set[m + 1].admitted) admitted.push_back(&correct[m]);
    const RunnerPool::Times false_kills_before = runners.times();
    for (std::size_t o = 0; o < options.oracles.size(); ++o) {
      const oracle::OracleSpec& spec = options.oracles[o];
      std::vector<std::string> parts = member_parts;
      parts.push_back("false-kills");
      parts.push_back(oracle::spec_to_json(spec).dump());
      for (const auto& cm : tp.correct_set) parts.push_back(cm.id + (cm.admitted ? "+" : "-"));
      const std::string key = cache_key(context, parts);
      std::vector<FalseKill> fks;
      if (!cached_false_kills(audit_cache, key, spec.name, task.name, fks)) {
        const auto& trials = oracle_trials[o];
        for (const auto& [p, trial] : trials) {
          if (!pool[p].usable) continue;
          const auto c = oracle::apply_comparator(spec.comparator, prepared[p].ref32, oracle_reference(spec, prepared[p]));
          if (!c.ok) fks.push_back({spec.name, "reference-fp32", task.name, trial, c.to_string()});
        }
        if (!oracle_why.empty()) {
          // Legality ran in this audit: its runs hold every admitted member on every trial.
          for (std::size_t m = 0; m < correct.size(); ++m) {
            if (!tp.correct_set[m + 1].admitted) continue;
            for (const auto& [p, trial] : trials) {
              const std::string& why = oracle_why[o][m * pool.size() + p];
              if (pool[p].usable && !why.empty()) fks.push_back({spec.name, correct[m].id, task.name, trial, why});
            }
          }
        } else if (!admitted.empty() && !trials.empty()) {
          build_members();
          runners.parallel_runs(admitted.size() * trials.size(), [&](runtime::IsolatedRunner& runner, std::size_t i) {
            const Member& member = *admitted[i / trials.size()];
            const auto& [p, trial] = trials[i % trials.size()];
            if (!pool[p].usable) return;
            const auto& build = member_builds[static_cast<std::size_t>(&member - correct.data())];
            std::string why;
            if (!build.ok) {
              why = "does not build";
            } else {
              const auto r = run_one(runner, task, *member.kernel, build.library, 0, prepared[p]);
              note_infra(r, task.name + " false kills of " + spec.name + ", " + member.id);
              if (infrastructure_failure(r)) return;  // no result, listed with the problems
              if (r.status != runtime::Status::Ok) {
                why = std::string(runtime::to_string(r.status)) + " " + r.message.substr(0, 200);
              } else {
                const auto c = oracle::apply_comparator(spec.comparator, r.outputs, oracle_reference(spec, prepared[p]));
                if (!c.ok) why = c.to_string();
              }
            }
            std::lock_guard lock(mu);
            ++out.runs;
            if (!why.empty()) fks.push_back({spec.name, member.id, task.name, trial, why});
          });
        }
        // Deterministic order regardless of which worker finished first.
        std::sort(fks.begin(), fks.end(), [](const FalseKill& a, const FalseKill& b) {
          return std::tie(a.member, a.trial) < std::tie(b.member, b.trial);
        });
        json c = {{"false_kills", json::array()}};
        for (const auto& f : fks) c["false_kills"].push_back({{"member", f.member}, {"trial", f.trial}, {"detail", f.detail}});
        if (infra_failures.empty()) cache_write(audit_cache, key, c);
      }
      out.strict_false_kills.insert(out.strict_false_kills.end(), fks.begin(), fks.end());
    }
    // Oracle mode's false kills: each admitted member through each oracle's harness, all of its
    // trials in one run (up to the first it fails), as the checker would run it. Cached per oracle.
    // The harness runs of every oracle not cached go in one pass, (oracle, member) pairs spread
    // over all the runners: one pass per oracle kept most runners idle (a task has a few members).
    struct OracleFalseKills {
      std::string key;
      bool cached = false;
      std::vector<std::pair<std::size_t, std::string>> trials;  // usable pool inputs, trial names
      std::vector<FalseKill> fks;
    };
    std::vector<OracleFalseKills> oracle_fks(options.oracles.size());
    std::vector<std::pair<std::size_t, std::size_t>> harness_runs;  // (oracle, index in `admitted`)
    for (std::size_t o = 0; o < options.oracles.size(); ++o) {
      const oracle::OracleSpec& spec = options.oracles[o];
      OracleFalseKills& of = oracle_fks[o];
      std::vector<std::string> parts = member_parts;
      parts.push_back("false-kills-oracle-mode");
      parts.push_back(kOracleModelVersion);
      parts.push_back(oracle::spec_to_json(spec).dump());
      for (const auto& cm : tp.correct_set) parts.push_back(cm.id + (cm.admitted ? "+" : "-"));
      of.key = cache_key(context, parts);
      of.cached = cached_false_kills(audit_cache, of.key, spec.name, task.name, of.fks);
      if (of.cached) continue;
      for (const auto& t : oracle_trials[o])
        if (pool[t.first].usable) of.trials.push_back(t);
      for (const auto& [p, trial] : of.trials) {
        const auto c = oracle::apply_comparator(spec.comparator, prepared[p].ref32, oracle_reference(spec, prepared[p]));
        if (!c.ok) of.fks.push_back({spec.name, "reference-fp32", task.name, trial, c.to_string()});
      }
      if (!of.trials.empty())
        for (std::size_t i = 0; i < admitted.size(); ++i) harness_runs.emplace_back(o, i);
    }
    if (!harness_runs.empty()) {
      build_members();
      runners.parallel_runs(harness_runs.size(), [&](runtime::IsolatedRunner& runner, std::size_t h) {
        const auto [o, i] = harness_runs[h];
        const oracle::OracleSpec& spec = options.oracles[o];
        OracleFalseKills& of = oracle_fks[o];
        const auto& trials = of.trials;
        const Member& member = *admitted[i];
        const auto& build = member_builds[static_cast<std::size_t>(&member - correct.data())];
        std::string why, trial = trials[0].second;
        std::size_t runs = 0;
        if (!build.ok) {
          why = "does not build";
        } else {
          std::vector<oracle::PreparedTrial> prepared_trials;
          for (const auto& [p, name] : trials)
            prepared_trials.push_back(harness_trial(prepared[p], spec.reference == oracle::ReferencePrecision::Fp64,
                                                    oracle_reference(spec, prepared[p])));
          const oracle::HarnessRequest rq = oracle::make_harness_request(spec.harness, spec.comparator, task,
                                                                         *member.kernel, build.library, 0, prepared_trials);
          const oracle::HarnessResult hr = oracle::run_harness(runner, rq);
          runs = hr.trials.size();
          if (hr.infrastructure_failure) {
            std::lock_guard lock(mu);
            infra_failures.push_back(task.name + " false kills of " + spec.name + ", " + member.id + ": " +
                                     hr.trials.back().message);
            return;
          }
          const oracle::HarnessVerdict v = oracle::harness_verdict(rq, hr);
          if (v.killed) {
            why = v.cause + ": " + v.detail;
            trial = trials[static_cast<std::size_t>(v.trial)].second;
          }
        }
        std::lock_guard lock(mu);
        out.runs += runs;
        if (!why.empty()) of.fks.push_back({spec.name, member.id, task.name, trial, why});
      });
    }
    for (OracleFalseKills& of : oracle_fks) {
      if (!of.cached) {
        std::sort(of.fks.begin(), of.fks.end(), [](const FalseKill& a, const FalseKill& b) {
          return std::tie(a.member, a.trial) < std::tie(b.member, b.trial);
        });
        json c = {{"false_kills", json::array()}};
        for (const auto& f : of.fks)
          c["false_kills"].push_back({{"member", f.member}, {"trial", f.trial}, {"detail", f.detail}});
        if (infra_failures.empty()) cache_write(audit_cache, of.key, c);
      }
      out.false_kills.insert(out.false_kills.end(), of.fks.begin(), of.fks.end());
    }

    if (const RunnerPool::Times spent = runners.times() - false_kills_before; spent.exchanges.exchanges > 0)
      say(time_split("false kills: " + task.name, spent));
    lap("false kills");
    // 4-5. Kill-matrix rows and oracle verdicts, cached per mutant: one file per kernel for the
    // rows (the witness search; full rows on request) and one per kernel and oracle for the
    // verdicts, each a map from mutant id to its result. The id fixes the mutant's text, so a new
    // rule, a new kernel or one more oracle costs only the runs it adds. A kernel with anything
    // missing is built (schemata, then standalone builds) and runs what is missing only.
    std::string legal_flags;
    for (const auto& in : pool) legal_flags += in.legal ? 'L' : '-';
    const auto rows_key = [&](const corpus::Kernel& k) { return cache_key(context, {"rows", k.source, legal_flags}); };
    // Oracle-mode verdicts ("verdicts") and witness-mode ones ("strict-verdicts"). An oracle-mode
    // verdict keeps the trial that killed ("t", the tests' killedBy in reports/mte.h): "+trial" in
    // its key, so verdicts cached before they kept it are recomputed, not reported without it.
    const auto verdicts_key = [&](const corpus::Kernel& k, const oracle::OracleSpec& spec, const char* mode) {
      const std::string model = std::string(mode) == "verdicts" ? std::string(kOracleModelVersion) + "+trial" : "";
      return cache_key(context, {mode, model, k.source, legal_flags, oracle::spec_to_json(spec).dump()});
    };
    const auto oracle_witnesses_key = [&](const corpus::Kernel& k) {
      return cache_key(context, {"oracle-witnesses", kOracleModelVersion, k.source, legal_flags});
    };
    // A kernel's cached results, and per mutant what is missing.
    struct KernelCache {
      json rows = json::object();  // mutant id -> {ran, note, row, full}
      json oracle_witnesses = json::object();  // mutant id -> {ow: pool index or -1, owc: cause}
      // Per oracle: mutant id -> {k: killed, c: cause}, or null for a mutant witness mode did not
      // witness (not in any denominator: no oracle-mode run is spent on it).
      std::vector<json> verdicts, strict_verdicts;
      std::vector<bool> row_needed, ow_needed;        // per mutant
      std::vector<std::vector<std::size_t>> missing;  // per mutant: oracles without an oracle-mode verdict
      std::vector<std::vector<std::size_t>> strict_missing;  // ... without a witness-mode one
      std::vector<std::size_t> todo;                // mutants with anything missing
    };
    // A cached object of per-mutant entries; entries of another shape than `fits` accepts are
    // dropped (reported), so those mutants are recomputed instead of aborting the audit.
    const auto object_at = [&](const std::string& key, const char* field, bool (*fits)(const json&)) {
      auto cached = cache_read(audit_cache, key);
      if (!cached || !cached->contains(field) || !(*cached)[field].is_object()) return json::object();
      json entries = std::move((*cached)[field]);
      std::size_t dropped = 0;
      for (auto it = entries.begin(); it != entries.end();) {
        if (fits(*it)) {
          ++it;
        } else {
          it = entries.erase(it);
          ++dropped;
        }
      }
      if (dropped)
        cache::report_damaged(audit_cache / (key + ".json"),
                              std::to_string(dropped) + " entries of an unexpected shape; recomputed");
      return entries;
    };
    const auto fits_row = [](const json& e) {
      return e.is_object() && e.contains("ran") && e["ran"].is_boolean() && e.contains("note") && e["note"].is_string() &&
             e.contains("row") && e["row"].is_string() && (!e.contains("full") || e["full"].is_boolean()) &&
             std::all_of(e["row"].get_ref<const std::string&>().begin(), e["row"].get_ref<const std::string&>().end(),
                         [](char c) { return c >= 'a' && c <= 'a' + static_cast<int>(Outcome::ThreadBudget); });
    };
    const auto fits_oracle_witness = [](const json& e) {
      return e.is_object() && (!e.contains("ow") || e["ow"].is_number_integer()) &&
             (!e.contains("owc") || e["owc"].is_string());
    };
    const auto fits_verdict = [](const json& e) {  // null: cached as "no verdict" (not witnessed, or not run)
      return e.is_null() ||
             (e.is_object() && (!e.contains("k") || e["k"].is_boolean()) && (!e.contains("c") || e["c"].is_string()) &&
              (!e.contains("t") || e["t"].is_string()));
    };
    std::map<std::string, KernelCache> kernel_cache;
    std::map<std::string, KernelBuild> builds;
    // A schema with no mutant active must be its kernel: each schema runs once, with the switch
    // at 0, on a sanity input next to the original's build, and must give the same bits. One that
    // does not (a rewrite the schema text got wrong would change every mutant in it, silently)
    // is not used: its mutants are built standalone. One run per schema, a few per kernel.
    const auto untrusted_schemata_to_standalone = [&](const std::vector<const corpus::Kernel*>& kernels) {
      std::size_t probe = pool.size();
      for (std::size_t p = 0; p < pool.size() && probe == pool.size(); ++p)
        if (pool[p].legal && is_sanity_input(pool[p])) probe = p;
      if (probe == pool.size()) return;
      struct Check {
        const corpus::Kernel* kernel;
        fs::path library;
        bool original;  // the kernel's own build, checked before its schemata
        runtime::RunResult result;
      };
      std::vector<Check> checks;
      for (const auto* k : kernels) {
        const KernelBuild& b = builds.at(k->id());
        std::set<fs::path> schemata;
        for (std::size_t i = 0; i < b.library.size(); ++i)
          if (b.switch_value[i] != 0 && !b.library[i].empty()) schemata.insert(b.library[i]);
        if (schemata.empty()) continue;
        const auto original = backend.build(k->source, *k);
        if (!original.ok) continue;  // the gate built it; nothing to compare against here
        checks.push_back({k, original.library, true, {}});
        for (const auto& lib : schemata) checks.push_back({k, lib, false, {}});
      }
      runners.parallel_runs(checks.size(), [&](runtime::IsolatedRunner& runner, std::size_t c) {
        checks[c].result = run_one(runner, task, *checks[c].kernel, checks[c].library, 0, prepared[probe]);
        std::lock_guard lock(mu);
        ++out.runs;
      });
      const auto same = [&](const runtime::RunResult& a, const runtime::RunResult& b) {
        if (a.status != b.status || a.outputs.size() != b.outputs.size()) return false;
        // On a GPU two runs of one kernel may round differently (atomics, scheduling): the same
        // within the witness tolerance there. A schema text that broke its kernel is far off.
        if (backend.cuda()) return oracle::apply_comparator(options.witness, a.outputs, b.outputs).ok;
        for (std::size_t o = 0; o < a.outputs.size(); ++o) {
          const at::Tensor &x = a.outputs[o], &y = b.outputs[o];
          if (x.sizes() != y.sizes() || x.scalar_type() != y.scalar_type()) return false;
          if (!x.equal(y) && !(x.is_floating_point() && x.isnan().equal(y.isnan()) && x.nan_to_num().equal(y.nan_to_num())))
            return false;
        }
        return true;
      };
      const runtime::RunResult* original = nullptr;
      for (const Check& c : checks) {
        if (c.original) {
          original = &c.result;
          continue;
        }
        if (infrastructure_failure(c.result) || infrastructure_failure(*original) || same(c.result, *original)) continue;
        KernelBuild& b = builds.at(c.kernel->id());
        const auto& records = by_kernel.at(c.kernel->id());
        std::vector<std::size_t> moved;
        for (std::size_t i = 0; i < b.library.size(); ++i)
          if (b.switch_value[i] != 0 && b.library[i] == c.library) moved.push_back(i);
        say(c.kernel->id() + ": a schema with no mutant active differs from the original (" +
            std::string(runtime::to_string(c.result.status)) + " vs " + runtime::to_string(original->status) + "); its " +
            std::to_string(moved.size()) + " mutants are built standalone");
        work_queue(moved.size(), jobs_of(options), [&](const auto& next) {
          for (std::size_t n = 0; next(n);) {
            const std::size_t i = moved[n];
            const auto built = backend.build(records[i]->mutant.source, *c.kernel);
            b.library[i] = built.ok ? built.library : fs::path();
            b.switch_value[i] = 0;
            b.failure[i] = built.ok ? "" : does_not_build(backend, built);
          }
        });
      }
    };
    {
      std::vector<const corpus::Kernel*> to_build;
      for (const auto* kernel : members) {
        const auto& records = by_kernel[kernel->id()];
        if (records.empty()) continue;
        KernelCache& kc = kernel_cache[kernel->id()];
        kc.rows = object_at(rows_key(*kernel), "mutants", fits_row);
        kc.oracle_witnesses = object_at(oracle_witnesses_key(*kernel), "mutants", fits_oracle_witness);
        for (const auto& spec : options.oracles) {
          kc.verdicts.push_back(object_at(verdicts_key(*kernel, spec, "verdicts"), "killed", fits_verdict));
          kc.strict_verdicts.push_back(object_at(verdicts_key(*kernel, spec, "strict-verdicts"), "killed", fits_verdict));
        }
        kc.row_needed.resize(records.size());
        kc.ow_needed.resize(records.size());
        kc.missing.resize(records.size());
        kc.strict_missing.resize(records.size());
        for (std::size_t i = 0; i < records.size(); ++i) {
          const std::string& id = records[i]->mutant.id;
          kc.row_needed[i] = !kc.rows.contains(id) || (options.full_matrix && !kc.rows[id].value("full", false));
          kc.ow_needed[i] = !kc.oracle_witnesses.contains(id);
          for (std::size_t o = 0; o < options.oracles.size(); ++o) {
            if (!kc.verdicts[o].contains(id)) kc.missing[i].push_back(o);
            if (!kc.strict_verdicts[o].contains(id)) kc.strict_missing[i].push_back(o);
          }
          if (kc.row_needed[i] || kc.ow_needed[i] || !kc.missing[i].empty() || !kc.strict_missing[i].empty())
            kc.todo.push_back(i);
        }
        if (!kc.todo.empty()) to_build.push_back(kernel);
      }
      if (!to_build.empty())
        say("build: " + std::to_string(to_build.size()) + " kernel(s) of " + task.name + " for the " +
            (backend.cuda() ? "CUDA" : "CPU") + " backend");
      for (const auto* k : to_build) builds[k->id()];
      std::vector<std::thread> threads;
      for (const auto* k : to_build)
        threads.emplace_back([&, k] {
          // Only the mutants with something missing: a schema of the others would be wasted work.
          const KernelCache& kc = kernel_cache.at(k->id());
          const auto& records = by_kernel.at(k->id());
          std::vector<const mutators::MutantRecord*> needed;
          for (std::size_t i : kc.todo) needed.push_back(records[i]);
          KernelBuild some = build_mutants(backend, *k, needed, options);
          KernelBuild& all = builds.at(k->id());
          all.library.resize(records.size());
          all.switch_value.assign(records.size(), 0);
          all.failure.resize(records.size());
          for (std::size_t j = 0; j < kc.todo.size(); ++j) {
            all.library[kc.todo[j]] = std::move(some.library[j]);
            all.switch_value[kc.todo[j]] = some.switch_value[j];
            all.failure[kc.todo[j]] = std::move(some.failure[j]);
          }
        });
      for (auto& t : threads) t.join();
      untrusted_schemata_to_standalone(to_build);
      lap("mutant builds (schemata, standalone)");
    }
    for (const auto* kernel : members) {
      const auto& records = by_kernel[kernel->id()];
      if (records.empty()) continue;
      KernelCache& kc = kernel_cache[kernel->id()];
      std::vector<MutantAudit> audits(records.size());
      for (std::size_t i = 0; i < records.size(); ++i) {
        const auto& m = records[i]->mutant;
        MutantAudit& a = audits[i];
        a.scored = ScoredMutant{};
        a.scored.id = m.id;
        a.scored.task = task.name;
        a.scored.kernel = kernel->id();
        a.scored.rule = m.site.rule;
        a.scored.family = m.site.family;
        a.file = m.site.file;
        a.range = std::to_string(m.site.begin_pos.line) + ":" + std::to_string(m.site.begin_pos.column) + "-" +
                  std::to_string(m.site.end_pos.line) + ":" + std::to_string(m.site.end_pos.column);
        a.original = m.site.original;
        a.replacement = m.site.replacement;
        a.row.assign(pool.size(), Outcome::NotRun);
        if (kc.rows.contains(m.id)) {
          const json& c = kc.rows[m.id];
          a.ran = c["ran"];
          a.note = c["note"];
          const std::string row = c["row"];
          for (std::size_t p = 0; p < pool.size() && p < row.size(); ++p) a.row[p] = Outcome(row[p] - 'a');
        }
        if (kc.oracle_witnesses.contains(m.id)) {
          a.oracle_witness = kc.oracle_witnesses[m.id].value("ow", -1);
          a.oracle_witness_cause = kc.oracle_witnesses[m.id].value("owc", "");
        }
        const auto load = [&](const json& cached, std::map<std::string, bool>& killed,
                              std::map<std::string, std::string>& cause, std::map<std::string, std::string>* trial,
                              const std::string& oracle) {
          if (!cached.contains(m.id) || !cached[m.id].is_object()) return;
          killed[oracle] = cached[m.id].value("k", false);
          if (killed[oracle]) cause[oracle] = cached[m.id].value("c", "");
          if (killed[oracle] && trial && cached[m.id].contains("t")) (*trial)[oracle] = cached[m.id].value("t", "");
        };
        for (std::size_t o = 0; o < options.oracles.size(); ++o) {
          const std::string& name = options.oracles[o].name;
          load(kc.verdicts[o], a.scored.killed_by, a.scored.cause, &a.scored.trial, name);
          load(kc.strict_verdicts[o], a.scored.strict_killed_by, a.scored.strict_cause, nullptr, name);
        }
      }
      const std::vector<std::size_t>& todo = kc.todo;
      if (todo.empty()) {
        ++out.cached_kernels;
      } else {
        say("audit: " + kernel->id() + " (" + std::to_string(todo.size()) + " of " + std::to_string(records.size()) +
            " mutants x " + std::to_string(pool.size()) + " inputs)");
        const KernelBuild& built = builds.at(kernel->id());
        for (std::size_t i : todo)
          if (built.library[i].empty()) audits[i].note = built.failure[i];
        const auto kernel_start = std::chrono::steady_clock::now();
        const std::size_t runs_before = out.runs;
        // Runs that ended in an exception, and the first one's message: said with the kernel's
        // progress line, so that a failure common to every run (a broken worker, a machine out of
        // memory) shows there instead of passing for kills of every mutant.
        std::size_t exceptions = 0;
        std::string first_exception;
        const auto note_exception = [&](const std::string& message) {
          std::lock_guard lock(mu);
          if (exceptions++ == 0) first_exception = message.substr(0, 300);
        };
        const RunnerPool::Times times_before = runners.times();
        const std::uint64_t waits_before = runners.budget().waits();
        // A line a minute while the mutants run: at native shapes a kernel takes minutes, and a
        // run cut off by a time limit should still say how far it got.
        std::size_t mutants_done = 0;
        auto last_said = std::chrono::steady_clock::now();
        // Each runner's exchange times when it took its first mutant here: the progress line says
        // how the runner that writes it spent its time since (its own counters, read on its own
        // thread; the pool's totals are read only between stages).
        std::map<const runtime::IsolatedRunner*, runtime::ExchangeTimes> runner_start;
        runners.parallel_runs(todo.size(), [&](runtime::IsolatedRunner& runner, std::size_t t) {
          {
            std::lock_guard lock(mu);
            runner_start.try_emplace(&runner, runner.times());
          }
          const std::size_t i = todo[t];
          MutantAudit& a = audits[i];
          if (built.library[i].empty()) {
            a.ran = false;
            return;
          }
          a.ran = true;
          std::size_t runs = 0;
          // A run that kaudit itself could not make (infrastructure_failure: no worker, or one that
          // failed on its own twice) says nothing about the mutant: it gets no result in this audit
          // (not ran: in no denominator, listed with the problems; nothing of the kernel is cached).
          try {
            // Runs are made on demand and shared between the witness search and the oracles. A
            // run's outputs are judged at once, by the witness comparator and by the comparator of
            // each oracle that needs a strict verdict and has this input among its trials, and then
            // dropped: at native shapes an output is hundreds of MB, and a mutant that survives
            // runs on every legal input (docs/calibration/h200-2026-12-03-v0b: an audit that kept
            // them ran the host out of memory). judged[p][o]: why oracle o rejects the run at p
            // (empty: it accepts); no entry: no run at p in this audit, or its output was not ok.
            std::vector<std::optional<std::vector<std::string>>> judged(pool.size());
            int timeouts = static_cast<int>(std::count(a.row.begin(), a.row.end(), Outcome::Timeout));
            const auto run_at = [&](std::size_t p) -> Outcome {
              Outcome o = Outcome::Timeout;  // after two timeouts, assumed (see AuditOptions)
              if (timeouts < 2) {
                const runtime::RunResult r = run_one(runner, task, *kernel, built.library[i], built.switch_value[i], prepared[p]);
                ++runs;
                note_infra(r, kernel->id() + " mutant " + a.scored.id);
                if (infrastructure_failure(r)) throw NoResult{};
                o = outcome_of(r);
                if (o == Outcome::Exception) note_exception(r.message);
                if (o == Outcome::Timeout) ++timeouts;  // not ThreadBudget: that one cost nothing
                if (o == Outcome::Pass) {
                  if (!oracle::apply_comparator(options.witness, r.outputs, prepared[p].ref64).ok) o = Outcome::WrongOutput;
                  auto& why = judged[p].emplace(options.oracles.size());
                  for (std::size_t oi : kc.strict_missing[i]) {
                    if (!is_trial[oi][p]) continue;
                    const oracle::OracleSpec& spec = options.oracles[oi];
                    const auto& ref = oracle_reference(spec, prepared[p]);
                    if (!oracle::apply_comparator(spec.comparator, r.outputs, ref).ok)
                      why[oi] = oracle::mismatch_cause(r.outputs, ref);
                  }
                }
              }
              return a.row[p] = o;
            };
            const auto outcome_at = [&](std::size_t p) { return a.row[p] != Outcome::NotRun ? a.row[p] : run_at(p); };
            // Witness search: legal inputs, cheap first, up to the first failure (every legal input
            // when full rows are asked for).
            if (kc.row_needed[i])
              for (std::size_t p = 0; p < pool.size(); ++p)
                if (pool[p].legal && outcome_at(p) != Outcome::Pass && !options.full_matrix) break;
            // Only a witnessed mutant gets verdicts (the others are in no denominator).
            int witness = -1;
            for (std::size_t p = 0; p < pool.size() && witness < 0; ++p)
              if (pool[p].legal && a.row[p] != Outcome::Pass && a.row[p] != Outcome::NotRun) witness = static_cast<int>(p);
            // Witness mode's verdicts, for each oracle without one: its trials in order, on the
            // witness runs, up to the first it fails.
            for (std::size_t oi : kc.strict_missing[i]) {
              const oracle::OracleSpec& spec = options.oracles[oi];
              a.scored.strict_killed_by.erase(spec.name);
              if (witness < 0) continue;  // cached as null
              bool killed = false;
              std::string cause;
              for (const auto& [p, trial] : oracle_trials[oi]) {
                if (!pool[p].usable) continue;
                Outcome o = outcome_at(p);
                // A cached cell that passed or gave a wrong output: its output is needed again.
                if ((o == Outcome::Pass || o == Outcome::WrongOutput) && !judged[p]) o = run_at(p);
                if (o == Outcome::Pass || o == Outcome::WrongOutput) {
                  killed = !judged[p] || !(*judged[p])[oi].empty();
                  if (killed) cause = judged[p] ? (*judged[p])[oi] : "timeout";
                } else {
                  killed = true;  // crash, timeout, divergence, out-of-bounds: the checker sees a failure too
                  cause = o == Outcome::ThreadBudget ? "timeout" : outcome_name(o);
                }
                if (killed) break;
              }
              a.scored.strict_killed_by[spec.name] = killed;
              if (killed) a.scored.strict_cause[spec.name] = cause;
            }
            if (kc.ow_needed[i]) {
              // Its oracle-mode witness: a legal input on which a KernelBench-style harness (one
              // trial, the witness comparator against the float64 reference) sees it fail; the
              // witness-mode witness first, then the other legal inputs, cheap first.
              a.oracle_witness = -1;
              a.oracle_witness_cause.clear();
              if (witness >= 0) {
                std::vector<std::size_t> order = {static_cast<std::size_t>(witness)};
                for (std::size_t p = 0; p < pool.size(); ++p)
                  if (pool[p].legal && p != static_cast<std::size_t>(witness)) order.push_back(p);
                for (std::size_t p : order) {
                  const oracle::HarnessRequest rq = oracle::make_harness_request(
                      oracle::HarnessSpec{}, options.witness, task, *kernel, built.library[i], built.switch_value[i],
                      {harness_trial(prepared[p], false, prepared[p].ref64)});
                  const oracle::HarnessResult hr = oracle::run_harness(runner, rq);
                  runs += hr.trials.size();
                  if (hr.infrastructure_failure) {
                    std::lock_guard lock(mu);
                    infra_failures.push_back(kernel->id() + " mutant " + a.scored.id + ": " + hr.trials.back().message);
                    throw NoResult{};
                  }
                  const oracle::HarnessVerdict v = oracle::harness_verdict(rq, hr);
                  if (v.killed) {
                    a.oracle_witness = static_cast<int>(p);
                    a.oracle_witness_cause = v.cause;
                    break;
                  }
                }
              }
            }
            for (std::size_t oi : kc.missing[i]) {
              const oracle::OracleSpec& spec = options.oracles[oi];
              a.scored.killed_by.erase(spec.name);
              a.scored.cause.erase(spec.name);
              a.scored.trial.erase(spec.name);
              if (witness < 0) continue;  // cached as null
              std::vector<oracle::PreparedTrial> trials;
              std::vector<std::string> trial_names;
              for (const auto& [p, trial] : oracle_trials[oi])
                if (pool[p].usable) {
                  trials.push_back(harness_trial(prepared[p], spec.reference == oracle::ReferencePrecision::Fp64,
                                                 oracle_reference(spec, prepared[p])));
                  trial_names.push_back(trial);
                }
              if (trials.empty()) continue;
              const oracle::HarnessRequest rq = oracle::make_harness_request(spec.harness, spec.comparator, task, *kernel,
                                                                             built.library[i], built.switch_value[i], trials);
              // On a GPU a mutant that timed out twice hangs: a checker's loop over it stops at its
              // first hang, so one run's wall-clock limit is enough to see it, not one per trial (a
              // CPU worker stops each run at its CPU-time limit itself).
              const oracle::HarnessResult hr = oracle::run_harness(runner, rq, backend.cuda() && timeouts >= 2 ? 1 : 0);
              runs += hr.trials.size();
              if (!hr.trials.empty() && hr.trials.back().status == runtime::Status::Exception)
                note_exception(hr.trials.back().message);
              if (hr.infrastructure_failure) {
                std::lock_guard lock(mu);
                infra_failures.push_back(kernel->id() + " mutant " + a.scored.id + ": " + hr.trials.back().message);
                throw NoResult{};
              }
              const oracle::HarnessVerdict v = oracle::harness_verdict(rq, hr);
              a.scored.killed_by[spec.name] = v.killed;
              if (v.killed) a.scored.cause[spec.name] = v.cause;
              if (v.killed && v.trial >= 0 && static_cast<std::size_t>(v.trial) < trial_names.size())
                a.scored.trial[spec.name] = trial_names[v.trial];
            }
            if (timeouts >= 2) a.note = "timed out twice; later inputs not run, counted as timeouts";
          } catch (const NoResult&) {
            a.ran = false;
            a.note = "no result: kaudit could not run it (its worker failed; not cached, re-run)";
            a.scored.killed_by.clear();
            a.scored.cause.clear();
            a.scored.trial.clear();
            a.scored.strict_killed_by.clear();
            a.scored.strict_cause.clear();
          }
          std::lock_guard lock(mu);
          out.runs += runs;
          ++mutants_done;
          if (const auto now = std::chrono::steady_clock::now(); now - last_said >= std::chrono::seconds(60)) {
            last_said = now;
            const runtime::ExchangeTimes mine = runner.times() - runner_start.at(&runner);
            char split[300];
            std::snprintf(split, sizeof split,
                          "; one runner since its first: %llu exchanges, %.0f s waiting for memory, %.0f sending, %.0f "
                          "waiting for replies (%.0f in the worker, %.0f of it GPU copies)",
                          static_cast<unsigned long long>(mine.exchanges), mine.budget_wait, mine.send, mine.reply,
                          mine.served, mine.device_copies);
            say("audit: " + kernel->id() + ": " + std::to_string(mutants_done) + " of " + std::to_string(todo.size()) +
                " mutants done, " + std::to_string(out.runs - runs_before) + " runs" + split);
          }
        });
        const RunnerPool::Times spent = runners.times() - times_before;
        char line[200];
        std::snprintf(line, sizeof line, "audit: %s done: %zu runs in %.0f s, %d workers started (%.0f s waiting for them)",
                      kernel->id().c_str(), out.runs - runs_before,
                      std::chrono::duration<double>(std::chrono::steady_clock::now() - kernel_start).count(),
                      spent.exchanges.starts, spent.exchanges.start);
        say(line);
        say(time_split("audit: " + kernel->id(), spent));
        if (const std::uint64_t waits = runners.budget().waits() - waits_before; waits > 0) {
          std::snprintf(line, sizeof line,
                        "audit: %s: %llu runs waited for memory (at most %.2f GB in flight to workers; --run-memory-gb)",
                        kernel->id().c_str(), static_cast<unsigned long long>(waits),
                        double(runners.budget().peak()) / double(1ull << 30));
          say(line);
        }
        if (exceptions)
          say("audit: " + kernel->id() + ": " + std::to_string(exceptions) +
              " runs ended in an exception; the first said: " + first_exception);
        if (infra_failures.empty()) {
          bool rows_changed = false, ow_changed = false;
          for (std::size_t i : todo) {
            const MutantAudit& a = audits[i];
            if (kc.ow_needed[i]) {
              kc.oracle_witnesses[a.scored.id] = {{"ow", a.oracle_witness}, {"owc", a.oracle_witness_cause}};
              ow_changed = true;
            }
            if (!kc.row_needed[i]) continue;
            std::string row;
            for (Outcome o : a.row) row += char('a' + static_cast<int>(o));
            kc.rows[a.scored.id] = {{"ran", a.ran}, {"note", a.note}, {"row", row}, {"full", options.full_matrix}};
            rows_changed = true;
          }
          if (rows_changed) cache_write(audit_cache, rows_key(*kernel), {{"mutants", kc.rows}});
          if (ow_changed) cache_write(audit_cache, oracle_witnesses_key(*kernel), {{"mutants", kc.oracle_witnesses}});
          const auto store = [&](std::vector<json>& cache, const std::vector<std::vector<std::size_t>>& missing,
                                 bool strict, const char* mode) {
            for (std::size_t o = 0; o < options.oracles.size(); ++o) {
              bool changed = false;
              const std::string& name = options.oracles[o].name;
              for (std::size_t i : todo) {
                if (std::find(missing[i].begin(), missing[i].end(), o) == missing[i].end()) continue;
                const ScoredMutant& m = audits[i].scored;
                const auto& killed = strict ? m.strict_killed_by : m.killed_by;
                const auto& cause = strict ? m.strict_cause : m.cause;
                const auto k = killed.find(name);
                if (k == killed.end()) {
                  cache[o][m.id] = nullptr;  // not witnessed, or not run (no trial usable)
                } else {
                  const auto c = cause.find(name);
                  cache[o][m.id] = {{"k", k->second}, {"c", c == cause.end() ? "" : c->second}};
                  const auto t = m.trial.find(name);
                  if (!strict && t != m.trial.end()) cache[o][m.id]["t"] = t->second;
                }
                changed = true;
              }
              if (changed) cache_write(audit_cache, verdicts_key(*kernel, options.oracles[o], mode), {{"killed", cache[o]}});
            }
          };
          store(kc.verdicts, kc.missing, false, "verdicts");
          store(kc.strict_verdicts, kc.strict_missing, true, "strict-verdicts");
        }
      }
      // Witness: the first legal input (pool order is cheap first) on which the mutant fails.
      for (auto& a : audits) {
        for (const auto& name : oracle_names) a.scored.killed_by.emplace(name, false);
        for (std::size_t p = 0; p < pool.size(); ++p) {
          if (pool[p].legal && a.row[p] != Outcome::Pass && a.row[p] != Outcome::NotRun) {
            a.witness = static_cast<int>(p);
            a.witness_outcome = a.row[p];
            break;
          }
        }
        a.scored.witnessed = a.witness >= 0;
        a.scored.oracle_witnessed = a.witness >= 0 && a.oracle_witness >= 0;
        if (!a.ran) out.problems.push_back(a.scored.id + " (" + a.scored.kernel + ", " + a.scored.rule + "): " + a.note);
        out.mutants.push_back(std::move(a));
      }
    }
    for (auto& f : infra_failures) out.problems.push_back("no result (not cached, re-run): " + f);
    out.pools.push_back(std::move(tp));
    lap("mutant runs (witnesses, verdicts)");
  }

  std::vector<ScoredMutant> scored;
  for (const auto& a : out.mutants)
    if (a.ran) scored.push_back(a.scored);
  out.scores = score_oracles(scored, oracle_names, out.false_kills, out.strict_false_kills);
  for (const auto& f : out.pipeline.parse_failures) out.problems.push_back(f.kernel + ": does not parse");
  for (const auto& f : out.pipeline.compile_failures) out.problems.push_back(f.kernel + ": NVRTC rejects the original");
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const RunnerPool::Times total = runners.times();
  out.worker_starts = total.exchanges.starts;
  out.worker_start_seconds = total.exchanges.start;
  out.runner_seconds = time_parts(total);
  return out;
}

}  // namespace kaudit::audit
