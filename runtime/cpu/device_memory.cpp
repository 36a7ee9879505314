#include "runtime/cpu/device_memory.h"

#include <algorithm>
#include <cstring>

#include "runtime/cpu/guarded_allocator.h"

#include <c10/core/Allocator.h>
#include <c10/core/CPUAllocator.h>
#include <sys/mman.h>

namespace kaudit::rt {

std::size_t CachingAllocatorModel::round_size(std::size_t bytes) {
  if (bytes < kMinBlockSize) return kMinBlockSize;
  return kMinBlockSize * ((bytes + kMinBlockSize - 1) / kMinBlockSize);
}

std::size_t CachingAllocatorModel::segment_size(std::size_t rounded) {
  if (rounded <= kSmallSize) return kSmallBuffer;
  if (rounded < kMinLargeAlloc) return kLargeBuffer;
  return kRoundLarge * ((rounded + kRoundLarge - 1) / kRoundLarge);
}

CachingAllocatorModel::Block* CachingAllocatorModel::neighbour(const Block* b, bool after) {
  auto it = blocks_.find(b->offset);
  if (after) {
    ++it;
  } else {
    if (it == blocks_.begin()) return nullptr;
    --it;
  }
  if (it == blocks_.end() || it->second.segment != b->segment) return nullptr;
  return &it->second;
}

std::optional<CachingAllocatorModel::Allocation> CachingAllocatorModel::allocate(std::size_t bytes) {
  const std::size_t size = round_size(bytes);
  const bool small = size <= kSmallSize;
  auto& free_pool = pool(small);
  Block key;
  key.size = size;
  key.offset = 0;
  Allocation a;
  Block* b = nullptr;
  auto it = free_pool.lower_bound(&key);
  if (it != free_pool.end()) {
    b = *it;
    free_pool.erase(it);
  } else {
    const std::size_t seg = segment_size(size);
    if (seg > capacity_ - end_) return std::nullopt;
    Block fresh;
    fresh.offset = end_;
    fresh.size = seg;
    fresh.segment = ++segments_;
    fresh.small = small;
    b = &blocks_.emplace(end_, fresh).first->second;
    a.new_segment = true;
    a.segment_offset = end_;
    a.segment_bytes = seg;
    end_ += seg;
  }
  const std::size_t rest = b->size - size;
  if (small ? rest >= kMinBlockSize : rest > kSmallSize) {
    Block tail = *b;
    tail.offset = b->offset + size;
    tail.size = rest;
    tail.allocated = false;
    b->size = size;
    pool(small).insert(&blocks_.emplace(tail.offset, tail).first->second);
  }
  b->allocated = true;
  ++live_;
  a.offset = b->offset;
  a.size = b->size;
  return a;
}

bool CachingAllocatorModel::free(std::size_t offset) {
  auto it = blocks_.find(offset);
  if (it == blocks_.end() || !it->second.allocated) return false;
  Block* b = &it->second;
  b->allocated = false;
  --live_;
  auto& free_pool = pool(b->small);
  // Merge with free neighbours of the same segment (PyTorch's try_merge_blocks).
  if (Block* prev = neighbour(b, false); prev && !prev->allocated) {
    free_pool.erase(prev);
    prev->size += b->size;
    blocks_.erase(b->offset);
    b = prev;
  }
  if (Block* next = neighbour(b, true); next && !next->allocated) {
    free_pool.erase(next);
    b->size += next->size;
    blocks_.erase(next->offset);
  }
  free_pool.insert(b);
  return true;
}

std::vector<std::pair<std::size_t, std::size_t>> CachingAllocatorModel::free_blocks() const {
  std::vector<std::pair<std::size_t, std::size_t>> out;
  for (const auto& [offset, b] : blocks_)
    if (!b.allocated) out.emplace_back(offset, b.size);
  return out;
}

DeviceMemory::DeviceMemory(std::size_t capacity, std::size_t guard, std::size_t mapped_below)
    : capacity_(capacity), guard_(guard), mapped_below_(std::min(mapped_below, guard)), model_(capacity) {
  void* m = mmap(nullptr, guard + capacity, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (m == MAP_FAILED) return;
  reservation_ = static_cast<char*>(m);
  base_ = reservation_ + guard;
  if (mapped_below_ > 0 && mprotect(base_ - mapped_below_, mapped_below_, PROT_READ | PROT_WRITE) != 0) {
    munmap(reservation_, guard + capacity);
    reservation_ = base_ = nullptr;
  }
}

DeviceMemory::~DeviceMemory() {
  if (reservation_) munmap(reservation_, guard_ + capacity_);
}

void* DeviceMemory::allocate(std::size_t bytes) {
  if (!base_) return nullptr;
  const auto a = model_.allocate(bytes);
  if (!a) return nullptr;
  // A new segment: fresh from the driver, zero (reset() dropped any earlier pages' contents), or
  // filled with the session's probe byte.
  if (a->new_segment && mprotect(base_ + a->segment_offset, a->segment_bytes, PROT_READ | PROT_WRITE) != 0) {
    model_.free(a->offset);
    return nullptr;
  }
  if (a->new_segment && fresh_fill_ >= 0) std::memset(base_ + a->segment_offset, fresh_fill_, a->segment_bytes);
  return base_ + a->offset;
}

void DeviceMemory::free(void* p) {
  const char* c = static_cast<const char*>(p);
  if (base_ && c >= base_ && c < base_ + capacity_) model_.free(static_cast<std::size_t>(c - base_));
}

void DeviceMemory::reset() {
  if (!base_) return;
  const std::size_t used = model_.mapped_bytes();
  if (used > 0) {
    madvise(base_, used, MADV_DONTNEED);  // private anonymous pages read as zero afterwards
    mprotect(base_, used, PROT_NONE);
  }
  if (mapped_below_ > 0) madvise(base_ - mapped_below_, mapped_below_, MADV_DONTNEED);  // what a run wrote there
  model_ = CachingAllocatorModel(capacity_);
  fresh_fill_ = -1;
}

bool DeviceMemory::contains(const void* p) const {
  return reservation_ && static_cast<const char*>(p) >= reservation_ && static_cast<const char*>(p) < base_ + capacity_;
}

}  // namespace kaudit::rt

// ---- the worker's allocator wrapper ------------------------------------------------------------
namespace kaudit::rt {
namespace {

DeviceMemory* g_device = nullptr;
bool g_session = false;  // the worker runs one request at a time; block loops only read this
std::uint64_t g_serial = 0;

void free_device_block(void* p) {
  if (g_device) g_device->free(p);
}

class DeviceModelAllocator final : public c10::Allocator {
 public:
  explicit DeviceModelAllocator(c10::Allocator* previous) : previous_(previous) {}
  // c10::Allocator's allocate() was const until PyTorch 2.3 and is not since, when copy_data()
  // became pure too: both spellings are declared (without `override`, which only one libtorch
  // would accept), so this builds against Debian's libtorch and against PyTorch 2.x.
  c10::DataPtr allocate(std::size_t n) const { return make(n); }
  c10::DataPtr allocate(std::size_t n) { return make(n); }
  void copy_data(void* dest, const void* src, std::size_t count) const { std::memcpy(dest, src, count); }

 private:
  c10::DataPtr make(std::size_t n) const {
    if (!g_session || !g_device) return previous_->allocate(n);
    void* p = g_device->allocate(n);
    // The model is full: a GPU would raise out of memory, which the harness sees as an
    // exception in the candidate (or in its own step).
    if (!p) throw c10::Error({__func__, __FILE__, static_cast<std::uint32_t>(__LINE__)},
                             "CUDA out of memory (kaudit's device memory model is full)");
    return {p, p, &free_device_block, c10::Device(c10::DeviceType::CPU)};
  }

 public:
  c10::DeleterFnPtr raw_deleter() const override { return nullptr; }

 private:
  c10::Allocator* previous_;
};

}  // namespace

void install_device_memory(std::size_t capacity) {
  if (g_device) return;
  static DeviceMemory memory(capacity);
  if (!memory.ok()) return;
  g_device = &memory;
  static DeviceModelAllocator allocator(c10::GetCPUAllocator());
  c10::SetCPUAllocator(&allocator, /*priority=*/101);  // above the memory checker's 100
  install_fault_handler();
}

bool begin_device_session(int fresh_fill) {
  if (!g_device) return false;
  g_device->reset();
  g_device->set_fresh_fill(fresh_fill);
  g_session = true;
  ++g_serial;
  return true;
}
void end_device_session() {
  g_session = false;
  if (g_device) g_device->reset();
}
bool device_session_active() { return g_session; }
std::uint64_t device_session_serial() { return g_serial; }
bool in_device_memory(const void* p) { return g_device && g_device->contains(p); }

HostAllocationScope::HostAllocationScope() : saved_(g_session) { g_session = false; }
HostAllocationScope::~HostAllocationScope() { g_session = saved_; }

}  // namespace kaudit::rt
