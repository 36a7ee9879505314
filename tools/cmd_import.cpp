// kaudit import kernelbench SOLUTION|DIR --problem P [--task NAME] [--into DIR]: KernelBench
// solution files into a corpus, verified by the gate (corpus/importer/kernelbench.h).
#include <cstdio>
#include <iostream>
#include <map>

#include "corpus/importer/kernelbench.h"
#include "runtime/worker.h"
#include "tools/cli.h"
#include "tools/cli_common.h"

namespace kaudit::cli {
namespace {
const char* kHelp =
    "usage: kaudit import kernelbench SOLUTION|DIR --problem FILE|DIR [--task NAME] [--into DIR]\n"
    "                                 [--no-verify] [--json] [--cache DIR]\n\n"
    "Adds KernelBench solution files (load_inline with cuda_sources, a ModelNew) to a corpus. The\n"
    "files are read, never run: the CUDA text (from string literals, variables, f-strings, lists;\n"
    "several load_inline calls) becomes the kernel, ModelNew.forward's extension call its binding\n"
    "(inputs, nn-module parameters by name, constants, x.size(i)); a forward chaining several\n"
    "extension calls gets a generated C++ entry making the same calls. A new task (task.json) is\n"
    "made from the problem file; a task of the same name must have the identical problem.py.\n"
    "Each entry is staged, checked by the corpus loader and the verification gate, then moved in;\n"
    "a kernel the gate rejects is imported marked \"unverified\" with the failing recipe and is left\n"
    "out of `kaudit mutate` and `kaudit audit` unless they get --include-unverified. An unsupported\n"
    "solution leaves nothing behind; the summary gives the construct and its line.\n\n"
    "  SOLUTION|DIR   a solution .py, or a folder of them (every *.py)\n"
    "  --problem P    the problem file, or a folder of problems: each solution takes the problem\n"
    "                 whose name starts its own (19_ReLU.py for 19_ReLU_gpt4o.py), else the one\n"
    "                 with the same leading number\n"
    "  --task NAME    the corpus task name (default: the problem's file name without its number)\n"
    "  --into DIR     the corpus to import into (default ./kaudit-corpus; created if missing)\n"
    "  --no-verify    skip the gate (the kernels then count as verified: use for quick looks only)\n"
    "  --json         print the outcomes as JSON\n"
    "  --cache DIR    cache for kernel builds and references (default $KAUDIT_CACHE or ~/.cache/kaudit)\n"
    "Exit status: 0 when every solution was imported (verified or not) or was already there; 1 when\n"
    "some were unsupported; 2 on a usage error.\n";
}  // namespace

int import_command(const std::vector<std::string>& args) {
  std::filesystem::path path, problem;
  std::string task;
  bool json_out = false;
  importer::ImportOptions options;
  options.corpus = "kaudit-corpus";
  options.cache_dir = default_cache_dir();
  try {
    if (args.empty()) throw std::invalid_argument("expected the format: kaudit import kernelbench ...");
    if (args[0] == "--help" || args[0] == "-h") { std::fputs(kHelp, stdout); return 0; }
    if (args[0] != "kernelbench")
      throw std::invalid_argument("unknown format '" + args[0] + "' (supported: kernelbench)");
    for (std::size_t i = 1; i < args.size(); ++i) {
      const std::string& a = args[i];
      const auto value = [&](const char* flag) { return flag_value(args, i, flag); };
      if (a == "--help" || a == "-h") { std::fputs(kHelp, stdout); return 0; }
      else if (a == "--problem") problem = value("--problem");
      else if (a == "--task") task = value("--task");
      else if (a == "--into") options.corpus = value("--into");
      else if (a == "--cache") options.cache_dir = value("--cache");
      else if (a == "--no-verify") options.verify = false;
      else if (a == "--json") json_out = true;
      else if (!a.empty() && a[0] == '-') throw std::invalid_argument("unknown option " + a);
      else if (path.empty()) path = a;
      else throw std::invalid_argument("one SOLUTION or DIR only");
    }
    if (path.empty()) throw std::invalid_argument("expected a solution file or a folder of them");
    if (problem.empty()) throw std::invalid_argument("--problem is required");
    if (!std::filesystem::exists(path)) throw std::invalid_argument(path.string() + ": no such file or folder");
    if (!std::filesystem::exists(problem)) throw std::invalid_argument(problem.string() + ": no such file or folder");
    if (!task.empty() && importer::corpus_name(task) != task)
      throw std::invalid_argument("--task '" + task + "' must be lower case letters, digits and '_' (e.g. '" +
                                  importer::corpus_name(task) + "')");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "kaudit import: %s\n%s", e.what(), kHelp);
    return 2;
  }
  options.worker_exe = runtime::self_executable();

  importer::Plan plan = importer::plan_imports(path, problem, task);
  std::vector<importer::ImportOutcome> outcomes = plan.unmatched;
  for (const auto& r : plan.requests) {
    if (!json_out) std::fprintf(stderr, "importing %s (problem %s)\n", r.solution.c_str(), r.problem.filename().c_str());
    outcomes.push_back(importer::import_solution(r, options));
  }

  std::map<importer::ImportStatus, std::size_t> counts;
  for (const auto& o : outcomes) ++counts[o.status];
  const std::size_t unsupported = counts[importer::ImportStatus::Unsupported];
  if (json_out) {
    nlohmann::json j = {{"corpus", options.corpus.string()},
                        {"solutions", outcomes.size()},
                        {"gate_ran", options.verify},  // false with --no-verify: "imported" then means unchecked
                        {"outcomes", nlohmann::json::array()}};
    for (const auto& o : outcomes) j["outcomes"].push_back(o.to_json());
    for (auto s : {importer::ImportStatus::Imported, importer::ImportStatus::Unverified,
                   importer::ImportStatus::AlreadyImported, importer::ImportStatus::Unsupported})
      j["counts"][importer::status_name(s)] = counts[s];
    std::cout << j.dump(2) << "\n";
  } else {
    std::printf("\n| solution | status | corpus kernel | reason |\n|---|---|---|---|\n");
    for (const auto& o : outcomes) {
      std::string reason = o.reason;
      if (!o.fix.empty()) reason += " (fix: " + o.fix + ")";
      for (auto& c : reason) if (c == '\n' || c == '|') c = ' ';
      std::printf("| %s | %s | %s | %s |\n", o.solution.filename().c_str(), importer::status_name(o.status),
                  o.kernel.empty() ? "" : (o.task + "/" + o.kernel).c_str(), reason.c_str());
    }
    std::printf("\n%zu solution(s): %zu imported and %s, %zu imported but not verified (kept out of "
                "mutation), %zu already imported, %zu unsupported. Corpus: %s\n",
                outcomes.size(), counts[importer::ImportStatus::Imported],
                options.verify ? "verified" : "NOT verified (--no-verify)", counts[importer::ImportStatus::Unverified],
                counts[importer::ImportStatus::AlreadyImported], unsupported, options.corpus.c_str());
  }
  return unsupported ? 1 : 0;
}

}  // namespace kaudit::cli
