// kaudit::solutions -- a checker's own harness as an oracle: `kaudit audit --from RUN
// --oracle-command 'CMD {solution} {problem}' --solutions DIR` runs CMD (a harness that evaluates
// KernelBench solution files: KernelBench's eval script, a gym's worker, tools/gpu/kernelbench_eval.py)
// once per witnessed mutant of the finished run RUN and once per audited kernel's original, with
// the files `kaudit export-mutants` wrote in DIR, and scores it like any oracle (audit/scoring.h):
// detection per family over the run's witnessed mutants, false kills over the originals.
//
// The command (argv, split like a shell's words; no shell runs it) may name {solution},
// {problem} (absolute paths), {mutant} (the mutant's id, "original" for an original), {switch},
// {kernel}, {task} and {python} (kaudit's Python, oracle/reference.h); it runs with
// KAUDIT_MUTANT_SWITCH set to the switch value, so a harness that knows nothing of kaudit loads
// the right mutant. Its verdict, in order:
//   - a last stdout line that is a JSON object with a boolean "pass" (and optional "cause",
//     "reason"): that verdict;
//   - else exit 0: pass; exit 1: rejected (cause "rejected");
//   - killed by a signal: rejected, cause "crash"; past the timeout: rejected, cause "timeout";
//     another exit status: rejected, cause "harness-exception".
// The originals run first. A harness that dies, fails with an exit status other than 0 or 1, or
// times out on one, or that passes none of them and gives no verdict line on any (a Python harness
// that raises, over a missing module or a missing GPU, exits 1), is taken to be broken: an error
// naming the command and its stderr, before any mutant runs. The harness's process is the user's
// code and the mutants run inside it, on the GPU, with the user's rights (docs/SECURITY.md).
#pragma once
#include <filesystem>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "audit/audit.h"
#include "reports/run_dir.h"

namespace kaudit::solutions {

class CommandOracleError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct CommandOracle {
  std::string name = "command";
  std::vector<std::string> argv;   // with placeholders
  double timeout_seconds = 900;    // per evaluation (a cold load_inline build takes about a minute)
  unsigned jobs = 1;               // evaluations at once
};

struct CommandVerdict {
  bool pass = false;
  bool said = false;  // the verdict came from a verdict line (not from the exit status)
  std::string cause, reason;
  double seconds = 0;
};

// Shell-like word splitting: blanks separate words; '...' and "..." quote; \ escapes outside
// single quotes. Throws std::invalid_argument for an unterminated quote or an empty command.
std::vector<std::string> split_command(const std::string& line);

// std::invalid_argument for a "{name}" in the command that is no placeholder (a typo would
// otherwise reach the harness as text).
void check_placeholders(const std::vector<std::string>& argv);

// One evaluation. `fields`: the placeholder values (solution, problem, mutant, switch, kernel, task).
CommandVerdict run_command_oracle(const CommandOracle& oracle, const std::map<std::string, std::string>& fields);

struct CommandScoring {
  audit::AuditResult added;   // the run's mutants with the command's verdicts, its score, false kills
  nlohmann::json summary;     // {"oracles": [score entry], "runs", "seconds", "problems"} for add_oracles
  // Every evaluation: {mutant ("original" for one), kernel, switch, pass, cause, reason, seconds}
  // (`kaudit audit --oracle-command` writes them to OUT/<oracle>-evaluations.jsonl).
  nlohmann::json evaluations;
};

// Runs the command on every original and every witnessed mutant of `run` (`prior`, its audit
// result) with the solutions in `solutions_dir` (solutions.json). Throws CommandOracleError for a
// manifest that lacks a witnessed mutant of the run or an original, or a broken harness.
CommandScoring score_command_oracle(const reports::RunDir& run, const audit::AuditResult& prior,
                                    const CommandOracle& oracle, const std::filesystem::path& solutions_dir,
                                    const std::function<void(const std::string&)>& progress);

}  // namespace kaudit::solutions
