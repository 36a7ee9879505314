// kaudit::oracle -- output comparators.
//
// Two families:
//  - compare_allclose: what benchmark oracles do (torch.allclose), so that kaudit can replay an
//    oracle's verdict exactly and also say *where* and *by how much* it passed or failed;
//  - compare_gate: the corpus verification gate, judged against the float64 reference with an
//    absolute tolerance scaled by the output's magnitude, so a large-magnitude recipe does not
//    turn legitimate rounding into a failure and a tiny one does not hide real errors.
// Both work in double on the CPU (tensors elsewhere are copied), element by element, in parallel
// chunks whose results merge to the serial loop's exactly.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <ATen/core/Tensor.h>

#include "corpus/corpus.h"

namespace kaudit::oracle {

struct CompareResult {
  bool ok = true;
  // The most offending element (largest |out-ref| - allowed; a NaN/Inf mismatch beats any finite
  // excess), as a flat row-major index into the compared shape. When ok, the element closest to
  // failing. For integer outputs (exact comparison) the first mismatch. -1 when there is no
  // element or the shapes/dtypes did not allow a comparison.
  int64_t worst_index = -1;
  double got = 0, expected = 0, abs_err = 0, allowed = 0;
  int64_t mismatches = 0;  // elements out of tolerance
  int64_t elements = 0;    // elements compared
  // The largest |out-ref| / allowed over the elements within tolerance (0 where none is, or where
  // every one is exact). Not the ratio at worst_index: the element of least margin is often one
  // with a tiny allowance and no error at all, while another uses 90% of a larger one.
  double max_ratio_within = 0;
  int output = 0;          // which output, for the vector overloads
  std::string reason;      // why not ok: shape mismatch, dtype mismatch, nan mismatch, ...; or ""
  // The kill's cause when the judge names it (an external checker's reply "cause": a gate it
  // checks itself, such as "no-launch"); empty: kaudit reads it off the outputs (mismatch_cause).
  std::string cause;

  std::string to_string() const;
};

// torch.allclose(out, ref, rtol, atol, equal_nan): element-wise
//   |out - ref| <= atol + rtol * |ref|       (asymmetric: rtol is relative to ref)
// NaN is never close (unless equal_nan and both NaN); +-inf is close only to the same infinity;
// the two tensors broadcast like torch.allclose; shapes that cannot broadcast and differing
// dtypes (torch raises for both) give ok = false with a reason. Negative tolerances throw
// std::invalid_argument, like torch.
// Arithmetic is in double; torch evaluates in the tensors' dtype, so verdicts can differ only when
// |out - ref| lies within one rounding of the bound.
CompareResult compare_allclose(const at::Tensor& out, const at::Tensor& ref, double rtol,
                               double atol, bool equal_nan = false);

// The largest |x| over the finite elements of `t` (0 when there is none), as
// t.to(kDouble).masked_select(isfinite).abs().max() would say, without the copies.
double max_abs_finite(const at::Tensor& t);

// Whether `out` has a NaN or infinity where `ref` (same shape) has a finite value or is not a
// floating tensor: a mismatch's cause "nan-inf". One pass over both, in chunks, allocating nothing
// (the tensor expressions it replaced made four boolean tensors of the output's size per call).
bool has_unexpected_non_finite(const at::Tensor& out, const at::Tensor& ref);

struct GateTolerance {
  double rtol = 0;
  double atol_scaled = 0;  // multiplied by max |ref| over the tensor
};

// float32: {1e-4, 1e-5}; float16: {2e-3, 1e-3}; bfloat16: {1.6e-2, 8e-3};
// float64: {1e-12, 1e-13}; integers and bool: exact {0, 0}.
GateTolerance default_gate_tolerance(at::ScalarType dtype);
// The task's "tolerance" when it has one, else the default for `dtype`.
GateTolerance gate_tolerance(const corpus::Task& task, at::ScalarType dtype);

// The verification gate's check of a kernel output against the float64 reference:
//   |out - ref| <= rtol * |ref| + atol_scaled * max(|ref|)      (max over the finite ref values)
// shapes must match exactly (no broadcasting); integer and bool outputs must match exactly (and
// both sides must be integral); NaN must meet NaN and +-inf the same infinity, position by
// position.
CompareResult compare_gate(const at::Tensor& out, const at::Tensor& ref64, double rtol,
                           double atol_scaled);
inline CompareResult compare_gate(const at::Tensor& out, const at::Tensor& ref64,
                                  GateTolerance tol) {
  return compare_gate(out, ref64, tol.rtol, tol.atol_scaled);
}

// Output lists (a Model may return several tensors): a count mismatch is a failure; otherwise
// the first failing output's result (output set), or the last output's when all pass.
CompareResult compare_allclose(const std::vector<at::Tensor>& out,
                               const std::vector<at::Tensor>& ref, double rtol, double atol,
                               bool equal_nan = false);
CompareResult compare_gate(const std::vector<at::Tensor>& out, const std::vector<at::Tensor>& ref64,
                           GateTolerance tol);

}  // namespace kaudit::oracle
