// Applying a spec's comparator to a kernel's outputs (oracle/spec.h); apart from the parser, which
// needs no ATen operators (see recipe_json.cpp).
#include <ATen/ATen.h>

#include <algorithm>
#include <string>

#include "oracle/spec.h"

namespace kaudit::oracle {

CompareResult apply_comparator(const Comparator& c, const std::vector<at::Tensor>& out,
                               const std::vector<at::Tensor>& ref) {
  if (!c.dtype_tolerance.empty())
    throw std::logic_error("apply_comparator: resolve the comparator for the task's precision first (Comparator::resolved)");
  if (out.size() != ref.size()) {
    CompareResult r;
    r.ok = false;
    r.reason = "the kernel returned " + std::to_string(out.size()) + " outputs, the reference " + std::to_string(ref.size());
    return r;
  }
  CompareResult last;
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (out[i].sizes() != ref[i].sizes()) {  // torch.allclose would broadcast; oracles check shapes
      last = CompareResult{};
      last.ok = false;
      last.output = (int)i;
      std::ostringstream os;
      os << "shape mismatch: got " << out[i].sizes() << ", expected " << ref[i].sizes();
      last.reason = os.str();
      return last;
    }
    double atol = c.atol, rtol = c.rtol;
    if (c.kind == ComparatorKind::Absolute) rtol = 0;
    if (c.kind == ComparatorKind::MagnitudeScaled && ref[i].numel() > 0) atol *= std::max(1.0, max_abs_finite(ref[i]));
    last = compare_allclose(out[i], ref[i].to(out[i].scalar_type()), rtol, atol, c.equal_nan);
    last.output = (int)i;
    if (!last.ok) return last;
  }
  return last;
}

}  // namespace kaudit::oracle
