// The CUDA backend's builds (issue 20): a kernel's `cuda_sources` compiled by nvcc for the GPU
// of this machine, host wrapper included, against the libtorch kaudit itself links, into a shared
// library the CUDA worker loads (runtime/worker.h, WorkerLimits::cuda). The entry is exported by
// include/kaudit_gpu_entry.h. Kernel sources include <torch/extension.h> as KernelBench solutions
// do; include/torch/extension.h stands in for it (the part of libtorch host wrappers use, without
// pybind11 and Python.h), which halves a build. The flags are the ones torch.utils.cpp_extension
// gives every CUDA extension (KernelBench builds its solutions that way), for the GPU's
// architecture; host code at -O0 (only the wrapper runs there), device code at ptxas's -O3.
// Libraries are cached like the CPU backend's (common/cache.h), by the SHA-256 of (source, nvcc
// version, flags, the entry header).
#pragma once
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/kernel_build.h"

namespace kaudit::cuda {

using CudaBuild = runtime::KernelBuild;

class CudaCompiler {
 public:
  // arch: "sm_90" (the GPU's compute capability: runtime/cuda/device.h).
  CudaCompiler(std::filesystem::path cache_dir, std::string arch);
  // `source`: a kernel text, or a schema's (its switch `kaudit_active_mutant`, set per run).
  CudaBuild build(std::string_view source, std::string_view file_name, std::string_view entry) const;
  const std::string& identity() const { return identity_; }
  const std::string& nvcc() const { return nvcc_; }

 private:
  std::filesystem::path cache_dir_;
  std::string arch_, nvcc_, identity_;
};

// The nvcc source of one build: the kernel text (a kernel, a schema or a mutant), its schema
// switch as a __device__ variable in device code and a host variable in host code, and the entry
// exported by kaudit_gpu_entry.h as <lib>. `what` goes into a first-line comment.
std::string gpu_source(std::string_view kernel_text, std::string_view file, std::string_view entry,
                       std::string_view lib, std::string_view what);

// gpu_source with kaudit_gpu_entry.h (and the kaudit_launch_count.h it includes) written out in
// place of its #include and its #line
// directives made comments: a text that builds
// wherever PyTorch's extension builder runs (torch.utils.cpp_extension.load_inline in a KernelBench
// solution file), without kaudit's folders. Throws std::runtime_error when the header is unreadable.
std::string standalone_gpu_source(std::string_view kernel_text, std::string_view file, std::string_view entry,
                                  std::string_view lib, std::string_view what);

// The nvcc flags that make a build count its own launches (include/kaudit_launch_count.h: a
// define, and the linker's --wrap of each CUDA runtime launch entry point). Builds made with them
// export kaudit_gpu_launches(), the launches since the library was loaded; builds made without
// them (PyTorch's extension builder) export it too, answering -1.
std::vector<std::string> launch_count_flags();

// The folder of kaudit_gpu_entry.h and kaudit_launch_count.h.
std::string gpu_include_dir();

// nvcc: $KAUDIT_NVCC, else $CUDA_HOME/bin/nvcc, else /usr/local/cuda/bin/nvcc, else `nvcc`.
std::string find_nvcc();

}  // namespace kaudit::cuda
