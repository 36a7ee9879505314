// The audit engine (see audit.h for the stages).
#include "audit/audit.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <sstream>
#include <thread>

#include <unistd.h>

#include "common/sha256.h"
#include "oracle/gate.h"
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
  }
  return "?";
}

namespace {

// Bump when the meaning of cached audit results changes.
constexpr const char* kCacheVersion = "kaudit-audit-v2";

Outcome outcome_of(runtime::Status s) {
  switch (s) {
    case runtime::Status::Ok: return Outcome::Pass;
    case runtime::Status::Crash: return Outcome::Crash;
    case runtime::Status::Timeout: return Outcome::Timeout;
    case runtime::Status::BarrierDivergence: return Outcome::BarrierDivergence;
    case runtime::Status::LaunchError: return Outcome::LaunchError;
    case runtime::Status::OutOfBounds: return Outcome::OutOfBounds;
    case runtime::Status::Exception: return Outcome::Exception;
  }
  return Outcome::Crash;
}

std::string recipe_key(const oracle::Recipe& r) {
  json j = r;
  j.erase("name");
  return j.dump();
}

// A pool input made concrete: its tensors and both references.
struct Prepared {
  corpus::Assignment dims;
  std::vector<at::Tensor> inputs;
  oracle::Reference reference;
  std::vector<at::Tensor> ref64, ref32;
};

// Which oracle trials read pool input p: (oracle index, trial name).
using TrialsAt = std::vector<std::vector<std::pair<std::size_t, std::string>>>;

TrialsAt trials_at(const std::vector<PoolInput>& pool, const std::vector<oracle::OracleSpec>& oracles,
                   const std::string& task) {
  TrialsAt at(pool.size());
  std::map<std::string, std::size_t> index;
  for (std::size_t p = 0; p < pool.size(); ++p) index[pool[p].key] = p;
  for (std::size_t o = 0; o < oracles.size(); ++o)
    for (const auto& t : oracle::trials_for(oracles[o], task)) at[index.at(recipe_key(t))].emplace_back(o, t.name);
  return at;
}

const std::vector<at::Tensor>& oracle_reference(const oracle::OracleSpec& o, const Prepared& p) {
  return o.reference == oracle::ReferencePrecision::Fp64 ? p.ref64 : p.ref32;
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

// Runs fn(runner, i) for i in [0, n) on the option's jobs, each thread with its own isolated worker.
template <typename Fn>
void parallel_runs(std::size_t n, const AuditOptions& options, Fn fn) {
  runtime::WorkerLimits limits;
  limits.timeout_seconds = options.timeout_seconds;
  limits.memcheck = true;  // out-of-bounds accesses become their own outcome
  limits.threads = 1;      // parallelism comes from the workers
  work_queue(n, jobs_of(options), [&](const auto& next) {
    runtime::IsolatedRunner runner(options.worker_exe, limits);
    for (std::size_t i = 0; next(i);) fn(runner, i);
  });
}

// A run that says nothing about the kernel: no worker could be started (the machine, not the
// kernel). Results holding one are reported and never cached.
bool infrastructure_failure(const runtime::RunResult& r) {
  return r.status == runtime::Status::Crash && r.message.rfind("cannot start a worker", 0) == 0;
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

// JSON cache files under <cache>/audit/.
std::optional<json> cache_read(const fs::path& dir, const std::string& key) {
  std::ifstream in(dir / (key + ".json"));
  if (!in) return std::nullopt;
  try {
    return json::parse(in);
  } catch (const std::exception&) {
    return std::nullopt;  // a torn or foreign file: recompute
  }
}
void cache_write(const fs::path& dir, const std::string& key, const json& j) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  const fs::path tmp = dir / (key + ".tmp" + std::to_string(::getpid()));
  {
    std::ofstream out(tmp);
    out << j.dump();
    if (!out) return;  // a cache that cannot be written only costs time
  }
  fs::rename(tmp, dir / (key + ".json"), ec);
}

// What every cached result depends on besides the kernel: pool, comparators, limits.
std::string context_digest(const std::vector<PoolInput>& pool, const AuditOptions& o, const cpu::CpuCompiler& cpu) {
  kaudit::Sha256 h;
  const auto field = [&](const std::string& s) { h.update(std::to_string(s.size()) + ":" + s + "\n"); };
  field(kCacheVersion);
  for (const auto& p : pool) field(p.key);
  field(json{{"kind", oracle::comparator_name(o.witness.kind)}, {"rtol", o.witness.rtol}, {"atol", o.witness.atol}}.dump());
  for (const auto& spec : o.oracles) field(oracle::spec_to_json(spec).dump());
  field(std::to_string(o.timeout_seconds));
  field(cpu.identity());  // a different CPU prelude or compiler may change outcomes
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

KernelBuild build_mutants(const cpu::CpuCompiler& compiler, const corpus::Kernel& kernel,
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
  const cpu::SchemaPlan plan = cpu::build_schemata(compiler, kernel.source, kernel.cu_path.string(), kernel.entry, edits);
  for (const auto& s : plan.schemata)
    for (std::size_t j = 0; j < s.edits.size(); ++j) {
      b.library[s.edits[j]] = s.build.library;
      b.switch_value[s.edits[j]] = s.switch_value[j];
    }
  // Mutants a schema cannot hold get a build each, a few at a time.
  work_queue(plan.standalone.size(), jobs_of(options), [&](const auto& next) {
    for (std::size_t n = 0; next(n);) {
      const std::size_t i = plan.standalone[n];
      const auto built = compiler.build(records[i]->mutant.source, kernel.cu_path.string(), kernel.entry);
      if (built.ok) b.library[i] = built.library;
      else b.failure[i] = "does not build for the CPU backend: " + built.diagnostics.substr(0, 300);
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

std::vector<Member> correct_set_of(const std::vector<const corpus::Kernel*>& kernels,
                                   const std::function<void(const std::string&)>& say) {
  std::vector<Member> out;
  for (const auto* k : kernels) out.push_back({k->id(), k, k->source, false});
  for (const auto* k : kernels) {
    try {
      for (auto& v : mutators::neutral_variants({k->id(), k->cu_path.string(), k->source}))
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

std::vector<PoolInput> candidate_pool(const corpus::Task& task, const std::vector<oracle::OracleSpec>& oracles) {
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
    pool[it->second].used_by.push_back(user);
  };
  for (const auto& spec : oracles)
    for (const auto& t : oracle::trials_for(spec, task.name)) add(t, spec.name + "/" + t.name);
  for (const auto& r : oracle::gate_recipes(task)) add(r, "gate/" + r.name);
  for (const auto& r : oracle::pattern_recipes()) add(r, "pattern/" + r.name);
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
  const auto start = std::chrono::steady_clock::now();
  const auto say = [&](const std::string& s) {
    if (options.progress) options.progress(s);
  };
  AuditResult out;
  std::mutex mu;  // guards `out` and counters while workers run

  // 1. Mutants.
  std::vector<const corpus::Kernel*> kernels;
  std::vector<mutators::KernelSourceInfo> sources;
  for (const auto& k : corpus.kernels) {
    if (!options.only.empty() && std::find(options.only.begin(), options.only.end(), k.id()) == options.only.end())
      continue;
    kernels.push_back(&k);
    sources.push_back({k.id(), fs::relative(k.cu_path, corpus.root.parent_path()).generic_string(), k.source});
  }
  const mutators::NvrtcCompiler nvrtc(options.cache_dir);
  mutators::PipelineOptions popts;
  popts.sites = options.sites;
  popts.progress = [&](std::string_view stage, std::size_t done, std::size_t total) {
    if (done == total) say(std::string(stage) + ": " + std::to_string(total) + " done");
  };
  say("mutate: " + std::to_string(kernels.size()) + " kernels");
  out.pipeline = mutators::run_mutation_pipeline(sources, nvrtc, popts);
  std::map<std::string, std::vector<const mutators::MutantRecord*>> by_kernel;
  for (const auto& r : out.pipeline.mutants)
    if (r.status == mutators::ImageClass::Distinct || r.status == mutators::ImageClass::Unknown)
      by_kernel[r.mutant.kernel].push_back(&r);

  oracle::ReferenceStore references(options.cache_dir, oracle::default_export_script());
  const cpu::CpuCompiler cpu_compiler(options.cache_dir);
  const fs::path audit_cache = options.cache_dir / "audit";
  std::vector<std::string> oracle_names;
  for (const auto& o : options.oracles) oracle_names.push_back(o.name);

  for (const auto& task : corpus.tasks) {
    std::vector<const corpus::Kernel*> members;
    for (const auto* k : kernels)
      if (k->task == task.name) members.push_back(k);
    if (members.empty()) continue;

    // 2. Pool, made concrete.
    TaskPool tp{task.name, candidate_pool(task, options.oracles)};
    auto& pool = tp.inputs;
    std::vector<Prepared> prepared(pool.size());
    for (std::size_t p = 0; p < pool.size(); ++p) {
      if (!pool[p].usable) continue;
      try {
        Prepared& pr = prepared[p];
        pr.dims = oracle::dims_for(task, pool[p].recipe);
        pr.inputs = oracle::make_inputs(task, pool[p].recipe, pr.dims);
        pr.reference = references.load(task, pr.dims);
        pr.ref64 = pr.reference.forward(pr.inputs, at::kDouble);
        pr.ref32 = pr.reference.forward(pr.inputs, at::kFloat);
      } catch (const std::exception& e) {
        pool[p].usable = false;
        pool[p].note = std::string("reference or inputs failed: ") + e.what();
      }
    }
    const TrialsAt trials = trials_at(pool, options.oracles, task.name);
    std::vector<std::vector<std::size_t>> oracle_trials(options.oracles.size());
    for (std::size_t p = 0; p < pool.size(); ++p)
      for (const auto& [o, trial] : trials[p]) oracle_trials[o].push_back(p);
    for (std::size_t o = 0; o < options.oracles.size(); ++o) {  // back to the spec's trial order
      std::vector<std::size_t> ordered;
      for (const auto& t : oracle::trials_for(options.oracles[o], task.name))
        for (std::size_t p : oracle_trials[o])
          if (pool[p].key == recipe_key(t) && std::find(ordered.begin(), ordered.end(), p) == ordered.end())
            ordered.push_back(p);
      oracle_trials[o] = ordered;
    }
    const std::string context = context_digest(pool, options, cpu_compiler);

    // 3. Legality and false kills: the correct set on every usable input.
    std::vector<Member> correct = correct_set_of(members, say);
    std::vector<std::string> member_parts = {"legality", task.name};
    for (const auto& m : correct) member_parts.push_back(m.id + "\n" + m.source);
    const std::string legality_key = cache_key(context, member_parts);
    std::vector<FalseKill> task_false_kills;
    std::vector<std::string> infra_failures;  // runs that could not happen: reported, not cached
    tp.correct_set.push_back({"reference-fp32", "reference", true, ""});
    if (auto cached = cache_read(audit_cache, legality_key)) {
      for (std::size_t p = 0; p < pool.size(); ++p) {
        pool[p].legal = (*cached)["legal"][p].get<bool>();
        pool[p].note = (*cached)["note"][p].get<std::string>();
      }
      for (const auto& f : (*cached)["false_kills"])
        task_false_kills.push_back({f["oracle"], f["member"], task.name, f["trial"], f["detail"]});
      for (const auto& m : (*cached)["correct_set"])
        tp.correct_set.push_back({m["id"], m["kind"], m["admitted"], m["note"]});
    } else {
      say("legality: " + task.name + " (" + std::to_string(correct.size()) + " correct kernels and neutral variants x " +
          std::to_string(pool.size()) + " inputs)");
      std::vector<cpu::CpuBuild> builds(correct.size());
      work_queue(correct.size(), jobs_of(options), [&](const auto& next) {
        for (std::size_t m = 0; next(m);)
          builds[m] = cpu_compiler.build(correct[m].source, correct[m].kernel->cu_path.string(), correct[m].kernel->entry);
      });
      // Per (member, input): why the member fails the witness tolerance (empty: it passes), and
      // the oracle trials that reject it.
      std::vector<std::string> why(correct.size() * pool.size());
      std::vector<std::vector<FalseKill>> fks(correct.size() * pool.size());
      for (std::size_t p = 0; p < pool.size(); ++p) pool[p].legal = pool[p].usable;
      std::vector<std::string> illegal(pool.size());
      // The float32 reference is a member too.
      for (std::size_t p = 0; p < pool.size(); ++p) {
        if (!pool[p].usable) continue;
        const auto c = oracle::apply_comparator(options.witness, prepared[p].ref32, prepared[p].ref64);
        if (!c.ok) illegal[p] = "reference-fp32: " + c.to_string();
        for (const auto& [o, trial] : trials[p]) {
          const auto oc = oracle::apply_comparator(options.oracles[o].comparator, prepared[p].ref32,
                                                   oracle_reference(options.oracles[o], prepared[p]));
          if (!oc.ok) task_false_kills.push_back({options.oracles[o].name, "reference-fp32", task.name, trial, oc.to_string()});
        }
      }
      parallel_runs(correct.size() * pool.size(), options, [&](runtime::IsolatedRunner& runner, std::size_t i) {
        const std::size_t m = i / pool.size(), p = i % pool.size();
        const Member& member = correct[m];
        if (!pool[p].usable) return;
        std::string& w = why[i];
        if (!builds[m].ok) {
          w = member.id + " does not build: " + builds[m].diagnostics.substr(0, 200);
        } else {
          const auto r = run_one(runner, task, *member.kernel, builds[m].library, 0, prepared[p]);
          if (infrastructure_failure(r)) {
            std::lock_guard lock(mu);
            infra_failures.push_back(task.name + " legality, " + member.id + ": " + r.message);
          }
          if (r.status != runtime::Status::Ok) {
            w = member.id + ": " + runtime::to_string(r.status) + " " + r.message.substr(0, 200);
            for (const auto& [o, trial] : trials[p]) fks[i].push_back({options.oracles[o].name, member.id, task.name, trial, w});
          } else {
            const auto c = oracle::apply_comparator(options.witness, r.outputs, prepared[p].ref64);
            if (!c.ok) w = member.id + ": " + c.to_string();
            for (const auto& [o, trial] : trials[p]) {
              const auto oc = oracle::apply_comparator(options.oracles[o].comparator, r.outputs,
                                                       oracle_reference(options.oracles[o], prepared[p]));
              if (!oc.ok) fks[i].push_back({options.oracles[o].name, member.id, task.name, trial, oc.to_string()});
            }
          }
        }
        std::lock_guard lock(mu);
        ++out.runs;
      });
      // Admission: corpus kernels always; a neutral variant when it passes the sanity inputs.
      for (std::size_t m = 0; m < correct.size(); ++m) {
        CorrectMember cm{correct[m].id, correct[m].neutral ? "neutral" : "kernel", true, ""};
        if (correct[m].neutral) {
          for (std::size_t p = 0; p < pool.size() && cm.admitted; ++p) {
            if (!is_sanity_input(pool[p]) || why[m * pool.size() + p].empty()) continue;
            cm.admitted = false;
            cm.note = "fails the sanity input " + pool[p].recipe.name + ": " + why[m * pool.size() + p];
          }
          if (!builds[m].ok) {
            cm.admitted = false;
            cm.note = "does not build: " + builds[m].diagnostics.substr(0, 200);
          }
        }
        if (cm.admitted) {
          for (std::size_t p = 0; p < pool.size(); ++p) {
            const std::size_t i = m * pool.size() + p;
            if (!why[i].empty() && illegal[p].empty()) illegal[p] = why[i];
            task_false_kills.insert(task_false_kills.end(), fks[i].begin(), fks[i].end());
          }
        }
        tp.correct_set.push_back(std::move(cm));
      }
      for (std::size_t p = 0; p < pool.size(); ++p) {
        if (!illegal[p].empty()) {
          pool[p].legal = false;
          pool[p].note = illegal[p];
        }
      }
      // Deterministic order regardless of which worker finished first.
      std::sort(task_false_kills.begin(), task_false_kills.end(), [](const FalseKill& a, const FalseKill& b) {
        return std::tie(a.oracle, a.member, a.trial) < std::tie(b.oracle, b.member, b.trial);
      });
      json c = {{"legal", json::array()}, {"note", json::array()}, {"false_kills", json::array()}, {"correct_set", json::array()}};
      for (const auto& in : pool) {
        c["legal"].push_back(in.legal);
        c["note"].push_back(in.note);
      }
      for (const auto& f : task_false_kills)
        c["false_kills"].push_back({{"oracle", f.oracle}, {"member", f.member}, {"trial", f.trial}, {"detail", f.detail}});
      for (std::size_t m = 1; m < tp.correct_set.size(); ++m) {
        const auto& cm = tp.correct_set[m];
        c["correct_set"].push_back({{"id", cm.id}, {"kind", cm.kind}, {"admitted", cm.admitted}, {"note", cm.note}});
      }
      if (infra_failures.empty()) cache_write(audit_cache, legality_key, c);
    }
    out.false_kills.insert(out.false_kills.end(), task_false_kills.begin(), task_false_kills.end());

    // 4-5. Kill matrix and oracle verdicts, kernel by kernel. Kernels without cached results are
    // built first, in parallel (schemata, then the standalone builds).
    const auto kernel_key = [&](const corpus::Kernel& kernel) {
      std::vector<std::string> parts = {"kernel", kernel.source};
      for (const auto& in : pool) parts.push_back(in.legal ? "L" : "-");
      for (const auto* r : by_kernel[kernel.id()]) parts.push_back(r->mutant.id);
      return cache_key(context, parts);
    };
    // A kernel needs runs when nothing is cached for it, or when full rows are asked for and the
    // cached rows stopped early (the cached cells are kept; only the missing ones run).
    std::map<std::string, std::optional<json>> cached_rows;
    const auto needs_runs = [&](const corpus::Kernel& kernel) {
      const auto& c = cached_rows[kernel.id()];
      return !c || (options.full_matrix && !c->value("full", false));
    };
    std::map<std::string, KernelBuild> builds;
    {
      std::vector<const corpus::Kernel*> to_build;
      for (const auto* kernel : members) {
        if (by_kernel[kernel->id()].empty()) continue;
        cached_rows[kernel->id()] = cache_read(audit_cache, kernel_key(*kernel));
        if (needs_runs(*kernel)) to_build.push_back(kernel);
      }
      if (!to_build.empty()) say("build: " + std::to_string(to_build.size()) + " kernel(s) of " + task.name + " for the CPU backend");
      for (const auto* k : to_build) builds[k->id()];
      std::vector<std::thread> threads;
      for (const auto* k : to_build)
        threads.emplace_back([&, k] { builds.at(k->id()) = build_mutants(cpu_compiler, *k, by_kernel.at(k->id()), options); });
      for (auto& t : threads) t.join();
    }
    for (const auto* kernel : members) {
      const auto& records = by_kernel[kernel->id()];
      if (records.empty()) continue;
      std::vector<MutantAudit> audits(records.size());
      for (std::size_t i = 0; i < records.size(); ++i) {
        const auto& m = records[i]->mutant;
        MutantAudit& a = audits[i];
        a.scored = {m.id, task.name, kernel->id(), m.site.rule, m.site.family, false, {}};
        a.file = m.site.file;
        a.range = std::to_string(m.site.begin_pos.line) + ":" + std::to_string(m.site.begin_pos.column) + "-" +
                  std::to_string(m.site.end_pos.line) + ":" + std::to_string(m.site.end_pos.column);
        a.original = m.site.original;
        a.replacement = m.site.replacement;
        a.row.assign(pool.size(), Outcome::NotRun);
      }
      const std::string key = kernel_key(*kernel);
      const std::optional<json>& cached = cached_rows[kernel->id()];
      if (cached) {
        for (std::size_t i = 0; i < audits.size(); ++i) {
          const json& c = (*cached)["mutants"][i];
          audits[i].ran = c["ran"];
          audits[i].note = c["note"];
          const std::string row = c["row"];
          for (std::size_t p = 0; p < pool.size() && p < row.size(); ++p) audits[i].row[p] = Outcome(row[p] - 'a');
          for (auto& [o, v] : c["killed_by"].items()) audits[i].scored.killed_by[o] = v;
        }
      }
      if (!needs_runs(*kernel)) {
        ++out.cached_kernels;
      } else {
        say("audit: " + kernel->id() + " (" + std::to_string(records.size()) + " mutants x " +
            std::to_string(pool.size()) + " inputs" + (cached ? ", completing the cached rows" : "") + ")");
        const KernelBuild& built = builds.at(kernel->id());
        const auto& library = built.library;
        const auto& switch_value = built.switch_value;
        for (std::size_t i = 0; i < records.size(); ++i)
          if (library[i].empty()) audits[i].note = built.failure[i];
        const bool verdicts_cached = cached.has_value();
        parallel_runs(records.size(), options, [&](runtime::IsolatedRunner& runner, std::size_t i) {
          MutantAudit& a = audits[i];
          if (library[i].empty()) return;
          a.ran = true;
          // Runs are made on demand and shared between the witness search and the oracles.
          std::vector<std::optional<runtime::RunResult>> result(pool.size());
          int timeouts = static_cast<int>(std::count(a.row.begin(), a.row.end(), Outcome::Timeout));
          std::size_t runs = 0;
          const auto outcome_at = [&](std::size_t p) -> Outcome {
            if (a.row[p] != Outcome::NotRun) return a.row[p];
            Outcome o = Outcome::Timeout;  // after two timeouts, assumed (see AuditOptions)
            if (timeouts < 2) {
              result[p] = run_one(runner, task, *kernel, library[i], switch_value[i], prepared[p]);
              ++runs;
              if (infrastructure_failure(*result[p])) {
                std::lock_guard lock(mu);
                infra_failures.push_back(kernel->id() + " mutant " + a.scored.id + ": " + result[p]->message);
              }
              o = outcome_of(result[p]->status);
              if (o == Outcome::Timeout) ++timeouts;
              if (o == Outcome::Pass && !oracle::apply_comparator(options.witness, result[p]->outputs, prepared[p].ref64).ok)
                o = Outcome::WrongOutput;
            }
            return a.row[p] = o;
          };
          // Witness search: legal inputs, cheap first, up to the first failure (every legal input
          // when full rows are asked for).
          for (std::size_t p = 0; p < pool.size(); ++p)
            if (pool[p].legal && outcome_at(p) != Outcome::Pass && !options.full_matrix) break;
          // Each oracle: its trials in order, up to the first one it fails.
          for (std::size_t oi = 0; oi < options.oracles.size() && !verdicts_cached; ++oi) {
            bool killed = false;
            for (std::size_t p : oracle_trials[oi]) {
              if (!pool[p].usable) continue;
              const Outcome o = outcome_at(p);
              if (o == Outcome::Pass || o == Outcome::WrongOutput) {
                killed = !result[p] || !oracle::apply_comparator(options.oracles[oi].comparator, result[p]->outputs,
                                                                 oracle_reference(options.oracles[oi], prepared[p])).ok;
              } else {
                killed = true;  // crash, timeout, divergence, out-of-bounds: the checker sees a failure too
              }
              if (killed) break;
            }
            a.scored.killed_by[options.oracles[oi].name] = killed;
          }
          if (timeouts >= 2) a.note = "timed out twice; later inputs not run, counted as timeouts";
          std::lock_guard lock(mu);
          out.runs += runs;
        });
        json c = {{"mutants", json::array()}, {"full", options.full_matrix}};
        for (const auto& a : audits) {
          std::string row;
          for (Outcome o : a.row) row += char('a' + static_cast<int>(o));
          c["mutants"].push_back({{"id", a.scored.id}, {"ran", a.ran}, {"note", a.note}, {"row", row},
                                  {"killed_by", a.scored.killed_by}});
        }
        if (infra_failures.empty()) cache_write(audit_cache, key, c);
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
        if (!a.ran) out.problems.push_back(a.scored.id + " (" + a.scored.kernel + ", " + a.scored.rule + "): " + a.note);
        out.mutants.push_back(std::move(a));
      }
    }
    for (auto& f : infra_failures) out.problems.push_back("no result (not cached, re-run): " + f);
    out.pools.push_back(std::move(tp));
  }

  std::vector<ScoredMutant> scored;
  for (const auto& a : out.mutants)
    if (a.ran) scored.push_back(a.scored);
  out.scores = score_oracles(scored, oracle_names, out.false_kills);
  for (const auto& f : out.pipeline.parse_failures) out.problems.push_back(f.kernel + ": does not parse");
  for (const auto& f : out.pipeline.compile_failures) out.problems.push_back(f.kernel + ": NVRTC rejects the original");
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return out;
}

}  // namespace kaudit::audit
