#include "runtime/host_buffers.h"

#include <ATen/ATen.h>
#include <sys/mman.h>

#include <cstdlib>
#include <map>
#include <mutex>
#include <new>

namespace kaudit::runtime {

namespace {
constexpr std::uint64_t kHugePage = 2u << 20;
// Size classes of 2 MiB: the same shape always lands in the same class, and a buffer is huge-page
// aligned, so where transparent huge pages are on "madvise" (Ubuntu's default) one fault maps 2 MiB.
std::uint64_t size_class(std::uint64_t bytes) { return (bytes + kHugePage - 1) / kHugePage * kHugePage; }
}  // namespace

struct HostBuffers::State {
  std::uint64_t min_bytes, keep_bytes;
  mutable std::mutex mu;
  std::multimap<std::uint64_t, void*> free;  // size class -> buffers not in use
  Stats stats;

  void* take(std::uint64_t bytes) {
    {
      std::lock_guard lock(mu);
      if (auto it = free.find(bytes); it != free.end()) {
        void* p = it->second;
        free.erase(it);
        stats.kept_bytes -= bytes;
        ++stats.reused;
        return p;
      }
      ++stats.allocated;
    }
    void* p = std::aligned_alloc(kHugePage, bytes);
    if (!p) throw std::bad_alloc();
    (void)madvise(p, bytes, MADV_HUGEPAGE);  // best effort: only speed depends on it
    return p;
  }
  void give_back(void* p, std::uint64_t bytes) {
    {
      std::lock_guard lock(mu);
      if (stats.kept_bytes + bytes <= keep_bytes) {
        free.emplace(bytes, p);
        stats.kept_bytes += bytes;
        return;
      }
    }
    std::free(p);
  }
  ~State() {
    for (auto& [bytes, p] : free) std::free(p);
  }
};

HostBuffers::HostBuffers(std::uint64_t min_bytes, std::uint64_t keep_bytes) : state_(std::make_shared<State>()) {
  state_->min_bytes = min_bytes;
  state_->keep_bytes = keep_bytes;
}

HostBuffers::~HostBuffers() = default;

at::Tensor HostBuffers::empty(const std::vector<std::int64_t>& shape, at::ScalarType dtype) {
  const auto options = at::TensorOptions().dtype(dtype);
  std::uint64_t bytes = at::elementSize(dtype);
  for (std::int64_t d : shape) {
    // A negative or overflowing shape (a forged reply can name any): ATen says what is wrong.
    if (d < 0 || __builtin_mul_overflow(bytes, static_cast<std::uint64_t>(d), &bytes)) return at::empty(shape, options);
  }
  if (bytes < state_->min_bytes) return at::empty(shape, options);
  const std::uint64_t cls = size_class(bytes);
  void* p = state_->take(cls);
  std::shared_ptr<State> state = state_;  // the pool outlives every tensor it handed out
  return at::from_blob(p, shape, [state, cls](void* q) { state->give_back(q, cls); }, options);
}

HostBuffers::Stats HostBuffers::stats() const {
  std::lock_guard lock(state_->mu);
  return state_->stats;
}

HostBuffers& HostBuffers::for_replies() {
  // 16 MiB and up; up to 8 GiB kept, about what a 16-worker audit at kernelbench-v0 has in flight
  // (one 268 MB output each) with room for a task's larger outputs. Never freed: it lives as long
  // as the process and its tensors.
  static HostBuffers* buffers = new HostBuffers(16u << 20, 8ull << 30);
  return *buffers;
}

}  // namespace kaudit::runtime
