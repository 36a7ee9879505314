#include "solutions/kernelbench_solutions.h"

#include <algorithm>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>

#include "calibrate/mutant_builds.h"
#include "common/files.h"
#include "common/process.h"
#include "oracle/reference.h"
#include "reports/run_files.h"
#include "runtime/cuda/build.h"

namespace kaudit::solutions {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// A Python string literal of `s`: JSON's escapes (\", \\, \n, \uXXXX for control characters)
// are Python's too. Other characters stay as they are, in UTF-8, Python's source encoding (JSON's
// escapes of characters beyond U+FFFF are surrogate pairs, which Python reads as two lone ones).
// Throws std::runtime_error naming `what` for text that is not UTF-8.
std::string py_str(const std::string& s, const std::string& what = "a name") {
  try {
    return json(s).dump(-1, ' ', false);
  } catch (const json::type_error&) {
    throw std::runtime_error(what + ": not UTF-8 text; a solution file is Python source, which must be");
  }
}

// The binding as Python data: [("input", 0), ("param", "weight"), ("dim", "D"), ("int", 3), ...].
std::string py_binding(const corpus::Task& task, const corpus::Kernel& kernel) {
  std::ostringstream os;
  os << "[";
  for (std::size_t i = 0; i < kernel.args.size(); ++i) {
    const auto& a = kernel.args[i];
    if (i) os << ", ";
    if (auto* in = std::get_if<corpus::InputRef>(&a)) {
      const auto pos = std::find_if(task.inputs.begin(), task.inputs.end(), [&](const auto& x) { return x.name == in->name; });
      if (pos == task.inputs.end())
        throw std::runtime_error(kernel.json_path.string() + ": argument '" + in->name + "' is no input of " + task.name);
      os << "(\"input\", " << corpus::forward_position(task, pos - task.inputs.begin()) << ")";
    } else if (auto* p = std::get_if<corpus::ParamRef>(&a)) {
      os << "(\"param\", " << py_str(p->name) << ")";
    } else if (auto* d = std::get_if<corpus::DimRef>(&a)) {
      os << "(\"dim\", " << py_str(d->name) << ")";
    } else if (auto* v = std::get_if<int64_t>(&a)) {
      os << "(\"int\", " << *v << ")";
    } else if (auto* x = std::get_if<double>(&a)) {
      os << "(\"double\", " << json(*x).dump() << ")";
    } else if (auto* b = std::get_if<bool>(&a)) {
      os << "(\"bool\", " << (*b ? "True" : "False") << ")";
    }
  }
  os << "]";
  return os.str();
}

// Where the forward finds each dim: per input, (axis, dim) pairs; per init position, a dim.
std::string py_input_dims(const corpus::Task& task) {
  std::ostringstream os;
  os << "[";
  // By Model.forward's positions: a constant argument has no dims.
  for (std::size_t i = 0, at = 0; i < task.inputs.size(); ++i) {
    for (const std::size_t position = corpus::forward_position(task, i); at < position; ++at)
      os << (at ? ", " : "") << "[]";
    os << (at++ ? ", " : "") << "[";
    bool first = true;
    for (std::size_t axis = 0; axis < task.inputs[i].shape.size(); ++axis)
      if (auto* name = std::get_if<std::string>(&task.inputs[i].shape[axis])) {
        os << (first ? "" : ", ") << "(" << axis << ", " << py_str(*name) << ")";
        first = false;
      }
    os << "]";
  }
  os << "]";
  return os.str();
}

std::string py_init_dims(const corpus::Task& task) {
  std::ostringstream os;
  os << "{";
  bool first = true;
  for (std::size_t i = 0; i < task.init_inputs.size(); ++i)
    if (auto* name = std::get_if<std::string>(&task.init_inputs[i])) {
      os << (first ? "" : ", ") << i << ": " << py_str(*name);
      first = false;
    }
  os << "}";
  return os.str();
}

std::string py_preset(const corpus::Task& task) {
  const auto it = task.presets.count("kernelbench") ? task.presets.find("kernelbench") : task.presets.find("small");
  std::ostringstream os;
  os << "{";
  bool first = true;
  for (const auto& [name, value] : it->second) {
    os << (first ? "" : ", ") << py_str(name) << ": " << value;
    first = false;
  }
  os << "}";
  return os.str();
}

}  // namespace

std::string solution_file(const corpus::Task& task, const corpus::Kernel& kernel, const std::string& problem_source,
                          const std::string& cuda_source, const std::string& lib, const std::string& what) {
  std::ostringstream py;
  py << "# A KernelBench solution file written by `kaudit export-mutants` (solutions/kernelbench_solutions.h).\n"
     << "# Kernel " << kernel.id() << " (" << kernel.file << "), build: " << what << ".\n"
     << "# The mutant is chosen when this file is loaded: $" << kSwitchVariable
     << " (solutions.json gives each mutant's value;\n"
     << "# 0 or unset: the original kernel). One CUDA build serves every mutant of the build.\n"
     << "import os\n\nimport torch\nimport torch.nn as nn\nfrom torch.utils.cpp_extension import load_inline\n\n"
     << "# The task's problem.py: ModelNew builds its Model for the parameters (the harness seeds both alike).\n"
     << "_PROBLEM_SOURCE = " << py_str(problem_source, task.problem_py.string()) << "\n"
     << "_problem = {\"__name__\": \"kaudit_problem_" << task.name << "\"}\n"
     << "exec(compile(_PROBLEM_SOURCE, \"<problem " << task.name << ">\", \"exec\"), _problem)\n\n"
     << "_CUDA_SOURCE = " << py_str(cuda_source, kernel.cu_path.string()) << "\n"
     << "_LIB = " << py_str(lib) << "\n"
     << "load_inline(name=_LIB, cpp_sources=\"\", cuda_sources=_CUDA_SOURCE, is_python_module=False, verbose=False)\n"
     << "_op = getattr(torch.ops, _LIB)\n"
     << "_SWITCH = int(os.environ.get(" << py_str(kSwitchVariable) << ", \"0\"))\n"
     << "_SWITCHED = set()  # the devices whose copy of the switch is set (it is a __device__ variable)\n\n\n"
     << "def _set_switch():\n"
     << "    device = torch.cuda.current_device() if torch.cuda.is_available() else -1\n"
     << "    if device not in _SWITCHED:\n"
     << "        _op.set_mutant(_SWITCH)\n"
     << "        _SWITCHED.add(device)\n\n\n"
     << "_set_switch()\n"
     << "_BINDING = " << py_binding(task, kernel) << "\n"
     << "_INPUT_DIMS = " << py_input_dims(task) << "\n"
     << "_INIT_DIMS = " << py_init_dims(task) << "\n"
     << "_DEFAULT_DIMS = " << py_preset(task) << "\n\n\n"
     << "class ModelNew(nn.Module):\n"
     << "    def __init__(self, *init_inputs):\n"
     << "        super().__init__()\n"
     << "        self.reference = _problem[\"Model\"](*init_inputs)\n"
     << "        self._init_inputs = list(init_inputs)\n\n"
     << "    def forward(self, *inputs):\n"
     << "        _set_switch()\n"
     << "        dims = dict(_DEFAULT_DIMS)\n"
     << "        for position, name in _INIT_DIMS.items():\n"
     << "            value = self._init_inputs[position] if position < len(self._init_inputs) else None\n"
     << "            if isinstance(value, (tuple, list)) and value:  # (C_out, 1, 1), (S, S): its first entry\n"
     << "                value = value[0]\n"
     << "            if isinstance(value, (int, float)) and not isinstance(value, bool):\n"
     << "                dims[name] = int(value)\n"
     << "        for i, axes in enumerate(_INPUT_DIMS):\n"
     << "            for axis, name in axes:\n"
     << "                dims[name] = int(inputs[i].shape[axis])\n"
     << "        named = dict(self.reference.named_parameters())\n"
     << "        named.update(dict(self.reference.named_buffers()))\n"
     << "        tensors, values, kinds = [], [], []\n"
     << "        for kind, what in _BINDING:\n"
     << "            if kind == \"input\":\n"
     << "                tensors.append(inputs[what]); values.append(0.0); kinds.append(0)\n"
     << "            elif kind == \"param\":\n"
     << "                tensors.append(named[what]); values.append(0.0); kinds.append(0)\n"
     << "            elif kind in (\"dim\", \"int\"):\n"
     << "                tensors.append(None); values.append(float(dims[what] if kind == \"dim\" else what)); kinds.append(1)\n"
     << "            elif kind == \"double\":\n"
     << "                tensors.append(None); values.append(float(what)); kinds.append(2)\n"
     << "            else:\n"
     << "                tensors.append(None); values.append(1.0 if what else 0.0); kinds.append(3)\n"
     << "        out = _op.entry(tensors, values, kinds)\n"
     << "        return out[0] if len(out) == 1 else tuple(out)\n";
  return py.str();
}

ExportSummary export_kernelbench_solutions(const corpus::Corpus& corpus, const ExportOptions& options) {
  ExportSummary summary;
  // 1. The run's witnessed (or audited) mutants, per kernel (reports::RunDirError names a bad file).
  std::map<std::string, std::set<std::string>> ids_by_kernel;
  std::map<std::string, reports::KillRecord> record_of;
  for (auto& r : reports::read_kill_matrix(options.run_dir)) {
    if (!options.only.empty() && std::find(options.only.begin(), options.only.end(), r.kernel) == options.only.end())
      continue;
    ids_by_kernel[r.kernel];  // every audited kernel gets its original, witnessed mutants or not
    if (!r.ran || (!r.witnessed && !options.all_mutants)) continue;
    ids_by_kernel[r.kernel].insert(r.id);
    record_of.emplace(r.id, std::move(r));
  }
  for (const auto& id : options.only)
    if (!ids_by_kernel.count(id))
      throw std::runtime_error((options.run_dir / "kill-matrix.jsonl").string() + ": the run audited no kernel " + id +
                               " (--kernel)");
  for (const auto& [kid, ids] : ids_by_kernel)
    if (!corpus.find_kernel(kid))
      throw std::runtime_error(kid + ": a kernel of the run that the corpus lacks (give the run's --corpus)");

  // 2. The builds (schemata, standalone mutants, originals) and a solution file for each.
  const calibrate::MutantBuilds made = calibrate::mutant_builds(corpus, ids_by_kernel, options.cache_dir);
  summary.problems = made.problems;
  json solutions = json::array(), mutants = json::array(), kernels = json::object(), problems = json::object();
  std::map<std::string, std::string> problem_text;  // task -> problem.py, read once
  for (const auto& b : made.builds) {
    const corpus::Kernel& k = *b.kernel;
    const corpus::Task* task = corpus.find_task(k.task);
    const std::string problem = "problems/" + task->name + ".py";
    if (!problem_text.count(task->name)) {
      const auto text = read_file(task->problem_py);
      if (!text) throw std::runtime_error(task->problem_py.string() + ": cannot be read");
      fs::create_directories(options.out / "problems");
      write_file_atomically(options.out / problem, *text);
      problems[task->name] = problem;
      problem_text[task->name] = *text;
    }
    const std::string file = "solutions/" + b.lib + ".py";
    const std::string cuda = cuda::standalone_gpu_source(b.text, k.file, k.entry, b.lib, b.what);
    fs::create_directories(options.out / "solutions");
    write_file_atomically(options.out / file, solution_file(*task, k, problem_text.at(task->name), cuda, b.lib, b.what));
    solutions.push_back({{"file", file}, {"kernel", k.id()}, {"task", k.task}, {"what", b.what}, {"lib", b.lib}});
    ++summary.solutions;
    if (b.original) {
      kernels[k.id()] = {{"task", k.task}, {"original", file}, {"problem", problem}};
      ++summary.kernels;
      // The original also as a plain KernelBench solution (load_inline with functions=[entry], an
      // explicit call in forward): the form `kaudit import kernelbench` reads back unchanged.
      const std::string plain = "originals/" + k.task + "--" + k.name + ".py";
      fs::create_directories(options.out / "originals");
      const ProcessResult r = run_process({oracle::default_python(), KAUDIT_PLAIN_SOLUTION_SCRIPT, "--problem",
                                           task->problem_py.string(), "--kernel-source", k.cu_path.string(),
                                           "--kernel-json", k.json_path.string(), "--task-json", task->task_json.string(),
                                           "--name", b.lib + "_plain", "--out", (options.out / plain).string()},
                                          120);
      if (r.ok()) kernels[k.id()]["plain"] = plain;
      else summary.problems.push_back(k.id() + ": no plain solution file: " + (r.err.empty() ? r.spawn_error : r.err));
    }
    for (const auto& [id, value] : b.mutants) {
      const reports::KillRecord& r = record_of.at(id);
      mutants.push_back({{"id", id}, {"kernel", k.id()}, {"task", k.task}, {"family", r.family}, {"rule", r.rule},
                         {"solution", file}, {"switch", value}, {"problem", problem}, {"witnessed", r.witnessed}});
      ++summary.mutants;
    }
  }
  const json manifest = {{"format", kManifestFormat},
                         {"run", fs::absolute(options.run_dir).lexically_normal().string()},
                         {"switch_variable", kSwitchVariable},
                         {"problems", problems},
                         {"kernels", kernels},
                         {"solutions", solutions},
                         {"mutants", mutants},
                         {"left_out", summary.problems}};
  write_file_atomically(options.out / "solutions.json", manifest.dump(1) + "\n");
  return summary;
}

}  // namespace kaudit::solutions
