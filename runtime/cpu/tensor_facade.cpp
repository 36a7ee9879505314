// Runtime side of the torch facade (include/kaudit_cpu/torch_facade.h): handles wrap real
// at::Tensor objects so kernel libraries can use the libtorch API without its headers.
#include "runtime/cpu/tensor_facade.h"

#include <ATen/ATen.h>

#include <atomic>
#include <stdexcept>
#include <vector>
#include <tuple>
#include <cstring>

#include "kaudit_cpu/abi.h"
#include "runtime/cpu/device_memory.h"
#include "runtime/cpu/emulator.h"

namespace kaudit::rt {

struct TensorHandle {
  std::atomic<int> refs{1};
  at::Tensor tensor;
};

namespace {
at::IntArrayRef dims(const std::int64_t* s, std::size_t n) { return at::IntArrayRef(s, n); }
TensorHandle* make(at::Tensor t) { return new TensorHandle{{1}, std::move(t)}; }
// Witness mode: fresh "device" allocations are filled with 0xFF bytes (NaN for floats):
// deterministic, and a kernel that forgets to write part of its output cannot pass by luck.
// In a device session (oracle mode) they are left as the modelled caching allocator hands them
// out: zeros in a fresh segment, else what the block's last user left (device_memory.h).
constexpr int kUninitialisedByte = 0xFF;
}  // namespace

TensorHandle* wrap_tensor(const at::Tensor& t) { return make(t); }
const at::Tensor& unwrap_tensor(const TensorHandle* h) { return h->tensor; }

TensorHandle* t_retain(TensorHandle* h) {
  h->refs.fetch_add(1, std::memory_order_relaxed);
  return h;
}
void t_release(TensorHandle* h) {
  if (h->refs.fetch_sub(1, std::memory_order_acq_rel) == 1) delete h;
}
std::int64_t t_dim(const TensorHandle* h) { return h->tensor.dim(); }
const std::int64_t* t_sizes(const TensorHandle* h) { return h->tensor.sizes().data(); }
const std::int64_t* t_strides(const TensorHandle* h) { return h->tensor.strides().data(); }
std::int64_t t_numel(const TensorHandle* h) { return h->tensor.numel(); }
int t_dtype(const TensorHandle* h) { return (int)h->tensor.scalar_type(); }
bool t_is_contiguous(const TensorHandle* h) { return h->tensor.is_contiguous(); }
void* t_data(const TensorHandle* h) { return h->tensor.data_ptr(); }

TensorHandle* t_empty(const std::int64_t* sizes, std::size_t n, int dtype) {
  at::Tensor t = at::empty(dims(sizes, n), at::TensorOptions().dtype((at::ScalarType)dtype));
  if (t.numel() > 0 && !device_session_active()) std::memset(t.data_ptr(), kUninitialisedByte, t.nbytes());
  return make(std::move(t));
}
TensorHandle* t_full(const std::int64_t* sizes, std::size_t n, int dtype, double value) {
  return make(at::full(dims(sizes, n), value, at::TensorOptions().dtype((at::ScalarType)dtype)));
}
TensorHandle* t_contiguous(const TensorHandle* h) { return make(h->tensor.contiguous()); }
TensorHandle* t_to_dtype(const TensorHandle* h, int dtype) { return make(h->tensor.to((at::ScalarType)dtype)); }
TensorHandle* t_clone(const TensorHandle* h) { return make(h->tensor.clone()); }
// The library products as a GPU computes them. Half and bfloat16 operands: cuBLAS multiplies
// them with float32 accumulation and rounds the result once (PyTorch's at::cuda::blas::gemm for
// at::Half and at::BFloat16 calls cublasGemmEx with a 32-bit float compute type,
// aten/src/ATen/cuda/CUDABlas.cpp), and a libtorch built for CPUs may lack these kernels
// altogether ("addmm_impl_cpu_" not implemented for 'Half' in Debian's): such operands are
// multiplied in float32 here and the result rounded to their dtype. Operands of mixed dtypes go to
// ATen as they are, which refuses them as PyTorch on a GPU does.
template <class Op, class... T>
TensorHandle* library_product(Op op, const T&... operands) {
  note_library_call();
  const at::ScalarType dtype = std::get<0>(std::forward_as_tuple(operands...)).scalar_type();
  const bool same = ((operands.scalar_type() == dtype) && ...);
  if (!same || (dtype != at::kHalf && dtype != at::kBFloat16)) return make(op(operands...));
  return make(op(operands.to(at::kFloat)...).to(dtype));
}
TensorHandle* t_matmul(const TensorHandle* a, const TensorHandle* b) {
  return library_product([](const at::Tensor& x, const at::Tensor& y) { return at::matmul(x, y); }, a->tensor, b->tensor);
}
TensorHandle* t_mm(const TensorHandle* a, const TensorHandle* b) {
  return library_product([](const at::Tensor& x, const at::Tensor& y) { return at::mm(x, y); }, a->tensor, b->tensor);
}
TensorHandle* t_bmm(const TensorHandle* a, const TensorHandle* b) {
  return library_product([](const at::Tensor& x, const at::Tensor& y) { return at::bmm(x, y); }, a->tensor, b->tensor);
}
TensorHandle* t_addmm(const TensorHandle* c, const TensorHandle* a, const TensorHandle* b, double beta, double alpha) {
  return library_product(
      [&](const at::Tensor& z, const at::Tensor& x, const at::Tensor& y) { return at::addmm(z, x, y, beta, alpha); },
      c->tensor, a->tensor, b->tensor);
}
TensorHandle* t_linear(const TensorHandle* x, const TensorHandle* w, const TensorHandle* bias) {
  if (!bias)
    return library_product([](const at::Tensor& u, const at::Tensor& v) { return at::linear(u, v); }, x->tensor, w->tensor);
  return library_product([](const at::Tensor& u, const at::Tensor& v, const at::Tensor& b) { return at::linear(u, v, b); },
                         x->tensor, w->tensor, bias->tensor);
}
TensorHandle* t_view(const TensorHandle* h, const std::int64_t* sizes, std::size_t n, bool reshape) {
  return make(reshape ? h->tensor.reshape(dims(sizes, n)) : h->tensor.view(dims(sizes, n)));
}
TensorHandle* t_transpose(const TensorHandle* h, std::int64_t a, std::int64_t b) { return make(h->tensor.transpose(a, b)); }
TensorHandle* t_permute(const TensorHandle* h, const std::int64_t* d, std::size_t n) { return make(h->tensor.permute(dims(d, n))); }
TensorHandle* t_unsqueeze(const TensorHandle* h, std::int64_t d) { return make(h->tensor.unsqueeze(d)); }
TensorHandle* t_squeeze(const TensorHandle* h, std::int64_t d, bool all) {
  return make(all ? h->tensor.squeeze() : h->tensor.squeeze(d));
}
TensorHandle* t_narrow(const TensorHandle* h, std::int64_t d, std::int64_t s, std::int64_t l) { return make(h->tensor.narrow(d, s, l)); }
TensorHandle* t_select(const TensorHandle* h, std::int64_t d, std::int64_t i) { return make(h->tensor.select(d, i)); }
TensorHandle* t_flatten(const TensorHandle* h, std::int64_t s, std::int64_t e) { return make(h->tensor.flatten(s, e)); }
TensorHandle* t_expand(const TensorHandle* h, const std::int64_t* s, std::size_t n) { return make(h->tensor.expand(dims(s, n))); }
TensorHandle* t_reduce(const TensorHandle* h, int kind, const std::int64_t* d, std::size_t n, bool keepdim, int correction) {
  const at::Tensor& t = h->tensor;
  std::vector<std::int64_t> all;
  if (n == 0)
    for (std::int64_t i = 0; i < t.dim(); ++i) all.push_back(i);
  const at::IntArrayRef dims = n ? at::IntArrayRef(d, n) : at::IntArrayRef(all);
  switch (static_cast<Reduce>(kind)) {
    case Reduce::Sum: return make(at::sum(t, dims, keepdim));
    case Reduce::Mean: return make(at::mean(t, dims, keepdim));
    case Reduce::Var: return make(at::var(t, dims, correction != 0, keepdim));
    case Reduce::Std: return make(at::std(t, dims, correction != 0, keepdim));
    case Reduce::Amax: return make(at::amax(t, dims, keepdim));
    case Reduce::Amin: return make(at::amin(t, dims, keepdim));
  }
  throw std::invalid_argument("t_reduce: unknown reduction");
}
namespace {
at::Tensor binary(const at::Tensor& a, const at::Tensor& b, Binary op) {
  switch (op) {
    case Binary::Add: return a + b;
    case Binary::Sub: return a - b;
    case Binary::Mul: return a * b;
    case Binary::Div: return a / b;
    case Binary::Pow: return at::pow(a, b);
    case Binary::Max: return at::maximum(a, b);
    case Binary::Min: return at::minimum(a, b);
  }
  throw std::invalid_argument("t_binary: unknown operator");
}
}  // namespace
TensorHandle* t_binary(const TensorHandle* a, const TensorHandle* b, int op) {
  return make(binary(a->tensor, b->tensor, static_cast<Binary>(op)));
}
TensorHandle* t_binary_scalar(const TensorHandle* a, double d, std::int64_t i, int kind, int op, bool scalar_first) {
  const at::Scalar s = static_cast<ScalarKind>(kind) == ScalarKind::Floating ? at::Scalar(d)
                       : static_cast<ScalarKind>(kind) == ScalarKind::Boolean ? at::Scalar(i != 0)
                                                                                : at::Scalar(i);
  const at::Tensor& t = a->tensor;
  switch (static_cast<Binary>(op)) {
    case Binary::Add: return make(t.add(s));
    case Binary::Mul: return make(t.mul(s));
    case Binary::Sub: return make(scalar_first ? at::empty_like(t).fill_(s).sub_(t) : t.sub(s));
    case Binary::Div: return make(scalar_first ? at::empty_like(t).fill_(s).div_(t) : t.div(s));
    case Binary::Pow: return make(scalar_first ? at::pow(s, t) : at::pow(t, s));
    case Binary::Max:
    case Binary::Min: break;
  }
  throw std::invalid_argument("t_binary_scalar: unknown operator");
}
TensorHandle* t_unary(const TensorHandle* h, int op) {
  const at::Tensor& t = h->tensor;
  switch (static_cast<Unary>(op)) {
    case Unary::Neg: return make(-t);
    case Unary::Sqrt: return make(at::sqrt(t));
    case Unary::Rsqrt: return make(at::rsqrt(t));
    case Unary::Exp: return make(at::exp(t));
    case Unary::Log: return make(at::log(t));
    case Unary::Abs: return make(at::abs(t));
    case Unary::Tanh: return make(at::tanh(t));
    case Unary::Sigmoid: return make(at::sigmoid(t));
    case Unary::Relu: return make(at::relu(t));
  }
  throw std::invalid_argument("t_unary: unknown operator");
}
void t_fill(TensorHandle* h, double v) { h->tensor.fill_(v); }
void t_copy(TensorHandle* dst, const TensorHandle* src) { dst->tensor.copy_(src->tensor); }

}  // namespace kaudit::rt
