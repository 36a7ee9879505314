// kaudit check: runs oracle specs on the corpus kernels themselves. Every corpus kernel passed the
// verification gate, so each rejection is a false kill of a correct kernel by that oracle.
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

#include "corpus/corpus.h"
#include "oracle/gate.h"
#include "oracle/judge.h"
#include "oracle/spec.h"
#include "runtime/cuda/device.h"
#include "runtime/worker.h"
#include "tools/cli.h"
#include "tools/cli_common.h"

namespace kaudit::cli {
namespace {
const char* kHelp =
    "usage: kaudit check [PATH] [--oracle NAME|FILE]... [--kernel TASK/NAME]... [--json] [--cache DIR]\n"
    "                    [--backend cpu|cuda] [--preset P] [--timeout SECONDS]\n\n"
    "Runs oracle specs (default: every built-in spec in suites/) on the kernels of the corpus at PATH\n"
    "(default: the built-in corpus), each spec as its harness runs on a GPU (oracle mode): on the CPU\n"
    "backend's model of the GPU, or with --backend cuda built with nvcc and run on device 0. Shapes\n"
    "come from each spec's shape preset, or --preset P moves the trials at it to task preset P\n"
    "(kernelbench-v0, kernelbench: the benchmark's sizes, docs/CORPUS.md). The corpus kernels passed\n"
    "the verification gate, so a rejection is a false kill: the oracle rejects a correct kernel. The\n"
    "table shows accept, or REJECT with the first failing trial.\n"
    "  --timeout S   wall-clock limit per harness run, in seconds (default 60)\n"
    "Exit status 0 (rejections are findings, not errors); 2 on a usage error, a bad spec, or\n"
    "--backend cuda where no GPU is found (one line says so).\n";
}  // namespace

int check_command(const std::vector<std::string>& args) {
  std::filesystem::path root = builtin_corpus_dir(), cache = default_cache_dir();
  std::vector<std::string> oracle_args, only;
  std::string preset;
  bool json_out = false;
  runtime::WorkerLimits limits;  // one worker (a CUDA one takes at most half the GPU's memory)
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    const auto value = [&] { return flag_value(args, i, a.c_str()); };
    try {
      if (a == "--help" || a == "-h") { std::fputs(kHelp, stdout); return 0; }
      else if (a == "--json") json_out = true;
      else if (a == "--oracle") oracle_args.push_back(value());
      else if (a == "--kernel") only.push_back(value());
      else if (a == "--cache") cache = value();
      else if (a == "--preset") preset = value();
      else if (a == "--timeout") limits.timeout_seconds = parse_real_flag(a, value(), 0.01, 3600);
      else if (a == "--backend") limits.cuda = parse_backend_flag(value());
      else if (!a.empty() && a[0] == '-') throw std::invalid_argument("unknown option " + a);
      else root = a;
    } catch (const std::exception& e) {
      std::fprintf(stderr, "kaudit check: %s\n%s", e.what(), kHelp);
      return 2;
    }
  }
  if (limits.cuda) {
    if (const std::string problem = cuda_backend_problem(); !problem.empty()) {
      std::fprintf(stderr, "kaudit check: %s\n", problem.c_str());
      return 2;
    }
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
  const std::vector<std::string> tasks = tasks_of(only);
  if (!preset.empty()) {
    if (const std::string e = missing_preset(loaded.corpus, tasks, preset); !e.empty()) {
      std::fprintf(stderr, "kaudit check: %s\n", e.c_str());
      return 2;
    }
    for (auto& spec : specs) spec = oracle::at_preset(std::move(spec), preset);
  }
  try {
    for (const auto& spec : specs) {
      oracle::check_spec_for_corpus(spec, loaded.corpus, tasks);
      if (const char* gate = spec.gates.unchecked_on_cuda(); limits.cuda && gate)
        throw oracle::SpecError(spec.file.empty() ? std::filesystem::path(spec.name) : spec.file, 0, "gates",
                                std::string("the CUDA backend does not check the gate ") + gate +
                                    " yet (it counts library calls, not launches or unwritten outputs): check such specs with --backend cpu");
    }
    oracle::set_stored_inputs_dir(cache / "checker-inputs");
    for (auto& spec : specs) oracle::resolve_checker_inputs(spec, loaded.corpus, tasks);
  } catch (const oracle::SpecError& e) {
    std::fprintf(stderr, "kaudit check: %s\n", e.what());
    return 2;
  } catch (const oracle::ExternalCheckerError& e) {
    std::fprintf(stderr, "kaudit check: %s\n", e.what());
    return 2;
  }
  std::vector<const corpus::Kernel*> kernels;
  for (const auto& k : loaded.corpus.kernels)
    if (only.empty() || std::find(only.begin(), only.end(), k.id()) != only.end()) kernels.push_back(&k);
  const auto builds = oracle::build_kernels(kernels, cache, limits.cuda);
  oracle::ReferenceStore references(cache, oracle::default_export_script());
  references.set_placement(oracle::reference_placement(limits.cuda));
  runtime::IsolatedRunner runner(runtime::self_executable(), limits);
  const std::string backend = backend_description(limits.cuda);
  oracle::Judge judge(references, runner);

  if (!json_out) {
    std::printf("kaudit check: %zu kernels x %zu oracles (%s, %s)\n\n%-40s", kernels.size(), specs.size(),
                backend.c_str(), preset.empty() ? "shape preset of each spec" : ("preset " + preset).c_str(), "kernel");
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
      oracle::OracleVerdict v;
      if (!builds[k].ok) {
        cell = "no-build";
      } else {
        v = judge.judge(specs[s], task, *kernels[k], builds[k].library);
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
      row["trials_run"][specs[s].name] = v.trials.size();
      row["harness_seconds"][specs[s].name] = v.harness_seconds;
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
    std::cout << nlohmann::json{{"backend", limits.cuda ? "cuda" : "cpu"}, {"preset", preset.empty() ? "as each spec says" : preset},
                                {"kernels", kernels.size()}, {"false_kills", fk}, {"results", rows}}.dump(2)
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
