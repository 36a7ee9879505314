// kaudit audit --from RUN --solutions DIR --oracle-command CMD: a checker's own harness, run on
// the KernelBench solution files of a finished audit's mutants, scored like any oracle and added
// to the run (solutions/command_oracle.h).
#include <chrono>
#include <cstdio>
#include <iostream>

#include "common/files.h"
#include "reports/run_dir.h"
#include "solutions/command_oracle.h"
#include "tools/cli.h"
#include "tools/cli_common.h"

namespace kaudit::cli {

int command_oracle_audit(const std::vector<std::string>& args) {
  std::filesystem::path from, solutions_dir, out_dir = "kaudit-out";
  solutions::CommandOracle oracle;
  bool json_out = false;
  try {
    for (std::size_t i = 0; i < args.size(); ++i) {
      const std::string& a = args[i];
      const auto value = [&](const char* flag) { return flag_value(args, i, flag); };
      if (a == "--from") from = value("--from");
      else if (a == "--solutions") solutions_dir = value("--solutions");
      else if (a == "--oracle-command") {
        oracle.argv = solutions::split_command(value("--oracle-command"));
        solutions::check_placeholders(oracle.argv);
      }
      else if (a == "--oracle-name") {
        oracle.name = value("--oracle-name");
        if (oracle.name.empty() || oracle.name.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") != std::string::npos)
          throw std::invalid_argument("--oracle-name " + oracle.name + ": letters, digits, '.', '_' and '-' only (it names a file)");
      }
      else if (a == "--command-timeout") oracle.timeout_seconds = parse_real_flag(a, value("--command-timeout"), 1, 86400);
      else if (a == "--jobs") oracle.jobs = static_cast<unsigned>(parse_count_flag(a, value("--jobs"), 1, 1024));
      else if (a == "--out") out_dir = value("--out");
      else if (a == "--json") json_out = true;
      else throw std::invalid_argument(a + " does not go with --oracle-command (it takes --from, --solutions, --oracle-name, "
                                       "--command-timeout, --jobs, --out, --json)");
    }
    if (from.empty() || solutions_dir.empty())
      throw std::invalid_argument("--oracle-command needs --from RUN_DIR (a finished audit) and --solutions DIR "
                                  "(`kaudit export-mutants RUN_DIR --format kernelbench-solution --out DIR`)");
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "kaudit audit: %s\n", e.what());
    return 2;
  }
  try {
    const reports::RunDir run = reports::read_run_dir(from);
    for (const auto& name : run.oracles())
      if (name == oracle.name)
        throw std::invalid_argument(from.string() + " already scored '" + name + "'; give the harness another --oracle-name");
    const audit::AuditResult prior = reports::audit_result(run);
    const auto t0 = std::chrono::steady_clock::now();
    const auto progress = [t0](const std::string& line) {
      const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      std::fprintf(stderr, "[%6.0fs] %s\n", s, line.c_str());
    };
    const solutions::CommandScoring scored = solutions::score_command_oracle(run, prior, oracle, solutions_dir, progress);
    reports::RunFiles files = reports::add_oracles(run, scored.added, scored.summary);
    reports::write_run_dir(out_dir, files);
    // Every evaluation's verdict and reason, for a reader who wants to know why (a harness's
    // exception, a false kill).
    std::string lines;
    for (const auto& e : scored.evaluations) lines += e.dump() + "\n";
    write_file_atomically(out_dir / (oracle.name + "-evaluations.jsonl"), lines);
    if (json_out) std::cout << files.summary.dump(2) << "\n";
    else std::cout << files.report_md;
    std::printf("\n%zu harness evaluations, %.0f s. Reports in %s/\n", scored.summary.value("runs", std::size_t(0)),
                scored.summary.value("seconds", 0.0), out_dir.c_str());
    return 0;
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "kaudit audit: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {  // RunDirError, CommandOracleError: each names its file or command
    std::fprintf(stderr, "kaudit audit: %s\n", e.what());
    return 2;
  }
}

}  // namespace kaudit::cli
