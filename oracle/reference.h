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
// Device: on the CPU backend every forward runs on the host. On the CUDA backend the store's
// references run on device 0 (ReferenceStore::set_device), as the checkers kaudit models run
// their Model: the float32 reference is then PyTorch's CUDA one with PyTorch's defaults (for
// example cuDNN's TF32 convolutions, which no checker of ../shared/FACTS.md turns off), and the
// float64 one takes seconds where the host took minutes at KernelBench's shapes. Inputs and
// outputs stay host tensors: only the forward moves. A forward the device cannot run (an
// operator without a CUDA float64 kernel, too little memory) runs on the host instead, said once
// on stderr. The recorded forwards of oracle mode (oracle/harness.h) stay on the host: they
// record CPU allocations.
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
  // Runs on the device of the store that loaded it (the host unless set_device chose one).
  std::vector<at::Tensor> forward(const std::vector<at::Tensor>& inputs,
                                  at::ScalarType precision) const;
  // The same on `device` (at::kCPU: the host); the outputs come back to the host either way.
  std::vector<at::Tensor> forward(const std::vector<at::Tensor>& inputs, at::ScalarType precision,
                                  at::Device device) const;
  // Where forward() runs.
  at::Device device() const { return device_; }

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
  at::Device device_ = at::kCPU;
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
  void set_device(at::Device device) { device_ = device; }
  at::Device device() const { return device_; }

  // How many exports this store ran (tests use it to prove cache hits).
  int exports_run() const;

  // Wall-clock limit of one export (default 300 s); a problem.py that hangs is killed and
  // reported as a ReferenceError. 0 disables the limit.
  void set_export_timeout(double seconds) { export_timeout_s_ = seconds; }

  const std::filesystem::path& cache_dir() const { return cache_dir_; }
  const std::filesystem::path& export_script() const { return script_; }

 private:
  const std::string& torch_version_locked();
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
  at::Device device_ = at::kCPU;
};

// The device a store of a run on the given backend should use: device 0 on the CUDA backend,
// unless KAUDIT_DEVICE_REFERENCES=0 keeps them on the host (to compare the two); the host on the CPU.
at::Device reference_device(bool cuda_backend);

// Model.__init__'s arguments as Python gets them (integers for dims and integer literals, reals
// for real literals), as a JSON list. Throws std::invalid_argument for a wrong count or a
// non-integer where an integer is due.
nlohmann::json init_args_json(const corpus::Task& task, const std::vector<double>& values);

// Where the export script is in this source tree (set at build time); installations should pass
// their own path.
std::filesystem::path default_export_script();

}  // namespace kaudit::oracle
