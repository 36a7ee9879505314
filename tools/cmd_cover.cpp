// kaudit cover: minimal hidden-input suites from the audit's full kill matrix, their held-out
// detection next to the built-in oracles, and the suite written as an oracle spec.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>

#include "audit/audit.h"
#include "corpus/corpus.h"
#include "suites/suite.h"
#include "oracle/gate.h"
#include "oracle/judge.h"
#include "oracle/reference.h"
#include "reports/run_dir.h"
#include "runtime/worker.h"
#include "tools/cli.h"
#include "tools/audit_args.h"
#include "tools/cli_common.h"

namespace kaudit::cli {
namespace {

const char* kHelp =
    "usage: kaudit cover [--budget K] [--out suite.json] [--json] [--corpus PATH] [--kernel TASK/NAME]...\n"
    "                    [--rule ID]... [--witness-tol T] [--timeout S] [--thread-budget N] [--jobs N]\n"
    "                    [--cache DIR]\n\n"
    "Builds minimal hidden-input suites by greedy set cover over the audit's kill matrix (every\n"
    "witnessed mutant on every legal pool input: `kaudit audit --full-matrix`, run here and cached).\n"
    "Per task: the inputs needed to kill every coverable mutant, and the mutants killed by the first\n"
    "1, 2, 3 and 5 greedy choices. Held-out: each task's witnessed mutants are split in two halves by\n"
    "a hash of their id; suites chosen on one half are scored on the other, next to every built-in\n"
    "oracle scored on the same half. Only legal inputs are chosen, so the suite rejects no correct\n"
    "kernel; the corpus kernels are run on it again before it is written.\n\n"
    "  --budget K       inputs per task in the written suite (default: as many as full coverage needs)\n"
    "  --out FILE       the suite, an oracle spec with per-task trials (default kaudit-out/suite.json);\n"
    "                   score it with `kaudit audit --oracle FILE`; the report goes next to it (cover.md,\n"
    "                   cover.json)\n"
    "  --json           print cover.json instead of the tables\n"
    "  --from DIR       read the kill matrix of a finished `kaudit audit --full-matrix --out DIR` instead\n"
    "                   of auditing: no kernel runs at all (the corpus re-check is left to `kaudit check\n"
    "                   --oracle SUITE`); audit flags do not apply\n"
    "Exit status: 0; 1 when something was skipped; 2 on a usage error; 3 when the re-check finds a\n"
    "corpus kernel the suite rejects (the suite is then not written).\n";

// The suite, cover.json and cover.md; false (said on stderr) when a file cannot be written.
bool write_cover(const cover::CoverReport& report, const std::filesystem::path& out, bool json_out) {
  const nlohmann::json j = cover::to_json(report);
  const std::string md = cover::to_markdown(report);
  try {
    const auto dir = out.has_parent_path() ? out.parent_path() : std::filesystem::path(".");
    std::filesystem::create_directories(dir);
    write_file_atomically(out, oracle::spec_to_json(report.suite).dump(2) + "\n");
    write_file_atomically(dir / "cover.json", j.dump(2) + "\n");
    write_file_atomically(dir / "cover.md", md);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "kaudit cover: %s\n", e.what());
    return false;
  }
  if (json_out) std::cout << j.dump(2) << "\n";
  else std::cout << md << "Wrote " << out.string() << ".\n";
  return true;
}

// kaudit cover --from DIR: the same report from a finished run directory, with no kernel run.
int cover_from_run(const std::filesystem::path& dir, std::size_t budget, const std::filesystem::path& out, bool json_out) {
  cover::CoverReport report;
  try {
    const reports::RunDir run = reports::read_run_dir(dir);
    report = cover::cover_audit(reports::audit_result(run), budget, reports::witness_comparator(run));
  } catch (const std::invalid_argument& e) {  // rows without every legal input
    std::fprintf(stderr, "kaudit cover: %s: %s (audit it with `kaudit audit --full-matrix --out %s`)\n", dir.c_str(),
                 e.what(), dir.c_str());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "kaudit cover: %s\n", e.what());
    return 2;
  }
  report.suite.source = "kaudit cover --from " + dir.string() + (budget ? " --budget " + std::to_string(budget) : "");
  if (!write_cover(report, out, json_out)) return 1;
  std::fprintf(stderr, "kaudit cover: 0 kernel runs (read from %s; re-check the suite on a corpus with `kaudit check "
               "--oracle %s`)\n", dir.c_str(), out.c_str());
  return 0;
}

}  // namespace

int cover_command(const std::vector<std::string>& args) {
  std::filesystem::path out = "kaudit-out/suite.json";
  bool json_out = false;
  long budget = 0;
  std::filesystem::path from;
  AuditArgs shared;
  audit::AuditOptions& options = shared.options;
  options.full_matrix = true;
  try {
    for (std::size_t i = 0; i < args.size(); ++i) {
      const std::string& a = args[i];
      const auto value = [&](const char* flag) { return flag_value(args, i, flag); };
      if (a == "--help" || a == "-h") { std::fputs(kHelp, stdout); std::fputs(kAuditFlagsHelp, stdout); return 0; }
      else if (a == "--json") json_out = true;
      else if (a == "--budget") {
        // At least 1 (an empty suite checks nothing).
        budget = static_cast<long>(parse_count_flag(a, value("--budget"), 1, 1000));
      }
      else if (a == "--out") out = value("--out");
      else if (a == "--from") from = value("--from");
      else if (!parse_audit_flag(args, i, shared)) throw std::invalid_argument("unknown argument " + a);
    }
    options.oracles = resolve_oracles({});  // every built-in: the held-out comparison
    options.pool_specs = options.oracles;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "kaudit cover: %s\n%s", e.what(), kHelp);
    return 2;
  }
  if (!from.empty()) return cover_from_run(from, static_cast<std::size_t>(budget), out, json_out);
  auto loaded = load_for_audit("cover", shared);
  if (!loaded) return 2;
  const std::filesystem::path& root = shared.root;
  const audit::AuditResult result = audit::run_audit(loaded->corpus, options);
  cover::CoverReport report;
  try {
    report = cover::cover_audit(result, static_cast<std::size_t>(budget), options.witness);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "kaudit cover: %s\n", e.what());
    return 1;
  }
  report.suite.source = "kaudit cover on " + root.filename().string() + (budget ? " --budget " + std::to_string(budget) : "");

  // Re-check: the corpus kernels run on the suite's inputs under its comparator (legality already
  // showed them, their neutral variants and the float32 reference within it; this is a fresh run).
  std::vector<const corpus::Kernel*> kernels;
  for (const auto& k : loaded->corpus.kernels)
    if (options.only.empty() || std::find(options.only.begin(), options.only.end(), k.id()) != options.only.end())
      kernels.push_back(&k);
  const auto builds = oracle::build_kernels(kernels, options.cache_dir);
  oracle::ReferenceStore references(options.cache_dir, oracle::default_export_script());
  runtime::IsolatedRunner runner(options.worker_exe, runtime::WorkerLimits{});
  oracle::Judge judge(references, runner);
  std::size_t rejected = 0;
  for (std::size_t i = 0; i < kernels.size(); ++i) {
    if (!builds[i].ok || oracle::trials_for(report.suite, kernels[i]->task).empty()) continue;
    const auto v = judge.judge(report.suite, *loaded->corpus.find_task(kernels[i]->task), *kernels[i], builds[i].library);
    if (!v.accepted) {
      ++rejected;
      std::fprintf(stderr, "kaudit cover: the suite rejects the correct kernel %s\n", kernels[i]->id().c_str());
    }
  }
  if (rejected) return 3;

  if (!write_cover(report, out, json_out)) return 1;
  for (const auto& p : result.problems) std::fprintf(stderr, "skipped: %s\n", p.c_str());
  return result.problems.empty() && loaded->diagnostics.empty() ? 0 : 1;
}

}  // namespace kaudit::cli
