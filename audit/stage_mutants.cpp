// Stages 4-5 of the audit: the task's mutants built, witnessed and judged by every oracle, cached
// per mutant (see stages.h).
//
// Kill-matrix rows and oracle verdicts are cached per mutant: one file per kernel for the rows
// (the witness search; full rows on request) and one per kernel and oracle for the verdicts, each
// a map from mutant id to its result. The id fixes the mutant's text, so a new rule, a new kernel
// or one more oracle costs only the runs it adds. A kernel with anything missing is built
// (schemata, then standalone builds) and runs what is missing only.
#include <algorithm>
#include <cstdio>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <thread>

#include "audit/audit_cache.h"
#include "audit/stages.h"
#include "mutators/mutators.h"
#include "oracle/compare.h"
#include "oracle/judge.h"

namespace kaudit::audit {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

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

// Thrown while a mutant is evaluated when one of its runs was an infrastructure failure.
struct NoResult {};

// A kernel's mutants built for the backend: library and switch value per mutant (an empty
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

// A kernel's cached results, and per mutant what is missing.
struct KernelCache {
  // mutant id -> {ran, note, row, full}, and for a mutant no run showed wrong, its second-call
  // probe: sc (the input it failed on, -1 none), scq (the first call's input), sco (the outcome);
  // for a reward hack neither showed wrong, its contract check: ct (the input of the breach, -1
  // none), ctc (its cause)
  json rows = json::object();
  json oracle_witnesses = json::object();  // mutant id -> {ow: pool index or -1, owc: cause}
  // The same, taken from AuditOptions::prior where the cache has none: used, never cached.
  json prior_rows = json::object(), prior_oracle_witnesses = json::object();
  // Per oracle: mutant id -> {k: killed, c: cause, t: killing trial}, or null for a mutant witness
  // mode did not witness (not in any denominator: no oracle-mode run is spent on it).
  std::vector<json> verdicts, strict_verdicts;
  std::vector<bool> row_needed, ow_needed;               // per mutant
  std::vector<bool> sc_needed;                           // per mutant: the second-call probe, if no run shows it
  std::vector<bool> ct_needed;                           // ... the contract check, if nothing else shows it
  std::vector<std::vector<std::size_t>> missing;         // per mutant: oracles without an oracle-mode verdict
  std::vector<std::vector<std::size_t>> strict_missing;  // ... without a witness-mode one
  std::vector<std::size_t> todo;                         // mutants with anything missing
};

bool fits_row(const json& e) {
  return e.is_object() && e.contains("ran") && e["ran"].is_boolean() && e.contains("note") && e["note"].is_string() &&
         e.contains("row") && e["row"].is_string() && (!e.contains("full") || e["full"].is_boolean()) &&
         (!e.contains("sc") || (e["sc"].is_number_integer() && e.contains("scq") && e["scq"].is_number_integer() &&
                                e.contains("sco") && e["sco"].is_string() &&
                                outcome_from_name(e["sco"].get_ref<const std::string&>()))) &&
         (!e.contains("ct") || (e["ct"].is_number_integer() && e.contains("ctc") && e["ctc"].is_string() &&
                                (e["ct"].get<int>() < 0 || oracle::is_contract_breach(e["ctc"].get<std::string>())))) &&
         std::all_of(e["row"].get_ref<const std::string&>().begin(), e["row"].get_ref<const std::string&>().end(),
                     [](char c) { return c >= 'a' && c <= 'a' + static_cast<int>(Outcome::ThreadBudget); });
}
bool fits_oracle_witness(const json& e) {
  return e.is_object() && (!e.contains("ow") || e["ow"].is_number_integer()) && (!e.contains("owc") || e["owc"].is_string());
}
bool fits_verdict(const json& e) {  // null: cached as "no verdict" (not witnessed, or not run)
  return e.is_null() ||
         (e.is_object() && (!e.contains("k") || e["k"].is_boolean()) && (!e.contains("c") || e["c"].is_string()) &&
          (!e.contains("t") || e["t"].is_string()));
}

// The keys of a task's per-mutant caches, and their reading and writing.
class MutantCache {
 public:
  MutantCache(AuditRun& run, const TaskRun& tr) : run_(run), context_(tr.context) {
    for (const auto& in : tr.pool) legal_flags_ += in.legal ? 'L' : '-';
    if (const AuditResult* prior = run.options.prior) take_prior(*prior, tr);
  }

  KernelCache load(const corpus::Kernel& kernel, const std::vector<const mutators::MutantRecord*>& records) const {
    const AuditOptions& options = run_.options;
    KernelCache kc;
    kc.rows = object_at(rows_key(kernel), "mutants", fits_row);
    // A probe naming inputs this pool does not have is not taken: probed again.
    const auto in_pool = [&](const json& v) { return v.get<int>() >= 0 && v.get<int>() < static_cast<int>(legal_flags_.size()); };
    for (auto& [id, row] : kc.rows.items())
      if (row.contains("sc") && row["sc"].get<int>() != -1 && !(in_pool(row["sc"]) && in_pool(row["scq"])))
        for (const char* key : {"sc", "scq", "sco"}) row.erase(key);
    for (auto& [id, row] : kc.rows.items())
      if (row.contains("ct") && row["ct"].get<int>() != -1 && !in_pool(row["ct"]))
        for (const char* key : {"ct", "ctc"}) row.erase(key);
    kc.oracle_witnesses = object_at(oracle_witnesses_key(kernel), "mutants", fits_oracle_witness);
    for (const auto& spec : options.oracles) {
      kc.verdicts.push_back(object_at(verdicts_key(kernel, spec, "verdicts"), "killed", fits_verdict));
      kc.strict_verdicts.push_back(object_at(verdicts_key(kernel, spec, "strict-verdicts"), "killed", fits_verdict));
    }
    kc.row_needed.resize(records.size());
    kc.ow_needed.resize(records.size());
    kc.sc_needed.resize(records.size());
    kc.ct_needed.resize(records.size());
    kc.missing.resize(records.size());
    kc.strict_missing.resize(records.size());
    for (std::size_t i = 0; i < records.size(); ++i) {
      const std::string& id = records[i]->mutant.id;
      if (const auto p = prior_.find(id); p != prior_.end()) {
        const MutantAudit& m = *p->second;
        bool full = true;
        std::string row;
        for (std::size_t q = 0; q < m.row.size(); ++q) {
          row += char('a' + static_cast<int>(m.row[q]));
          if (m.row[q] == Outcome::NotRun && legal_flags_[q] == 'L') full = false;
        }
        if (!kc.rows.contains(id)) {
          kc.prior_rows[id] = {{"ran", m.ran}, {"note", m.note}, {"row", row}, {"full", full}};
          if (m.second_call_probed)
            kc.prior_rows[id].update({{"sc", m.second_call_witness}, {"scq", m.second_call_first},
                                      {"sco", outcome_name(m.second_call_outcome)}});
          if (m.contract_checked) kc.prior_rows[id].update({{"ct", m.contract_witness}, {"ctc", m.contract_cause}});
        }
        if (!kc.oracle_witnesses.contains(id))
          kc.prior_oracle_witnesses[id] = {{"ow", m.oracle_witness}, {"owc", m.oracle_witness_cause}};
      }
      const json* row = kc.rows.contains(id) ? &kc.rows[id] : kc.prior_rows.contains(id) ? &kc.prior_rows[id] : nullptr;
      kc.row_needed[i] = !row || (options.full_matrix && !row->value("full", false));
      // The second-call probe: with every new row, and for a row of this cache made before the
      // probe existed whose mutant no run showed wrong (a prior run's row is taken as it is: a
      // run directory from before the probe reports its mutants unprobed).
      // A mutant of a prior run (`--from`) keeps that run's witness: the run's other results and
      // a later add_oracles rest on it.
      const bool of_prior = prior_.count(id) > 0;
      kc.sc_needed[i] = kc.row_needed[i] || (kc.rows.contains(id) && !of_prior && row->value("ran", false) &&
                                             !row->contains("sc") && !shows_fault(*row));
      // The contract check, likewise, for reward hacks only (a fault family's mutant is a fault
      // by its outputs; see MutantAudit::contract_checked).
      kc.ct_needed[i] = records[i]->mutant.site.family == mutators::Family::RewardHack &&
                        (kc.row_needed[i] || (kc.rows.contains(id) && !of_prior && row->value("ran", false) &&
                                              !row->contains("ct") && !shows_fault(*row) && row->value("sc", -1) < 0));
      // Verdicts and an oracle-mode witness cached while the mutant was unwitnessed (every verdict
      // null) are made again when it is probed: the probe may witness it. Cheap when it does not.
      bool cached_unwitnessed = true;
      for (std::size_t o = 0; o < options.oracles.size(); ++o)
        for (const json* v : {&kc.verdicts[o], &kc.strict_verdicts[o]})
          if (v->contains(id) && !(*v)[id].is_null()) cached_unwitnessed = false;
      const bool redo = (kc.sc_needed[i] || kc.ct_needed[i]) && cached_unwitnessed;
      kc.ow_needed[i] = redo || (!kc.oracle_witnesses.contains(id) && !kc.prior_oracle_witnesses.contains(id));
      for (std::size_t o = 0; o < options.oracles.size(); ++o) {
        if (redo || !kc.verdicts[o].contains(id)) kc.missing[i].push_back(o);
        if (redo || !kc.strict_verdicts[o].contains(id)) kc.strict_missing[i].push_back(o);
      }
      if (kc.row_needed[i] || kc.sc_needed[i] || kc.ct_needed[i] || kc.ow_needed[i] || !kc.missing[i].empty() ||
          !kc.strict_missing[i].empty())
        kc.todo.push_back(i);
    }
    return kc;
  }

  // What `audits` computed for the mutants kc.todo names, into `kc` and the cache files.
  void store(const corpus::Kernel& kernel, KernelCache& kc, const std::vector<MutantAudit>& audits) const {
    const AuditOptions& options = run_.options;
    bool rows_changed = false, ow_changed = false;
    for (std::size_t i : kc.todo) {
      const MutantAudit& a = audits[i];
      if (kc.ow_needed[i]) {
        kc.oracle_witnesses[a.scored.id] = {{"ow", a.oracle_witness}, {"owc", a.oracle_witness_cause}};
        ow_changed = true;
      }
      // A row of this cache gains its probe or its contract check; a row taken from a prior run is
      // never cached.
      const bool gained = (kc.sc_needed[i] && a.second_call_probed) || (kc.ct_needed[i] && a.contract_checked);
      if (!kc.row_needed[i] && !(gained && a.ran && kc.rows.contains(a.scored.id))) continue;
      std::string row;
      for (Outcome o : a.row) row += char('a' + static_cast<int>(o));
      const bool full = kc.row_needed[i] ? options.full_matrix : kc.rows[a.scored.id].value("full", false);
      kc.rows[a.scored.id] = {{"ran", a.ran}, {"note", a.note}, {"row", row}, {"full", full}};
      if (a.second_call_probed)
        kc.rows[a.scored.id].update({{"sc", a.second_call_witness}, {"scq", a.second_call_first},
                                     {"sco", outcome_name(a.second_call_outcome)}});
      if (a.contract_checked) kc.rows[a.scored.id].update({{"ct", a.contract_witness}, {"ctc", a.contract_cause}});
      rows_changed = true;
    }
    if (rows_changed) cache_write(run_.cache, rows_key(kernel), {{"mutants", kc.rows}});
    if (ow_changed) cache_write(run_.cache, oracle_witnesses_key(kernel), {{"mutants", kc.oracle_witnesses}});
    const auto store_verdicts = [&](std::vector<json>& cache, const std::vector<std::vector<std::size_t>>& missing,
                                    bool strict, const char* mode) {
      for (std::size_t o = 0; o < options.oracles.size(); ++o) {
        bool changed = false;
        const std::string& name = options.oracles[o].name;
        for (std::size_t i : kc.todo) {
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
        if (changed) cache_write(run_.cache, verdicts_key(kernel, options.oracles[o], mode), {{"killed", cache[o]}});
      }
    };
    store_verdicts(kc.verdicts, kc.missing, false, "verdicts");
    store_verdicts(kc.strict_verdicts, kc.strict_missing, true, "strict-verdicts");
  }

 private:
  // Whether a cached row shows the mutant wrong on a legal input (it has a witness).
  bool shows_fault(const json& row) const {
    const std::string& r = row["row"].get_ref<const std::string&>();
    for (std::size_t q = 0; q < r.size() && q < legal_flags_.size(); ++q)
      if (legal_flags_[q] == 'L' && r[q] != char('a' + static_cast<int>(Outcome::Pass)) &&
          r[q] != char('a' + static_cast<int>(Outcome::NotRun)))
        return true;
    return false;
  }
  std::string rows_key(const corpus::Kernel& k) const { return cache_key(context_, {"rows", k.source, legal_flags_}); }
  // Oracle-mode verdicts ("verdicts") and witness-mode ones ("strict-verdicts"). An oracle-mode
  // verdict keeps the trial that killed ("t", the tests' killedBy in reports/mte.h): "+trial" in
  // its key, so verdicts cached before they kept it are recomputed, not reported without it.
  std::string verdicts_key(const corpus::Kernel& k, const oracle::OracleSpec& spec, const char* mode) const {
    const std::string model = std::string(mode) == "verdicts" ? std::string(kOracleModelVersion) + "+trial" : "";
    return cache_key(context_, {mode, model, k.source, legal_flags_, oracle::spec_to_json(spec).dump()});
  }
  std::string oracle_witnesses_key(const corpus::Kernel& k) const {
    return cache_key(context_, {"oracle-witnesses", kOracleModelVersion, k.source, legal_flags_});
  }
  // A cached object of per-mutant entries; entries of another shape than `fits` accepts are
  // dropped (reported), so those mutants are recomputed instead of aborting the audit.
  json object_at(const std::string& key, const char* field, bool (*fits)(const json&)) const {
    auto cached = cache_read(run_.cache, key);
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
      cache::report_damaged(run_.cache / (key + ".json"), std::to_string(dropped) + " entries of an unexpected shape; recomputed");
    return entries;
  }

  // The prior run's mutants of this task, by id, when its pool is this task's (AuditOptions::prior).
  // A mutant it could not run (a build failure, a failed worker) is left out: computed here.
  void take_prior(const AuditResult& prior, const TaskRun& tr) {
    const auto pool = std::find_if(prior.pools.begin(), prior.pools.end(),
                                   [&](const TaskPool& p) { return p.task == tr.task.name; });
    if (pool == prior.pools.end() || pool->inputs.size() != tr.pool.size()) return;
    for (std::size_t p = 0; p < tr.pool.size(); ++p)
      if (recipe_key(pool->inputs[p].recipe) != tr.pool[p].key || pool->inputs[p].legal != tr.pool[p].legal) {
        run_.say("prior run: " + tr.task.name + ": its pool differs from this audit's at input " + std::to_string(p) +
                 " (" + tr.pool[p].recipe.name + "); its mutants are run here");
        return;
      }
    for (const auto& m : prior.mutants)
      if (m.scored.task == tr.task.name && m.ran && m.row.size() == tr.pool.size()) prior_.emplace(m.scored.id, &m);
  }

  AuditRun& run_;
  const std::string& context_;
  std::string legal_flags_;
  std::map<std::string, const MutantAudit*> prior_;
};

// A schema with no mutant active must be its kernel: each schema runs once, with the switch at 0,
// on a sanity input next to the original's build, and must give the same bits. One that does not
// (a rewrite the schema text got wrong would change every mutant in it, silently) is not used:
// its mutants are built standalone. One run per schema, a few per kernel.
void untrusted_schemata_to_standalone(AuditRun& run, const TaskRun& tr, const std::vector<const corpus::Kernel*>& kernels,
                                      std::map<std::string, KernelBuild>& builds, const MutantsByKernel& by_kernel) {
  const auto& pool = tr.pool;
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
    const auto original = run.backend.build(k->source, *k);
    if (!original.ok) continue;  // the gate built it; nothing to compare against here
    checks.push_back({k, original.library, true, {}});
    for (const auto& lib : schemata) checks.push_back({k, lib, false, {}});
  }
  run.runners.parallel_runs(checks.size(), [&](runtime::IsolatedRunner& runner, std::size_t c) {
    checks[c].result = run_one(runner, tr.task, *checks[c].kernel, checks[c].library, 0, tr.prepared[probe]);
    run.count_runs(1);
  });
  const auto same = [&](const runtime::RunResult& a, const runtime::RunResult& b) {
    if (a.status != b.status || a.outputs.size() != b.outputs.size()) return false;
    // On a GPU two runs of one kernel may round differently (atomics, scheduling): the same
    // within the witness tolerance there. A schema text that broke its kernel is far off.
    if (run.backend.cuda()) return oracle::apply_comparator(run.options.witness, a.outputs, b.outputs).ok;
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
    run.say(c.kernel->id() + ": a schema with no mutant active differs from the original (" +
            std::string(runtime::to_string(c.result.status)) + " vs " + runtime::to_string(original->status) + "); its " +
            std::to_string(moved.size()) + " mutants are built standalone");
    work_queue(moved.size(), jobs_of(run.options), [&](const auto& next) {
      for (std::size_t n = 0; next(n);) {
        const std::size_t i = moved[n];
        const auto built = run.backend.build(records[i]->mutant.source, *c.kernel);
        b.library[i] = built.ok ? built.library : fs::path();
        b.switch_value[i] = 0;
        b.failure[i] = built.ok ? "" : does_not_build(run.backend, built);
      }
    });
  }
}

// The builds of every kernel of the task with anything missing in its cache, the mutants with
// something missing only (a schema of the others would be wasted work), kernels side by side.
std::map<std::string, KernelBuild> build_kernels(AuditRun& run, TaskRun& tr, const MutantsByKernel& by_kernel,
                                                 const std::map<std::string, KernelCache>& kernel_cache) {
  std::map<std::string, KernelBuild> builds;
  std::vector<const corpus::Kernel*> to_build;
  for (const auto* kernel : tr.members)
    if (auto kc = kernel_cache.find(kernel->id()); kc != kernel_cache.end() && !kc->second.todo.empty())
      to_build.push_back(kernel);
  if (!to_build.empty())
    run.say("build: " + std::to_string(to_build.size()) + " kernel(s) of " + tr.task.name + " for the " +
            (run.backend.cuda() ? "CUDA" : "CPU") + " backend");
  for (const auto* k : to_build) builds[k->id()];
  std::vector<std::thread> threads;
  for (const auto* k : to_build)
    threads.emplace_back([&, k] {
      const KernelCache& kc = kernel_cache.at(k->id());
      const auto& records = by_kernel.at(k->id());
      std::vector<const mutators::MutantRecord*> needed;
      for (std::size_t i : kc.todo) needed.push_back(records[i]);
      KernelBuild some = build_mutants(run.backend, *k, needed, run.options);
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
  untrusted_schemata_to_standalone(run, tr, to_build, builds, by_kernel);
  return builds;
}

// A mutant's audit entry: what its record says, and what the cache holds of its results.
MutantAudit cached_audit(const AuditRun& run, const TaskRun& tr, const corpus::Kernel& kernel,
                         const mutators::MutantRecord& record, const KernelCache& kc) {
  const auto& m = record.mutant;
  MutantAudit a;
  a.scored.id = m.id;
  a.scored.task = tr.task.name;
  a.scored.kernel = kernel.id();
  a.scored.rule = m.site.rule;
  a.scored.family = m.site.family;
  a.file = m.site.file;
  a.range = std::to_string(m.site.begin_pos.line) + ":" + std::to_string(m.site.begin_pos.column) + "-" +
            std::to_string(m.site.end_pos.line) + ":" + std::to_string(m.site.end_pos.column);
  a.original = m.site.original;
  a.replacement = m.site.replacement;
  a.row.assign(tr.pool.size(), Outcome::NotRun);
  if (const json& rows = kc.rows.contains(m.id) ? kc.rows : kc.prior_rows; rows.contains(m.id)) {
    const json& c = rows[m.id];
    a.ran = c["ran"];
    a.note = c["note"];
    const std::string row = c["row"];
    for (std::size_t p = 0; p < tr.pool.size() && p < row.size(); ++p) a.row[p] = Outcome(row[p] - 'a');
    if (c.contains("sc")) {
      a.second_call_probed = true;
      a.second_call_witness = c["sc"];
      a.second_call_first = c["scq"];
      a.second_call_outcome = *outcome_from_name(c["sco"].get<std::string>());  // checked by fits_row
    }
    if (c.contains("ct")) {
      a.contract_checked = true;
      a.contract_witness = c["ct"];
      a.contract_cause = c["ctc"];
    }
  }
  if (const json& ows = kc.oracle_witnesses.contains(m.id) ? kc.oracle_witnesses : kc.prior_oracle_witnesses;
      ows.contains(m.id)) {
    a.oracle_witness = ows[m.id].value("ow", -1);
    a.oracle_witness_cause = ows[m.id].value("owc", "");
  }
  const auto load = [&](const json& cached, std::map<std::string, bool>& killed, std::map<std::string, std::string>& cause,
                        std::map<std::string, std::string>* trial, const std::string& oracle) {
    if (!cached.contains(m.id) || !cached[m.id].is_object()) return;
    killed[oracle] = cached[m.id].value("k", false);
    if (killed[oracle]) cause[oracle] = cached[m.id].value("c", "");
    if (killed[oracle] && trial && cached[m.id].contains("t")) (*trial)[oracle] = cached[m.id].value("t", "");
  };
  for (std::size_t o = 0; o < run.options.oracles.size(); ++o) {
    const std::string& name = run.options.oracles[o].name;
    load(kc.verdicts[o], a.scored.killed_by, a.scored.cause, &a.scored.trial, name);
    load(kc.strict_verdicts[o], a.scored.strict_killed_by, a.scored.strict_cause, nullptr, name);
  }
  return a;
}

// What one kernel's mutant runs report besides their results: exceptions (said with the kernel's
// progress line, so that a failure common to every run, a broken worker or a machine out of
// memory, shows there instead of passing for kills of every mutant).
struct KernelRunNotes {
  std::size_t exceptions = 0;
  std::string first_exception;
  // The kernel's original under the second-call probe, per (first, second) pool input: whether it
  // fails there too, in which case a mutant's failure there shows nothing of the mutant.
  std::mutex probe_mu;
  std::map<std::pair<std::size_t, std::size_t>, bool> original_fails_second_call;
  // The original's (launches, library calls) per pool input, for the contract check; nullopt: its
  // run there did not complete (no baseline: no breach is taken).
  std::map<std::size_t, std::optional<std::pair<int, int>>> original_counts;
};

// The evaluation of one mutant on one runner: what its kernel cache lacks (its kill-matrix row up
// to the witness, witness-mode verdicts, its oracle-mode witness, oracle-mode verdicts), computed
// in that order. Runs are made on demand and shared between the witness search and the oracles.
class MutantEvaluation {
 public:
  MutantEvaluation(AuditRun& run, TaskRun& tr, const corpus::Kernel& kernel, const KernelBuild& built,
                   const KernelCache& kc, std::size_t i, MutantAudit& a, runtime::IsolatedRunner& runner,
                   KernelRunNotes& notes)
      : run_(run), tr_(tr), kernel_(kernel), kc_(kc), i_(i), a_(a), runner_(runner), notes_(notes),
        library_(built.library[i]), switch_value_(built.switch_value[i]), judged_(tr.pool.size()),
        timeouts_(static_cast<int>(std::count(a.row.begin(), a.row.end(), Outcome::Timeout))) {}

  // Throws NoResult when a run could not happen (its worker failed).
  void evaluate() {
    const auto& pool = tr_.pool;
    // Witness search: legal inputs, cheap first, up to the first failure (every legal input when
    // full rows are asked for).
    if (kc_.row_needed[i_])
      for (std::size_t p = 0; p < pool.size(); ++p)
        if (pool[p].legal && outcome_at(p) != Outcome::Pass && !run_.options.full_matrix) break;
    // Only a witnessed mutant gets verdicts (the others are in no denominator).
    int witness = -1;
    for (std::size_t p = 0; p < pool.size() && witness < 0; ++p)
      if (pool[p].legal && a_.row[p] != Outcome::Pass && a_.row[p] != Outcome::NotRun) witness = static_cast<int>(p);
    if (witness < 0 && kc_.sc_needed[i_]) probe_second_call();
    if (witness < 0 && a_.second_call_witness < 0 && kc_.ct_needed[i_]) check_contract();
    const int shown = witness >= 0                    ? witness
                      : a_.second_call_witness >= 0 ? a_.second_call_witness
                                                    : a_.contract_witness;
    witness_mode_verdicts(shown);
    if (kc_.ow_needed[i_]) search_oracle_witness(witness, shown);
    oracle_mode_verdicts(shown);
    if (timeouts_ >= 2) a_.note = "timed out twice; later inputs not run, counted as timeouts";
  }

  std::size_t runs() const { return runs_; }

 private:
  // A run at pool input p; its outputs are judged at once, by the witness comparator and by the
  // comparator of each oracle that needs a witness-mode verdict and has this input among its
  // trials, and then dropped: at native shapes an output is hundreds of MB, and a mutant that
  // survives runs on every legal input (docs/calibration/h200-2026-12-03-v0b: an audit that kept
  // them ran the host out of memory).
  // One run of `library` (the mutant's, or the original's with switch value 0) at pool input p,
  // counted, its infrastructure failures noted under `what`; one that gave no result ends the
  // mutant's audit (NoResult).
  runtime::RunResult run_accounted(const fs::path& library, int switch_value, std::size_t p, const std::string& what) {
    runtime::RunResult r = run_one(runner_, tr_.task, kernel_, library, switch_value, tr_.prepared[p]);
    ++runs_;
    tr_.note_infra(run_, r, what);
    if (infrastructure_failure(r)) throw NoResult{};
    return r;
  }

  Outcome run_at(std::size_t p) {
    Outcome o = Outcome::Timeout;  // after two timeouts, assumed (see AuditOptions)
    if (timeouts_ < 2) {
      const runtime::RunResult r = run_accounted(library_, switch_value_, p, kernel_.id() + " mutant " + a_.scored.id);
      o = outcome_of(r);
      if (o == Outcome::Exception) note_exception(r.message);
      if (o == Outcome::Timeout) ++timeouts_;  // not ThreadBudget: that one cost nothing
      if (o == Outcome::Pass) {
        if (!oracle::apply_comparator(run_.options.witness, r.outputs, tr_.prepared[p].ref64).ok) o = Outcome::WrongOutput;
        else counts_[p] = {r.launches, r.library_calls};
        auto& why = judged_[p].emplace(run_.options.oracles.size());
        for (std::size_t oi : kc_.strict_missing[i_]) {
          if (!tr_.is_trial[oi][p]) continue;
          const oracle::OracleSpec& spec = run_.options.oracles[oi];
          const auto& ref = oracle_reference(spec, tr_.prepared[p]);
          if (const char* gate = oracle::gate_failure(spec.gates, r.launches, r.library_calls)) {
            why[oi] = gate;
            continue;
          }
          const oracle::RunFacts about = oracle::run_facts(r);
          const auto c = oracle::judge_outputs(spec, judge_facts(tr_, oi, p, &about), r.outputs);
          if (!c.ok) why[oi] = c.cause.empty() ? oracle::mismatch_cause(r.outputs, ref) : c.cause;
        }
      }
    }
    return a_.row[p] = o;
  }
  Outcome outcome_at(std::size_t p) { return a_.row[p] != Outcome::NotRun ? a_.row[p] : run_at(p); }

  // Witness mode's verdicts, for each oracle without one: its trials in order, on the witness
  // runs, up to the first it fails.
  void witness_mode_verdicts(int witness) {
    for (std::size_t oi : kc_.strict_missing[i_]) {
      const oracle::OracleSpec& spec = run_.options.oracles[oi];
      a_.scored.strict_killed_by.erase(spec.name);
      if (witness < 0) continue;  // cached as null
      bool killed = false;
      std::string cause;
      for (const auto& [p, trial] : tr_.oracle_trials[oi]) {
        if (!tr_.pool[p].usable) continue;
        Outcome o = outcome_at(p);
        // A cached cell that passed or gave a wrong output: its output is needed again.
        if ((o == Outcome::Pass || o == Outcome::WrongOutput) && !judged_[p]) o = run_at(p);
        if (o == Outcome::Pass || o == Outcome::WrongOutput) {
          killed = !judged_[p] || !(*judged_[p])[oi].empty();
          if (killed) cause = judged_[p] ? (*judged_[p])[oi] : "timeout";
        } else {
          killed = true;  // crash, timeout, divergence, out-of-bounds: a strict emulator's checker sees a failure
          cause = o == Outcome::ThreadBudget ? "timeout" : outcome_name(o);
        }
        if (killed) break;
      }
      a_.scored.strict_killed_by[spec.name] = killed;
      if (killed) a_.scored.strict_cause[spec.name] = cause;
    }
  }

  // The second-call probe, for a mutant no single run shows wrong: on up to kSecondCallProbes legal
  // inputs, cheap first, each after a first call on the nearest earlier legal input that binds to
  // arguments of the same shapes (the nearest later one when no earlier one does), until one
  // fails. A failure of the first call (which ran alone before, and passed) is not taken for the
  // mutant's, nor a failure the original shows on the same pair.
  static constexpr int kSecondCallProbes = 3;
  void probe_second_call() {
    const auto& pool = tr_.pool;
    a_.second_call_probed = true;
    a_.second_call_witness = a_.second_call_first = -1;
    a_.second_call_outcome = Outcome::Pass;
    int probes = 0;
    for (std::size_t p = 0; p < pool.size() && probes < kSecondCallProbes; ++p) {
      if (!pool[p].legal || !pool[p].usable || a_.row[p] != Outcome::Pass) continue;
      std::optional<runtime::RunResult> r;
      std::size_t first = 0;
      const auto try_first = [&](std::size_t q) {
        if (r || q == p || !pool[q].legal || !pool[q].usable || a_.row[q] != Outcome::Pass) return;
        r = run_second_call(runner_, tr_.task, kernel_, library_, switch_value_, tr_.prepared[q], tr_.prepared[p]);
        first = q;
      };
      for (std::size_t q = p; q-- > 0;) try_first(q);
      for (std::size_t q = p + 1; q < pool.size(); ++q) try_first(q);
      if (!r) continue;  // no input of the same shapes
      ++probes;
      ++runs_;
      tr_.note_infra(run_, *r, kernel_.id() + " mutant " + a_.scored.id + " (second call)");
      if (infrastructure_failure(*r)) throw NoResult{};
      if (r->first_call_failed) continue;
      const Outcome o = second_call_outcome(*r, p);
      if (o == Outcome::Pass || o == Outcome::Timeout || o == Outcome::ThreadBudget) continue;
      if (original_fails_second_call(first, p)) continue;
      a_.second_call_witness = static_cast<int>(p);
      a_.second_call_first = static_cast<int>(first);
      a_.second_call_outcome = o;
      return;
    }
  }

  Outcome second_call_outcome(const runtime::RunResult& r, std::size_t p) const {
    const Outcome o = outcome_of(r);
    if (o == Outcome::Pass && !oracle::apply_comparator(run_.options.witness, r.outputs, tr_.prepared[p].ref64).ok)
      return Outcome::WrongOutput;
    return o;
  }

  // The baseline of the probe: the original kernel on the same two inputs, once per kernel and
  // pair. An original that itself keeps state (an imported kernel that accumulates into memory it
  // did not clear) fails there too, and then no mutant of it is witnessed by that pair.
  bool original_fails_second_call(std::size_t q, std::size_t p) {
    // An original that does not build shows nothing either way: no witness.
    return original_baseline(notes_.original_fails_second_call, std::make_pair(q, p), true, [&](const fs::path& original) {
      const auto r = run_second_call(runner_, tr_.task, kernel_, original, 0, tr_.prepared[q], tr_.prepared[p]);
      ++runs_;
      if (r) tr_.note_infra(run_, *r, kernel_.id() + " original (second-call baseline of mutant " + a_.scored.id + ")");
      if (r && infrastructure_failure(*r)) throw NoResult{};
      return !r || r->first_call_failed || second_call_outcome(*r, p) != Outcome::Pass;
    });
  }

  // What the kernel's original gives for `key`, computed once per kernel (under notes_.probe_mu)
  // by run(the original's library), or `unbuilt` when the original does not build.
  template <class Key, class Value, class Run>
  Value original_baseline(std::map<Key, Value>& known, const Key& key, Value unbuilt, Run run) {
    std::lock_guard lock(notes_.probe_mu);
    if (const auto it = known.find(key); it != known.end()) return it->second;
    const auto original = run_.backend.build(kernel_.source, kernel_);
    return known[key] = original.ok ? run(original.library) : unbuilt;
  }

  // The contract check, for a reward hack whose outputs nothing showed wrong: on its legal inputs,
  // cheap first, a completed run with the right output that calls the library where the
  // original's run on the same input does not, or launches nothing where the original's launches.
  // The counts are the worker's (runtime::RunResult), from the witness search's runs; a row
  // cached before the check gets up to kContractRuns runs of its own. The original runs only where
  // the mutant's counts could be a breach, once per kernel and input.
  static constexpr int kContractRuns = 3;
  // A check that compared nothing (no run of the mutant or of the original completed on any input)
  // is not taken for "no breach": contract_checked stays false, so it is not cached.
  void check_contract() {
    const auto& pool = tr_.pool;
    a_.contract_checked = false;
    a_.contract_witness = -1;
    a_.contract_cause.clear();
    bool compared = false;
    int runs = 0;
    for (std::size_t p = 0; p < pool.size(); ++p) {
      if (!pool[p].legal || !pool[p].usable || a_.row[p] != Outcome::Pass) continue;
      auto counts = counts_.find(p);
      if (counts == counts_.end()) {
        if (runs >= kContractRuns) continue;
        ++runs;
        const runtime::RunResult r = run_accounted(library_, switch_value_, p, kernel_.id() + " mutant " + a_.scored.id + " (contract)");
        if (outcome_of(r) != Outcome::Pass || !oracle::apply_comparator(run_.options.witness, r.outputs, tr_.prepared[p].ref64).ok)
          continue;  // not what its cached row says: no verdict on the contract from this run
        counts = counts_.emplace(p, std::make_pair(r.launches, r.library_calls)).first;
      }
      // A count < 0 is one the worker did not make (a library built without the launch count): no
      // breach of it.
      const auto [launches, calls] = counts->second;
      if (launches < 0 && calls < 0) continue;
      if (calls <= 0 && launches != 0) {
        compared = true;  // the contract holds here (as far as it was counted), whatever the original does
        continue;
      }
      const auto original = original_counts(p);
      if (!original) continue;
      compared = true;
      const char* cause = oracle::contract_breach(launches, calls, original->first, original->second);
      if (cause == nullptr) continue;
      a_.contract_checked = true;
      a_.contract_witness = static_cast<int>(p);
      a_.contract_cause = cause;
      return;
    }
    a_.contract_checked = compared;
  }

  // The original kernel's (launches, library calls) at pool input p, once per kernel and input.
  std::optional<std::pair<int, int>> original_counts(std::size_t p) {
    using Counts = std::optional<std::pair<int, int>>;
    return original_baseline(notes_.original_counts, p, Counts{}, [&](const fs::path& original) -> Counts {
      const runtime::RunResult r =
          run_accounted(original, 0, p, kernel_.id() + " original (contract baseline of mutant " + a_.scored.id + ")");
      if (outcome_of(r) != Outcome::Pass) return std::nullopt;
      return std::make_pair(r.launches, r.library_calls);
    });
  }

  // Its oracle-mode witness: a legal input on which a KernelBench-style harness (one trial, the
  // witness comparator against the float64 reference) sees it fail; the witness-mode witness
  // first, then the other legal inputs, cheap first. A mutant only its second call shows wrong:
  // that harness with two trials, the probe's first input and then its witness. A contract
  // breach: that harness with one trial, the breach's input, and the gate that sees the breach.
  void search_oracle_witness(int witness, int shown) {
    a_.oracle_witness = -1;
    a_.oracle_witness_cause.clear();
    if (shown < 0) return;
    if (witness < 0 && a_.second_call_witness < 0) {
      const std::size_t p = static_cast<std::size_t>(shown);
      oracle::HarnessRequest rq =
          oracle::make_harness_request(oracle::HarnessSpec{}, run_.options.witness, tr_.task, kernel_, library_,
                                       switch_value_, {harness_trial(tr_.prepared[p], false, tr_.prepared[p].ref64)});
      rq.gates.no_library_compute = a_.contract_cause == "library-compute";
      rq.gates.kernel_launched = a_.contract_cause == "no-launch";
      const oracle::HarnessVerdict v = oracle::harness_verdict(rq, run_harness(rq, 0));
      if (v.killed) {
        a_.oracle_witness = shown;
        a_.oracle_witness_cause = v.cause;
      }
      return;
    }
    if (witness < 0) {
      const std::size_t q = static_cast<std::size_t>(a_.second_call_first), p = static_cast<std::size_t>(shown);
      const oracle::HarnessRequest rq = oracle::make_harness_request(
          oracle::HarnessSpec{}, run_.options.witness, tr_.task, kernel_, library_, switch_value_,
          {harness_trial(tr_.prepared[q], false, tr_.prepared[q].ref64),
           harness_trial(tr_.prepared[p], false, tr_.prepared[p].ref64)});
      const oracle::HarnessVerdict v = oracle::harness_verdict(rq, run_harness(rq, 0));
      if (v.killed) {
        a_.oracle_witness = shown;
        a_.oracle_witness_cause = v.cause;
      }
      return;
    }
    const auto& pool = tr_.pool;
    std::vector<std::size_t> order = {static_cast<std::size_t>(witness)};
    for (std::size_t p = 0; p < pool.size(); ++p)
      if (pool[p].legal && p != static_cast<std::size_t>(witness)) order.push_back(p);
    for (std::size_t p : order) {
      const oracle::HarnessRequest rq =
          oracle::make_harness_request(oracle::HarnessSpec{}, run_.options.witness, tr_.task, kernel_, library_,
                                       switch_value_, {harness_trial(tr_.prepared[p], false, tr_.prepared[p].ref64)});
      const oracle::HarnessResult hr = run_harness(rq, 0);
      const oracle::HarnessVerdict v = oracle::harness_verdict(rq, hr);
      if (v.killed) {
        a_.oracle_witness = static_cast<int>(p);
        a_.oracle_witness_cause = v.cause;
        return;
      }
    }
  }

  // Oracle mode's verdicts, for each oracle without one: its loop over its trials as one harness
  // run, up to the first trial it fails.
  void oracle_mode_verdicts(int witness) {
    for (std::size_t oi : kc_.missing[i_]) {
      const oracle::OracleSpec& spec = run_.options.oracles[oi];
      a_.scored.killed_by.erase(spec.name);
      a_.scored.cause.erase(spec.name);
      a_.scored.trial.erase(spec.name);
      if (witness < 0) continue;  // cached as null
      std::vector<oracle::PreparedTrial> trials;
      std::vector<std::string> trial_names;
      std::vector<std::pair<std::size_t, std::string>> usable;
      for (const auto& [p, trial] : tr_.oracle_trials[oi])
        if (tr_.pool[p].usable) {
          trials.push_back(harness_trial(tr_.prepared[p], spec.reference == oracle::ReferencePrecision::Fp64,
                                         oracle_reference(spec, tr_.prepared[p])));
          trial_names.push_back(trial);
          usable.emplace_back(p, trial);
        }
      if (trials.empty()) continue;
      oracle::HarnessRequest rq = oracle::make_harness_request(spec.harness, spec.comparator, tr_.task, kernel_,
                                                               library_, switch_value_, trials);
      rq.stop_at_failure = !spec.external;
      rq.gates = spec.gates;
      // On a GPU a mutant that timed out twice hangs: a checker's loop over it stops at its first
      // hang, so one run's wall-clock limit is enough to see it, not one per trial (a CPU worker
      // stops each run at its CPU-time limit itself).
      const oracle::HarnessResult hr = run_harness(rq, run_.backend.cuda() && timeouts_ >= 2 ? 1 : 0);
      const oracle::HarnessVerdict v = oracle::harness_verdict(rq, hr, external_judge(spec, tr_, oi, usable));
      a_.scored.killed_by[spec.name] = v.killed;
      if (v.killed) a_.scored.cause[spec.name] = v.cause;
      if (v.killed && v.trial >= 0 && static_cast<std::size_t>(v.trial) < trial_names.size())
        a_.scored.trial[spec.name] = trial_names[v.trial];
    }
  }

  // A harness run, counted; an exception it ended in noted; NoResult when its worker failed.
  oracle::HarnessResult run_harness(const oracle::HarnessRequest& rq, int max_timeouts) {
    oracle::HarnessResult hr = oracle::run_harness(runner_, rq, max_timeouts);
    runs_ += hr.trials.size();
    for (const auto& t : hr.trials)  // a loop an external checker judges goes on past one
      if (t.status == runtime::Status::Exception) {
        note_exception(t.message);
        break;
      }
    if (hr.infrastructure_failure) {
      tr_.note_infra(run_, kernel_.id() + " mutant " + a_.scored.id + ": " + hr.trials.back().message);
      throw NoResult{};
    }
    return hr;
  }

  void note_exception(const std::string& message) {
    std::lock_guard lock(run_.mu);
    if (notes_.exceptions++ == 0) notes_.first_exception = message.substr(0, 300);
  }

  AuditRun& run_;
  TaskRun& tr_;
  const corpus::Kernel& kernel_;
  const KernelCache& kc_;
  const std::size_t i_;
  MutantAudit& a_;
  runtime::IsolatedRunner& runner_;
  KernelRunNotes& notes_;
  const fs::path& library_;
  const int switch_value_;
  // judged_[p][o]: why oracle o rejects the run at p (empty: it accepts); no entry: no run at p
  // in this audit, or its output was not ok.
  std::vector<std::optional<std::vector<std::string>>> judged_;
  // (launches, library calls) of the runs at p that completed with the right output.
  std::map<std::size_t, std::pair<int, int>> counts_;
  int timeouts_;
  std::size_t runs_ = 0;
};

// The mutants of one kernel with anything missing (kc.todo) evaluated side by side, with a
// progress line a minute (at native shapes a kernel takes minutes, and a run cut off by a time
// limit should still say how far it got) and a summary line; the results cached.
void run_kernel_mutants(AuditRun& run, TaskRun& tr, const corpus::Kernel& kernel, const KernelBuild& built,
                        KernelCache& kc, std::vector<MutantAudit>& audits) {
  const std::vector<std::size_t>& todo = kc.todo;
  run.say("audit: " + kernel.id() + " (" + std::to_string(todo.size()) + " of " + std::to_string(audits.size()) +
          " mutants x " + std::to_string(tr.pool.size()) + " inputs)");
  for (std::size_t i : todo)
    if (built.library[i].empty()) audits[i].note = built.failure[i];
  const auto kernel_start = std::chrono::steady_clock::now();
  const std::size_t runs_before = run.out.runs;
  KernelRunNotes notes;
  const RunnerPool::Times times_before = run.runners.times();
  const std::uint64_t waits_before = run.runners.budget().waits();
  std::size_t mutants_done = 0;
  auto last_said = std::chrono::steady_clock::now();
  // Each runner's exchange times when it took its first mutant here: the progress line says how
  // the runner that writes it spent its time since (its own counters, read on its own thread; the
  // pool's totals are read only between stages).
  std::map<const runtime::IsolatedRunner*, runtime::ExchangeTimes> runner_start;
  run.runners.parallel_runs(todo.size(), [&](runtime::IsolatedRunner& runner, std::size_t t) {
    {
      std::lock_guard lock(run.mu);
      runner_start.try_emplace(&runner, runner.times());
    }
    const std::size_t i = todo[t];
    MutantAudit& a = audits[i];
    if (built.library[i].empty()) {
      a.ran = false;
      return;
    }
    if (run.backend.cuda() && mutators::rule_keeps_state(a.scored.rule)) {
      // A CUDA worker serves many runs in one process, its kernel libraries loaded once: the state
      // such a mutant keeps would carry over from whatever ran before it, and its verdicts with it.
      a.ran = false;
      a.note = "not run on the CUDA backend: it keeps state between calls, which a CUDA worker's earlier runs "
               "would set (docs/ORACLES.md, \"A fault only a second call shows\"); audit it with --backend cpu";
      return;
    }
    a.ran = true;
    // A run that kaudit itself could not make (infrastructure_failure: no worker, or one that
    // failed on its own twice) says nothing about the mutant: it gets no result in this audit
    // (not ran: in no denominator, listed with the problems; nothing of the kernel is cached).
    MutantEvaluation evaluation(run, tr, kernel, built, kc, i, a, runner, notes);
    try {
      evaluation.evaluate();
    } catch (const NoResult&) {
      a.ran = false;
      a.note = "no result: kaudit could not run it (its worker failed; not cached, re-run)";
      a.scored.killed_by.clear();
      a.scored.cause.clear();
      a.scored.trial.clear();
      a.scored.strict_killed_by.clear();
      a.scored.strict_cause.clear();
    }
    std::lock_guard lock(run.mu);
    run.out.runs += evaluation.runs();
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
      run.say("audit: " + kernel.id() + ": " + std::to_string(mutants_done) + " of " + std::to_string(todo.size()) +
              " mutants done, " + std::to_string(run.out.runs - runs_before) + " runs" + split);
    }
  });
  const RunnerPool::Times spent = run.runners.times() - times_before;
  char line[200];
  std::snprintf(line, sizeof line, "audit: %s done: %zu runs in %.0f s, %d workers started (%.0f s waiting for them)",
                kernel.id().c_str(), run.out.runs - runs_before,
                std::chrono::duration<double>(std::chrono::steady_clock::now() - kernel_start).count(),
                spent.exchanges.starts, spent.exchanges.start);
  run.say(line);
  run.say(time_split("audit: " + kernel.id(), spent));
  if (const std::uint64_t waits = run.runners.budget().waits() - waits_before; waits > 0) {
    std::snprintf(line, sizeof line,
                  "audit: %s: %llu runs waited for memory (at most %.2f GB in flight to workers; --run-memory-gb)",
                  kernel.id().c_str(), static_cast<unsigned long long>(waits),
                  double(run.runners.budget().peak()) / double(1ull << 30));
    run.say(line);
  }
  if (notes.exceptions)
    run.say("audit: " + kernel.id() + ": " + std::to_string(notes.exceptions) +
            " runs ended in an exception; the first said: " + notes.first_exception);
}

}  // namespace

void audit_mutants(AuditRun& run, TaskRun& tr, const MutantsByKernel& by_kernel) {
  static const std::vector<const mutators::MutantRecord*> none;
  const auto records_of = [&](const corpus::Kernel& k) -> const std::vector<const mutators::MutantRecord*>& {
    const auto it = by_kernel.find(k.id());
    return it == by_kernel.end() ? none : it->second;
  };
  const MutantCache cache(run, tr);
  std::map<std::string, KernelCache> kernel_cache;
  for (const auto* kernel : tr.members)
    if (const auto& records = records_of(*kernel); !records.empty())
      kernel_cache.emplace(kernel->id(), cache.load(*kernel, records));
  const std::map<std::string, KernelBuild> builds = build_kernels(run, tr, by_kernel, kernel_cache);
  run.lap("mutant builds (schemata, standalone)");

  for (const auto* kernel : tr.members) {
    const auto& records = records_of(*kernel);
    if (records.empty()) continue;
    KernelCache& kc = kernel_cache.at(kernel->id());
    std::vector<MutantAudit> audits;
    for (const auto* record : records) audits.push_back(cached_audit(run, tr, *kernel, *record, kc));
    if (kc.todo.empty()) {
      ++run.out.cached_kernels;
    } else {
      run_kernel_mutants(run, tr, *kernel, builds.at(kernel->id()), kc, audits);
      if (tr.infra_failures.empty()) cache.store(*kernel, kc, audits);
    }
    // Witness: the first legal input (pool order is cheap first) on which the mutant fails.
    for (auto& a : audits) {
      for (const auto& name : run.oracle_names) a.scored.killed_by.emplace(name, false);
      for (std::size_t p = 0; p < tr.pool.size(); ++p) {
        if (tr.pool[p].legal && a.row[p] != Outcome::Pass && a.row[p] != Outcome::NotRun) {
          a.witness = static_cast<int>(p);
          a.witness_outcome = a.row[p];
          break;
        }
      }
      // A fault a second call shows (the probe) is witnessed as much as one a single run shows.
      a.scored.witnessed = a.shown_at() >= 0;
      a.scored.oracle_witnessed = a.scored.witnessed && a.oracle_witness >= 0;
      if (!a.ran) run.out.problems.push_back(a.scored.id + " (" + a.scored.kernel + ", " + a.scored.rule + "): " + a.note);
      run.out.mutants.push_back(std::move(a));
    }
  }
  run.lap("mutant runs (witnesses, verdicts)");
}

}  // namespace kaudit::audit
