// The subset of the libtorch C++ API that KernelBench host wrappers use, as a thin facade over
// tensors owned by the emulator runtime (kaudit::rt::TensorHandle). Kernel TUs include this
// instead of <torch/extension.h>, so they build in well under a second and need no Python.
//
// Every tensor presents itself as a CUDA tensor on device 0 (is_cuda() is true, .cuda() is a
// no-op): on the CPU backend "device memory" is host memory, and wrappers that check
// `x.is_cuda()` must run unchanged. Anything not provided here fails to compile with a clear
// "no member named ..." error, which the compiler driver reports as unsupported by the backend.
#pragma once
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <ostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include "kaudit_cpu/abi.h"
#include "kaudit_cpu/half.h"

namespace c10 {

enum class ScalarType : int {
  Byte = 0, Char = 1, Short = 2, Int = 3, Long = 4, Half = 5, Float = 6, Double = 7, Bool = 11,
  BFloat16 = 15, Undefined = 99
};
constexpr ScalarType kByte = ScalarType::Byte, kChar = ScalarType::Char, kShort = ScalarType::Short,
    kInt = ScalarType::Int, kLong = ScalarType::Long, kHalf = ScalarType::Half,
    kFloat = ScalarType::Float, kDouble = ScalarType::Double, kBool = ScalarType::Bool,
    kBFloat16 = ScalarType::BFloat16;
constexpr ScalarType kUInt8 = kByte, kInt8 = kChar, kInt16 = kShort, kInt32 = kInt, kInt64 = kLong,
    kFloat16 = kHalf, kFloat32 = kFloat, kFloat64 = kDouble, kF16 = kHalf, kF32 = kFloat, kF64 = kDouble;
inline const char* toString(ScalarType t) {
  switch (t) {
    case ScalarType::Byte: return "Byte";
    case ScalarType::Char: return "Char";
    case ScalarType::Short: return "Short";
    case ScalarType::Int: return "Int";
    case ScalarType::Long: return "Long";
    case ScalarType::Half: return "Half";
    case ScalarType::Float: return "Float";
    case ScalarType::Double: return "Double";
    case ScalarType::Bool: return "Bool";
    case ScalarType::BFloat16: return "BFloat16";
    default: return "Undefined";
  }
}
inline std::ostream& operator<<(std::ostream& os, ScalarType t) { return os << toString(t); }
inline std::size_t elementSize(ScalarType t) {
  switch (t) {
    case ScalarType::Byte: case ScalarType::Char: case ScalarType::Bool: return 1;
    case ScalarType::Short: case ScalarType::Half: case ScalarType::BFloat16: return 2;
    case ScalarType::Int: case ScalarType::Float: return 4;
    default: return 8;
  }
}
inline bool isFloatingType(ScalarType t) {
  return t == ScalarType::Half || t == ScalarType::Float || t == ScalarType::Double || t == ScalarType::BFloat16;
}

// c10::Half has the same bits as __half; arithmetic happens in float like c10's.
struct Half {
  std::uint16_t x;
  Half() = default;
  Half(float f) : x(::kaudit::detail::float_to_half_bits(f)) {}
  Half(const __half& h) : x(h.__x) {}
  operator float() const { return ::kaudit::detail::half_bits_to_float(x); }
  operator __half() const { return __ushort_as_half(x); }
};

// c10::BFloat16 has the same bits as __nv_bfloat16 (the upper half of a float); arithmetic in float.
struct BFloat16 {
  std::uint16_t x;
  BFloat16() = default;
  BFloat16(float f) : x(__nv_bfloat16(f).__x) {}
  // Explicit both ways, as c10 declares them (an implicit pair would make a call overloaded on
  // float and __nv_bfloat16 ambiguous).
  explicit BFloat16(const __nv_bfloat16& b) : x(b.__x) {}
  operator float() const { return float(__ushort_as_bfloat16(x)); }
  explicit operator __nv_bfloat16() const { return __ushort_as_bfloat16(x); }
};

struct Error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

enum class DeviceType : int { CPU = 0, CUDA = 1 };
constexpr DeviceType kCPU = DeviceType::CPU, kCUDA = DeviceType::CUDA;
struct Device {
  DeviceType type_ = DeviceType::CUDA;
  int index_ = 0;
  Device(DeviceType t = DeviceType::CUDA, int i = 0) : type_(t), index_(i < 0 ? 0 : i) {}
  Device(const std::string& s) : type_(s.rfind("cpu", 0) == 0 ? DeviceType::CPU : DeviceType::CUDA) {}
  DeviceType type() const { return type_; }
  int index() const { return index_; }
  bool is_cuda() const { return type_ == DeviceType::CUDA; }
  bool is_cpu() const { return type_ == DeviceType::CPU; }
  bool has_index() const { return true; }
  bool operator==(const Device& o) const { return type_ == o.type_ && index_ == o.index_; }
  bool operator!=(const Device& o) const { return !(*this == o); }
  std::string str() const { return is_cuda() ? "cuda:" + std::to_string(index_) : "cpu"; }
};
inline std::ostream& operator<<(std::ostream& os, const Device& d) { return os << d.str(); }
using DeviceIndex = int;
template <class T> using optional = std::optional<T>;
constexpr std::nullopt_t nullopt = std::nullopt;

enum class Layout { Strided };
constexpr Layout kStrided = Layout::Strided;
enum class MemoryFormat { Contiguous, Preserve, ChannelsLast };

// Non-owning view of int64 sizes, like c10::IntArrayRef.
class IntArrayRef {
  const std::int64_t* data_ = nullptr;
  std::size_t size_ = 0;
 public:
  IntArrayRef() = default;
  IntArrayRef(const std::int64_t& one) : data_(&one), size_(1) {}
  IntArrayRef(const std::int64_t* d, std::size_t n) : data_(d), size_(n) {}
  IntArrayRef(std::initializer_list<std::int64_t> l) : data_(l.begin()), size_(l.size()) {}
  IntArrayRef(const std::vector<std::int64_t>& v) : data_(v.data()), size_(v.size()) {}
  const std::int64_t* data() const { return data_; }
  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  const std::int64_t* begin() const { return data_; }
  const std::int64_t* end() const { return data_ + size_; }
  std::int64_t operator[](std::size_t i) const { return data_[i]; }
  std::int64_t at(std::size_t i) const {
    if (i >= size_) throw Error("IntArrayRef index out of range");
    return data_[i];
  }
  std::int64_t front() const { return data_[0]; }
  std::int64_t back() const { return data_[size_ - 1]; }
  std::vector<std::int64_t> vec() const { return std::vector<std::int64_t>(begin(), end()); }
  bool equals(IntArrayRef o) const {
    if (size_ != o.size_) return false;
    for (std::size_t i = 0; i < size_; ++i) if (data_[i] != o.data_[i]) return false;
    return true;
  }
};
inline bool operator==(IntArrayRef a, IntArrayRef b) { return a.equals(b); }
inline bool operator!=(IntArrayRef a, IntArrayRef b) { return !a.equals(b); }
inline std::ostream& operator<<(std::ostream& os, IntArrayRef a) {
  os << "[";
  for (std::size_t i = 0; i < a.size(); ++i) os << (i ? ", " : "") << a[i];
  return os << "]";
}
using SymIntArrayRef = IntArrayRef;

struct Scalar {
  double v;
  // What kind of number it was made from, as c10::Scalar keeps it: `x * 2` and `x * 2.0` promote an
  // integer tensor differently (ATen's wrapped numbers), and a large integer keeps its digits.
  ::kaudit::rt::ScalarKind kind = ::kaudit::rt::ScalarKind::Floating;
  std::int64_t i = 0;
  Scalar(double d) : v(d) {}
  template <class T, class = std::enable_if_t<std::is_arithmetic_v<T>>> Scalar(T t) : v((double)t) {
    if constexpr (std::is_same_v<T, bool>) kind = ::kaudit::rt::ScalarKind::Boolean, i = t;
    else if constexpr (std::is_integral_v<T>) kind = ::kaudit::rt::ScalarKind::Integral, i = (std::int64_t)t;
  }
  double toDouble() const { return v; }
  float toFloat() const { return (float)v; }
  std::int64_t toLong() const { return (std::int64_t)v; }
};

}  // namespace c10

namespace caffe2 {
struct TypeMeta {
  c10::ScalarType s = c10::ScalarType::Float;
  constexpr TypeMeta() = default;
  constexpr TypeMeta(c10::ScalarType t) : s(t) {}
  c10::ScalarType toScalarType() const { return s; }
  std::size_t itemsize() const { return c10::elementSize(s); }
  const char* name() const { return c10::toString(s); }
  template <class T> static TypeMeta Make();
};
inline bool operator==(TypeMeta a, TypeMeta b) { return a.s == b.s; }
inline bool operator!=(TypeMeta a, TypeMeta b) { return a.s != b.s; }
inline bool operator==(TypeMeta a, c10::ScalarType b) { return a.s == b; }
inline bool operator!=(TypeMeta a, c10::ScalarType b) { return a.s != b; }
inline bool operator==(c10::ScalarType b, TypeMeta a) { return a.s == b; }
inline bool operator!=(c10::ScalarType b, TypeMeta a) { return a.s != b; }
inline std::ostream& operator<<(std::ostream& os, TypeMeta m) { return os << m.name(); }
}  // namespace caffe2

namespace c10 {
inline ScalarType typeMetaToScalarType(caffe2::TypeMeta m) { return m.s; }

struct TensorOptions {
  std::optional<ScalarType> dtype_;
  Device device_{DeviceType::CUDA, 0};
  TensorOptions() = default;
  TensorOptions(ScalarType t) : dtype_(t) {}
  TensorOptions(caffe2::TypeMeta t) : dtype_(t.s) {}
  TensorOptions(Device d) : device_(d) {}
  TensorOptions(DeviceType d) : device_(d) {}
  TensorOptions dtype(ScalarType t) const { TensorOptions o = *this; o.dtype_ = t; return o; }
  TensorOptions dtype(caffe2::TypeMeta t) const { return dtype(t.s); }
  template <class T> TensorOptions dtype() const;
  TensorOptions device(Device d) const { TensorOptions o = *this; o.device_ = d; return o; }
  TensorOptions device(DeviceType t, int i = 0) const { return device(Device(t, i)); }
  TensorOptions device_index(int) const { return *this; }
  TensorOptions requires_grad(bool = true) const { return *this; }
  TensorOptions layout(Layout) const { return *this; }
  TensorOptions memory_format(MemoryFormat) const { return *this; }
  TensorOptions pinned_memory(bool) const { return *this; }
  caffe2::TypeMeta dtype() const { return caffe2::TypeMeta(dtype_.value_or(ScalarType::Float)); }
  Device device() const { return device_; }
  bool has_dtype() const { return dtype_.has_value(); }
};
inline TensorOptions dtype(ScalarType t) { return TensorOptions(t); }
inline TensorOptions device(Device d) { return TensorOptions(d); }
inline TensorOptions device(DeviceType d, int i = 0) { return TensorOptions(Device(d, i)); }
inline TensorOptions requires_grad(bool = true) { return TensorOptions(); }
inline TensorOptions layout(Layout) { return TensorOptions(); }

template <class T> struct CppTypeToScalarType;
#define KAUDIT_MAP(T, S) template <> struct CppTypeToScalarType<T> { static constexpr ScalarType value = ScalarType::S; };
KAUDIT_MAP(std::uint8_t, Byte) KAUDIT_MAP(std::int8_t, Char) KAUDIT_MAP(std::int16_t, Short)
KAUDIT_MAP(std::int32_t, Int) KAUDIT_MAP(std::int64_t, Long) KAUDIT_MAP(Half, Half)
KAUDIT_MAP(__half, Half) KAUDIT_MAP(BFloat16, BFloat16) KAUDIT_MAP(__nv_bfloat16, BFloat16) KAUDIT_MAP(float, Float) KAUDIT_MAP(double, Double) KAUDIT_MAP(bool, Bool)
KAUDIT_MAP(long long, Long)
#undef KAUDIT_MAP
template <class T> TensorOptions TensorOptions::dtype() const { return dtype(CppTypeToScalarType<T>::value); }
}  // namespace c10

template <class T> caffe2::TypeMeta caffe2::TypeMeta::Make() {
  return TypeMeta(c10::CppTypeToScalarType<T>::value);
}

namespace kaudit::detail {
template <class... A>
[[noreturn]] inline void torch_check_fail(const char* file, int line, const char* cond, const A&... msg) {
  std::ostringstream os;
  if constexpr (sizeof...(A) == 0) os << "Expected " << cond << " to be true, but got false.";
  else (os << ... << msg);
  os << " (" << file << ":" << line << ")";
  throw c10::Error(os.str());
}
inline void check_dim(std::int64_t& d, std::int64_t ndim) {
  std::int64_t w = ndim == 0 ? 1 : ndim;
  if (d < -w || d >= w) {
    std::ostringstream os;
    os << "Dimension out of range (expected to be in range of [" << -w << ", " << w - 1 << "], but got " << d << ")";
    throw c10::Error(os.str());
  }
  if (d < 0) d += w;
}
}  // namespace kaudit::detail

#define TORCH_CHECK(cond, ...)                                                          \
  do {                                                                                  \
    if (!(cond)) ::kaudit::detail::torch_check_fail(__FILE__, __LINE__, #cond, ##__VA_ARGS__); \
  } while (0)
#define TORCH_CHECK_VALUE TORCH_CHECK
#define TORCH_CHECK_TYPE TORCH_CHECK
#define TORCH_CHECK_INDEX TORCH_CHECK
#define TORCH_INTERNAL_ASSERT TORCH_CHECK
#define TORCH_WARN(...) ((void)0)
#define AT_ASSERT(cond, ...) TORCH_CHECK(cond, ##__VA_ARGS__)
#define AT_ASSERTM(cond, ...) TORCH_CHECK(cond, ##__VA_ARGS__)
#define AT_ERROR(...) ::kaudit::detail::torch_check_fail(__FILE__, __LINE__, "AT_ERROR", ##__VA_ARGS__)
#define TORCH_CHECK_EQ(a, b) TORCH_CHECK((a) == (b))
#define TORCH_CHECK_NE(a, b) TORCH_CHECK((a) != (b))
#define TORCH_CHECK_LT(a, b) TORCH_CHECK((a) < (b))
#define TORCH_CHECK_LE(a, b) TORCH_CHECK((a) <= (b))
#define TORCH_CHECK_GT(a, b) TORCH_CHECK((a) > (b))
#define TORCH_CHECK_GE(a, b) TORCH_CHECK((a) >= (b))

namespace at {
using namespace c10;
class Tensor;

// Accessors, as ATen's (ATen/core/TensorAccessor.h): a[i] of an N-dim accessor is the (N-1)-dim
// view at index i along its first dim, and of a 1-dim one a reference to the element; strides in
// elements. A packed accessor carries its sizes and strides by value, so a kernel can take it as
// a parameter; the 32-bit one indexes with int32_t, as on the GPU. No bounds are checked (ATen
// checks none either): an index past a dim reaches whatever memory is there.
// stride * index in index_t, wrapping as the GPU's integer multiply does (a 32-bit accessor's
// product past 2^31 is undefined behaviour in C++, not a wrap).
template <class index_t>
inline index_t accessor_offset(index_t stride, index_t i) {
  using U = std::make_unsigned_t<index_t>;
  return (index_t)((U)stride * (U)i);
}
template <class T> struct DefaultPtrTraits { using PtrType = T*; };
template <class T> struct RestrictPtrTraits { using PtrType = T* __restrict__; };

template <class T, std::size_t N, template <class> class PtrTraits = DefaultPtrTraits, class index_t = std::int64_t>
class TensorAccessor {
 public:
  using PtrType = typename PtrTraits<T>::PtrType;
  TensorAccessor(PtrType data, const index_t* sizes, const index_t* strides) : data_(data), sizes_(sizes), strides_(strides) {}
  decltype(auto) operator[](index_t i) const {
    if constexpr (N == 1) return static_cast<T&>(data_[accessor_offset(strides_[0], i)]);
    else return TensorAccessor<T, N - 1, PtrTraits, index_t>(data_ + accessor_offset(strides_[0], i), sizes_ + 1, strides_ + 1);
  }
  index_t size(index_t d) const { return sizes_[d]; }
  index_t stride(index_t d) const { return strides_[d]; }
  const index_t* sizes() const { return sizes_; }
  const index_t* strides() const { return strides_; }
  PtrType data() const { return data_; }

 private:
  PtrType data_;
  const index_t* sizes_;
  const index_t* strides_;
};

template <class T, std::size_t N, template <class> class PtrTraits = DefaultPtrTraits, class index_t = std::int64_t>
class GenericPackedTensorAccessor {
 public:
  using PtrType = typename PtrTraits<T>::PtrType;
  GenericPackedTensorAccessor(PtrType data, const std::int64_t* sizes, const std::int64_t* strides) : data_(data) {
    for (std::size_t d = 0; d < N; ++d) {
      sizes_[d] = (index_t)sizes[d];
      strides_[d] = (index_t)strides[d];
    }
  }
  decltype(auto) operator[](index_t i) const {
    if constexpr (N == 1) return static_cast<T&>(data_[accessor_offset(strides_[0], i)]);
    else return TensorAccessor<T, N - 1, PtrTraits, index_t>(data_ + accessor_offset(strides_[0], i), sizes_ + 1, strides_ + 1);
  }
  index_t size(index_t d) const { return sizes_[d]; }
  index_t stride(index_t d) const { return strides_[d]; }
  PtrType data() const { return data_; }

 private:
  PtrType data_;
  index_t sizes_[N];
  index_t strides_[N];
};
template <class T, std::size_t N, template <class> class PtrTraits = DefaultPtrTraits>
using PackedTensorAccessor32 = GenericPackedTensorAccessor<T, N, PtrTraits, std::int32_t>;
template <class T, std::size_t N, template <class> class PtrTraits = DefaultPtrTraits>
using PackedTensorAccessor64 = GenericPackedTensorAccessor<T, N, PtrTraits, std::int64_t>;
template <class T, std::size_t N, template <class> class PtrTraits = DefaultPtrTraits, class index_t = std::int64_t>
using PackedTensorAccessor = GenericPackedTensorAccessor<T, N, PtrTraits, index_t>;

struct DeprecatedTypeProperties {
  c10::ScalarType s;
  bool is_cuda() const { return true; }
  c10::ScalarType scalarType() const { return s; }
};

class Tensor {
  ::kaudit::rt::TensorHandle* h_ = nullptr;
  ::kaudit::rt::TensorHandle* need() const {
    if (!h_) throw c10::Error("tensor is undefined");
    return h_;
  }
  // ATen's checks: the accessor's rank is the tensor's; a 32-bit one needs every index to fit.
  void check_accessor(std::size_t n, bool index32) const {
    if ((std::size_t)dim() != n)
      throw c10::Error("TensorAccessor expected " + std::to_string(n) + " dims but tensor has " + std::to_string(dim()));
    if (index32 && numel() > 0x7fffffff)
      throw c10::Error("numel needs to be smaller than int32_t max; otherwise, please use packed_accessor64");
  }
  template <class T> void check_type() const {
    if constexpr (!std::is_void_v<T>) {
      auto want = c10::CppTypeToScalarType<std::remove_cv_t<T>>::value;
      if (scalar_type() != want) {
        std::ostringstream os;
        os << "expected scalar type " << want << " but found " << scalar_type();
        throw c10::Error(os.str());
      }
    }
  }

 public:
  Tensor() = default;
  // Adopts a handle the runtime returned with one reference.
  static Tensor adopt(::kaudit::rt::TensorHandle* h) { Tensor t; t.h_ = h; return t; }
  ::kaudit::rt::TensorHandle* handle() const { return h_; }
  Tensor(const Tensor& o) : h_(o.h_ ? ::kaudit::rt::t_retain(o.h_) : nullptr) {}
  Tensor(Tensor&& o) noexcept : h_(o.h_) { o.h_ = nullptr; }
  Tensor& operator=(const Tensor& o) {
    if (this != &o) { Tensor tmp(o); std::swap(h_, tmp.h_); }
    return *this;
  }
  Tensor& operator=(Tensor&& o) noexcept { std::swap(h_, o.h_); return *this; }
  ~Tensor() { if (h_) ::kaudit::rt::t_release(h_); }

  bool defined() const { return h_ != nullptr; }
  std::int64_t dim() const { return ::kaudit::rt::t_dim(need()); }
  std::int64_t ndimension() const { return dim(); }
  c10::IntArrayRef sizes() const { return {::kaudit::rt::t_sizes(need()), (std::size_t)dim()}; }
  c10::IntArrayRef strides() const { return {::kaudit::rt::t_strides(need()), (std::size_t)dim()}; }
  std::int64_t size(std::int64_t d) const { ::kaudit::detail::check_dim(d, dim()); return dim() ? sizes()[d] : 1; }
  std::int64_t stride(std::int64_t d) const { ::kaudit::detail::check_dim(d, dim()); return dim() ? strides()[d] : 1; }
  std::int64_t numel() const { return ::kaudit::rt::t_numel(need()); }
  c10::ScalarType scalar_type() const { return (c10::ScalarType)::kaudit::rt::t_dtype(need()); }
  caffe2::TypeMeta dtype() const { return caffe2::TypeMeta(scalar_type()); }
  DeprecatedTypeProperties type() const { return {scalar_type()}; }
  std::size_t element_size() const { return c10::elementSize(scalar_type()); }
  std::size_t itemsize() const { return element_size(); }
  std::size_t nbytes() const { return element_size() * (std::size_t)numel(); }
  bool is_contiguous(c10::MemoryFormat = c10::MemoryFormat::Contiguous) const { return ::kaudit::rt::t_is_contiguous(need()); }
  bool is_cuda() const { need(); return true; }
  bool is_cpu() const { need(); return false; }
  bool is_floating_point() const { return c10::isFloatingType(scalar_type()); }
  bool requires_grad() const { return false; }
  int get_device() const { return 0; }
  c10::Device device() const { need(); return c10::Device(c10::DeviceType::CUDA, 0); }
  c10::TensorOptions options() const { return c10::TensorOptions(scalar_type()).device(device()); }
  c10::Layout layout() const { return c10::Layout::Strided; }

  void* data_ptr() const { return ::kaudit::rt::t_data(need()); }
  template <class T> T* data_ptr() const { check_type<T>(); return static_cast<T*>(::kaudit::rt::t_data(need())); }
  template <class T> T* data() const { return data_ptr<T>(); }
  template <class T> T* mutable_data_ptr() const { return data_ptr<T>(); }
  template <class T> const T* const_data_ptr() const { return data_ptr<T>(); }
  const void* const_data_ptr() const { return data_ptr(); }
  void* mutable_data_ptr() const { return data_ptr(); }
  // As in ATen, not on a temporary: the accessor would outlive the tensor it points into.
  template <class T, std::size_t N> TensorAccessor<T, N> accessor() && = delete;
  template <class T, std::size_t N, template <class> class PtrTraits = DefaultPtrTraits>
  PackedTensorAccessor32<T, N, PtrTraits> packed_accessor32() && = delete;
  template <class T, std::size_t N, template <class> class PtrTraits = DefaultPtrTraits>
  PackedTensorAccessor64<T, N, PtrTraits> packed_accessor64() && = delete;
  template <class T, std::size_t N>
  TensorAccessor<T, N> accessor() const& {
    check_accessor(N, false);
    return {data_ptr<T>(), ::kaudit::rt::t_sizes(need()), ::kaudit::rt::t_strides(need())};
  }
  template <class T, std::size_t N, template <class> class PtrTraits = DefaultPtrTraits, class index_t = std::int64_t>
  GenericPackedTensorAccessor<T, N, PtrTraits, index_t> generic_packed_accessor() const& {
    check_accessor(N, sizeof(index_t) < 8);
    return {data_ptr<T>(), ::kaudit::rt::t_sizes(need()), ::kaudit::rt::t_strides(need())};
  }
  template <class T, std::size_t N, template <class> class PtrTraits = DefaultPtrTraits>
  PackedTensorAccessor32<T, N, PtrTraits> packed_accessor32() const& {
    return generic_packed_accessor<T, N, PtrTraits, std::int32_t>();
  }
  template <class T, std::size_t N, template <class> class PtrTraits = DefaultPtrTraits>
  PackedTensorAccessor64<T, N, PtrTraits> packed_accessor64() const& {
    return generic_packed_accessor<T, N, PtrTraits, std::int64_t>();
  }
  template <class T> T item() const {
    if (numel() != 1) throw c10::Error("a Tensor with more than one element cannot be converted to Scalar");
    Tensor d = to(c10::ScalarType::Double);
    return (T)*static_cast<double*>(d.data_ptr());
  }

  Tensor contiguous(c10::MemoryFormat = c10::MemoryFormat::Contiguous) const { return adopt(::kaudit::rt::t_contiguous(need())); }
  Tensor clone(c10::MemoryFormat = c10::MemoryFormat::Preserve) const { return adopt(::kaudit::rt::t_clone(need())); }
  Tensor to(c10::ScalarType t, bool = false, bool = false) const { return adopt(::kaudit::rt::t_to_dtype(need(), (int)t)); }
  Tensor to(caffe2::TypeMeta t) const { return to(t.s); }
  Tensor to(c10::Device, bool = false, bool = false) const { return *this; }
  Tensor to(c10::DeviceType, bool = false, bool = false) const { return *this; }
  Tensor to(c10::Device, c10::ScalarType t, bool = false, bool = false) const { return to(t); }
  Tensor to(const c10::TensorOptions& o, bool = false, bool = false) const { return o.has_dtype() ? to(o.dtype().s) : *this; }
  Tensor to(const Tensor& other) const { return to(other.scalar_type()); }
  Tensor type_as(const Tensor& other) const { return to(other.scalar_type()); }
  Tensor cuda() const { need(); return *this; }
  Tensor cpu() const { need(); return *this; }
  Tensor detach() const { need(); return *this; }
  Tensor view(c10::IntArrayRef s) const { return adopt(::kaudit::rt::t_view(need(), s.data(), s.size(), false)); }
  Tensor reshape(c10::IntArrayRef s) const { return adopt(::kaudit::rt::t_view(need(), s.data(), s.size(), true)); }
  Tensor view_as(const Tensor& o) const { return view(o.sizes()); }
  Tensor reshape_as(const Tensor& o) const { return reshape(o.sizes()); }
  Tensor transpose(std::int64_t a, std::int64_t b) const { return adopt(::kaudit::rt::t_transpose(need(), a, b)); }
  Tensor t() const { return transpose(0, 1); }
  Tensor permute(c10::IntArrayRef d) const { return adopt(::kaudit::rt::t_permute(need(), d.data(), d.size())); }
  Tensor unsqueeze(std::int64_t d) const { return adopt(::kaudit::rt::t_unsqueeze(need(), d)); }
  Tensor squeeze() const { return adopt(::kaudit::rt::t_squeeze(need(), 0, true)); }
  Tensor squeeze(std::int64_t d) const { return adopt(::kaudit::rt::t_squeeze(need(), d, false)); }
  Tensor flatten(std::int64_t s = 0, std::int64_t e = -1) const { return adopt(::kaudit::rt::t_flatten(need(), s, e)); }
  Tensor narrow(std::int64_t d, std::int64_t st, std::int64_t len) const { return adopt(::kaudit::rt::t_narrow(need(), d, st, len)); }
  Tensor select(std::int64_t d, std::int64_t i) const { return adopt(::kaudit::rt::t_select(need(), d, i)); }
  Tensor expand(c10::IntArrayRef s, bool = false) const { return adopt(::kaudit::rt::t_expand(need(), s.data(), s.size())); }
  // Library compute: what a hybrid wrapper hands to cuBLAS (the big GEMM, its own kernel doing the
  // tail), done by ATen in the runtime and counted per run for the gate "no library compute".
  Tensor matmul(const Tensor& o) const { return adopt(::kaudit::rt::t_matmul(need(), o.need())); }
  Tensor mm(const Tensor& o) const { return adopt(::kaudit::rt::t_mm(need(), o.need())); }
  Tensor bmm(const Tensor& o) const { return adopt(::kaudit::rt::t_bmm(need(), o.need())); }
  Tensor addmm(const Tensor& a, const Tensor& b, c10::Scalar beta = 1, c10::Scalar alpha = 1) const {
    return adopt(::kaudit::rt::t_addmm(need(), a.need(), b.need(), beta.toDouble(), alpha.toDouble()));
  }
  // What wrappers compute with torch around their kernels (a loss's final mean, a norm's
  // statistics, `1 - x`): ATen's operators in the runtime (kaudit::rt::t_reduce, t_binary,
  // t_unary), not counted as library compute. Overloads as ATen's: all dimensions, one, or a list.
  Tensor reduce(::kaudit::rt::Reduce k, c10::IntArrayRef d, bool keepdim, int correction = 1) const {
    return adopt(::kaudit::rt::t_reduce(need(), (int)k, d.data(), d.size(), keepdim, correction));
  }
  Tensor sum() const { return reduce(::kaudit::rt::Reduce::Sum, {}, false); }
  Tensor sum(c10::IntArrayRef d, bool keepdim = false) const { return reduce(::kaudit::rt::Reduce::Sum, d, keepdim); }
  Tensor mean() const { return reduce(::kaudit::rt::Reduce::Mean, {}, false); }
  Tensor mean(c10::IntArrayRef d, bool keepdim = false) const { return reduce(::kaudit::rt::Reduce::Mean, d, keepdim); }
  Tensor var(bool unbiased = true) const { return reduce(::kaudit::rt::Reduce::Var, {}, false, unbiased); }
  Tensor var(c10::IntArrayRef d, bool unbiased = true, bool keepdim = false) const {
    return reduce(::kaudit::rt::Reduce::Var, d, keepdim, unbiased);
  }
  Tensor std(bool unbiased = true) const { return reduce(::kaudit::rt::Reduce::Std, {}, false, unbiased); }
  Tensor std(c10::IntArrayRef d, bool unbiased = true, bool keepdim = false) const {
    return reduce(::kaudit::rt::Reduce::Std, d, keepdim, unbiased);
  }
  Tensor amax(c10::IntArrayRef d = {}, bool keepdim = false) const { return reduce(::kaudit::rt::Reduce::Amax, d, keepdim); }
  Tensor amin(c10::IntArrayRef d = {}, bool keepdim = false) const { return reduce(::kaudit::rt::Reduce::Amin, d, keepdim); }
  Tensor unary(::kaudit::rt::Unary op) const { return adopt(::kaudit::rt::t_unary(need(), (int)op)); }
  Tensor neg() const { return unary(::kaudit::rt::Unary::Neg); }
  Tensor sqrt() const { return unary(::kaudit::rt::Unary::Sqrt); }
  Tensor rsqrt() const { return unary(::kaudit::rt::Unary::Rsqrt); }
  Tensor exp() const { return unary(::kaudit::rt::Unary::Exp); }
  Tensor log() const { return unary(::kaudit::rt::Unary::Log); }
  Tensor abs() const { return unary(::kaudit::rt::Unary::Abs); }
  Tensor tanh() const { return unary(::kaudit::rt::Unary::Tanh); }
  Tensor sigmoid() const { return unary(::kaudit::rt::Unary::Sigmoid); }
  Tensor relu() const { return unary(::kaudit::rt::Unary::Relu); }
  Tensor binary(const Tensor& o, ::kaudit::rt::Binary op) const { return adopt(::kaudit::rt::t_binary(need(), o.need(), (int)op)); }
  Tensor binary(c10::Scalar s, ::kaudit::rt::Binary op, bool scalar_first = false) const {
    return adopt(::kaudit::rt::t_binary_scalar(need(), s.v, s.i, (int)s.kind, (int)op, scalar_first));
  }
  Tensor add(const Tensor& o) const { return binary(o, ::kaudit::rt::Binary::Add); }
  Tensor sub(const Tensor& o) const { return binary(o, ::kaudit::rt::Binary::Sub); }
  Tensor mul(const Tensor& o) const { return binary(o, ::kaudit::rt::Binary::Mul); }
  Tensor div(const Tensor& o) const { return binary(o, ::kaudit::rt::Binary::Div); }
  Tensor add(c10::Scalar s) const { return binary(s, ::kaudit::rt::Binary::Add); }
  Tensor sub(c10::Scalar s) const { return binary(s, ::kaudit::rt::Binary::Sub); }
  Tensor mul(c10::Scalar s) const { return binary(s, ::kaudit::rt::Binary::Mul); }
  Tensor div(c10::Scalar s) const { return binary(s, ::kaudit::rt::Binary::Div); }
  Tensor pow(c10::Scalar s) const { return binary(s, ::kaudit::rt::Binary::Pow); }
  Tensor pow(const Tensor& o) const { return binary(o, ::kaudit::rt::Binary::Pow); }
  // x[i]: the i-th slice along the first dimension, a view (as ATen's).
  Tensor operator[](std::int64_t i) const { return select(0, i); }
  Tensor& zero_() { ::kaudit::rt::t_fill(need(), 0.0); return *this; }
  Tensor& fill_(c10::Scalar v) { ::kaudit::rt::t_fill(need(), v.toDouble()); return *this; }
  Tensor& copy_(const Tensor& src, bool = false) { ::kaudit::rt::t_copy(need(), src.need()); return *this; }
  const Tensor& zero_() const { ::kaudit::rt::t_fill(need(), 0.0); return *this; }
  const Tensor& fill_(c10::Scalar v) const { ::kaudit::rt::t_fill(need(), v.toDouble()); return *this; }
  const Tensor& copy_(const Tensor& src, bool = false) const { ::kaudit::rt::t_copy(need(), src.need()); return *this; }
};

inline c10::optional<c10::Device> device_of(const Tensor& t) {
  if (!t.defined()) return c10::nullopt;
  return t.device();
}
inline Tensor empty(c10::IntArrayRef s, c10::TensorOptions o = {}, std::optional<c10::MemoryFormat> = std::nullopt) {
  return Tensor::adopt(::kaudit::rt::t_empty(s.data(), s.size(), (int)o.dtype().s));
}
inline Tensor empty(c10::IntArrayRef s, c10::ScalarType t) { return empty(s, c10::TensorOptions(t)); }
inline Tensor full(c10::IntArrayRef s, c10::Scalar v, c10::TensorOptions o = {}) {
  return Tensor::adopt(::kaudit::rt::t_full(s.data(), s.size(), (int)o.dtype().s, v.toDouble()));
}
inline Tensor zeros(c10::IntArrayRef s, c10::TensorOptions o = {}) { return full(s, 0.0, o); }
inline Tensor ones(c10::IntArrayRef s, c10::TensorOptions o = {}) { return full(s, 1.0, o); }
inline c10::TensorOptions like_options(const Tensor& t, const c10::TensorOptions& o) {
  return o.has_dtype() ? o : t.options();
}
inline Tensor empty_like(const Tensor& t, c10::TensorOptions o = {}, std::optional<c10::MemoryFormat> = std::nullopt) {
  return empty(t.sizes(), like_options(t, o));
}
inline Tensor empty_like(const Tensor& t, c10::MemoryFormat) { return empty(t.sizes(), t.options()); }
inline Tensor zeros_like(const Tensor& t, c10::TensorOptions o = {}) { return zeros(t.sizes(), like_options(t, o)); }
inline Tensor ones_like(const Tensor& t, c10::TensorOptions o = {}) { return ones(t.sizes(), like_options(t, o)); }
inline Tensor full_like(const Tensor& t, c10::Scalar v, c10::TensorOptions o = {}) { return full(t.sizes(), v, like_options(t, o)); }
inline Tensor empty_strided(c10::IntArrayRef s, c10::IntArrayRef, c10::TensorOptions o = {}) { return empty(s, o); }
#define KAUDIT_TENSOR_OPERATOR(SYM, OP)                                                                   \
  inline Tensor operator SYM(const Tensor& a, const Tensor& b) { return a.binary(b, ::kaudit::rt::Binary::OP); } \
  inline Tensor operator SYM(const Tensor& a, c10::Scalar s) { return a.binary(s, ::kaudit::rt::Binary::OP); }   \
  inline Tensor operator SYM(c10::Scalar s, const Tensor& a) { return a.binary(s, ::kaudit::rt::Binary::OP, true); }
KAUDIT_TENSOR_OPERATOR(+, Add)
KAUDIT_TENSOR_OPERATOR(-, Sub)
KAUDIT_TENSOR_OPERATOR(*, Mul)
KAUDIT_TENSOR_OPERATOR(/, Div)
#undef KAUDIT_TENSOR_OPERATOR
inline Tensor operator-(const Tensor& a) { return a.neg(); }
inline Tensor sum(const Tensor& t) { return t.sum(); }
inline Tensor sum(const Tensor& t, c10::IntArrayRef d, bool keepdim = false) { return t.sum(d, keepdim); }
inline Tensor mean(const Tensor& t) { return t.mean(); }
inline Tensor mean(const Tensor& t, c10::IntArrayRef d, bool keepdim = false) { return t.mean(d, keepdim); }
inline Tensor var(const Tensor& t, c10::IntArrayRef d, bool unbiased = true, bool keepdim = false) { return t.var(d, unbiased, keepdim); }
inline Tensor amax(const Tensor& t, c10::IntArrayRef d = {}, bool keepdim = false) { return t.amax(d, keepdim); }
inline Tensor amin(const Tensor& t, c10::IntArrayRef d = {}, bool keepdim = false) { return t.amin(d, keepdim); }
inline Tensor sqrt(const Tensor& t) { return t.sqrt(); }
inline Tensor rsqrt(const Tensor& t) { return t.rsqrt(); }
inline Tensor exp(const Tensor& t) { return t.exp(); }
inline Tensor log(const Tensor& t) { return t.log(); }
inline Tensor abs(const Tensor& t) { return t.abs(); }
inline Tensor tanh(const Tensor& t) { return t.tanh(); }
inline Tensor sigmoid(const Tensor& t) { return t.sigmoid(); }
inline Tensor relu(const Tensor& t) { return t.relu(); }
inline Tensor pow(const Tensor& t, c10::Scalar s) { return t.pow(s); }
inline Tensor maximum(const Tensor& a, const Tensor& b) { return a.binary(b, ::kaudit::rt::Binary::Max); }
inline Tensor minimum(const Tensor& a, const Tensor& b) { return a.binary(b, ::kaudit::rt::Binary::Min); }
inline Tensor matmul(const Tensor& a, const Tensor& b) { return a.matmul(b); }
inline Tensor mm(const Tensor& a, const Tensor& b) { return a.mm(b); }
inline Tensor bmm(const Tensor& a, const Tensor& b) { return a.bmm(b); }
inline Tensor addmm(const Tensor& c, const Tensor& a, const Tensor& b, c10::Scalar beta = 1, c10::Scalar alpha = 1) {
  return c.addmm(a, b, beta, alpha);
}
// x @ w^T (+ bias when given and defined), as torch::linear: one signature, as libtorch's.
inline Tensor linear(const Tensor& x, const Tensor& w, const c10::optional<Tensor>& bias = {}) {
  if (!x.defined() || !w.defined()) throw c10::Error("tensor is undefined");
  const bool has_bias = bias.has_value() && bias->defined();
  return Tensor::adopt(::kaudit::rt::t_linear(x.handle(), w.handle(), has_bias ? bias->handle() : nullptr));
}
using c10::Half;
using c10::BFloat16;
using c10::IntArrayRef;
using c10::Scalar;
using c10::TensorOptions;
using c10::Device;
using c10::DeviceType;
using c10::ScalarType;
using c10::toString;
}  // namespace at

namespace torch {
using namespace at;
using at::Tensor;
using at::empty;
using at::zeros;
using at::ones;
using at::full;
using at::empty_like;
using at::zeros_like;
using at::ones_like;
using at::full_like;
using c10::dtype;
using c10::device;
using c10::requires_grad;
namespace autograd { using at::Tensor; }
namespace nn::functional {
using at::linear;
}  // namespace nn::functional
}  // namespace torch

// AT_DISPATCH_*: a switch over the runtime dtype defining scalar_t, then calling the lambda.
namespace kaudit::detail {
inline c10::ScalarType dispatch_type(c10::ScalarType t) { return t; }
inline c10::ScalarType dispatch_type(caffe2::TypeMeta t) { return t.s; }
inline c10::ScalarType dispatch_type(at::DeprecatedTypeProperties t) { return t.s; }
}  // namespace kaudit::detail
#define KAUDIT_DISPATCH_CASE(ENUM, TYPE, ...) \
  case c10::ScalarType::ENUM: { using scalar_t = TYPE; return __VA_ARGS__(); }
#define KAUDIT_DISPATCH_SWITCH(TYPE, NAME, CASES)                                                  \
  [&] {                                                                                            \
    const c10::ScalarType kaudit_st = ::kaudit::detail::dispatch_type(TYPE);                       \
    switch (kaudit_st) {                                                                           \
      CASES                                                                                        \
      default: ::kaudit::detail::torch_check_fail(__FILE__, __LINE__, "dispatch", NAME,            \
                                                  " not implemented for '", c10::toString(kaudit_st), "'"); \
    }                                                                                              \
  }()
#define AT_DISPATCH_FLOATING_TYPES(TYPE, NAME, ...)                    \
  KAUDIT_DISPATCH_SWITCH(TYPE, NAME,                                   \
    KAUDIT_DISPATCH_CASE(Double, double, __VA_ARGS__)                  \
    KAUDIT_DISPATCH_CASE(Float, float, __VA_ARGS__))
#define AT_DISPATCH_FLOATING_TYPES_AND_HALF(TYPE, NAME, ...)           \
  KAUDIT_DISPATCH_SWITCH(TYPE, NAME,                                   \
    KAUDIT_DISPATCH_CASE(Double, double, __VA_ARGS__)                  \
    KAUDIT_DISPATCH_CASE(Float, float, __VA_ARGS__)                    \
    KAUDIT_DISPATCH_CASE(Half, at::Half, __VA_ARGS__))
// The extra types named (kHalf, kBFloat16: the only ones KernelBench wrappers pass) are not read:
// both reduced-precision cases are always there, so a wrapper dispatching a dtype its real build
// would refuse runs instead of failing (no corpus or imported kernel relies on the refusal).
#define AT_DISPATCH_FLOATING_TYPES_AND(S1, TYPE, NAME, ...) AT_DISPATCH_FLOATING_TYPES_AND2(S1, S1, TYPE, NAME, __VA_ARGS__)
#define AT_DISPATCH_FLOATING_TYPES_AND2(S1, S2, TYPE, NAME, ...)       \
  KAUDIT_DISPATCH_SWITCH(TYPE, NAME,                                   \
    KAUDIT_DISPATCH_CASE(Double, double, __VA_ARGS__)                  \
    KAUDIT_DISPATCH_CASE(Float, float, __VA_ARGS__)                    \
    KAUDIT_DISPATCH_CASE(Half, at::Half, __VA_ARGS__)                  \
    KAUDIT_DISPATCH_CASE(BFloat16, at::BFloat16, __VA_ARGS__))
#define AT_DISPATCH_INTEGRAL_TYPES(TYPE, NAME, ...)                    \
  KAUDIT_DISPATCH_SWITCH(TYPE, NAME,                                   \
    KAUDIT_DISPATCH_CASE(Byte, std::uint8_t, __VA_ARGS__)              \
    KAUDIT_DISPATCH_CASE(Char, std::int8_t, __VA_ARGS__)               \
    KAUDIT_DISPATCH_CASE(Short, std::int16_t, __VA_ARGS__)             \
    KAUDIT_DISPATCH_CASE(Int, std::int32_t, __VA_ARGS__)               \
    KAUDIT_DISPATCH_CASE(Long, std::int64_t, __VA_ARGS__))
#define AT_DISPATCH_ALL_TYPES(TYPE, NAME, ...)                         \
  KAUDIT_DISPATCH_SWITCH(TYPE, NAME,                                   \
    KAUDIT_DISPATCH_CASE(Byte, std::uint8_t, __VA_ARGS__)              \
    KAUDIT_DISPATCH_CASE(Char, std::int8_t, __VA_ARGS__)               \
    KAUDIT_DISPATCH_CASE(Short, std::int16_t, __VA_ARGS__)             \
    KAUDIT_DISPATCH_CASE(Int, std::int32_t, __VA_ARGS__)               \
    KAUDIT_DISPATCH_CASE(Long, std::int64_t, __VA_ARGS__)              \
    KAUDIT_DISPATCH_CASE(Float, float, __VA_ARGS__)                    \
    KAUDIT_DISPATCH_CASE(Double, double, __VA_ARGS__))
#define AT_DISPATCH_ALL_TYPES_AND_HALF(TYPE, NAME, ...)                \
  KAUDIT_DISPATCH_SWITCH(TYPE, NAME,                                   \
    KAUDIT_DISPATCH_CASE(Int, std::int32_t, __VA_ARGS__)               \
    KAUDIT_DISPATCH_CASE(Long, std::int64_t, __VA_ARGS__)              \
    KAUDIT_DISPATCH_CASE(Float, float, __VA_ARGS__)                    \
    KAUDIT_DISPATCH_CASE(Double, double, __VA_ARGS__)                  \
    KAUDIT_DISPATCH_CASE(Half, at::Half, __VA_ARGS__))

// pybind11 module blocks in cuda_sources are compiled and ignored.
namespace kaudit::detail {
struct PyModuleStub {
  template <class... A> PyModuleStub& def(A&&...) { return *this; }
  const char*& doc() { return doc_; }  // m.doc() = "..."
  const char* doc_ = nullptr;
};
}  // namespace kaudit::detail
// The same stand-in as the GPU builds' (runtime/cuda/include/torch/extension.h): the CudaModels
// test and Gpu.EveryHostIdiomFixtureBuildsAgainstTheMachinesLibtorch build the same fixtures.
namespace pybind11 {
struct object {};
struct none : object {};
struct arg {
  explicit arg(const char*) {}
  template <class T> arg& operator=(T&&) { return *this; }
  arg& noconvert(bool = true) { return *this; }
  arg& none(bool = true) { return *this; }
};
enum class return_value_policy { automatic, copy, move, reference, take_ownership };
template <class... T> struct call_guard {};
struct gil_scoped_release {};
}  // namespace pybind11
namespace py = pybind11;
#define TORCH_EXTENSION_NAME kaudit_extension
#define PYBIND11_MODULE(name, m) [[maybe_unused]] static void kaudit_pybind_##name(::kaudit::detail::PyModuleStub& m)
