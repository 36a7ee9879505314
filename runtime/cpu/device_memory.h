// Oracle mode's model of GPU memory: what a checker's harness and the kernel under test see when
// they allocate tensors on a GPU through PyTorch.
//
// On a GPU, `torch.empty` returns a block of PyTorch's CUDA caching allocator
// (c10/cuda/CUDACachingAllocator.cpp). Its contents are never cleared: a block whose last user
// was a freed tensor (an intermediate of the reference run, a previous trial's input or output, a
// comparison temporary) still holds that tensor's bytes, and a segment fresh from the driver
// reads as zeros. A kernel that forgets to write its output therefore returns whatever the block
// held, and a checker passes it whenever that is within tolerance (the no-op reward hack). And an
// access past the end of a tensor lands in the allocation's rounding slack or in the next block
// of its segment, silently; only an address outside every segment faults (an illegal address).
//
// CachingAllocatorModel is the allocator's bookkeeping over offsets (pure; unit-tested), with
// PyTorch's constants and policy for one device and one stream:
//  - a request is rounded up to a multiple of 512 bytes (at least 512);
//  - rounded sizes up to 1 MiB are served from the small pool, larger ones from the large pool;
//  - a request takes the smallest free block of its pool that fits (best fit; the lowest address
//    among blocks of equal size), and the block is split when the rest is at least 512 bytes
//    (small pool) or more than 1 MiB (large pool): the request gets the front part;
//  - when no free block fits, a new segment is taken from the driver: 2 MiB for the small pool,
//    20 MiB for requests under 10 MiB, else the request rounded up to 2 MiB;
//  - a freed block merges with free neighbours of its segment and goes back to its pool.
// Segments are laid out one after another (docs/ORACLES.md, Oracle mode, says where that is a
// modelling choice and what the GPU measurement showed).
//
// DeviceMemory puts that model on a reserved address range: segments are mapped read-write as
// they are created (zeroed), everything else is inaccessible, so a fault there is the model's
// illegal address. reset() returns it to a fresh process's state. The range begins with a guard
// (kDeviceGuardBytes) below the first segment: its top kMappedBelowBytes are mapped and read as
// zeros, as the memory below a checker's tensors did on an H100 (a read just below the first
// tensor never faulted in a KernelBench-style harness, fresh process or not:
// docs/calibration/h100-2026-12-06e), the rest is inaccessible, so an access far below faults
// (without a guard it reached whatever the process had mapped there, and the verdict depended on
// the process's layout; docs/ORACLES.md, "No memory checker").
#pragma once
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <vector>

namespace kaudit::rt {

class CachingAllocatorModel {
 public:
  static constexpr std::size_t kMinBlockSize = 512;
  static constexpr std::size_t kSmallSize = std::size_t(1) << 20;
  static constexpr std::size_t kSmallBuffer = std::size_t(2) << 20;
  static constexpr std::size_t kLargeBuffer = std::size_t(20) << 20;
  static constexpr std::size_t kMinLargeAlloc = std::size_t(10) << 20;
  static constexpr std::size_t kRoundLarge = std::size_t(2) << 20;

  static std::size_t round_size(std::size_t bytes);
  static std::size_t segment_size(std::size_t rounded);

  // `capacity`: the bytes of address range segments may occupy.
  explicit CachingAllocatorModel(std::size_t capacity) : capacity_(capacity) {}
  // The pools point into blocks_: moving keeps the nodes, copying would not.
  CachingAllocatorModel(const CachingAllocatorModel&) = delete;
  CachingAllocatorModel& operator=(const CachingAllocatorModel&) = delete;
  CachingAllocatorModel(CachingAllocatorModel&&) = default;
  CachingAllocatorModel& operator=(CachingAllocatorModel&&) = default;

  struct Allocation {
    std::size_t offset = 0;       // of the block (and the tensor's data)
    std::size_t size = 0;         // the block's size (>= the request)
    bool new_segment = false;     // the block was cut from a segment created for this request
    std::size_t segment_offset = 0, segment_bytes = 0;  // that segment, when new_segment
  };
  // nullopt when a new segment would go past the capacity (the driver's out-of-memory).
  std::optional<Allocation> allocate(std::size_t bytes);
  // Frees the block at `offset` (from allocate); false if no allocated block starts there.
  bool free(std::size_t offset);

  std::size_t mapped_bytes() const { return end_; }  // every segment, back to back from 0
  std::size_t live_blocks() const { return live_; }
  // Free blocks as (offset, size), in address order (tests).
  std::vector<std::pair<std::size_t, std::size_t>> free_blocks() const;

 private:
  struct Block {
    std::size_t offset = 0, size = 0;
    int segment = 0;
    bool small = false, allocated = false;
  };
  struct BySize {  // PyTorch's BlockComparatorSize for one stream: size, then address
    bool operator()(const Block* a, const Block* b) const {
      return a->size != b->size ? a->size < b->size : a->offset < b->offset;
    }
  };
  std::set<Block*, BySize>& pool(bool small) { return small ? small_ : large_; }
  Block* neighbour(const Block* b, bool after);

  std::size_t capacity_;
  std::size_t end_ = 0;
  std::size_t live_ = 0;
  int segments_ = 0;
  std::map<std::size_t, Block> blocks_;  // by offset: every block of every segment
  std::set<Block*, BySize> small_, large_;
};

// The guard below the first segment. 256 MiB: far more than any tensor of the CPU backend's
// presets, so a mutant that indexes a whole tensor below its input meets the guard, never the
// process's other mappings. Address space only (PROT_NONE, MAP_NORESERVE), counted against the
// worker's RLIMIT_AS.
constexpr std::size_t kDeviceGuardBytes = std::size_t(256) << 20;
// The top of the guard, mapped read-write and zero after every reset(): an H200 probe read zeros
// down to 16 MiB below a first tensor of the large pool (docs/calibration/h200-2026-12-04b), and
// reads just below a harness's first tensor were silent in every GPU evaluation since.
constexpr std::size_t kMappedBelowBytes = std::size_t(16) << 20;

// The model on real memory, for the worker process. Not thread-safe: the audit's workers run one
// kernel at a time, on one thread (a parallel block loop in the same process only reads tensors).
class DeviceMemory {
 public:
  // Reserves a guard and `capacity` bytes of address space above it (inaccessible until segments
  // are made); the guard's top `mapped_below` bytes (at most the guard) read as zeros.
  explicit DeviceMemory(std::size_t capacity, std::size_t guard = kDeviceGuardBytes,
                        std::size_t mapped_below = kMappedBelowBytes);
  ~DeviceMemory();
  DeviceMemory(const DeviceMemory&) = delete;
  DeviceMemory& operator=(const DeviceMemory&) = delete;

  bool ok() const { return base_ != nullptr; }
  // A block for `bytes` (the data pointer), or nullptr when the model is out of memory.
  void* allocate(std::size_t bytes);
  void free(void* p);
  // Back to a fresh process: no segment, every page inaccessible and zero when mapped again.
  void reset();
  // New segments hold `byte` in every byte instead of zeros until the next reset() (-1: zeros).
  // Not a GPU's behaviour: the probe of the gate every_output_written (oracle/harness.cpp).
  void set_fresh_fill(int byte) { fresh_fill_ = byte; }
  // Whether `p` lies in the reserved range, the guard below the first segment included.
  bool contains(const void* p) const;
  std::size_t live_blocks() const { return model_.live_blocks(); }
  // Where the first segment begins (the guard ends).
  const char* base() const { return base_; }

 private:
  char* reservation_ = nullptr;  // the guard's first byte
  char* base_ = nullptr;
  std::size_t capacity_;
  std::size_t guard_;
  std::size_t mapped_below_;
  CachingAllocatorModel model_;
  int fresh_fill_ = -1;
};

}  // namespace kaudit::rt

namespace kaudit::rt {

// The worker's device memory. install_device_memory() (once, at worker start, after the memory
// checker's allocator if any) makes every CPU tensor allocation go through a wrapper: while a
// device session is active (oracle mode: a checker's harness is being modelled), new tensors are
// blocks of the DeviceMemory model; otherwise they come from the allocator installed before.
void install_device_memory(std::size_t capacity = std::size_t(2) << 30);
// Starts a device session: the model is back to a fresh process's state, allocations go to it,
// and a fault in it (or in a static shared-memory guard) is an illegal address (exit code
// kIllegalAddressExitCode) rather than the memory checker's out-of-bounds. False when no model
// is installed. Every tensor allocated in the session must be gone before end_device_session().
// `fresh_fill` >= 0: new segments hold that byte everywhere instead of zeros (the probe of the
// gate every_output_written, oracle/harness.cpp).
bool begin_device_session(int fresh_fill = -1);
void end_device_session();
bool device_session_active();
// Counts device sessions begun in this process: oracle mode's shared memory starts at zero when
// a block is the first of its session on its OS thread (emulator.cpp).
std::uint64_t device_session_serial();
// Inside a device session: allocations made while one of these lives go to the previous
// allocator (the worker's own bookkeeping, copies of results that must outlive the session).
class HostAllocationScope {
 public:
  HostAllocationScope();
  ~HostAllocationScope();
  HostAllocationScope(const HostAllocationScope&) = delete;
  HostAllocationScope& operator=(const HostAllocationScope&) = delete;

 private:
  bool saved_;
};
// Whether `p` lies in the device model's reserved range (the fault handler asks).
bool in_device_memory(const void* p);
constexpr int kIllegalAddressExitCode = 88;

}  // namespace kaudit::rt
