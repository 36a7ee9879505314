// Semantics of the CPU emulator: barriers, divergence, warp collectives, atomics, shared memory.
#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include "runtime/cuda/gpu_run.h"
#include "runtime/cpu/emulator.h"
#include "tests/runtime/kernel_fixture.h"

using kaudit::runtime::Status;
using kaudit::test::build_and_run;

namespace {

at::Tensor arange_f(int64_t n) { return at::arange(n, at::kFloat); }

// ---- barriers ---------------------------------------------------------------------------------
const char* kReverse = R"(
#include <torch/extension.h>
__global__ void reverse_kernel(const float* x, float* y, int n, int use_barrier) {
  __shared__ float buf[256];
  int t = threadIdx.x;
  int i = blockIdx.x * blockDim.x + t;
  buf[t] = i < n ? x[i] : 0.0f;
  if (use_barrier) __syncthreads();
  int j = blockIdx.x * blockDim.x + (blockDim.x - 1 - t);
  if (j < n) y[j] = buf[t];   // element j receives x[i] where i mirrors j within the block
}
torch::Tensor run(torch::Tensor x, int64_t use_barrier) {
  auto y = torch::empty_like(x);
  int n = x.numel();
  reverse_kernel<<<(n + 255) / 256, 256>>>(x.data_ptr<float>(), y.data_ptr<float>(), n, (int)use_barrier);
  return y;
}
)";

TEST(Emulator, BarrierOrdersSharedMemoryWrites) {
  auto x = arange_f(512);
  auto r = build_and_run(kReverse, "run", {x, int64_t(1)});
  ASSERT_EQ(r.build_error, "");
  ASSERT_EQ(r.result.status, Status::Ok) << r.result.message;
  auto y = r.result.outputs.at(0);
  for (int b = 0; b < 2; ++b)
    for (int t = 0; t < 256; ++t)
      ASSERT_EQ(y[b * 256 + 255 - t].item<float>(), x[b * 256 + t].item<float>());
}

TEST(Emulator, MissingBarrierExposesTheRaceAsPoison) {
  // Without the barrier, in-order scheduling runs thread 0 to completion before thread 255 wrote
  // its slot... but each thread reads its own slot here, so make the read cross threads:
  const char* src = R"(
#include <torch/extension.h>
__global__ void k(const float* x, float* y, int use_barrier) {
  __shared__ float buf[64];
  int t = threadIdx.x;
  buf[t] = x[t];
  if (use_barrier) __syncthreads();
  y[t] = buf[63 - t];
}
torch::Tensor run(torch::Tensor x, int64_t use_barrier) {
  auto y = torch::empty_like(x);
  k<<<1, 64>>>(x.data_ptr<float>(), y.data_ptr<float>(), (int)use_barrier);
  return y;
}
)";
  auto x = arange_f(64);
  auto good = build_and_run(src, "run", {x, int64_t(1)});
  ASSERT_EQ(good.result.status, Status::Ok) << good.build_error << good.result.message;
  EXPECT_TRUE(at::equal(good.result.outputs[0], x.flip(0)));
  auto bad = build_and_run(src, "run", {x, int64_t(0)});
  ASSERT_EQ(bad.result.status, Status::Ok) << bad.build_error << bad.result.message;
  // Thread 0 reads slot 63 before thread 63 has run: the poison pattern (NaN) is visible.
  EXPECT_TRUE(std::isnan(bad.result.outputs[0][0].item<float>()));
  // The fiber scheduler runs threads in order, so thread 63 sees slot 0 already written.
  EXPECT_EQ(bad.result.outputs[0][63].item<float>(), 0.0f);
}

TEST(Emulator, ReversedScheduleExposesTheOtherSideOfTheRace) {
  const char* src = R"(
#include <torch/extension.h>
__global__ void k(const float* x, float* y) {
  __shared__ float buf[64];
  int t = threadIdx.x;
  buf[t] = x[t];
  __syncwarp();  // forces fiber mode, but orders only within a warp
  y[t] = buf[63 - t];
}
torch::Tensor run(torch::Tensor x) {
  auto y = torch::empty_like(x);
  k<<<1, 64>>>(x.data_ptr<float>(), y.data_ptr<float>());
  return y;
}
)";
  auto x = arange_f(64);
  kaudit::rt::RunOptions rev;
  rev.schedule = kaudit::rt::Schedule::Reversed;
  auto in_order = build_and_run(src, "run", {x});
  auto reversed = build_and_run(src, "run", {x}, {}, rev);
  ASSERT_EQ(in_order.result.status, Status::Ok) << in_order.build_error << in_order.result.message;
  ASSERT_EQ(reversed.result.status, Status::Ok) << reversed.result.message;
  // In order: warp 0 finishes before warp 1 writes, so thread 0 reads poison; reversed: the opposite.
  EXPECT_TRUE(std::isnan(in_order.result.outputs[0][0].item<float>()));
  EXPECT_EQ(in_order.result.outputs[0][63].item<float>(), 0.0f);
  EXPECT_EQ(reversed.result.outputs[0][0].item<float>(), 63.0f);
  EXPECT_TRUE(std::isnan(reversed.result.outputs[0][63].item<float>()));
}

TEST(Emulator, DetectsExitedThreadsAtABarrier) {
  const char* src = R"(
#include <torch/extension.h>
__global__ void k(float* y, int n) {
  __shared__ float s[128];
  int t = threadIdx.x;
  if (t >= n) return;          // divergent exit before the barrier
  s[t] = 1.0f;
  __syncthreads();
  y[t] = s[(t + 1) % n];
}
torch::Tensor run(torch::Tensor y, int64_t n) { k<<<1, 128>>>(y.data_ptr<float>(), (int)n); return y; }
)";
  auto r = build_and_run(src, "run", {at::zeros({128}), int64_t(100)});
  ASSERT_EQ(r.build_error, "");
  EXPECT_EQ(r.result.status, Status::BarrierDivergence);
  EXPECT_NE(r.result.message.find("exited"), std::string::npos) << r.result.message;
}

TEST(Emulator, DetectsThreadsAtDifferentBarriers) {
  const char* src = R"(
#include <torch/extension.h>
__global__ void k(float* y) {
  if (threadIdx.x < 32) { y[threadIdx.x] = 1.0f; __syncthreads(); }
  else { y[threadIdx.x] = 2.0f; __syncthreads(); }
}
torch::Tensor run(torch::Tensor y) { k<<<1, 64>>>(y.data_ptr<float>()); return y; }
)";
  auto r = build_and_run(src, "run", {at::zeros({64})});
  ASSERT_EQ(r.build_error, "");
  EXPECT_EQ(r.result.status, Status::BarrierDivergence);
  EXPECT_NE(r.result.message.find("different barriers"), std::string::npos) << r.result.message;
}

TEST(Emulator, SyncthreadsCountAndOr) {
  const char* src = R"(
#include <torch/extension.h>
__global__ void k(int* out) {
  int c = __syncthreads_count(threadIdx.x % 3 == 0);
  int a = __syncthreads_and(threadIdx.x < 1000);
  int o = __syncthreads_or(threadIdx.x == 5);
  if (threadIdx.x == 0) { out[0] = c; out[1] = a; out[2] = o; }
}
torch::Tensor run(torch::Tensor o) { k<<<1, 100>>>(o.data_ptr<int>()); return o; }
)";
  auto r = build_and_run(src, "run", {at::zeros({3}, at::kInt)});
  ASSERT_EQ(r.result.status, Status::Ok) << r.build_error << r.result.message;
  auto o = r.result.outputs[0];
  EXPECT_EQ(o[0].item<int>(), 34);
  EXPECT_EQ(o[1].item<int>(), 1);
  EXPECT_EQ(o[2].item<int>(), 1);
}

// ---- warps ------------------------------------------------------------------------------------
TEST(Emulator, ShufflesFollowCudaSemantics) {
  const char* src = R"(
#include <torch/extension.h>
__global__ void k(int* out) {
  int lane = threadIdx.x % 32, t = threadIdx.x;
  out[0 * 64 + t] = __shfl_down_sync(0xffffffff, t, 3);       // t+3, or own value past lane 31
  out[1 * 64 + t] = __shfl_up_sync(0xffffffff, t, 2);         // t-2, or own value below lane 2
  out[2 * 64 + t] = __shfl_xor_sync(0xffffffff, t, 5);
  out[3 * 64 + t] = __shfl_sync(0xffffffff, t, 7, 16);        // lane 7 of each 16-lane segment
  out[4 * 64 + t] = __shfl_down_sync(0xffffffff, t, 4, 8);    // stays inside 8-lane segments
  out[5 * 64 + t] = (int)__ballot_sync(0xffffffff, lane % 2 == 0);
  out[6 * 64 + t] = __any_sync(0xffffffff, lane == 31) + 2 * __all_sync(0xffffffff, lane < 31);
  float v = (float)lane;
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffff, v, o);
  out[7 * 64 + t] = (int)v;
}
torch::Tensor run(torch::Tensor o) { k<<<1, 64>>>(o.data_ptr<int>()); return o; }
)";
  auto r = build_and_run(src, "run", {at::zeros({8 * 64}, at::kInt)});
  ASSERT_EQ(r.result.status, Status::Ok) << r.build_error << r.result.message;
  auto o = r.result.outputs[0].view({8, 64});
  for (int t = 0; t < 64; ++t) {
    const int lane = t % 32, base = t - lane;
    EXPECT_EQ(o[0][t].item<int>(), lane + 3 < 32 ? t + 3 : t) << t;
    EXPECT_EQ(o[1][t].item<int>(), lane >= 2 ? t - 2 : t) << t;
    EXPECT_EQ(o[2][t].item<int>(), base + (lane ^ 5)) << t;
    EXPECT_EQ(o[3][t].item<int>(), base + (lane / 16) * 16 + 7) << t;
    EXPECT_EQ(o[4][t].item<int>(), (lane % 8) + 4 < 8 ? t + 4 : t) << t;
    EXPECT_EQ((unsigned)o[5][t].item<int>(), 0x55555555u) << t;
    EXPECT_EQ(o[6][t].item<int>(), 1) << t;
    EXPECT_EQ(o[7][t].item<int>(), 496) << t;
  }
}

TEST(Emulator, WarpCollectiveHonoursPartialMasks) {
  const char* src = R"(
#include <torch/extension.h>
__global__ void k(int* out) {
  int lane = threadIdx.x;
  int v = -1;
  if (lane < 16) v = __shfl_down_sync(0x0000ffffu, lane * 10, 1, 16);
  out[lane] = v;
}
torch::Tensor run(torch::Tensor o) { k<<<1, 32>>>(o.data_ptr<int>()); return o; }
)";
  auto r = build_and_run(src, "run", {at::zeros({32}, at::kInt)});
  ASSERT_EQ(r.result.status, Status::Ok) << r.build_error << r.result.message;
  auto o = r.result.outputs[0];
  for (int l = 0; l < 16; ++l) EXPECT_EQ(o[l].item<int>(), l < 15 ? (l + 1) * 10 : l * 10);
  for (int l = 16; l < 32; ++l) EXPECT_EQ(o[l].item<int>(), -1);
}

TEST(Emulator, ExitedLaneNamedInMaskIsDivergence) {
  const char* src = R"(
#include <torch/extension.h>
__global__ void k(float* y) {
  if (threadIdx.x == 3) return;
  y[threadIdx.x] = __shfl_down_sync(0xffffffff, 1.0f, 1);
}
torch::Tensor run(torch::Tensor y) { k<<<1, 32>>>(y.data_ptr<float>()); return y; }
)";
  auto r = build_and_run(src, "run", {at::zeros({32})});
  ASSERT_EQ(r.build_error, "");
  EXPECT_EQ(r.result.status, Status::BarrierDivergence) << r.result.message;
}

// ---- atomics and shared memory -----------------------------------------------------------------
TEST(Emulator, AtomicsAreCorrectAcrossParallelBlocks) {
  const char* src = R"(
#include <torch/extension.h>
__global__ void k(int* count, float* fsum, unsigned long long* u, int* mx) {
  atomicAdd(count, 1);
  atomicAdd(fsum, 1.0f);
  atomicAdd(u, 2ull);
  atomicMax(mx, (int)(blockIdx.x * blockDim.x + threadIdx.x));
}
std::vector<torch::Tensor> run(torch::Tensor c, torch::Tensor f, torch::Tensor u, torch::Tensor m) {
  k<<<512, 128>>>(c.data_ptr<int>(), f.data_ptr<float>(), (unsigned long long*)u.data_ptr<int64_t>(), m.data_ptr<int>());
  return {c, f, u, m};
}
)";
  auto r = build_and_run(src, "run", {at::zeros({1}, at::kInt), at::zeros({1}), at::zeros({1}, at::kLong), at::zeros({1}, at::kInt)});
  ASSERT_EQ(r.result.status, Status::Ok) << r.build_error << r.result.message;
  EXPECT_EQ(r.result.outputs[0].item<int>(), 512 * 128);
  EXPECT_EQ(r.result.outputs[1].item<float>(), 512.0f * 128.0f);  // exact: integers below 2^24
  EXPECT_EQ(r.result.outputs[2].item<int64_t>(), 2 * 512 * 128);
  EXPECT_EQ(r.result.outputs[3].item<int>(), 512 * 128 - 1);
}

TEST(Emulator, SharedMemoryIsPrivateToEachBlock) {
  const char* src = R"(
#include <torch/extension.h>
__global__ void k(float* out) {
  __shared__ float s[32];
  s[threadIdx.x] = (float)blockIdx.x;
  __syncthreads();
  float acc = 0;
  for (int i = 0; i < 32; ++i) acc += s[i];
  out[blockIdx.x * 32 + threadIdx.x] = acc;
}
torch::Tensor run(torch::Tensor o) { k<<<300, 32>>>(o.data_ptr<float>()); return o; }
)";
  auto r = build_and_run(src, "run", {at::zeros({300 * 32})});
  ASSERT_EQ(r.result.status, Status::Ok) << r.build_error << r.result.message;
  auto o = r.result.outputs[0].view({300, 32});
  for (int b = 0; b < 300; ++b) ASSERT_EQ(o[b][b % 32].item<float>(), 32.0f * b) << b;
}

TEST(Emulator, ReadBeforeWriteOfSharedMemorySeesPoison) {
  const char* src = R"(
#include <torch/extension.h>
__global__ void k(float* out, int* iout) {
  __shared__ float s[8];
  __shared__ int si[8];
  out[threadIdx.x] = s[threadIdx.x];
  iout[threadIdx.x] = si[threadIdx.x];
  s[threadIdx.x] = 1.0f;   // written after the read: the next block must again see poison
  si[threadIdx.x] = 1;
}
std::vector<torch::Tensor> run(torch::Tensor o, torch::Tensor io) {
  k<<<1, 8>>>(o.data_ptr<float>(), io.data_ptr<int>());
  k<<<1, 8>>>(o.data_ptr<float>() + 8, io.data_ptr<int>() + 8);
  return {o, io};
}
)";
  auto r = build_and_run(src, "run", {at::zeros({16}), at::zeros({16}, at::kInt)});
  ASSERT_EQ(r.result.status, Status::Ok) << r.build_error << r.result.message;
  for (int i = 0; i < 16; ++i) {
    EXPECT_TRUE(std::isnan(r.result.outputs[0][i].item<float>())) << i;
    EXPECT_EQ(r.result.outputs[1][i].item<int>(), -1) << i;
  }
}

// Witness mode: reads past either end of dynamic shared memory see the poison pattern (16 KiB of
// it on each side), even after an earlier block wrote out of bounds there: results never depend on
// what ran before.
TEST(Emulator, OutOfBoundsDynamicSharedReadsSeePoison) {
  const char* src = R"(
#include <torch/extension.h>
__global__ void k(float* out, int off) {
  extern __shared__ float d[];
  const int t = threadIdx.x;
  d[t] = 1.0f;
  __syncthreads();
  // thread 0 reads before the array, thread 1 after it; the offset is a kernel argument
  const int i = t == 0 ? -off : 63 + off;
  if (t < 2) out[blockIdx.x * 2 + t] = d[i];
  __syncthreads();
  if (t < 2) d[i] = 2.0f;   // out-of-bounds writes the next block must not see
}
torch::Tensor run(torch::Tensor o, int64_t off) {
  k<<<3, 64, 64 * sizeof(float)>>>(o.data_ptr<float>(), (int)off);
  return o;
}
)";
  for (int64_t off : {1, 100, 3000}) {
    auto r = build_and_run(src, "run", {at::zeros({6}), off});
    ASSERT_EQ(r.result.status, Status::Ok) << r.build_error << r.result.message;
    for (int i = 0; i < 6; ++i)
      EXPECT_TRUE(std::isnan(r.result.outputs[0][i].item<float>())) << "offset " << off << ", element " << i;
  }
}

// Static shared memory is laid out as a GPU's window (runtime/cpu/shared_window.h): the buffers in
// declaration order, the window ending at their size rounded up to 128 bytes, and 1 KiB before the
// first readable. Inside the window a read past one buffer reads the next (b after a) or, past the
// last, poison in witness mode; the read just past the window faults, as on an H100
// (docs/calibration/h100-2026-12-07d: a[1000] and b[100], 4400 bytes, faulted at a[1120]). Earlier
// blocks' out-of-bounds writes inside the window are never seen: each block is poisoned afresh.
TEST(Emulator, StaticSharedMemoryIsOneWindowInDeclarationOrder) {
  const char* src = R"(
#include <torch/extension.h>
__global__ void k(float* out, long off) {
  __shared__ float a[1000];
  __shared__ float b[100];
  for (int i = threadIdx.x; i < 1000; i += blockDim.x) a[i] = 1.0f;
  for (int i = threadIdx.x; i < 100; i += blockDim.x) b[i] = 7.0f;
  __syncthreads();
  if (threadIdx.x == 0) { out[blockIdx.x] = a[off]; a[off] = 3.0f; }
}
torch::Tensor run(torch::Tensor o, int64_t off) {
  k<<<o.numel(), 128>>>(o.data_ptr<float>(), (long)off);
  return o;
}
)";
  kaudit::runtime::WorkerLimits memcheck;
  memcheck.memcheck = true;
  auto value_at = [&](int64_t off) {
    auto r = build_and_run(src, "run", {at::zeros({3}), off}, memcheck);
    EXPECT_EQ(r.result.status, Status::Ok) << "offset " << off << ": " << r.build_error << r.result.message;
    return r.result.status == Status::Ok ? r.result.outputs[0] : at::zeros({3});
  };
  EXPECT_TRUE(value_at(999).equal(at::ones({3})));
  EXPECT_TRUE(value_at(1000).equal(at::full({3}, 7.0f)));  // b[0]
  EXPECT_TRUE(value_at(1099).equal(at::full({3}, 7.0f)));  // b[99]
  for (int64_t off : {1100, 1119, -1, -256}) {            // the window's slack, the 1 KiB before
    const at::Tensor v = value_at(off);
    for (int i = 0; i < 3; ++i) EXPECT_TRUE(std::isnan(v[i].item<float>())) << "offset " << off << ", block " << i;
  }
  for (int64_t off : {1120, 1200, 16000, -2000, -16000}) {  // the 64 KiB guards: 16000 floats is 62.5 KiB
    auto checked = build_and_run(src, "run", {at::zeros({3}), off}, memcheck);
    EXPECT_EQ(checked.result.status, Status::OutOfBounds) << "offset " << off << ": " << checked.result.message;
    auto plain = build_and_run(src, "run", {at::zeros({3}), off});
    EXPECT_EQ(plain.result.status, Status::Crash) << "offset " << off << ": " << plain.result.message;
  }
}

TEST(Emulator, DynamicSharedMemorySizedAtLaunch) {
  const char* src = R"(
#include <torch/extension.h>
__global__ void block_sum(const float* x, float* out, int n) {
  extern __shared__ float sdata[];
  int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
  sdata[t] = i < n ? x[i] : 0.0f;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (t < s) sdata[t] += sdata[t + s];
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = sdata[0];
}
torch::Tensor run(torch::Tensor x, int64_t threads) {
  int n = x.numel();
  int blocks = (n + threads - 1) / threads;
  auto out = torch::zeros({blocks}, x.options());
  block_sum<<<blocks, threads, threads * sizeof(float)>>>(x.data_ptr<float>(), out.data_ptr<float>(), n);
  return out;
}
)";
  auto x = at::ones({1000});
  for (int64_t threads : {64, 512}) {
    auto r = build_and_run(src, "run", {x, threads});
    ASSERT_EQ(r.result.status, Status::Ok) << r.build_error << r.result.message;
    EXPECT_EQ(r.result.outputs[0].sum().item<float>(), 1000.0f);
    EXPECT_EQ(r.result.outputs[0][0].item<float>(), (float)threads);
  }
}

TEST(Emulator, LaunchErrorsAreReported) {
  const char* src = R"(
#include <torch/extension.h>
__global__ void k(float* y) { y[threadIdx.x] = 1.0f; }
torch::Tensor run(torch::Tensor y, int64_t threads, int64_t smem) {
  k<<<1, threads, smem>>>(y.data_ptr<float>());
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  return y;
}
)";
  auto too_many = build_and_run(src, "run", {at::zeros({2048}), int64_t(2048), int64_t(0)});
  EXPECT_EQ(too_many.result.status, Status::LaunchError) << too_many.build_error << too_many.result.message;
  EXPECT_NE(too_many.result.message.find("2048 threads per block"), std::string::npos);
  auto smem = build_and_run(src, "run", {at::zeros({32}), int64_t(32), int64_t(64 * 1024)});
  EXPECT_EQ(smem.result.status, Status::LaunchError) << smem.result.message;
  auto fine = build_and_run(src, "run", {at::zeros({1024}), int64_t(1024), int64_t(0)});
  EXPECT_EQ(fine.result.status, Status::Ok) << fine.result.message;
}

// The work budget counts CUDA threads over all of a run's launches and stops the launch that
// would go over before it starts: a timeout decided by counting, not by the CPU clock.
TEST(Emulator, WorkBudgetStopsTheLaunchThatGoesOver) {
  const char* src = R"(
#include <torch/extension.h>
__global__ void k(float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] += 1.0f;
}
torch::Tensor run(torch::Tensor y, int64_t second_grid) {
  k<<<4, 256>>>(y.data_ptr<float>(), 1024);
  k<<<second_grid, 256>>>(y.data_ptr<float>(), 1024);
  return y;
}
)";
  kaudit::runtime::WorkerLimits exact;
  exact.thread_budget = 2048;  // both launches of 4 x 256
  auto fits = build_and_run(src, "run", {at::zeros({1024}), int64_t(4)}, exact);
  ASSERT_EQ(fits.result.status, Status::Ok) << fits.build_error << fits.result.message;
  EXPECT_TRUE(at::equal(fits.result.outputs[0], at::full({1024}, 2.0f)));

  kaudit::runtime::WorkerLimits one_short = exact;
  one_short.thread_budget = 2047;
  auto over = build_and_run(src, "run", {at::zeros({1024}), int64_t(4)}, one_short);
  EXPECT_EQ(over.result.status, Status::Timeout) << over.result.message;
  EXPECT_NE(over.result.message.find("would start 1024 CUDA threads: 2048 thread units in the run, over its budget of 2047"),
            std::string::npos)
      << over.result.message;

  // A grid of 2^30 blocks of 256 (2^38 threads, hours of emulation): stopped at launch, well
  // inside the runner's 60 s limit. Without the budget the same run would be a CPU-clock timeout.
  auto blowup = build_and_run(src, "run", {at::zeros({1024}), int64_t(1) << 30}, exact);
  EXPECT_EQ(blowup.result.status, Status::Timeout) << blowup.result.message;
  EXPECT_NE(blowup.result.message.find("would start 274877906944 CUDA threads"), std::string::npos)
      << blowup.result.message;
}

// A thread of a kernel that needs fibers (here: a barrier) counts kFiberThreadWeight.
TEST(Emulator, WorkBudgetWeighsFiberThreads) {
  const char* src = R"(
#include <torch/extension.h>
__global__ void k(float* y) {
  __shared__ float s[256];
  s[threadIdx.x] = threadIdx.x;
  __syncthreads();
  y[threadIdx.x] = s[255 - threadIdx.x];
}
torch::Tensor run(torch::Tensor y) {
  k<<<1, 256>>>(y.data_ptr<float>());
  return y;
}
)";
  kaudit::runtime::WorkerLimits exact;
  exact.thread_budget = 256 * kaudit::rt::kFiberThreadWeight;
  auto fits = build_and_run(src, "run", {at::zeros({256})}, exact);
  ASSERT_EQ(fits.result.status, Status::Ok) << fits.build_error << fits.result.message;
  EXPECT_EQ(fits.result.outputs[0][0].item<float>(), 255.0f);
  kaudit::runtime::WorkerLimits one_short = exact;
  --one_short.thread_budget;
  auto over = build_and_run(src, "run", {at::zeros({256})}, one_short);
  EXPECT_EQ(over.result.status, Status::Timeout) << over.result.message;
  EXPECT_NE(over.result.message.find("256 CUDA threads run on fibers (its source has barriers or warp collectives; each counts 128)"),
            std::string::npos)
      << over.result.message;
}

TEST(Emulator, WorkBudgetCountsGridsBeyond64Bits) {
  const char* src = R"(
#include <torch/extension.h>
__global__ void k(float* y) { y[0] = 1.0f; }
torch::Tensor run(torch::Tensor y) {
  k<<<dim3(2147483647u, 65535u, 65535u), 1024>>>(y.data_ptr<float>());  // 2^73 threads
  return y;
}
)";
  kaudit::runtime::WorkerLimits budget;
  budget.thread_budget = std::uint64_t(1) << 27;
  auto r = build_and_run(src, "run", {at::zeros({1})}, budget);
  EXPECT_EQ(r.result.status, Status::Timeout) << r.build_error << r.result.message;
  EXPECT_NE(r.result.message.find("would start over 2^64 CUDA threads"), std::string::npos) << r.result.message;
}

TEST(Emulator, HalfArithmeticRoundsLikeBinary16) {
  const char* src = R"(
#include <torch/extension.h>
#include <cuda_fp16.h>
__global__ void k(const __half* x, __half* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = __hadd(x[i], __float2half(1.0f)) * x[i];
}
torch::Tensor run(torch::Tensor x) {
  auto y = torch::empty_like(x);
  int n = x.numel();
  k<<<(n + 127) / 128, 128>>>(reinterpret_cast<const __half*>(x.data_ptr<at::Half>()),
                              reinterpret_cast<__half*>(y.data_ptr<at::Half>()), n);
  return y;
}
)";
  auto x = (at::randn({1000}) * 10).to(at::kHalf);
  auto r = build_and_run(src, "run", {x});
  ASSERT_EQ(r.result.status, Status::Ok) << r.build_error << r.result.message;
  // libtorch's CPU half ops round each operation to binary16, like the GPU's.
  auto expected = (x + at::ones_like(x)) * x;
  EXPECT_TRUE(at::equal(r.result.outputs[0], expected));
}

// bfloat16 through cuda_bf16.h's explicit conversions and pair loads (a torch build has no implicit
// ones): every value rounds as c10::BFloat16 does, to nearest even from float.
TEST(Emulator, Bfloat16ConversionsRoundAsTorchDoes) {
  const char* src = R"(
#include <torch/extension.h>
#include <cuda_bf16.h>
__global__ void k(const __nv_bfloat162* x, const float* f, __nv_bfloat162* y, __nv_bfloat16* g, int pairs) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < pairs) {
    const float2 v = __bfloat1622float2(x[i]);
    y[i] = __floats2bfloat162_rn(v.y * 3.0f, __bfloat162float(__hadd(__low2bfloat16(x[i]), __high2bfloat16(x[i]))));
    g[2 * i] = __float2bfloat16_rn(f[2 * i]);
    g[2 * i + 1] = __float2bfloat16(f[2 * i + 1]);
  }
}
std::vector<torch::Tensor> run(torch::Tensor x, torch::Tensor f) {
  TORCH_CHECK(x.scalar_type() == torch::kBFloat16 && f.scalar_type() == torch::kFloat32, "dtypes");
  auto y = torch::empty_like(x);
  auto g = torch::empty(f.sizes(), f.options().dtype(at::kBFloat16));
  int pairs = x.numel() / 2;
  k<<<(pairs + 127) / 128, 128>>>(reinterpret_cast<const __nv_bfloat162*>(x.data_ptr<at::BFloat16>()), f.data_ptr<float>(),
                                  reinterpret_cast<__nv_bfloat162*>(y.data_ptr<at::BFloat16>()),
                                  reinterpret_cast<__nv_bfloat16*>(g.data_ptr<at::BFloat16>()), pairs);
  return {y, g};
}
)";
  auto x = (at::randn({1000}) * 10).to(at::kBFloat16);
  // Values at and next to the ties between two bfloat16 values, NaN, infinities and a float
  // whose rounding carries into the exponent.
  auto f = at::randn({1000}) * 100;
  const float special[] = {1.00390625f, 1.01171875f, 1.0078125f, -2.0078125f, NAN, INFINITY, -INFINITY, 3.3961775e38f};
  for (int i = 0; i < 8; ++i) f[i] = special[i];
  auto r = build_and_run(src, "run", {x, f});
  ASSERT_EQ(r.result.status, Status::Ok) << r.build_error << r.result.message;
  auto pairs = x.reshape({500, 2}).to(at::kFloat);
  auto lo = (pairs.select(1, 1) * 3).to(at::kBFloat16);
  auto hi = (pairs.select(1, 0) + pairs.select(1, 1)).to(at::kBFloat16);
  auto expected = at::stack({lo, hi}, 1).reshape({1000});
  EXPECT_TRUE(at::equal(r.result.outputs[0], expected));
  const auto g = r.result.outputs[1], want = f.to(at::kBFloat16);
  EXPECT_TRUE(at::equal(g.isnan(), want.isnan()));
  EXPECT_TRUE(at::equal(g.nan_to_num(), want.nan_to_num()));
}

// The bfloat16 intrinsics that round a double or a fused product once (a float in between would
// round twice), round toward zero, order signed zeros, and the operators a torch build keeps.
TEST(Emulator, Bfloat16RoundsOnceAndOrdersZerosAsCuda) {
  const char* src = R"(
#include <torch/extension.h>
#include <cuda_bf16.h>
__global__ void k(float* out) {
  if (blockIdx.x != 0 || threadIdx.x != 0) return;
  const __nv_bfloat16 a = __float2bfloat16_rn(1.0625f);
  const __nv_bfloat16 tiny = __float2bfloat16_rn(9.313225746154785e-10f);  // 2^-30
  out[0] = __bfloat162float(__hfma(a, a, tiny));  // 289/256 is a tie; + 2^-30 lifts it
  out[1] = __bfloat162float(__double2bfloat16(289.0 / 256.0 + 9.313225746154785e-10));
  out[2] = __bfloat162float(__float2bfloat16_rz(1.99f));
  out[3] = __bfloat162float(__float2bfloat16_rn(1.99f));
  const __nv_bfloat16 pz = __float2bfloat16_rn(0.0f), nz = __float2bfloat16_rn(-0.0f);
  out[4] = __bfloat162float(__hmax(nz, pz));
  out[5] = __bfloat162float(__hmin(pz, nz));
  __nv_bfloat16 s = __float2bfloat16_rn(256.0f) + __float2bfloat16_rn(1.0f);
  out[6] = __bfloat162float(s);
  s += __float2bfloat16_rn(3.0f);
  out[7] = __bfloat162float(s);
  out[8] = __bfloat162float(s * __float2bfloat16_rn(3.0f));
  out[9] = (s > __float2bfloat16_rn(258.0f) && !(s < __float2bfloat16_rn(258.0f))) ? 1.0f : 0.0f;
}
torch::Tensor run(torch::Tensor x) {
  auto out = torch::zeros({10}, x.options());
  k<<<1, 32>>>(out.data_ptr<float>());
  return out;
}
)";
  auto r = build_and_run(src, "run", {at::zeros({1})});
  ASSERT_EQ(r.result.status, Status::Ok) << r.build_error << r.result.message;
  const at::Tensor o = r.result.outputs[0];
  const auto at_ = [&](int i) { return o[i].item<float>(); };
  EXPECT_EQ(at_(0), 1.1328125f);  // nearest even through a float would give 1.125
  EXPECT_EQ(at_(1), 1.1328125f);
  EXPECT_EQ(at_(2), 1.984375f);
  EXPECT_EQ(at_(3), 1.9921875f);
  EXPECT_EQ(at_(4), 0.0f);
  EXPECT_FALSE(std::signbit(at_(4)));  // max(-0, +0) = +0
  EXPECT_TRUE(std::signbit(at_(5)));   // min(+0, -0) = -0
  // Each operator rounds to bfloat16 as libtorch's bfloat16 arithmetic does.
  const at::Tensor b256 = at::full({}, 256.0, at::kBFloat16);
  const at::Tensor s1 = b256 + at::full({}, 1.0, at::kBFloat16);
  const at::Tensor s2 = s1 + at::full({}, 3.0, at::kBFloat16);
  EXPECT_EQ(at_(6), s1.item<float>());
  EXPECT_EQ(at_(7), s2.item<float>());
  EXPECT_EQ(at_(8), (s2 * at::full({}, 3.0, at::kBFloat16)).item<float>());
  EXPECT_EQ(at_(6), 256.0f);  // 257 is a tie between 256 and 258
  EXPECT_EQ(at_(9), 1.0f);
}

TEST(Emulator, FastIntrinsicsDifferFromPreciseOnesLikeTheGpu) {
  const char* src = R"(
#include <torch/extension.h>
__global__ void k(const float* x, float* a, float* b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) { a[i] = expf(x[i]); b[i] = __expf(x[i]); }
}
std::vector<torch::Tensor> run(torch::Tensor x) {
  auto a = torch::empty_like(x), b = torch::empty_like(x);
  k<<<(x.numel() + 255) / 256, 256>>>(x.data_ptr<float>(), a.data_ptr<float>(), b.data_ptr<float>(), x.numel());
  return {a, b};
}
)";
  auto x = at::linspace(-80, 80, 4001);
  auto r = build_and_run(src, "run", {x});
  ASSERT_EQ(r.result.status, Status::Ok) << r.build_error << r.result.message;
  auto rel = ((r.result.outputs[1] - r.result.outputs[0]).abs() / r.result.outputs[0]).max().item<float>();
  EXPECT_GT(rel, 1e-6f);   // the scaled-argument rounding shows for large |x|
  EXPECT_LT(rel, 1e-4f);   // but it stays an approximation of exp
}

// abs() in device code is CUDA's overload set: a float stays a float (not C's int abs).
TEST(Emulator, AbsOfAFloatIsAFloat) {
  const char* src = R"(
#include <torch/extension.h>
__global__ void k(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) { double d = x[i]; y[i] = abs(x[i]) + float(abs(d)) + float(abs(-3ll)); }
}
torch::Tensor run(torch::Tensor x) {
  auto y = torch::empty_like(x);
  k<<<1, 64>>>(x.data_ptr<float>(), y.data_ptr<float>(), x.numel());
  return y;
}
)";
  const at::Tensor x = at::linspace(-2.5, 2.5, 51);
  auto r = build_and_run(src, "run", {x});
  ASSERT_EQ(r.result.status, Status::Ok) << r.build_error << r.result.message;
  EXPECT_TRUE(at::allclose(r.result.outputs[0], 2 * x.abs() + 3)) << r.result.outputs[0];
}

// ---- library compute ----------------------------------------------------------------------------
// A hybrid wrapper's GEMM goes to the library (torch::addmm, torch::linear, matmul...): on the CPU
// backend ATen computes it, and each call is counted for the gate "no library compute", next to
// the wrapper's own launches. Views and allocations are not compute.
const char* kHybrid = R"(
#include <torch/extension.h>
__global__ void relu_inplace(float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = y[i] > 0.0f ? y[i] : 0.0f;
}
torch::Tensor run(torch::Tensor x, torch::Tensor w, torch::Tensor b, int64_t how) {
  torch::Tensor y;
  if (how == 0) y = torch::addmm(b, x, w.t());
  else if (how == 1) y = torch::nn::functional::linear(x, w, b);
  else if (how == 2) y = torch::matmul(x, w.t().contiguous()).contiguous();  // two views, one product
  else y = x.mm(w.t()).view({x.size(0), w.size(0)});
  int n = y.numel();
  relu_inplace<<<(n + 127) / 128, 128>>>(y.data_ptr<float>(), n);
  return y;
}
)";

TEST(Emulator, LibraryComputeIsDoneByAtenAndCounted) {
  const auto x = at::randn({5, 7}, at::TensorOptions().dtype(at::kFloat));
  const auto w = at::randn({3, 7}, at::TensorOptions().dtype(at::kFloat));
  const auto b = at::randn({3}, at::TensorOptions().dtype(at::kFloat));
  for (int64_t how = 0; how < 4; ++how) {
    auto r = build_and_run(kHybrid, "run", {x, w, b, how});
    ASSERT_EQ(r.build_error, "");
    ASSERT_EQ(r.result.status, Status::Ok) << how << ": " << r.result.message;
    const auto expected = how < 2 ? at::relu(at::addmm(b, x, w.t())) : at::relu(at::mm(x, w.t()));
    EXPECT_TRUE(at::allclose(r.result.outputs.at(0), expected, 1e-5, 1e-6)) << how;
    EXPECT_EQ(r.result.launches, 1) << how;
    EXPECT_EQ(r.result.library_calls, 1) << how;
  }
  // A wrapper without library compute counts none.
  auto plain = build_and_run(kReverse, "run", {arange_f(256), int64_t(1)});
  ASSERT_EQ(plain.result.status, Status::Ok);
  EXPECT_EQ(plain.result.library_calls, 0);
}

// The CUDA backend counts a wrapper's library compute through ATen's operator callbacks
// (runtime/cuda/gpu_run.h): each product the wrapper calls once, the products it calls inside not
// again, other operators not at all, and nothing outside the counted call. The callbacks are
// ATen's on any device, so the count is tested here on CPU tensors.
TEST(LibraryCount, EachProductAWrapperCallsCountsOnce) {
  using kaudit::cuda::library_calls_during;
  const auto x = at::randn({4, 6}), w = at::randn({5, 6}), b = at::randn({5});
  EXPECT_EQ(library_calls_during([&] { (void)at::linear(x, w, b); }), 1);  // linear, and its addmm inside
  EXPECT_EQ(library_calls_during([&] { (void)at::matmul(x, w.t()); }), 1);  // matmul, and its mm inside
  EXPECT_EQ(library_calls_during([&] {
              (void)at::mm(x, w.t());
              (void)at::addmm(b, x, w.t());
              (void)x.matmul(w.t());
            }),
            3);
  EXPECT_EQ(library_calls_during([&] { (void)(x + 1).relu().sum(); }), 0);
  (void)at::mm(x, w.t());  // outside a counted call: not the next call's
  EXPECT_EQ(library_calls_during([] {}), 0);
  EXPECT_EQ(library_calls_during([&] { (void)at::bmm(x.unsqueeze(0), w.t().unsqueeze(0)); }), 1);
}

// Half operands are multiplied as cuBLAS does (float32 accumulation, one rounding to half), also
// where the CPU build of libtorch has no half product of its own.
TEST(Emulator, AHalfLibraryProductAccumulatesInFloat) {
  const char* source = R"(
#include <torch/extension.h>
torch::Tensor run(torch::Tensor a, torch::Tensor b, int64_t how) {
  if (how == 0) return torch::matmul(a, b);
  if (how == 1) return torch::mm(a, b);
  return torch::addmm(torch::zeros({a.size(0), b.size(1)}, a.options()), a, b);
}
)";
  // 4096 products of 1/64 sum to 64 exactly in float32; a half accumulator stops growing at 32
  // (32 + 1/64 rounds back to 32 in half).
  const auto a = at::full({2, 4096}, 0.125, at::TensorOptions().dtype(at::kHalf));
  const auto b = at::full({4096, 3}, 0.125, at::TensorOptions().dtype(at::kHalf));
  for (int64_t how = 0; how < 3; ++how) {
    auto r = build_and_run(source, "run", {a, b, how});
    ASSERT_EQ(r.build_error, "");
    ASSERT_EQ(r.result.status, Status::Ok) << how << ": " << r.result.message;
    const at::Tensor out = r.result.outputs.at(0);
    EXPECT_EQ(out.scalar_type(), at::kHalf) << how;
    EXPECT_TRUE(at::equal(out.to(at::kFloat), at::full({2, 3}, 64.0f))) << how << ": " << out;
    EXPECT_EQ(r.result.library_calls, 1) << how;
  }
}

// What wrappers compute with torch around their kernels (the import study's solutions: a loss's
// final mean, a norm's statistics, `1 - x`, x[b]) is ATen's result, in the operand's dtype, and
// not library compute.
TEST(Emulator, TorchArithmeticAndReductionsInAWrapperAreATens) {
  const char* source = R"(
#include <torch/extension.h>
torch::Tensor run(torch::Tensor x, torch::Tensor xi, torch::Tensor xh, int64_t how) {
  switch (how) {
    case 0: return torch::mean(1 - x);
    case 1: return x.mean({1}, true) + x.var({1}, false, true).sqrt();
    case 2: return (x * 2 - x / 4).sum(0) + x[1];
    case 3: return x.sum().pow(2) - x.abs().amax();
    case 4: return -(x.exp().log() + 0.5f) * x.sigmoid().tanh().relu();
    case 5: return xi * 2.0;  // a float scalar promotes an integer tensor to float32
    case 6: return (xi + 1) * 3 - xi;  // integer scalars keep it int32
    case 7: return 0.1 - xh;  // ATen fills a half tensor with 0.1, then subtracts
    default: return x.sum({}) + x.amax({0, 1});  // {}: every dimension
  }
}
)";
  const at::Tensor x = at::randn({3, 5}), xi = at::randint(-9, 9, {3, 5}).to(at::kInt), xh = at::randn({3, 5}).to(at::kHalf);
  const std::vector<at::Tensor> want = {
      at::mean(1 - x), x.mean({1}, true) + x.var({1}, false, true).sqrt(), (x * 2 - x / 4).sum(0) + x[1],
      x.sum().pow(2) - x.abs().amax(), -(x.exp().log() + 0.5f) * x.sigmoid().tanh().relu(), xi * 2.0, (xi + 1) * 3 - xi,
      0.1 - xh, x.sum() + x.amax({0, 1})};
  for (int64_t how = 0; how < static_cast<int64_t>(want.size()); ++how) {
    auto r = build_and_run(source, "run", {x, xi, xh, how});
    ASSERT_EQ(r.build_error, "");
    ASSERT_EQ(r.result.status, Status::Ok) << how << ": " << r.result.message;
    const at::Tensor out = r.result.outputs.at(0);
    EXPECT_EQ(out.scalar_type(), want[how].scalar_type()) << how;
    // Integers exactly; floats to an ulp or so (ATen's vectorised paths depend on alignment).
    const bool same = out.is_floating_point() ? at::allclose(out.to(at::kFloat), want[how].to(at::kFloat), 1e-5, 1e-6)
                                              : at::equal(out, want[how]);
    EXPECT_TRUE(same) << how << ": " << out << " vs " << want[how];
    EXPECT_EQ(r.result.library_calls, 0) << how;
  }
}

}  // namespace

// ---- the CUDA models' idioms, run (tests/mutators_compile/cuda_models_test.cpp builds them) -----
// Cooperative groups on the CPU backend (runtime/cpu/include/stubs/cooperative_groups.h): a block
// of 96 threads, 3 warps, in tiles of 16 and 32. Each thread writes what its groups told it.
TEST(Emulator, CooperativeGroupsTilesShuffleVoteAndReduce) {
  const char* src = R"(
#include <torch/extension.h>
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;
__global__ void k(const float* x, float* out) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<16> half = cg::tiled_partition<16>(block);
  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
  __shared__ float s[96];
  const int t = block.thread_rank();
  const float v = x[blockIdx.x * 96 + t];
  cg::thread_block_tile<4> quad = cg::tiled_partition<4>(warp);
  float* o = out + (blockIdx.x * 96 + t) * 10;
  o[0] = cg::reduce(half, v, cg::plus<float>());
  o[1] = cg::reduce(warp, v, cg::greater<float>());
  o[2] = warp.shfl_down(v, 1);
  o[3] = half.shfl(v, 3);
  o[4] = (float)half.ballot(v > 0);
  o[5] = half.meta_group_rank() * 100 + half.thread_rank();
  o[6] = warp.any(v > 40) + 2 * warp.all(v > -50);
  o[8] = half.any(v > 42) + 2 * half.all(v > -47);  // the two halves of a warp differ here
  o[9] = quad.meta_group_rank() * 100 + quad.meta_group_size();  // counted within its warp
  s[t] = v;
  cg::sync(block);
  o[7] = s[(t + 1) % 96];
}
torch::Tensor run(torch::Tensor x) {
  auto out = torch::empty({x.size(0), 10}, x.options());
  k<<<x.size(0) / 96, 96>>>(x.data_ptr<float>(), out.data_ptr<float>());
  return out;
}
)";
  // Integers in [-48, 47], so every sum is exact whatever the order of combination.
  const at::Tensor x = (at::arange(192, at::kFloat) * 37).fmod(96) - 48;
  auto r = build_and_run(src, "run", {x});
  ASSERT_EQ(r.build_error, "");
  ASSERT_EQ(r.result.status, Status::Ok) << r.result.message;
  const at::Tensor out = r.result.outputs[0];
  const auto xs = x.accessor<float, 1>();
  const auto os = out.accessor<float, 2>();
  for (int i = 0; i < 192; ++i) {
    const int b = i / 96, t = i % 96, lane = t % 32, h0 = b * 96 + t / 16 * 16, w0 = b * 96 + t / 32 * 32;
    float sum16 = 0, max32 = -1e9f, ballot = 0;
    bool any = false, all = true, any16 = false, all16 = true;
    for (int j = 0; j < 16; ++j) {
      sum16 += xs[h0 + j];
      if (xs[h0 + j] > 0) ballot += float(1u << j);
      any16 = any16 || xs[h0 + j] > 42;
      all16 = all16 && xs[h0 + j] > -47;
    }
    for (int j = 0; j < 32; ++j) {
      max32 = std::max(max32, xs[w0 + j]);
      any = any || xs[w0 + j] > 40;
      all = all && xs[w0 + j] > -50;
    }
    EXPECT_EQ(os[i][0], sum16) << i;
    EXPECT_EQ(os[i][1], max32) << i;
    EXPECT_EQ(os[i][2], xs[lane < 31 ? i + 1 : i]) << i;  // the last lane keeps its own
    EXPECT_EQ(os[i][3], xs[h0 + 3]) << i;
    EXPECT_EQ(os[i][4], ballot) << i;
    EXPECT_EQ(os[i][5], float(t / 16 * 100 + t % 16)) << i;
    EXPECT_EQ(os[i][6], float(any + 2 * all)) << i;
    EXPECT_EQ(os[i][7], xs[b * 96 + (t + 1) % 96]) << i;
    EXPECT_EQ(os[i][8], float(any16 + 2 * all16)) << i;
    EXPECT_EQ(os[i][9], float(lane / 4 * 100 + 8)) << i;
  }
  // The data make the halves' votes differ somewhere, so a vote over the whole warp would fail.
  bool differ = false;
  for (int h = 0; h + 16 < 192; h += 32) differ = differ || os[h][8] != os[h + 16][8];
  EXPECT_TRUE(differ);
}

// PackedTensorAccessor32 over a transposed (strided) view, and cudaLaunchKernel with the kernel's
// own type: the CPU backend runs what nvcc would, as a <<<>>> launch.
TEST(Emulator, PackedAccessorsAndCudaLaunchKernel) {
  const char* src = R"(
#include <torch/extension.h>
__global__ void scale(torch::PackedTensorAccessor32<float, 2, torch::RestrictPtrTraits> in,
                      torch::PackedTensorAccessor32<float, 2, torch::RestrictPtrTraits> out, float f) {
  const int r = blockIdx.x;
  for (int c = threadIdx.x; c < in.size(1); c += blockDim.x) out[r][c] = in[r][c] * f + in.stride(0);
}
__global__ void add_one(float* p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] += 1.0f;
}
torch::Tensor run(torch::Tensor x) {
  auto xt = x.t();
  auto out = torch::empty({xt.size(0), xt.size(1)}, x.options());
  scale<<<xt.size(0), 32>>>(xt.packed_accessor32<float, 2, torch::RestrictPtrTraits>(),
                            out.packed_accessor32<float, 2, torch::RestrictPtrTraits>(), 2.0f);
  float* p = out.data_ptr<float>();
  int n = out.numel();
  void* args[] = {&p, &n};
  cudaError_t e = cudaLaunchKernel(add_one, dim3((n + 63) / 64), dim3(64), args, 0, nullptr);
  TORCH_CHECK(e == cudaSuccess, "launch failed");
  auto acc = out.accessor<float, 2>();
  TORCH_CHECK(acc.size(0) == xt.size(0) && acc[1][2] == out.data_ptr<float>()[out.size(1) + 2], "host accessor");
  return out;
}
)";
  const at::Tensor x = at::arange(5 * 7, at::kFloat).reshape({5, 7});
  auto r = build_and_run(src, "run", {x});
  ASSERT_EQ(r.build_error, "");
  ASSERT_EQ(r.result.status, Status::Ok) << r.result.message;
  // x.t() has strides (1, 7): in.stride(0) is 1.
  EXPECT_TRUE(at::equal(r.result.outputs[0], x.t() * 2 + 1 + 1)) << r.result.outputs[0];
}
