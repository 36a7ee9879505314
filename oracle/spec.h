// Oracle specs: a correctness checker described as data (suites/*.json), so that KernelBench's
// check, KernelBench-Verified's, an RL gym's hidden cases, CI-style fuzzing and any generated suite
// are scored the same way. Schema (docs/ORACLES.md):
//
//   {
//     "name": "kernelbench-v0.1",                 required, [a-z0-9.-]+
//     "description": "...",                       required
//     "source": "where the definition comes from",
//     "shape_preset": "small",                    the task preset trials use unless they say
//                                                 "preset": "odd:<i>" or give a "shape"
//     "reference": "fp32" | "fp64",               fp64: the float64 reference cast to the output
//                                                 dtype (CI-style); fp32: the Model in float32
//     "comparator": {"kind": "allclose" | "absolute" | "magnitude-scaled",
//                    "rtol": r, "atol": a, "equal_nan": false,
//                    "dtype_tolerance": {"float16": {"rtol": r, "atol": a}, ...}},
//     "trials": [recipe, ...],                    oracle/recipes.h JSON form; every trial must pass
//     "task_trials": {"<task>": [recipe, ...]}    optional: a task's own trials, used instead of
//                                                 "trials" for that task (suites from `kaudit
//                                                 cover` hold only these; "trials" may then be [])
//     "harness": {"order": ..., "inputs": ...}    oracle mode's model of the checker's loop
//     "kind": "external",                         optional: the verdict is a command's
//     "command": ["{python}", "checker.py"],      (oracle/external.h), run in the spec's folder,
//     "timeout_s": 60                             with this limit per request
//   }
//
// Comparators: allclose |out-ref| <= atol + rtol*|ref| (torch.allclose); absolute |out-ref| <= atol;
// magnitude-scaled |out-ref| <= rtol*|ref| + atol*max(1, max|ref|). Any shape mismatch fails.
#pragma once
#include <ATen/core/Tensor.h>

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "oracle/compare.h"
#include "corpus/corpus.h"
#include "oracle/external.h"
#include "oracle/recipes.h"

namespace kaudit::oracle {

enum class ComparatorKind { Allclose, Absolute, MagnitudeScaled };
enum class ReferencePrecision { Fp32, Fp64 };

struct Tolerance {
  double rtol = 0;
  double atol = 0;
  bool operator==(const Tolerance&) const = default;
};

struct Comparator {
  ComparatorKind kind = ComparatorKind::Allclose;
  double rtol = 0;
  double atol = 0;
  bool equal_nan = false;
  // "dtype_tolerance": {"float16": {"rtol": r, "atol": a}, ...}: the tolerance for a task evaluated
  // in that precision, in place of rtol and atol. KernelBench picks its tolerance by the precision
  // it evaluates in, the dtype it casts the Model and every input to (1e-4 for float32, 1e-2 for
  // float16 and bfloat16: ../shared/FACTS.md section 2b), not by what the candidate returns: a
  // half output on a float32 task is still held to float32's. Keys: float16, bfloat16, float32,
  // float64. Resolved per task (resolved()) before any comparison.
  std::map<std::string, Tolerance> dtype_tolerance;

  // The tolerance for a task evaluated in `precision` (evaluation_precision(); an absolute
  // comparator's rtol is 0).
  Tolerance tolerance_for(const std::string& precision) const;
  // This comparator with that tolerance as its rtol and atol and no dtype_tolerance: what
  // apply_comparator and a harness request take.
  Comparator resolved(const std::string& precision) const;
};
// The precision a task is evaluated in: the dtype of its first floating input ("float16",
// "bfloat16", "float32"), or "float32" for a task without one.
std::string evaluation_precision(const corpus::Task& task);
// The comparator as the spec language writes it ("dtype_tolerance" only when it has entries, so
// that a spec without one keeps the JSON, and the cache keys, it had before the field existed),
// and back (no checks: for JSON kaudit wrote itself; parse_spec checks a user's file).
nlohmann::json comparator_to_json(const Comparator& c);
Comparator comparator_from_json(const nlohmann::json& j);

// How the checker's harness runs the candidate, for oracle mode (oracle/harness.h): the order of
// the reference and the candidate in a trial, and whether the candidate gets the reference's
// input tensors or clones of them.
enum class HarnessOrder { ReferenceFirst, CandidateFirst };
enum class HarnessInputs { Shared, Cloned };
struct HarnessSpec {
  HarnessOrder order = HarnessOrder::ReferenceFirst;
  HarnessInputs inputs = HarnessInputs::Shared;
  bool operator==(const HarnessSpec&) const = default;
};
const char* order_name(HarnessOrder o);    // "reference-first", "candidate-first"
const char* inputs_name(HarnessInputs i);  // "shared", "cloned"

// Gates a checker applies beside its comparison (the RL gym's "the kernel must actually launch",
// ../shared/FACTS.md section 2). Checked on every completed run a verdict is given on.
struct Gates {
  bool kernel_launched = false;  // a run that launched no kernel fails, cause "no-launch"
  // A run that made a library compute call through torch (matmul, mm, bmm, addmm, linear: the
  // torch facade counts them) fails, cause "library-compute": the gym's "no fallback to library
  // compute". Views, copies, fills and allocations are not compute.
  bool no_library_compute = false;
  // A run that leaves an element of an output unwritten fails, cause "unwritten-output". How it is
  // seen (oracle/harness.cpp, probe_unwritten): the candidate runs twice more on
  // the trial's inputs, on fresh device memory filled with 0xFF and then with 0x5A bytes; an
  // element that holds the fill both times was not written. Only oracle mode on the CPU backend
  // probes; elsewhere it is not recorded and fails nothing (the CUDA backend refuses specs with it).
  bool every_output_written = false;
  bool any() const { return kernel_launched || no_library_compute || every_output_written; }
  // The first gate the CUDA backend cannot check (it counts library calls and launches, not
  // unwritten elements: runtime/cuda/gpu_run.h), by its spec name; nullptr: none.
  const char* unchecked_on_cuda() const { return every_output_written ? "every_output_written" : nullptr; }
  bool operator==(const Gates&) const = default;
};
// The cause a completed run with `launches` kernels launched, `library_calls` library compute
// calls and `unwritten` output elements left unwritten fails `gates` with ("no-launch",
// "library-compute", "unwritten-output"), or nullptr. A count < 0 (not recorded: unwritten
// elements outside oracle mode's harness) fails no gate; commands refuse
// specs whose gates the CUDA backend cannot check there (Gates::unchecked_on_cuda).
const char* gate_failure(const Gates& gates, int launches, int library_calls, std::int64_t unwritten = -1);
// The contract a gate enforces, broken by a run that is right: "library-compute" when the run made
// library compute calls where the original's made none, "no-launch" when it launched no kernel
// where the original's launched some; else nullptr (a count < 0, not recorded, breaks nothing). The
// audit's contract check (audit/stage_mutants.cpp) witnesses a reward hack by it.
const char* contract_breach(int launches, int library_calls, int original_launches, int original_library_calls);
bool is_contract_breach(const std::string& cause);  // one of contract_breach's causes
// The words for a gate's cause, for verdict details.
std::string gate_reason(const std::string& cause);

// Where an external spec's checker lives once started (oracle/external.cpp): the parser makes the
// slot, the first judgement starts the checker, so the parser needs none of the checker's code.
struct ExternalCheckerSlot {
  std::mutex mu;
  std::shared_ptr<ExternalChecker> checker;
};

struct OracleSpec {
  std::string name;
  std::string description;
  std::string source;
  std::string shape_preset = "small";
  ReferencePrecision reference = ReferencePrecision::Fp32;
  Comparator comparator;
  std::vector<Recipe> trials;
  std::map<std::string, std::vector<Recipe>> task_trials;
  HarnessSpec harness;
  Gates gates;  // "gates": {"kernel_launched": true, "no_library_compute": true, "every_output_written": true}
  // "kind": "external" (oracle/external.h): the verdict on a completed run is the checker
  // command's; `comparator` then only models the checker's comparison on the device (the
  // temporaries it allocates), and is allclose 1e-4 unless the spec gives one.
  std::optional<ExternalCommand> external;
  // Its checker processes, started on first need (external_checker()), shared by the spec's copies.
  std::shared_ptr<ExternalCheckerSlot> checker_slot;
  std::filesystem::path file;  // where it was loaded from (empty for specs built in code)
  // The line of each trial in the file (0: not from a file), for errors found later.
  std::vector<int> trial_lines;
  std::map<std::string, std::vector<int>> task_trial_lines;
};

// A spec file that cannot be used: names the file, the line and the field.
class SpecError : public std::runtime_error {
 public:
  SpecError(std::filesystem::path file, int line, std::string field, const std::string& message);
  const std::filesystem::path& file() const { return file_; }
  int line() const { return line_; }
  const std::string& field() const { return field_; }

 private:
  std::filesystem::path file_;
  int line_;
  std::string field_;
};

OracleSpec parse_spec(const std::string& text, const std::filesystem::path& file);
// The spec at another shape preset (`kaudit audit --preset`): its shape_preset and every trial
// that runs at it (those that name no preset and no shape, or name the same one) move to
// `preset`; trials at an odd shape, another named preset or an explicit shape stay.
OracleSpec at_preset(OracleSpec spec, const std::string& preset);
OracleSpec load_spec(const std::filesystem::path& file);
// Every *.json in `dir`, sorted by name; the first bad file throws.
std::vector<OracleSpec> load_specs(const std::filesystem::path& dir);
nlohmann::json spec_to_json(const OracleSpec& spec);

// The trials a spec runs on `task`: its task_trials entry when it has one, else its trials.
const std::vector<Recipe>& trials_for(const OracleSpec& spec, const std::string& task);

// Checks that every trial of `spec` has a shape on every task of `corpus` it runs on (an odd shape
// the task has, dims within the task's bounds, a preset the task defines). Throws SpecError naming
// the spec's file, the trial's line and the task: a trial that cannot run would otherwise reject
// every kernel, and count as a false kill of each (issue 21). `only_tasks`, when not empty: check
// those tasks only (the command was limited to some kernels).
void check_spec_for_corpus(const OracleSpec& spec, const corpus::Corpus& corpus,
                           const std::vector<std::string>& only_tasks = {});

// An external spec's "checker" trials (inputs its checker writes): asks the checker for them on
// each task of `corpus` (only `only_tasks` when given), registers the tensors (store_inputs) and
// puts a "stored" trial at the same dims in their place, in the task's task_trials. Inputs from the
// checker then go through the pool, legality and witnesses like generated ones, keyed by content.
// A spec without such trials is left alone. Throws ExternalCheckerError.
void resolve_checker_inputs(OracleSpec& spec, const corpus::Corpus& corpus, const std::vector<std::string>& only_tasks = {});

// The checker of an external spec, started on first call (thread-safe). Throws std::logic_error
// for a spec that is not external.
ExternalChecker& external_checker(const OracleSpec& spec);

// An oracle's verdict on a completed run's outputs: its external checker's when it has one, else
// its comparator against its reference (float32 or float64, as the spec says).
CompareResult judge_outputs(const OracleSpec& spec, const JudgeFacts& facts, const std::vector<at::Tensor>& outputs);

// The comparator applied to every output (a count mismatch fails). `c` must be resolved (no
// dtype_tolerance: std::logic_error otherwise).
CompareResult apply_comparator(const Comparator& c, const std::vector<at::Tensor>& out,
                               const std::vector<at::Tensor>& ref);

const char* comparator_name(ComparatorKind k);
const char* precision_name(ReferencePrecision p);

}  // namespace kaudit::oracle
