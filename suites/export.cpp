#include "suites/export.h"

#include <fstream>
#include <sstream>
#include <stdexcept>

namespace kaudit::cover {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// The generator of oracle/recipes.h in Python. Keep the two in step: the round-trip test runs
// this code and compares its tensors with make_inputs bit for bit.
const char* kPythonGenerator = R"py(
import math

import torch

_MASK = (1 << 64) - 1
_TWO_PI = 6.283185307179586476925286766559


def _splitmix64(x):
    z = (x + 0x9E3779B97F4A7C15) & _MASK
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
    return z ^ (z >> 31)


def _uniform01(seed, stream, counter):
    bits = _splitmix64(_splitmix64(_splitmix64(seed) ^ stream) ^ counter)
    return (bits >> 11) * 2.0 ** -53


def _normal(seed, stream, index):
    u1 = _uniform01(seed, stream, 2 * index)
    u2 = _uniform01(seed, stream, 2 * index + 1)
    return math.sqrt(-2.0 * math.log(1.0 - u1)) * math.cos(_TWO_PI * u2)


def _base(dist, seed, stream, k, row):
    if dist == "uniform01":
        return _uniform01(seed, stream, k)
    if dist == "uniform_sym":
        return 2.0 * _uniform01(seed, stream, k) - 1.0
    if dist == "normal":
        return _normal(seed, stream, k)
    if dist == "log_uniform":
        mag = math.pow(10.0, 6.0 * _uniform01(seed, stream, 2 * k) - 3.0)
        return -mag if _uniform01(seed, stream, 2 * k + 1) < 0.5 else mag
    if dist == "ones":
        return 1.0
    if dist == "arange":
        return float(k)
    if dist == "constant_rows":
        return _normal(seed, stream, k // row)
    if dist == "one_hot":
        hot = int(_uniform01(seed, stream, k // row) * float(row))
        return 1.0 if k % row == min(row - 1, hot) else 0.0
    if dist == "alternating":
        return (1.0 if k % 2 == 0 else -1.0) * (0.5 + _uniform01(seed, stream, k))
    if dist == "exp_overflow":
        return 89.0 + 10.0 * _uniform01(seed, stream, k)
    raise ValueError("unknown distribution " + dist)


_DTYPES = {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16, "int64": torch.int64,
           "bool": torch.bool}


def _values(recipe, stream, spec):
    shape = spec["shape"]
    n = 1
    for s in shape:
        n *= s
    seed = recipe["seed"]
    if spec["domain"] == "index":
        hi = float(spec["index_bound"])
        return [min(math.floor(_uniform01(seed, stream, k) * hi), hi - 1) for k in range(n)]
    if spec["domain"] == "mask":
        return [1.0 if _uniform01(seed, stream, k) < 0.5 else 0.0 for k in range(n)]
    row = shape[-1] if shape and shape[-1] >= 1 else 1
    out = []
    for k in range(n):
        x = _base(recipe["distribution"], seed, stream, k, row)
        if recipe["abs"]:
            x = math.fabs(x)
        x = x * recipe["scale"] + recipe["shift"]
        if recipe["negate"]:
            x = -x
        if spec["domain"] == "positive":
            x = math.fabs(x) + 1e-3
        out.append(x)
    if spec["domain"] in ("symmetric", "lower-triangular", "upper-triangular"):
        rows, cols = shape[-2], shape[-1]
        for r in range(n // cols if rows > 0 and cols > 0 else 0):
            i = r % rows
            first = (r - i) * cols
            for j in range(cols):
                if spec["domain"] == "symmetric" and j < i:
                    out[r * cols + j] = out[first + j * cols + i]
                elif spec["domain"] == "lower-triangular" and j > i:
                    out[r * cols + j] = 0.0
                elif spec["domain"] == "upper-triangular" and j < i:
                    out[r * cols + j] = 0.0
    if spec["domain"] == "probability" and shape and shape[-1] > 0:
        row = shape[-1]
        for i in range(n // row):
            p = out[i * row:(i + 1) * row]
            mx = max(p)
            total = 0.0
            for j in range(row):
                p[j] = math.exp(p[j] - mx)
                total += p[j]
            denom = 1.0 + float(row) * 1e-6
            out[i * row:(i + 1) * row] = [(v / total + 1e-6) / denom for v in p]
    return out


def make_inputs(case):
    tensors = []
    for stream, spec in enumerate(case["inputs"]):
        values = _values(case["recipe"], stream, spec)
        dtype = _DTYPES[spec["dtype"]]
        if dtype == torch.int64:
            tensors.append(torch.tensor([int(v) for v in values], dtype=torch.int64).reshape(spec["shape"]))
        else:
            tensors.append(torch.tensor(values, dtype=torch.float64).reshape(spec["shape"]).to(dtype))
    for c in case.get("constants", []):  # numbers get_inputs() passes on every call, by position
        tensors.insert(c["position"], c["value"])
    return tensors
)py";

std::string py_literal(const json& j) {
  // JSON and Python literals agree except for true/false/null.
  std::string s = j.dump();
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '"') {  // copy strings verbatim
      const std::size_t end = s.find('"', i + 1);
      std::size_t e = end;
      while (e != std::string::npos && s[e - 1] == '\\') e = s.find('"', e + 1);
      out += s.substr(i, e - i + 1);
      i = e;
    } else if (s.compare(i, 4, "true") == 0) {
      out += "True";
      i += 3;
    } else if (s.compare(i, 5, "false") == 0) {
      out += "False";
      i += 4;
    } else if (s.compare(i, 4, "null") == 0) {
      out += "None";
      i += 3;
    } else {
      out += s[i];
    }
  }
  return out;
}

}  // namespace

json export_cases(const corpus::Task& task, const std::vector<oracle::Recipe>& recipes) {
  json cases = json::array();
  for (const auto& r : recipes) {
    corpus::Assignment dims;
    try {
      dims = oracle::dims_for(task, r);
    } catch (const std::exception& e) {
      throw std::invalid_argument("task " + task.name + ", recipe " + r.name + ": " + e.what());
    }
    json inputs = json::array();
    for (const auto& in : task.inputs) {
      json spec = {{"name", in.name}, {"dtype", in.dtype}, {"shape", corpus::shape_of(in, dims)},
                   {"domain", corpus::domain_name(in.domain)}};
      if (in.domain == corpus::Domain::Index) spec["index_bound"] = dims.at(in.index_dim);
      inputs.push_back(spec);
    }
    json init = json::array();
    for (const auto& a : task.init_inputs) {
      if (const auto* dim = std::get_if<std::string>(&a)) init.push_back(dims.at(*dim));
      else if (const auto* i = std::get_if<int64_t>(&a)) init.push_back(*i);
      else init.push_back(std::get<double>(a));
    }
    json recipe = r;
    json c = {{"recipe", recipe}, {"dims", dims}, {"inputs", inputs}, {"init_inputs", init}};
    for (const auto& k : task.constants)
      c["constants"].push_back({{"name", k.name}, {"position", k.position},
                                {"value", k.integer ? json(static_cast<int64_t>(k.value)) : json(k.value)}});
    cases.push_back(std::move(c));
  }
  return cases;
}

std::string kernelbench_hidden_module(const corpus::Task& task, const std::vector<oracle::Recipe>& recipes,
                                      const std::string& suite_name) {
  const json cases = export_cases(task, recipes);
  std::ostringstream os;
  os << "# Hidden inputs of suite " << suite_name << " for task " << task.name << ", written by `kaudit export`.\n"
     << "# get_inputs_<i>() / get_init_inputs_<i>() follow KernelBench's get_inputs() / get_init_inputs();\n"
     << "# the tensors are regenerated from their recipes and equal kaudit's bit for bit.\n"
     << kPythonGenerator << "\n\nCASES = " << py_literal(cases) << "\n\n";
  for (std::size_t i = 0; i < cases.size(); ++i) {
    os << "\ndef get_inputs_" << i << "():\n    \"\"\"" << recipes[i].name << "\"\"\"\n    return make_inputs(CASES[" << i
       << "])\n\n\ndef get_init_inputs_" << i << "():\n    return list(CASES[" << i << "][\"init_inputs\"])\n\n";
  }
  os << "\nHIDDEN_INPUTS = [";
  for (std::size_t i = 0; i < cases.size(); ++i) os << (i ? ", " : "") << "get_inputs_" << i;
  os << "]\nHIDDEN_INIT_INPUTS = [";
  for (std::size_t i = 0; i < cases.size(); ++i) os << (i ? ", " : "") << "get_init_inputs_" << i;
  os << "]\n";
  return os.str();
}

std::vector<fs::path> export_suite(const oracle::OracleSpec& suite, const corpus::Corpus& corpus,
                                   const std::string& format, const fs::path& out) {
  if (format != "kernelbench-hidden" && format != "json")
    throw std::invalid_argument("unknown export format '" + format + "' (kernelbench-hidden or json)");
  std::vector<std::pair<const corpus::Task*, std::vector<oracle::Recipe>>> per_task;
  for (const auto& [task_name, recipes] : suite.task_trials) {
    const corpus::Task* task = corpus.find_task(task_name);
    if (!task)
      throw std::invalid_argument("suite " + suite.name + " has inputs for task '" + task_name +
                                  "', which the corpus does not have (a suite from another corpus?)");
    per_task.emplace_back(task, recipes);
  }
  if (suite.task_trials.empty() && !suite.trials.empty())
    for (const auto& task : corpus.tasks) per_task.emplace_back(&task, suite.trials);
  fs::create_directories(out);
  std::vector<fs::path> written;
  const auto write = [&](const fs::path& p, const std::string& text) {
    std::ofstream f(p, std::ios::binary);
    f << text;
    if (!f) throw std::runtime_error("cannot write " + p.string());
    written.push_back(p);
  };
  if (format == "json") {
    json tasks = json::object();
    for (const auto& [task, recipes] : per_task) tasks[task->name] = export_cases(*task, recipes);
    write(out / "suite-inputs.json",
          json{{"suite", suite.name},
               {"generator", "oracle/recipes.h of kaudit: SplitMix64 counters per (seed, input index, element)"},
               {"tasks", tasks}}.dump(2) + "\n");
  } else {
    for (const auto& [task, recipes] : per_task) write(out / (task->name + ".py"), kernelbench_hidden_module(*task, recipes, suite.name));
  }
  return written;
}

}  // namespace kaudit::cover
