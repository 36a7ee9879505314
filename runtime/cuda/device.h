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

}  // namespace kaudit::cuda
