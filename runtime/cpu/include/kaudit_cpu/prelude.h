// The CPU backend's prelude: everything a KernelBench `cuda_sources` text expects from nvcc,
// <torch/extension.h> and the CUDA runtime, mapped onto the emulator runtime. The lowering pass
// (runtime/cpu/lower.cpp) puts `#include <kaudit_cpu/prelude.h>` at the top of each kernel TU and
// turns `k<<<g, b, smem, stream>>>(args)` into a call of kaudit::launch_kernel below.
#pragma once
// An include guard as well as `#pragma once`: when the prelude comes from the precompiled header
// (runtime/cpu/compile.h), the stand-in headers test this macro instead of searching for the file.
#ifndef KAUDIT_CPU_PRELUDE_H
#define KAUDIT_CPU_PRELUDE_H
// Standard headers first: the CUDA keyword macros defined below must not reach them.
#include <algorithm>
#include <atomic>
#include <cfloat>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <memory>  // before cuda_builtins.h's __noinline__: libstdc++'s shared_ptr_base.h spells that attribute
#include <optional>
#include <ostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "kaudit_cpu/cuda_builtins.h"
#include "kaudit_cpu/torch_facade.h"

#ifndef KAUDIT_NEEDS_FIBERS
#define KAUDIT_NEEDS_FIBERS 1
#endif

// ---- CUDA runtime API (host side) ---------------------------------------------------------------
enum cudaError_t : int {
  cudaSuccess = 0, cudaErrorInvalidValue = 1, cudaErrorMemoryAllocation = 2,
  cudaErrorInvalidConfiguration = 9, cudaErrorInvalidDeviceFunction = 98, cudaErrorNoDevice = 100,
  cudaErrorIllegalAddress = 700, cudaErrorLaunchOutOfResources = 701, cudaErrorLaunchTimeout = 702,
  cudaErrorLaunchFailure = 719, cudaErrorUnknown = 999
};
typedef cudaError_t cudaError;
struct CUstream_st;
typedef CUstream_st* cudaStream_t;
struct CUevent_st;
typedef CUevent_st* cudaEvent_t;
enum cudaMemcpyKind { cudaMemcpyHostToHost = 0, cudaMemcpyHostToDevice = 1, cudaMemcpyDeviceToHost = 2,
                      cudaMemcpyDeviceToDevice = 3, cudaMemcpyDefault = 4 };
enum cudaFuncAttribute { cudaFuncAttributeMaxDynamicSharedMemorySize = 8,
                         cudaFuncAttributePreferredSharedMemoryCarveout = 9 };
enum cudaDeviceAttr { cudaDevAttrMaxThreadsPerBlock = 1, cudaDevAttrMaxSharedMemoryPerBlock = 8,
                      cudaDevAttrWarpSize = 10, cudaDevAttrMultiProcessorCount = 16,
                      cudaDevAttrMaxSharedMemoryPerBlockOptin = 97 };
struct cudaDeviceProp {
  char name[256] = "kaudit CPU emulator (sm_90 limits)";
  std::size_t totalGlobalMem = std::size_t(80) << 30;
  std::size_t sharedMemPerBlock = 49152;
  std::size_t sharedMemPerBlockOptin = 232448;
  std::size_t sharedMemPerMultiprocessor = 233472;
  int regsPerBlock = 65536, warpSize = 32, maxThreadsPerBlock = 1024;
  int maxThreadsDim[3] = {1024, 1024, 64};
  int maxGridSize[3] = {2147483647, 65535, 65535};
  int multiProcessorCount = 132, maxThreadsPerMultiProcessor = 2048, major = 9, minor = 0;
  int l2CacheSize = 52428800, clockRate = 1980000;
};
inline cudaError_t cudaGetLastError() { return (cudaError_t)::kaudit::rt::last_error(true); }
inline cudaError_t cudaPeekAtLastError() { return (cudaError_t)::kaudit::rt::last_error(false); }
inline const char* cudaGetErrorString(cudaError_t e) { return ::kaudit::rt::error_string(e); }
inline const char* cudaGetErrorName(cudaError_t e) { return ::kaudit::rt::error_string(e); }
inline cudaError_t cudaDeviceSynchronize() { return (cudaError_t)::kaudit::rt::device_synchronize(); }
inline cudaError_t cudaStreamSynchronize(cudaStream_t) { return cudaDeviceSynchronize(); }
inline cudaError_t cudaGetDevice(int* d) { *d = 0; return cudaSuccess; }
inline cudaError_t cudaSetDevice(int) { return cudaSuccess; }
inline cudaError_t cudaGetDeviceCount(int* n) { *n = 1; return cudaSuccess; }
inline cudaError_t cudaGetDeviceProperties(cudaDeviceProp* p, int) { *p = cudaDeviceProp{}; return cudaSuccess; }
inline cudaError_t cudaDeviceGetAttribute(int* v, cudaDeviceAttr a, int) {
  switch (a) {
    case cudaDevAttrMaxThreadsPerBlock: *v = 1024; break;
    case cudaDevAttrMaxSharedMemoryPerBlock: *v = 49152; break;
    case cudaDevAttrWarpSize: *v = 32; break;
    case cudaDevAttrMultiProcessorCount: *v = 132; break;
    case cudaDevAttrMaxSharedMemoryPerBlockOptin: *v = 232448; break;
    default: return cudaErrorInvalidValue;
  }
  return cudaSuccess;
}
template <class F> inline cudaError_t cudaFuncSetAttribute(F*, cudaFuncAttribute a, int v) {
  if (a == cudaFuncAttributeMaxDynamicSharedMemorySize) ::kaudit::rt::set_max_dynamic_smem(v);
  return cudaSuccess;
}
template <class F> inline cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int* n, F*, int block, std::size_t) {
  *n = block > 0 ? std::max(1, 2048 / block) : 0;
  return cudaSuccess;
}
inline cudaError_t cudaMalloc(void** p, std::size_t n) {
  *p = std::malloc(n ? n : 1);
  return *p ? cudaSuccess : cudaErrorMemoryAllocation;
}
template <class T> inline cudaError_t cudaMalloc(T** p, std::size_t n) { return cudaMalloc(reinterpret_cast<void**>(p), n); }
inline cudaError_t cudaFree(void* p) { std::free(p); return cudaSuccess; }
inline cudaError_t cudaMemcpy(void* d, const void* s, std::size_t n, cudaMemcpyKind) { std::memmove(d, s, n); return cudaSuccess; }
inline cudaError_t cudaMemcpyAsync(void* d, const void* s, std::size_t n, cudaMemcpyKind k, cudaStream_t = nullptr) { return cudaMemcpy(d, s, n, k); }
inline cudaError_t cudaMemset(void* d, int v, std::size_t n) { std::memset(d, v, n); return cudaSuccess; }
inline cudaError_t cudaMemsetAsync(void* d, int v, std::size_t n, cudaStream_t = nullptr) { return cudaMemset(d, v, n); }
template <class T> inline cudaError_t cudaMemcpyToSymbol(T& sym, const void* src, std::size_t n, std::size_t off = 0, cudaMemcpyKind = cudaMemcpyHostToDevice) {
  std::memcpy(reinterpret_cast<char*>(&sym) + off, src, n);
  return cudaSuccess;
}
template <class T> inline cudaError_t cudaMemcpyToSymbolAsync(T& sym, const void* src, std::size_t n, std::size_t off = 0, cudaMemcpyKind k = cudaMemcpyHostToDevice, cudaStream_t = nullptr) {
  return cudaMemcpyToSymbol(sym, src, n, off, k);
}
template <class T> inline cudaError_t cudaMemcpyFromSymbol(void* dst, const T& sym, std::size_t n, std::size_t off = 0, cudaMemcpyKind = cudaMemcpyDeviceToHost) {
  std::memcpy(dst, reinterpret_cast<const char*>(&sym) + off, n);
  return cudaSuccess;
}
// Streams and events: every stream runs in order (a launch completes before the next statement),
// so waits and records have nothing to do, and an elapsed time is 0 ms. A created stream still
// gets a handle of its own, never dereferenced, so that a run's launch record (rt::LaunchRecord)
// says which launches named another stream than the default one.
namespace kaudit::detail {
inline cudaStream_t new_stream_handle() {
  static std::atomic<std::uintptr_t> last{0x1000};  // a wrapper's own threads may create streams
  return reinterpret_cast<cudaStream_t>(last.fetch_add(0x10) + 0x10);
}
}  // namespace kaudit::detail
inline cudaError_t cudaStreamCreate(cudaStream_t* s) { *s = ::kaudit::detail::new_stream_handle(); return cudaSuccess; }
inline cudaError_t cudaStreamCreateWithFlags(cudaStream_t* s, unsigned) { return cudaStreamCreate(s); }
inline cudaError_t cudaStreamCreateWithPriority(cudaStream_t* s, unsigned, int) { return cudaStreamCreate(s); }
inline cudaError_t cudaStreamDestroy(cudaStream_t) { return cudaSuccess; }
inline cudaError_t cudaStreamWaitEvent(cudaStream_t, cudaEvent_t, unsigned = 0) { return cudaSuccess; }
inline cudaError_t cudaEventCreate(cudaEvent_t* e) { *e = nullptr; return cudaSuccess; }
inline cudaError_t cudaEventCreateWithFlags(cudaEvent_t* e, unsigned) { return cudaEventCreate(e); }
inline cudaError_t cudaEventRecord(cudaEvent_t, cudaStream_t = nullptr) { return cudaSuccess; }
inline cudaError_t cudaEventSynchronize(cudaEvent_t) { return cudaSuccess; }
inline cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t, cudaEvent_t) { *ms = 0.f; return cudaSuccess; }
inline cudaError_t cudaEventDestroy(cudaEvent_t) { return cudaSuccess; }
inline cudaError_t cudaRuntimeGetVersion(int* v) { *v = 13000; return cudaSuccess; }
inline cudaError_t cudaDriverGetVersion(int* v) { *v = 13000; return cudaSuccess; }
// Host and managed memory are host memory here.
inline cudaError_t cudaMallocHost(void** p, std::size_t n) { return cudaMalloc(p, n); }
template <class T> inline cudaError_t cudaMallocHost(T** p, std::size_t n) { return cudaMalloc(p, n); }
template <class T> inline cudaError_t cudaMallocManaged(T** p, std::size_t n, unsigned = 1) { return cudaMalloc(p, n); }
inline cudaError_t cudaFreeHost(void* p) { return cudaFree(p); }
inline cudaError_t cudaMemGetInfo(std::size_t* free_bytes, std::size_t* total) {
  *free_bytes = *total = cudaDeviceProp{}.totalGlobalMem;
  return cudaSuccess;
}
// A kernel's attributes, as an sm_90 build of a small kernel reports them (registers and local
// memory are not modelled).
struct cudaFuncAttributes {
  std::size_t sharedSizeBytes = 0, constSizeBytes = 0, localSizeBytes = 0;
  int maxThreadsPerBlock = 1024, numRegs = 32, ptxVersion = 90, binaryVersion = 90, cacheModeCA = 0;
  int maxDynamicSharedSizeBytes = 49152;
};
template <class F> inline cudaError_t cudaFuncGetAttributes(cudaFuncAttributes* a, F*) { *a = cudaFuncAttributes{}; return cudaSuccess; }
template <class F>
inline cudaError_t cudaOccupancyMaxPotentialBlockSize(int* min_grid, int* block, F*, std::size_t = 0, int limit = 0) {
  *block = limit > 0 && limit < 1024 ? limit : 1024;
  *min_grid = 132 * (2048 / *block);
  return cudaSuccess;
}

// c10 / ATen CUDA helpers used by wrappers.
namespace c10::cuda {
struct CUDAStream {
  cudaStream_t handle = nullptr;  // the default stream, as PyTorch's current stream is unless set
  cudaStream_t stream() const { return handle; }
  operator cudaStream_t() const { return handle; }
  c10::Device device() const { return {}; }
};
inline CUDAStream getCurrentCUDAStream(int = -1) { return {}; }
inline CUDAStream getDefaultCUDAStream(int = -1) { return {}; }
inline CUDAStream getStreamFromPool(bool = false, int = -1) { return {::kaudit::detail::new_stream_handle()}; }
struct CUDAGuard {
  explicit CUDAGuard(c10::Device) {}
  explicit CUDAGuard(int) {}
};
struct OptionalCUDAGuard {
  OptionalCUDAGuard() = default;
  explicit OptionalCUDAGuard(c10::optional<c10::Device>) {}
  explicit OptionalCUDAGuard(c10::Device) {}
};
inline int current_device() { return 0; }
inline int device_count() { return 1; }
}  // namespace c10::cuda
namespace at::cuda {
using c10::cuda::CUDAGuard;
using c10::cuda::CUDAStream;
using c10::cuda::OptionalCUDAGuard;
using c10::cuda::getCurrentCUDAStream;
using c10::cuda::getDefaultCUDAStream;
using c10::cuda::getStreamFromPool;
inline cudaDeviceProp* getCurrentDeviceProperties() {
  static cudaDeviceProp prop;
  return &prop;
}
inline cudaDeviceProp* getDeviceProperties(int) { return getCurrentDeviceProperties(); }
}  // namespace at::cuda

// <ATen/ceil_div.h>, <ATen/NumericUtils.h> and <ATen/cuda/NumericLimits.cuh>: what kernels and
// wrappers use of them, with ATen's meaning: ceil_div of integers; a type's bounds, infinite where
// it has infinities, for the arithmetic types and c10::Half/BFloat16 only (another type does not
// compile, as in ATen, rather than give a zero).
namespace at {
template <class T, typename std::enable_if<std::is_integral<T>::value, int>::type = 0>
constexpr T ceil_div(T a, T b) { return (a + b - 1) / b; }
template <class T>
struct numeric_limits {
  static_assert(std::numeric_limits<T>::is_specialized, "at::numeric_limits: a type ATen has no limits for");
  static inline T lowest() { return std::numeric_limits<T>::lowest(); }
  static inline T max() { return std::numeric_limits<T>::max(); }
  static inline T lower_bound() {
    return std::numeric_limits<T>::has_infinity ? -std::numeric_limits<T>::infinity() : std::numeric_limits<T>::lowest();
  }
  static inline T upper_bound() {
    return std::numeric_limits<T>::has_infinity ? std::numeric_limits<T>::infinity() : std::numeric_limits<T>::max();
  }
};
template <>
struct numeric_limits<c10::Half> {
  static inline c10::Half lowest() { return c10::Half(-65504.0f); }
  static inline c10::Half max() { return c10::Half(65504.0f); }
  static inline c10::Half lower_bound() { return c10::Half(-std::numeric_limits<float>::infinity()); }
  static inline c10::Half upper_bound() { return c10::Half(std::numeric_limits<float>::infinity()); }
};
template <>
struct numeric_limits<c10::BFloat16> {
  static inline c10::BFloat16 lowest() { return c10::BFloat16(-3.38953139e38f); }
  static inline c10::BFloat16 max() { return c10::BFloat16(3.38953139e38f); }
  static inline c10::BFloat16 lower_bound() { return c10::BFloat16(-std::numeric_limits<float>::infinity()); }
  static inline c10::BFloat16 upper_bound() { return c10::BFloat16(std::numeric_limits<float>::infinity()); }
};
template <class T>
inline bool _isnan(T v) {
  if constexpr (std::is_integral<T>::value) return false;
  else return std::isnan(static_cast<double>(v));
}
}  // namespace at
#define C10_CUDA_CHECK(expr)                                                                   \
  do {                                                                                         \
    cudaError_t kaudit_err = (expr);                                                           \
    TORCH_CHECK(kaudit_err == cudaSuccess, "CUDA error: ", cudaGetErrorString(kaudit_err));    \
  } while (0)
#define C10_CUDA_KERNEL_LAUNCH_CHECK() C10_CUDA_CHECK(cudaGetLastError())
#define AT_CUDA_CHECK C10_CUDA_CHECK
#define CUDA_CHECK(expr) C10_CUDA_CHECK(expr)

// ---- kernel launches ----------------------------------------------------------------------------
namespace kaudit {
struct LaunchConfig {
  dim3 grid, block;
  std::size_t smem;
  cudaStream_t stream;  // recorded with the launch (rt::LaunchRecord); every stream runs in order here
  LaunchConfig(dim3 g, dim3 b, std::size_t s = 0, cudaStream_t st = nullptr) : grid(g), block(b), smem(s), stream(st) {}
};

namespace detail {
// Defined after the kernel by the lowering pass (runtime/cpu/lower.cpp): whether this TU declares
// static or dynamic shared memory.
static bool tu_uses_static_smem();
static bool tu_uses_dynamic_smem();
}  // namespace detail

// Runs `call(args...)` once per CUDA thread of the grid. `call` is a lambda the lowering pass wraps
// around the original callee, so template arguments are deduced exactly as nvcc would, and each
// thread gets its own copy of the arguments (CUDA passes kernel parameters by value).
template <class Call, class... A>
int launch_kernel(const char* name, Call call, const LaunchConfig& cfg, A&&... args) {
  struct Launch {
    Call* call;
    std::tuple<std::decay_t<A>...> args;
  };
  Launch launch{&call, std::tuple<std::decay_t<A>...>(std::forward<A>(args)...)};
  rt::LaunchSpec spec{{cfg.grid.x, cfg.grid.y, cfg.grid.z}, {cfg.block.x, cfg.block.y, cfg.block.z},
                      cfg.smem, KAUDIT_NEEDS_FIBERS != 0, detail::tu_uses_static_smem(), detail::tu_uses_dynamic_smem(),
                      name, (const void*)&launch_kernel<Call, A...>, (const void*)cfg.stream};
  // Plain mode: the whole block runs here, threads as an inlined loop.
  rt::RunBlockFn run_block = [](void* p, rt::ThreadCtx* ctx, bool reversed) {
    Launch& l = *static_cast<Launch*>(p);
    const unsigned bx = ctx->block_dim.x, by = ctx->block_dim.y, bz = ctx->block_dim.z;
    rt::enter_thread(ctx);
    // Each thread's index goes to the variable kernel code reads and to its context, which the
    // runtime restores from when a nested launch returns (enter_thread).
    if (!reversed) {
      for (unsigned z = 0; z < bz; ++z)
        for (unsigned y = 0; y < by; ++y)
          for (unsigned x = 0; x < bx; ++x) {
            ::threadIdx = ctx->thread_idx = {x, y, z};
            std::apply(*l.call, l.args);
          }
    } else {
      for (unsigned z = bz; z-- > 0;)
        for (unsigned y = by; y-- > 0;)
          for (unsigned x = bx; x-- > 0;) {
            ::threadIdx = ctx->thread_idx = {x, y, z};
            std::apply(*l.call, l.args);
          }
    }
  };
  // Fiber mode: one call per CUDA thread, on its own fiber.
  rt::RunThreadFn run_thread = [](void* p) {
    Launch& l = *static_cast<Launch*>(p);
    std::apply(*l.call, l.args);
  };
  return rt::launch(spec, run_block, run_thread, &launch);
}

inline unsigned char* dynamic_shared_memory() { return rt::tls_ctx->dynamic_smem; }

namespace detail {
template <class... P, std::size_t... I>
int launch_from_pointers(void (*kernel)(P...), const LaunchConfig& cfg, void** args, std::index_sequence<I...>) {
  return launch_kernel("cudaLaunchKernel", [&](auto&&... a) { kernel(a...); }, cfg,
                       *static_cast<std::remove_cv_t<std::remove_reference_t<P>>*>(args[I])...);
}
}  // namespace detail
}  // namespace kaudit

// cudaLaunchKernel with the kernel's own type: its arguments are read from `args` by the kernel's
// parameter types and it runs as a <<<>>> launch does. Through a `const void*` the CPU backend
// cannot know the parameters: such a launch stops the run with a message saying so.
template <class... P>
inline cudaError_t cudaLaunchKernel(void (*kernel)(P...), dim3 grid, dim3 block, void** args, std::size_t smem = 0,
                                    cudaStream_t stream = nullptr) {
  return (cudaError_t)::kaudit::detail::launch_from_pointers(kernel, ::kaudit::LaunchConfig(grid, block, smem, stream), args,
                                                            std::index_sequence_for<P...>{});
}
inline cudaError_t cudaLaunchKernel(const void*, dim3, dim3, void**, std::size_t = 0, cudaStream_t = nullptr) {
  ::kaudit::rt::trap("cudaLaunchKernel through a const void* is not supported by the CPU backend "
                     "(it cannot know the kernel's parameters); pass the kernel itself");
}
namespace kaudit {

// ---- the entry shim: converts the worker's arguments to the wrapper's parameter types ----------
namespace detail {
enum class ArgKind : int { Tensor = 0, Int = 1, Double = 2, Bool = 3 };
struct ArgValue {
  ArgKind kind;
  std::int64_t i;
  double d;
  rt::TensorHandle* t;
};
using PushOutput = void (*)(void* sink, void* borrowed_handle);

[[noreturn]] inline void bad_arg(std::size_t index, const char* want) {
  throw c10::Error("argument " + std::to_string(index) + " of the entry function: expected " + want);
}
template <class P>
P convert_arg(const ArgValue& a, std::size_t index) {
  using T = std::remove_cv_t<std::remove_reference_t<P>>;
  if constexpr (std::is_same_v<T, at::Tensor>) {
    if (a.kind != ArgKind::Tensor) bad_arg(index, "a tensor");
    return at::Tensor::adopt(rt::t_retain(a.t));
  } else if constexpr (std::is_same_v<T, c10::optional<at::Tensor>>) {
    if (a.kind != ArgKind::Tensor) bad_arg(index, "a tensor");
    return at::Tensor::adopt(rt::t_retain(a.t));
  } else if constexpr (std::is_same_v<T, bool>) {
    if (a.kind == ArgKind::Tensor) bad_arg(index, "a bool");
    return a.kind == ArgKind::Double ? a.d != 0 : a.i != 0;
  } else if constexpr (std::is_integral_v<T>) {
    if (a.kind == ArgKind::Tensor || a.kind == ArgKind::Double) bad_arg(index, "an integer");
    return (T)a.i;
  } else if constexpr (std::is_floating_point_v<T>) {
    if (a.kind == ArgKind::Tensor) bad_arg(index, "a number");
    return a.kind == ArgKind::Double ? (T)a.d : (T)a.i;
  } else if constexpr (std::is_same_v<T, c10::Scalar>) {
    if (a.kind == ArgKind::Tensor) bad_arg(index, "a number");
    return a.kind == ArgKind::Double ? c10::Scalar(a.d) : c10::Scalar(a.i);  // an int stays integral
  } else {
    static_assert(sizeof(T) == 0, "entry function parameter type not supported by the CPU backend");
  }
}
inline void push_outputs(const at::Tensor& t, void* sink, PushOutput push) { push(sink, t.handle()); }  // borrowed
inline void push_outputs(const std::vector<at::Tensor>& v, void* sink, PushOutput push) {
  for (const auto& t : v) push(sink, t.handle());
}
template <class... T>
void push_outputs(const std::tuple<T...>& t, void* sink, PushOutput push) {
  std::apply([&](const auto&... e) { (push_outputs(e, sink, push), ...); }, t);
}
template <class R, class... P, std::size_t... I>
void invoke_with(R (*f)(P...), const ArgValue* args, void* sink, PushOutput push, std::index_sequence<I...>) {
  if constexpr (std::is_void_v<R>) {
    f(convert_arg<P>(args[I], I)...);
  } else {
    R r = f(convert_arg<P>(args[I], I)...);
    push_outputs(r, sink, push);
  }
}
// Returns 0, or 1 with the exception message in err.
template <class R, class... P>
int invoke_entry(R (*f)(P...), const ArgValue* args, std::size_t nargs, void* sink, PushOutput push,
                 char* err, std::size_t errlen) {
  try {
    if (nargs != sizeof...(P))
      throw c10::Error("the binding passes " + std::to_string(nargs) + " arguments but the entry function takes " +
                       std::to_string(sizeof...(P)));
    invoke_with(f, args, sink, push, std::index_sequence_for<P...>{});
    return 0;
  } catch (const std::exception& e) {
    std::snprintf(err, errlen, "%s", e.what());
    return 1;
  }
}
}  // namespace detail
}  // namespace kaudit
#endif  // KAUDIT_CPU_PRELUDE_H
