// Counts the kernels a GPU build's own code launches, for the gate "at least one custom kernel
// launched" and the contract check's "no-launch" (issue 24, item 3) on the CUDA backend.
//
// How: the library is linked by nvcc with its CUDA runtime static (nvcc's default), and with
// `-Xlinker --wrap=SYMBOL` for each launch entry point below (runtime/cuda/build.cpp,
// launch_count_flags), so every call the candidate's code makes to one of them, through `<<<>>>`
// (CUDA 13's generated stub calls __cudaLaunchKernel; crt/host_runtime.h) or by name
// (cudaLaunchKernel, cudaLaunchKernelEx, cudaLaunchCooperativeKernel), lands in __wrap_SYMBOL,
// which counts it and calls the real one. Launches made by libtorch (torch::matmul, zeros, a
// copy) go through libtorch's own CUDA runtime and are not counted, as the CPU backend counts only
// the candidate's launches. A launch the runtime refuses for its configuration (too many threads,
// too much shared memory, no image for this GPU) is none, as on the CPU backend; any other launch
// is counted, even one that fails for another reason (no device: how the count is tested without
// a GPU, tests/runtime/launch_count_test.cpp).
// A CUDA graph's replay (cudaGraphLaunch) counts as one launch. The driver API (cuLaunchKernel,
// also reached through cudaGetDriverEntryPoint, as CUTLASS's cluster launcher does) is not
// wrapped: a candidate that launches only through it reads as launching nothing (docs/ORACLES.md,
// "Gates").
//
// Without KAUDIT_COUNT_LAUNCHES (a build that is not linked with the wraps, such as a solution
// file PyTorch's extension builder compiles), nothing is wrapped and the count is -1: not known.
#pragma once
#include <cuda_runtime.h>

#include <atomic>
#include <cstdint>

namespace kaudit_gpu {
// Launches since the library was loaded: one counter per library (static, not inline: an inline
// variable is a GNU unique symbol, which every library loaded into the worker would share).
static std::atomic<int> launch_count{0};  // a wrapper's own threads may launch too
// A wrapped entry point that calls another (inside the runtime) counts once.
static thread_local int launch_depth = 0;
// The last kLaunchRing launches' configurations, launch n in slot n % kLaunchRing: the worker reads
// those of each call (kaudit_gpu_launch_record) for the run's launch log, as the CPU backend's
// emulator records them (rt::LaunchRecord).
struct LaunchRecord {
  unsigned grid[3], block[3];
  unsigned long long shared_bytes, stream;
};
constexpr int kLaunchRing = 256;
static LaunchRecord launch_ring[kLaunchRing];

// The errors by which the runtime refuses a launch's configuration (as runtime/cuda/gpu_run.cpp,
// is_launch_refusal, reads them: CUDA 13 refuses a block of more than 1024 threads with
// cudaErrorInvalidValue).
static bool refused_configuration(cudaError_t e) {
  return e == cudaErrorInvalidValue || e == cudaErrorInvalidConfiguration || e == cudaErrorInvalidDeviceFunction ||
         e == cudaErrorNoKernelImageForDevice || e == cudaErrorLaunchOutOfResources;
}

template <class F>
static cudaError_t counted_launch(dim3 grid, dim3 block, size_t shared, cudaStream_t stream, F&& real) {
  const bool outermost = launch_depth++ == 0;
  const cudaError_t e = real();
  --launch_depth;
  if (outermost && !refused_configuration(e)) {
    // Each launch takes its own number, then writes its slot; the worker reads the slots after the
    // wrapper's call has returned, when every launch of the call has written its own.
    const int n = launch_count.fetch_add(1, std::memory_order_acq_rel);
    launch_ring[n % kLaunchRing] = {{grid.x, grid.y, grid.z}, {block.x, block.y, block.z},
                                    static_cast<unsigned long long>(shared),
                                    static_cast<unsigned long long>(reinterpret_cast<uintptr_t>(stream))};
  }
  return e;
}
}  // namespace kaudit_gpu

#if defined(KAUDIT_COUNT_LAUNCHES)
// One wrapper per entry point: its real declaration, then the counting definition.
#define KAUDIT_WRAP_LAUNCH(NAME, FN_T)                                                                   \
  extern "C" cudaError_t CUDARTAPI __real_##NAME(FN_T fn, dim3 grid, dim3 block, void** args, size_t shared, \
                                                 cudaStream_t stream);                                  \
  extern "C" __attribute__((visibility("hidden"))) cudaError_t CUDARTAPI __wrap_##NAME(FN_T fn, dim3 grid, dim3 block, void** args, size_t shared, \
                                                 cudaStream_t stream) {                                 \
    return kaudit_gpu::counted_launch(grid, block, shared, stream,                                       \
                                      [&] { return __real_##NAME(fn, grid, block, args, shared, stream); }); \
  }
KAUDIT_WRAP_LAUNCH(__cudaLaunchKernel, cudaKernel_t)
KAUDIT_WRAP_LAUNCH(__cudaLaunchKernel_ptsz, cudaKernel_t)
KAUDIT_WRAP_LAUNCH(cudaLaunchKernel, const void*)
KAUDIT_WRAP_LAUNCH(cudaLaunchKernel_ptsz, const void*)
KAUDIT_WRAP_LAUNCH(cudaLaunchCooperativeKernel, const void*)
KAUDIT_WRAP_LAUNCH(cudaLaunchCooperativeKernel_ptsz, const void*)
#undef KAUDIT_WRAP_LAUNCH
extern "C" cudaError_t CUDARTAPI __real_cudaLaunchKernelExC(const cudaLaunchConfig_t* config, const void* fn, void** args);
extern "C" __attribute__((visibility("hidden"))) cudaError_t CUDARTAPI __wrap_cudaLaunchKernelExC(const cudaLaunchConfig_t* config, const void* fn, void** args) {
  const cudaLaunchConfig_t none{};  // a null config is the runtime's to refuse
  const cudaLaunchConfig_t& c = config ? *config : none;
  return kaudit_gpu::counted_launch(c.gridDim, c.blockDim, c.dynamicSmemBytes, c.stream,
                                    [&] { return __real_cudaLaunchKernelExC(config, fn, args); });
}
extern "C" cudaError_t CUDARTAPI __real_cudaLaunchKernelExC_ptsz(const cudaLaunchConfig_t* config, const void* fn, void** args);
extern "C" __attribute__((visibility("hidden"))) cudaError_t CUDARTAPI __wrap_cudaLaunchKernelExC_ptsz(const cudaLaunchConfig_t* config, const void* fn, void** args) {
  const cudaLaunchConfig_t none{};
  const cudaLaunchConfig_t& c = config ? *config : none;
  return kaudit_gpu::counted_launch(c.gridDim, c.blockDim, c.dynamicSmemBytes, c.stream,
                                    [&] { return __real_cudaLaunchKernelExC_ptsz(config, fn, args); });
}
// A CUDA graph's replay: one launch (at least one kernel), however many nodes the graph has; its
// record has a grid and a block of zeros (the nodes' own are not read).
extern "C" cudaError_t CUDARTAPI __real_cudaGraphLaunch(cudaGraphExec_t graph, cudaStream_t stream);
extern "C" __attribute__((visibility("hidden"))) cudaError_t CUDARTAPI __wrap_cudaGraphLaunch(cudaGraphExec_t graph, cudaStream_t stream) {
  return kaudit_gpu::counted_launch(dim3(0, 0, 0), dim3(0, 0, 0), 0, stream, [&] { return __real_cudaGraphLaunch(graph, stream); });
}
extern "C" cudaError_t CUDARTAPI __real_cudaGraphLaunch_ptsz(cudaGraphExec_t graph, cudaStream_t stream);
extern "C" __attribute__((visibility("hidden"))) cudaError_t CUDARTAPI __wrap_cudaGraphLaunch_ptsz(cudaGraphExec_t graph, cudaStream_t stream) {
  return kaudit_gpu::counted_launch(dim3(0, 0, 0), dim3(0, 0, 0), 0, stream,
                                    [&] { return __real_cudaGraphLaunch_ptsz(graph, stream); });
}
// Launches since the library was loaded; the worker reads it before and after each call.
extern "C" __attribute__((visibility("default"))) int kaudit_gpu_launches() { return kaudit_gpu::launch_count.load(); }
// Launch n's configuration (n counted as kaudit_gpu_launches counts): grid x, y, z, block x, y, z,
// dynamic shared bytes, stream handle; 0 when it is not among the last kLaunchRing.
extern "C" __attribute__((visibility("default"))) int kaudit_gpu_launch_record(int n, unsigned long long* out) {
  const int count = kaudit_gpu::launch_count.load(std::memory_order_acquire);
  if (n < 0 || n >= count || count - n > kaudit_gpu::kLaunchRing) return 0;
  const kaudit_gpu::LaunchRecord& r = kaudit_gpu::launch_ring[n % kaudit_gpu::kLaunchRing];
  for (int i = 0; i < 3; ++i) out[i] = r.grid[i], out[3 + i] = r.block[i];
  out[6] = r.shared_bytes;
  out[7] = r.stream;
  return 1;
}
#else
extern "C" __attribute__((visibility("default"))) int kaudit_gpu_launches() { return -1; }
extern "C" __attribute__((visibility("default"))) int kaudit_gpu_launch_record(int, unsigned long long*) { return 0; }
#endif
