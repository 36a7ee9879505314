// IEEE binary16 for the CPU backend: CUDA's __half / __half2 and the bit conversions shared with
// c10::Half. Arithmetic is done in float and rounded to nearest-even, which is what sm_53+ half
// instructions produce for +, -, * (exact in float) and what cuda_fp16's operators do for /.
#pragma once
#include <cmath>
#include <cstdint>
#include <cstring>

namespace kaudit::detail {
inline float half_bits_to_float(std::uint16_t h) {
  std::uint32_t sign = (std::uint32_t)(h & 0x8000u) << 16;
  std::uint32_t exp = (h >> 10) & 0x1fu, man = h & 0x3ffu, bits;
  if (exp == 0) {
    if (man == 0) {
      bits = sign;
    } else {  // subnormal: normalise
      int e = -1;
      do { ++e; man <<= 1; } while ((man & 0x400u) == 0);
      bits = sign | ((std::uint32_t)(127 - 15 - e) << 23) | ((man & 0x3ffu) << 13);
    }
  } else if (exp == 0x1f) {
    bits = sign | 0x7f800000u | (man << 13);
  } else {
    bits = sign | ((exp + 127 - 15) << 23) | (man << 13);
  }
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}
inline std::uint16_t float_to_half_bits(float f) {  // round to nearest even
  std::uint32_t x;
  std::memcpy(&x, &f, 4);
  std::uint16_t sign = (std::uint16_t)((x >> 16) & 0x8000u);
  std::uint32_t ax = x & 0x7fffffffu;
  if (ax >= 0x7f800000u) return sign | (ax > 0x7f800000u ? 0x7e00u : 0x7c00u);  // NaN / inf
  if (ax >= 0x477ff000u) return sign | 0x7c00u;                                 // overflow
  if (ax < 0x38800000u) {                                                        // subnormal or 0
    if (ax < 0x33000000u) return sign;                                           // < 2^-25 -> 0
    std::uint32_t e = ax >> 23, m = (ax & 0x7fffffu) | 0x800000u;
    std::uint32_t shift = 126 - e;                                               // 14..24
    std::uint32_t r = m >> shift, rem = m & ((1u << shift) - 1), half = 1u << (shift - 1);
    if (rem > half || (rem == half && (r & 1u))) ++r;
    return sign | (std::uint16_t)r;
  }
  std::uint32_t r = ((ax >> 13) - ((127 - 15) << 10)), rem = ax & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (r & 1u))) ++r;
  return sign | (std::uint16_t)r;
}
// A double rounded to float with round-to-odd (truncate, then set the last bit when inexact): a
// further rounding of that float to half or bfloat16 then equals one rounding of the double, as
// CUDA's __double2half / __double2bfloat16 and fused multiply-adds give. (Two nearest-even
// roundings can differ: 1 + 2^-8 + 2^-30 would go to 1 + 2^-8 in float and then, a tie, to 1 in
// bfloat16, where one rounding gives 1 + 2^-7.)
inline float double_to_float_odd(double d) {
  float f = (float)d;
  if (std::isnan(d) || (double)f == d) return f;
  std::uint32_t bits;
  std::memcpy(&bits, &f, 4);
  if (std::fabs((double)f) > std::fabs(d)) --bits;  // rounded away from zero: step back (inf -> FLT_MAX)
  bits |= 1u;
  std::memcpy(&f, &bits, 4);
  return f;
}
}  // namespace kaudit::detail

struct __half {
  unsigned short __x;
  __half() = default;
  __half(float f) : __x(::kaudit::detail::float_to_half_bits(f)) {}
  __half(double f) : __x(::kaudit::detail::float_to_half_bits((float)f)) {}
  __half(int i) : __x(::kaudit::detail::float_to_half_bits((float)i)) {}
  __half(unsigned i) : __x(::kaudit::detail::float_to_half_bits((float)i)) {}
  __half(long long i) : __x(::kaudit::detail::float_to_half_bits((float)i)) {}
  operator float() const { return ::kaudit::detail::half_bits_to_float(__x); }
  __half& operator+=(const __half& o) { return *this = __half(float(*this) + float(o)); }
  __half& operator-=(const __half& o) { return *this = __half(float(*this) - float(o)); }
  __half& operator*=(const __half& o) { return *this = __half(float(*this) * float(o)); }
  __half& operator/=(const __half& o) { return *this = __half(float(*this) / float(o)); }
};
typedef __half half;
struct __attribute__((aligned(4))) __half2 {
  __half x, y;
};
typedef __half2 half2;
struct __half_raw { unsigned short x; };

inline __half operator+(const __half& a, const __half& b) { return __half(float(a) + float(b)); }
inline __half operator-(const __half& a, const __half& b) { return __half(float(a) - float(b)); }
inline __half operator*(const __half& a, const __half& b) { return __half(float(a) * float(b)); }
inline __half operator/(const __half& a, const __half& b) { return __half(float(a) / float(b)); }
inline __half operator-(const __half& a) { __half r; r.__x = a.__x ^ 0x8000u; return r; }
inline bool operator==(const __half& a, const __half& b) { return float(a) == float(b); }
inline bool operator!=(const __half& a, const __half& b) { return float(a) != float(b); }
inline bool operator<(const __half& a, const __half& b) { return float(a) < float(b); }
inline bool operator>(const __half& a, const __half& b) { return float(a) > float(b); }
inline bool operator<=(const __half& a, const __half& b) { return float(a) <= float(b); }
inline bool operator>=(const __half& a, const __half& b) { return float(a) >= float(b); }

// Round toward zero (drop the bits below the half mantissa), as __float2half_rz does.
inline __half __float2half_rz(float f) {
  const __half n(f);  // nearest; step back one ulp toward zero when that rounded away from zero
  if (std::isnan(f) || std::isinf(f)) return n;
  const float back = float(n);
  if (std::fabs(back) <= std::fabs(f)) return n;
  __half r;
  r.__x = (unsigned short)(n.__x - 1);  // same sign, one ulp smaller in magnitude
  return r;
}
inline __half __float2half(float f) { return __half(f); }
inline __half __float2half_rn(float f) { return __half(f); }
inline __half __double2half(double f) { return __half(::kaudit::detail::double_to_float_odd(f)); }
inline float __half2float(__half h) { return float(h); }
inline __half __int2half_rn(int i) { return __half((float)i); }
inline int __half2int_rn(__half h) { return (int)nearbyintf(float(h)); }
inline int __half2int_rz(__half h) { return (int)float(h); }
inline unsigned short __half_as_ushort(__half h) { return h.__x; }
inline short __half_as_short(__half h) { return (short)h.__x; }
inline __half __ushort_as_half(unsigned short u) { __half h; h.__x = u; return h; }
inline __half __short_as_half(short u) { __half h; h.__x = (unsigned short)u; return h; }
inline __half __hadd(__half a, __half b) { return a + b; }
inline __half __hsub(__half a, __half b) { return a - b; }
inline __half __hmul(__half a, __half b) { return a * b; }
inline __half __hdiv(__half a, __half b) { return a / b; }
inline __half __hneg(__half a) { return -a; }
inline __half __habs(__half a) { __half r; r.__x = a.__x & 0x7fffu; return r; }
// fma rounds once: the product of half operands is exact in double and the sum nearly so; the
// double goes to half through a round-to-odd float, which keeps it one rounding.
inline __half __hfma(__half a, __half b, __half c) {
  return __half(::kaudit::detail::double_to_float_odd((double)float(a) * float(b) + float(c)));
}
inline __half __hmax(__half a, __half b) { return __half(fmaxf(float(a), float(b))); }
inline __half __hmin(__half a, __half b) { return __half(fminf(float(a), float(b))); }
inline bool __hgt(__half a, __half b) { return a > b; }
inline bool __hlt(__half a, __half b) { return a < b; }
inline bool __hge(__half a, __half b) { return a >= b; }
inline bool __hle(__half a, __half b) { return a <= b; }
inline bool __heq(__half a, __half b) { return a == b; }
inline bool __hne(__half a, __half b) { return a != b; }
inline bool __hisnan(__half a) { return (a.__x & 0x7fffu) > 0x7c00u; }
inline int __hisinf(__half a) { return (a.__x & 0x7fffu) == 0x7c00u ? ((a.__x & 0x8000u) ? -1 : 1) : 0; }
inline __half hexp(__half a) { return __half(expf(float(a))); }
inline __half hlog(__half a) { return __half(logf(float(a))); }
inline __half hsqrt(__half a) { return __half(sqrtf(float(a))); }
inline __half hrsqrt(__half a) { return __half(1.0f / sqrtf(float(a))); }
inline __half hrcp(__half a) { return __half(1.0f / float(a)); }
inline __half htanh(__half a) { return __half(tanhf(float(a))); }
inline __half2 __halves2half2(__half a, __half b) { return {a, b}; }
inline __half2 make_half2(__half a, __half b) { return {a, b}; }
inline __half2 __floats2half2_rn(float a, float b) { return {__half(a), __half(b)}; }
inline __half2 __float2half2_rn(float a) { return {__half(a), __half(a)}; }
inline __half2 __half2half2(__half a) { return {a, a}; }
inline float2 __half22float2(__half2 h) { return {float(h.x), float(h.y)}; }
inline __half2 __float22half2_rn(float2 f) { return {__half(f.x), __half(f.y)}; }
inline __half __low2half(__half2 h) { return h.x; }
inline __half __high2half(__half2 h) { return h.y; }
inline float __low2float(__half2 h) { return float(h.x); }
inline float __high2float(__half2 h) { return float(h.y); }
inline __half2 __hadd2(__half2 a, __half2 b) { return {a.x + b.x, a.y + b.y}; }
inline __half2 __hsub2(__half2 a, __half2 b) { return {a.x - b.x, a.y - b.y}; }
inline __half2 __hmul2(__half2 a, __half2 b) { return {a.x * b.x, a.y * b.y}; }
inline __half2 __h2div(__half2 a, __half2 b) { return {a.x / b.x, a.y / b.y}; }
inline __half2 __hfma2(__half2 a, __half2 b, __half2 c) { return {__hfma(a.x, b.x, c.x), __hfma(a.y, b.y, c.y)}; }
inline __half2 __hneg2(__half2 a) { return {-a.x, -a.y}; }
inline __half2 __hmax2(__half2 a, __half2 b) { return {__hmax(a.x, b.x), __hmax(a.y, b.y)}; }
inline __half2 __hmin2(__half2 a, __half2 b) { return {__hmin(a.x, b.x), __hmin(a.y, b.y)}; }
inline __half2 h2exp(__half2 a) { return {hexp(a.x), hexp(a.y)}; }
inline __half2 operator+(const __half2& a, const __half2& b) { return __hadd2(a, b); }
inline __half2 operator-(const __half2& a, const __half2& b) { return __hsub2(a, b); }
inline __half2 operator*(const __half2& a, const __half2& b) { return __hmul2(a, b); }
inline __half2 operator/(const __half2& a, const __half2& b) { return __h2div(a, b); }
inline __half atomicAdd(__half* a, __half v) {
  return ::kaudit::detail::atomic_update(a, [v](__half o) { return o + v; });
}

// bfloat16 (the upper 16 bits of a float, round to nearest even): what the bf16 precision
// mutants round through (cuda_bf16.h's __nv_bfloat16 conversions).
struct __nv_bfloat16_raw { unsigned short x; };
struct __nv_bfloat16 {
  unsigned short __x;
  __nv_bfloat16() = default;
  __nv_bfloat16(const __nv_bfloat16_raw& r) : __x(r.x) {}
  operator __nv_bfloat16_raw() const { return {__x}; }
  explicit __nv_bfloat16(float f) {
    std::uint32_t x;
    std::memcpy(&x, &f, 4);
    if ((x & 0x7fffffffu) > 0x7f800000u) {
      __x = (unsigned short)((x >> 16) | 0x40u);  // quiet NaN
    } else {
      x += 0x7fffu + ((x >> 16) & 1u);
      __x = (unsigned short)(x >> 16);
    }
  }
  operator float() const {
    std::uint32_t x = (std::uint32_t)__x << 16;
    float f;
    std::memcpy(&f, &x, 4);
    return f;
  }
};
typedef __nv_bfloat16 nv_bfloat16;
struct __attribute__((aligned(4))) __nv_bfloat162 {
  __nv_bfloat16 x, y;
  __nv_bfloat162() = default;
  __nv_bfloat162(const __nv_bfloat16& a, const __nv_bfloat16& b) : x(a), y(b) {}
};
typedef __nv_bfloat162 nv_bfloat162;
inline __nv_bfloat16 __float2bfloat16(float f) { return __nv_bfloat16(f); }
inline __nv_bfloat16 __float2bfloat16_rn(float f) { return __nv_bfloat16(f); }
inline __nv_bfloat16 __double2bfloat16(double f) { return __nv_bfloat16(::kaudit::detail::double_to_float_odd(f)); }
// Round toward zero: the upper 16 bits as they are (a NaN stays a NaN).
inline __nv_bfloat16 __float2bfloat16_rz(float f) {
  if (std::isnan(f)) return __nv_bfloat16(f);
  std::uint32_t x;
  std::memcpy(&x, &f, 4);
  __nv_bfloat16 r;
  r.__x = (unsigned short)(x >> 16);
  return r;
}
inline float __bfloat162float(__nv_bfloat16 b) { return float(b); }
inline unsigned short __bfloat16_as_ushort(__nv_bfloat16 b) { return b.__x; }
inline __nv_bfloat16 __ushort_as_bfloat16(unsigned short u) { __nv_bfloat16 b; b.__x = u; return b; }
inline __nv_bfloat162 __floats2bfloat162_rn(float a, float b) { return {__nv_bfloat16(a), __nv_bfloat16(b)}; }
inline __nv_bfloat162 __float2bfloat162_rn(float a) { return {__nv_bfloat16(a), __nv_bfloat16(a)}; }
inline __nv_bfloat162 __float22bfloat162_rn(float2 f) { return {__nv_bfloat16(f.x), __nv_bfloat16(f.y)}; }
inline float2 __bfloat1622float2(__nv_bfloat162 h) { return {float(h.x), float(h.y)}; }
inline __nv_bfloat162 __halves2bfloat162(__nv_bfloat16 a, __nv_bfloat16 b) { return {a, b}; }
inline __nv_bfloat162 make_bfloat162(__nv_bfloat16 a, __nv_bfloat16 b) { return {a, b}; }
inline __nv_bfloat162 __bfloat162bfloat162(__nv_bfloat16 a) { return {a, a}; }
inline __nv_bfloat16 __low2bfloat16(__nv_bfloat162 h) { return h.x; }
inline __nv_bfloat16 __high2bfloat16(__nv_bfloat162 h) { return h.y; }
inline float __low2float(__nv_bfloat162 h) { return float(h.x); }
inline float __high2float(__nv_bfloat162 h) { return float(h.y); }
// sm_90 bf16 arithmetic: the float result of bf16 operands rounded once to bf16 (+, -, * are exact
// in float; fma through double, as for __hfma).
inline __nv_bfloat16 __hadd(__nv_bfloat16 a, __nv_bfloat16 b) { return __nv_bfloat16(float(a) + float(b)); }
inline __nv_bfloat16 __hsub(__nv_bfloat16 a, __nv_bfloat16 b) { return __nv_bfloat16(float(a) - float(b)); }
inline __nv_bfloat16 __hmul(__nv_bfloat16 a, __nv_bfloat16 b) { return __nv_bfloat16(float(a) * float(b)); }
inline __nv_bfloat16 __hdiv(__nv_bfloat16 a, __nv_bfloat16 b) { return __nv_bfloat16(float(a) / float(b)); }
inline __nv_bfloat16 __hfma(__nv_bfloat16 a, __nv_bfloat16 b, __nv_bfloat16 c) {
  return __nv_bfloat16(::kaudit::detail::double_to_float_odd((double)float(a) * float(b) + float(c)));
}
inline __nv_bfloat16 __hneg(__nv_bfloat16 a) { return __ushort_as_bfloat16((unsigned short)(a.__x ^ 0x8000u)); }
inline __nv_bfloat16 __habs(__nv_bfloat16 a) { return __ushort_as_bfloat16((unsigned short)(a.__x & 0x7fffu)); }
inline bool __hisnan(__nv_bfloat16 a) { return (a.__x & 0x7fffu) > 0x7f80u; }
// CUDA's __hmax / __hmin: a NaN operand yields the other one (two NaNs: the canonical NaN), and
// +0 counts as greater than -0 (fmaxf leaves that to the library and the optimiser).
namespace kaudit::detail {
inline __nv_bfloat16 bf16_extreme(__nv_bfloat16 a, __nv_bfloat16 b, bool largest) {
  if (__hisnan(a) && __hisnan(b)) return __ushort_as_bfloat16(0x7fffu);
  if (__hisnan(a)) return b;
  if (__hisnan(b)) return a;
  const float fa = float(a), fb = float(b);
  if (fa != fb) return (fa > fb) == largest ? a : b;
  const bool a_negative = (a.__x & 0x8000u) != 0;  // equal: +0 and -0, or the same value
  return a_negative == largest ? b : a;
}
}  // namespace kaudit::detail
inline __nv_bfloat16 __hmax(__nv_bfloat16 a, __nv_bfloat16 b) { return ::kaudit::detail::bf16_extreme(a, b, true); }
inline __nv_bfloat16 __hmin(__nv_bfloat16 a, __nv_bfloat16 b) { return ::kaudit::detail::bf16_extreme(a, b, false); }
inline __nv_bfloat162 __hadd2(__nv_bfloat162 a, __nv_bfloat162 b) { return {__hadd(a.x, b.x), __hadd(a.y, b.y)}; }
inline __nv_bfloat162 __hsub2(__nv_bfloat162 a, __nv_bfloat162 b) { return {__hsub(a.x, b.x), __hsub(a.y, b.y)}; }
inline __nv_bfloat162 __hmul2(__nv_bfloat162 a, __nv_bfloat162 b) { return {__hmul(a.x, b.x), __hmul(a.y, b.y)}; }
inline __nv_bfloat162 __h2div(__nv_bfloat162 a, __nv_bfloat162 b) { return {__hdiv(a.x, b.x), __hdiv(a.y, b.y)}; }
// cuda_bf16.hpp's operators, which a torch build keeps (it defines __CUDA_NO_BFLOAT16_CONVERSIONS__
// but not __CUDA_NO_BFLOAT16_OPERATORS__): each result rounded to bfloat16.
inline __nv_bfloat16 operator+(const __nv_bfloat16& a, const __nv_bfloat16& b) { return __hadd(a, b); }
inline __nv_bfloat16 operator-(const __nv_bfloat16& a, const __nv_bfloat16& b) { return __hsub(a, b); }
inline __nv_bfloat16 operator*(const __nv_bfloat16& a, const __nv_bfloat16& b) { return __hmul(a, b); }
inline __nv_bfloat16 operator/(const __nv_bfloat16& a, const __nv_bfloat16& b) { return __hdiv(a, b); }
inline __nv_bfloat16 operator-(const __nv_bfloat16& a) { return __hneg(a); }
inline __nv_bfloat16& operator+=(__nv_bfloat16& a, const __nv_bfloat16& b) { return a = __hadd(a, b); }
inline __nv_bfloat16& operator-=(__nv_bfloat16& a, const __nv_bfloat16& b) { return a = __hsub(a, b); }
inline __nv_bfloat16& operator*=(__nv_bfloat16& a, const __nv_bfloat16& b) { return a = __hmul(a, b); }
inline __nv_bfloat16& operator/=(__nv_bfloat16& a, const __nv_bfloat16& b) { return a = __hdiv(a, b); }
inline bool operator==(const __nv_bfloat16& a, const __nv_bfloat16& b) { return float(a) == float(b); }
inline bool operator!=(const __nv_bfloat16& a, const __nv_bfloat16& b) { return float(a) != float(b); }
inline bool operator<(const __nv_bfloat16& a, const __nv_bfloat16& b) { return float(a) < float(b); }
inline bool operator>(const __nv_bfloat16& a, const __nv_bfloat16& b) { return float(a) > float(b); }
inline bool operator<=(const __nv_bfloat16& a, const __nv_bfloat16& b) { return float(a) <= float(b); }
inline bool operator>=(const __nv_bfloat16& a, const __nv_bfloat16& b) { return float(a) >= float(b); }
inline __nv_bfloat162 operator+(const __nv_bfloat162& a, const __nv_bfloat162& b) { return __hadd2(a, b); }
inline __nv_bfloat162 operator-(const __nv_bfloat162& a, const __nv_bfloat162& b) { return __hsub2(a, b); }
inline __nv_bfloat162 operator*(const __nv_bfloat162& a, const __nv_bfloat162& b) { return __hmul2(a, b); }
inline __nv_bfloat162 operator/(const __nv_bfloat162& a, const __nv_bfloat162& b) { return __h2div(a, b); }
inline __nv_bfloat162 __hfma2(__nv_bfloat162 a, __nv_bfloat162 b, __nv_bfloat162 c) {
  return {__hfma(a.x, b.x, c.x), __hfma(a.y, b.y, c.y)};
}
inline __nv_bfloat16 atomicAdd(__nv_bfloat16* a, __nv_bfloat16 v) {
  return ::kaudit::detail::atomic_update(a, [v](__nv_bfloat16 o) { return __hadd(o, v); });
}
