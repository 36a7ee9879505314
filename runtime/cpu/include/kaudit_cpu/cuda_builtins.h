// CUDA device-side language support for the CPU backend: qualifiers, built-in variables, vector
// types, math intrinsics, __half, atomics, barriers and warp collectives. Kernel code compiled by
// runtime/cpu/compile.cpp sees these in place of the CUDA headers.
#pragma once
#include <cfloat>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "kaudit_cpu/abi.h"

// CUDA's math API declares these at global scope for host and device code; kernels call them
// unqualified (isinf(x) in a template, where no argument-dependent lookup finds std's).
using std::isfinite;
using std::isinf;
using std::isnan;
using std::signbit;
// CUDA declares abs for float and double at global scope (fabsf, fabs); C's ::abs takes an int, so
// without these `abs(diff)` on a float would truncate (a public HuberLoss solution computes so).
using std::abs;

// ---- qualifiers -------------------------------------------------------------------------------
#define __global__
#define __device__
#define __host__
#define __forceinline__ inline __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))
#define __launch_bounds__(...)
#define __align__(n) __attribute__((aligned(n)))
#define __constant__
#define __managed__
#define __grid_constant__
// Static __shared__ variables live in the kernel library's thread-local storage: every block runs
// all its threads on one OS thread, blocks on different OS threads get separate copies, and the
// runtime fills that TLS block (between its guards, laid out as a GPU's shared-memory window:
// runtime/cpu/shared_window.h) with the poison pattern before each block starts, when the
// kernel's own text declares shared memory (the lowering pass records it, so no header here or
// in stubs/ may declare any: tests/runtime/lower_test.cpp checks the stubs).
// (`extern __shared__` is rewritten by the lowering pass; see runtime/cpu/lower.cpp.)
#define __shared__ static thread_local
#define __CUDACC__ 1
#define __CUDA_ARCH__ 900
#define __NVCC__ 1
#define CUDART_VERSION 13000
#define CUDA_VERSION 13000

// ---- vector types -----------------------------------------------------------------------------
#define KAUDIT_VEC2(T, N, A) struct __attribute__((aligned(A))) N { T x, y; };
#define KAUDIT_VEC3(T, N) struct N { T x, y, z; };
#define KAUDIT_VEC4(T, N, A) struct __attribute__((aligned(A))) N { T x, y, z, w; };
KAUDIT_VEC2(float, float2, 8) KAUDIT_VEC3(float, float3) KAUDIT_VEC4(float, float4, 16)
KAUDIT_VEC2(double, double2, 16) KAUDIT_VEC3(double, double3) KAUDIT_VEC4(double, double4, 32)
KAUDIT_VEC2(int, int2, 8) KAUDIT_VEC3(int, int3) KAUDIT_VEC4(int, int4, 16)
KAUDIT_VEC2(unsigned int, uint2, 8) KAUDIT_VEC4(unsigned int, uint4, 16)
KAUDIT_VEC2(long long, longlong2, 16) KAUDIT_VEC2(unsigned long long, ulonglong2, 16)
KAUDIT_VEC2(short, short2, 4) KAUDIT_VEC4(short, short4, 8)
KAUDIT_VEC2(unsigned short, ushort2, 4) KAUDIT_VEC4(unsigned short, ushort4, 8)
KAUDIT_VEC2(signed char, char2, 2) KAUDIT_VEC4(signed char, char4, 4)
KAUDIT_VEC2(unsigned char, uchar2, 2) KAUDIT_VEC4(unsigned char, uchar4, 4)
#undef KAUDIT_VEC2
#undef KAUDIT_VEC3
#undef KAUDIT_VEC4
using uint3 = ::kaudit::rt::uint3_;  // the type of threadIdx and the others (abi.h)
struct dim3 {
  unsigned int x, y, z;
  constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1) : x(vx), y(vy), z(vz) {}
  constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
  constexpr operator uint3() const { return uint3{x, y, z}; }
};
inline float2 make_float2(float x, float y) { return {x, y}; }
inline float3 make_float3(float x, float y, float z) { return {x, y, z}; }
inline float4 make_float4(float x, float y, float z, float w) { return {x, y, z, w}; }
inline double2 make_double2(double x, double y) { return {x, y}; }
inline int2 make_int2(int x, int y) { return {x, y}; }
inline int3 make_int3(int x, int y, int z) { return {x, y, z}; }
inline int4 make_int4(int x, int y, int z, int w) { return {x, y, z, w}; }
inline uint2 make_uint2(unsigned x, unsigned y) { return {x, y}; }
inline uint4 make_uint4(unsigned x, unsigned y, unsigned z, unsigned w) { return {x, y, z, w}; }
inline uint3 make_uint3(unsigned x, unsigned y, unsigned z) { return {x, y, z}; }

// ---- built-in variables -----------------------------------------------------------------------
// threadIdx, blockIdx, blockDim and gridDim are the runtime's variables (kaudit_cpu/abi.h), of
// type uint3 (the runtime's uint3_ is CUDA's uint3 here).
constexpr int warpSize = 32;

// ---- math ---------------------------------------------------------------------------------------
// CUDA's min/max overloads for every arithmetic pair (floating: NaN-ignoring like fminf/fmaxf).
template <class A, class B, class = std::enable_if_t<std::is_arithmetic_v<A> && std::is_arithmetic_v<B>>>
inline std::common_type_t<A, B> min(A a, B b) {
  using C = std::common_type_t<A, B>;
  if constexpr (std::is_floating_point_v<C>) return std::fmin(C(a), C(b));
  else return C(b) < C(a) ? C(b) : C(a);
}
template <class A, class B, class = std::enable_if_t<std::is_arithmetic_v<A> && std::is_arithmetic_v<B>>>
inline std::common_type_t<A, B> max(A a, B b) {
  using C = std::common_type_t<A, B>;
  if constexpr (std::is_floating_point_v<C>) return std::fmax(C(a), C(b));
  else return C(a) < C(b) ? C(b) : C(a);
}
inline float rsqrtf(float x) { return 1.0f / sqrtf(x); }
inline double rsqrt(double x) { return 1.0 / std::sqrt(x); }
inline float rcbrtf(float x) { return 1.0f / cbrtf(x); }
inline float normcdff(float x) { return 0.5f * erfcf(-x * 0.70710678118654752f); }
inline double normcdf(double x) { return 0.5 * std::erfc(-x * 0.70710678118654752); }
inline float __saturatef(float x) { return x != x ? 0.0f : fminf(fmaxf(x, 0.0f), 1.0f); }
// Fast intrinsics reproduce the GPU's main error source: the float rounding of the scaled argument
// before the hardware ex2/lg2 approximation (that is what makes __expf differ from expf for large |x|).
inline float __expf(float x) { float t = x * 1.44269504088896341f; return exp2f(t); }
inline float __exp10f(float x) { float t = x * 3.32192809488736235f; return exp2f(t); }
inline float __logf(float x) { return log2f(x) * 0.693147180559945309f; }
inline float __log2f(float x) { return log2f(x); }
inline float __log10f(float x) { return log2f(x) * 0.301029995663981195f; }
inline float __powf(float a, float b) { float t = b * log2f(a); return exp2f(t); }
inline float __sinf(float x) { return sinf(x); }
inline float __cosf(float x) { return cosf(x); }
inline float __tanf(float x) { return sinf(x) / cosf(x); }
inline void __sincosf(float x, float* s, float* c) { *s = sinf(x); *c = cosf(x); }
inline float __tanhf(float x) { return tanhf(x); }
// __fdividef: a * approx(1/b), and 0 when 2^126 < |b| < 2^128 (documented CUDA behaviour).
inline float __fdividef(float a, float b) {
  float ab = fabsf(b);
  if (ab > 8.50705917e+37f && ab < 3.40282347e+38f) return 0.0f;
  float r = 1.0f / b;
  return a * r;
}
inline float fdividef(float a, float b) { return a / b; }
inline float __frcp_rn(float x) { return 1.0f / x; }
inline float __fsqrt_rn(float x) { return sqrtf(x); }
inline float __frsqrt_rn(float x) { return 1.0f / sqrtf(x); }
inline float __fdiv_rn(float a, float b) { return a / b; }
inline float __fmul_rn(float a, float b) { return a * b; }
inline float __fadd_rn(float a, float b) { return a + b; }
inline float __fsub_rn(float a, float b) { return a - b; }
inline float __fmaf_rn(float a, float b, float c) { return fmaf(a, b, c); }
inline double __dmul_rn(double a, double b) { return a * b; }
inline double __dadd_rn(double a, double b) { return a + b; }
inline double __fma_rn(double a, double b, double c) { return std::fma(a, b, c); }
inline int __float2int_rn(float x) { return (int)nearbyintf(x); }
inline int __float2int_rz(float x) { return (int)x; }
inline int __float2int_rd(float x) { return (int)floorf(x); }
inline int __float2int_ru(float x) { return (int)ceilf(x); }
inline float __int2float_rn(int x) { return (float)x; }
inline float __uint2float_rn(unsigned x) { return (float)x; }
inline int __float_as_int(float x) { int i; std::memcpy(&i, &x, 4); return i; }
inline unsigned __float_as_uint(float x) { unsigned i; std::memcpy(&i, &x, 4); return i; }
inline float __int_as_float(int i) { float x; std::memcpy(&x, &i, 4); return x; }
inline float __uint_as_float(unsigned i) { float x; std::memcpy(&x, &i, 4); return x; }
inline long long __double_as_longlong(double x) { long long i; std::memcpy(&i, &x, 8); return i; }
inline double __longlong_as_double(long long i) { double x; std::memcpy(&x, &i, 8); return x; }
inline int __popc(unsigned x) { return __builtin_popcount(x); }
inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
inline int __clz(int x) { return x == 0 ? 32 : __builtin_clz((unsigned)x); }
inline int __clzll(long long x) { return x == 0 ? 64 : __builtin_clzll((unsigned long long)x); }
inline int __ffs(int x) { return __builtin_ffs(x); }
inline int __ffsll(long long x) { return __builtin_ffsll(x); }
inline unsigned __brev(unsigned x) {
  unsigned r = 0;
  for (int i = 0; i < 32; ++i) r |= ((x >> i) & 1u) << (31 - i);
  return r;
}
inline int __mul24(int a, int b) { return (int)((long long)((a << 8) >> 8) * ((b << 8) >> 8)); }
inline unsigned __umul24(unsigned a, unsigned b) { return (a & 0xffffffu) * (b & 0xffffffu); }
inline int __mulhi(int a, int b) { return (int)(((long long)a * b) >> 32); }
inline unsigned __umulhi(unsigned a, unsigned b) { return (unsigned)(((unsigned long long)a * b) >> 32); }
inline unsigned __sad(int a, int b, unsigned c) { return c + (unsigned)(a > b ? a - b : b - a); }
template <class T> inline T __ldg(const T* p) { return *p; }
template <class T> inline T __ldcg(const T* p) { return *p; }
template <class T> inline T __ldca(const T* p) { return *p; }
template <class T> inline T __ldcs(const T* p) { return *p; }
template <class T> inline T __ldlu(const T* p) { return *p; }
template <class T> inline T __ldcv(const T* p) { return *p; }
template <class T> inline void __stcg(T* p, T v) { *p = v; }
template <class T> inline void __stcs(T* p, T v) { *p = v; }
template <class T> inline void __stwb(T* p, T v) { *p = v; }
inline void __threadfence() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
inline void __threadfence_block() { __atomic_signal_fence(__ATOMIC_SEQ_CST); }
inline void __threadfence_system() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
inline void __trap() { ::kaudit::rt::trap("__trap() called"); }
inline void __brkpt() { ::kaudit::rt::trap("__brkpt() called"); }
inline long long clock64() { return 0; }
inline void __nanosleep(unsigned) {}
#define __builtin_assume(x) ((void)0)
#define CUDART_INF_F __int_as_float(0x7f800000)
#define CUDART_NAN_F __int_as_float(0x7fffffff)
#define CUDART_PI_F 3.141592654f
#define CUDART_INF __longlong_as_double(0x7ff0000000000000LL)

// ---- barriers and warp collectives --------------------------------------------------------------
// A step point (lowering: around the statements of device code that touch shared memory or load
// from global memory, in a TU run on fibers): in oracle mode the other warps of the block take
// their turn here (runtime/cpu/emulator.h).
#define KAUDIT_STEP(kind) (__builtin_expect(::kaudit::rt::step_points_enabled, 0) ? ::kaudit::rt::step(kind) : (void)0)
#define __syncthreads() (::kaudit::rt::syncthreads(__LINE__, 1, 0), (void)0)
#define __syncthreads_count(p) ::kaudit::rt::syncthreads(__LINE__, (p) ? 1 : 0, 1)
#define __syncthreads_and(p) ::kaudit::rt::syncthreads(__LINE__, (p) ? 1 : 0, 2)
#define __syncthreads_or(p) ::kaudit::rt::syncthreads(__LINE__, (p) ? 1 : 0, 3)
inline void __syncwarp(unsigned mask = 0xffffffffu) {
  ::kaudit::rt::warp_collective(::kaudit::rt::WarpOp::Sync, mask, 0, 0, 32, false);
}
namespace kaudit::detail {
template <class T>
inline T shuffle(::kaudit::rt::WarpOp op, unsigned mask, T var, int param, int width) {
  static_assert(std::is_trivially_copyable_v<T> && sizeof(T) <= 8, "shuffle of a type wider than 8 bytes");
  std::uint64_t bits = 0;
  std::memcpy(&bits, &var, sizeof(T));
  bits = ::kaudit::rt::warp_collective(op, mask, bits, param, width, false);
  T out;
  std::memcpy(&out, &bits, sizeof(T));
  return out;
}
template <class T>
inline T reduce(::kaudit::rt::WarpOp op, unsigned mask, T v) {
  return (T)::kaudit::rt::warp_collective(op, mask, (std::uint64_t)(std::int64_t)v, 0, 32,
                                          std::is_signed_v<T>);
}
}  // namespace kaudit::detail
template <class T> inline T __shfl_sync(unsigned mask, T var, int src, int width = 32) {
  return ::kaudit::detail::shuffle(::kaudit::rt::WarpOp::ShflIdx, mask, var, src, width);
}
template <class T> inline T __shfl_up_sync(unsigned mask, T var, unsigned delta, int width = 32) {
  return ::kaudit::detail::shuffle(::kaudit::rt::WarpOp::ShflUp, mask, var, (int)delta, width);
}
template <class T> inline T __shfl_down_sync(unsigned mask, T var, unsigned delta, int width = 32) {
  return ::kaudit::detail::shuffle(::kaudit::rt::WarpOp::ShflDown, mask, var, (int)delta, width);
}
template <class T> inline T __shfl_xor_sync(unsigned mask, T var, int lane_mask, int width = 32) {
  return ::kaudit::detail::shuffle(::kaudit::rt::WarpOp::ShflXor, mask, var, lane_mask, width);
}
inline unsigned __ballot_sync(unsigned mask, int pred) {
  return (unsigned)::kaudit::rt::warp_collective(::kaudit::rt::WarpOp::Ballot, mask, pred != 0, 0, 32, false);
}
inline int __any_sync(unsigned mask, int pred) {
  return (int)::kaudit::rt::warp_collective(::kaudit::rt::WarpOp::Any, mask, pred != 0, 0, 32, false);
}
inline int __all_sync(unsigned mask, int pred) {
  return (int)::kaudit::rt::warp_collective(::kaudit::rt::WarpOp::All, mask, pred != 0, 0, 32, false);
}
inline unsigned __activemask() { return ::kaudit::rt::activemask(); }
inline unsigned __reduce_add_sync(unsigned m, unsigned v) { return ::kaudit::detail::reduce(::kaudit::rt::WarpOp::ReduceAdd, m, v); }
inline int __reduce_add_sync(unsigned m, int v) { return ::kaudit::detail::reduce(::kaudit::rt::WarpOp::ReduceAdd, m, v); }
inline unsigned __reduce_min_sync(unsigned m, unsigned v) { return ::kaudit::detail::reduce(::kaudit::rt::WarpOp::ReduceMin, m, v); }
inline int __reduce_min_sync(unsigned m, int v) { return ::kaudit::detail::reduce(::kaudit::rt::WarpOp::ReduceMin, m, v); }
inline unsigned __reduce_max_sync(unsigned m, unsigned v) { return ::kaudit::detail::reduce(::kaudit::rt::WarpOp::ReduceMax, m, v); }
inline int __reduce_max_sync(unsigned m, int v) { return ::kaudit::detail::reduce(::kaudit::rt::WarpOp::ReduceMax, m, v); }
inline unsigned __reduce_and_sync(unsigned m, unsigned v) { return ::kaudit::detail::reduce(::kaudit::rt::WarpOp::ReduceAnd, m, v); }
inline unsigned __reduce_or_sync(unsigned m, unsigned v) { return ::kaudit::detail::reduce(::kaudit::rt::WarpOp::ReduceOr, m, v); }
inline unsigned __reduce_xor_sync(unsigned m, unsigned v) { return ::kaudit::detail::reduce(::kaudit::rt::WarpOp::ReduceXor, m, v); }

// ---- atomics (real atomics: blocks run in parallel on several OS threads) ----------------------
namespace kaudit::detail {
template <class T, class F>
inline T atomic_update(T* addr, F f) {
  using Bits = std::conditional_t<sizeof(T) == 2, std::uint16_t,
               std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>>;
  Bits* b = reinterpret_cast<Bits*>(addr);
  Bits old_bits = __atomic_load_n(b, __ATOMIC_SEQ_CST);
  for (;;) {
    T old_val;
    std::memcpy(&old_val, &old_bits, sizeof(T));
    T new_val = f(old_val);
    Bits new_bits;
    std::memcpy(&new_bits, &new_val, sizeof(T));
    if (__atomic_compare_exchange_n(b, &old_bits, new_bits, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
      return old_val;
  }
}
}  // namespace kaudit::detail
#define KAUDIT_ATOMIC_INT(T)                                                                       \
  inline T atomicAdd(T* a, T v) { return __atomic_fetch_add(a, v, __ATOMIC_SEQ_CST); }            \
  inline T atomicSub(T* a, T v) { return __atomic_fetch_sub(a, v, __ATOMIC_SEQ_CST); }            \
  inline T atomicExch(T* a, T v) { return __atomic_exchange_n(a, v, __ATOMIC_SEQ_CST); }          \
  inline T atomicAnd(T* a, T v) { return __atomic_fetch_and(a, v, __ATOMIC_SEQ_CST); }            \
  inline T atomicOr(T* a, T v) { return __atomic_fetch_or(a, v, __ATOMIC_SEQ_CST); }              \
  inline T atomicXor(T* a, T v) { return __atomic_fetch_xor(a, v, __ATOMIC_SEQ_CST); }            \
  inline T atomicMin(T* a, T v) { return ::kaudit::detail::atomic_update(a, [v](T o) { return v < o ? v : o; }); } \
  inline T atomicMax(T* a, T v) { return ::kaudit::detail::atomic_update(a, [v](T o) { return v > o ? v : o; }); } \
  inline T atomicCAS(T* a, T cmp, T v) {                                                          \
    __atomic_compare_exchange_n(a, &cmp, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);           \
    return cmp;                                                                                   \
  }
KAUDIT_ATOMIC_INT(int)
KAUDIT_ATOMIC_INT(unsigned int)
KAUDIT_ATOMIC_INT(unsigned long long)
KAUDIT_ATOMIC_INT(long long)
#undef KAUDIT_ATOMIC_INT
inline unsigned short atomicCAS(unsigned short* a, unsigned short cmp, unsigned short v) {
  __atomic_compare_exchange_n(a, &cmp, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
  return cmp;
}
inline float atomicAdd(float* a, float v) { return ::kaudit::detail::atomic_update(a, [v](float o) { return o + v; }); }
inline double atomicAdd(double* a, double v) { return ::kaudit::detail::atomic_update(a, [v](double o) { return o + v; }); }
inline float atomicSub(float* a, float v) { return ::kaudit::detail::atomic_update(a, [v](float o) { return o - v; }); }
inline float atomicExch(float* a, float v) { return ::kaudit::detail::atomic_update(a, [v](float) { return v; }); }
inline float atomicMax(float* a, float v) { return ::kaudit::detail::atomic_update(a, [v](float o) { return fmaxf(o, v); }); }
inline float atomicMin(float* a, float v) { return ::kaudit::detail::atomic_update(a, [v](float o) { return fminf(o, v); }); }
inline unsigned atomicInc(unsigned* a, unsigned lim) {
  return ::kaudit::detail::atomic_update(a, [lim](unsigned o) { return o >= lim ? 0u : o + 1u; });
}
inline unsigned atomicDec(unsigned* a, unsigned lim) {
  return ::kaudit::detail::atomic_update(a, [lim](unsigned o) { return (o == 0u || o > lim) ? lim : o - 1u; });
}
#define KAUDIT_ATOMIC_SCOPES(name)                                                              \
  template <class... A> inline auto name##_block(A... a) { return name(a...); }                \
  template <class... A> inline auto name##_system(A... a) { return name(a...); }
KAUDIT_ATOMIC_SCOPES(atomicAdd)
KAUDIT_ATOMIC_SCOPES(atomicMax)
KAUDIT_ATOMIC_SCOPES(atomicMin)
KAUDIT_ATOMIC_SCOPES(atomicExch)
KAUDIT_ATOMIC_SCOPES(atomicCAS)
#undef KAUDIT_ATOMIC_SCOPES

#include "kaudit_cpu/half.h"
