// kaudit::corpus -- the task and kernel corpus as typed C++ values.
//
// The corpus on disk (docs/CORPUS.md) is:
//   <root>/tasks/<task>/problem.py + task.json
//   <root>/kernels/<task>/<name>.cu + <name>.json
// load_corpus() reads all of it. It is written for people editing the corpus by hand: one bad file
// never aborts the load; every problem becomes a Diagnostic naming the file, the line, the column
// and a fix, and everything else still loads (a kernel whose task failed is skipped, with its own
// diagnostic, so that nothing is silently missing).
//
// This library has no torch dependency on purpose: the CLI, the mutators and the reports can list
// and validate the corpus without pulling in libtorch.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

namespace kaudit::corpus {

// A dimension assignment: dim name -> value (e.g. {"B": 64, "D": 1024}).
using Assignment = std::map<std::string, int64_t>;

// A symbolic dimension with its legal range.
struct Dim {
  std::string name;
  int64_t min = 1;
  std::optional<int64_t> max;  // inclusive
  int64_t multiple_of = 1;
};

// The legal value domain of an input (what make_inputs honours).
enum class Domain {
  Real,         // any finite value
  Positive,     // strictly > 0 (argument of log, sqrt, divisor...)
  Probability,  // each row (last dim) positive and summing to 1
  Index,        // int64 class indices in [0, value of InputSpec::index_dim)
  // Structured matrices (the trailing two dims; leading dims are a batch): what KernelBench's
  // problems build with `(A + A.T) / 2`, `torch.tril(...)` and `torch.triu(...)`.
  Symmetric,        // each trailing [N, N] matrix equals its transpose (the last two dims must be one)
  LowerTriangular,  // zero above the diagonal (torch.tril)
  UpperTriangular,  // zero below the diagonal (torch.triu)
  Mask,             // bool, each element true with probability 1/2 (a masked op's mask)
};

// One element of a symbolic shape: a dim name or an integer literal.
using ShapeEntry = std::variant<std::string, int64_t>;

// A positional argument of Model.forward.
struct InputSpec {
  std::string name;
  std::string dtype;  // "float32" | "float16" | "bfloat16" | "int64" | "bool" (validated at load)
  std::vector<ShapeEntry> shape;
  Domain domain = Domain::Real;
  std::string index_dim;  // only for Domain::Index: the dim giving the exclusive upper bound
};

// A positional argument of Model.forward that is not a tensor but the same number on every call
// (KernelBench's 5_Matrix_scalar_multiplication: `s = 3.14` in get_inputs()). The harness never
// varies it, so neither does kaudit: the reference is called with it and a kernel argument naming
// it is that literal. task.json lists it among "inputs" as {"name": "s", "value": 3.14}.
struct ForwardConstant {
  std::string name;
  std::size_t position = 0;  // index among all of Model.forward's positional arguments
  double value = 0;
  bool integer = false;  // written as an integer in task.json: passed to Python as an int
};

// An argument of Model.__init__: a dim name (value taken from the shape being run), or a number
// literal. Integer and real literals are kept apart because Python cares (nn.Linear(1024, ...)
// needs an int, eps=1e-5 a float).
using InitArg = std::variant<std::string, int64_t, double>;

struct Tolerance {
  double rtol = 0;
  double atol = 0;  // for the verification gate this is the magnitude-scaled atol
};

struct Task {
  std::string name;
  std::string description;
  std::filesystem::path dir;         // <root>/tasks/<name>
  std::filesystem::path problem_py;  // <dir>/problem.py
  std::filesystem::path task_json;   // <dir>/task.json
  std::vector<InputSpec> inputs;     // the tensor arguments, in Model.forward order
  std::vector<ForwardConstant> constants;  // the number arguments, by position (usually none)
  std::vector<InitArg> init_inputs;  // in Model.__init__ order
  std::map<std::string, Dim> dims;
  std::map<std::string, Assignment> presets;  // always holds "small"
  std::vector<Assignment> odd_shapes;         // at least two
  std::optional<Tolerance> tolerance;         // gate tolerance override
  std::string notes;
  // What kind of operation the task is (one of kTaskCategories; empty when task.json gives none,
  // as an imported task's does): reports break miss rates down by it.
  std::string category;

  const InputSpec* find_input(const std::string& name) const;
  const ForwardConstant* find_constant(const std::string& name) const;
};

// The task categories task.json's "category" may name: KernelBench level 1's kinds of problem and
// level 2's fusions (docs/CORPUS.md).
inline constexpr const char* kTaskCategories[] = {"elementwise", "reduction", "scan",    "norm", "softmax",
                                                  "matmul",      "conv",      "pool",    "loss", "fusion"};

// Kernel argument bindings (docs/CORPUS.md, "args").
struct InputRef {  // "<input name>"
  std::string name;
  bool operator==(const InputRef&) const = default;
};
struct ParamRef {  // "param:<name>": a parameter or buffer of the exported Model
  std::string name;
  bool operator==(const ParamRef&) const = default;
};
struct DimRef {  // "dim:<name>": the value of a dim in the shape being run
  std::string name;
  bool operator==(const DimRef&) const = default;
};
using KernelArg = std::variant<InputRef, ParamRef, DimRef, int64_t, double, bool>;

struct Kernel {
  std::string task;
  std::string name;
  std::filesystem::path cu_path;
  std::filesystem::path json_path;
  // The source's name in diagnostics, sites, mutants.jsonl and build cache keys:
  // "<corpus folder's name>/kernels/<task>/<name>.cu", the same however the corpus path was
  // spelled ("corpus", "./corpus/", an absolute path). Set by load_corpus; load_kernel alone
  // leaves the .cu path as given.
  std::string file;
  std::string source;  // the .cu text
  std::string entry;   // host wrapper function name
  std::vector<KernelArg> args;
  nlohmann::json provenance = nlohmann::json::object();
  // Why the verification gate rejected this kernel when it was imported (`kaudit import`), or
  // empty. An unverified kernel is a finding about the checker that accepted it, not a reference
  // to mutate: load_corpus keeps it out of the corpus unless asked (LoadOptions).
  std::string unverified;

  // Stable display id "<task>/<name>".
  std::string id() const { return task + "/" + name; }
};

struct Corpus {
  std::filesystem::path root;
  std::vector<Task> tasks;      // sorted by name
  std::vector<Kernel> kernels;  // sorted by (task, name)

  const Task* find_task(const std::string& name) const;
  const Kernel* find_kernel(const std::string& task, const std::string& name) const;
  // Accepts "<task>/<name>".
  const Kernel* find_kernel(const std::string& id) const;
  std::vector<const Kernel*> kernels_of(const std::string& task) const;
};

// A problem found while loading, in compiler style.
struct Diagnostic {
  std::filesystem::path file;
  int line = 0;    // 1-based; 0 when the problem is about the file as a whole
  int column = 0;  // 1-based; 0 when unknown
  std::string message;
  std::string fix;  // a hint for how to repair it; may be empty

  // "file:line:col: error: message\n  fix: hint"
  std::string to_string() const;
};

struct LoadResult {
  Corpus corpus;
  std::vector<Diagnostic> diagnostics;
  std::vector<Kernel> unverified;  // kernels with "unverified" set, kept out of `corpus`
  bool ok() const { return diagnostics.empty(); }
};

struct LoadOptions {
  bool include_unverified = false;  // put unverified kernels in the corpus too (kaudit verify)
};

// Loads the whole corpus under `root`. Never throws for bad corpus content; a missing or
// unreadable root is reported as a diagnostic too.
LoadResult load_corpus(const std::filesystem::path& root, const LoadOptions& options = {});

// Loads one task directory (<root>/tasks/<name>). Returns nullopt and appends diagnostics if it is
// invalid.
std::optional<Task> load_task(const std::filesystem::path& task_dir,
                              std::vector<Diagnostic>& diags);

// Loads one kernel binding (<name>.json next to <name>.cu) against its task.
std::optional<Kernel> load_kernel(const std::filesystem::path& json_path, const Task& task,
                                  std::vector<Diagnostic>& diags);

// Converts a 0-based byte offset in `text` to 1-based (line, column). Columns count bytes.
std::pair<int, int> line_column(std::string_view text, size_t offset);

// Where, in `text`, nlohmann::json gave up, and why, in words: a syntax error's byte, or the
// literal of a number no double holds (`1e400`: out_of_range.406, which carries no position).
struct JsonFailure {
  size_t offset = 0;
  std::string message;
};
JsonFailure describe_json_failure(std::string_view text, const std::exception& e);

// --- shapes -----------------------------------------------------------------------------------

// The assignment of a named preset. Throws std::invalid_argument for an unknown preset.
Assignment resolve(const Task& task, const std::string& preset);
// Checks an explicit assignment: every dim assigned, no unknown names, values within
// min/max/multiple_of. Throws std::invalid_argument naming every problem; returns it unchanged.
Assignment resolve(const Task& task, const Assignment& assignment);

// The concrete shape of an input. Throws std::invalid_argument if a dim is not assigned.
std::vector<int64_t> shape_of(const InputSpec& input, const Assignment& assignment);

// Where tensor input `index` (of task.inputs) stands among Model.forward's positional arguments,
// counting the constants before it.
std::size_t forward_position(const Task& task, std::size_t index);

// The Model.__init__ arguments for an assignment (dims replaced by their values).
std::vector<double> init_values(const Task& task, const Assignment& assignment);

// "float32" -> 4 etc.; throws std::invalid_argument for an unknown dtype.
int dtype_size(const std::string& dtype);
const char* domain_name(Domain d);

}  // namespace kaudit::corpus
