// Conversions between real tensors and the facade handles kernel libraries receive.
#pragma once
#include <ATen/core/Tensor.h>

namespace kaudit::rt {
struct TensorHandle;
// Returns a new handle holding one reference; release it with t_release (abi.h).
TensorHandle* wrap_tensor(const at::Tensor& t);
const at::Tensor& unwrap_tensor(const TensorHandle* h);
}  // namespace kaudit::rt
