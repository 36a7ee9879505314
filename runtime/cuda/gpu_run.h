// One kernel run on the GPU, inside a CUDA worker (runtime/worker.h, WorkerLimits::cuda): the
// library built by CudaCompiler is loaded once per worker, the run's tensor arguments are copied
// to device 0, the entry runs, the worker waits for the device, and the outputs come back to the
// host. The reply has the CPU backend's statuses, so verdicts are computed by the same code:
//   ok            outputs returned;
//   launch-error  the launch was refused (invalid configuration, too many resources, no image for
//                 this GPU): cudaErrorInvalidConfiguration, ...LaunchOutOfResources,
//                 ...InvalidDeviceFunction, ...NoKernelImageForDevice, whether the wrapper's
//                 launch check threw it or the wait found it;
//   crash         any other CUDA error (an illegal address, a trap, a misaligned access): the
//                 context is unusable, so the worker replies and exits, and the next run starts in
//                 a fresh worker;
//   exception     the host wrapper threw for another reason (a TORCH_CHECK).
// A hang is the runner's timeout: it kills the worker.
#pragma once
#include <ATen/core/Tensor.h>

#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "runtime/host_buffers.h"
#include "runtime/kernel_library.h"

namespace kaudit::cuda {

class GpuRunner {
 public:
  // memory_fraction: of device 0's memory, the most PyTorch's caching allocator may hold.
  explicit GpuRunner(double memory_fraction) : memory_fraction_(memory_fraction) {}
  // A plain run request: `load_path` is where the library can be opened (the worker's sealed
  // copy), `key` names it. Copies the tensor arguments to the device, calls the entry, and fills
  // `outputs` (host tensors) when the reply's status is "ok". Sets `context_lost` when the worker
  // must end after replying.
  nlohmann::json run(const std::string& load_path, const std::string& key, const nlohmann::json& request,
                     const std::vector<at::Tensor>& tensors, std::vector<at::Tensor>& outputs, bool& context_lost);
  // Loads libtorch's CUDA part without touching the device, so a process can fork after it: the
  // CUDA worker's zygote calls it once, and each context it forks starts with it loaded (seconds
  // saved on every restart after a crash). Returns what failed, or empty.
  static std::string load_cuda_runtime();
  // Before the worker says it is ready: loads libtorch's CUDA part (if not yet) and creates the
  // CUDA context, so that a run's time limit covers the run, not the second or so a fresh context
  // takes. Returns what failed, or empty; a failure is not fatal (the first run reports it).
  std::string warm_up();
  // Gives every block PyTorch's caching allocator holds back to the driver, as a new process
  // starts: a checker's harness runs in a process of its own, so the blocks the previous request
  // left must not be what its `torch.empty` returns. No-op before any library is loaded.
  void empty_cache();
  // Whether the context can still run work, checked after a request: a sticky error (an illegal
  // address, a trap) the request's own checks did not see leaves it unusable, and every later
  // request would then fail whatever its kernel. Empty when healthy (or nothing is loaded yet),
  // else the first CUDA error in words.
  std::string context_error();
  // Loads the library (once per worker) and readies the device: CUDA tensors can be made after it
  // (the library brings libtorch's CUDA part; kaudit itself needs none).
  void prepare(const std::string& load_path, const std::string& key);
  // One call of the entry with the schema switch at `mutant` on `args`, whose tensors are on the
  // device already (oracle mode's harness loop puts them there); waits for the device. The reply
  // has run()'s statuses; `outputs` are the entry's, on the device, when it is "ok".
  nlohmann::json call(const std::string& load_path, const std::string& key, int mutant,
                      const std::vector<runtime::EntryArg>& args, std::vector<at::Tensor>& outputs, bool& context_lost);
  // Where run() copies large outputs back to (kept buffers: runtime/host_buffers.h); without it,
  // fresh memory from ATen's allocator.
  void set_host_buffers(runtime::HostBuffers* buffers) { host_buffers_ = buffers; }

 private:
  struct Library {
    void* handle = nullptr;
    int (*invoke)(const void*, const void*, const void*, void*, char*, std::size_t) = nullptr;
    int (*select)(int, char*, std::size_t) = nullptr;
    int (*finish)(char*, std::size_t) = nullptr;
    void (*limit_memory)(double) = nullptr;
    void (*empty_cache)() = nullptr;
    int (*launches)() = nullptr;  // since the library was loaded; -1: not counted
    int (*launch_record)(int, unsigned long long*) = nullptr;  // launch n's configuration; absent in older builds
  };
  const Library& load(const std::string& load_path, const std::string& key);
  std::map<std::string, Library> libraries_;
  double memory_fraction_;
  bool memory_limited_ = false;
  runtime::HostBuffers* host_buffers_ = nullptr;
};

// Runs f and returns the library compute calls it made through ATen (matmul, mm, bmm, addmm,
// linear; a product a call makes inside another is not counted again), as the CPU backend's torch
// facade counts a wrapper's: what the gate no_library_compute and the contract check judge.
int library_calls_during(const std::function<void()>& f);

// Whether a cudaError_t leaves the context usable (a refused launch) or not.
bool is_launch_refusal(int cuda_error);
bool message_is_launch_refusal(const std::string& message);

}  // namespace kaudit::cuda
