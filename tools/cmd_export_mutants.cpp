// kaudit export-mutants RUN_DIR --format kernelbench-solution --out DIR: a finished audit's
// witnessed mutants as KernelBench solution files (solutions/kernelbench_solutions.h).
#include <cstdio>

#include "reports/run_files.h"
#include "solutions/kernelbench_solutions.h"
#include "tools/cli.h"
#include "tools/cli_common.h"

namespace kaudit::cli {
namespace {
const char* kHelp =
    "usage: kaudit export-mutants RUN_DIR --format kernelbench-solution --out DIR [--kernel TASK/NAME]...\n"
    "                             [--all-mutants] [--corpus PATH] [--cache DIR]\n\n"
    "Writes the witnessed mutants of the finished audit RUN_DIR (`kaudit audit --out RUN_DIR`) as\n"
    "KernelBench solution files, for a harness that evaluates solutions (KernelBench's eval script, a\n"
    "gym's worker) on a GPU machine:\n"
    "  DIR/solutions/<lib>.py  a ModelNew that builds its CUDA source with load_inline: one file per\n"
    "                          build (a schema holds many mutants), the mutant chosen when the file is\n"
    "                          loaded by $KAUDIT_MUTANT_SWITCH (0 or unset: the original kernel);\n"
    "  DIR/problems/<task>.py  the tasks' problem.py;\n"
    "  DIR/solutions.json      every witnessed mutant with its file, switch value, family and rule, and\n"
    "                          every audited kernel's original.\n"
    "Score a harness on them with `kaudit audit --from RUN_DIR --solutions DIR --oracle-command CMD`.\n\n"
    "  --format F       kernelbench-solution (the only format)\n"
    "  --kernel ID      only this kernel's mutants (repeatable; --oracle-command needs the whole run)\n"
    "  --all-mutants    every mutant the run audited, witnessed or not (to score a harness on another\n"
    "                   audit of the same mutants: a CUDA audit of the run's mutant set at a native preset)\n"
    "  --corpus PATH    the corpus the audit ran on (default: the built-in one)\n"
    "  --cache DIR      cache (default $KAUDIT_CACHE or ~/.cache/kaudit): the mutants are regenerated\n"
    "Needs Clang (the mutation pipeline). Exit status: 0; 1 when mutants were left out (listed); 2 on\n"
    "a usage or input error.\n";
}  // namespace

int export_mutants_command(const std::vector<std::string>& args) {
  solutions::ExportOptions options;
  options.cache_dir = default_cache_dir();
  std::filesystem::path root = builtin_corpus_dir();
  std::string format;
  try {
    for (std::size_t i = 0; i < args.size(); ++i) {
      const std::string& a = args[i];
      const auto value = [&](const char* flag) { return flag_value(args, i, flag); };
      if (a == "--help" || a == "-h") {
        std::fputs(kHelp, stdout);
        return 0;
      } else if (a == "--format") {
        format = value("--format");
      } else if (a == "--out") {
        options.out = value("--out");
      } else if (a == "--all-mutants") {
        options.all_mutants = true;
      } else if (a == "--kernel") {
        options.only.push_back(value("--kernel"));
      } else if (a == "--corpus") {
        root = value("--corpus");
      } else if (a == "--cache") {
        options.cache_dir = value("--cache");
      } else if (!a.empty() && a[0] != '-' && options.run_dir.empty()) {
        options.run_dir = a;
      } else {
        throw std::invalid_argument("unknown argument " + a);
      }
    }
    if (options.run_dir.empty() || options.out.empty()) throw std::invalid_argument("RUN_DIR and --out are required");
    if (format != "kernelbench-solution")
      throw std::invalid_argument(format.empty() ? "--format is required (kernelbench-solution)"
                                                 : "--format " + format + ": the one format is kernelbench-solution");
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "kaudit export-mutants: %s\n%s", e.what(), kHelp);
    return 2;
  }
  try {
    const auto loaded = load_corpus_or_report(root);
    if (!loaded) return 2;
    const auto summary = solutions::export_kernelbench_solutions(loaded->corpus, options);
    std::printf("%zu %s mutants of %zu kernels in %zu solution files written to %s (solutions.json)\n", summary.mutants,
                options.all_mutants ? "audited" : "witnessed", summary.kernels, summary.solutions, options.out.c_str());
    for (const auto& p : summary.problems) std::fprintf(stderr, "left out: %s\n", p.c_str());
    return summary.problems.empty() ? 0 : 1;
  } catch (const std::exception& e) {  // reports::RunDirError and the export's errors name their file
    std::fprintf(stderr, "kaudit export-mutants: %s\n", e.what());
    return 2;
  }
}
}  // namespace kaudit::cli
