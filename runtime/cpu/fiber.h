// The emulator's fibers: execution contexts that one OS thread suspends and resumes, so each CUDA
// thread of a block that waits at a barrier or a warp collective can be parked while the others
// catch up (emulator.cpp, BlockScheduler).
//
// Two implementations behind one symmetric switch. Boost.Context's fibers (the default, and the
// fast one: a switch is a few register moves) need Boost's compiled `boost_context` library; where
// only Boost's headers exist (the H200 machine: docs/ARCHITECTURE.md, "Optional dependencies"),
// POSIX ucontext from glibc stands in (KAUDIT_FIBERS_UCONTEXT, chosen by CMake): each switch then
// also saves and restores the signal mask, a system call, so it is slower but gives the same
// schedules and so the same verdicts.
#pragma once
#include <cstddef>

#if defined(KAUDIT_FIBERS_UCONTEXT)
#include <ucontext.h>
#else
#include <boost/context/fiber.hpp>
#endif

namespace kaudit::rt {

// A fiber's stack: `size` bytes below `top` (stacks grow down). Owned by whoever lends it
// (FiberStackPool), not by the fiber.
struct FiberStack {
  void* top = nullptr;
  std::size_t size = 0;
};

// One execution context: a fiber, or the thread that runs fibers (its context is filled in by its
// first switch away).
class FiberContext {
 public:
  FiberContext() = default;
  ~FiberContext() { reset(); }
  FiberContext(const FiberContext&) = delete;
  FiberContext& operator=(const FiberContext&) = delete;

  // Makes this the context of a new fiber that runs entry(arg) on `stack` when first switched to.
  // entry must not return: a fiber ends by switching away for the last time.
  void start(FiberStack stack, void (*entry)(void*), void* arg);
  // Drops the fiber. One suspended elsewhere than its last switch must have been unwound first:
  // Boost.Context unwinds what is left on its stack, ucontext abandons it.
  void reset();

 private:
  friend void switch_context(FiberContext& from, FiberContext& to);
#if defined(KAUDIT_FIBERS_UCONTEXT)
  // makecontext passes only int arguments: a fiber about to start finds its entry in a
  // thread-local slot, filled just before the switch that starts it.
  void prepare_start() const {
    if (start_entry_) publish_start(start_entry_, start_arg_);
  }
  static void publish_start(void (*entry)(void*), void* arg);
  ucontext_t uc_{};
  void (*start_entry_)(void*) = nullptr;  // what a new fiber runs (makecontext passes ints only)
  void* start_arg_ = nullptr;
#else
  boost::context::fiber fiber_;
  // Set by the context that switches here: Boost.Context hands the resumed side the switcher's
  // continuation, which belongs in the switcher's FiberContext.
  FiberContext* resumed_by_ = nullptr;
#endif
};

// Saves the running context into `from` and resumes `to`; returns when a later switch resumes
// `from`. Both belong to the calling OS thread's set of fibers. Inline: the emulator switches
// millions of times per run.
inline void switch_context(FiberContext& from, FiberContext& to) {
#if defined(KAUDIT_FIBERS_UCONTEXT)
  to.prepare_start();
  swapcontext(&from.uc_, &to.uc_);
#else
  to.resumed_by_ = &from;
  boost::context::fiber back = std::move(to.fiber_).resume();
  from.resumed_by_->fiber_ = std::move(back);
#endif
}

// "boost.context" or "ucontext": what this build uses (for messages and benchmarks).
const char* fiber_implementation();

}  // namespace kaudit::rt
