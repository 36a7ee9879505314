// kaudit parse prelude: what a corpus kernel needs to be *parsed* (never compiled or run) by
// Clang 19 as CUDA without the CUDA toolkit headers and without libtorch.
//
// It is force-included (-include) ahead of every kernel, and the headers a KernelBench solution
// includes (<torch/extension.h>, <cuda_runtime.h>, <cuda_fp16.h>, <ATen/cuda/CUDAContext.h>, ...)
// are mapped to empty stand-ins that include this file again (see parse.cpp). Everything is
// declaration-only: the parse needs types and overload sets, not bodies.
//
// Rules never fire on code in this file (site finding keeps main-file locations only), so the
// names here may be changed freely as long as the corpus still parses.
#ifndef KAUDIT_CUDA_PARSE_PRELUDE_H
#define KAUDIT_CUDA_PARSE_PRELUDE_H

// ---- execution-space and storage attributes, as Clang spells them ------------------------------
#define __host__ __attribute__((host))
#define __device__ __attribute__((device))
#define __global__ __attribute__((global))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
#define __managed__ __attribute__((managed))
#define __forceinline__ __inline__ __attribute__((always_inline))
#define __launch_bounds__(...) __attribute__((launch_bounds(__VA_ARGS__)))
#define __restrict__ __restrict
#define __align__(n) __attribute__((aligned(n)))
#define __CUDACC__ 1
#define __NVCC__ 1
#define CUDART_VERSION 12040
#define __CUDA_ARCH_LIST__ 900

// ---- fixed-width integers (no system headers: the parse is hermetic) ---------------------------
typedef __SIZE_TYPE__ size_t;
typedef __PTRDIFF_TYPE__ ptrdiff_t;
typedef __INT8_TYPE__ int8_t;
typedef __INT16_TYPE__ int16_t;
typedef __INT32_TYPE__ int32_t;
typedef __INT64_TYPE__ int64_t;
typedef __UINT8_TYPE__ uint8_t;
typedef __UINT16_TYPE__ uint16_t;
typedef __UINT32_TYPE__ uint32_t;
typedef __UINT64_TYPE__ uint64_t;
typedef __INTPTR_TYPE__ intptr_t;
typedef __UINTPTR_TYPE__ uintptr_t;
typedef __INTMAX_TYPE__ intmax_t;
typedef __UINTMAX_TYPE__ uintmax_t;
typedef __INT_LEAST8_TYPE__ int_least8_t;
typedef __INT_LEAST16_TYPE__ int_least16_t;
typedef __INT_LEAST32_TYPE__ int_least32_t;
typedef __INT_LEAST64_TYPE__ int_least64_t;
typedef __UINT_LEAST8_TYPE__ uint_least8_t;
typedef __UINT_LEAST16_TYPE__ uint_least16_t;
typedef __UINT_LEAST32_TYPE__ uint_least32_t;
typedef __UINT_LEAST64_TYPE__ uint_least64_t;
typedef __INT_FAST8_TYPE__ int_fast8_t;
typedef __INT_FAST16_TYPE__ int_fast16_t;
typedef __INT_FAST32_TYPE__ int_fast32_t;
typedef __INT_FAST64_TYPE__ int_fast64_t;
typedef __UINT_FAST8_TYPE__ uint_fast8_t;
typedef __UINT_FAST16_TYPE__ uint_fast16_t;
typedef __UINT_FAST32_TYPE__ uint_fast32_t;
typedef __UINT_FAST64_TYPE__ uint_fast64_t;
#define offsetof(type, member) __builtin_offsetof(type, member)
namespace std {
using ::intmax_t;
using ::uintmax_t;
using ::int_least32_t;
using ::int_fast32_t;
using ::int16_t;
using ::int32_t;
using ::int64_t;
using ::int8_t;
using ::ptrdiff_t;
using ::size_t;
using ::uint16_t;
using ::uint32_t;
using ::uint64_t;
using ::uint8_t;
using ::uintptr_t;
}  // namespace std
#define INT8_MAX __INT8_MAX__
#define INT16_MAX __INT16_MAX__
#define INT32_MAX __INT32_MAX__
#define INT64_MAX __INT64_MAX__
#define INT8_MIN (-INT8_MAX - 1)
#define INT16_MIN (-INT16_MAX - 1)
#define INT32_MIN (-INT32_MAX - 1)
#define INT64_MIN (-INT64_MAX - 1)
#define UINT8_MAX __UINT8_MAX__
#define UINT16_MAX __UINT16_MAX__
#define UINT32_MAX __UINT32_MAX__
#define UINT64_MAX __UINT64_MAX__
#define SIZE_MAX __SIZE_MAX__
#define INTPTR_MAX __INTPTR_MAX__
#define INTPTR_MIN (-INTPTR_MAX - 1)
#define UINTPTR_MAX __UINTPTR_MAX__
#define INTMAX_MAX __INTMAX_MAX__
#define INTMAX_MIN (-INTMAX_MAX - 1)
#define UINTMAX_MAX __UINTMAX_MAX__
#define PTRDIFF_MAX __PTRDIFF_MAX__
#define PTRDIFF_MIN (-PTRDIFF_MAX - 1)
#define INT8_C(x) x
#define INT16_C(x) x
#define INT32_C(x) x
#define INT64_C(x) x##LL
#define UINT8_C(x) x
#define UINT16_C(x) x
#define UINT32_C(x) x##U
#define UINT64_C(x) x##ULL
// <climits> and <cfloat>, from the compiler's own predefined values.
#define CHAR_BIT __CHAR_BIT__
#define SCHAR_MAX __SCHAR_MAX__
#define SCHAR_MIN (-SCHAR_MAX - 1)
#define UCHAR_MAX (SCHAR_MAX * 2 + 1)
#define CHAR_MAX SCHAR_MAX
#define CHAR_MIN SCHAR_MIN
#define SHRT_MAX __SHRT_MAX__
#define SHRT_MIN (-SHRT_MAX - 1)
#define USHRT_MAX (SHRT_MAX * 2 + 1)
#define INT_MAX __INT_MAX__
#define INT_MIN (-__INT_MAX__ - 1)
#define UINT_MAX (__INT_MAX__ * 2U + 1U)
#define LONG_MAX __LONG_MAX__
#define LONG_MIN (-LONG_MAX - 1L)
#define ULONG_MAX (LONG_MAX * 2UL + 1UL)
#define LLONG_MAX __LONG_LONG_MAX__
#define LLONG_MIN (-LLONG_MAX - 1LL)
#define ULLONG_MAX (LLONG_MAX * 2ULL + 1ULL)
#define FLT_MAX __FLT_MAX__
#define FLT_MIN __FLT_MIN__
#define FLT_EPSILON __FLT_EPSILON__
#define FLT_DIG __FLT_DIG__
#define FLT_MANT_DIG __FLT_MANT_DIG__
#define FLT_TRUE_MIN __FLT_DENORM_MIN__
#define DBL_MAX __DBL_MAX__
#define DBL_MIN __DBL_MIN__
#define DBL_EPSILON __DBL_EPSILON__
#define DBL_DIG __DBL_DIG__
#define DBL_MANT_DIG __DBL_MANT_DIG__
#define INFINITY (__builtin_inff())
#define NAN (__builtin_nanf(""))

// ---- vector types and dim3 ---------------------------------------------------------------------
struct uint3 {
  unsigned int x, y, z;
};
struct dim3 {
  unsigned int x, y, z;
  __host__ __device__ constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1)
      : x(vx), y(vy), z(vz) {}
  __host__ __device__ constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
  __host__ __device__ constexpr operator uint3() const { return uint3{x, y, z}; }
};
#define KAUDIT_VEC2(T, N) \
  struct __attribute__((aligned(2 * sizeof(T)))) N##2 { T x, y; };
#define KAUDIT_VEC4(T, N) \
  struct __attribute__((aligned(4 * sizeof(T)))) N##4 { T x, y, z, w; };
KAUDIT_VEC2(float, float)
KAUDIT_VEC4(float, float)
KAUDIT_VEC2(int, int)
KAUDIT_VEC4(int, int)
KAUDIT_VEC2(unsigned int, uint)
KAUDIT_VEC4(unsigned int, uint)
KAUDIT_VEC2(double, double)
KAUDIT_VEC2(long long, longlong)
#undef KAUDIT_VEC2
#undef KAUDIT_VEC4
struct float3 {
  float x, y, z;
};
struct int3 {
  int x, y, z;
};
struct double4 {
  double x, y, z, w;
} __attribute__((aligned(16)));
__host__ __device__ float2 make_float2(float x, float y);
__host__ __device__ float3 make_float3(float x, float y, float z);
__host__ __device__ float4 make_float4(float x, float y, float z, float w);
__host__ __device__ int2 make_int2(int x, int y);
__host__ __device__ int4 make_int4(int x, int y, int z, int w);
__host__ __device__ uint3 make_uint3(unsigned int x, unsigned int y, unsigned int z);
__host__ __device__ int3 make_int3(int x, int y, int z);
__host__ __device__ uint2 make_uint2(unsigned int x, unsigned int y);
__host__ __device__ uint4 make_uint4(unsigned int x, unsigned int y, unsigned int z, unsigned int w);
__host__ __device__ double2 make_double2(double x, double y);
__host__ __device__ longlong2 make_longlong2(long long x, long long y);

// threadIdx, blockIdx, blockDim, gridDim (MSPropertyRefExpr members) and warpSize, from Clang's
// resource directory.
#include <__clang_cuda_builtin_vars.h>

// ---- runtime API (host) ------------------------------------------------------------------------
enum cudaError_t {
  cudaSuccess = 0,
  cudaErrorInvalidValue = 1,
  cudaErrorMemoryAllocation = 2,
  cudaErrorLaunchFailure = 719,
};
typedef cudaError_t cudaError;
struct CUstream_st;
typedef CUstream_st* cudaStream_t;
enum cudaMemcpyKind {
  cudaMemcpyHostToHost = 0,
  cudaMemcpyHostToDevice = 1,
  cudaMemcpyDeviceToHost = 2,
  cudaMemcpyDeviceToDevice = 3,
  cudaMemcpyDefault = 4,
};
// The kernel-launch configuration functions Sema looks up for <<<...>>> (the legacy and the
// CUDA >= 9.2 spelling; which one is used depends on the detected toolkit version).
extern "C" int cudaConfigureCall(dim3 gridSize, dim3 blockSize, size_t sharedSize = 0,
                                 cudaStream_t stream = 0);
extern "C" unsigned __cudaPushCallConfiguration(dim3 gridDim, dim3 blockDim, size_t sharedMem = 0,
                                                void* stream = 0);
cudaError_t cudaGetLastError();
cudaError_t cudaPeekAtLastError();
cudaError_t cudaDeviceSynchronize();
cudaError_t cudaStreamSynchronize(cudaStream_t stream);
const char* cudaGetErrorString(cudaError_t error);
cudaError_t cudaMemset(void* ptr, int value, size_t count);
cudaError_t cudaMemsetAsync(void* ptr, int value, size_t count, cudaStream_t stream = 0);
cudaError_t cudaMemcpy(void* dst, const void* src, size_t count, cudaMemcpyKind kind);
cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t count, cudaMemcpyKind kind,
                            cudaStream_t stream = 0);
cudaError_t cudaMalloc(void** ptr, size_t size);
cudaError_t cudaFree(void* ptr);
template <typename T>
cudaError_t cudaMemcpyToSymbol(const T& symbol, const void* src, size_t count, size_t offset = 0,
                               cudaMemcpyKind kind = cudaMemcpyHostToDevice);
template <typename T>
cudaError_t cudaMemcpyToSymbolAsync(const T& symbol, const void* src, size_t count, size_t offset = 0,
                                    cudaMemcpyKind kind = cudaMemcpyHostToDevice, cudaStream_t stream = 0);
template <typename T>
cudaError_t cudaMemcpyFromSymbol(void* dst, const T& symbol, size_t count, size_t offset = 0,
                                 cudaMemcpyKind kind = cudaMemcpyDeviceToHost);
// Events, devices, streams, attributes and occupancy: what host wrappers time, query and tune with.
struct CUevent_st;
typedef CUevent_st* cudaEvent_t;
enum cudaDeviceAttr { cudaDevAttrMaxThreadsPerBlock = 1, cudaDevAttrMultiProcessorCount = 16 };
enum cudaFuncAttribute { cudaFuncAttributeMaxDynamicSharedMemorySize = 8 };
struct cudaFuncAttributes {
  size_t sharedSizeBytes;
  int maxThreadsPerBlock;
  int numRegs;
};
struct cudaDeviceProp {
  char name[256];
  int multiProcessorCount;
  int maxThreadsPerBlock;
  int warpSize;
  size_t sharedMemPerBlock;
  int major, minor;
};
const char* cudaGetErrorName(cudaError_t error);
cudaError_t cudaGetDeviceCount(int* count);
cudaError_t cudaGetDevice(int* device);
cudaError_t cudaSetDevice(int device);
cudaError_t cudaDeviceGetAttribute(int* value, cudaDeviceAttr attr, int device);
cudaError_t cudaGetDeviceProperties(cudaDeviceProp* prop, int device);
cudaError_t cudaRuntimeGetVersion(int* version);
cudaError_t cudaMemGetInfo(size_t* free, size_t* total);
cudaError_t cudaStreamCreate(cudaStream_t* stream);
cudaError_t cudaStreamCreateWithFlags(cudaStream_t* stream, unsigned flags);
cudaError_t cudaStreamDestroy(cudaStream_t stream);
cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned flags = 0);
cudaError_t cudaEventCreate(cudaEvent_t* event);
cudaError_t cudaEventCreateWithFlags(cudaEvent_t* event, unsigned flags);
cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream = 0);
cudaError_t cudaEventSynchronize(cudaEvent_t event);
cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end);
cudaError_t cudaEventDestroy(cudaEvent_t event);
template <typename T>
cudaError_t cudaMalloc(T** ptr, size_t size);
template <typename T>
cudaError_t cudaMallocManaged(T** ptr, size_t size, unsigned flags = 1);
template <typename T>
cudaError_t cudaMallocHost(T** ptr, size_t size);
cudaError_t cudaFreeHost(void* ptr);
cudaError_t cudaFuncGetAttributes(cudaFuncAttributes* attr, const void* func);
template <typename F>
cudaError_t cudaFuncGetAttributes(cudaFuncAttributes* attr, F* func);
cudaError_t cudaFuncSetAttribute(const void* func, cudaFuncAttribute attr, int value);
template <typename F>
cudaError_t cudaFuncSetAttribute(F* func, cudaFuncAttribute attr, int value);
cudaError_t cudaLaunchKernel(const void* func, dim3 grid, dim3 block, void** args, size_t shared = 0,
                             cudaStream_t stream = 0);
template <typename F>
cudaError_t cudaLaunchKernel(F* func, dim3 grid, dim3 block, void** args, size_t shared = 0, cudaStream_t stream = 0);
template <typename F>
cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int* blocks, F func, int block_size, size_t shared);
template <typename F>
cudaError_t cudaOccupancyMaxPotentialBlockSize(int* min_grid, int* block_size, F func, size_t shared = 0,
                                               int limit = 0);
// Device and host printf.
extern "C" __host__ __device__ int printf(const char* format, ...);
// <cassert>: a failed device assert traps the kernel, a host one aborts.
__host__ __device__ void kaudit_assert_failed(const char* expression);
#ifdef NDEBUG
#define assert(e) static_cast<void>(0)
#else
#define assert(e) ((e) ? static_cast<void>(0) : kaudit_assert_failed(#e))
#endif

// ---- device intrinsics -------------------------------------------------------------------------
// __syncthreads is a Clang NVPTX builtin; the rest are declared here.
__device__ void __syncwarp(unsigned int mask = 0xffffffffu);
__device__ int __syncthreads_count(int predicate);
__device__ int __syncthreads_and(int predicate);
__device__ int __syncthreads_or(int predicate);
__device__ void __threadfence();
__device__ void __threadfence_block();
__device__ void __threadfence_system();
__device__ unsigned int __activemask();
__device__ unsigned int __ballot_sync(unsigned int mask, int predicate);
__device__ int __any_sync(unsigned int mask, int predicate);
__device__ int __all_sync(unsigned int mask, int predicate);
__device__ int __popc(unsigned int x);
__device__ int __popcll(unsigned long long x);
__device__ int __clz(int x);
__device__ int __ffs(int x);
__device__ unsigned int __brev(unsigned int x);
__device__ long long clock64();

#define KAUDIT_SHFL(T)                                                                         \
  __device__ T __shfl_sync(unsigned int mask, T var, int srcLane, int width = 32);            \
  __device__ T __shfl_up_sync(unsigned int mask, T var, unsigned int delta, int width = 32);  \
  __device__ T __shfl_down_sync(unsigned int mask, T var, unsigned int delta, int width = 32); \
  __device__ T __shfl_xor_sync(unsigned int mask, T var, int laneMask, int width = 32);       \
  __device__ T __ldg(const T* ptr);
KAUDIT_SHFL(int)
KAUDIT_SHFL(unsigned int)
KAUDIT_SHFL(long)
KAUDIT_SHFL(unsigned long)
KAUDIT_SHFL(long long)
KAUDIT_SHFL(unsigned long long)
KAUDIT_SHFL(float)
KAUDIT_SHFL(double)
#undef KAUDIT_SHFL
__device__ float4 __ldg(const float4* ptr);
__device__ float2 __ldg(const float2* ptr);

#define KAUDIT_ATOMIC(T)                                 \
  __device__ T atomicAdd(T* address, T val);             \
  __device__ T atomicSub(T* address, T val);             \
  __device__ T atomicExch(T* address, T val);            \
  __device__ T atomicMax(T* address, T val);             \
  __device__ T atomicMin(T* address, T val);             \
  __device__ T atomicCAS(T* address, T compare, T val);  \
  __device__ T atomicAnd(T* address, T val);             \
  __device__ T atomicOr(T* address, T val);              \
  __device__ T atomicXor(T* address, T val);
KAUDIT_ATOMIC(int)
KAUDIT_ATOMIC(unsigned int)
KAUDIT_ATOMIC(unsigned long long)
#undef KAUDIT_ATOMIC
__device__ float atomicAdd(float* address, float val);
__device__ double atomicAdd(double* address, double val);
__device__ float atomicExch(float* address, float val);
__device__ long long atomicMax(long long* address, long long val);
__device__ long long atomicMin(long long* address, long long val);

// ---- math: standard functions (host and device) and the fast device intrinsics -----------------
#define KAUDIT_MATH1(name)                  \
  __host__ __device__ float name##f(float); \
  __host__ __device__ double name(double);  \
  __host__ __device__ float name(float);
#define KAUDIT_MATH2(name)                         \
  __host__ __device__ float name##f(float, float); \
  __host__ __device__ double name(double, double); \
  __host__ __device__ float name(float, float);
KAUDIT_MATH1(exp)
KAUDIT_MATH1(exp2)
KAUDIT_MATH1(expm1)
KAUDIT_MATH1(log)
KAUDIT_MATH1(log2)
KAUDIT_MATH1(log10)
KAUDIT_MATH1(log1p)
KAUDIT_MATH1(sqrt)
KAUDIT_MATH1(rsqrt)
KAUDIT_MATH1(cbrt)
KAUDIT_MATH1(erf)
KAUDIT_MATH1(erfc)
KAUDIT_MATH1(tanh)
KAUDIT_MATH1(sinh)
KAUDIT_MATH1(cosh)
KAUDIT_MATH1(sin)
KAUDIT_MATH1(cos)
KAUDIT_MATH1(tan)
KAUDIT_MATH1(asin)
KAUDIT_MATH1(acos)
KAUDIT_MATH1(atan)
KAUDIT_MATH1(fabs)
KAUDIT_MATH1(floor)
KAUDIT_MATH1(ceil)
KAUDIT_MATH1(round)
KAUDIT_MATH1(trunc)
KAUDIT_MATH1(rint)
KAUDIT_MATH2(pow)
KAUDIT_MATH2(fmax)
KAUDIT_MATH2(fmin)
KAUDIT_MATH2(fmod)
KAUDIT_MATH2(atan2)
KAUDIT_MATH2(copysign)
KAUDIT_MATH2(hypot)
#undef KAUDIT_MATH1
#undef KAUDIT_MATH2
// pow with an integer exponent: an exact match, as libstdc++'s promoting overloads make it.
__host__ __device__ double pow(double, int);
__host__ __device__ float pow(float, int);
// <cmath>'s names in std.
namespace std {
using ::acos; using ::asin; using ::atan; using ::atan2; using ::cbrt; using ::ceil; using ::copysign;
using ::cos; using ::cosh; using ::erf; using ::erfc; using ::exp; using ::exp2; using ::expm1; using ::fabs;
using ::floor; using ::fmax; using ::fmin; using ::fmod; using ::hypot; using ::log; using ::log10;
using ::log1p; using ::log2; using ::pow; using ::rint; using ::round; using ::sin; using ::sinh; using ::sqrt;
using ::tan; using ::tanh; using ::trunc;
}  // namespace std
#define M_PI 3.14159265358979323846
#define M_E 2.7182818284590452354
#define M_LN2 0.69314718055994530942
#define M_SQRT2 1.41421356237309504880
#define M_SQRT1_2 0.70710678118654752440
#define M_2_SQRTPI 1.12837916709551257390
__host__ __device__ float fmaf(float, float, float);
__host__ __device__ double fma(double, double, double);
__host__ __device__ float fma(float, float, float);
__host__ __device__ float rcbrtf(float);
__host__ __device__ float normcdff(float);
__host__ __device__ float ldexpf(float, int);
__host__ __device__ bool isnan(float);
__host__ __device__ bool isnan(double);
__host__ __device__ bool isinf(float);
__host__ __device__ bool isinf(double);
__host__ __device__ bool isfinite(float);
__host__ __device__ bool isfinite(double);
__host__ __device__ int signbit(float);
__host__ __device__ int abs(int);
__host__ __device__ long labs(long);
__host__ __device__ long long llabs(long long);
#define KAUDIT_MINMAX(T)                   \
  __host__ __device__ T min(T a, T b);     \
  __host__ __device__ T max(T a, T b);
KAUDIT_MINMAX(int)
KAUDIT_MINMAX(unsigned int)
KAUDIT_MINMAX(long)
KAUDIT_MINMAX(unsigned long)
KAUDIT_MINMAX(long long)
KAUDIT_MINMAX(unsigned long long)
KAUDIT_MINMAX(float)
KAUDIT_MINMAX(double)
#undef KAUDIT_MINMAX
__device__ float __expf(float);
__device__ float __exp10f(float);
__device__ float __logf(float);
__device__ float __log2f(float);
__device__ float __log10f(float);
__device__ float __powf(float, float);
__device__ float __sinf(float);
__device__ float __cosf(float);
__device__ float __tanf(float);
__device__ float __tanhf(float);
__device__ float __fdividef(float, float);
__device__ float __frcp_rn(float);
__device__ float __fsqrt_rn(float);
__device__ float __frsqrt_rn(float);
__device__ float __fmaf_rn(float, float, float);
__device__ float __fadd_rn(float, float);
__device__ float __fsub_rn(float, float);
__device__ float __fmul_rn(float, float);
__device__ float __fdiv_rn(float, float);
__device__ float __saturatef(float);
__device__ int __float2int_rn(float);
__device__ int __float2int_rz(float);
__device__ float __int2float_rn(int);
__device__ float __int_as_float(int);
__device__ int __float_as_int(float);
__device__ unsigned int __float_as_uint(float);
__device__ float __uint_as_float(unsigned int);

// ---- half precision (cuda_fp16.h) --------------------------------------------------------------
// As in a torch extension build (-D__CUDA_NO_HALF_OPERATORS__ -D__CUDA_NO_HALF_CONVERSIONS__
// -D__CUDA_NO_HALF2_OPERATORS__ -D__CUDA_NO_BFLOAT16_CONVERSIONS__, which the NVRTC stage uses
// too): __half has no implicit float conversions and no arithmetic operators, so code (and
// mutants) must go through __float2half_rn/__half2float & co. A mutant that relies on them is
// rejected here exactly as it would be by the real compile.
struct __half_raw {
  unsigned short x;
};
struct __half {
  unsigned short __x;
  __half() = default;
  __host__ __device__ __half(const __half_raw& r);
  __host__ __device__ operator __half_raw() const;
};
struct __half2_raw {
  unsigned short x, y;
};
struct __half2 {
  __half x, y;
  __half2() = default;
  __host__ __device__ __half2(const __half& a, const __half& b);
  __host__ __device__ __half2(const __half2_raw& r);
};
typedef __half half;
typedef __half2 half2;
// cuda_bf16.h, as a torch extension build sees it: no implicit conversions
// (__CUDA_NO_BFLOAT16_CONVERSIONS__), but the arithmetic and comparison operators (a torch build
// does not define __CUDA_NO_BFLOAT16_OPERATORS__; they are declared after the intrinsics below).
struct __nv_bfloat16_raw {
  unsigned short x;
};
struct __nv_bfloat16 {
  unsigned short __x;
  __nv_bfloat16() = default;
  __host__ __device__ __nv_bfloat16(const __nv_bfloat16_raw& r);
  __host__ __device__ operator __nv_bfloat16_raw() const;
};
struct __nv_bfloat162 {
  __nv_bfloat16 x, y;
  __nv_bfloat162() = default;
  __host__ __device__ __nv_bfloat162(const __nv_bfloat16& a, const __nv_bfloat16& b);
};
typedef __nv_bfloat16 nv_bfloat16;
typedef __nv_bfloat162 nv_bfloat162;
__host__ __device__ __half __float2half(float f);
__host__ __device__ __half __float2half_rn(float f);
__host__ __device__ __half __float2half_rz(float f);
__host__ __device__ float __half2float(__half h);
__host__ __device__ __half2 __float2half2_rn(float f);
__host__ __device__ __half2 __floats2half2_rn(float a, float b);
__host__ __device__ __half2 __float22half2_rn(float2 f);
__host__ __device__ float2 __half22float2(__half2 h);
__host__ __device__ float __low2float(__half2 h);
__host__ __device__ float __high2float(__half2 h);
__host__ __device__ __half __low2half(__half2 h);
__host__ __device__ __half __high2half(__half2 h);
__host__ __device__ __half2 __halves2half2(__half a, __half b);
__host__ __device__ __half2 __half2half2(__half a);
__device__ __half __hadd(__half a, __half b);
__device__ __half __hsub(__half a, __half b);
__device__ __half __hmul(__half a, __half b);
__device__ __half __hdiv(__half a, __half b);
__device__ __half __hfma(__half a, __half b, __half c);
__device__ __half __hneg(__half a);
__device__ __half __habs(__half a);
__device__ __half __hmax(__half a, __half b);
__device__ __half __hmin(__half a, __half b);
__device__ bool __hgt(__half a, __half b);
__device__ bool __hlt(__half a, __half b);
__device__ bool __hge(__half a, __half b);
__device__ bool __hle(__half a, __half b);
__device__ bool __heq(__half a, __half b);
__device__ __half hexp(__half a);
__device__ __half hlog(__half a);
__device__ __half hsqrt(__half a);
__device__ __half hrsqrt(__half a);
__device__ __half hrcp(__half a);
__device__ __half2 __hadd2(__half2 a, __half2 b);
__device__ __half2 __hsub2(__half2 a, __half2 b);
__device__ __half2 __hmul2(__half2 a, __half2 b);
__device__ __half2 __h2div(__half2 a, __half2 b);
__device__ __half2 __hfma2(__half2 a, __half2 b, __half2 c);
__device__ __half2 __hmax2(__half2 a, __half2 b);
__device__ __half2 h2exp(__half2 a);
__device__ __half2 h2rcp(__half2 a);
__device__ __half __shfl_sync(unsigned int mask, __half var, int srcLane, int width = 32);
__device__ __half __shfl_down_sync(unsigned int mask, __half var, unsigned int delta,
                                   int width = 32);
__device__ __half __shfl_xor_sync(unsigned int mask, __half var, int laneMask, int width = 32);
__device__ __half atomicAdd(__half* address, __half val);
__device__ __half2 atomicAdd(__half2* address, __half2 val);
__host__ __device__ __nv_bfloat16 __float2bfloat16(float f);
__host__ __device__ __nv_bfloat16 __float2bfloat16_rn(float f);
__host__ __device__ __nv_bfloat16 __float2bfloat16_rz(float f);
__host__ __device__ __nv_bfloat16 __double2bfloat16(double f);
__host__ __device__ float __bfloat162float(__nv_bfloat16 h);
__host__ __device__ unsigned short __bfloat16_as_ushort(__nv_bfloat16 h);
__host__ __device__ __nv_bfloat16 __ushort_as_bfloat16(unsigned short u);
__host__ __device__ __nv_bfloat162 __floats2bfloat162_rn(float a, float b);
__host__ __device__ __nv_bfloat162 __float2bfloat162_rn(float a);
__host__ __device__ __nv_bfloat162 __float22bfloat162_rn(float2 f);
__host__ __device__ float2 __bfloat1622float2(__nv_bfloat162 h);
__host__ __device__ __nv_bfloat162 __halves2bfloat162(__nv_bfloat16 a, __nv_bfloat16 b);
__host__ __device__ __nv_bfloat162 make_bfloat162(__nv_bfloat16 a, __nv_bfloat16 b);
__host__ __device__ __nv_bfloat162 __bfloat162bfloat162(__nv_bfloat16 a);
__host__ __device__ __nv_bfloat16 __low2bfloat16(__nv_bfloat162 h);
__host__ __device__ __nv_bfloat16 __high2bfloat16(__nv_bfloat162 h);
__host__ __device__ float __low2float(__nv_bfloat162 h);
__host__ __device__ float __high2float(__nv_bfloat162 h);
__device__ __nv_bfloat16 __hadd(__nv_bfloat16 a, __nv_bfloat16 b);
__device__ __nv_bfloat16 __hsub(__nv_bfloat16 a, __nv_bfloat16 b);
__device__ __nv_bfloat16 __hmul(__nv_bfloat16 a, __nv_bfloat16 b);
__device__ __nv_bfloat16 __hdiv(__nv_bfloat16 a, __nv_bfloat16 b);
__device__ __nv_bfloat16 __hfma(__nv_bfloat16 a, __nv_bfloat16 b, __nv_bfloat16 c);
__device__ __nv_bfloat16 __hneg(__nv_bfloat16 a);
__device__ __nv_bfloat16 __habs(__nv_bfloat16 a);
__device__ __nv_bfloat16 __hmax(__nv_bfloat16 a, __nv_bfloat16 b);
__device__ __nv_bfloat16 __hmin(__nv_bfloat16 a, __nv_bfloat16 b);
__device__ bool __hisnan(__nv_bfloat16 a);
__device__ __nv_bfloat162 __hadd2(__nv_bfloat162 a, __nv_bfloat162 b);
__device__ __nv_bfloat162 __hmul2(__nv_bfloat162 a, __nv_bfloat162 b);
__device__ __nv_bfloat162 __hfma2(__nv_bfloat162 a, __nv_bfloat162 b, __nv_bfloat162 c);
__device__ __nv_bfloat16 __shfl_sync(unsigned int mask, __nv_bfloat16 var, int srcLane, int width = 32);
__device__ __nv_bfloat16 __shfl_down_sync(unsigned int mask, __nv_bfloat16 var, unsigned int delta,
                                          int width = 32);
__device__ __nv_bfloat16 __shfl_xor_sync(unsigned int mask, __nv_bfloat16 var, int laneMask, int width = 32);
__device__ __nv_bfloat16 atomicAdd(__nv_bfloat16* address, __nv_bfloat16 val);
__device__ __nv_bfloat162 __hsub2(__nv_bfloat162 a, __nv_bfloat162 b);
__device__ __nv_bfloat162 __h2div(__nv_bfloat162 a, __nv_bfloat162 b);
__device__ __nv_bfloat16 operator+(const __nv_bfloat16& a, const __nv_bfloat16& b);
__device__ __nv_bfloat16 operator-(const __nv_bfloat16& a, const __nv_bfloat16& b);
__device__ __nv_bfloat16 operator*(const __nv_bfloat16& a, const __nv_bfloat16& b);
__device__ __nv_bfloat16 operator/(const __nv_bfloat16& a, const __nv_bfloat16& b);
__device__ __nv_bfloat16 operator-(const __nv_bfloat16& a);
__device__ __nv_bfloat16& operator+=(__nv_bfloat16& a, const __nv_bfloat16& b);
__device__ __nv_bfloat16& operator-=(__nv_bfloat16& a, const __nv_bfloat16& b);
__device__ __nv_bfloat16& operator*=(__nv_bfloat16& a, const __nv_bfloat16& b);
__device__ __nv_bfloat16& operator/=(__nv_bfloat16& a, const __nv_bfloat16& b);
__device__ bool operator==(const __nv_bfloat16& a, const __nv_bfloat16& b);
__device__ bool operator!=(const __nv_bfloat16& a, const __nv_bfloat16& b);
__device__ bool operator<(const __nv_bfloat16& a, const __nv_bfloat16& b);
__device__ bool operator>(const __nv_bfloat16& a, const __nv_bfloat16& b);
__device__ bool operator<=(const __nv_bfloat16& a, const __nv_bfloat16& b);
__device__ bool operator>=(const __nv_bfloat16& a, const __nv_bfloat16& b);
__device__ __nv_bfloat162 operator+(const __nv_bfloat162& a, const __nv_bfloat162& b);
__device__ __nv_bfloat162 operator-(const __nv_bfloat162& a, const __nv_bfloat162& b);
__device__ __nv_bfloat162 operator*(const __nv_bfloat162& a, const __nv_bfloat162& b);
__device__ __nv_bfloat162 operator/(const __nv_bfloat162& a, const __nv_bfloat162& b);

// ---- a declaration-only stand-in for the torch C++ API used by host wrappers --------------------
namespace std {
template <class E>
class initializer_list {
  const E* begin_;
  size_t size_;
  constexpr initializer_list(const E* b, size_t s) : begin_(b), size_(s) {}

 public:
  constexpr initializer_list() noexcept : begin_(nullptr), size_(0) {}
  constexpr size_t size() const noexcept { return size_; }
  constexpr const E* begin() const noexcept { return begin_; }
  constexpr const E* end() const noexcept { return begin_ + size_; }
};
template <class T>
struct remove_reference {
  typedef T type;
};
template <class T>
struct remove_reference<T&> {
  typedef T type;
};
template <class T>
struct remove_reference<T&&> {
  typedef T type;
};
template <class T>
constexpr typename remove_reference<T>::type&& move(T&& t) noexcept {
  return static_cast<typename remove_reference<T>::type&&>(t);
}
template <class T>
constexpr T&& forward(typename remove_reference<T>::type& t) noexcept {
  return static_cast<T&&>(t);
}
// constexpr, so host and device functions alike (Clang's rule; a torch extension build gives nvcc
// --expt-relaxed-constexpr for the same effect): kernels call std::min/std::max.
template <class T>
constexpr const T& min(const T& a, const T& b);
template <class T>
constexpr const T& max(const T& a, const T& b);
template <class T>
constexpr T min(initializer_list<T> l);
template <class T>
constexpr T max(initializer_list<T> l);
template <class T>
class vector {
 public:
  vector();
  explicit vector(size_t n);
  vector(size_t n, const T& value);
  vector(initializer_list<T> l);
  template <class It>
  vector(It first, It last);
  void push_back(const T& v);
  void pop_back();
  void clear();
  T* erase(const T* pos);
  T* erase(const T* first, const T* last);
  T* insert(const T* pos, const T& v);
  void assign(size_t n, const T& v);
  template <class... A>
  T& emplace_back(A&&... a);
  void reserve(size_t n);
  void resize(size_t n);
  size_t size() const;
  bool empty() const;
  T& operator[](size_t i);
  const T& operator[](size_t i) const;
  T* data();
  const T* data() const;
  T* begin();
  T* end();
  const T* begin() const;
  const T* end() const;
  T& back();
  T& front();
};
template <class A, class B>
struct pair {
  A first;
  B second;
};
template <class... T>
class tuple {
 public:
  tuple(const T&... v);
};
template <class... T>
tuple<T...> make_tuple(const T&... v);
class string {
 public:
  string();
  string(const char* s);
  const char* c_str() const;
  size_t size() const;
};
string to_string(int v);
string to_string(long v);
string to_string(long long v);
string to_string(double v);
string operator+(const string& a, const string& b);
string operator+(const string& a, const char* b);
string operator+(const char* a, const string& b);
// <stdexcept>
class exception {
 public:
  virtual ~exception();
  virtual const char* what() const noexcept;
};
#define KAUDIT_EXCEPTION(NAME, BASE)       \
  class NAME : public BASE {               \
   public:                                 \
    explicit NAME(const string& what);     \
    explicit NAME(const char* what);       \
  };
KAUDIT_EXCEPTION(logic_error, exception)
KAUDIT_EXCEPTION(runtime_error, exception)
KAUDIT_EXCEPTION(invalid_argument, logic_error)
KAUDIT_EXCEPTION(out_of_range, logic_error)
KAUDIT_EXCEPTION(domain_error, logic_error)
KAUDIT_EXCEPTION(overflow_error, runtime_error)
#undef KAUDIT_EXCEPTION
// <iostream>, <sstream>: streams that take anything.
class ostream {
 public:
  template <class T>
  ostream& operator<<(const T& v);
  ostream& operator<<(ostream& (*manipulator)(ostream&));
};
ostream& endl(ostream& os);
extern ostream cout, cerr, clog;
class ostringstream : public ostream {
 public:
  string str() const;
};
typedef ostringstream stringstream;
// <type_traits>: what dispatch code tests scalar types with.
template <class T, T v>
struct integral_constant {
  static constexpr T value = v;
  constexpr operator T() const noexcept { return v; }
};
typedef integral_constant<bool, true> true_type;
typedef integral_constant<bool, false> false_type;
template <class A, class B>
struct is_same : false_type {};
template <class A>
struct is_same<A, A> : true_type {};
template <class A, class B>
inline constexpr bool is_same_v = is_same<A, B>::value;
template <bool B, class T = void>
struct enable_if {};
template <class T>
struct enable_if<true, T> {
  typedef T type;
};
template <bool B, class T = void>
using enable_if_t = typename enable_if<B, T>::type;
template <bool B, class T, class F>
struct conditional {
  typedef T type;
};
template <class T, class F>
struct conditional<false, T, F> {
  typedef F type;
};
template <bool B, class T, class F>
using conditional_t = typename conditional<B, T, F>::type;
template <class T>
struct is_floating_point : integral_constant<bool, __is_floating_point(T)> {};
template <class T>
inline constexpr bool is_floating_point_v = is_floating_point<T>::value;
}  // namespace std

// <limits>: numeric_limits for the types kernels use (constexpr, hence host and device in Clang).
namespace std {
template <class T>
struct numeric_limits {
  static constexpr bool is_specialized = false;
};
#define KAUDIT_LIMITS(T, MAXV, MINV, LOWV, EPS, INF, NANV)              \
  template <>                                                          \
  struct numeric_limits<T> {                                           \
    static constexpr bool is_specialized = true;                       \
    static constexpr T max() noexcept { return MAXV; }                 \
    static constexpr T min() noexcept { return MINV; }                 \
    static constexpr T lowest() noexcept { return LOWV; }              \
    static constexpr T epsilon() noexcept { return EPS; }              \
    static constexpr T infinity() noexcept { return INF; }             \
    static constexpr T quiet_NaN() noexcept { return NANV; }           \
  };
KAUDIT_LIMITS(float, __FLT_MAX__, __FLT_MIN__, -__FLT_MAX__, __FLT_EPSILON__,
              __builtin_huge_valf(), __builtin_nanf(""))
KAUDIT_LIMITS(double, __DBL_MAX__, __DBL_MIN__, -__DBL_MAX__, __DBL_EPSILON__,
              __builtin_huge_val(), __builtin_nan(""))
KAUDIT_LIMITS(int, __INT_MAX__, -__INT_MAX__ - 1, -__INT_MAX__ - 1, 0, 0, 0)
KAUDIT_LIMITS(unsigned int, __INT_MAX__ * 2U + 1U, 0U, 0U, 0U, 0U, 0U)
KAUDIT_LIMITS(long, __LONG_MAX__, -__LONG_MAX__ - 1, -__LONG_MAX__ - 1, 0, 0, 0)
KAUDIT_LIMITS(long long, __LONG_LONG_MAX__, -__LONG_LONG_MAX__ - 1, -__LONG_LONG_MAX__ - 1, 0, 0,
              0)
#undef KAUDIT_LIMITS
}  // namespace std

// <math_constants.h>
#define CUDART_INF_F __builtin_huge_valf()
#define CUDART_NAN_F __builtin_nanf("")
#define CUDART_PI_F 3.141592654f
#define CUDART_SQRT_HALF_F 0.707106781f
#define CUDART_INF __builtin_huge_val()
#define CUDART_PI 3.1415926535897931e+0

namespace c10 {
enum class ScalarType : signed char {
  Byte,
  Char,
  Short,
  Int,
  Long,
  Half,
  Float,
  Double,
  ComplexHalf,
  ComplexFloat,
  ComplexDouble,
  Bool,
  QInt8,
  QUInt8,
  QInt32,
  BFloat16,
};
struct Half {
  unsigned short x;
  __host__ __device__ Half();
  __host__ __device__ Half(float f);
  __host__ __device__ operator float() const;
};
struct BFloat16 {
  unsigned short x;
  __host__ __device__ BFloat16();
  __host__ __device__ BFloat16(float f);
  explicit __host__ __device__ BFloat16(const __nv_bfloat16& v);
  explicit __host__ __device__ operator __nv_bfloat16() const;
  __host__ __device__ operator float() const;
};
// c10::optional (std::optional in newer torch): an optional tensor argument.
struct nullopt_t {
  explicit constexpr nullopt_t(int) {}
};
constexpr nullopt_t nullopt{0};
template <class T>
class optional {
 public:
  optional();
  optional(nullopt_t);
  optional(const T& v);
  bool has_value() const;
  explicit operator bool() const;
  T& value();
  const T& value() const;
  T value_or(const T& other) const;
  T& operator*();
  const T& operator*() const;
  T* operator->();
  const T* operator->() const;
};
enum class DeviceType : signed char { CPU = 0, CUDA = 1 };
struct Device {
  Device(DeviceType type, signed char index = -1);
  DeviceType type() const;
  signed char index() const;
  bool is_cuda() const;
  bool is_cpu() const;
};
struct TypeMeta {
  ScalarType toScalarType() const;
  size_t itemsize() const;
  bool operator==(const TypeMeta& other) const;
  bool operator!=(const TypeMeta& other) const;
};
bool operator==(const TypeMeta& a, ScalarType b);
bool operator!=(const TypeMeta& a, ScalarType b);
bool operator==(ScalarType a, const TypeMeta& b);
bool operator!=(ScalarType a, const TypeMeta& b);
const char* toString(ScalarType t);
size_t elementSize(ScalarType t);
class IntArrayRef {
 public:
  IntArrayRef();
  IntArrayRef(const int64_t* data, size_t length);
  template <size_t N>
  IntArrayRef(const int64_t (&array)[N]);
  IntArrayRef(std::initializer_list<int64_t> list);
  IntArrayRef(const int64_t& one);
  IntArrayRef(const std::vector<int64_t>& vec);
  const int64_t* data() const;
  size_t size() const;
  bool empty() const;
  int64_t operator[](size_t i) const;
  int64_t at(size_t i) const;
  const int64_t* begin() const;
  const int64_t* end() const;
  int64_t back() const;
  int64_t front() const;
  std::vector<int64_t> vec() const;
  bool equals(IntArrayRef other) const;
};
bool operator==(IntArrayRef a, IntArrayRef b);
bool operator!=(IntArrayRef a, IntArrayRef b);
}  // namespace c10


namespace c10 {
struct TensorOptions {
  TensorOptions();
  TensorOptions(ScalarType dtype);
  TensorOptions(Device device);
  TensorOptions(DeviceType device);
  TensorOptions dtype(ScalarType dtype) const;
  TensorOptions dtype(TypeMeta dtype) const;
  TensorOptions device(Device device) const;
  TensorOptions device(DeviceType device) const;
  TensorOptions requires_grad(bool r) const;
  TensorOptions device(DeviceType device, signed char index) const;
  TensorOptions layout(int layout) const;
  TypeMeta dtype() const;
  Device device() const;
};
enum class MemoryFormat : signed char { Contiguous, Preserve, ChannelsLast, ChannelsLast3d };
}  // namespace c10

namespace at {
using c10::BFloat16;
using c10::Device;
using c10::DeviceType;
using c10::Half;
using c10::IntArrayRef;
using c10::ScalarType;
using c10::TensorOptions;
using c10::TypeMeta;
using c10::MemoryFormat;
using c10::optional;
constexpr ScalarType kByte = ScalarType::Byte;
constexpr ScalarType kChar = ScalarType::Char;
constexpr ScalarType kShort = ScalarType::Short;
constexpr ScalarType kInt = ScalarType::Int;
constexpr ScalarType kInt32 = ScalarType::Int;
constexpr ScalarType kLong = ScalarType::Long;
constexpr ScalarType kInt64 = ScalarType::Long;
constexpr ScalarType kHalf = ScalarType::Half;
constexpr ScalarType kFloat16 = ScalarType::Half;
constexpr ScalarType kFloat = ScalarType::Float;
constexpr ScalarType kFloat32 = ScalarType::Float;
constexpr ScalarType kDouble = ScalarType::Double;
constexpr ScalarType kFloat64 = ScalarType::Double;
constexpr ScalarType kBool = ScalarType::Bool;
constexpr ScalarType kBFloat16 = ScalarType::BFloat16;
constexpr DeviceType kCPU = DeviceType::CPU;
constexpr DeviceType kCUDA = DeviceType::CUDA;

class Scalar {
 public:
  Scalar(double v);
  Scalar(float v);
  Scalar(int v);
  Scalar(long v);
  Scalar(long long v);
  Scalar(unsigned v);
  Scalar(unsigned long v);
  Scalar(unsigned long long v);
  Scalar(bool v);
  template <typename T>
  T to() const;
};

// Accessors (ATen/core/TensorAccessor.h): element access by index on host and device.
template <typename T>
struct DefaultPtrTraits {
  typedef T* PtrType;
};
template <typename T>
struct RestrictPtrTraits {
  typedef T* __restrict__ PtrType;
};
template <typename T, size_t N>
class TensorAccessor {
 public:
  __host__ __device__ TensorAccessor<T, N - 1> operator[](int64_t i) const;
  __host__ __device__ int64_t size(int64_t d) const;
  __host__ __device__ int64_t stride(int64_t d) const;
};
template <typename T>
class TensorAccessor<T, 1> {
 public:
  __host__ __device__ T& operator[](int64_t i) const;
  __host__ __device__ int64_t size(int64_t d) const;
  __host__ __device__ int64_t stride(int64_t d) const;
};
template <typename T, size_t N, template <typename> class PtrTraits = DefaultPtrTraits, typename Index = int32_t>
class GenericPackedTensorAccessor {
 public:
  __host__ __device__ TensorAccessor<T, N - 1> operator[](Index i) const;
  __host__ __device__ Index size(Index d) const;
  __host__ __device__ Index stride(Index d) const;
  __host__ __device__ T* data() const;
};
template <typename T, template <typename> class PtrTraits, typename Index>
class GenericPackedTensorAccessor<T, 1, PtrTraits, Index> {
 public:
  __host__ __device__ T& operator[](Index i) const;
  __host__ __device__ Index size(Index d) const;
  __host__ __device__ Index stride(Index d) const;
  __host__ __device__ T* data() const;
};
template <typename T, size_t N, template <typename> class PtrTraits = DefaultPtrTraits>
using PackedTensorAccessor32 = GenericPackedTensorAccessor<T, N, PtrTraits, int32_t>;
template <typename T, size_t N, template <typename> class PtrTraits = DefaultPtrTraits>
using PackedTensorAccessor64 = GenericPackedTensorAccessor<T, N, PtrTraits, int64_t>;
// ATen/AccumulateType.h: the accumulation type of a scalar type on the device (float for half).
template <typename T, bool is_cuda>
struct AccumulateType {
  typedef T type;
};
template <bool is_cuda>
struct AccumulateType<c10::Half, is_cuda> {
  typedef float type;
};
template <bool is_cuda>
struct AccumulateType<c10::BFloat16, is_cuda> {
  typedef float type;
};
template <bool is_cuda>
struct AccumulateType<float, is_cuda> {
  typedef float type;
};
template <typename T, bool is_cuda>
using acc_type = typename AccumulateType<T, is_cuda>::type;

class Tensor {
 public:
  Tensor();
  Tensor(const Tensor& other);
  Tensor& operator=(const Tensor& other);
  ~Tensor();

  // shape
  int64_t dim() const;
  int64_t ndimension() const;
  int64_t size(int64_t d) const;
  int64_t stride(int64_t d) const;
  IntArrayRef sizes() const;
  IntArrayRef strides() const;
  int64_t numel() const;
  size_t nbytes() const;
  int64_t element_size() const;
  int64_t storage_offset() const;
  bool defined() const;

  // dtype and device
  ScalarType scalar_type() const;
  TypeMeta dtype() const;
  TensorOptions options() const;
  Device device() const;
  bool is_cuda() const;
  bool is_cpu() const;
  bool is_contiguous() const;
  bool is_floating_point() const;
  int64_t get_device() const;

  // data
  template <typename T>
  T* data_ptr() const;
  void* data_ptr() const;
  template <typename T>
  const T* const_data_ptr() const;
  template <typename T>
  T* mutable_data_ptr() const;
  template <typename T>
  T item() const;
  Scalar item() const;

  // views and conversions
  Tensor contiguous() const;
  Tensor clone() const;
  Tensor view(IntArrayRef shape) const;
  Tensor reshape(IntArrayRef shape) const;
  Tensor flatten(int64_t start = 0, int64_t end = -1) const;
  Tensor transpose(int64_t a, int64_t b) const;
  Tensor permute(IntArrayRef dims) const;
  Tensor t() const;
  Tensor squeeze(int64_t d) const;
  Tensor unsqueeze(int64_t d) const;
  Tensor select(int64_t d, int64_t i) const;
  Tensor narrow(int64_t d, int64_t start, int64_t length) const;
  Tensor to(ScalarType dtype) const;
  Tensor to(Device device) const;
  Tensor to(TensorOptions options) const;
  Tensor cuda() const;
  Tensor cpu() const;
  Tensor detach() const;
  Tensor& zero_();
  Tensor& fill_(const Scalar& v);
  Tensor& copy_(const Tensor& src);
  // What wrappers compute with torch around their kernels (as the CPU facade provides them).
  Tensor sum() const;
  Tensor sum(IntArrayRef dim, bool keepdim = false) const;
  Tensor mean() const;
  Tensor mean(IntArrayRef dim, bool keepdim = false) const;
  Tensor var(bool unbiased = true) const;
  Tensor var(IntArrayRef dim, bool unbiased = true, bool keepdim = false) const;
  Tensor std(bool unbiased = true) const;
  Tensor std(IntArrayRef dim, bool unbiased = true, bool keepdim = false) const;
  Tensor amax(IntArrayRef dim = {}, bool keepdim = false) const;
  Tensor amin(IntArrayRef dim = {}, bool keepdim = false) const;
  Tensor neg() const;
  Tensor sqrt() const;
  Tensor rsqrt() const;
  Tensor exp() const;
  Tensor log() const;
  Tensor abs() const;
  Tensor tanh() const;
  Tensor sigmoid() const;
  Tensor relu() const;
  Tensor add(const Tensor& other) const;
  Tensor add(const Scalar& other) const;
  Tensor sub(const Tensor& other) const;
  Tensor sub(const Scalar& other) const;
  Tensor mul(const Tensor& other) const;
  Tensor mul(const Scalar& other) const;
  Tensor div(const Tensor& other) const;
  Tensor pow(const Scalar& exponent) const;
  Tensor pow(const Tensor& exponent) const;
  Tensor matmul(const Tensor& other) const;
  Tensor mm(const Tensor& other) const;
  Tensor bmm(const Tensor& other) const;
  Tensor addmm(const Tensor& a, const Tensor& b, const Scalar& beta = 1, const Scalar& alpha = 1) const;
  Tensor div(const Scalar& v) const;
  Tensor& div_(const Scalar& v);
  Tensor& mul_(const Scalar& v);
  Tensor operator[](int64_t i) const;
  Tensor view_as(const Tensor& other) const;
  Tensor reshape_as(const Tensor& other) const;
  Tensor expand_as(const Tensor& other) const;
  Tensor type_as(const Tensor& other) const;
  struct DeprecatedTypeProperties {
    ScalarType scalarType() const;
    bool is_cuda() const;
  };
  DeprecatedTypeProperties type() const;
  template <typename T, size_t N, template <typename> class PtrTraits = DefaultPtrTraits>
  PackedTensorAccessor32<T, N, PtrTraits> packed_accessor32() const;
  template <typename T, size_t N, template <typename> class PtrTraits = DefaultPtrTraits>
  PackedTensorAccessor64<T, N, PtrTraits> packed_accessor64() const;
  template <typename T, size_t N>
  TensorAccessor<T, N> accessor() const;
};
Tensor operator+(const Tensor& a, const Tensor& b);
Tensor operator-(const Tensor& a, const Tensor& b);
Tensor operator*(const Tensor& a, const Tensor& b);
Tensor operator/(const Tensor& a, const Tensor& b);
Tensor operator*(const Tensor& a, const Scalar& b);
Tensor operator/(const Tensor& a, const Scalar& b);
Tensor operator+(const Tensor& a, const Scalar& b);
Tensor operator-(const Tensor& a, const Scalar& b);
Tensor operator+(const Scalar& a, const Tensor& b);
Tensor operator-(const Scalar& a, const Tensor& b);
Tensor operator*(const Scalar& a, const Tensor& b);
Tensor operator/(const Scalar& a, const Tensor& b);
Tensor operator-(const Tensor& a);
Tensor sum(const Tensor& t);
Tensor sum(const Tensor& t, IntArrayRef dim, bool keepdim = false);
Tensor mean(const Tensor& t);
Tensor mean(const Tensor& t, IntArrayRef dim, bool keepdim = false);
Tensor var(const Tensor& t, IntArrayRef dim, bool unbiased = true, bool keepdim = false);
Tensor amax(const Tensor& t, IntArrayRef dim = {}, bool keepdim = false);
Tensor amin(const Tensor& t, IntArrayRef dim = {}, bool keepdim = false);
Tensor sqrt(const Tensor& t);
Tensor rsqrt(const Tensor& t);
Tensor exp(const Tensor& t);
Tensor log(const Tensor& t);
Tensor abs(const Tensor& t);
Tensor tanh(const Tensor& t);
Tensor sigmoid(const Tensor& t);
Tensor relu(const Tensor& t);
Tensor pow(const Tensor& t, const Scalar& exponent);
Tensor maximum(const Tensor& a, const Tensor& b);
Tensor minimum(const Tensor& a, const Tensor& b);

Tensor empty(IntArrayRef size, TensorOptions options = {});
Tensor zeros(IntArrayRef size, TensorOptions options = {});
Tensor ones(IntArrayRef size, TensorOptions options = {});
Tensor full(IntArrayRef size, const Scalar& value, TensorOptions options = {});
Tensor empty_like(const Tensor& t, TensorOptions options = {});
Tensor empty_like(const Tensor& t, c10::MemoryFormat format);
Tensor empty_like(const Tensor& t, TensorOptions options, c10::MemoryFormat format);
c10::optional<Device> device_of(const Tensor& t);
Tensor zeros_like(const Tensor& t, TensorOptions options = {});
Tensor ones_like(const Tensor& t, TensorOptions options = {});
Tensor empty_strided(IntArrayRef size, IntArrayRef stride, TensorOptions options = {});
Tensor arange(const Scalar& end, TensorOptions options = {});
Tensor matmul(const Tensor& a, const Tensor& b);
Tensor mm(const Tensor& a, const Tensor& b);
Tensor bmm(const Tensor& a, const Tensor& b);
Tensor addmm(const Tensor& c, const Tensor& a, const Tensor& b, const Scalar& beta = 1, const Scalar& alpha = 1);
Tensor linear(const Tensor& x, const Tensor& w, const c10::optional<Tensor>& bias = {});

namespace cuda {
class CUDAStream {
 public:
  operator cudaStream_t() const;
  cudaStream_t stream() const;
};
CUDAStream getCurrentCUDAStream(signed char device_index = -1);
CUDAStream getDefaultCUDAStream(signed char device_index = -1);
struct cudaDeviceProp_stub {
  int multiProcessorCount;
  int maxThreadsPerBlock;
  int warpSize;
  size_t sharedMemPerBlock;
};
cudaDeviceProp_stub* getCurrentDeviceProperties();
}  // namespace cuda
}  // namespace at

namespace c10 {
namespace cuda {
using at::cuda::CUDAStream;
using at::cuda::getCurrentCUDAStream;
struct CUDAGuard {
  explicit CUDAGuard(signed char device);
  explicit CUDAGuard(Device device);
};
struct OptionalCUDAGuard {
  OptionalCUDAGuard();
  explicit OptionalCUDAGuard(optional<Device> device);
  explicit OptionalCUDAGuard(Device device);
  explicit OptionalCUDAGuard(signed char device);
};
}  // namespace cuda
}  // namespace c10
namespace at {
namespace cuda {
using c10::cuda::CUDAGuard;
using c10::cuda::OptionalCUDAGuard;
}  // namespace cuda
// <ATen/ceil_div.h>, <ATen/NumericUtils.h> and <ATen/cuda/NumericLimits.cuh>, host and device.
template <class T>
constexpr T ceil_div(T a, T b);
template <class T>
struct numeric_limits {  // <ATen/cuda/NumericLimits.cuh>: not constexpr there either
  static __host__ __device__ T lowest();
  static __host__ __device__ T max();
  static __host__ __device__ T lower_bound();
  static __host__ __device__ T upper_bound();
};
template <class T>
__host__ __device__ bool _isnan(T v);
}  // namespace at

namespace torch {
using namespace at;
using at::Tensor;
using c10::TensorOptions;
using c10::TypeMeta;
inline TensorOptions dtype(ScalarType t) { return TensorOptions(t); }
inline TensorOptions device(DeviceType d) { return TensorOptions(d); }
namespace nn {
namespace functional {
using at::linear;
}  // namespace functional
}  // namespace nn
}  // namespace torch

// <cooperative_groups.h>: the block and its warp tiles (declarations; device only).
namespace cooperative_groups {
class thread_block {
 public:
  __device__ void sync() const;
  __device__ unsigned thread_rank() const;
  __device__ unsigned size() const;
  __device__ unsigned num_threads() const;
  __device__ dim3 group_index() const;
  __device__ dim3 thread_index() const;
};
__device__ thread_block this_thread_block();
template <unsigned Size>
class thread_block_tile {
 public:
  __device__ void sync() const;
  __device__ unsigned thread_rank() const;
  __device__ unsigned size() const;
  __device__ unsigned num_threads() const;
  __device__ unsigned meta_group_rank() const;
  template <typename T>
  __device__ T shfl(T v, int src) const;
  template <typename T>
  __device__ T shfl_down(T v, unsigned delta) const;
  template <typename T>
  __device__ T shfl_up(T v, unsigned delta) const;
  template <typename T>
  __device__ T shfl_xor(T v, unsigned mask) const;
  __device__ unsigned ballot(int predicate) const;
  __device__ int any(int predicate) const;
  __device__ int all(int predicate) const;
};
template <unsigned Size, typename Parent>
__device__ thread_block_tile<Size> tiled_partition(const Parent& parent);
__device__ void sync(const thread_block& g);
template <unsigned Size>
__device__ void sync(const thread_block_tile<Size>& g);
// <cooperative_groups/reduce.h>
template <class T> struct plus { __device__ T operator()(const T& a, const T& b) const; };
template <class T> struct less { __device__ T operator()(const T& a, const T& b) const; };
template <class T> struct greater { __device__ T operator()(const T& a, const T& b) const; };
template <class T> struct bit_and { __device__ T operator()(const T& a, const T& b) const; };
template <class T> struct bit_or { __device__ T operator()(const T& a, const T& b) const; };
template <class T> struct bit_xor { __device__ T operator()(const T& a, const T& b) const; };
template <unsigned Size, class T, class Op>
__device__ T reduce(const thread_block_tile<Size>& tile, T value, Op op);
}  // namespace cooperative_groups

namespace kaudit_prelude {
template <typename... Args>
[[noreturn]] void torch_check_failed(const char* cond, const Args&... message);
void cuda_kernel_launch_check();
}  // namespace kaudit_prelude

#define TORCH_CHECK(cond, ...) \
  ((cond) ? (void)0 : ::kaudit_prelude::torch_check_failed(#cond, ##__VA_ARGS__))
#define TORCH_INTERNAL_ASSERT(cond, ...) TORCH_CHECK(cond, ##__VA_ARGS__)
#define AT_ASSERTM(cond, ...) TORCH_CHECK(cond, ##__VA_ARGS__)
#define C10_CUDA_KERNEL_LAUNCH_CHECK() ::kaudit_prelude::cuda_kernel_launch_check()
#define C10_CUDA_CHECK(expr) ((void)(expr))
#define AT_CUDA_CHECK(expr) ((void)(expr))
#define CHECK_CUDA(x) TORCH_CHECK((x).is_cuda(), #x " must be a CUDA tensor")
#define CHECK_CONTIGUOUS(x) TORCH_CHECK((x).is_contiguous(), #x " must be contiguous")
#define CHECK_INPUT(x) \
  CHECK_CUDA(x);       \
  CHECK_CONTIGUOUS(x)

// The dispatch macros instantiate the lambda once per element type, like ATen does, so templated
// kernels are instantiated for each type.
#define KAUDIT_DISPATCH_CASE(T, ...) \
  {                                  \
    using scalar_t = T;              \
    (void)sizeof(scalar_t);          \
    __VA_ARGS__();                   \
  }
#define AT_DISPATCH_FLOATING_TYPES(TYPE, NAME, ...) \
  [&] {                                             \
    (void)(TYPE);                                   \
    (void)(NAME);                                   \
    KAUDIT_DISPATCH_CASE(float, __VA_ARGS__)        \
    KAUDIT_DISPATCH_CASE(double, __VA_ARGS__)       \
  }()
#define AT_DISPATCH_FLOATING_TYPES_AND_HALF(TYPE, NAME, ...) \
  [&] {                                                      \
    (void)(TYPE);                                            \
    (void)(NAME);                                            \
    KAUDIT_DISPATCH_CASE(float, __VA_ARGS__)                 \
    KAUDIT_DISPATCH_CASE(double, __VA_ARGS__)                \
    KAUDIT_DISPATCH_CASE(at::Half, __VA_ARGS__)              \
  }()
#define AT_DISPATCH_FLOATING_TYPES_AND2(A, B, TYPE, NAME, ...) \
  [&] {                                                        \
    (void)(TYPE);                                              \
    (void)(NAME);                                              \
    KAUDIT_DISPATCH_CASE(float, __VA_ARGS__)                   \
    KAUDIT_DISPATCH_CASE(double, __VA_ARGS__)                  \
    KAUDIT_DISPATCH_CASE(at::Half, __VA_ARGS__)                \
    KAUDIT_DISPATCH_CASE(at::BFloat16, __VA_ARGS__)            \
  }()

// pybind11: the module a solution registers its functions in (m.def("name", &f, "doc", py::arg("x") = 1)).
struct kaudit_py_module {
  template <class F, class... Extra>
  kaudit_py_module& def(const char* name, F&& f, const Extra&... extra);
};
namespace pybind11 {
struct arg {
  arg(const char* name);
  template <class T>
  arg& operator=(const T& default_value);
};
struct none {
  none();
};
}  // namespace pybind11
namespace py = pybind11;
#define PYBIND11_MODULE(name, m) void kaudit_pybind11_module_##name(kaudit_py_module& m)
#define TORCH_EXTENSION_NAME kaudit_extension

#endif  // KAUDIT_CUDA_PARSE_PRELUDE_H
