// kaudit export SUITE --format kernelbench-hidden|json --out DIR: a suite's inputs for other
// harnesses (suites/export.h); --from RUN: a finished run's witnesses as the suite.
#include <cstdio>
#include <set>

#include "corpus/corpus.h"
#include "reports/run_dir.h"
#include "suites/export.h"
#include "tools/cli.h"
#include "tools/cli_common.h"

namespace kaudit::cli {
namespace {
const char* kHelp =
    "usage: kaudit export SUITE --format kernelbench-hidden|json --out DIR [--corpus PATH]\n"
    "       kaudit export --from RUN [--oracle-witnesses] --format kernelbench-hidden|json --out DIR [--corpus PATH]\n\n"
    "Writes the inputs of SUITE (a spec file such as kaudit cover's suite.json, or a built-in name)\n"
    "for other harnesses:\n"
    "  kernelbench-hidden  per task DIR/<task>.py with get_inputs_<i>() and get_init_inputs_<i>() in\n"
    "                      KernelBench's conventions (HIDDEN_INPUTS lists them); the tensors are\n"
    "                      regenerated from the recipes in Python and equal kaudit's bit for bit\n"
    "  json                DIR/suite-inputs.json: per task the recipes, dims and input shapes\n"
    "With --from RUN (a finished `kaudit audit --out RUN`), the suite is the run's witnesses: per task\n"
    "the pool inputs on which at least one mutant fails, in pool order (with --oracle-witnesses, the\n"
    "inputs on which a KernelBench-style harness sees one fail: oracle mode's witnesses); nothing runs.\n"
    "The corpus (default: the built-in one) gives the tasks' inputs and shapes; a suite naming a task\n"
    "the corpus lacks is refused. Exit status 0, or 2 on a usage error or a bad suite.\n";

// The witnesses of a finished run as a suite: per task, the pool inputs that witness a mutant
// (its witness-mode witness, or its oracle-mode one), each once, in pool order. A mutant only a
// second call shows wrong brings both inputs of its probe: the second alone does not show it. A
// reward hack only the contract check witnesses (its output is right) brings none: no input of a
// suite, which compares outputs, shows it.
oracle::OracleSpec witness_suite(const reports::RunDir& run, bool oracle_witnesses) {
  oracle::OracleSpec suite;
  suite.name = run.dir.filename().string() + (oracle_witnesses ? "-oracle-witnesses" : "-witnesses");
  const audit::AuditResult r = reports::audit_result(run);
  for (const audit::TaskPool& pool : r.pools) {
    std::set<int> used;
    for (const audit::MutantAudit& m : r.mutants)
      if (m.scored.task == pool.task) {
        if (m.witness < 0 && m.second_call_witness < 0) continue;  // none, or a contract breach
        const int w = oracle_witnesses ? m.oracle_witness : m.shown_at();
        if (w < 0 || static_cast<std::size_t>(w) >= pool.inputs.size()) continue;
        used.insert(w);
        if (m.witness < 0 && m.second_call_first >= 0 && static_cast<std::size_t>(m.second_call_first) < pool.inputs.size())
          used.insert(m.second_call_first);
      }
    for (int p : used) suite.task_trials[pool.task].push_back(pool.inputs[static_cast<std::size_t>(p)].recipe);
  }
  if (suite.task_trials.empty())
    throw std::invalid_argument((run.dir / "kill-matrix.jsonl").string() + ": no mutant of this run is witnessed");
  return suite;
}
}  // namespace

int export_command(const std::vector<std::string>& args) {
  std::string suite_arg, format;
  std::filesystem::path out, from, root = builtin_corpus_dir();
  bool oracle_witnesses = false;
  try {
    for (std::size_t i = 0; i < args.size(); ++i) {
      const std::string& a = args[i];
      const auto value = [&](const char* flag) { return flag_value(args, i, flag); };
      if (a == "--help" || a == "-h") { std::fputs(kHelp, stdout); return 0; }
      else if (a == "--format") format = value("--format");
      else if (a == "--out") out = value("--out");
      else if (a == "--corpus") root = value("--corpus");
      else if (a == "--from") from = value("--from");
      else if (a == "--oracle-witnesses") oracle_witnesses = true;
      else if (!a.empty() && a[0] == '-') throw std::invalid_argument("unknown argument " + a);
      else if (suite_arg.empty()) suite_arg = a;
      else throw std::invalid_argument("one SUITE only");
    }
    if (suite_arg.empty() == from.empty()) throw std::invalid_argument("expected SUITE or --from RUN (one of them)");
    if (oracle_witnesses && from.empty()) throw std::invalid_argument("--oracle-witnesses goes with --from RUN");
    if (format.empty()) throw std::invalid_argument("--format is required (kernelbench-hidden or json)");
    if (out.empty()) throw std::invalid_argument("--out is required");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "kaudit export: %s\n%s", e.what(), kHelp);
    return 2;
  }
  try {
    const oracle::OracleSpec suite =
        from.empty() ? resolve_oracles({suite_arg}).at(0) : witness_suite(reports::read_run_dir(from), oracle_witnesses);
    corpus::LoadResult loaded = corpus::load_corpus(root);
    for (const auto& d : loaded.diagnostics) std::fprintf(stderr, "%s\n", d.to_string().c_str());
    const auto files = cover::export_suite(suite, loaded.corpus, format, out);
    for (const auto& f : files) std::printf("wrote %s\n", f.c_str());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "kaudit export: %s\n", e.what());
    return 2;
  }
  return 0;
}

}  // namespace kaudit::cli
