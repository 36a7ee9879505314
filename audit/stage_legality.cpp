// Stage 3 of the audit: legality of the pool against the correct set, and each oracle's false
// kills of the correct set (see stages.h).
#include <algorithm>

#include "audit/audit_cache.h"
#include "audit/stages.h"
#include "mutators/mutators.h"
#include "oracle/compare.h"

namespace kaudit::audit {
using nlohmann::json;

bool is_sanity_input(const PoolInput& in) {
  return std::any_of(in.used_by.begin(), in.used_by.end(),
                     [](const std::string& u) { return u == "gate/gate-uniform01" || u == "gate/gate-normal"; });
}

void TaskRun::build_members(AuditRun& run) {
  if (!member_builds.empty()) return;
  member_builds.resize(correct.size());
  work_queue(correct.size(), jobs_of(run.options), [&](const auto& next) {
    for (std::size_t m = 0; next(m);) member_builds[m] = run.backend.build(correct[m].source, *correct[m].kernel);
  });
}

std::vector<const Member*> TaskRun::admitted() const {
  std::vector<const Member*> out;
  for (std::size_t m = 0; m < correct.size(); ++m)
    if (result.correct_set[m + 1].admitted) out.push_back(&correct[m]);
  return out;
}

namespace {

// The neutral variants come from the mutant set when there is one (made where Clang is).
std::vector<Member> correct_set_of(const std::vector<const corpus::Kernel*>& kernels, const mutators::MutantSet* set,
                                   const AuditRun& run) {
  std::vector<Member> out;
  for (const auto* k : kernels) out.push_back({k->id(), k, k->source, false});
  for (const auto* k : kernels) {
    if (set) {
      if (auto e = set->neutral_error.find(k->id()); e != set->neutral_error.end())
        run.say(k->id() + ": no neutral variants (" + e->second.substr(0, 200) + ")");
      if (auto n = set->neutral.find(k->id()); n != set->neutral.end())
        for (const auto& v : n->second) out.push_back({v.id, k, v.source, true});
      continue;
    }
    try {
      for (auto& v : mutators::neutral_variants({k->id(), k->file, k->source}))
        out.push_back({v.id, k, std::move(v.source), true});
    } catch (const mutators::ParseError& e) {
      run.say(k->id() + ": no neutral variants (" + std::string(e.what()).substr(0, 200) + ")");
    }
  }
  return out;
}

// The legality runs: every correct-set member on every usable input. Fills the pool's legality and
// the correct set's admission, and tr.oracle_why for the false kills.
void run_legality(AuditRun& run, TaskRun& tr) {
  const AuditOptions& options = run.options;
  auto& pool = tr.pool;
  const auto& correct = tr.correct;
  run.say("legality: " + tr.task.name + " (" + std::to_string(correct.size()) + " correct kernels and neutral variants x " +
          std::to_string(pool.size()) + " inputs)");
  tr.build_members(run);
  const RunnerPool::Times legality_before = run.runners.times();
  // Per (member, input): why the member fails the witness tolerance (empty: it passes).
  std::vector<std::string> why(correct.size() * pool.size());
  std::vector<std::string> illegal(pool.size());
  tr.oracle_why.assign(options.oracles.size(), std::vector<std::string>(correct.size() * pool.size()));
  for (std::size_t p = 0; p < pool.size(); ++p) {
    pool[p].legal = pool[p].usable;
    if (!pool[p].usable) continue;
    const auto c = oracle::apply_comparator(options.witness, tr.prepared[p].ref32, tr.prepared[p].ref64);
    if (!c.ok) illegal[p] = "reference-fp32: " + c.to_string();  // the float32 reference is a member too
  }
  run.runners.parallel_runs(correct.size() * pool.size(), [&](runtime::IsolatedRunner& runner, std::size_t i) {
    const std::size_t m = i / pool.size(), p = i % pool.size();
    const Member& member = correct[m];
    if (!pool[p].usable) return;
    if (!tr.member_builds[m].ok) {
      why[i] = member.id + " does not build: " + tr.member_builds[m].diagnostics.substr(0, 200);
      for (std::size_t o = 0; o < options.oracles.size(); ++o)
        if (tr.is_trial[o][p]) tr.oracle_why[o][i] = "does not build";
      return;
    }
    const auto r = run_one(runner, tr.task, *member.kernel, tr.member_builds[m].library, 0, tr.prepared[p]);
    tr.note_infra(run, r, tr.task.name + " legality, " + member.id);
    const std::string failed = std::string(runtime::to_string(r.status)) + " " + r.message.substr(0, 200);
    if (r.status != runtime::Status::Ok) {
      why[i] = member.id + ": " + failed;
    } else {
      const auto c = oracle::apply_comparator(options.witness, r.outputs, tr.prepared[p].ref64);
      if (!c.ok) why[i] = member.id + ": " + c.to_string();
    }
    for (std::size_t o = 0; o < options.oracles.size(); ++o) {
      if (!tr.is_trial[o][p]) continue;
      const oracle::OracleSpec& spec = options.oracles[o];
      if (r.status != runtime::Status::Ok) {
        tr.oracle_why[o][i] = failed;
      } else {
        const oracle::RunFacts about = oracle::run_facts(r);
        const auto c = oracle::judge_outputs(spec, judge_facts(tr, o, p, &about), r.outputs);
        if (const char* gate = oracle::gate_failure(spec.gates, r.launches, r.library_calls)) tr.oracle_why[o][i] = gate;
        else if (!c.ok) tr.oracle_why[o][i] = c.cause.empty() ? c.to_string() : c.cause;  // a gate the checker named
      }
    }
    run.count_runs(1);
  });
  run.say(time_split("legality: " + tr.task.name, run.runners.times() - legality_before));
  // Admission: corpus kernels always; a neutral variant when it passes the sanity inputs.
  for (std::size_t m = 0; m < correct.size(); ++m) {
    CorrectMember cm{correct[m].id, correct[m].neutral ? "neutral" : "kernel", true, ""};
    if (correct[m].neutral) {
      if (!tr.member_builds[m].ok) {
        cm.admitted = false;
        cm.note = "does not build: " + tr.member_builds[m].diagnostics.substr(0, 200);
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
    tr.result.correct_set.push_back(std::move(cm));
  }
  for (std::size_t p = 0; p < pool.size(); ++p) {
    if (!illegal[p].empty()) {
      pool[p].legal = false;
      pool[p].note = illegal[p];
    }
  }
}

// The false kills of the float32 reference on an oracle's trials (no run needed).
void reference_false_kills(const TaskRun& tr, std::size_t oracle, const oracle::OracleSpec& spec,
                           const std::vector<std::pair<std::size_t, std::string>>& trials, std::vector<FalseKill>& fks) {
  for (const auto& [p, trial] : trials) {
    if (!tr.pool[p].usable) continue;
    const auto c = oracle::judge_outputs(spec, judge_facts(tr, oracle, p), tr.prepared[p].ref32);
    if (!c.ok) fks.push_back({spec.name, "reference-fp32", tr.task.name, trial, c.to_string()});
  }
}

// The key of an oracle's false kills in `mode`: the correct set, its admission and the spec.
std::string false_kills_key(const TaskRun& tr, const oracle::OracleSpec& spec, bool oracle_mode) {
  std::vector<std::string> parts = tr.member_parts;
  parts.push_back(oracle_mode ? "false-kills-oracle-mode" : "false-kills");
  if (oracle_mode) parts.push_back(kOracleModelVersion);
  parts.push_back(oracle::spec_to_json(spec).dump());
  for (const auto& cm : tr.result.correct_set) parts.push_back(cm.id + (cm.admitted ? "+" : "-"));
  return cache_key(tr.context, parts);
}

// Witness mode's false kills, per oracle: the admitted members (and the float32 reference) on
// its trials, under its own comparator. Cached per oracle, so scoring another oracle costs only
// its runs.
void witness_mode_false_kills(AuditRun& run, TaskRun& tr) {
  const AuditOptions& options = run.options;
  const std::vector<const Member*> admitted = tr.admitted();
  for (std::size_t o = 0; o < options.oracles.size(); ++o) {
    const oracle::OracleSpec& spec = options.oracles[o];
    const std::string key = false_kills_key(tr, spec, false);
    std::vector<FalseKill> fks;
    if (!cached_false_kills(run.cache, key, spec.name, tr.task.name, fks)) {
      const auto& trials = tr.oracle_trials[o];
      reference_false_kills(tr, o, spec, trials, fks);
      if (!tr.oracle_why.empty()) {
        // Legality ran in this audit: its runs hold every admitted member on every trial.
        for (std::size_t m = 0; m < tr.correct.size(); ++m) {
          if (!tr.result.correct_set[m + 1].admitted) continue;
          for (const auto& [p, trial] : trials) {
            const std::string& why = tr.oracle_why[o][m * tr.pool.size() + p];
            if (tr.pool[p].usable && !why.empty()) fks.push_back({spec.name, tr.correct[m].id, tr.task.name, trial, why});
          }
        }
      } else if (!admitted.empty() && !trials.empty()) {
        tr.build_members(run);
        std::mutex fks_mu;
        run.runners.parallel_runs(admitted.size() * trials.size(), [&](runtime::IsolatedRunner& runner, std::size_t i) {
          const Member& member = *admitted[i / trials.size()];
          const auto& [p, trial] = trials[i % trials.size()];
          if (!tr.pool[p].usable) return;
          const auto& build = tr.member_builds[static_cast<std::size_t>(&member - tr.correct.data())];
          std::string why;
          if (!build.ok) {
            why = "does not build";
          } else {
            const auto r = run_one(runner, tr.task, *member.kernel, build.library, 0, tr.prepared[p]);
            tr.note_infra(run, r, tr.task.name + " false kills of " + spec.name + ", " + member.id);
            if (infrastructure_failure(r)) return;  // no result, listed with the problems
            if (r.status != runtime::Status::Ok) {
              why = std::string(runtime::to_string(r.status)) + " " + r.message.substr(0, 200);
            } else {
              const oracle::RunFacts about = oracle::run_facts(r);
              const auto c = oracle::judge_outputs(spec, judge_facts(tr, o, p, &about), r.outputs);
              if (const char* gate = oracle::gate_failure(spec.gates, r.launches, r.library_calls)) why = gate;
              else if (!c.ok) why = c.cause.empty() ? c.to_string() : c.cause;  // a gate the checker named
            }
          }
          run.count_runs(1);
          std::lock_guard lock(fks_mu);
          if (!why.empty()) fks.push_back({spec.name, member.id, tr.task.name, trial, why});
        });
      }
      const json record = false_kills_record(fks);
      if (tr.infra_failures.empty()) cache_write(run.cache, key, record);
    }
    run.out.strict_false_kills.insert(run.out.strict_false_kills.end(), fks.begin(), fks.end());
  }
}

// Oracle mode's false kills: each admitted member through each oracle's harness, all of its
// trials in one run (up to the first it fails), as the checker would run it. Cached per oracle.
// The harness runs of every oracle not cached go in one pass, (oracle, member) pairs spread over
// all the runners: one pass per oracle kept most runners idle (a task has a few members).
void oracle_mode_false_kills(AuditRun& run, TaskRun& tr) {
  const AuditOptions& options = run.options;
  const std::vector<const Member*> admitted = tr.admitted();
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
    of.key = false_kills_key(tr, spec, true);
    of.cached = cached_false_kills(run.cache, of.key, spec.name, tr.task.name, of.fks);
    if (of.cached) continue;
    for (const auto& t : tr.oracle_trials[o])
      if (tr.pool[t.first].usable) of.trials.push_back(t);
    reference_false_kills(tr, o, spec, of.trials, of.fks);
    if (!of.trials.empty())
      for (std::size_t i = 0; i < admitted.size(); ++i) harness_runs.emplace_back(o, i);
  }
  if (!harness_runs.empty()) {
    tr.build_members(run);
    run.runners.parallel_runs(harness_runs.size(), [&](runtime::IsolatedRunner& runner, std::size_t h) {
      const auto [o, i] = harness_runs[h];
      const oracle::OracleSpec& spec = options.oracles[o];
      OracleFalseKills& of = oracle_fks[o];
      const auto& trials = of.trials;
      const Member& member = *admitted[i];
      const auto& build = tr.member_builds[static_cast<std::size_t>(&member - tr.correct.data())];
      std::string why, trial = trials[0].second;
      std::size_t runs = 0;
      if (!build.ok) {
        why = "does not build";
      } else {
        std::vector<oracle::PreparedTrial> prepared_trials;
        for (const auto& [p, name] : trials)
          prepared_trials.push_back(harness_trial(tr.prepared[p], spec.reference == oracle::ReferencePrecision::Fp64,
                                                  oracle_reference(spec, tr.prepared[p])));
        oracle::HarnessRequest rq = oracle::make_harness_request(spec.harness, spec.comparator, tr.task,
                                                                 *member.kernel, build.library, 0, prepared_trials);
        rq.stop_at_failure = !spec.external;
        rq.gates = spec.gates;
        const oracle::HarnessResult hr = oracle::run_harness(runner, rq);
        runs = hr.trials.size();
        if (hr.infrastructure_failure) {
          tr.note_infra(run, tr.task.name + " false kills of " + spec.name + ", " + member.id + ": " +
                                 hr.trials.back().message);
          return;
        }
        const oracle::HarnessVerdict v = oracle::harness_verdict(rq, hr, external_judge(spec, tr, o, trials));
        if (v.killed) {
          why = v.cause + ": " + v.detail;
          trial = trials[static_cast<std::size_t>(v.trial)].second;
        }
      }
      std::lock_guard lock(run.mu);
      run.out.runs += runs;
      if (!why.empty()) of.fks.push_back({spec.name, member.id, tr.task.name, trial, why});
    });
  }
  for (OracleFalseKills& of : oracle_fks) {
    if (!of.cached) {
      const json record = false_kills_record(of.fks);
      if (tr.infra_failures.empty()) cache_write(run.cache, of.key, record);
    }
    run.out.false_kills.insert(run.out.false_kills.end(), of.fks.begin(), of.fks.end());
  }
}

}  // namespace

void decide_legality(AuditRun& run, TaskRun& tr) {
  auto& pool = tr.pool;
  tr.correct = correct_set_of(tr.members, run.options.mutant_set, run);
  tr.member_parts = {"legality", tr.task.name};
  for (const auto& m : tr.correct) tr.member_parts.push_back(m.id + "\n" + m.source);
  const std::string legality_key = cache_key(tr.context, tr.member_parts);
  tr.result.correct_set.push_back({"reference-fp32", "reference", true, ""});
  std::vector<bool> cached_legal;
  std::vector<std::string> cached_note;
  std::vector<CorrectMember> cached_set;
  const auto cached = cache_read(run.cache, legality_key);
  if (cached && decode_cached(run.cache, legality_key, *cached, [&](const json& c) {
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
    tr.result.correct_set.insert(tr.result.correct_set.end(), cached_set.begin(), cached_set.end());
    return;
  }
  run_legality(run, tr);
  json c = {{"legal", json::array()}, {"note", json::array()}, {"correct_set", json::array()}};
  for (const auto& in : pool) {
    c["legal"].push_back(in.legal);
    c["note"].push_back(in.note);
  }
  for (std::size_t m = 1; m < tr.result.correct_set.size(); ++m) {
    const auto& cm = tr.result.correct_set[m];
    c["correct_set"].push_back({{"id", cm.id}, {"kind", cm.kind}, {"admitted", cm.admitted}, {"note", cm.note}});
  }
  if (tr.infra_failures.empty()) cache_write(run.cache, legality_key, c);
}

void false_kills(AuditRun& run, TaskRun& tr) {
  const RunnerPool::Times before = run.runners.times();
  witness_mode_false_kills(run, tr);
  oracle_mode_false_kills(run, tr);
  if (const RunnerPool::Times spent = run.runners.times() - before; spent.exchanges.exchanges > 0)
    run.say(time_split("false kills: " + tr.task.name, spent));
}

}  // namespace kaudit::audit
