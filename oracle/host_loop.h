// kaudit::oracle -- the host loops of the oracle (making inputs, comparing outputs) over kaudit's
// thread pool.
//
// Why not at::parallel_for: ATen's pool has as many threads as the physical cores ATen detects,
// and in the virtual machines kaudit runs on that is often 1 (the 2-core CI machine: 1; measured
// with at::get_parallel_info()), so at native shapes every input was made, and every output
// compared, on one thread (the gate at the `kernelbench` preset: 68 s to make one 1.6e9-element
// input). kaudit's pool (common/parallel.h) uses every CPU the process may run on, under the
// worker's Limit. ATen's own thread count is left as it is: the references' reductions split
// their work by it, so changing it could change a reference in its last bits.
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
