// kaudit::reports -- the run directory: what `kaudit audit --out DIR` writes, read back by every
// report, diff and export, so that a finished audit is enough to report on (copying the folder to
// another machine included). This file is the one owner of its formats:
//   summary.json       the per-oracle, per-family scores (audit::to_json), the pipeline counts, the
//                      run's settings (witness tolerance, limits, backend, preset), "run_format"
//                      (kRunFormat), and "added_oracles" for oracles scored later (add_oracles);
//   kill-matrix.jsonl  one KillRecord per audited mutant;
//   mutants.jsonl      every generated mutant with its site and status (mutators::mutants_jsonl);
//   pools.json         per task, the pool inputs (recipes, legality) and the correct set;
//   sources.json       the audited kernels' sources, by the path mutants.jsonl names them by;
//   report.md          the tables (reports/markdown.h).
// A run written before "run_format" existed has the same layout and reads as format 1, without
// sources.json (a report that needs the sources then says so).
#pragma once
#include <filesystem>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "audit/audit.h"
#include "reports/run_files.h"
#include "mutators/pipeline/pipeline.h"

namespace kaudit::reports {

KillRecord kill_record(const audit::MutantAudit& m);

// pools.json: per task, its pool inputs (recipe, legality, which trials use it) and correct set.
nlohmann::json pools_json(const std::vector<audit::TaskPool>& pools);

struct RunFiles {
  nlohmann::json summary, pools;
  std::string mutants_jsonl;
  std::vector<KillRecord> kill_matrix;
  std::map<std::string, std::string> sources;
  std::string report_md;
};
// Writes every file of the run directory, each atomically, after stamping files.summary with
// "run_format" (so a summary printed afterwards is the one written).
void write_run_dir(const std::filesystem::path& dir, RunFiles& files);

struct RunDir {
  std::filesystem::path dir;
  nlohmann::json summary, pools;
  std::vector<mutators::MutantRecord> mutants;  // mutants.jsonl (mutators/pipeline/pipeline.h), without sources
  std::vector<KillRecord> kill_matrix;
  std::map<std::string, std::string> sources;  // empty for a run written before sources.json
  std::vector<std::string> oracles() const;    // the scored oracles, in the audit's order
  // The recipe name of pool input `index` of `task` (a witness), or "?" when the pools do not say.
  std::string input_name(const std::string& task, int index) const;
  // What shows a witnessed mutant wrong, in words: "pool input #3 'name' gives wrong-output", or
  // for a fault only a second call shows, that call after which first call, or for a contract
  // breach, the input and the breach; "" when unwitnessed.
  std::string witness_text(const KillRecord& k) const;
  // The summary entry of `oracle`; throws RunDirError naming the oracles there are.
  const nlohmann::json& oracle_summary(const std::string& oracle) const;
};
// Throws RunDirError for a missing or malformed file, or one of another run format.
RunDir read_run_dir(const std::filesystem::path& dir);

// What a reader of a finished run needs of the audit's result, rebuilt from its files: the pools
// (recipes, legality, correct sets), every audited mutant with its row, witnesses and verdicts,
// and the oracles' names (scores hold only their names: score_oracles recomputes the rest). What
// the files do not keep is left empty (the pipeline, false kills, timings). Throws RunDirError.
audit::AuditResult audit_result(const RunDir& run);
// The files of `run` with the oracles of `added` scored on it (`kaudit audit --from DIR --oracle
// NEW`): the entries of `added_summary`'s "oracles" appended to the run's summary (and listed
// under "added_oracles" with their runs and seconds), each kill record given the new oracles'
// verdicts, the report re-rendered; mutants, pools and sources as they were. `added` must be an
// audit of the same mutants with the same witnesses: a mutant it lacks or witnessed otherwise,
// or an oracle the run already scored, is a RunDirError.
RunFiles add_oracles(const RunDir& run, const audit::AuditResult& added, const nlohmann::json& added_summary);
// The witness comparator the run used (summary.json "witness_tolerance").
oracle::Comparator witness_comparator(const RunDir& run);
// The parts a reader may need alone (read_summary, read_kill_matrix) are in run_files.h.

}  // namespace kaudit::reports
