// Pool tensors that live in files instead of memory, for audits at native shapes (issue 20).
//
//   PoolMemory memory(budget_bytes, cache::prepare_dir(cache_dir, "spill"));
//   prepared.ref64 = memory.keep(prepared.ref64);   // itself, or a file-backed copy once over budget
//
// An audit keeps every pool input made concrete for its whole task: the inputs, the float64 and
// float32 references and each reference forward's recorded allocations (oracle/harness.h,
// ReferenceTrace). At kernelbench-v0 conv2d has 41 inputs, most with a 264 MB output (529 MB in
// float64), each held as references and recorded allocations
// (docs/calibration/h200-2026-12-03-v0b: four audits side by side ran a 128 GB host out of
// memory). Over the budget, tensors are copied into unlinked files and mapped: the kernel pages
// them in when a run needs them and may drop them (clean file pages) under memory pressure, so a
// pool larger than memory costs disk space and page-ins, not the run.
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <filesystem>
#include <mutex>
#include <stdexcept>

namespace kaudit::audit {

// A tensor could not be kept (no space in the folder, no such folder): the machine's problem, not
// the input's.
struct SpillError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A contiguous copy of `t` (same dtype, shape and values) whose bytes are in a file under `dir`,
// mapped privately (a write to it stays in this process), and handed to workers as a read-only
// descriptor of that file (runtime/shared_tensor.h). The file is unlinked as soon as it is
// made: its space comes back when the last tensor sharing the mapping goes, or when the process
// dies, so nothing is left behind. Throws SpillError naming `dir` and the cause (a full
// disk, for one).
at::Tensor spill_to_file(const at::Tensor& t, const std::filesystem::path& dir);

// Keeps tensors in memory up to a budget of bytes, and every tensor after that in a file
// (spill_to_file). Safe to share between threads.
class PoolMemory {
 public:
  PoolMemory(std::uint64_t budget_bytes, std::filesystem::path dir) : budget_(budget_bytes), dir_(std::move(dir)) {}
  at::Tensor keep(const at::Tensor& t);
  // Tensors from this size on are kept in shareable files (in memory: a sealed memfd).
  static constexpr std::uint64_t kShareMinBytes = 1u << 20;
  std::uint64_t in_memory_bytes() const;
  std::uint64_t spilled_bytes() const;

 private:
  std::uint64_t budget_;
  std::filesystem::path dir_;
  mutable std::mutex mu_;
  std::uint64_t in_memory_ = 0, spilled_ = 0;
};

// The default budget: a quarter of the machine's physical memory (audits often run side by side,
// each with its own pool; tools/gpu/audit-by-task.sh runs several).
std::uint64_t default_pool_memory_bytes();

}  // namespace kaudit::audit
