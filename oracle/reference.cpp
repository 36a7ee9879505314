#include "reference.h"

#include <cstdlib>
#include <torch/csrc/jit/runtime/graph_executor.h>
#include <torch/script.h>
#include <torch/version.h>

#include <cctype>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <random>
#include <sstream>

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "common/cache.h"
#include "common/sha256.h"
#include "common/process.h"
#include "common/files.h"

#ifndef KAUDIT_DEFAULT_EXPORT_SCRIPT
#define KAUDIT_DEFAULT_EXPORT_SCRIPT "tools/export_reference.py"
#endif

namespace kaudit::oracle {

namespace fs = std::filesystem;
using nlohmann::json;

fs::path default_export_script() { return KAUDIT_DEFAULT_EXPORT_SCRIPT; }

std::string default_python() {
  if (const char* env = std::getenv("KAUDIT_PYTHON"); env && *env) return env;
  return KAUDIT_DEFAULT_PYTHON;
}

// ---------------------------------------------------------------------------------------------
// Reference

struct Reference::Impl {
  std::string key;
  fs::path pt;
  fs::path problem;
  std::vector<corpus::ForwardConstant> constants;  // inserted among the tensors at their positions
  torch::jit::Module m32;  // as exported (float32 parameters)
  std::vector<std::string> names;
  std::map<std::string, at::Tensor> params;  // float32, as exported

  // The float64 copy is made on first use: many callers only need float32.
  std::once_flag once64;
  torch::jit::Module m64;
  std::exception_ptr error64;

  const torch::jit::Module& module64() {
    std::call_once(once64, [&] {
      try {
        m64 = load_copy(at::kCPU, at::kDouble);
      } catch (...) {
        error64 = std::current_exception();
      }
    });
    if (error64) std::rethrow_exception(error64);
    return m64;
  }

  // A copy of the Model on `device` in `precision` (floating tensors only become double, like
  // Python's Module.double(); the C++ Module::to(dtype) would also convert integer buffers).
  // A second load rather than Module::clone(): it guarantees a deep copy of every tensor.
  torch::jit::Module load_copy(at::Device device, at::ScalarType precision) const {
    torch::jit::Module m = torch::jit::load(pt.string(), device);
    m.eval();
    if (precision == at::kDouble) {
      for (const auto& p : m.named_parameters(true))
        if (p.value.is_floating_point()) p.value.set_data(p.value.to(at::kDouble));
      for (const auto& b : m.named_buffers(true))
        if (b.value.is_floating_point()) b.value.set_data(b.value.to(at::kDouble));
    }
    return m;
  }

  // The device copies, made on first use (the parameters of a Model: MBs, kept for the run); the
  // devices and precisions whose first host fallback was said; those the device cannot run at
  // all (a failure other than memory: later calls go to the host at once).
  std::mutex device_mu;
  std::map<std::pair<std::string, int>, torch::jit::Module> on_device;
  std::set<std::pair<std::string, int>> fallback_said;
  std::set<std::pair<std::string, int>> device_unusable;
};

namespace {

void flatten(const c10::IValue& v, at::ScalarType precision, const fs::path& problem,
             std::vector<at::Tensor>& out) {
  if (v.isTensor()) {
    out.push_back(v.toTensor().detach());
  } else if (v.isTuple()) {
    for (const auto& e : v.toTupleRef().elements()) flatten(e, precision, problem, out);
  } else if (v.isList()) {
    for (const auto& e : v.toListRef()) flatten(e, precision, problem, out);
  } else if (v.isDouble()) {
    out.push_back(at::scalar_tensor(v.toDouble(), at::TensorOptions().dtype(precision)));
  } else if (v.isInt()) {
    out.push_back(at::scalar_tensor(v.toInt(), at::TensorOptions().dtype(at::kLong)));
  } else if (v.isBool()) {
    out.push_back(at::scalar_tensor(v.toBool(), at::TensorOptions().dtype(at::kBool)));
  } else {
    throw ReferenceError(problem, std::string("Model.forward returned an unsupported value of "
                                              "type ") +
                                      v.tagKind() + " (expected tensors, tuples or numbers)");
  }
}

// torch's messages run to dozens of lines (a dispatcher's whole table): a note needs their start.
std::string first_line(const std::string& message) {
  std::string line = message.substr(0, message.find('\n'));
  return line.size() > 200 ? line.substr(0, 200) + "..." : line;
}

}  // namespace

std::vector<at::Tensor> Reference::forward(const std::vector<at::Tensor>& inputs,
                                           at::ScalarType precision) const {
  return forward(inputs, precision, device(precision));
}

at::Device Reference::device(at::ScalarType precision) const { return precision == at::kDouble ? device64_ : device32_; }

void Reference::ready_on_host(at::ScalarType precision) const {
  if (impl_ && precision == at::kDouble) (void)impl_->module64();
}

std::vector<at::Tensor> Reference::forward(const std::vector<at::Tensor>& inputs, at::ScalarType precision,
                                           at::Device device) const {
  if (!impl_) throw std::logic_error("Reference::forward on an empty Reference");
  if (precision != at::kDouble && precision != at::kFloat)
    throw std::invalid_argument("Reference::forward: precision must be kDouble or kFloat");
  torch::NoGradGuard no_grad;
  // The plain interpreter, without the profiling executor's optimisation passes: the ground
  // truth must not depend on how many times a graph has run (the guard is thread-local).
  torch::jit::GraphOptimizerEnabledGuard no_opt(false);
  const char* precision_name = precision == at::kDouble ? "float64" : "float32";
  const auto run = [&](torch::jit::Module m, at::Device on) {
    std::vector<c10::IValue> args;
    args.reserve(inputs.size() + impl_->constants.size());
    // To the device first, then cast there: a host-side cast would make a float64 copy of a
    // 6 GB input in host memory on the way.
    for (const auto& t : inputs) {
      at::Tensor a = t.to(on);
      args.emplace_back(a.is_floating_point() ? a.to(precision) : a);
    }
    // The numbers get_inputs() passes on every call, as Python would pass them to the scripted
    // forward: by the type its argument has there (an int to a `float` parameter is a float; an
    // unannotated parameter is a Tensor to TorchScript, so a 0-dim one, which ATen promotes as it
    // does a Python number); a float stays a float in the float64 run too.
    if (!impl_->constants.empty()) {
      const auto& params = m.get_method("forward").function().getSchema().arguments();
      for (const auto& c : impl_->constants) {  // sorted by position
        const std::size_t slot = 1 + c.position;  // 0 is self
        const c10::TypeKind kind = slot < params.size() ? params[slot].type()->kind() : c10::TypeKind::NumberType;
        c10::IValue v = c.integer ? c10::IValue(static_cast<int64_t>(c.value)) : c10::IValue(c.value);
        if (kind == c10::TypeKind::FloatType) v = c10::IValue(c.value);
        else if (kind == c10::TypeKind::TensorType)
          v = c10::IValue(at::scalar_tensor(c.value, at::TensorOptions(c.integer ? at::kLong : at::kDouble).device(on)));
        const auto where = args.begin() + static_cast<std::ptrdiff_t>(std::min(c.position, args.size()));
        args.insert(where, std::move(v));
      }
    }
    c10::IValue result = m.forward(args);
    args.clear();
    std::vector<at::Tensor> out;
    flatten(result, precision, impl_->problem, out);
    if (!on.is_cpu())
      for (at::Tensor& o : out) o = o.to(at::kCPU);
    return out;
  };
  const auto on_host = [&] {
    try {
      // Module is a handle; copying it shares the underlying object. forward() is not const.
      return run(precision == at::kDouble ? impl_->module64() : impl_->m32, at::kCPU);
    } catch (const c10::Error& e) {
      throw ReferenceError(impl_->problem, "Model.forward failed: " + std::string(e.what_without_backtrace()));
    }
  };
  if (device.is_cpu()) return on_host();
  const std::pair<std::string, int> slot{device.str(), precision == at::kDouble ? 64 : 32};
  std::string why;
  bool out_of_memory = false;
  bool unusable = false;
  {
    std::lock_guard<std::mutex> lock(impl_->device_mu);
    unusable = impl_->device_unusable.count(slot) != 0;
  }
  if (!unusable) {
    try {
      torch::jit::Module m;
      {
        std::lock_guard<std::mutex> lock(impl_->device_mu);
        auto it = impl_->on_device.find(slot);
        if (it == impl_->on_device.end()) it = impl_->on_device.emplace(slot, impl_->load_copy(device, precision)).first;
        m = it->second;
      }
      return run(m, device);
    } catch (const c10::OutOfMemoryError& e) {
      why = first_line(e.what_without_backtrace());
      out_of_memory = true;
    } catch (const c10::Error& e) {
      why = first_line(e.what_without_backtrace());
    }
  }
  // The host decides whether the Model itself fails here (its error is the one reported). If it
  // works there, the device lacked something: the memory while the workers hold theirs (this call
  // only: the next one tries the device again), or anything else, an operator's CUDA kernel for
  // this dtype, a Model that does not load there (this precision stays on the host from now on).
  std::vector<at::Tensor> out = on_host();
  if (fallbacks_) ++*fallbacks_;
  std::lock_guard<std::mutex> lock(impl_->device_mu);
  if (!unusable && !out_of_memory) impl_->device_unusable.insert(slot);
  if (impl_->fallback_said.insert(slot).second)
    std::fprintf(stderr, "kaudit: %s: a %s reference forward failed on %s and ran on the host (%s)\n",
                 impl_->problem.c_str(), precision_name, device.str().c_str(), why.c_str());
  return out;
}

std::string ReferencePlacement::describe() const {
  if (on_host()) return "the host";
  const auto where = [](at::Device d) { return d.is_cpu() ? std::string("the host") : d.str(); };
  if (float32 == float64) return where(float32);
  return "float32 on " + where(float32) + ", float64 on " + where(float64);
}

ReferencePlacement reference_placement(bool cuda_backend) {
  ReferencePlacement p;
  if (!cuda_backend) return p;
  const char* v = std::getenv("KAUDIT_DEVICE_REFERENCES");
  const std::string value = v ? v : "";
  const at::Device gpu(at::kCUDA, 0);
  if (value.empty() || value == "float32") {
    p.float32 = gpu;
  } else if (value == "all") {
    p.float32 = p.float64 = gpu;
  } else if (value != "0") {
    throw std::invalid_argument("KAUDIT_DEVICE_REFERENCES is '" + value +
                                "': use float32 (the default: float32 references on the GPU), all, or 0 (all on the host)");
  }
  return p;
}

at::Tensor Reference::parameter(const std::string& name) const {
  if (!impl_) throw std::logic_error("Reference::parameter on an empty Reference");
  auto it = impl_->params.find(name);
  if (it == impl_->params.end()) {
    std::string known;
    for (const auto& n : impl_->names) known += (known.empty() ? "" : ", ") + n;
    throw ReferenceError(impl_->problem, "Model has no parameter or buffer '" + name +
                                             "' (it has: " + (known.empty() ? "none" : known) +
                                             ")");
  }
  // A copy: kernels (and mutants) receive it as an argument and may write to it; the
  // reference's own state must stay intact.
  return it->second.clone();
}

bool Reference::has_parameter(const std::string& name) const {
  return impl_ && impl_->params.count(name) != 0;
}

const std::vector<std::string>& Reference::parameter_names() const {
  static const std::vector<std::string> none;
  return impl_ ? impl_->names : none;
}

const std::string& Reference::key() const {
  static const std::string none;
  return impl_ ? impl_->key : none;
}
const fs::path& Reference::path() const {
  static const fs::path none;
  return impl_ ? impl_->pt : none;
}
const fs::path& Reference::problem_py() const {
  static const fs::path none;
  return impl_ ? impl_->problem : none;
}
bool Reference::was_cached() const { return cached_; }

// ---------------------------------------------------------------------------------------------
// ReferenceStore

namespace {

std::string read_bytes(const fs::path& p, const fs::path& blame, const char* what) {
  auto bytes = read_file(p);
  if (!bytes) throw ReferenceError(blame, std::string("cannot read ") + what);
  return std::move(*bytes);
}

// Writes `text` to `path`, all or nothing (common/files.h).
void write_atomically(const fs::path& path, const std::string& text) {
  try {
    write_file_atomically(path, text);
  } catch (const std::exception&) {
    throw ReferenceError(path, "cannot write");
  }
}

// Field-separated hashing: each field is length-prefixed so no two field lists collide.
void hash_field(Sha256& h, std::string_view s) {
  uint64_t n = s.size();
  uint8_t len[8];
  for (int i = 0; i < 8; ++i) len[i] = uint8_t(n >> (8 * i));
  h.update(len, 8);
  h.update(s);
}

// The init args as Python will receive them.

// Example inputs for the trace fallback: the small preset, with dims that are also init args set
// to their init values so that the traced shapes agree with the Model's construction.
json example_inputs_json(const corpus::Task& task, const std::vector<double>& values) {
  corpus::Assignment a;
  if (auto it = task.presets.find("small"); it != task.presets.end()) a = it->second;
  for (size_t i = 0; i < task.init_inputs.size() && i < values.size(); ++i)
    if (const auto* d = std::get_if<std::string>(&task.init_inputs[i]))
      a[*d] = static_cast<int64_t>(values[i]);
  json out = json::array();
  for (const auto& in : task.inputs) {
    std::vector<int64_t> shape;
    try {
      shape = corpus::shape_of(in, a);
    } catch (const std::invalid_argument&) {
      return json::array();  // no usable example shapes: the trace fallback is not offered
    }
    out.push_back({{"shape", shape}, {"dtype", in.dtype}});
  }
  for (const auto& c : task.constants) {  // by position, so each lands where Model.forward takes it
    const json v = c.integer ? json(static_cast<int64_t>(c.value)) : json(c.value);
    out.insert(out.begin() + static_cast<std::ptrdiff_t>(std::min<std::size_t>(c.position, out.size())),
               json{{"value", v}});
  }
  return out;
}

std::string first_error_line(const std::string& err) {
  std::istringstream is(err);
  std::string line, last;
  while (std::getline(is, line)) {
    if (line.rfind("export_reference: ", 0) == 0) return line;
    if (!line.empty()) last = line;
  }
  return last;
}

}  // namespace

json init_args_json(const corpus::Task& task, const std::vector<double>& values) {
  if (values.size() != task.init_inputs.size())
    throw std::invalid_argument("task '" + task.name + "' takes " +
                                std::to_string(task.init_inputs.size()) + " init args, got " +
                                std::to_string(values.size()));
  json out = json::array();
  for (size_t i = 0; i < values.size(); ++i) {
    if (std::holds_alternative<double>(task.init_inputs[i])) {
      out.push_back(values[i]);
    } else {
      double v = values[i];
      if (v != std::floor(v) || std::fabs(v) > 9.007199254740992e15)
        throw std::invalid_argument("task '" + task.name + "': init arg #" + std::to_string(i) +
                                    " must be an integer, got " + std::to_string(v));
      out.push_back(static_cast<int64_t>(v));
    }
  }
  return out;
}

ReferenceStore::ReferenceStore(fs::path cache_dir, fs::path export_script, std::string python)
    : cache_dir_(std::move(cache_dir)),
      script_(std::move(export_script)),
      python_(std::move(python)) {}

int ReferenceStore::exports_run() const { return exports_.load(); }

const std::string& ReferenceStore::torch_version() {
  std::lock_guard<std::mutex> lock(mu_);
  return torch_version_locked();
}

const std::string& ReferenceStore::torch_version_locked() {
  if (!torch_version_.empty()) return torch_version_;
  // Must not import torch (1-2 s); the installed distribution's metadata is enough.
  static const char* probe =
      "import importlib.util, sys\n"
      "if importlib.util.find_spec('torch') is None:\n"
      "    sys.exit('torch is not installed for ' + sys.executable)\n"
      "try:\n"
      "    import importlib.metadata as m\n"
      "    print(m.version('torch'))\n"
      "except Exception:\n"
      "    import torch\n"
      "    print(torch.__version__)\n";
  auto r = run_process({python_, "-c", probe}, 60);
  if (!r.started)
    throw ReferenceError(python_, "cannot run the Python interpreter (" + r.spawn_error +
                                      "); install python3-torch (Debian) or pass the path of a "
                                      "Python that has torch");
  if (!r.ok())
    throw ReferenceError(python_,
                         "torch is not usable from this Python (" + first_error_line(r.err) +
                             "); install python3-torch or pass another interpreter",
                         r.err);
  std::string v = r.out;
  while (!v.empty() && std::isspace(static_cast<unsigned char>(v.back()))) v.pop_back();
  torch_version_ = "py:" + v + ";lib:" + TORCH_VERSION;
  return torch_version_;
}

std::string ReferenceStore::cache_key(const corpus::Task& task,
                                      const std::vector<double>& init_values) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!fs::is_regular_file(script_))
    throw ReferenceError(script_,
                         "export script not found (pass the path of "
                         "tools/export_reference.py)");
  Sha256 h;
  hash_field(h, "kaudit-reference-v1");
  hash_field(h, read_bytes(task.problem_py, task.problem_py, "problem.py"));
  hash_field(h, read_bytes(script_, script_, "the export script"));
  hash_field(h, init_args_json(task, init_values).dump());
  hash_field(h, example_inputs_json(task, init_values).dump());
  if (!task.constants.empty()) {  // a field of their own (the example inputs may be left out)
    json constants = json::array();
    for (const auto& c : task.constants) constants.push_back({c.position, c.value, c.integer});
    hash_field(h, constants.dump());
  }
  hash_field(h, torch_version_locked());
  return h.hex_digest();
}

Reference ReferenceStore::load(const corpus::Task& task, const corpus::Assignment& assignment) {
  return load(task, corpus::init_values(task, assignment));
}

Reference ReferenceStore::load(const corpus::Task& task, const std::vector<double>& init_values) {
  const std::string key = cache_key(task, init_values);
  {
    // One export per key at a time in this process; different keys export in parallel.
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return !inflight_.count(key); });
    if (auto it = memo_.find(key); it != memo_.end()) {
      Reference r = it->second;
      r.cached_ = true;
      place(r);
      return r;
    }
    inflight_.insert(key);
  }
  try {
    Reference r = load_uncached(task, init_values, key);
    place(r);
    std::lock_guard<std::mutex> lock(mu_);
    memo_[key] = r;
    inflight_.erase(key);
    cv_.notify_all();
    return r;
  } catch (...) {
    std::lock_guard<std::mutex> lock(mu_);
    inflight_.erase(key);
    cv_.notify_all();
    throw;
  }
}

Reference ReferenceStore::load_uncached(const corpus::Task& task,
                                        const std::vector<double>& init_values,
                                        const std::string& key) {
  std::string version;
  {
    std::lock_guard<std::mutex> lock(mu_);
    version = torch_version_locked();
  }
  fs::path dir;
  try {
    dir = cache::prepare_dir(cache_dir_, "references");
  } catch (const cache::CacheDirError& e) {
    throw ReferenceError(cache_dir_ / "references", e.what());
  }
  const fs::path pt = dir / (key + ".pt");
  // The export writes a temporary file, sealed into place with its digest (common/cache.h).
  static std::atomic<unsigned long> exports_started{0};
  const fs::path tmp = dir / (key + ".tmp" + std::to_string(::getpid()) + "_" + std::to_string(exports_started++) + ".pt");

  auto run_export = [&] {
    const json init = init_args_json(task, init_values);
    const json examples = example_inputs_json(task, init_values);
    std::vector<std::string> argv = {python_, script_.string(), task.problem_py.string(),
                                     init.dump(), tmp.string()};
    if (!examples.empty()) {
      argv.push_back("--example-inputs");
      argv.push_back(examples.dump());
    }
    ++exports_;
    auto r = run_process(argv, export_timeout_s_);
    if (!r.started)
      throw ReferenceError(python_, "cannot run the Python interpreter (" + r.spawn_error +
                                        "); install python3-torch or pass another interpreter");
    if (r.timed_out)
      throw ReferenceError(task.problem_py,
                           "exporting the reference took longer than " +
                               std::to_string(static_cast<int>(export_timeout_s_)) +
                               " s and was stopped (does problem.py hang at import or in "
                               "Model.__init__?)",
                           r.err);
    if (!r.ok()) {
      std::string how = r.term_signal ? "killed by signal " + std::to_string(r.term_signal)
                                      : "exit code " + std::to_string(r.exit_code);
      throw ReferenceError(
          task.problem_py,
          "exporting the reference failed (" + how + "): " + first_error_line(r.err), r.err);
    }
    if (!fs::is_regular_file(tmp))
      throw ReferenceError(script_, "the export script succeeded but wrote no " + tmp.string(),
                           r.err);
    std::string error;
    if (!cache::seal(tmp, pt, &error)) throw ReferenceError(pt, error);
    // A human-readable record next to the .pt (what it is, from where, how it was exported).
    json meta = {{"key", key},
                 {"task", task.name},
                 {"problem", fs::absolute(task.problem_py).string()},
                 {"init_args", init},
                 {"torch_version", version}};
    std::string last_line;
    std::istringstream is(r.out);
    for (std::string line; std::getline(is, line);)
      if (!line.empty()) last_line = line;
    json report = json::parse(last_line, nullptr, false);
    meta["export"] = report.is_discarded() ? json() : report;
    write_atomically(dir / (key + ".json"), meta.dump(2) + "\n");
  };

  auto impl = std::make_shared<Reference::Impl>();
  impl->key = key;
  impl->pt = pt;
  impl->problem = task.problem_py;
  impl->constants = task.constants;
  // A hit is a file whose bytes match the digest recorded at export; a damaged one is reported
  // and exported again.
  bool cached = cache::verify(pt);
  if (!cached) run_export();
  auto load_pt = [&] { impl->m32 = torch::jit::load(pt.string()); };
  try {
    load_pt();
  } catch (const c10::Error& e) {
    if (!cached)
      throw ReferenceError(pt, "libtorch cannot load the exported reference: " +
                                   std::string(e.what_without_backtrace()));
    // A damaged cache entry (e.g. a disk filled up under an older kaudit): export afresh.
    cached = false;
    run_export();
    try {
      load_pt();
    } catch (const c10::Error& e2) {
      throw ReferenceError(pt, "libtorch cannot load the exported reference: " +
                                   std::string(e2.what_without_backtrace()));
    }
  }
  impl->m32.eval();
  for (const auto& p : impl->m32.named_parameters(true)) {
    impl->names.push_back(p.name);
    impl->params[p.name] = p.value.detach();
  }
  for (const auto& b : impl->m32.named_buffers(true)) {
    impl->names.push_back(b.name);
    impl->params[b.name] = b.value.detach();
  }

  Reference ref;
  ref.impl_ = std::move(impl);
  ref.cached_ = cached;
  return ref;
}

}  // namespace kaudit::oracle
