// runtime/host_buffers.h: large tensors come from kept buffers of their size class, a buffer is
// handed out again only after every tensor using it is gone, small tensors and buffers over the
// keeping limit are left to the allocator, and a large output read from a worker arrives intact.
#include <gtest/gtest.h>

#include <ATen/ATen.h>

#include "runtime/host_buffers.h"
#include "runtime/worker.h"
#include "tests/runtime/kernel_fixture.h"

namespace kaudit::runtime {
namespace {

constexpr std::uint64_t kMiB = 1u << 20;

TEST(HostBuffers, ABufferIsHandedOutAgainOnlyAfterItsTensorIsGone) {
  HostBuffers buffers(kMiB, 64 * kMiB);
  at::Tensor a = buffers.empty({1 << 20}, at::kFloat);  // 4 MiB
  const void* first = a.data_ptr();
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(first) % (2 * kMiB), 0u);  // huge-page aligned
  at::Tensor view = a.slice(0, 10, 20);  // a view keeps the buffer too
  a = at::Tensor();
  at::Tensor b = buffers.empty({1 << 20}, at::kFloat);
  EXPECT_NE(b.data_ptr(), first);  // still in use through the view
  EXPECT_EQ(buffers.stats().reused, 0u);
  view = at::Tensor();
  at::Tensor c = buffers.empty({1 << 20}, at::kFloat);
  EXPECT_EQ(c.data_ptr(), first);
  EXPECT_EQ(buffers.stats().reused, 1u);
  EXPECT_EQ(buffers.stats().allocated, 2u);
  EXPECT_EQ(buffers.stats().kept_bytes, 0u);  // both handed out
}

TEST(HostBuffers, ShapesOfOneSizeClassShareBuffersAndOthersDoNot) {
  HostBuffers buffers(kMiB, 64 * kMiB);
  const void* p = buffers.empty({1024, 1024}, at::kFloat).data_ptr();  // 4 MiB, freed at once
  EXPECT_EQ(buffers.stats().kept_bytes, 4 * kMiB);
  at::Tensor same_class = buffers.empty({4 * 1024 * 1024 - 3}, at::kByte);  // rounds up to 4 MiB
  EXPECT_EQ(same_class.data_ptr(), p);
  at::Tensor larger = buffers.empty({3 << 20}, at::kFloat);  // 12 MiB: a class of its own
  EXPECT_NE(larger.data_ptr(), p);
  EXPECT_EQ(larger.sizes(), at::IntArrayRef({3 << 20}));
  EXPECT_EQ(larger.scalar_type(), at::kFloat);
  EXPECT_TRUE(larger.is_contiguous());
}

TEST(HostBuffers, SmallTensorsAndBuffersOverTheLimitAreNotKept) {
  HostBuffers buffers(kMiB, 6 * kMiB);
  { at::Tensor small = buffers.empty({16}, at::kFloat); }
  EXPECT_EQ(buffers.stats().allocated, 0u);  // left to ATen
  {
    at::Tensor a = buffers.empty({1 << 20}, at::kFloat);  // 4 MiB
    at::Tensor b = buffers.empty({1 << 20}, at::kFloat);  // 4 MiB
  }
  EXPECT_EQ(buffers.stats().allocated, 2u);
  EXPECT_EQ(buffers.stats().kept_bytes, 4 * kMiB);  // the second would pass 6 MiB: freed
}

// A shape whose size overflows (a forged reply may name one) is ATen's to refuse, not a small
// buffer under a huge tensor.
TEST(HostBuffers, AShapeWhoseSizeOverflowsIsRefused) {
  HostBuffers buffers(kMiB, 64 * kMiB);
  // 4 bytes x (2^62 + 2^20) x 4 wraps to 16 MiB in 64 bits.
  EXPECT_ANY_THROW(buffers.empty({(std::int64_t{1} << 62) + (1 << 20), 4}, at::kFloat));
  EXPECT_ANY_THROW(buffers.empty({-1, 1 << 20}, at::kFloat));
  EXPECT_EQ(buffers.stats().allocated, 0u);
}

TEST(HostBuffers, ATensorOutlivesItsPool) {
  at::Tensor t;
  {
    HostBuffers buffers(kMiB, 64 * kMiB);
    t = buffers.empty({1 << 20}, at::kFloat);
  }
  t.fill_(3.0f);  // the buffer is still the tensor's; freed with it
  EXPECT_EQ(t.sum().item<double>(), 3.0 * (1 << 20));
}

// The runner reads a worker's large outputs into the process's kept buffers: two runs of an entry
// returning its 32 MiB input give each its own bytes, the second in the first one's buffer.
TEST(HostBuffers, LargeOutputsFromAWorkerArriveIntactInKeptBuffers) {
  const char* src = R"(
#include <torch/extension.h>
torch::Tensor run(torch::Tensor x) { return x; }
)";
  IsolatedRunner runner(KAUDIT_EXE, {});
  const auto before = HostBuffers::for_replies().stats();
  for (double add : {1.0, 2.0}) {
    const at::Tensor x = at::arange(8 << 20, at::kFloat).add_(add);  // 32 MiB, exact integers in float
    auto r = kaudit::test::build_and_run_on(runner, src, "run", {x});
    ASSERT_EQ(r.result.status, Status::Ok) << r.build_error << r.result.message;
    ASSERT_EQ(r.result.outputs.size(), 1u);
    EXPECT_TRUE(at::equal(r.result.outputs[0], x));
  }
  const auto after = HostBuffers::for_replies().stats();
  EXPECT_EQ(after.allocated + after.reused - before.allocated - before.reused, 2u);
  EXPECT_GE(after.reused - before.reused, 1u);
}

}  // namespace
}  // namespace kaudit::runtime
