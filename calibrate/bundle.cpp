#include "calibrate/bundle.h"

#include "calibrate/mutant_builds.h"

#include "reports/run_dir.h"

#include "runtime/cuda/build.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>

#include "common/files.h"
#include "suites/export.h"
#include "common/sha256.h"
#include "mutators/pipeline/pipeline.h"
#include "oracle/recipes.h"
#include "oracle/reference.h"
#include "runtime/cpu/compile.h"
#include "runtime/cpu/schema.h"

namespace kaudit::calibrate {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

struct Chosen {
  reports::KillRecord row;  // the kill-matrix line
  std::string id, kernel, family;
};

void write_text(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream out(path, std::ios::binary);
  out << text;
  if (!out) throw std::runtime_error(path.string() + ": cannot write");
}

// A tensor's bytes under tensors/, named by their hash; the manifest entry that finds them.
json put_tensor(const fs::path& out, const at::Tensor& t) {
  const at::Tensor c = t.contiguous();
  const std::string bytes(static_cast<const char*>(c.data_ptr()), c.nbytes());
  const std::string name = kaudit::sha256_hex(bytes).substr(0, 24) + ".bin";
  const fs::path file = out / "tensors" / name;
  if (!fs::exists(file)) write_text(file, bytes);
  return {{"file", "tensors/" + name}, {"dtype", std::string(c.dtype().name())}, {"shape", c.sizes().vec()}};
}

}  // namespace

BundleSummary write_gpu_bundle(const corpus::Corpus& corpus, const std::vector<oracle::OracleSpec>& checks,
                               const BundleOptions& options) {
  BundleSummary summary;
  // 1. The witnessed mutants of the audit, chosen.
  const fs::path matrix = options.audit_dir / "kill-matrix.jsonl";
  std::map<std::string, std::vector<Chosen>> by_family;
  for (auto& r : reports::read_kill_matrix(options.audit_dir)) {  // reports::RunDirError names the file and line
    if (!r.witnessed || !r.ran) continue;
    if (!options.only.empty() && !options.only.count(r.id)) continue;
    Chosen c{r, r.id, r.kernel, r.family};
    by_family[c.family].push_back(std::move(c));
  }
  std::vector<Chosen> chosen;
  for (auto& [family, list] : by_family) {
    std::sort(list.begin(), list.end(), [](const Chosen& a, const Chosen& b) {
      return kaudit::sha256_hex(a.id) < kaudit::sha256_hex(b.id);
    });
    const std::size_t take = family == "synchronization" || !options.only.empty()
                                 ? list.size()
                                 : std::min(list.size(), options.per_family);
    for (std::size_t i = 0; i < take; ++i) chosen.push_back(list[i]);
  }
  std::map<std::string, std::set<std::string>> ids_by_kernel;
  for (const auto& c : chosen) ids_by_kernel[c.kernel].insert(c.id);
  for (const auto& id : options.only)
    if (std::none_of(chosen.begin(), chosen.end(), [&](const Chosen& c) { return c.id == id; }))
      throw std::runtime_error(matrix.string() + ": no witnessed mutant " + id + " (--mutant)");

  // Before anything is built: calibrate.py's replica passes tensors only.
  for (const auto& [kid, ids] : ids_by_kernel) {
    const corpus::Kernel* k = corpus.find_kernel(kid);
    const corpus::Task* task = k ? corpus.find_task(k->task) : nullptr;
    if (task && !task->constants.empty())
      throw std::runtime_error("task " + task->name + " passes numbers among Model.forward's arguments (\"" +
                               task->constants.front().name +
                               "\"); calibrate.py's replica takes tensors only: name other tasks' mutants with --mutant");
  }

  // 2. The mutants' texts (the mutation pipeline, from the NVRTC cache) and their builds.
  std::map<std::string, const corpus::Kernel*> kernel_of;
  for (const auto& k : corpus.kernels)
    if (ids_by_kernel.count(k.id())) kernel_of[k.id()] = &k;
  const MutantBuilds made = mutant_builds(corpus, ids_by_kernel, options.cache_dir);
  json builds = json::array(), mutants = json::array();
  std::map<std::string, std::pair<std::string, int>> build_of;  // mutant id -> (lib, switch)
  std::map<std::string, std::string> original_lib;
  for (const auto& b : made.builds) {
    const corpus::Kernel& k = *b.kernel;
    write_text(options.out / "builds" / (b.lib + ".cu"),
               cuda::gpu_source(b.text, k.file, k.entry, b.lib, b.what + " (tools/gpu/calibrate.py builds it with nvcc)"));
    builds.push_back({{"lib", b.lib}, {"file", "builds/" + b.lib + ".cu"}, {"kernel", k.id()}, {"what", b.what}});
    ++summary.builds;
    summary.schemata += b.what.rfind("schema of ", 0) == 0;
    for (const auto& [id, value] : b.mutants) build_of[id] = {b.lib, value};
    if (b.original) original_lib[k.id()] = b.lib;
  }
  summary.problems = made.problems;

  // 3. Tasks: problem, Model parameters and init arguments, each check's trial inputs.
  oracle::ReferenceStore references(options.cache_dir, oracle::default_export_script());
  json tasks = json::object(), kernels = json::object();
  std::set<std::string> task_names;
  for (const auto& [kid, ids] : ids_by_kernel)
    if (kernel_of.count(kid)) task_names.insert(kernel_of.at(kid)->task);
  for (const auto& task : corpus.tasks) {
    if (!task_names.count(task.name)) continue;
    json t = {{"problem", "problems/" + task.name + ".py"}, {"inputs", json::array()}, {"checks", json::object()}};
    for (const auto& in : task.inputs) t["inputs"].push_back(in.name);
    write_text(options.out / "problems" / (task.name + ".py"), read_file(task.problem_py).value_or(""));
    corpus::Assignment dims;
    for (const auto& check : checks) {
      // The inputs as a Python module that regenerates them from their recipes, bit for bit
      // (suites/export.h; at small shapes the tensors themselves would make the bundle too large
      // to carry).
      const auto& recipes = oracle::trials_for(check, task.name);
      const std::string module = "inputs/" + task.name + "--" + check.name + ".py";
      write_text(options.out / module, cover::kernelbench_hidden_module(task, recipes, check.name));
      json trials = json::array();
      for (std::size_t i = 0; i < recipes.size(); ++i) {
        const corpus::Assignment d = oracle::dims_for(task, recipes[i]);
        if (!dims.empty() && d != dims)
          throw std::runtime_error(check.name + ": trials of " + task.name + " at different shapes are not supported here");
        dims = d;
        trials.push_back({{"name", recipes[i].name}, {"module", module}, {"case", i}});
      }
      t["checks"][check.name] = trials;
    }
    const std::vector<double> init = corpus::init_values(task, dims);
    const oracle::Reference ref = references.load(task, init);
    t["init_args"] = oracle::init_args_json(task, init);
    json params = json::array();
    for (const auto& name : ref.parameter_names())
      params.push_back({{"name", name}, {"tensor", put_tensor(options.out, ref.parameter(name))}});
    t["parameters"] = params;
    t["dims"] = dims;
    t["precision"] = oracle::evaluation_precision(task);
    tasks[task.name] = t;
    for (const auto& [kid, k] : kernel_of) {
      if (k->task != task.name) continue;
      json args = json::array();
      for (const auto& a : k->args) {
        if (auto* i = std::get_if<corpus::InputRef>(&a)) {
          const auto pos = std::find_if(task.inputs.begin(), task.inputs.end(), [&](const auto& x) { return x.name == i->name; });
          args.push_back({{"input", pos - task.inputs.begin()}});
        } else if (auto* p = std::get_if<corpus::ParamRef>(&a)) {
          args.push_back({{"param", p->name}});
        } else if (auto* d = std::get_if<corpus::DimRef>(&a)) {
          args.push_back({{"int", dims.at(d->name)}});
        } else if (auto* v = std::get_if<int64_t>(&a)) {
          args.push_back({{"int", *v}});
        } else if (auto* x = std::get_if<double>(&a)) {
          args.push_back({{"double", *x}});
        } else if (auto* b = std::get_if<bool>(&a)) {
          args.push_back({{"bool", *b}});
        }
      }
      kernels[kid] = {{"task", task.name}, {"args", args}, {"original", original_lib.at(kid)}};
    }
  }

  // 4. The mutants with their CPU verdicts.
  for (const auto& c : chosen) {
    const auto b = build_of.find(c.id);
    if (b == build_of.end()) continue;  // in made.problems
    json m = {{"id", c.id}, {"kernel", c.kernel}, {"task", c.row.task}, {"family", c.family},
              {"rule", c.row.rule}, {"lib", b->second.first}, {"switch", b->second.second},
              {"cpu", {{"oracle_mode", c.row.killed_by},
                       {"oracle_mode_cause", c.row.cause},
                       {"witness_mode", c.row.strict_killed_by},
                       {"witness_mode_cause", c.row.strict_cause},
                       {"oracle_witnessed", c.row.oracle_witnessed},
                       {"witness_outcome", c.row.witness_outcome}}}};
    mutants.push_back(m);
    ++summary.mutants;
    ++summary.per_family[c.family];
  }
  json check_list = json::array();
  for (const auto& check : checks) {
    if (check.gates.any())
      throw std::runtime_error(check.name + ": the GPU replica does not model the spec's gates (launches, library calls, unwritten outputs)");
    if (check.comparator.kind != oracle::ComparatorKind::Allclose || check.harness != oracle::HarnessSpec{})
      throw std::runtime_error(check.name + ": the GPU replica runs KernelBench's loop (allclose, reference first, "
                               "shared inputs) only");
    json entry = {{"name", check.name}, {"rtol", check.comparator.rtol}, {"atol", check.comparator.atol},
                  {"reference", oracle::precision_name(check.reference)}};
    // calibrate.py picks these by the task's precision, as Comparator::tolerance_for does.
    if (const json c = oracle::comparator_to_json(check.comparator); c.contains("dtype_tolerance"))
      entry["dtype_tolerance"] = c.at("dtype_tolerance");
    check_list.push_back(entry);
  }
  const json manifest = {{"format", "kaudit-gpu-bundle-1"}, {"audit", options.audit_dir.string()},
                         {"checks", check_list}, {"tasks", tasks}, {"kernels", kernels},
                         {"builds", builds}, {"mutants", mutants}};
  write_text(options.out / "manifest.json", manifest.dump(1) + "\n");
  return summary;
}

}  // namespace kaudit::calibrate
