#include "runtime/cpu/guarded_allocator.h"

#include "runtime/cpu/device_memory.h"

#include <c10/core/Allocator.h>
#include <c10/core/CPUAllocator.h>
#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <new>

namespace kaudit::rt {
namespace {

constexpr std::size_t kPage = 4096;
constexpr std::size_t kSlots = 1 << 16;
// Page addresses of guard pages of regions mapped one by one (allocations the arena cannot
// hold), read by the signal handler without locks.
std::atomic<std::uintptr_t> g_guards[kSlots];

std::size_t slot_of(std::uintptr_t page) { return (page / kPage * 0x9E3779B97F4A7C15ull) >> 48; }
// False when the table is full. A tombstone (1) is reused: lookups probe past it either way.
bool add_guard(std::uintptr_t page) {
  for (std::size_t i = slot_of(page), n = 0; n < kSlots; ++n, i = (i + 1) % kSlots) {
    std::uintptr_t expected = 0;
    if (g_guards[i].compare_exchange_strong(expected, page)) return true;
    if (expected == 1 && g_guards[i].compare_exchange_strong(expected, page)) return true;
  }
  return false;
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

// The arena: one reservation, inaccessible except where a live allocation lies. Allocations are
// laid out one after another, each followed by an inaccessible page that is also the next one's
// leading guard; any fault inside the arena is an out-of-bounds access. When a run ends with no
// allocation live, the arena goes back to its initial state (everything inaccessible, the next
// allocation at its start): every run then sees the same layout and the same bytes (a span is
// zeroed when it is handed out, as a fresh mapping would be), whatever ran before in this worker.
// Compared with a mapping per allocation this saves a page fault per page touched and a TLB
// shootdown per free (about 15% of a small kernel's run on this machine).
struct Arena {
  std::mutex mu;
  char* base = nullptr;
  std::size_t size = 0;
  std::size_t used = 0;        // next allocation's offset (past the leading guard at offset 0)
  std::size_t high_water = 0;  // bytes below this may hold an earlier run's data
  std::size_t live = 0;
  bool contains(const void* p) const {
    return base && (const char*)p >= base && (const char*)p < base + size;
  }
};
Arena g_arena;
// Address space only (MAP_NORESERVE, no access): it counts against the worker's RLIMIT_AS.
constexpr std::size_t kArenaBytes = std::size_t(1) << 30;

void reserve_arena() {
  void* m = mmap(nullptr, kArenaBytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (m == MAP_FAILED) return;  // every allocation is mapped on its own
  g_arena.base = static_cast<char*>(m);
  g_arena.size = kArenaBytes;
  g_arena.used = kPage;
}

// Returns the span's start, or nullptr when the arena cannot hold it.
char* arena_allocate(std::size_t span) {
  Arena& a = g_arena;
  std::lock_guard<std::mutex> lock(a.mu);
  if (!a.base || span + kPage > a.size - a.used) return nullptr;
  char* p = a.base + a.used;
  if (mprotect(p, span, PROT_READ | PROT_WRITE) != 0) return nullptr;
  const std::size_t dirty = a.high_water > a.used ? std::min(span, a.high_water - a.used) : 0;
  std::memset(p, 0, dirty);  // beyond the high-water mark the pages were never touched: zero
  a.used += span + kPage;
  a.high_water = std::max(a.high_water, a.used);
  ++a.live;
  return p;
}

void arena_free(void*) {
  std::lock_guard<std::mutex> lock(g_arena.mu);
  --g_arena.live;
}

struct Region {
  char* base;
  std::size_t total;
};

// Regions outside the arena are unmapped when freed, not kept for reuse: a cache of freed
// regions made a far out-of-bounds read land in memory whose state depended on earlier runs of
// the same worker (a stale region, or a hole), so one mutant could crash in one audit and pass in
// the next.
void free_region(void* ctx) {
  auto* r = static_cast<Region*>(ctx);
  remove_guard((std::uintptr_t)r->base);
  remove_guard((std::uintptr_t)(r->base + r->total - kPage));
  munmap(r->base, r->total);
  delete r;
}

class GuardedAllocator final : public c10::Allocator {
 public:
  // c10::Allocator's allocate() was const until PyTorch 2.3 and is not since, when copy_data()
  // became pure too: both spellings are declared (without `override`, which only one libtorch
  // would accept), so this builds against Debian's libtorch and against PyTorch 2.x.
  c10::DataPtr allocate(std::size_t n) const { return make(n); }
  c10::DataPtr allocate(std::size_t n) { return make(n); }
  void copy_data(void* dest, const void* src, std::size_t count) const { std::memcpy(dest, src, count); }

 private:
  c10::DataPtr make(std::size_t n) const {
    const std::size_t data = (n + 15) / 16 * 16;
    const std::size_t span = (data + kPage - 1) / kPage * kPage;
    if (char* s = arena_allocate(span))
      return {s + span - data, s, &arena_free, c10::Device(c10::DeviceType::CPU)};
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

 public:
  c10::DeleterFnPtr raw_deleter() const override { return nullptr; }
};

// Whether the memory checker is on (install_guarded_allocator): without it a fault in a static
// shared-memory guard is a plain crash, as it was before the handler was installed.
bool g_memcheck = false;

void on_fault(int sig, siginfo_t* info, void*) {
  const auto page = (std::uintptr_t)info->si_addr / kPage * kPage;
  // Oracle mode: the modelled GPU faults on an address outside every segment (and outside the
  // shared memory a block has): the run ends as a crash, as an illegal-address error would.
  if (device_session_active() && (in_device_memory(info->si_addr) || g_arena.contains(info->si_addr) || is_guard(page))) {
    static const char msg[] = "kaudit: an illegal memory access was encountered (outside every allocated block of the modelled GPU memory)\n";
    ssize_t ignored = write(2, msg, sizeof msg - 1);
    (void)ignored;
    _exit(kIllegalAddressExitCode);
  }
  if (g_memcheck && (g_arena.contains(info->si_addr) || is_guard(page))) {
    static const char msg[] = "kaudit: out-of-bounds access next to a tensor or static shared memory (memory-check mode)\n";
    ssize_t ignored = write(2, msg, sizeof msg - 1);
    (void)ignored;
    _exit(kOutOfBoundsExitCode);
  }
  signal(sig, SIG_DFL);
  raise(sig);
}

}  // namespace

void install_fault_handler() {
  static bool installed = false;
  if (installed) return;
  installed = true;
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

void install_guarded_allocator() {
  static GuardedAllocator allocator;
  reserve_arena();
  c10::SetCPUAllocator(&allocator, /*priority=*/100);
  g_memcheck = true;
  install_fault_handler();
}

bool guard_pages(char* p, std::size_t bytes) {
  std::size_t added = 0;
  while (added < bytes && add_guard((std::uintptr_t)(p + added))) added += kPage;
  if (added == bytes && mprotect(p, bytes, PROT_NONE) == 0) return true;
  for (std::size_t off = 0; off < added; off += kPage) remove_guard((std::uintptr_t)(p + off));
  return false;
}

void unguard_pages(char* p, std::size_t bytes) {
  for (std::size_t off = 0; off < bytes; off += kPage) remove_guard((std::uintptr_t)(p + off));
  mprotect(p, bytes, PROT_READ | PROT_WRITE);
}

bool reset_guarded_arena() {
  Arena& a = g_arena;
  std::lock_guard<std::mutex> lock(a.mu);
  if (!a.base || a.live > 0) return false;
  if (a.used > kPage) mprotect(a.base + kPage, a.used - kPage, PROT_NONE);
  a.used = kPage;
  return true;
}

}  // namespace kaudit::rt
