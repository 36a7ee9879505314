// Data parallelism for kaudit's own loops: the emulator's grid blocks, side-by-side CPU builds of
// kernels and schemata, NVRTC cache look-ups and in-process compiles.
//
// One interface, two implementations chosen when kaudit is configured (KAUDIT_WITH_TBB, see
// docs/ARCHITECTURE.md, "Optional dependencies"):
//   - with oneTBB (the default where it is installed): thin forwards to tbb::parallel_for,
//     tbb::task_arena and tbb::global_control, so a kaudit built with TBB behaves exactly as it
//     did when those calls were written out at each use;
//   - without it (the H200 test machine has no TBB): a small pool of std::threads in
//     common/parallel.cpp.
// Nothing kaudit computes may depend on which one runs or on how a range is split: every body
// given here writes only its own indices' results. (What already varied from run to run with TBB
// still does: float atomics of emulated blocks that run at the same time. Where their order must
// not show, blocks run serially: RunOptions::serial_blocks, and audit workers run one thread.)
//
// The implementation is a shared library (kaudit_parallel), like libtbb: one pool and one
// parallelism limit per process, whichever of kaudit's libraries (the executable, the shared
// emulator runtime kaudit_cpurt) calls it.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>

namespace kaudit::parallel {

// True when this build forwards to oneTBB, false when it uses kaudit's own thread pool.
bool uses_tbb();

// How many threads a loop may use at most, the calling thread included: the CPUs this process
// may run on (its affinity mask), or less under a Limit. At least 1.
unsigned max_concurrency();

// body(i) for every i in [begin, end), in parallel. Like tbb::parallel_for(begin, end, body).
void for_each_index(std::size_t begin, std::size_t end, const std::function<void(std::size_t)>& body);

// body(b, e) for disjoint subranges [b, e) that together cover [begin, end), in parallel. Like
// tbb::parallel_for over tbb::blocked_range(begin, end, grain): `grain` is the length below which
// a subrange is not split further, a hint (a subrange may be shorter, e.g. the last one). With
// max_threads > 0 at most that many threads run the loop (like a tbb::task_arena(max_threads)).
void for_each_range(std::size_t begin, std::size_t end, std::size_t grain,
                    const std::function<void(std::size_t, std::size_t)>& body, unsigned max_threads = 0);

// Both loops: the calling thread takes part; the first exception a body throws is rethrown to the
// caller once the threads running the loop have stopped (indices not started by then are
// skipped); a loop started from inside another loop's body runs, and may run serially.

// While one lives, every loop of the process runs on at most `max_threads` threads (1: on the
// calling thread only). Like tbb::global_control(max_allowed_parallelism, max_threads). The
// isolated worker sets one for its lifetime (WorkerLimits::threads).
class Limit {
 public:
  explicit Limit(unsigned max_threads);
  ~Limit();
  Limit(const Limit&) = delete;
  Limit& operator=(const Limit&) = delete;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace kaudit::parallel
