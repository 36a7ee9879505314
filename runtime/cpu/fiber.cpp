#include "runtime/cpu/fiber.h"

#include <cstdint>
#include <cstdlib>
#include <utility>

namespace kaudit::rt {

#if defined(KAUDIT_FIBERS_UCONTEXT)

namespace {
struct Start {
  void (*entry)(void*);
  void* arg;
};
thread_local Start tls_start;  // read by a new fiber's first instructions, before anything else runs

void trampoline() {
  const Start s = tls_start;
  s.entry(s.arg);
  std::abort();  // entry returned: the contract says it switches away for good instead
}
}  // namespace

void FiberContext::start(FiberStack stack, void (*entry)(void*), void* arg) {
  getcontext(&uc_);
  uc_.uc_stack.ss_sp = static_cast<char*>(stack.top) - stack.size;
  uc_.uc_stack.ss_size = stack.size;
  uc_.uc_link = nullptr;
  makecontext(&uc_, trampoline, 0);
  start_entry_ = entry;
  start_arg_ = arg;
}

// An abandoned ucontext fiber leaves nothing but its stack, which its lender keeps.
void FiberContext::reset() { start_entry_ = nullptr; }

void FiberContext::publish_start(void (*entry)(void*), void* arg) { tls_start = {entry, arg}; }

const char* fiber_implementation() { return "ucontext"; }

#else

namespace ctx = boost::context;

namespace {
// The StackAllocator Boost.Context asks for: a stack lent by the caller, kept by the caller.
struct LentStack {
  FiberStack stack;
  ctx::stack_context allocate() {
    ctx::stack_context sc;
    sc.size = stack.size;
    sc.sp = stack.top;
    return sc;
  }
  void deallocate(ctx::stack_context&) noexcept {}
};
}  // namespace

void FiberContext::start(FiberStack stack, void (*entry)(void*), void* arg) {
  fiber_ = ctx::fiber(std::allocator_arg, LentStack{stack}, [this, entry, arg](ctx::fiber&& from) {
    resumed_by_->fiber_ = std::move(from);
    entry(arg);
    std::abort();  // entry returned: the contract says it switches away for good instead
    return ctx::fiber();
  });
}

// Destroying a suspended boost fiber resumes it with a forced-unwind exception that runs the
// destructors of what its stack holds.
void FiberContext::reset() { fiber_ = ctx::fiber(); }

const char* fiber_implementation() { return "boost.context"; }

#endif

}  // namespace kaudit::rt
