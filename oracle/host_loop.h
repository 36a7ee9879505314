// kaudit::oracle -- the host loops of the oracle (making inputs, comparing outputs) over kaudit's
// thread pool.
//
// Why not at::parallel_for: with the OpenMP build of ATen (Debian's; the GPU machine's PyTorch 2.11 ran the same way),
// at::parallel_for is a header-inline function holding `#pragma omp parallel`, compiled in the
// caller's translation unit; kaudit is not compiled with -fopenmp, so the pragma was ignored and
// every such loop ran on the calling thread. Measured on an H100 machine whose ATen had 16 threads:
// the gate at the `kernelbench` preset made a 1.6e9-element normal input in 68 s at 123% CPU, and
// in 6.3 s on kaudit's pool (docs/calibration/h100-2026-12-06d). kaudit's pool (common/parallel.h)
// uses every CPU the process may run on, under the worker's Limit. ATen's own thread count is left
// as it is: the references' reductions split their work by it, so changing it could change a
// reference in its last bits.
//
// Only loops whose result does not depend on how the range is split may use it (each index writes
// its own result, or chunks merge in a fixed order).
#pragma once

#include <cstddef>
#include <cstdint>

#include "common/parallel.h"

namespace kaudit::oracle {

template <class Body>
void host_loop(int64_t begin, int64_t end, int64_t grain, const Body& body) {
  if (end <= begin) return;
  parallel::for_each_range(static_cast<std::size_t>(begin), static_cast<std::size_t>(end),
                           static_cast<std::size_t>(grain < 1 ? 1 : grain),
                           [&](std::size_t b, std::size_t e) { body(static_cast<int64_t>(b), static_cast<int64_t>(e)); });
}

}  // namespace kaudit::oracle
