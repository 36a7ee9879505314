// kaudit check: runs oracle specs on the corpus kernels themselves. Every corpus kernel passed the
// verification gate, so each rejection is a false kill of a correct kernel by that oracle.
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

#include "corpus/corpus.h"
#include "oracle/gate.h"
#include "oracle/judge.h"
#include "oracle/spec.h"
#include "runtime/worker.h"
#include "tools/cli.h"
#include "tools/cli_common.h"

namespace kaudit::cli {
namespace {
const char* kHelp =
    "usage: kaudit check [PATH] [--oracle NAME|FILE]... [--kernel TASK/NAME]... [--json] [--cache DIR]\n"
    "                    [--backend cpu|cuda]  (cuda: not yet for this command; it says so and exits 2)\n\n"
    "Runs oracle specs (default: every built-in spec in suites/) on the kernels of the corpus at PATH\n"
    "(default: the built-in corpus) on the CPU backend, shapes from each spec's shape preset. The\n"
    "corpus kernels passed the verification gate, so a rejection is a false kill: the oracle rejects a\n"
    "correct kernel. The table shows accept, or REJECT with the first failing trial.\n"
    "Exit status 0 (rejections are findings, not errors); 2 on a usage error or a bad spec.\n";
}  // namespace

int check_command(const std::vector<std::string>& args) {
  std::filesystem::path root = builtin_corpus_dir(), cache = default_cache_dir();
  std::vector<std::string> oracle_args, only;
  bool json_out = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= args.size()) {
        std::fprintf(stderr, "kaudit check: %s needs a value\n", a.c_str());
        std::exit(2);
      }
      return args[++i];
    };
    if (a == "--help" || a == "-h") { std::fputs(kHelp, stdout); return 0; }
    else if (a == "--json") json_out = true;
    else if (a == "--oracle") oracle_args.push_back(value());
    else if (a == "--kernel") only.push_back(value());
    else if (a == "--cache") cache = value();
    else if (a == "--backend") {
      bool cuda = false;
      try {
        cuda = parse_backend_flag(value());
      } catch (const std::exception& e) {
        std::fprintf(stderr, "kaudit check: %s\n", e.what());
        return 2;
      }
      if (cuda) {
        std::fprintf(stderr, "kaudit check: %s\n", cuda_backend_problem(false).c_str());
        return 2;
      }
    }
    else if (!a.empty() && a[0] == '-') { std::fprintf(stderr, "kaudit check: unknown option %s\n%s", a.c_str(), kHelp); return 2; }
    else root = a;
  }
  std::vector<oracle::OracleSpec> specs;
  try {
    specs = resolve_oracles(oracle_args);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "kaudit check: %s\n", e.what());
    return 2;
  }
  corpus::LoadResult loaded = corpus::load_corpus(root);
  for (const auto& d : loaded.diagnostics) std::fprintf(stderr, "%s\n", d.to_string().c_str());
  try {
    std::vector<std::string> tasks;  // of the --kernel ids, if any
    for (const auto& id : only) tasks.push_back(id.substr(0, id.find('/')));
    for (const auto& spec : specs) oracle::check_spec_for_corpus(spec, loaded.corpus, tasks);
  } catch (const oracle::SpecError& e) {
    std::fprintf(stderr, "kaudit check: %s\n", e.what());
    return 2;
  }
  std::vector<const corpus::Kernel*> kernels;
  for (const auto& k : loaded.corpus.kernels)
    if (only.empty() || std::find(only.begin(), only.end(), k.id()) != only.end()) kernels.push_back(&k);
  const auto builds = oracle::build_kernels(kernels, cache);
  oracle::ReferenceStore references(cache, oracle::default_export_script());
  runtime::IsolatedRunner runner(runtime::self_executable(), runtime::WorkerLimits{});
  oracle::Judge judge(references, runner);

  if (!json_out) {
    std::printf("kaudit check: %zu kernels x %zu oracles (CPU backend, shape preset of each spec)\n\n%-40s",
                kernels.size(), specs.size(), "kernel");
    for (const auto& s : specs) std::printf(" %-22.22s", s.name.c_str());
    std::printf("\n");
  }
  std::vector<int> false_kills(specs.size(), 0);
  nlohmann::json rows = nlohmann::json::array();
  for (std::size_t k = 0; k < kernels.size(); ++k) {
    const corpus::Task& task = *loaded.corpus.find_task(kernels[k]->task);
    nlohmann::json row = {{"kernel", kernels[k]->id()}};
    if (!json_out) std::printf("%-40s", kernels[k]->id().c_str());
    for (std::size_t s = 0; s < specs.size(); ++s) {
      std::string cell;
      if (!builds[k].ok) {
        cell = "no-build";
      } else {
        const oracle::OracleVerdict v = judge.judge(specs[s], task, *kernels[k], builds[k].library);
        if (v.accepted) {
          cell = "accept";
        } else {
          ++false_kills[s];
          const auto* f = v.first_failure();
          cell = "REJECT(" + f->trial + ")";
          row["rejections"][specs[s].name] = {{"trial", f->trial}, {"status", runtime::to_string(f->status)},
                                            {"message", f->message}, {"reason", f->compare.to_string()}};
        }
      }
      row["oracles"][specs[s].name] = cell;
      if (!json_out) std::printf(" %-22.22s", cell.c_str());
    }
    if (!json_out) {
      std::printf("\n");
      std::fflush(stdout);
    }
    rows.push_back(row);
  }
  if (json_out) {
    nlohmann::json fk;
    for (std::size_t s = 0; s < specs.size(); ++s) fk[specs[s].name] = false_kills[s];
    std::cout << nlohmann::json{{"backend", "cpu"}, {"kernels", kernels.size()}, {"false_kills", fk}, {"results", rows}}.dump(2)
              << "\n";
  } else {
    std::printf("\n%-40s", "false kills (correct kernels rejected)");
    for (std::size_t s = 0; s < specs.size(); ++s) std::printf(" %-22d", false_kills[s]);
    std::printf("\n");
  }
  return 0;
}

std::vector<oracle::OracleSpec> resolve_oracles(const std::vector<std::string>& names) {
  if (names.empty()) return oracle::load_specs(builtin_suites_dir());
  std::vector<oracle::OracleSpec> out;
  for (const auto& n : names) {
    std::filesystem::path p(n);
    if (p.extension() == ".json" || n.find('/') != std::string::npos) {
      out.push_back(oracle::load_spec(p));
    } else {
      const auto builtin = builtin_suites_dir() / (n + ".json");
      if (!std::filesystem::exists(builtin)) {
        std::string known;
        for (const auto& s : oracle::load_specs(builtin_suites_dir())) known += (known.empty() ? "" : ", ") + s.name;
        throw std::invalid_argument("no built-in oracle '" + n + "' (built in: " + known + "; or pass a spec file)");
      }
      out.push_back(oracle::load_spec(builtin));
    }
  }
  return out;
}

}  // namespace kaudit::cli
