// Stacks for the emulator's fibers (one per CUDA thread of a block run on fibers), carved out of a
// few large mappings. Boost.Context's protected_fixedsize_stack maps each stack on its own and protects a
// guard page below it: two VMAs and two system calls per stack, so a block of 1024 threads made
// 2,048 of each, and the process's exit tore them down again. Since every run is a fresh process
// (runtime/worker.h), every run paid that. Here a chunk of stacks is one mapping, and each stack
// still sits above a guard page, so an overflow faults as before: the guard is installed with
// MADV_GUARD_INSTALL (Linux 6.13: a marker in the page table, no VMA split) or, where the kernel
// lacks it, with mprotect (a split per stack, as before).
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

#include "runtime/cpu/fiber.h"

namespace kaudit::rt {

class FiberStackPool {
 public:
  explicit FiberStackPool(std::size_t stack_bytes);  // rounded up to whole pages
  ~FiberStackPool();  // unmaps every chunk: the fibers using its stacks must be gone
  FiberStackPool(const FiberStackPool&) = delete;
  FiberStackPool& operator=(const FiberStackPool&) = delete;

  FiberStack take();
  void give(const FiberStack& stack);
  std::size_t stack_bytes() const { return stack_bytes_; }

 private:
  void grow();
  std::size_t stack_bytes_, slot_bytes_;
  std::vector<std::pair<void*, std::size_t>> chunks_;
  std::vector<FiberStack> free_;
};


}  // namespace kaudit::rt
