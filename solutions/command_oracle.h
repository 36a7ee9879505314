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
// A harness that does not pass the first original it is given, with an exit status that is not
// 0 or 1 and no verdict line, is taken to be broken (a missing module, a wrong path): an error
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
  std::string cause, reason;
  double seconds = 0;
};

// Shell-like word splitting: blanks separate words; '...' and "..." quote; \ escapes outside
// single quotes. Throws std::invalid_argument for an unterminated quote or an empty command.
std::vector<std::string> split_command(const std::string& line);

// One evaluation. `fields`: the placeholder values (solution, problem, mutant, switch, kernel, task).
CommandVerdict run_command_oracle(const CommandOracle& oracle, const std::map<std::string, std::string>& fields);

struct CommandScoring {
  audit::AuditResult added;   // the run's mutants with the command's verdicts, its score, false kills
  nlohmann::json summary;     // {"oracles": [score entry], "runs", "seconds", "problems"} for add_oracles
};

// Runs the command on every original and every witnessed mutant of `run` (`prior`, its audit
// result) with the solutions in `solutions_dir` (solutions.json). Throws CommandOracleError for a
// manifest that lacks a witnessed mutant of the run or an original, or a broken harness.
CommandScoring score_command_oracle(const reports::RunDir& run, const audit::AuditResult& prior,
                                    const CommandOracle& oracle, const std::filesystem::path& solutions_dir,
                                    const std::function<void(const std::string&)>& progress);

}  // namespace kaudit::solutions
