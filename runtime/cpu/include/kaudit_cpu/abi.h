// The ABI between kernel libraries built by the CPU backend and the emulator runtime
// (libkaudit_cpurt.so). Kernel translation units include this through prelude.h; the runtime
// implements it. Everything crossing the boundary is plain data or an opaque handle, so kernel
// TUs never include libtorch headers (that keeps a kernel build well under a second).
#pragma once
#include <cstddef>
#include <cstdint>

namespace kaudit::rt {

struct uint3_ { unsigned int x, y, z; };

// Per-CUDA-thread context. Kernel code reads its indices as `threadIdx` etc. (the copies below).
struct ThreadCtx {
  uint3_ thread_idx;
  uint3_ block_idx;
  uint3_ block_dim;
  uint3_ grid_dim;
  unsigned char* dynamic_smem;  // extern __shared__ buffer of the current block
  void* fiber_thread;           // scheduler record of this thread (fiber mode), else null
};

// Points at the context of the CUDA thread running on this OS thread. `__thread`, not
// `thread_local`: no TLS wrapper call per access. initial-exec: the runtime
// library is loaded at program start, so this is one %fs-relative load in kernel code.
extern __thread ThreadCtx* tls_ctx __attribute__((tls_model("initial-exec")));
}  // namespace kaudit::rt

// CUDA's built-in index variables, as kernel code names them: copies of the running thread's
// ThreadCtx fields, set with tls_ctx (kaudit::rt::enter_thread) and by the plain-mode thread loop.
// Variables, not macros, so a host function's local `dim3 blockDim(256)` shadows them as it does
// under nvcc (3 of the 122 solutions of docs/IMPORT-STUDY.md declare one). Unlike CUDA's they are
// assignable; nvcc rejects such a kernel, and so does the mutate stage's NVRTC compile.
extern __thread kaudit::rt::uint3_ threadIdx __attribute__((tls_model("initial-exec")));
extern __thread kaudit::rt::uint3_ blockIdx __attribute__((tls_model("initial-exec")));
extern __thread kaudit::rt::uint3_ blockDim __attribute__((tls_model("initial-exec")));
extern __thread kaudit::rt::uint3_ gridDim __attribute__((tls_model("initial-exec")));

namespace kaudit::rt {
// Makes `ctx` the running CUDA thread's context on this OS thread.
inline void enter_thread(ThreadCtx* ctx) {
  tls_ctx = ctx;
  if (!ctx) {  // no CUDA thread runs here: host code reading the indices gets no plausible value
    ::threadIdx = ::blockIdx = ::blockDim = ::gridDim = uint3_{~0u, ~0u, ~0u};
    return;
  }
  ::threadIdx = ctx->thread_idx;
  ::blockIdx = ctx->block_idx;
  ::blockDim = ctx->block_dim;
  ::gridDim = ctx->grid_dim;
}

struct LaunchSpec {
  unsigned int grid[3];
  unsigned int block[3];
  std::size_t dynamic_smem;
  bool needs_fibers;     // the TU uses barriers or warp collectives
  bool uses_static_smem;   // the TU declares static __shared__ variables (its TLS block is poisoned per block)
  bool uses_dynamic_smem;  // the TU declares extern __shared__ (the dynamic buffer is poisoned per block)
  const char* kernel;    // spelling of the callee, for messages
  const void* module_anchor;  // an address inside the kernel library (finds its TLS block)
  const void* stream;         // the stream the launch named (null: the default stream); recorded only
};

// Called back by the runtime for one block (plain mode: the block loops over its threads inline)
// or for one thread (fiber mode).
using RunBlockFn = void (*)(void* launch, ThreadCtx* ctx, bool reversed);
using RunThreadFn = void (*)(void* launch);

// Runs a whole grid synchronously. Returns a cudaError_t value (0 on success).
int launch(const LaunchSpec& spec, RunBlockFn run_block, RunThreadFn run_thread, void* launch);

// Barrier and warp collectives (fiber mode only).
enum class WarpOp : int { Sync, ShflIdx, ShflUp, ShflDown, ShflXor, Ballot, Any, All, ReduceAdd,
                          ReduceMin, ReduceMax, ReduceAnd, ReduceOr, ReduceXor };
int syncthreads(int site, int predicate, int mode);  // mode 0 plain, 1 count, 2 and, 3 or
std::uint64_t warp_collective(WarpOp op, unsigned mask, std::uint64_t value, int param, int width,
                              bool is_signed);
unsigned activemask();
// Oracle mode's step points (runtime/cpu/emulator.h, Mode): the lowering puts KAUDIT_STEP(kind)
// before the statements of device code that touch shared memory (kStepSharedMemory, also after a
// write) or load from global memory (kStepGlobalLoad) in TUs run on fibers; while a run is in
// oracle mode the flag is set and each step point lets the other warps of the block take their
// turn, by their clocks.
extern int step_points_enabled;
enum StepKind : int { kStepSharedMemory = 0, kStepGlobalLoad = 1 };
void step(int kind);
[[noreturn]] void trap(const char* what);

// Host-side CUDA runtime state.
int last_error(bool clear);   // cudaGetLastError / cudaPeekAtLastError
int device_synchronize();     // sticky error after a fault in a kernel
void set_max_dynamic_smem(int bytes);
const char* error_string(int err);

// Tensor facade: opaque handles to real at::Tensor objects living in the runtime.
struct TensorHandle;
TensorHandle* t_retain(TensorHandle*);
void t_release(TensorHandle*);
std::int64_t t_dim(const TensorHandle*);
const std::int64_t* t_sizes(const TensorHandle*);
const std::int64_t* t_strides(const TensorHandle*);
std::int64_t t_numel(const TensorHandle*);
int t_dtype(const TensorHandle*);
bool t_is_contiguous(const TensorHandle*);
void* t_data(const TensorHandle*);
TensorHandle* t_empty(const std::int64_t* sizes, std::size_t n, int dtype);
TensorHandle* t_full(const std::int64_t* sizes, std::size_t n, int dtype, double value);
TensorHandle* t_contiguous(const TensorHandle*);
TensorHandle* t_to_dtype(const TensorHandle*, int dtype);
TensorHandle* t_clone(const TensorHandle*);
TensorHandle* t_view(const TensorHandle*, const std::int64_t* sizes, std::size_t n, bool reshape);
TensorHandle* t_transpose(const TensorHandle*, std::int64_t a, std::int64_t b);
TensorHandle* t_permute(const TensorHandle*, const std::int64_t* dims, std::size_t n);
TensorHandle* t_unsqueeze(const TensorHandle*, std::int64_t d);
TensorHandle* t_squeeze(const TensorHandle*, std::int64_t d, bool all);
TensorHandle* t_narrow(const TensorHandle*, std::int64_t d, std::int64_t start, std::int64_t len);
TensorHandle* t_select(const TensorHandle*, std::int64_t d, std::int64_t index);
TensorHandle* t_flatten(const TensorHandle*, std::int64_t start, std::int64_t end);
TensorHandle* t_expand(const TensorHandle*, const std::int64_t* sizes, std::size_t n);
void t_fill(TensorHandle*, double value);
void t_copy(TensorHandle* dst, const TensorHandle* src);
// Library compute: the matrix products a hybrid wrapper hands to cuBLAS through torch, done here
// by ATen on the host and counted per run (library_calls_in_run, runtime/cpu/emulator.h), so that a
// spec's gate "no library compute" sees them. `bias` of t_linear may be null.
TensorHandle* t_matmul(const TensorHandle* a, const TensorHandle* b);
TensorHandle* t_mm(const TensorHandle* a, const TensorHandle* b);
TensorHandle* t_bmm(const TensorHandle* a, const TensorHandle* b);
TensorHandle* t_addmm(const TensorHandle* c, const TensorHandle* a, const TensorHandle* b, double beta, double alpha);
TensorHandle* t_linear(const TensorHandle* x, const TensorHandle* w, const TensorHandle* bias);
// The rest of what host wrappers compute with torch around their kernels (a loss's final mean,
// a norm's statistics, `1 - x`): done by ATen on the host, as the same ATen operators would do it on
// a GPU, and not library compute (docs/ORACLES.md, "Gates"). `n == 0` dims: all of them;
// `correction` is var's and std's: 1, unbiased; 0, not.
enum class Reduce : int { Sum, Mean, Var, Std, Amax, Amin };
enum class Binary : int { Add, Sub, Mul, Div, Pow, Max, Min };
enum class Unary : int { Neg, Sqrt, Rsqrt, Exp, Log, Abs, Tanh, Sigmoid, Relu };
enum class ScalarKind : int { Floating, Integral, Boolean };
TensorHandle* t_reduce(const TensorHandle*, int kind, const std::int64_t* dims, std::size_t n, bool keepdim, int correction);
TensorHandle* t_binary(const TensorHandle* a, const TensorHandle* b, int op);
// A scalar operand as c10::Scalar holds it: `d` when Floating, `i` otherwise (ScalarKind). Tensor
// op scalar, and scalar + or * tensor, are ATen's Tensor-Scalar overloads (a wrapped number);
// scalar - or / tensor are as ATen's operators compute them: a tensor like the operand filled with
// the scalar, then the in-place operation (ATen/TensorOperators.h).
TensorHandle* t_binary_scalar(const TensorHandle* a, double d, std::int64_t i, int kind, int op, bool scalar_first);
TensorHandle* t_unary(const TensorHandle*, int op);

}  // namespace kaudit::rt
