// The stages of run_audit (audit.h lists them), each a function over the state it shares with the
// others: AuditRun for the whole audit, TaskRun for one task (internal to audit/).
//
//   AuditRun run(options);
//   kernels = mutate(run, corpus);                      stage 1 (audit.cpp)
//   export_references(run, corpus, kernels);            stage 2, every task's references at once
//   per task: TaskRun tr(task, members);
//     prepare_pool(run, tr);                            stage 2 (stage_pool.cpp)
//     decide_legality(run, tr); false_kills(run, tr);   stage 3 (stage_legality.cpp)
//     audit_mutants(run, tr, by_kernel);                stages 4-5 (stage_mutants.cpp)
//   score(run);                                         (audit.cpp)
#pragma once

#include <ATen/core/Tensor.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "audit/audit.h"
#include "audit/backend.h"
#include "audit/runners.h"
#include "audit/spill.h"
#include "oracle/harness.h"
#include "oracle/reference.h"

namespace kaudit::audit {

// What the whole audit shares: options, backend, workers, references, the cache and the result.
class AuditRun {
 public:
  explicit AuditRun(const AuditOptions& options);
  const AuditOptions& options;
  const Backend backend;
  const std::filesystem::path cache;  // <cache>/audit
  AuditResult out;
  std::mutex mu;  // guards `out` and the stages' counters while workers run
  oracle::ReferenceStore references;
  RunnerPool runners;  // workers start on their first run
  std::vector<std::string> oracle_names;
  const std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();

  void say(const std::string& line) const;
  // Wall time since the last lap to stage_seconds[stage] (summed over tasks): where a cold audit
  // spends its time.
  void lap(const char* stage);
  void count_runs(std::size_t n);  // out.runs += n, from any thread

 private:
  std::chrono::steady_clock::time_point last_lap_ = start;
};

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

// The reference an oracle compares against: float64 or float32, as its spec says.
const std::vector<at::Tensor>& oracle_reference(const oracle::OracleSpec& o, const Prepared& p);
// What an oracle's judgement of a run at pool input `p` is about (oracle::judge_outputs): the
// task, the oracle's trial there (its first trial on `p`: name and place), the inputs and both
// references.
oracle::JudgeFacts judge_facts(const struct TaskRun& tr, std::size_t oracle, std::size_t p,
                               const oracle::RunFacts* run = nullptr);
// harness_verdict's judge for an oracle with an external checker, over the harness's trials
// (pool input, trial name) in order; empty (the request's comparator judges) for the others.
oracle::TrialJudge external_judge(const oracle::OracleSpec& spec, const struct TaskRun& tr, std::size_t oracle,
                                  const std::vector<std::pair<std::size_t, std::string>>& trials);
// One trial of an oracle-mode harness run on pool input `p`: the harness holds the spec's
// reference (its device footprint is that forward's) and the verdict compares against `judge`.
oracle::PreparedTrial harness_trial(const Prepared& p, bool fp64, const std::vector<at::Tensor>& judge);
// One run of `kernel`'s build `library` (mutant `active_mutant` switched on, 0: none) on `p`.
runtime::RunResult run_one(runtime::IsolatedRunner& runner, const corpus::Task& task, const corpus::Kernel& kernel,
                           const std::filesystem::path& library, int active_mutant, const Prepared& p);
// The second-call probe (runtime::RunRequest::first_call): `kernel` called on `first`'s values,
// then on `p`'s in the same buffers, in one process; the result is the second call's. nullopt when
// the two inputs do not bind to arguments of the same shapes, dtypes and scalars.
std::optional<runtime::RunResult> run_second_call(runtime::IsolatedRunner& runner, const corpus::Task& task,
                                                  const corpus::Kernel& kernel, const std::filesystem::path& library,
                                                  int active_mutant, const Prepared& first, const Prepared& p);
// The inputs every neutral variant must pass to be admitted: benign values on the small preset.
bool is_sanity_input(const PoolInput& in);

// A kernel of a task's correct set: a corpus kernel or one of its neutral variants (the same
// entry and binding, another source).
struct Member {
  std::string id;
  const corpus::Kernel* kernel;
  std::string source;
  bool neutral = false;
};

// What the stages of one task share.
struct TaskRun {
  TaskRun(const AuditRun& run, const corpus::Task& task, std::vector<const corpus::Kernel*> members);
  const corpus::Task& task;
  std::vector<const corpus::Kernel*> members;  // the task's audited kernels
  TaskPool result;                             // the pool and correct set reported
  std::vector<PoolInput>& pool = result.inputs;
  // Per oracle: the pool inputs of its trials, in the spec's trial order, with the trial names;
  // and per oracle and pool input whether that input is one of its trials.
  std::vector<std::vector<std::pair<std::size_t, std::string>>> oracle_trials;
  std::vector<std::vector<bool>> is_trial;
  std::vector<Prepared> prepared;  // per pool input; empty where it is not usable
  PoolMemory memory;
  std::string context;  // context_digest of the pool: in every cache key of the task
  // Runs that could not happen (infrastructure failures): reported, and nothing of the task that
  // depends on them is cached.
  std::vector<std::string> infra_failures;
  void note_infra(AuditRun& run, const runtime::RunResult& r, const std::string& what);
  void note_infra(AuditRun& run, const std::string& failure);

  // Legality's: the correct set, the key parts naming it, its builds (made on first need), and
  // per oracle, member and pool input why the oracle rejects the member there (filled only when
  // legality ran in this audit: its runs then hold every admitted member on every trial).
  std::vector<Member> correct;
  std::vector<std::string> member_parts;
  std::vector<cpu::CpuBuild> member_builds;
  std::vector<std::vector<std::string>> oracle_why;
  void build_members(AuditRun& run);
  // The admitted members (result.correct_set[m + 1] is correct[m]'s entry; [0] is the reference).
  std::vector<const Member*> admitted() const;
};

// Stage 1: the audited kernels, in corpus order; their mutants into run.out.pipeline.
std::vector<const corpus::Kernel*> mutate(AuditRun& run, const corpus::Corpus& corpus);
// Stage 2, before the task loop: every missing reference of the audited tasks' pools exported,
// `jobs` at a time.
void export_references(AuditRun& run, const corpus::Corpus& corpus, const std::vector<const corpus::Kernel*>& kernels);
// Stage 2: the task's pool made concrete (inputs, references, recorded forwards), its trials per
// oracle and its cache context.
void prepare_pool(AuditRun& run, TaskRun& tr);
// Stage 3: legality of every pool input against the correct set.
void decide_legality(AuditRun& run, TaskRun& tr);
// Stage 3: each oracle's false kills, in witness mode and in oracle mode.
void false_kills(AuditRun& run, TaskRun& tr);
// Stages 4-5: the task's mutants built, their witnesses searched and their verdicts given; into
// run.out.mutants, kernels in corpus order.
using MutantsByKernel = std::map<std::string, std::vector<const mutators::MutantRecord*>>;
void audit_mutants(AuditRun& run, TaskRun& tr, const MutantsByKernel& by_kernel);

}  // namespace kaudit::audit
