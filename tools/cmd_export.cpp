// kaudit export SUITE --format kernelbench-hidden|json --out DIR: a suite's inputs for other
// harnesses (suites/export.h).
#include <cstdio>

#include "corpus/corpus.h"
#include "suites/export.h"
#include "tools/cli.h"
#include "tools/cli_common.h"

namespace kaudit::cli {
namespace {
const char* kHelp =
    "usage: kaudit export SUITE --format kernelbench-hidden|json --out DIR [--corpus PATH]\n\n"
    "Writes the inputs of SUITE (a spec file such as kaudit cover's suite.json, or a built-in name)\n"
    "for other harnesses:\n"
    "  kernelbench-hidden  per task DIR/<task>.py with get_inputs_<i>() and get_init_inputs_<i>() in\n"
    "                      KernelBench's conventions (HIDDEN_INPUTS lists them); the tensors are\n"
    "                      regenerated from the recipes in Python and equal kaudit's bit for bit\n"
    "  json                DIR/suite-inputs.json: per task the recipes, dims and input shapes\n"
    "The corpus (default: the built-in one) gives the tasks' inputs and shapes; a suite naming a task\n"
    "the corpus lacks is refused. Exit status 0, or 2 on a usage error or a bad suite.\n";
}  // namespace

int export_command(const std::vector<std::string>& args) {
  std::string suite_arg, format;
  std::filesystem::path out, root = builtin_corpus_dir();
  try {
    for (std::size_t i = 0; i < args.size(); ++i) {
      const std::string& a = args[i];
      const auto value = [&](const char* flag) { return flag_value(args, i, flag); };
      if (a == "--help" || a == "-h") { std::fputs(kHelp, stdout); return 0; }
      else if (a == "--format") format = value("--format");
      else if (a == "--out") out = value("--out");
      else if (a == "--corpus") root = value("--corpus");
      else if (!a.empty() && a[0] == '-') throw std::invalid_argument("unknown argument " + a);
      else if (suite_arg.empty()) suite_arg = a;
      else throw std::invalid_argument("one SUITE only");
    }
    if (suite_arg.empty()) throw std::invalid_argument("expected SUITE");
    if (format.empty()) throw std::invalid_argument("--format is required (kernelbench-hidden or json)");
    if (out.empty()) throw std::invalid_argument("--out is required");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "kaudit export: %s\n%s", e.what(), kHelp);
    return 2;
  }
  try {
    const oracle::OracleSpec suite = resolve_oracles({suite_arg}).at(0);
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
