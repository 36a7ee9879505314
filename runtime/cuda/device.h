// Whether this machine can run the CUDA backend, asked of the NVIDIA driver directly (libcuda,
// loaded at run time, so kaudit builds and runs where there is none) and of the libtorch kaudit
// was built against (it must have its CUDA part). Commands given `--backend cuda` ask first and
// stop with one line when the answer is no.
#pragma once
#include <cstdint>
#include <string>

namespace kaudit::cuda {

struct GpuInfo {
  std::string problem;  // empty when device 0 can be used; else one line saying why not
  std::string name;     // "NVIDIA H200"
  int major = 0, minor = 0;
  std::uint64_t memory_bytes = 0;
  std::string arch() const { return "sm_" + std::to_string(major) + std::to_string(minor); }
  std::string describe() const;  // "NVIDIA H200 (sm_90, 140 GB)"
};

// Probed once per process.
const GpuInfo& probe_gpu();

// Readies kaudit's own process (not a worker) to run the task's reference Model on device 0
// (oracle/reference.h, ReferencePlacement): loads libtorch's CUDA part, creates the context, and
// turns PyTorch's caching allocator off in this process (PYTORCH_NO_CUDA_MEMORY_CACHING=1 for its
// first allocation, then unset), so a reference forward's device memory goes back to the driver
// when the forward ends rather than staying reserved beside the workers' own shares of the device
// (WorkerLimits::gpu_memory_fraction). No process started afterwards inherits the setting: the
// workers' harness models the caching allocator. Sets an environment variable for a moment, so
// call it before any thread starts (the commands do, once --backend cuda has found a GPU).
// Returns what failed, or empty.
std::string prepare_host_process();

// Device 0's free memory in bytes as the driver reports it (cuMemGetInfo, in a context of its
// own), or -1 where it cannot be asked. Tests use it to see what the host process keeps.
std::int64_t device_free_bytes();

}  // namespace kaudit::cuda
