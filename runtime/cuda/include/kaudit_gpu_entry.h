// Appended to every kernel source kaudit builds for a GPU, by the CUDA backend (runtime/cuda/build.h)
// and by the calibration bundle (tools/gpu/calibrate.py). Registers the binding's entry function as
// the operator <LIB>::entry, callable from Python as torch.ops.<LIB>.entry(tensors, values, kinds),
// and the schema switch as <LIB>::set_mutant; and exports the same as C functions for kaudit's
// worker (runtime/cuda/worker.cpp), which loads the library with dlopen and shares its libtorch:
//   int kaudit_gpu_invoke(tensors*, values*, kinds*, outputs*, err, errlen)  0, or 1 (err says why)
//   int kaudit_gpu_select(mutant, err, errlen)     sets the schema switch on host and device
//   int kaudit_gpu_finish(err, errlen)             waits for the device; the first CUDA error's code
//   void kaudit_gpu_limit_memory(fraction)         bounds PyTorch's caching allocator on device 0
//   void kaudit_gpu_empty_cache()                  returns the allocator's cached blocks to the driver
//   int kaudit_gpu_launches()                      kernels the library's own code launched since it was
//                                                  loaded, -1 when not counted (kaudit_launch_count.h)
// kinds[i] says what argument i is: 0 a tensor (tensors[i]), 1 an integer, 2 a real, 3 a bool
// (values[i]); the entry's own parameter types take the values as the CPU backend's shim does
// (runtime/cpu/include/kaudit_cpu/prelude.h, invoke_entry).
#pragma once
#include <c10/cuda/CUDACachingAllocator.h>
#include <cuda_runtime.h>
#include <torch/library.h>

#include "kaudit_launch_count.h"

#include <cstdio>

#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace kaudit_gpu {

template <class P>
P convert(const std::vector<c10::optional<at::Tensor>>& tensors, const std::vector<double>& values,
          const std::vector<int64_t>& kinds, std::size_t i) {
  using T = std::remove_cv_t<std::remove_reference_t<P>>;
  TORCH_CHECK(i < kinds.size(), "kaudit: the binding passes too few arguments");
  if constexpr (std::is_same_v<T, at::Tensor> || std::is_same_v<T, c10::optional<at::Tensor>>) {
    TORCH_CHECK(kinds[i] == 0 && tensors[i].has_value(), "kaudit: argument ", i, " must be a tensor");
    return *tensors[i];
  } else if constexpr (std::is_same_v<T, bool>) {
    return values[i] != 0;
  } else if constexpr (std::is_integral_v<T>) {
    return static_cast<T>(static_cast<int64_t>(values[i]));
  } else if constexpr (std::is_floating_point_v<T>) {
    return static_cast<T>(values[i]);
  } else if constexpr (std::is_same_v<T, c10::Scalar>) {
    return c10::Scalar(values[i]);
  } else {
    static_assert(sizeof(T) == 0, "entry function parameter type not supported by kaudit's GPU builds");
  }
}

inline void push(std::vector<at::Tensor>& out, const at::Tensor& t) { out.push_back(t); }
inline void push(std::vector<at::Tensor>& out, const std::vector<at::Tensor>& v) { out.insert(out.end(), v.begin(), v.end()); }
template <class... T>
void push(std::vector<at::Tensor>& out, const std::tuple<T...>& t) {
  std::apply([&](const auto&... e) { (push(out, e), ...); }, t);
}

template <class R, class... P, std::size_t... I>
std::vector<at::Tensor> invoke(R (*f)(P...), const std::vector<c10::optional<at::Tensor>>& tensors,
                               const std::vector<double>& values, const std::vector<int64_t>& kinds,
                               std::index_sequence<I...>) {
  TORCH_CHECK(kinds.size() == sizeof...(P), "kaudit: the binding passes ", kinds.size(),
              " arguments but the entry function takes ", sizeof...(P));
  std::vector<at::Tensor> out;
  if constexpr (std::is_void_v<R>) {
    f(convert<P>(tensors, values, kinds, I)...);
  } else {
    push(out, f(convert<P>(tensors, values, kinds, I)...));
  }
  return out;
}

// Runs f; an exception becomes 1 and its message (without libtorch's C++ backtrace).
template <class F>
int guarded(char* err, size_t errlen, F&& f) {
  try {
    f();
    return 0;
  } catch (const c10::Error& e) {
    std::snprintf(err, errlen, "%s", e.what_without_backtrace());
  } catch (const std::exception& e) {
    std::snprintf(err, errlen, "%s", e.what());
  } catch (...) {
    std::snprintf(err, errlen, "a non-standard exception");
  }
  return 1;
}

// Waits for everything launched so far; returns the first CUDA error's code (0: none), named in
// err. An error raised by a kernel (an illegal address, a trap) is sticky: the context is unusable.
inline int finish(char* err, size_t errlen) {
  cudaError_t e = cudaDeviceSynchronize();
  if (e == cudaSuccess) e = cudaGetLastError();
  if (e != cudaSuccess) std::snprintf(err, errlen, "%s: %s", cudaGetErrorName(e), cudaGetErrorString(e));
  return static_cast<int>(e);
}

}  // namespace kaudit_gpu

#define KAUDIT_GPU_ENTRY(FN, LIB)                                                                      \
  static std::vector<at::Tensor> kaudit_gpu_entry(std::vector<c10::optional<at::Tensor>> tensors,     \
                                                  std::vector<double> values, std::vector<int64_t> kinds) { \
    return kaudit_gpu::invoke(&FN, tensors, values, kinds, std::make_index_sequence<kaudit_gpu_arity(&FN)>{}); \
  }                                                                                                    \
  static void kaudit_gpu_set_mutant(int64_t m) {                                                       \
    kaudit_active_mutant_h = static_cast<int>(m);                                                      \
    const int v = static_cast<int>(m);                                                                 \
    C10_CUDA_CHECK(cudaMemcpyToSymbol(kaudit_active_mutant_d, &v, sizeof v));                          \
  }                                                                                                    \
  TORCH_LIBRARY(LIB, m) {                                                                              \
    m.def("entry", &kaudit_gpu_entry);                                                                 \
    m.def("set_mutant", &kaudit_gpu_set_mutant);                                                       \
  }                                                                                                    \
  extern "C" __attribute__((visibility("default"))) int kaudit_gpu_invoke(                             \
      const std::vector<c10::optional<at::Tensor>>* tensors, const std::vector<double>* values,       \
      const std::vector<int64_t>* kinds, std::vector<at::Tensor>* outputs, char* err, size_t errlen) { \
    return kaudit_gpu::guarded(err, errlen, [&] { *outputs = kaudit_gpu_entry(*tensors, *values, *kinds); }); \
  }                                                                                                    \
  extern "C" __attribute__((visibility("default"))) int kaudit_gpu_select(int m, char* err, size_t errlen) { \
    return kaudit_gpu::guarded(err, errlen, [&] { kaudit_gpu_set_mutant(m); });                        \
  }                                                                                                    \
  extern "C" __attribute__((visibility("default"))) int kaudit_gpu_finish(char* err, size_t errlen) {  \
    return kaudit_gpu::finish(err, errlen);                                                            \
  }                                                                                                    \
  extern "C" __attribute__((visibility("default"))) void kaudit_gpu_limit_memory(double fraction) {    \
    c10::cuda::CUDACachingAllocator::setMemoryFraction(fraction, 0);                                   \
  }                                                                                                    \
  extern "C" __attribute__((visibility("default"))) void kaudit_gpu_empty_cache() {                    \
    c10::cuda::CUDACachingAllocator::emptyCache();                                                     \
  }

template <class R, class... P>
constexpr std::size_t kaudit_gpu_arity(R (*)(P...)) {
  return sizeof...(P);
}
