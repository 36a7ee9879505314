// Appended to every kernel source kaudit builds for a GPU (tools/gpu/kaudit_gpu.py): registers the
// binding's entry function as the operator <LIB>::entry, callable from Python as
// torch.ops.<LIB>.entry(tensors, values, kinds), and the schema switch as <LIB>::set_mutant.
// kinds[i] says what argument i is: 0 a tensor (tensors[i]), 1 an integer, 2 a real, 3 a bool
// (values[i]); the entry's own parameter types take the values as the CPU backend's shim does
// (runtime/cpu/include/kaudit_cpu/prelude.h, invoke_entry).
#pragma once
#include <cuda_runtime.h>
#include <torch/library.h>

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
  }

template <class R, class... P>
constexpr std::size_t kaudit_gpu_arity(R (*)(P...)) {
  return sizeof...(P);
}
