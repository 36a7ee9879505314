// kaudit verify [PATH] [--json] [--kernel TASK/NAME]... : the verification gate.
#include <cmath>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include <ATen/Parallel.h>

#include "common/parallel.h"

#include "corpus/corpus.h"
#include "oracle/gate.h"
#include "oracle/recipes.h"
#include "runtime/cuda/device.h"
#include "runtime/worker.h"
#include "tools/cli.h"
#include "tools/cli_common.h"

namespace kaudit::cli {
namespace {

const char* kHelp =
    "usage: kaudit verify [PATH] [--json] [--progress] [--kernel TASK/NAME]... [--timeout SECONDS] [--cache DIR]\n"
    "                     [--backend cpu|cuda] [--preset P]\n\n"
    "Runs the verification gate: every kernel of the corpus at PATH (default: the built-in corpus)\n"
    "against the task's float64 reference on the gate recipes (uniform [0,1), normal, negative,\n"
    "large and tiny magnitudes, and the task's odd shapes), on the CPU backend (or, with --backend\n"
    "cuda, built with nvcc and run on the GPU), each run isolated in a worker process. A kernel passes when every output element satisfies\n"
    "  |out - ref| <= rtol*|ref| + atol*max|ref|\n"
    "with rtol/atol 1e-4/1e-5 for float32 outputs, 2e-3/1e-3 for float16, exact for integers\n"
    "(a task's task.json may override them, with a reason in its notes).\n\n"
    "Where the task's Model run in float32 misses the float64 reference too on a recipe (a float32\n"
    "overflow or underflow, a long accumulation over cancelling terms), the kernel is judged\n"
    "against that float32 answer instead, at the same tolerance; its cell starts with 'f32'.\n\n"
    "The table shows, per kernel and recipe, the worst element's error as a fraction of what the\n"
    "tolerance allows (below 1 passes). Exit status: 0 when every kernel passes, 1 when one fails\n"
    "or the corpus has errors (each is named with its file and line), 2 on a usage error.\n\n"
    "  --json          print {\"tasks\", \"kernels\", \"passed\", \"failed\": [...], \"results\": [...]};\n"
    "                  each case that ran has \"phase_seconds\" (where the time goes at native\n"
    "                  shapes): inputs, reference (loading the Model, exported by Python on a\n"
    "                  cache miss, and running it, on the GPU with --backend cuda), run (worker\n"
    "                  start, transfers and retries included), judge\n"
    "  --progress      one line on stderr after each case: kernel, recipe, status and phase seconds\n"
    "  --kernel ID     verify only this kernel (repeatable)\n"
    "  --timeout S     wall-clock limit per kernel run (default 60)\n"
    "  --cache DIR     cache for references and kernel builds (default $KAUDIT_CACHE or ~/.cache/kaudit)\n"
    "  --backend B     cpu (default: the emulator) or cuda (nvcc builds for this machine's GPU, run on\n"
    "                  device 0; exits 2 with one line where there is no GPU)\n"
    "  --preset P      the gate's recipes at task preset P (default small; kernelbench-v0, kernelbench:\n"
    "                  the benchmark's sizes, docs/CORPUS.md); odd shapes stay. Every task verified must\n"
    "                  have P\n";

std::string ratio_cell(const oracle::GateCase& c) {
  if (c.status != runtime::Status::Ok) return runtime::to_string(c.status);
  if (!c.passed) return c.judged_by_fp32 ? "FAIL f32" : "FAIL";
  const double r = oracle::error_ratio(c.compare);
  char buf[32];
  if (r == 0) std::snprintf(buf, sizeof buf, "%sexact", c.judged_by_fp32 ? "f32 " : "");
  else std::snprintf(buf, sizeof buf, "%s%.2g", c.judged_by_fp32 ? "f32 " : "", r);
  return buf;
}

nlohmann::json case_json(const oracle::GateCase& c) {
  nlohmann::json j = {{"recipe", c.recipe}, {"dims", c.dims}, {"status", runtime::to_string(c.status)},
                      {"passed", c.passed}, {"seconds", c.seconds}};
  if (c.timed)
    j["phase_seconds"] = {{"inputs", c.inputs_seconds}, {"reference", c.reference_seconds}, {"run", c.run_seconds},
                          {"judge", c.judge_seconds}};
  if (c.status != runtime::Status::Ok) j["message"] = c.message;
  else
    j["worst"] = {{"index", c.compare.worst_index}, {"output", c.compare.output}, {"got", c.compare.got},
                  {"expected", c.compare.expected}, {"abs_err", c.compare.abs_err},
                  {"allowed", c.compare.allowed}, {"mismatches", c.compare.mismatches},
                  {"reason", c.compare.reason}, {"max_ratio_within", c.compare.max_ratio_within}};
  j["judged_against"] = c.judged_by_fp32 ? "float32" : "float64";
  if (c.judged_by_fp32) j["float32_misses_float64"] = c.fp32_miss.to_string();
  return j;
}

}  // namespace

int verify_command(const std::vector<std::string>& args) {
  std::filesystem::path root = builtin_corpus_dir(), cache = default_cache_dir();
  bool json_out = false, progress = false;
  oracle::GateOptions opts;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    const auto value = [&](const char* flag) { return flag_value(args, i, flag); };
    try {
      if (a == "--help" || a == "-h") { std::fputs(kHelp, stdout); return 0; }
      else if (a == "--json") json_out = true;
      else if (a == "--progress") progress = true;
      else if (a == "--kernel") opts.only.push_back(value("--kernel"));
      else if (a == "--timeout") opts.limits.timeout_seconds = parse_real_flag(a, value("--timeout"), 0.01, 3600);
      else if (a == "--cache") cache = value("--cache");
      else if (a == "--backend") opts.limits.cuda = parse_backend_flag(value("--backend"));
      else if (a == "--preset") opts.preset = value("--preset");
      else if (!a.empty() && a[0] == '-') throw std::invalid_argument("unknown option " + a);
      else root = a;
    } catch (const std::exception& e) {
      std::fprintf(stderr, "kaudit verify: %s\n%s", e.what(), kHelp);
      return 2;
    }
  }
  if (opts.limits.cuda) {
    if (const std::string problem = cuda_backend_problem(); !problem.empty()) {
      std::fprintf(stderr, "kaudit verify: %s\n", problem.c_str());
      return 2;
    }
  }
  const std::string backend = backend_description(opts.limits.cuda);
  if (!std::filesystem::is_directory(root)) {
    std::fprintf(stderr, "kaudit verify: %s: no such corpus directory (expected tasks/ and kernels/ inside)\n",
                 root.c_str());
    return 2;
  }
  // Kernels the gate rejected at import are verified again like the others.
  corpus::LoadResult loaded = corpus::load_corpus(root, {.include_unverified = true});
  for (const auto& d : loaded.diagnostics) std::fprintf(stderr, "%s\n", d.to_string().c_str());
  for (const auto& id : opts.only)
    if (!loaded.corpus.find_kernel(id)) {
      std::fprintf(stderr, "kaudit verify: no kernel '%s' in %s (ids are TASK/NAME)\n", id.c_str(), root.c_str());
      return 2;
    }
  if (const std::string e = missing_preset(loaded.corpus, tasks_of(opts.only), opts.preset); !e.empty()) {
    std::fprintf(stderr, "kaudit verify: %s\n", e.c_str());
    return 2;
  }
  opts.cache_dir = cache;
  opts.worker_exe = runtime::worker_executable();
  if (!json_out) {
    std::printf("kaudit verify: %zu tasks, %zu kernels from %s (%s, shapes: task presets '%s' "
                "and odd shapes)\n",
                loaded.corpus.tasks.size(), loaded.corpus.kernels.size(), root.c_str(), backend.c_str(),
                opts.preset.c_str());
    std::printf("cell: the largest |out-ref| as a fraction of its allowed error (<1 passes); 'f32': judged "
                "against the Model in float32, which misses float64 there too\n\n");
    std::fflush(stdout);
    // Columns: the gate recipes in their fixed order (the task with most odd shapes sets the width).
    const corpus::Task* widest = nullptr;
    for (const auto& t : loaded.corpus.tasks)
      if (!widest || t.odd_shapes.size() > widest->odd_shapes.size()) widest = &t;
    std::printf("%-40s %-6s", "kernel", "result");
    if (widest)
      for (const auto& r : oracle::gate_recipes(*widest))
        std::printf(" %-10.10s", r.name.substr(r.name.rfind("gate-", 0) == 0 ? 5 : 0).c_str());
    std::printf("\n");
    opts.on_kernel = [&](const oracle::KernelVerdict& v) {
      std::printf("%-40s %-6s", v.kernel.c_str(), v.passed ? "pass" : "FAIL");
      for (const auto& c : v.cases) std::printf(" %-10s", ratio_cell(c).c_str());
      std::printf("\n");
      std::fflush(stdout);
    };
  }
  if (progress) {
    std::fprintf(stderr, "kaudit verify: inputs and judging on %u threads (kaudit's pool), references on %d ATen threads\n",
                 parallel::max_concurrency(), at::get_num_threads());
  }
  if (progress)
    opts.on_case = [](const std::string& kernel, const oracle::GateCase& c) {
      std::fprintf(stderr,
                   "kaudit verify: %s %s: %s %s (inputs %.1f s, reference %.1f s, run %.1f s, judge %.1f s)\n",
                   kernel.c_str(), c.recipe.c_str(), runtime::to_string(c.status),
                   c.status == runtime::Status::Ok ? ratio_cell(c).c_str() : c.message.substr(0, std::min<std::size_t>(200, c.message.find('\n'))).c_str(),
                   c.inputs_seconds, c.reference_seconds, c.run_seconds, c.judge_seconds);
      std::fflush(stderr);
    };
  const oracle::GateReport report = oracle::run_gate(loaded.corpus, opts);
  const auto failed = report.failed();
  if (json_out) {
    nlohmann::json j = {{"backend", opts.limits.cuda ? "cuda" : "cpu"}, {"preset", opts.preset}, {"tasks", report.tasks}, {"kernels", report.kernels.size()},
                        {"passed", report.passed()}, {"corpus_errors", loaded.diagnostics.size()}};
    nlohmann::json f = nlohmann::json::array(), results = nlohmann::json::array();
    for (const auto* v : failed) f.push_back({{"kernel", v->kernel}, {"reason", v->failure}});
    for (const auto& v : report.kernels) {
      nlohmann::json cases = nlohmann::json::array();
      for (const auto& c : v.cases) cases.push_back(case_json(c));
      results.push_back({{"kernel", v.kernel}, {"passed", v.passed}, {"build_seconds", v.build_seconds}, {"cases", cases}});
    }
    j["failed"] = f;
    j["results"] = results;
    std::cout << j.dump(2) << "\n";
  } else {
    std::printf("\n%zu/%zu kernels passed the gate (%zu tasks)\n", report.passed(), report.kernels.size(),
                report.tasks);
    for (const auto* v : failed) std::printf("FAILED %s: %s\n", v->kernel.c_str(), v->failure.c_str());
    if (!loaded.diagnostics.empty())
      std::printf("%zu corpus file(s) could not be loaded (see the errors above)\n", loaded.diagnostics.size());
  }
  return failed.empty() && loaded.diagnostics.empty() ? 0 : 1;
}

}  // namespace kaudit::cli
