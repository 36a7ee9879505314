// Running an oracle spec (oracle/spec.h) on one kernel variant: generate each trial's inputs, run
// the reference at the spec's precision, and the kernel in an isolated worker in oracle mode (the
// spec's harness on the modelled GPU: oracle/harness.h), apply the spec's comparator. A kernel is
// accepted when every trial passes; a crash, timeout, launch error or wrapper exception rejects
// it like a mismatch would. The loop stops at the first failing trial.
#pragma once
#include <filesystem>
#include <string>
#include <vector>

#include "corpus/corpus.h"
#include "oracle/reference.h"
#include "oracle/spec.h"
#include "runtime/worker.h"

namespace kaudit::oracle {

struct TrialOutcome {
  std::string trial;
  corpus::Assignment dims;
  runtime::Status status = runtime::Status::Ok;
  std::string message;  // worker message, or why the trial could not run
  CompareResult compare;
  bool passed = false;
};

struct OracleVerdict {
  bool accepted = true;
  std::vector<TrialOutcome> trials;
  double harness_seconds = 0;  // the harness run's round trip (inputs and references made before it)
  const TrialOutcome* first_failure() const;
};

// The entry function's arguments for one input set, per the kernel's binding (docs/CORPUS.md):
// task inputs (as they are, not copied: every run is in a worker process, which gets its own copy,
// so a kernel that writes its inputs changes that copy only), Model parameters (copies), dims and
// literals.
std::vector<runtime::EntryArg> bind_entry_args(const corpus::Task& task, const corpus::Kernel& kernel,
                                               const std::vector<at::Tensor>& inputs,
                                               const corpus::Assignment& dims, const Reference& reference);

// One kernel run on one recipe: the recipe's inputs, the reference at `precision` (at::kDouble or
// at::kFloat) and the kernel's result. Throws ReferenceError when the reference cannot be had.
struct RecipeRun {
  corpus::Assignment dims;
  std::vector<at::Tensor> inputs;     // what the kernel was given
  Reference model;                    // the task's Model (for another precision of the reference)
  std::vector<at::Tensor> reference;  // at the `precision` asked for
  runtime::RunResult result;
  // Wall seconds of each step (at native shapes they decide how long a gate takes): making the
  // inputs, loading the Model (its Python export on a cache miss) and running it for the reference
  // (on the store's device, reference.h), binding the arguments and the kernel run (result.seconds: the runner's timing of
  // the run alone, worker start, transfers and retries included).
  double inputs_seconds = 0, reference_seconds = 0, run_seconds = 0;
};
RecipeRun run_recipe(ReferenceStore& references, runtime::IsolatedRunner& runner, const corpus::Task& task,
                     const corpus::Kernel& kernel, const std::filesystem::path& library, const Recipe& recipe,
                     at::ScalarType precision);

class Judge {
 public:
  Judge(ReferenceStore& references, runtime::IsolatedRunner& runner) : references_(references), runner_(runner) {}
  // `library`: the kernel variant built by cpu::CpuCompiler; `kernel` gives its binding.
  OracleVerdict judge(const OracleSpec& spec, const corpus::Task& task, const corpus::Kernel& kernel,
                      const std::filesystem::path& library);

 private:
  ReferenceStore& references_;
  runtime::IsolatedRunner& runner_;
};

}  // namespace kaudit::oracle
