// kaudit::solutions -- mutants as KernelBench solution files, and a checker's own harness run on
// them as an oracle (issue 24, item 4).
//
// `kaudit export-mutants RUN_DIR --format kernelbench-solution --out DIR` writes what a harness
// that evaluates KernelBench solutions (KernelBench's own eval script, a gym's worker) can load:
//   solutions/<lib>.py   one KernelBench solution per build (calibrate/mutant_builds.h): a `ModelNew`
//                        whose CUDA source is compiled by torch.utils.cpp_extension.load_inline (one
//                        build per kernel schema, not per mutant) and whose mutant is chosen at
//                        load time by the environment variable KAUDIT_MUTANT_SWITCH (0 or unset:
//                        the original kernel);
//   originals/<task>--<kernel>.py  each original again as a plain KernelBench solution
//                        (tools/plain_solution.py: load_inline with functions=[entry], ModelNew with
//                        the Model's __init__ and an explicit call), which `kaudit import kernelbench`
//                        reads back to the same text, entry and binding;
//   problems/<task>.py   the task's problem.py (Model, get_inputs, get_init_inputs);
//   solutions.json       the manifest: every witnessed (or, asked, every audited) mutant of the run with its solution file,
//                        switch value, family and rule, and each kernel's original solution.
// ModelNew(*init_inputs) builds the problem's Model first, so under the harness's seed it holds
// the same parameters as the reference (KernelBench seeds both constructions alike), and its
// forward passes the kernel's binding (kernel.json "args"): inputs, the Model's parameters and
// buffers by name, and dims read off the inputs' shapes, then the init inputs the harness passed
// (a tuple's first entry: problem.py may pass (C_out, 1, 1) or (S, S) where task.json has a dim),
// then the task's `kernelbench` preset (a dim the harness fixes nowhere: a default of the Model's).
#pragma once
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "corpus/corpus.h"

namespace kaudit::solutions {

inline constexpr const char* kManifestFormat = "kaudit-kernelbench-solutions-1";
inline constexpr const char* kSwitchVariable = "KAUDIT_MUTANT_SWITCH";

struct ExportOptions {
  std::filesystem::path run_dir;         // a finished `kaudit audit --out DIR`
  std::filesystem::path out;
  std::filesystem::path cache_dir;       // the NVRTC and CPU-compile caches (mutants regenerated)
  std::vector<std::string> only;         // kernel ids TASK/NAME; empty: every kernel of the run
  // Every mutant the run audited, witnessed or not: for a harness that scores another audit of the
  // same mutants (a CUDA audit at a native preset witnesses others than the CPU's at `small`).
  bool all_mutants = false;
};

struct ExportSummary {
  std::size_t solutions = 0, mutants = 0, kernels = 0;
  std::vector<std::string> problems;     // what could not be exported, and why
};

// Throws reports::RunDirError for a bad run directory, std::runtime_error for a kernel of the
// run that the corpus lacks or an unwritable folder.
ExportSummary export_kernelbench_solutions(const corpus::Corpus& corpus, const ExportOptions& options);

// The Python text of one solution file (exposed for tests).
std::string solution_file(const corpus::Task& task, const corpus::Kernel& kernel, const std::string& problem_source,
                          const std::string& cuda_source, const std::string& lib, const std::string& what);

}  // namespace kaudit::solutions
