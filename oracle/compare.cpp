#include "compare.h"

#include <ATen/ATen.h>
#include <ATen/ExpandUtils.h>
#include "oracle/host_loop.h"

#include <algorithm>
#include <cmath>
#include <type_traits>
#include <limits>
#include <sstream>
#include <stdexcept>

namespace kaudit::oracle {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

std::string shape_str(at::IntArrayRef s) {
  std::ostringstream os;
  os << '[';
  for (size_t i = 0; i < s.size(); ++i) os << (i ? ", " : "") << s[i];
  os << ']';
  return os.str();
}

std::string num(double v) {
  std::ostringstream os;
  os.precision(9);
  os << v;
  return os.str();
}

// Contiguous CPU double copy (bool -> 0/1, as torch.isclose converts bool to the default dtype).
at::Tensor as_double(const at::Tensor& t) { return t.to(at::kCPU).to(at::kDouble).contiguous(); }

// Tracks the worst element: a non-finite mismatch first (first such index), else the largest
// excess err - allowed.
struct Worst {
  int64_t index = -1;
  double excess = -kInf;
  double got = 0, expected = 0, err = 0, allowed = 0;
  void consider(int64_t i, double g, double e, double er, double al, bool close) {
    // A failing element with a NaN/inf error counts as infinitely bad; ties keep the first.
    double x = close ? er - al : (std::isfinite(er) ? er - al : kInf);
    if (std::isnan(x)) x = -kInf;  // close elements with inf error (inf == inf): least notable
    if (index < 0 || x > excess)
      index = i, excess = x, got = g, expected = e, err = er, allowed = al;
  }
};

// The element passes below run over fixed chunks, each on a thread of kaudit's pool (host_loop.h), and merge in
// chunk order: mismatch counts add, a maximum is exact, and the worst element is the first of the
// largest excess within a chunk and, merged with a strict `>`, across chunks; so the result is the
// serial loop's to the bit, on any number of threads. They read each tensor in its own dtype and
// widen element by element (static_cast, as .to(kDouble) does): at native shapes the double copies
// the comparison used to make cost more than the comparison (hundreds of MB per tensor, per run).
constexpr int64_t kChunk = int64_t(1) << 18;

struct ChunkResult {
  Worst worst;
  int64_t mismatches = 0;
  double max_ratio_within = 0;
};

// One element as a comparator sees it: its values, error and allowance, whether it is within
// tolerance, and whether it may be reported as the worst (equal_nan's NaN pairs may not).
struct Element {
  double a, b, err, allowed;
  bool close, reportable;
  // What Worst::consider ranks by, never NaN: a failing element with a non-finite error is
  // infinitely bad; a NaN excess (an exact match of infinities) least notable.
  double excess() const {
    double x = !close && !std::isfinite(err) ? kInf : err - allowed;
    return std::isnan(x) ? -kInf : x;
  }
  // |out-ref| / allowed of an element within tolerance with a finite, non-zero error; else 0.
  double ratio_within() const {
    return close && err > 0 && std::isfinite(err) && allowed > 0 ? err / allowed : 0.0;
  }
};

// element(i) -> Element for every i in [0, n): the mismatch count and the worst element (the
// first of the largest excess). Two passes, so that the pass over every element keeps only a
// count and a maximum (no per-element bookkeeping of the worst, which cost more than the
// comparison itself at native shapes): the first finds each chunk's count and largest excess,
// the second walks only the chunk that holds the overall largest to find its first element.
// Chunks merge in order with a strict `>`, so the result is the serial loop's to the bit on any
// number of threads.
template <class ElementAt>
ChunkResult over_chunks(int64_t n, ElementAt element) {
  const int64_t chunks = (n + kChunk - 1) / kChunk;
  struct Part {
    int64_t mismatches = 0;
    bool any = false;  // a reportable element
    double largest = -kInf;
    double ratio = 0;
  };
  std::vector<Part> parts(static_cast<std::size_t>(chunks));
  host_loop(0, chunks, 1, [&](int64_t b, int64_t e) {
    for (int64_t c = b; c < e; ++c) {
      Part part;
      for (int64_t i = c * kChunk, end = std::min(n, (c + 1) * kChunk); i < end; ++i) {
        const Element el = element(i);
        part.mismatches += !el.close;
        if (el.reportable) {
          part.any = true;
          const double x = el.excess();
          part.largest = x > part.largest ? x : part.largest;
          const double q = el.ratio_within();
          part.ratio = q > part.ratio ? q : part.ratio;
        }
      }
      parts[static_cast<std::size_t>(c)] = part;
    }
  });
  ChunkResult all;
  int64_t worst_chunk = -1;
  for (int64_t c = 0; c < chunks; ++c) {
    const Part& part = parts[static_cast<std::size_t>(c)];
    all.mismatches += part.mismatches;
    all.max_ratio_within = std::max(all.max_ratio_within, part.ratio);
    if (part.any && (worst_chunk < 0 || part.largest > parts[static_cast<std::size_t>(worst_chunk)].largest))
      worst_chunk = c;
  }
  if (worst_chunk >= 0) {
    const double largest = parts[static_cast<std::size_t>(worst_chunk)].largest;
    const int64_t begin = worst_chunk * kChunk, end = std::min(n, (worst_chunk + 1) * kChunk);
    for (int64_t i = begin; i < end; ++i) {
      const Element el = element(i);
      if (!el.reportable || el.excess() != largest) continue;
      all.worst.consider(i, el.a, el.b, el.err, el.allowed, el.close);
      break;
    }
    // Should the two passes ever round an excess differently (a compiler contracting one loop's
    // arithmetic and not the other's), the chunk's worst is found the one-pass way instead.
    if (all.worst.index < 0)
      for (int64_t i = begin; i < end; ++i) {
        const Element el = element(i);
        if (el.reportable) all.worst.consider(i, el.a, el.b, el.err, el.allowed, el.close);
      }
  }
  return all;
}

// f(const T* data) on a contiguous CPU tensor's elements, T its own C++ type for the dtypes a
// kernel returns; any other (non-complex) dtype is widened to double first.
template <class F>
void with_elements(const at::Tensor& t, F&& f) {
  const at::Tensor c = t.to(at::kCPU).contiguous();
  switch (c.scalar_type()) {
    case at::kFloat: return f(c.data_ptr<float>());
    case at::kDouble: return f(c.data_ptr<double>());
    case at::kHalf: return f(c.data_ptr<at::Half>());
    case at::kBFloat16: return f(c.data_ptr<at::BFloat16>());
    case at::kLong: return f(c.data_ptr<int64_t>());
    case at::kInt: return f(c.data_ptr<int32_t>());
    case at::kBool: return f(c.data_ptr<bool>());
    default: {
      const at::Tensor d = as_double(c);
      return f(d.data_ptr<double>());
    }
  }
}

template <class T>
double widen(T v) {
  if constexpr (std::is_same_v<T, bool>)
    return v ? 1.0 : 0.0;
  else
    return static_cast<double>(static_cast<std::conditional_t<std::is_arithmetic_v<T>, T, float>>(v));
}

void fill(CompareResult& r, const Worst& w) {
  r.worst_index = w.index;
  r.got = w.got;
  r.expected = w.expected;
  r.abs_err = w.err;
  r.allowed = w.allowed;
}

std::string mismatch_reason(const CompareResult& r) {
  std::ostringstream os;
  bool non_finite = !std::isfinite(r.got) || !std::isfinite(r.expected);
  os << r.mismatches << " of " << r.elements << " elements out of tolerance; worst at index "
     << r.worst_index << ": got " << num(r.got) << ", expected " << num(r.expected);
  if (non_finite)
    os << " (" << (std::isnan(r.got) || std::isnan(r.expected) ? "nan" : "inf") << " mismatch)";
  else
    os << " (|diff| " << num(r.abs_err) << " > allowed " << num(r.allowed) << ")";
  return os.str();
}

}  // namespace

std::string CompareResult::to_string() const {
  if (ok) {
    std::ostringstream os;
    os << "ok (" << elements << " elements";
    if (worst_index >= 0)
      os << "; closest at index " << worst_index << ": |diff| " << num(abs_err) << " vs allowed "
         << num(allowed);
    os << ")";
    return os.str();
  }
  return (output ? "output " + std::to_string(output) + ": " : std::string()) + reason;
}

double max_abs_finite(const at::Tensor& t) {
  const int64_t n = t.numel();
  const int64_t chunks = (n + kChunk - 1) / kChunk;
  std::vector<double> parts(static_cast<std::size_t>(chunks), 0.0);
  with_elements(t, [&](const auto* p) {
    host_loop(0, chunks, 1, [&](int64_t b, int64_t e) {
      for (int64_t c = b; c < e; ++c) {
        double m = 0;
        for (int64_t i = c * kChunk, end = std::min(n, (c + 1) * kChunk); i < end; ++i) {
          const double v = widen(p[i]);
          if (std::isfinite(v)) m = std::max(m, std::fabs(v));
        }
        parts[static_cast<std::size_t>(c)] = m;
      }
    });
  });
  double m = 0;
  for (double v : parts) m = std::max(m, v);
  return m;
}

bool has_unexpected_non_finite(const at::Tensor& out, const at::Tensor& ref) {
  if (out.sizes() != ref.sizes()) throw std::invalid_argument("has_unexpected_non_finite: shapes differ");
  if (!out.is_floating_point() || out.numel() == 0) return false;
  const int64_t n = out.numel();
  const int64_t chunks = (n + kChunk - 1) / kChunk;
  std::vector<char> found(static_cast<std::size_t>(chunks), 0);
  const bool ref_float = ref.is_floating_point();
  with_elements(out, [&](const auto* po) {
    with_elements(ref_float ? ref : out, [&](const auto* pr) {
      host_loop(0, chunks, 1, [&](int64_t b, int64_t e) {
        for (int64_t c = b; c < e; ++c) {
          bool any = false;
          for (int64_t i = c * kChunk, end = std::min(n, (c + 1) * kChunk); i < end; ++i)
            any |= !std::isfinite(widen(po[i])) && (!ref_float || std::isfinite(widen(pr[i])));
          found[static_cast<std::size_t>(c)] = any;
        }
      });
    });
  });
  return std::any_of(found.begin(), found.end(), [](char f) { return f != 0; });
}

CompareResult compare_allclose(const at::Tensor& out, const at::Tensor& ref, double rtol,
                               double atol, bool equal_nan) {
  if (!(rtol >= 0) || !(atol >= 0))
    throw std::invalid_argument("compare_allclose: rtol and atol must be non-negative");
  CompareResult r;
  if (out.scalar_type() != ref.scalar_type()) {
    r.ok = false;
    r.reason = std::string("dtype mismatch: output ") + c10::toString(out.scalar_type()) +
               ", reference " + c10::toString(ref.scalar_type()) +
               " (torch.allclose raises; cast the reference to the output dtype first)";
    return r;
  }
  if (out.is_complex()) {
    r.ok = false;
    r.reason = "complex tensors are not supported";
    return r;
  }
  std::vector<int64_t> shape;
  try {
    shape = at::infer_size(out.sizes(), ref.sizes());
  } catch (const c10::Error&) {
    r.ok = false;
    r.reason = "shape mismatch: output " + shape_str(out.sizes()) + ", reference " +
               shape_str(ref.sizes()) + " (cannot broadcast)";
    return r;
  }
  const at::Tensor o = out.sizes() == at::IntArrayRef(shape) ? out : out.expand(shape);
  const at::Tensor e = ref.sizes() == at::IntArrayRef(shape) ? ref : ref.expand(shape);
  const int64_t n = o.numel();
  r.elements = n;
  ChunkResult all;
  with_elements(o, [&](const auto* po) {
    with_elements(e, [&](const auto* pe) {
      all = over_chunks(n, [&](int64_t i) {
        const double a = widen(po[i]), b = widen(pe[i]);
        const double err = std::fabs(a - b);
        const double allowed = atol + rtol * std::fabs(b);
        // Same structure as at::isclose: equality (covers equal infinities), then NaN == NaN when
        // asked, then a finite error within the allowance.
        const bool nan_pair = equal_nan && std::isnan(a) && std::isnan(b);
        const bool close = a == b || nan_pair || (std::isfinite(err) && err <= allowed);
        return Element{a, b, err, allowed, close, !nan_pair};
      });
    });
  });
  r.mismatches = all.mismatches;
  r.max_ratio_within = all.max_ratio_within;
  fill(r, all.worst);
  r.ok = r.mismatches == 0;
  if (!r.ok) r.reason = mismatch_reason(r);
  return r;
}

GateTolerance default_gate_tolerance(at::ScalarType dtype) {
  switch (dtype) {
    case at::kFloat:
      return {1e-4, 1e-5};
    case at::kHalf:
      return {2e-3, 1e-3};
    // bfloat16 keeps 8 significand bits (float16: 11): tolerances 8x float16's.
    case at::kBFloat16:
      return {1.6e-2, 8e-3};
    case at::kDouble:
      return {1e-12, 1e-13};
    default:
      return {0, 0};  // integers and bool: exact
  }
}

GateTolerance gate_tolerance(const corpus::Task& task, at::ScalarType dtype) {
  if (task.tolerance) return {task.tolerance->rtol, task.tolerance->atol};
  return default_gate_tolerance(dtype);
}

CompareResult compare_gate(const at::Tensor& out, const at::Tensor& ref64, double rtol,
                           double atol_scaled) {
  if (!(rtol >= 0) || !(atol_scaled >= 0))
    throw std::invalid_argument("compare_gate: rtol and atol_scaled must be non-negative");
  CompareResult r;
  if (out.sizes() != ref64.sizes()) {
    r.ok = false;
    r.reason = "shape mismatch: output " + shape_str(out.sizes()) + ", reference " +
               shape_str(ref64.sizes());
    return r;
  }
  if (out.is_complex() || ref64.is_complex()) {
    r.ok = false;
    r.reason = "complex tensors are not supported";
    return r;
  }
  const bool out_int = !out.is_floating_point(), ref_int = !ref64.is_floating_point();
  if (out_int != ref_int) {
    r.ok = false;
    r.reason = std::string("dtype mismatch: output ") + c10::toString(out.scalar_type()) +
               ", reference " + c10::toString(ref64.scalar_type()) +
               " (integer outputs must stay integer)";
    return r;
  }
  if (out_int) {
    // Exact, in int64 (doubles would merge indices above 2^53).
    at::Tensor o = out.to(at::kCPU).to(at::kLong).contiguous();
    at::Tensor e = ref64.to(at::kCPU).to(at::kLong).contiguous();
    const int64_t* po = o.data_ptr<int64_t>();
    const int64_t* pe = e.data_ptr<int64_t>();
    r.elements = o.numel();
    for (int64_t i = 0; i < r.elements; ++i) {
      if (po[i] == pe[i]) continue;
      if (r.mismatches++ == 0) {
        r.worst_index = i;
        r.got = static_cast<double>(po[i]);
        r.expected = static_cast<double>(pe[i]);
        r.abs_err = std::fabs(r.got - r.expected);
      }
    }
    r.ok = r.mismatches == 0;
    if (!r.ok) r.reason = mismatch_reason(r);
    return r;
  }

  const int64_t n = out.numel();
  r.elements = n;
  const double floor = atol_scaled * max_abs_finite(ref64);
  ChunkResult all;
  with_elements(out, [&](const auto* po) {
    with_elements(ref64, [&](const auto* pe) {
      all = over_chunks(n, [&](int64_t i) {
        const double a = widen(po[i]), b = widen(pe[i]);
        bool close;
        double err;
        const double allowed = rtol * std::fabs(b) + floor;
        if (!std::isfinite(b) || !std::isfinite(a)) {
          // NaN must meet NaN and an infinity the same infinity, nothing else.
          close = (std::isnan(a) && std::isnan(b)) || (!std::isnan(a) && a == b);
          err = close ? 0 : kInf;
        } else {
          err = std::fabs(a - b);
          close = err <= allowed;
        }
        return Element{a, b, err, allowed, close, true};
      });
    });
  });
  r.mismatches = all.mismatches;
  r.max_ratio_within = all.max_ratio_within;
  fill(r, all.worst);
  r.ok = r.mismatches == 0;
  if (!r.ok) r.reason = mismatch_reason(r);
  return r;
}

namespace {
template <class F>
CompareResult compare_lists(const std::vector<at::Tensor>& out, const std::vector<at::Tensor>& ref,
                            F one) {
  CompareResult last;
  if (out.size() != ref.size()) {
    last.ok = false;
    last.reason = "output count mismatch: " + std::to_string(out.size()) + " outputs, reference " +
                  std::to_string(ref.size());
    return last;
  }
  double ratio = 0;  // over every output, not only the last one's
  for (size_t i = 0; i < out.size(); ++i) {
    last = one(out[i], ref[i]);
    last.output = static_cast<int>(i);
    if (!last.ok) return last;
    ratio = std::max(ratio, last.max_ratio_within);
  }
  last.max_ratio_within = ratio;
  return last;
}
}  // namespace

CompareResult compare_allclose(const std::vector<at::Tensor>& out,
                               const std::vector<at::Tensor>& ref, double rtol, double atol,
                               bool equal_nan) {
  return compare_lists(out, ref, [&](const at::Tensor& a, const at::Tensor& b) {
    return compare_allclose(a, b, rtol, atol, equal_nan);
  });
}

CompareResult compare_gate(const std::vector<at::Tensor>& out, const std::vector<at::Tensor>& ref64,
                           GateTolerance tol) {
  return compare_lists(out, ref64, [&](const at::Tensor& a, const at::Tensor& b) {
    return compare_gate(a, b, tol);
  });
}

}  // namespace kaudit::oracle
