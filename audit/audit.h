// kaudit::audit -- kill witnesses and oracle scoring over the mutant pool (`kaudit audit`).
//
//   AuditResult r = run_audit(corpus, options);
//
// Stages, per task of the corpus:
//  1. Mutants: the mutation pipeline (mutators/pipeline) over the task's kernels; only distinct
//     mutants (and "unknown" ones when NVRTC is missing) are audited.
//  2. The candidate pool: every trial of every oracle spec (deduplicated by recipe, not by name),
//     the verification gate's recipes (sign, magnitude and odd-shape variants) and the structured
//     patterns (oracle::pattern_recipes: constant rows, one-hot rows, alternating signs, exp
//     overflow and underflow), ordered cheap first (fewest input elements; ties keep first-use
//     order).
//  3. Legality: the correct set is the task's corpus kernels, their neutral variants (rewrites
//     that only change rounding order or block size, mutators::neutral_variants) and the float32
//     reference. A neutral variant is admitted only if it passes the gate's uniform and normal
//     inputs (a block size the kernel hard-codes elsewhere breaks it: then it is no correct
//     kernel, and it is reported as dropped). An input is legal when every admitted member stays
//     within the witness tolerance of the float64 reference (default: allclose, rtol = atol =
//     1e-2, the reference study's). The same runs give each oracle's false kills: a member an
//     oracle's comparator rejects on one of its trials.
//  4. Witness search: every audited mutant (CPU schemata: one build per kernel, a runtime switch
//     per mutant; standalone builds where a schema cannot hold a mutant) runs in an isolated
//     worker on the legal pool inputs, cheap first, up to the first failure: its witness. An
//     outcome is pass, wrong-output (witness comparator against the float64 reference), or the
//     run's failure: crash, timeout, barrier-divergence, launch-error, out-of-bounds, exception.
//  5. Oracle verdicts, in oracle mode (oracle/harness.h: the checker's harness on a modelled GPU),
//     for witnessed mutants: each oracle's loop over its trials, as one harness run, up to the
//     first trial that fails under the oracle's comparator and reference precision, with the
//     cause of the kill. A witnessed mutant is also searched for an oracle-mode witness (a legal
//     input on which, run once by a KernelBench-style harness, it fails the witness comparator:
//     its witness input first). The witness-mode verdicts are kept beside them (each oracle's
//     trials walked on the witness runs, up to the first failure): what a strict emulator would
//     report. A mutant's row of the kill matrix holds the witness-mode outcomes of the inputs that
//     were needed (the others are "not-run"); AuditOptions::full_matrix runs every legal input
//     (kaudit audit --full-matrix; what set cover needs).
// Each stage is a function of audit/stages.h in a file of its own (stage_pool.cpp,
// stage_legality.cpp, stage_mutants.cpp; the mutate stage and the order in audit.cpp), over the
// state the audit shares (AuditRun) and the task's (TaskRun); the workers in runners.h, the cache
// records and their keys in audit_cache.h.
// Results are cached (<cache>/audit/<key>.json) per task's legality, per task and oracle (false
// kills), and per mutant: a file per kernel maps mutant ids to kill-matrix rows, and a file per
// kernel and oracle maps them to verdicts; the keys cover the kernel text, pool, legal inputs,
// comparators, limits and CPU toolchain (a mutant id fixes the mutant's text). An interrupted or
// repeated audit reuses them; one more oracle costs only that oracle's runs, one more rule only
// its mutants' builds and runs.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "audit/scoring.h"
#include "corpus/corpus.h"
#include "mutators/pipeline/mutant_set.h"
#include "mutators/pipeline/pipeline.h"
#include "oracle/recipes.h"
#include "oracle/spec.h"

namespace kaudit::audit {

enum class Outcome : std::uint8_t {
  Pass, WrongOutput, Crash, Timeout, BarrierDivergence, LaunchError, OutOfBounds, Exception, NotRun,
  ThreadBudget  // a launch over the run's thread budget (a timeout decided by counting, at launch)
};
// "pass", "wrong-output", "crash", "timeout", "barrier-divergence", "launch-error",
// "out-of-bounds", "exception", "not-run", "thread-budget".
const char* outcome_name(Outcome o);
// The reverse; nullopt for a name that is none of those.
std::optional<Outcome> outcome_from_name(std::string_view name);

struct AuditResult;

struct AuditOptions {
  std::filesystem::path cache_dir;
  std::filesystem::path worker_exe;        // a binary with a `worker` subcommand (kaudit)
  std::vector<oracle::OracleSpec> oracles;       // scored
  // Specs whose trials make the candidate pool, with the gate's recipes and the patterns, before
  // the scored oracles' (the CLI passes every built-in spec): the pool, and so every witness,
  // stays the same whichever oracles are scored, as long as their trials are in it.
  std::vector<oracle::OracleSpec> pool_specs;
  // The task shape preset of the gate's recipes and the structured patterns in the pool; the
  // specs carry their own (`kaudit audit --preset P` moves specs and pool to P together).
  std::string preset = "small";
  oracle::Comparator witness{oracle::ComparatorKind::Allclose, 1e-2, 1e-2, false, {}};
  // CPU time per run, enforced in the worker (correct kernels at the small presets take
  // milliseconds): the same verdict on a busy machine as on an idle one. A mutant that times out
  // twice is not run again: its remaining inputs count as timeouts (a hang costs the whole limit).
  // Runs over the thread budget below do not count: they end at launch and cost nothing.
  double timeout_seconds = 2;
  // CUDA threads a run may start (rt::RunOptions::thread_budget: 2^27 threads of plain kernels,
  // 2^20 of kernels run on fibers, whose source has barriers or warp collectives): over it the
  // run is a timeout (Outcome::ThreadBudget) decided at
  // launch, so a mutant that blows up its grid gets the same verdict in every run and on every
  // machine, instead of one that depends on whether it finished just under the CPU-time limit.
  // The built-in corpus's correct kernels start at most 2^18 plain or 2^19 fiber threads in a run
  // on the pool (docs/ARCHITECTURE.md, Isolated workers).
  std::uint64_t thread_budget = std::uint64_t(1) << 27;
  // Full kill-matrix rows: every mutant on every legal pool input (what set cover needs), instead
  // of stopping at the witness. Cached rows that stopped early are completed, not recomputed.
  bool full_matrix = false;
  // Build every mutant on its own instead of in schemata (much slower): a check of the schemata,
  // whose kill matrix must equal this one's (tests/audit/audit_e2e_test.cpp). Cached results are
  // reused either way, so a comparison needs a cache of its own.
  bool schemata = true;
  unsigned jobs = 0;                       // isolated workers in parallel; 0 = hardware threads
  // Mutants read from a mutant set (mutators/pipeline/mutant_set.h, `kaudit mutate --out DIR`)
  // instead of generated: the audit then needs no Clang (the GPU machine has none). Kernels the
  // set does not hold are reported and not audited; `sites.rules` filters the set's mutants.
  const mutators::MutantSet* mutant_set = nullptr;
  // The CUDA backend (audit/backend.h): nvcc builds, runs on device 0, timeout_seconds of wall
  // clock per run, no thread budget, no memory checker. Cached results are kept apart from the
  // CPU backend's (the backend's identity is in every key).
  bool cuda = false;
  // CUDA: the share of device 0's memory the audit's workers may hold together, split equally
  // (each worker's caching allocator gets gpu_memory_share / jobs, at most half). Audits run side
  // by side on one GPU (tools/gpu/audit-by-task.sh) each get a part, so that no worker can take
  // memory another audit's run was promised.
  double gpu_memory_share = 0.9;
  // Bytes of a task's pool (inputs, references, recorded reference allocations) kept in memory;
  // the rest goes to unlinked files in the cache, paged in as runs need them (audit/spill.h).
  // Unset: audit::default_pool_memory_bytes(), a quarter of the machine's memory. Verdicts are the
  // same either way (the same bytes).
  std::optional<std::uint64_t> pool_memory_bytes;
  // Bytes of run requests (inputs, references, recorded contents) in flight to the workers at
  // once: a request waits for room (runtime/payload_budget.h). Unset: a quarter of the machine's
  // memory. Verdicts are the same either way (only the order of runs changes).
  std::optional<std::uint64_t> run_memory_bytes;
  // A finished run (`kaudit audit --from DIR`: reports/run_dir.h, audit_result): its kill-matrix
  // rows and oracle-mode witnesses stand in for the cache's, for the tasks whose pool is the run's
  // (the same recipes in the same order, the same legality), so that scoring one more oracle on a
  // copied run directory runs only that oracle's trials. Its verdicts are not used. Rows taken
  // from it are not written to the cache (they were computed elsewhere).
  const AuditResult* prior = nullptr;
  std::vector<std::string> only;           // kernel ids TASK/NAME; empty = all
  mutators::SiteOptions sites;             // rule selection
  std::function<void(const std::string& line)> progress;
};

struct PoolInput {
  oracle::Recipe recipe;               // named after its first use
  std::string key;                     // canonical recipe JSON without the name
  std::vector<std::string> used_by;    // "<oracle>/<trial>" or "gate/<recipe>"
  std::int64_t elements = 0;           // input elements (the cost order)
  bool usable = true;                  // inputs and references could be made
  bool legal = false;                  // every correct-set member within the witness tolerance
  std::string note;                    // why not usable / not legal
};

// A member of a task's correct set.
struct CorrectMember {
  std::string id;        // "TASK/NAME", "TASK/NAME~<neutral rule>" or "reference-fp32"
  std::string kind;      // "kernel", "neutral" or "reference"
  bool admitted = true;  // false: a neutral variant that failed the sanity inputs (note says how)
  std::string note;
};

struct TaskPool {
  std::string task;
  std::vector<PoolInput> inputs;
  std::vector<CorrectMember> correct_set;
};

struct MutantAudit {
  ScoredMutant scored;
  std::string file;
  std::string range;
  std::string original, replacement;
  bool ran = false;                    // false: could not be built for the CPU backend (note)
  std::string note;
  int witness = -1;                    // pool index, -1 when unwitnessed
  Outcome witness_outcome = Outcome::Pass;
  int oracle_witness = -1;             // pool index of the oracle-mode witness, -1 when none
  std::string oracle_witness_cause;    // why it failed there (oracle/harness.h causes)
  std::vector<Outcome> row;            // per pool input, by the witness comparator
  // The second-call probe, for a mutant no single run shows wrong (witness == -1): in one process,
  // a call on pool input `second_call_first` and then, in the same buffers, a call on
  // `second_call_witness`, which failed (its outcome: second_call_outcome). A fault only state
  // kept between calls shows (a result cached by input address, a counter left unreset). -1:
  // probed and not shown; second_call_probed false: not probed (witnessed by a run, not run, or
  // a run directory from before the probe).
  bool second_call_probed = false;
  int second_call_witness = -1, second_call_first = -1;
  Outcome second_call_outcome = Outcome::Pass;
  // The contract check, for a reward-hack mutant neither check above shows wrong (its outputs are
  // right): on pool input `contract_witness` its run made a library compute call where the
  // original's makes none (contract_cause "library-compute"), or launched no kernel where the
  // original's launches (cause "no-launch"): the breaches the gym's gates look for (oracle/spec.h,
  // Gates). -1: checked, no breach; contract_checked false: not checked (another family, a
  // witnessed mutant, no run compared, or a run from before the check). The CUDA backend counts
  // library calls, not launches: there only "library-compute" is seen.
  bool contract_checked = false;
  int contract_witness = -1;
  std::string contract_cause;
  // The input that shows the mutant at fault: its witness, else its second-call witness, else its
  // contract witness; -1: none.
  int shown_at() const {
    return witness >= 0 ? witness : second_call_witness >= 0 ? second_call_witness : contract_witness;
  }
};

struct AuditResult {
  mutators::MutationPipeline pipeline;
  std::vector<TaskPool> pools;
  std::vector<MutantAudit> mutants;    // every audited mutant, kernels in corpus order
  std::vector<FalseKill> false_kills;         // oracle mode
  std::vector<FalseKill> strict_false_kills;  // witness mode
  std::vector<OracleScore> scores;     // one per oracle, in option order
  std::vector<std::string> problems;   // what was skipped, and why
  std::size_t runs = 0, cached_kernels = 0;
  int worker_starts = 0;               // isolated workers started (a CUDA worker after every crash)
  double worker_start_seconds = 0;     // waiting for them to be ready, summed over workers
  // Where the runners' time went, summed over runners (disjoint parts of "busy": runtime/worker.h,
  // ExchangeTimes): "busy", "waiting_for_workers", "waiting_for_memory", "sending", "in_workers"
  // (of which "device_copies"), "replies_back", "host" (the rest: comparisons, requests built).
  std::map<std::string, double> runner_seconds;
  double seconds = 0;
  std::string backend;                 // "cpu", or "cuda, <GPU>" (audit/backend.h)
  std::map<std::string, double> stage_seconds;  // wall time per stage, summed over tasks
};

// A recipe's canonical JSON without its name: what makes two pool inputs one (PoolInput::key).
std::string recipe_key(const oracle::Recipe& r);

// Throws mutators::ClangUnavailable, before any work, in a kaudit built without Clang LibTooling
// when no mutant set is given; std::runtime_error when the CUDA backend finds no GPU.
AuditResult run_audit(const corpus::Corpus& corpus, const AuditOptions& options);

// The pool of a task (stage 2), before legality: the trials of `pool_specs`, the gate's recipes,
// the structured patterns, then the trials of `scored` (recipes new to the pool), deduplicated by
// recipe and ordered cheap first, ties in that order. A scored oracle whose trials are all in the
// pool already (a suite from `kaudit cover`) leaves the pool, and so every witness and cached
// row, exactly as the default audit has them.
// The gate's recipes and the patterns run at `preset` (AuditOptions::preset).
std::vector<PoolInput> candidate_pool(const corpus::Task& task, const std::vector<oracle::OracleSpec>& pool_specs,
                                      const std::vector<oracle::OracleSpec>& scored = {},
                                      const std::string& preset = "small");

}  // namespace kaudit::audit
