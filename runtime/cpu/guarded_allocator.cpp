#include "runtime/cpu/guarded_allocator.h"

#include <c10/core/Allocator.h>
#include <c10/core/CPUAllocator.h>
#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <new>

namespace kaudit::rt {
namespace {

constexpr std::size_t kPage = 4096;
constexpr std::size_t kSlots = 1 << 16;
// Page addresses of guard pages, read by the signal handler without locks.
std::atomic<std::uintptr_t> g_guards[kSlots];

std::size_t slot_of(std::uintptr_t page) { return (page / kPage * 0x9E3779B97F4A7C15ull) >> 48; }
void add_guard(std::uintptr_t page) {
  for (std::size_t i = slot_of(page), n = 0; n < kSlots; ++n, i = (i + 1) % kSlots) {
    std::uintptr_t expected = 0;
    if (g_guards[i].compare_exchange_strong(expected, page)) return;
  }
}
void remove_guard(std::uintptr_t page) {
  for (std::size_t i = slot_of(page), n = 0; n < kSlots; ++n, i = (i + 1) % kSlots) {
    std::uintptr_t expected = page;
    if (g_guards[i].compare_exchange_strong(expected, 1)) return;  // 1: tombstone
    if (expected == 0) return;
  }
}
bool is_guard(std::uintptr_t page) {
  for (std::size_t i = slot_of(page), n = 0; n < kSlots; ++n, i = (i + 1) % kSlots) {
    std::uintptr_t v = g_guards[i].load();
    if (v == page) return true;
    if (v == 0) return false;
  }
  return false;
}

struct Region {
  char* base;
  std::size_t total;
};

// Freed regions are unmapped, not kept for reuse: a cache of freed regions made a far
// out-of-bounds read land in memory whose state depended on earlier runs of the same worker (a
// stale region, or a hole), so one mutant could crash in one audit and pass in the next.
void free_region(void* ctx) {
  auto* r = static_cast<Region*>(ctx);
  remove_guard((std::uintptr_t)r->base);
  remove_guard((std::uintptr_t)(r->base + r->total - kPage));
  munmap(r->base, r->total);
  delete r;
}

class GuardedAllocator final : public c10::Allocator {
 public:
  c10::DataPtr allocate(std::size_t n) const override {
    const std::size_t data = (n + 15) / 16 * 16;
    const std::size_t span = (data + kPage - 1) / kPage * kPage;
    const std::size_t total = span + 2 * kPage;
    void* m = mmap(nullptr, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) throw std::bad_alloc();
    char* base = static_cast<char*>(m);
    mprotect(base, kPage, PROT_NONE);
    mprotect(base + kPage + span, kPage, PROT_NONE);
    add_guard((std::uintptr_t)base);
    add_guard((std::uintptr_t)(base + kPage + span));
    char* p = base + kPage + span - data;
    return {p, new Region{base, total}, &free_region, c10::Device(c10::DeviceType::CPU)};
  }
  c10::DeleterFnPtr raw_deleter() const override { return nullptr; }
};

void on_fault(int sig, siginfo_t* info, void*) {
  const auto page = (std::uintptr_t)info->si_addr / kPage * kPage;
  if (is_guard(page)) {
    static const char msg[] = "kaudit: out-of-bounds access next to a tensor (memory-check mode)\n";
    ssize_t ignored = write(2, msg, sizeof msg - 1);
    (void)ignored;
    _exit(kOutOfBoundsExitCode);
  }
  signal(sig, SIG_DFL);
  raise(sig);
}

}  // namespace

void install_guarded_allocator() {
  static GuardedAllocator allocator;
  c10::SetCPUAllocator(&allocator, /*priority=*/100);
  // The handler runs on an alternate stack: a fiber stack overflow must still be reported.
  static char alt_stack[1 << 16];
  stack_t ss{};
  ss.ss_sp = alt_stack;
  ss.ss_size = sizeof alt_stack;
  sigaltstack(&ss, nullptr);
  struct sigaction sa{};
  sa.sa_sigaction = on_fault;
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigaction(SIGSEGV, &sa, nullptr);
  sigaction(SIGBUS, &sa, nullptr);
}

}  // namespace kaudit::rt
