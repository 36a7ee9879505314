// kaudit gpu-bundle --from AUDIT_DIR --out DIR: an audit's mutants for a GPU check of oracle mode.
#include <cstdio>

#include "calibrate/bundle.h"
#include "tools/audit_args.h"
#include "tools/cli.h"
#include "tools/cli_common.h"

namespace kaudit::cli {
namespace {
const char* kHelp =
    "usage: kaudit gpu-bundle --from AUDIT_DIR --out DIR [--per-family N | --mutant ID...] [--check SPEC]...\n"
    "                         [--corpus PATH] [--cache DIR]\n\n"
    "Writes a calibration bundle for tools/gpu/calibrate.py (README, GPU): the witnessed mutants of a\n"
    "finished `kaudit audit --out AUDIT_DIR` (every synchronization mutant, N per other family,\n"
    "chosen by the hash of their id), their kernel sources for nvcc (one build per schema), the\n"
    "tasks' problems, Model parameters and trial inputs (the audit's recipes, bit for bit), and the\n"
    "CPU verdicts in oracle mode and witness mode to compare the GPU's with.\n\n"
    "  --from DIR       the audit's output folder (kill-matrix.jsonl)\n"
    "  --out DIR        the bundle folder\n"
    "  --per-family N   mutants per family other than synchronization (default 30)\n"
    "  --mutant ID      exactly this witnessed mutant instead (repeatable; for a calibration aimed at one\n"
    "                   question)\n"
    "  --check SPEC     the checks the GPU runs (default: kernelbench-v0.1 and kernelbench); each must be\n"
    "                   KernelBench's loop: allclose, reference first, shared inputs\n"
    "  --corpus PATH    the corpus the audit ran on (default: the built-in one)\n"
    "  --cache DIR      cache (default $KAUDIT_CACHE or ~/.cache/kaudit)\n"
    "Exit status: 0; 1 when mutants were left out (listed); 2 on a usage or input error.\n";
}  // namespace

int gpu_bundle_command(const std::vector<std::string>& args) {
  calibrate::BundleOptions options;
  options.cache_dir = default_cache_dir();
  std::filesystem::path root = builtin_corpus_dir();
  std::vector<std::string> check_names;
  try {
    for (std::size_t i = 0; i < args.size(); ++i) {
      const std::string& a = args[i];
      const auto value = [&](const char* flag) { return flag_value(args, i, flag); };
      if (a == "--help" || a == "-h") {
        std::fputs(kHelp, stdout);
        return 0;
      } else if (a == "--from") {
        options.audit_dir = value("--from");
      } else if (a == "--out") {
        options.out = value("--out");
      } else if (a == "--per-family") {
        options.per_family = parse_count_flag(a, value("--per-family"), 0, 1000000);
      } else if (a == "--mutant") {
        options.only.insert(value("--mutant"));
      } else if (a == "--check") {
        check_names.push_back(value("--check"));
      } else if (a == "--corpus") {
        root = value("--corpus");
      } else if (a == "--cache") {
        options.cache_dir = value("--cache");
      } else {
        throw std::invalid_argument("unknown argument " + a);
      }
    }
    if (options.audit_dir.empty() || options.out.empty()) throw std::invalid_argument("--from and --out are required");
    if (check_names.empty()) check_names = {"kernelbench-v0.1", "kernelbench"};
    const auto checks = resolve_oracles(check_names);
    const auto loaded = load_corpus_or_report(root);
    if (!loaded) return 2;
    const auto summary = calibrate::write_gpu_bundle(loaded->corpus, checks, options);
    std::printf("%zu mutants in %zu builds (%zu schemata) written to %s:", summary.mutants, summary.builds,
                summary.schemata, options.out.c_str());
    for (const auto& [family, n] : summary.per_family) std::printf(" %s %zu", family.c_str(), n);
    std::printf("\n");
    for (const auto& p : summary.problems) std::fprintf(stderr, "left out: %s\n", p.c_str());
    return summary.problems.empty() ? 0 : 1;
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "kaudit gpu-bundle: %s\n%s", e.what(), kHelp);
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "kaudit gpu-bundle: %s\n", e.what());
    return 2;
  }
}
}  // namespace kaudit::cli
