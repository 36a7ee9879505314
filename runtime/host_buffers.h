#pragma once
// Large host buffers kept for the next tensor of the same size.
//
// At native shapes every run moves tensors of hundreds of MB: the runner reads each output into
// fresh memory and frees it after judging it, and a CUDA worker does the same with each input and
// output. Fresh anonymous memory costs a page fault per 4 KiB when first written and, when freed,
// an munmap whose TLB shootdown interrupts every core the process runs on: on the H200 machine
// (docs/calibration/h200-2026-12-03-v0d) the mutant runs of rmsnorm at kernelbench-v0 went at 1.8
// a second with 40-55% of the CPU in the kernel. Kept buffers are written again without either.
//
// Only where the bytes go changes, never what a tensor holds (every byte is written by the read
// that fills it), so no verdict depends on this. A buffer returns to the pool when the last tensor
// using it is gone, so a tensor kept longer (a reference, a recorded output) is never reused under
// it.
#include <ATen/core/Tensor.h>

#include <cstdint>
#include <memory>
#include <vector>

namespace kaudit::runtime {

class HostBuffers {
 public:
  // Requests below min_bytes are left to ATen's allocator (small tensors gain nothing); at most
  // keep_bytes of buffers not in use are kept, the rest freed.
  HostBuffers(std::uint64_t min_bytes, std::uint64_t keep_bytes);
  ~HostBuffers();
  HostBuffers(const HostBuffers&) = delete;
  HostBuffers& operator=(const HostBuffers&) = delete;

  // An uninitialised contiguous CPU tensor, from a kept buffer of its size class when there is one.
  at::Tensor empty(const std::vector<std::int64_t>& shape, at::ScalarType dtype);

  struct Stats {
    std::uint64_t reused = 0, allocated = 0;  // buffers handed out again, and made
    std::uint64_t kept_bytes = 0;             // in buffers not in use now
  };
  Stats stats() const;

  // The buffers of the runner's side of every worker's pipe in this process (IsolatedRunner).
  static HostBuffers& for_replies();

 private:
  struct State;
  std::shared_ptr<State> state_;  // shared with the deleters of the tensors handed out
};

}  // namespace kaudit::runtime
