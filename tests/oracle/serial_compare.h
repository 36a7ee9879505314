// The comparators' element passes as they were before oracle/compare.cpp split them into chunks:
// both tensors copied to double, one serial loop. The reference that the chunked passes must
// equal to the bit (tests/oracle/compare_test.cpp), and the "before" of bench/compare_bench.cpp.
#pragma once
#include <ATen/ATen.h>

#include <cmath>
#include <cstdint>
#include <limits>

namespace kaudit::test {

struct Serial {
  int64_t mismatches = 0, index = -1;
  double excess = -std::numeric_limits<double>::infinity(), got = 0, expected = 0;
  void consider(int64_t i, double a, double b, double err, double allowed, bool close) {
    double x = close ? err - allowed : (std::isfinite(err) ? err - allowed : std::numeric_limits<double>::infinity());
    if (std::isnan(x)) x = -std::numeric_limits<double>::infinity();
    if (index < 0 || x > excess) index = i, excess = x, got = a, expected = b;
  }
};
inline Serial serial_allclose(const at::Tensor& out, const at::Tensor& ref, double rtol, double atol, bool equal_nan) {
  const at::Tensor o = out.to(at::kDouble).contiguous(), e = ref.to(at::kDouble).contiguous();
  const double *po = o.data_ptr<double>(), *pe = e.data_ptr<double>();
  Serial s;
  for (int64_t i = 0; i < o.numel(); ++i) {
    const double a = po[i], b = pe[i], err = std::fabs(a - b), allowed = atol + rtol * std::fabs(b);
    bool close = a == b;
    if (!close && equal_nan && std::isnan(a) && std::isnan(b)) close = true;
    if (!close) close = std::isfinite(err) && err <= allowed;
    if (!close) ++s.mismatches;
    if (!(equal_nan && std::isnan(a) && std::isnan(b))) s.consider(i, a, b, err, allowed, close);
  }
  return s;
}
inline Serial serial_gate(const at::Tensor& out, const at::Tensor& ref64, double rtol, double atol_scaled) {
  const at::Tensor o = out.to(at::kDouble).contiguous(), e = ref64.to(at::kDouble).contiguous();
  const double *po = o.data_ptr<double>(), *pe = e.data_ptr<double>();
  double max_ref = 0;
  for (int64_t i = 0; i < e.numel(); ++i)
    if (std::isfinite(pe[i])) max_ref = std::max(max_ref, std::fabs(pe[i]));
  Serial s;
  for (int64_t i = 0; i < o.numel(); ++i) {
    const double a = po[i], b = pe[i];
    double err, allowed = rtol * std::fabs(b) + atol_scaled * max_ref;
    bool close;
    if (!std::isfinite(b) || !std::isfinite(a)) {
      close = (std::isnan(a) && std::isnan(b)) || (!std::isnan(a) && a == b);
      err = close ? 0 : std::numeric_limits<double>::infinity();
    } else {
      err = std::fabs(a - b);
      close = err <= allowed;
    }
    if (!close) ++s.mismatches;
    s.consider(i, a, b, err, allowed, close);
  }
  return s;
}
}  // namespace kaudit::test
