// kaudit::oracle -- reference implementations: a task's PyTorch Model, exported to TorchScript
// once and run from C++ through libtorch.
//
// Why TorchScript: the reference must be *the* Model of problem.py (not a C++ re-implementation
// that could itself be wrong), yet the audit loop runs in C++ without a Python interpreter per
// call. tools/export_reference.py exports the Model (torch.manual_seed(0) before construction,
// so parameters are deterministic); the .pt is cached by content hash and loaded here.
//
// Precision: float64 is the ground truth (the Model converted to double, floating inputs cast
// to double); float32 is what benchmark oracles compare against.
//
// Device: on the CPU backend every forward runs on the host. On the CUDA backend the float32
// reference runs on device 0 (ReferencePlacement), as the checkers kaudit models run their Model:
// PyTorch's CUDA forward with PyTorch's defaults, cuDNN's TF32 convolutions included, which no
// checker of ../shared/FACTS.md turns off and which make some convolutions' float32 answers
// differ from an exact float32 result by more than KernelBench's 1e-4 (docs/RESULTS.md). The
// float64 ground truth stays on the host by default: measured on an H100 at KernelBench's shapes,
// copying a float64 output of 13 to 17 GB back to the host took longer than the host's forward
// (docs/RESULTS.md); it moves with KAUDIT_DEVICE_REFERENCES=all. Inputs and outputs stay host
// tensors: only the forward moves. A forward the device cannot run (an operator without a CUDA
// kernel for the dtype, too little memory while workers hold theirs) runs on the host instead:
// that call only when the device ran out of memory, every later call too otherwise; the store
// counts such calls (host_fallbacks) and says the first of each Model and precision on stderr. Oracle mode's recorded forwards (oracle/harness.h) stay on the host:
// they record CPU allocations.
#pragma once

#include <atomic>
#include <condition_variable>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include <ATen/core/Tensor.h>
#include <nlohmann/json.hpp>

#include "corpus/corpus.h"

namespace kaudit::oracle {

// Raised for every reference problem: Python or torch missing, export failure, a .pt that does
// not load, a forward that throws. `file` is the file at fault (problem.py, the export script, the
// interpreter or the .pt); `stderr_text` is the export script's stderr when there is one.
class ReferenceError : public std::runtime_error {
 public:
  ReferenceError(std::filesystem::path file, const std::string& message,
                 std::string stderr_text = {})
      : std::runtime_error(file.string() + ": " + message +
                           (stderr_text.empty() ? "" : "\n" + stderr_text)),
        file_(std::move(file)),
        stderr_(std::move(stderr_text)) {}
  const std::filesystem::path& file() const { return file_; }
  const std::string& stderr_text() const { return stderr_; }

 private:
  std::filesystem::path file_;
  std::string stderr_;
};

// A loaded reference Model. Cheap to copy (shared state); forward() may be called from several
// threads at once.
class Reference {
 public:
  Reference() = default;

  // Runs Model.forward. `precision` is at::kDouble (ground truth: a float64 copy of the Model,
  // floating inputs cast to double) or at::kFloat (the Model as exported, floating inputs cast to
  // float32). Integer inputs are passed unchanged. The outputs are normalised to a flat vector:
  // a tuple or list gives one tensor per element, a Python number a 0-dim tensor.
  // Runs where the store that loaded it places `precision` (the host unless set_placement chose
  // a device).
  std::vector<at::Tensor> forward(const std::vector<at::Tensor>& inputs,
                                  at::ScalarType precision) const;
  // The same on `device` (at::kCPU: the host); the outputs come back to the host either way.
  std::vector<at::Tensor> forward(const std::vector<at::Tensor>& inputs, at::ScalarType precision,
                                  at::Device device) const;
  // Where forward() runs `precision`.
  at::Device device(at::ScalarType precision) const;
  // Loads the host copy of the Model in `precision` now (the float64 copy is made on first use):
  // a recorded forward must not record the load.
  void ready_on_host(at::ScalarType precision) const;

  // A parameter or buffer of the Model as exported (float32 for floating tensors), by its
  // named_parameters()/named_buffers() name, e.g. "linear.weight". Throws ReferenceError if absent.
  at::Tensor parameter(const std::string& name) const;
  bool has_parameter(const std::string& name) const;
  // Parameter names then buffer names, in module order.
  const std::vector<std::string>& parameter_names() const;

  const std::string& key() const;                   // the cache key (hex SHA-256)
  const std::filesystem::path& path() const;        // the .pt file
  const std::filesystem::path& problem_py() const;  // where it came from
  // True when load() found the .pt already exported (on disk or in memory).
  bool was_cached() const;

  explicit operator bool() const { return impl_ != nullptr; }

  struct Impl;

 private:
  friend class ReferenceStore;
  std::shared_ptr<Impl> impl_;
  bool cached_ = false;
  at::Device device32_ = at::kCPU, device64_ = at::kCPU;
  std::shared_ptr<std::atomic<int>> fallbacks_;  // the store's count
};

// Where a store's references run: the float32 ones on `float32`, the float64 ones on `float64`.
struct ReferencePlacement {
  at::Device float32 = at::kCPU;
  at::Device float64 = at::kCPU;
  bool on_host() const { return float32.is_cpu() && float64.is_cpu(); }
  // "the host", "float32 on cuda:0, float64 on the host", ...: for reports and cache keys.
  std::string describe() const;
};

// The Python that exports references (it must import torch): $KAUDIT_PYTHON, else the one the
// build was configured with (KAUDIT_PYTHON in CMake: /usr/bin/python3, Debian's python3-torch, by
// default; tools/gpu/setup.sh passes the `python3` that holds the GPU machine's PyTorch).
std::string default_python();

// Exports and caches references under <cache_dir>/references/<key>.pt (plus <key>.json with the
// export script's report, for people). The key is the SHA-256 of the problem.py bytes, the export
// script bytes, the init values (typed as Python sees them), the example-input shapes used by the
// trace fallback, and the torch versions (the exporter's Python torch and the linked libtorch).
// Exports land under a temporary name and are renamed into place, so concurrent threads or
// processes sharing a cache never see a partial file.
class ReferenceStore {
 public:
  ReferenceStore(std::filesystem::path cache_dir, std::filesystem::path export_script,
                 std::string python = default_python());

  // Loads (exporting first if needed) the reference of `task` for Model(*init_values), with
  // init_values as from corpus::init_values(). Integer-typed init args (dims and integer literals)
  // are passed to Python as ints, real literals as floats.
  Reference load(const corpus::Task& task, const std::vector<double>& init_values);
  // Convenience: load(task, corpus::init_values(task, assignment)).
  Reference load(const corpus::Task& task, const corpus::Assignment& assignment);

  // The cache key load() would use (runs the torch version probe on first use).
  std::string cache_key(const corpus::Task& task, const std::vector<double>& init_values);

  // "py:<python torch version>;lib:<libtorch version>". Probed once per store with a cheap
  // Python call that does not import torch; throws ReferenceError if Python or torch is missing.
  const std::string& torch_version();

  // Where the references it loads from now on run their forward (Reference::forward). A CUDA
  // device needs libtorch's CUDA part loaded in this process (runtime/cuda/device.h,
  // prepare_host_process).
  void set_placement(ReferencePlacement placement) { placement_ = placement; }
  const ReferencePlacement& placement() const { return placement_; }
  // Forwards its references were placed on a device for and ran on the host instead.
  int host_fallbacks() const { return *fallbacks_; }

  // How many exports this store ran (tests use it to prove cache hits).
  int exports_run() const;

  // Wall-clock limit of one export (default 300 s); a problem.py that hangs is killed and
  // reported as a ReferenceError. 0 disables the limit.
  void set_export_timeout(double seconds) { export_timeout_s_ = seconds; }

  const std::filesystem::path& cache_dir() const { return cache_dir_; }
  const std::filesystem::path& export_script() const { return script_; }

 private:
  const std::string& torch_version_locked();
  void place(Reference& r) const {
    r.device32_ = placement_.float32;
    r.device64_ = placement_.float64;
    r.fallbacks_ = fallbacks_;
  }
  Reference load_uncached(const corpus::Task& task, const std::vector<double>& init_values,
                          const std::string& key);

  std::filesystem::path cache_dir_;
  std::filesystem::path script_;
  std::string python_;
  std::string torch_version_;
  std::mutex mu_;  // guards the memo, the in-flight set and the version probe
  std::condition_variable cv_;
  std::map<std::string, Reference> memo_;
  std::set<std::string> inflight_;  // keys being exported/loaded right now
  std::atomic<int> exports_{0};
  double export_timeout_s_ = 300;
  ReferencePlacement placement_;
  std::shared_ptr<std::atomic<int>> fallbacks_ = std::make_shared<std::atomic<int>>(0);
};

// Where a run on the given backend places its references: everything on the host for the CPU
// backend; for the CUDA backend by KAUDIT_DEVICE_REFERENCES: unset or "float32", the float32
// references on device 0 and the float64 ones on the host; "all", both on device 0; "0", both
// on the host (to compare). Throws std::invalid_argument for another value.
ReferencePlacement reference_placement(bool cuda_backend);

// Model.__init__'s arguments as Python gets them (integers for dims and integer literals, reals
// for real literals), as a JSON list. Throws std::invalid_argument for a wrong count or a
// non-integer where an integer is due.
nlohmann::json init_args_json(const corpus::Task& task, const std::vector<double>& values);

// Where the export script is in this source tree (set at build time); installations should pass
// their own path.
std::filesystem::path default_export_script();

}  // namespace kaudit::oracle
