#include "runtime/cpu/fiber_stacks.h"

#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <new>

namespace kaudit::rt {
namespace {
#ifndef MADV_GUARD_INSTALL
#define MADV_GUARD_INSTALL 102  // Linux 6.13 UAPI; older headers lack it
#endif
// Stacks per mapping: a block of 1024 fibers takes 16 chunks.
constexpr std::size_t kStacksPerChunk = 64;
// Whether MADV_GUARD_INSTALL works here; learnt at the first guard and kept.
std::atomic<int> g_guard_install{-1};

std::size_t page_size() {
  static const std::size_t page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  return page;
}

bool install_guard(void* page) {
  if (g_guard_install.load(std::memory_order_relaxed) != 0) {
    if (madvise(page, page_size(), MADV_GUARD_INSTALL) == 0) {
      g_guard_install.store(1, std::memory_order_relaxed);
      return true;
    }
    g_guard_install.store(0, std::memory_order_relaxed);
  }
  return mprotect(page, page_size(), PROT_NONE) == 0;
}
}  // namespace

FiberStackPool::FiberStackPool(std::size_t stack_bytes) {
  const std::size_t page = page_size();
  stack_bytes_ = (stack_bytes + page - 1) / page * page;
  slot_bytes_ = stack_bytes_ + page;  // the guard page below each stack
}

FiberStackPool::~FiberStackPool() {
  for (const auto& [base, bytes] : chunks_) munmap(base, bytes);
}

void FiberStackPool::grow() {
  const std::size_t bytes = slot_bytes_ * kStacksPerChunk;
  void* base = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (base == MAP_FAILED) throw std::bad_alloc();
  chunks_.emplace_back(base, bytes);
  // Handed out from the low end first (free_ is a stack), as consecutive fibers used to be.
  for (std::size_t k = kStacksPerChunk; k-- > 0;) {
    char* slot = static_cast<char*>(base) + k * slot_bytes_;
    if (!install_guard(slot)) throw std::bad_alloc();
    FiberStack stack;
    stack.size = stack_bytes_;
    stack.top = slot + slot_bytes_;  // stacks grow down from the slot's top
    free_.push_back(stack);
  }
}

FiberStack FiberStackPool::take() {
  if (free_.empty()) grow();
  FiberStack stack = free_.back();
  free_.pop_back();
  return stack;
}

void FiberStackPool::give(const FiberStack& stack) { free_.push_back(stack); }

}  // namespace kaudit::rt
