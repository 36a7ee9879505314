// The model of PyTorch's CUDA caching allocator (runtime/cpu/device_memory.h): rounding, pools,
// best fit, splitting, merging, segment sizes, and on real memory: zeros in a fresh segment,
// contents kept in a reused block, a fresh state after reset, a faulting guard below the first segment.
#include <gtest/gtest.h>

#include <csignal>
#include <cstdlib>
#include <cstring>

#include "runtime/cpu/device_memory.h"

namespace kaudit::rt {
namespace {

using Model = CachingAllocatorModel;
constexpr std::size_t kMiB = std::size_t(1) << 20;

TEST(CachingAllocatorModel, RoundsTo512AndPicksSegmentSizes) {
  EXPECT_EQ(Model::round_size(1), 512u);
  EXPECT_EQ(Model::round_size(512), 512u);
  EXPECT_EQ(Model::round_size(513), 1024u);
  EXPECT_EQ(Model::round_size(4000), 4096u);
  EXPECT_EQ(Model::segment_size(512), 2 * kMiB);        // small pool: 2 MiB segments
  EXPECT_EQ(Model::segment_size(kMiB), 2 * kMiB);       // 1 MiB is still small
  EXPECT_EQ(Model::segment_size(kMiB + 512), 20 * kMiB);  // under 10 MiB: 20 MiB segments
  EXPECT_EQ(Model::segment_size(10 * kMiB), 10 * kMiB);  // else rounded up to 2 MiB
  EXPECT_EQ(Model::segment_size(11 * kMiB), 12 * kMiB);
}

TEST(CachingAllocatorModel, SmallBlocksShareASegmentBackToBack) {
  Model m(1 << 30);
  const auto a = m.allocate(4000), b = m.allocate(100);
  ASSERT_TRUE(a && b);
  EXPECT_TRUE(a->new_segment);
  EXPECT_EQ(a->offset, 0u);
  EXPECT_EQ(a->size, 4096u);
  EXPECT_FALSE(b->new_segment);
  EXPECT_EQ(b->offset, 4096u);  // right after a: an access past a's slack lands in b
  EXPECT_EQ(m.mapped_bytes(), 2 * kMiB);
}

TEST(CachingAllocatorModel, AFreedBlockIsReusedByTheNextRequestOfItsSize) {
  Model m(1 << 30);
  const auto a = m.allocate(4096), b = m.allocate(4096), c = m.allocate(4096);
  ASSERT_TRUE(a && b && c);
  ASSERT_TRUE(m.free(a->offset));
  ASSERT_TRUE(m.free(c->offset));  // merges with the rest of the segment
  const auto d = m.allocate(4096);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->offset, a->offset);  // best fit: a's 4 KiB hole, not the big free tail
  EXPECT_FALSE(m.free(12345));      // no block starts there
}

TEST(CachingAllocatorModel, BestFitTakesTheSmallestBlockThatFitsThenTheLowestAddress) {
  Model m(1 << 30);
  std::vector<std::size_t> at;
  for (std::size_t bytes : {1024, 512, 2048, 512, 1024, 512}) at.push_back(m.allocate(bytes)->offset);
  m.free(at[0]);  // a 1024 hole at 0
  m.free(at[2]);  // a 2048 hole
  m.free(at[4]);  // another 1024 hole, higher
  EXPECT_EQ(m.allocate(900)->offset, at[0]);
  EXPECT_EQ(m.allocate(1000)->offset, at[4]);
  EXPECT_EQ(m.allocate(1500)->offset, at[2]);
}

TEST(CachingAllocatorModel, FreedNeighboursMergeAndLargeRequestsUseTheLargePool) {
  Model m(1 << 30);
  const auto a = m.allocate(512), b = m.allocate(512);
  m.free(b->offset);
  m.free(a->offset);
  const auto free = m.free_blocks();
  ASSERT_EQ(free.size(), 1u);  // the whole segment again
  EXPECT_EQ(free[0], std::make_pair(std::size_t(0), 2 * kMiB));
  // 1.5 MiB: large pool, a 20 MiB segment of its own, split (the rest is more than 1 MiB).
  const auto big = m.allocate(3 * kMiB / 2);
  ASSERT_TRUE(big);
  EXPECT_TRUE(big->new_segment);
  EXPECT_EQ(big->segment_bytes, 20 * kMiB);
  EXPECT_EQ(big->offset, 2 * kMiB);
  // A small request does not take the large pool's free tail.
  const auto small = m.allocate(512);
  EXPECT_LT(small->offset, 2 * kMiB);
}

TEST(CachingAllocatorModel, ASegmentPastTheCapacityIsOutOfMemory) {
  Model m(4 * kMiB);
  EXPECT_TRUE(m.allocate(512));
  EXPECT_FALSE(m.allocate(3 * kMiB));  // would need a 20 MiB segment
}

TEST(DeviceMemory, FreshSegmentsAreZeroAndReusedBlocksKeepTheirContents) {
  DeviceMemory mem(64 * kMiB);
  ASSERT_TRUE(mem.ok());
  auto* a = static_cast<float*>(mem.allocate(4096));
  ASSERT_NE(a, nullptr);
  for (int i = 0; i < 1024; ++i) EXPECT_EQ(a[i], 0.0f);
  for (int i = 0; i < 1024; ++i) a[i] = float(i);
  mem.free(a);
  auto* b = static_cast<float*>(mem.allocate(4096));
  EXPECT_EQ(b, a);  // the same block, as the caching allocator hands it back
  EXPECT_EQ(b[7], 7.0f);
  EXPECT_EQ(mem.live_blocks(), 1u);
  mem.free(b);
  mem.reset();  // a fresh process: no segment, zeros when mapped again
  auto* c = static_cast<float*>(mem.allocate(4096));
  EXPECT_EQ(c, a);
  EXPECT_EQ(c[7], 0.0f);
  EXPECT_TRUE(mem.contains(c));
  EXPECT_FALSE(mem.contains(&mem));
}

TEST(DeviceMemory, AGuardBelowTheFirstSegmentBelongsToTheRangeAndFaults) {
  DeviceMemory mem(64 * kMiB, 8 * kMiB, 0);
  ASSERT_TRUE(mem.ok());
  auto* a = static_cast<char*>(mem.allocate(4096));
  ASSERT_EQ(a, mem.base());  // the first segment starts right above the guard
  EXPECT_TRUE(mem.contains(a - 1));
  EXPECT_TRUE(mem.contains(a - 8 * kMiB));
  EXPECT_FALSE(mem.contains(a - 8 * kMiB - 1));
  EXPECT_FALSE(mem.contains(a + 64 * kMiB));
  mem.free(a - 4);  // not a block: ignored
  EXPECT_EQ(mem.live_blocks(), 1u);
  // The guard is never mapped: a read there faults (the worker's handler makes it an illegal address).
  EXPECT_EXIT({ volatile char c = *(a - 4096); (void)c; std::exit(0); }, testing::KilledBySignal(SIGSEGV), "");
}

// The guard's top reads as zeros (as memory below a harness's first tensor did on an H100), takes
// writes, and is zero again after reset(); below it the guard faults.
TEST(DeviceMemory, TheTopOfTheGuardReadsAsZerosAndTheRestFaults) {
  DeviceMemory mem(64 * kMiB, 8 * kMiB, 1 * kMiB);
  ASSERT_TRUE(mem.ok());
  auto* a = static_cast<char*>(mem.allocate(4096));
  ASSERT_EQ(a, mem.base());
  EXPECT_EQ(a[-1], 0);
  EXPECT_EQ(a[-static_cast<std::ptrdiff_t>(kMiB)], 0);
  a[-8] = 42;
  EXPECT_EQ(a[-8], 42);
  mem.reset();
  auto* b = static_cast<char*>(mem.allocate(4096));
  ASSERT_EQ(b, a);
  EXPECT_EQ(b[-8], 0);
  EXPECT_EXIT({ volatile char c = *(b - kMiB - 4096); (void)c; std::exit(0); }, testing::KilledBySignal(SIGSEGV), "");
}

}  // namespace
}  // namespace kaudit::rt
