// CPU backend stand-in for <ATen/AccumulateType.h>: the type a kernel accumulates a scalar type in
// on the device (float for half and bfloat16, the type itself otherwise), as at::acc_type gives
// it with is_cuda = true. Without this stand-in the system's libtorch header is found, which pulls
// in CUDA headers the CPU backend does not have.
#pragma once
#ifndef KAUDIT_CPU_PRELUDE_H
#include <kaudit_cpu/prelude.h>
#endif

namespace at {
template <typename T, bool is_cuda>
struct AccumulateType {
  using type = T;
};
template <bool is_cuda>
struct AccumulateType<c10::Half, is_cuda> {
  using type = float;
};
template <bool is_cuda>
struct AccumulateType<c10::BFloat16, is_cuda> {
  using type = float;
};
template <typename T, bool is_cuda>
using acc_type = typename AccumulateType<T, is_cuda>::type;
}  // namespace at
