// The options `kaudit audit`, `cover`, `diff` and `sweep` share: which corpus, kernels and rules,
// the witness tolerance, limits and cache; and loading the corpus for an audit run.
#pragma once
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "audit/audit.h"
#include "corpus/corpus.h"
#include "reports/run_dir.h"

namespace kaudit::cli {

struct AuditArgs {
  std::filesystem::path root;  // corpus folder (default: the built-in one)
  bool include_unverified = false;  // also audit kernels the gate rejected at import
  bool cuda = false;                // --backend cuda
  bool timeout_given = false;       // --timeout was given (the CUDA backend's default differs)
  std::filesystem::path mutants;    // --mutants DIR: a mutant set instead of generating mutants
  std::string preset;               // --preset P: specs and pool at task preset P (empty: as the specs say)
  std::shared_ptr<const mutators::MutantSet> mutant_set;  // read by load_for_audit
  audit::AuditOptions options;
  AuditArgs();
};

// The help lines of the shared flags.
extern const char* const kAuditFlagsHelp;

// If args[i] is a shared flag, consumes it (and its value: i moves past it) and returns true.
// Throws std::invalid_argument for a bad value or an unknown rule.
bool parse_audit_flag(const std::vector<std::string>& args, std::size_t& i, AuditArgs& a);

// Loads the corpus (diagnostics to stderr), checks the --kernel ids, moves the specs and the pool
// to --preset (every audited task must have it), reads the mutant set, checks
// that --backend cuda has a GPU, and sets the worker and a progress printer. Prints "kaudit <command>: ..." and returns nullopt when it cannot go on.
std::optional<corpus::LoadResult> load_for_audit(const char* command, AuditArgs& a);

// `--from DIR` (kaudit audit, kaudit sweep): reads the finished run DIR and takes its settings
// into `a` (its kernels, rules, witness tolerance, limits, backend and preset), so that the audit
// that follows is of the same mutants on the same pools. A flag of `args` that sets one of them is
// an error (std::invalid_argument), as is a run without sources.json; a damaged run directory
// throws reports::RunDirError.
reports::RunDir read_from_run(const std::filesystem::path& dir, const std::vector<std::string>& args, AuditArgs& a);
// After load_for_audit: why `o` cannot be scored on `run` ("" when it can). The run's kernels must
// be the corpus's, text for text, and every oracle's trials must be in the run's pool: otherwise
// the new verdicts would be of other mutants or on other witnesses.
std::string run_mismatch(const reports::RunDir& run, const corpus::Corpus& corpus, const audit::AuditOptions& o);

}  // namespace kaudit::cli
