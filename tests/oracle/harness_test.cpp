// Oracle mode (oracle/harness.h, runtime/cpu/emulator.h): a checker's harness on a modelled GPU,
// next to witness mode on the same kernels. Each test is a case where the two must differ:
//  - a no-op kernel passes a reference-first harness whose freed block holds the right answer,
//    and fails one that clones the inputs (the clone takes that block);
//  - a read one element past a tensor is silent in oracle mode (allocation slack) and
//    out-of-bounds under the memory checker; one far below the first tensor is an illegal address;
//  - shared memory is one window as on a GPU: a read past one buffer reads the next, and one past
//    the window's 128-byte-rounded end is an illegal address;
//  - a barrier some threads have exited from completes in oracle mode (sm_70 and later) and is
//    barrier divergence in witness mode;
//  - a missing barrier right after a global load shows (the next warp's load returns later),
//    and one between two shared-memory statements after a barrier is benign (the warps advance
//    together, also those whose guard is false), where warp-major scheduling sees poison or a
//    stale value;
//  - the recording of a forward's allocations, which oracle mode replays;
//  - a request's tensors given twice are sent once, and counted once against the bytes in flight;
//  - the gate every_output_written's probe finds what a kernel left unwritten, where the loop's
//    candidate passed on the reference's freed answer;
//  - an external checker's judge is asked about runs that did not complete (a harness that
//    swallows an exception goes on to the next trial; one that passes a crash is asked about the
//    trials the dead process would have run), and each run's launches come with their grids and
//    streams.
#include <ATen/ATen.h>
#include <gtest/gtest.h>
#include <cmath>

#include "oracle/harness.h"
#include "runtime/cpu/compile.h"

namespace kaudit::oracle {
namespace {

cpu::CpuCompiler& compiler() {
  static cpu::CpuCompiler c(KAUDIT_TEST_CACHE);
  return c;
}
runtime::IsolatedRunner& runner(bool memcheck) {
  static std::unique_ptr<runtime::IsolatedRunner> r[2];
  runtime::WorkerLimits limits;
  limits.memcheck = memcheck;
  limits.threads = 1;
  auto& slot = r[memcheck ? 1 : 0];
  if (!slot) slot = std::make_unique<runtime::IsolatedRunner>(KAUDIT_EXE, limits);
  return *slot;
}
std::filesystem::path build(const std::string& source, const std::string& entry) {
  const cpu::CpuBuild b = compiler().build(source, "harness_test.cu", entry);
  EXPECT_TRUE(b.ok) << b.diagnostics;
  return b.library;
}

// A harness request on one input tensor `x` (argument 0) with a hand-made reference trace.
HarnessRequest request(const std::filesystem::path& library, const at::Tensor& x, const at::Tensor& expected,
                       ReferenceTrace trace, HarnessSpec spec = {}, int trials = 1) {
  HarnessRequest rq;
  rq.harness = spec;
  rq.library = library;
  rq.models = {{}};
  rq.comparator = {ComparatorKind::Allclose, 1e-4, 1e-4, false, {}};
  for (int t = 0; t < trials; ++t) {
    HarnessTrial trial;
    trial.inputs = {x};
    trial.args = {HarnessArg{HarnessArg::Kind::Input, 0, 0, 0}};
    trial.reference = trace;
    trial.harness_reference = {expected};
    trial.judge_reference = {expected};
    rq.trials.push_back(trial);
  }
  return rq;
}

at::Tensor bytes(const at::Tensor& t) { return t.contiguous().view(at::kByte).flatten().clone(); }

// A no-op kernel (it never launches anything) and a reference trace whose forward computes its
// answer into a temporary of the output's size, frees it, and returns another block holding the
// same values (as `x * w` then `* 1` would).
struct NoOpCase {
  std::filesystem::path lib;
  at::Tensor x, answer;
  ReferenceTrace trace;
};
NoOpCase noop_over_a_freed_answer() {
  NoOpCase c;
  c.lib = build(R"(
#include <torch/extension.h>
torch::Tensor noop(torch::Tensor x) { return torch::empty_like(x); }
)", "noop");
  c.x = at::rand({300});
  c.answer = c.x * 2;
  c.trace.contents = {bytes(c.answer), bytes(c.answer)};
  c.trace.events = {{true, 0, 1200, -1}, {true, 1, 1200, -1}, {false, 0, 1200, 0}};
  c.trace.live = {{1, 1}};
  return c;
}

runtime::RunResult run_witness_mode(const std::filesystem::path& library, const at::Tensor& x, bool memcheck) {
  runtime::RunRequest req;
  req.library = library;
  req.args = {runtime::EntryArg::of(x.clone())};
  return runner(memcheck).run(req);
}

TEST(OracleMode, ANoOpPassesOnTheReferencesFreedBlockAndFailsWhenTheInputsAreCloned) {
  const auto [lib, x, answer, trace] = noop_over_a_freed_answer();

  const auto shared = run_harness(runner(true), request(lib, x, answer, trace, {}, 3));
  const auto v_shared = harness_verdict(request(lib, x, answer, trace, {}, 3), shared);
  EXPECT_FALSE(v_shared.killed) << v_shared.cause << " " << v_shared.detail;
  ASSERT_EQ(shared.trials.size(), 3u);  // every trial ran, and passed
  EXPECT_TRUE(shared.trials[0].outputs[0].equal(answer));
  // A reply that stops short of the trials without a failing one is not the loop's: a reply the
  // kernel's own code wrote (docs/SECURITY.md) cannot pass by leaving trials out.
  HarnessResult truncated = shared;
  truncated.trials.resize(1);
  const auto v_short = harness_verdict(request(lib, x, answer, trace, {}, 3), truncated);
  EXPECT_TRUE(v_short.killed);
  EXPECT_EQ(v_short.cause, "sandbox-violation");

  HarnessSpec cloned;
  cloned.inputs = HarnessInputs::Cloned;
  const auto rq = request(lib, x, answer, trace, cloned, 3);
  const auto r = run_harness(runner(true), rq);
  const auto v = harness_verdict(rq, r);
  EXPECT_TRUE(v.killed);
  EXPECT_EQ(v.trial, 0);
  EXPECT_EQ(v.cause, "wrong-output");
  ASSERT_EQ(r.trials.size(), 1u);  // the loop stops at the first failing trial
  EXPECT_TRUE(r.trials[0].outputs[0].equal(at::zeros_like(x)));  // a fresh block: zeros

  // Witness mode: the output is NaN (the empty tensor's fill).
  const auto w = run_witness_mode(lib, x, true);
  ASSERT_EQ(w.status, runtime::Status::Ok);
  EXPECT_TRUE(w.outputs[0].isnan().all().item<bool>());
}

// A kernel whose thread i runs `body` (x and y of n floats, one thread per element; the gate's
// cases below too).
std::string writer(const std::string& body) {
  return R"(
#include <torch/extension.h>
__global__ void k(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  )" + body + R"(
}
torch::Tensor run(torch::Tensor x) {
  auto y = torch::empty_like(x);
  int n = x.numel();
  k<<<(n + 63) / 64, 64>>>(x.data_ptr<float>(), y.data_ptr<float>(), n);
  return y;
}
)";
}

// A kernel that copies x to y and also reads x[INDEX] (times zero): an out-of-bounds read whose
// value never shows, only whether it faults.
std::string copy_reading_also(const std::string& index) {
  return writer("if (i < n) y[i] = x[i] + 0.0f * x[" + index + "];");
}
// A reference run that allocated one block, x's 1 KiB copy, and kept it.
ReferenceTrace one_block_trace(const at::Tensor& x) {
  ReferenceTrace trace;
  trace.contents = {bytes(x)};
  trace.events = {{true, 0, 1024, -1}};
  trace.live = {{0, 0}};
  return trace;
}

TEST(OracleMode, AReadPastATensorIntoItsSlackIsSilentAndOutOfBoundsUnderTheMemoryChecker) {
  const auto lib = build(copy_reading_also("i + 1"), "run");  // i + 1 == n: one element past x
  const at::Tensor x = at::rand({256});  // 1 KiB: no slack under the memory checker's guard
  const auto w = run_witness_mode(lib, x, true);
  EXPECT_EQ(w.status, runtime::Status::OutOfBounds) << w.message;
  const ReferenceTrace trace = one_block_trace(x);
  const auto rq = request(lib, x, x, trace);
  const auto r = run_harness(runner(true), rq);
  ASSERT_EQ(r.trials.size(), 1u);
  EXPECT_EQ(r.trials[0].status, runtime::Status::Ok) << r.trials[0].message;
  EXPECT_FALSE(harness_verdict(rq, r).killed);
}

// Just below the harness's first tensor the modelled memory reads zeros, as an H100 did in a
// KernelBench-style harness (docs/calibration/h100-2026-12-06e): the run is silent and right.
TEST(OracleMode, AReadJustBelowTheFirstTensorReadsZerosInOracleMode) {
  const auto lib = build(writer("if (i < n) y[i] = x[i] + x[i - 256];"), "run");  // x[i - 256]: 1 KiB below x
  const at::Tensor x = at::rand({256});
  const ReferenceTrace trace = one_block_trace(x);
  const auto rq = request(lib, x, x, trace);  // the answer is x: what was read below must be 0
  for (bool memcheck : {false, true}) {  // the harness has no memory checker either way
    const auto r = run_harness(runner(memcheck), rq);
    ASSERT_EQ(r.trials.size(), 1u);
    EXPECT_EQ(r.trials[0].status, runtime::Status::Ok) << r.trials[0].message;
    EXPECT_FALSE(harness_verdict(rq, r).killed);
    EXPECT_TRUE(r.trials[0].outputs.at(0).equal(x));
  }
  // 17 MiB below x: past the mapped 16 MiB (rt::kMappedBelowBytes), in the unmapped guard.
  const auto deeper = build(copy_reading_also("i - (17 << 18)"), "run");
  const auto r = run_harness(runner(false), request(deeper, x, x, trace));
  ASSERT_EQ(r.trials.size(), 1u);
  EXPECT_EQ(r.trials[0].status, runtime::Status::Crash) << r.trials[0].message;
}

TEST(OracleMode, AReadFarBelowTheFirstTensorIsAnIllegalAddressWhateverTheProcessMappedThere) {
  // 64 MiB below x: below every segment of this run, inside the guard that the modelled memory
  // keeps under its first segment (its top 16 MiB read as zeros, the rest is unmapped). Without the
  // guard the read reached whatever the process had mapped there (libraries, heaps, fiber stacks),
  // so it was silent or a host crash by layout.
  const auto lib = build(copy_reading_also("i - (16 << 20)"), "run");
  const at::Tensor x = at::rand({256});
  const ReferenceTrace trace = one_block_trace(x);
  const auto rq = request(lib, x, x, trace);
  for (bool memcheck : {false, true}) {
    const auto r = run_harness(runner(memcheck), rq);
    ASSERT_EQ(r.trials.size(), 1u);
    EXPECT_EQ(r.trials[0].status, runtime::Status::Crash) << r.trials[0].message;
    EXPECT_NE(r.trials[0].message.find("illegal memory access"), std::string::npos) << r.trials[0].message;
  }
}

// A block's shared memory as a GPU lays it out (runtime/cpu/shared_window.h), with the H100's
// probe (docs/calibration/h100-2026-12-07d): static a[1000] and b[100] are one window, a read past
// a reads b, the window's slack and the 1 KiB before a read zeros in a fresh harness run, and the
// read at a[1120] (4480 bytes: 4400 rounded up to 128) is an illegal address; so is one 8 KB
// before a. The dynamic buffer alone (400 bytes) ends its window the same way.
std::string shared_reader(bool dynamic, long offset) {
  const std::string decl = dynamic ? "extern __shared__ float a[];" : "__shared__ float a[1000];\n  __shared__ float b[100];";
  const std::string fill = dynamic ? "for (int i = threadIdx.x; i < 100; i += blockDim.x) a[i] = 1.0f;"
                                   : "for (int i = threadIdx.x; i < 1000; i += blockDim.x) a[i] = 1.0f;\n"
                                     "  for (int i = threadIdx.x; i < 100; i += blockDim.x) b[i] = 7.0f;";
  return R"(
#include <torch/extension.h>
__global__ void k(float* y) {
  )" + decl + R"(
  )" + fill + R"(
  __syncthreads();
  if (threadIdx.x == 0) y[0] = a[)" + std::to_string(offset) + R"(];
}
torch::Tensor run(torch::Tensor x) {
  auto y = torch::empty_like(x);
  k<<<1, 128, )" + (dynamic ? "400" : "0") + R"(>>>(y.data_ptr<float>());
  return y;
}
)";
}

TEST(OracleMode, SharedMemoryIsOneWindowThatEndsWhereTheGpusEnds) {
  const at::Tensor x = at::rand({256});
  const ReferenceTrace trace = one_block_trace(x);
  struct Case {
    bool dynamic;
    long offset;
    float value;  // NaN: an illegal address
  };
  const float fault = std::nanf("");
  const Case cases[] = {{false, 999, 1},      {false, 1000, 7},     {false, 1099, 7}, {false, 1119, 0},
                        {false, -1, 0},       {false, -256, 0},     {false, 1120, fault},
                        {false, -2000, fault}, {true, 99, 1},        {true, 127, 0},   {true, -256, 0},
                        {true, 128, fault},   {true, -2000, fault}};
  for (const Case& c : cases) {
    SCOPED_TRACE(std::string(c.dynamic ? "dynamic" : "static") + " a[" + std::to_string(c.offset) + "]");
    const auto r = run_harness(runner(false), request(build(shared_reader(c.dynamic, c.offset), "run"), x, x, trace));
    ASSERT_EQ(r.trials.size(), 1u);
    if (std::isnan(c.value)) {
      EXPECT_EQ(r.trials[0].status, runtime::Status::Crash) << r.trials[0].message;
      EXPECT_NE(r.trials[0].message.find("illegal memory access"), std::string::npos) << r.trials[0].message;
    } else {
      ASSERT_EQ(r.trials[0].status, runtime::Status::Ok) << r.trials[0].message;
      EXPECT_EQ(r.trials[0].outputs.at(0)[0].item<float>(), c.value);
    }
  }
}

TEST(OracleMode, ABarrierThatSomeThreadsExitedFromCompletes) {
  const auto lib = build(R"(
#include <torch/extension.h>
__global__ void rotate(const float* x, float* y, int n) {
  __shared__ float s[64];
  int t = threadIdx.x;
  if (t >= n) return;  // these threads never reach the barrier
  s[t] = x[t];
  __syncthreads();
  y[t] = s[(t + 1) % n];
}
torch::Tensor run(torch::Tensor x) {
  auto y = torch::empty_like(x);
  rotate<<<1, 64>>>(x.data_ptr<float>(), y.data_ptr<float>(), x.numel());
  return y;
}
)", "run");
  const at::Tensor x = at::rand({40});
  const at::Tensor expected = at::roll(x, -1);
  EXPECT_EQ(run_witness_mode(lib, x, true).status, runtime::Status::BarrierDivergence);
  ReferenceTrace trace;
  const auto rq = request(lib, x, expected, trace);
  const auto r = run_harness(runner(true), rq);
  ASSERT_EQ(r.trials.size(), 1u);
  ASSERT_EQ(r.trials[0].status, runtime::Status::Ok) << r.trials[0].message;
  EXPECT_TRUE(r.trials[0].outputs[0].equal(expected));
}

TEST(OracleMode, AMissingBarrierAfterAGlobalLoadLetsAWarpReadTheNextWarpsSlotBeforeItsLoadReturns) {
  // The rotation above without its barrier: each thread reads the slot of its neighbour, which in
  // thread 31's case belongs to the next warp. Warp 1's load returns after warp 0's (in issue
  // order), so warp 0 reads slot 32 before warp 1 has stored it: the block's fresh shared memory,
  // zero. (The pattern of sum_dim_smem without its first barrier, which the H200 kills 5 times in 5.)
  const auto lib = build(R"(
#include <torch/extension.h>
__global__ void rotate(const float* x, float* y, int n) {
  __shared__ float s[64];
  int t = threadIdx.x;
  s[t] = x[t];
  y[t] = s[(t + 1) % n];
}
torch::Tensor run(torch::Tensor x) {
  auto y = torch::empty_like(x);
  rotate<<<1, 64>>>(x.data_ptr<float>(), y.data_ptr<float>(), x.numel());
  return y;
}
)", "run");
  const at::Tensor x = at::rand({64}) + 1.0f;
  const at::Tensor expected = at::roll(x, -1);
  const auto w = run_witness_mode(lib, x, true);
  ASSERT_EQ(w.status, runtime::Status::Ok);
  EXPECT_TRUE(w.outputs[0].isnan().any().item<bool>());  // warp-major: poison before the store
  ReferenceTrace trace;
  const auto rq = request(lib, x, expected, trace);
  const auto r = run_harness(runner(true), rq);
  ASSERT_EQ(r.trials.size(), 1u);
  ASSERT_EQ(r.trials[0].status, runtime::Status::Ok) << r.trials[0].message;
  const at::Tensor y = r.trials[0].outputs[0];
  EXPECT_EQ(y[31].item<float>(), 0.0f);  // warp 0's lane 31 read slot 32 too early
  EXPECT_TRUE(y.slice(0, 0, 31).equal(expected.slice(0, 0, 31)));
  EXPECT_TRUE(y.slice(0, 32, 64).equal(expected.slice(0, 32, 64)));  // warp 1 read warp 0's stored slot 0
  EXPECT_EQ(harness_verdict(rq, r).cause, "wrong-output");
}

TEST(OracleMode, AMissingBarrierIsBenignWhenWarpsAdvanceTogether) {
  // After a barrier, with no global load in between, each warp doubles its own slot and then
  // reads its neighbour's without a barrier: the warps advance together through their shared
  // memory statements, so slot 32 is doubled before warp 0 reads it (the pattern of a tree
  // reduction without its in-loop barrier, which the H200 passes). Warp-major order does not.
  const auto lib = build(R"(
#include <torch/extension.h>
__global__ void rotate(const float* x, float* y, int n) {
  __shared__ float s[64];
  int t = threadIdx.x;
  s[t] = x[t];
  __syncthreads();
  float v = s[t] * 2.0f;
  s[t] = v;
  y[t] = s[(t + 1) % n];
}
torch::Tensor run(torch::Tensor x) {
  auto y = torch::empty_like(x);
  rotate<<<1, 64>>>(x.data_ptr<float>(), y.data_ptr<float>(), x.numel());
  return y;
}
)", "run");
  const at::Tensor x = at::rand({64}) + 1.0f;
  const at::Tensor expected = at::roll(x, -1) * 2.0f;
  const auto w = run_witness_mode(lib, x, true);
  ASSERT_EQ(w.status, runtime::Status::Ok);
  EXPECT_FALSE(w.outputs[0].equal(expected));  // warp 0 ran on before warp 1 doubled slot 32
  ReferenceTrace trace;
  const auto rq = request(lib, x, expected, trace);
  const auto r = run_harness(runner(true), rq);
  ASSERT_EQ(r.trials.size(), 1u);
  ASSERT_EQ(r.trials[0].status, runtime::Status::Ok) << r.trials[0].message;
  EXPECT_TRUE(r.trials[0].outputs[0].equal(expected));
}

TEST(OracleMode, AWarpWhoseGuardIsFalseKeepsPaceWithTheWarpsThatReduce) {
  // A tree reduction without its in-loop barrier, its step in braces, then every warp reads the
  // root (softmax_block_smem's row max): the warps whose `tid < s` is false take the guarded
  // statement's turns too, so none reads the root before the tree is done and the sums are
  // exact, as softmax's and argmax's mutants of this kind pass on the H200 (docs/ORACLES.md,
  // "Races"). Before om11 the idle warps skipped the braced body's turns and read it early.
  const auto lib = build(R"(
#include <torch/extension.h>
template <int BLOCK>
__global__ void tree(const float* in, float* y) {
  __shared__ float sdata[BLOCK];
  const int tid = threadIdx.x;
  sdata[tid] = in[(size_t)blockIdx.x * BLOCK + tid];
  __syncthreads();
  for (int s = BLOCK / 2; s > 0; s >>= 1) {
    if (tid < s) {
      sdata[tid] += sdata[tid + s];
    }
  }
  const float root = sdata[0];
  if ((tid & 31) == 0) y[(size_t)blockIdx.x * 9 + 1 + tid / 32] = root;
  __syncthreads();
  if (tid == 0) y[(size_t)blockIdx.x * 9] = sdata[0];
}
torch::Tensor run(torch::Tensor x) {
  int grid = x.numel() / 256;
  auto y = torch::zeros({grid * 9}, x.options());
  tree<256><<<grid, 256>>>(x.data_ptr<float>(), y.data_ptr<float>());
  return y;
}
)", "run");
  const int grid = 4;
  // Small integers: every order of summation gives the exact sum, so a wrong one is the race.
  const at::Tensor x = at::arange(grid * 256, at::kFloat).remainder(5);
  const at::Tensor sums = x.view({grid, 256}).sum(1, /*keepdim=*/true);
  const at::Tensor expected = sums.expand({grid, 9}).contiguous().flatten();
  const auto w = run_witness_mode(lib, x, true);
  ASSERT_EQ(w.status, runtime::Status::Ok) << w.message;
  EXPECT_FALSE(w.outputs[0].equal(expected));  // warp-major: warp 0 finishes its tree alone
  ReferenceTrace trace;
  const auto rq = request(lib, x, expected, trace);
  const auto r = run_harness(runner(true), rq);
  ASSERT_EQ(r.trials.size(), 1u);
  ASSERT_EQ(r.trials[0].status, runtime::Status::Ok) << r.trials[0].message;
  EXPECT_TRUE(r.trials[0].outputs[0].equal(expected)) << r.trials[0].outputs[0].view({grid, 9});
}

TEST(OracleMode, ADeadlockIsATimeout) {
  // Lane 0 waits in a shuffle for lane 1, which waits at the barrier for lane 0: a GPU hangs until
  // its watchdog; witness mode calls it barrier divergence.
  const auto lib = build(R"(
#include <torch/extension.h>
__global__ void k(float* y) {
  float v = 1.0f;
  if (threadIdx.x == 0) v = __shfl_sync(0x3u, v, 1);
  else __syncthreads();
  if (threadIdx.x == 0) y[0] = v;
}
torch::Tensor run(torch::Tensor x) {
  k<<<1, 64>>>(x.data_ptr<float>());
  return x;
}
)", "run");
  const at::Tensor x = at::zeros({4});
  EXPECT_EQ(run_witness_mode(lib, x, true).status, runtime::Status::BarrierDivergence);
  ReferenceTrace trace;
  const auto rq = request(lib, x, x, trace);
  const auto r = run_harness(runner(true), rq);
  ASSERT_EQ(r.trials.size(), 1u);
  EXPECT_EQ(r.trials[0].status, runtime::Status::Timeout) << r.trials[0].message;
  EXPECT_EQ(harness_verdict(rq, r).cause, "timeout");
}

// At native shapes a request's tensors are GB: one given twice (here the input and the reference
// of every trial, and the recorded contents) goes down the pipe once, and the audit's budget of
// bytes in flight counts what is sent. The verdict is the one of the request without a budget.
TEST(OracleMode, ATensorGivenTwiceIsSentOnceAndTheBudgetCountsWhatIsSent) {
  const auto [lib, x, answer, trace] = noop_over_a_freed_answer();
  runtime::WorkerLimits limits;
  limits.memcheck = true;
  limits.threads = 1;
  limits.payload_budget = std::make_shared<runtime::PayloadBudget>(1 << 20);
  runtime::IsolatedRunner budgeted(KAUDIT_EXE, limits);
  const auto rq = request(lib, x, answer, trace, {}, 3);
  const auto r = run_harness(budgeted, rq);
  // x, answer and the two contents, 1,200 bytes each, for all three trials (15 uses).
  EXPECT_EQ(limits.payload_budget->peak(), 4u * 1200u);
  EXPECT_EQ(limits.payload_budget->in_flight(), 0u);
  const auto v = harness_verdict(rq, r);
  const auto unbounded = harness_verdict(rq, run_harness(runner(true), rq));
  EXPECT_FALSE(v.killed) << v.cause << " " << v.detail;
  EXPECT_EQ(v.killed, unbounded.killed);
  ASSERT_EQ(r.trials.size(), 3u);
  EXPECT_TRUE(r.trials[2].outputs[0].equal(answer));
}

TEST(OracleMode, TheRecordingHoldsEachAllocationAndWhatAFreedOneHeld) {
  const at::Tensor x = at::rand({100});
  ReferenceTrace trace;
  const auto out = trace_allocations(
      [&] {
        at::Tensor t = x * 2;
        return std::vector<at::Tensor>{t + 1};
      },
      trace);
  ASSERT_EQ(trace.events.size(), 3u);
  EXPECT_TRUE(trace.events[0].alloc);
  EXPECT_EQ(trace.events[0].bytes, 400u);
  EXPECT_TRUE(trace.events[1].alloc);
  EXPECT_FALSE(trace.events[2].alloc);
  EXPECT_EQ(trace.events[2].id, trace.events[0].id);
  EXPECT_TRUE(trace.contents.at(trace.events[2].content).equal(bytes(x * 2)));
  ASSERT_EQ(trace.live.size(), 1u);
  EXPECT_EQ(trace.live[0].first, trace.events[1].id);
  EXPECT_TRUE(trace.contents.at(trace.live[0].second).equal(bytes(out[0])));
  EXPECT_EQ(trace.outputs, std::vector<int>{0});  // the output fills the live block
}

// What a forward allocates and never writes is recorded as zeros, as fresh device memory holds,
// never as what the host's heap held there (which varied from run to run, so that a mutant reading
// it could be killed in one audit and missed in the next).
TEST(OracleMode, WhatTheForwardLeftUnwrittenIsRecordedAsZeros) {
  for (int round = 0; round < 3; ++round) {
    {  // leave garbage in the heap where the recorded blocks may come from
      at::Tensor dirty = at::full({1 << 14}, 1234.5f);
      (void)dirty;
    }
    ReferenceTrace trace;
    trace_allocations(
        [&] {
          at::Tensor unwritten = at::empty({1 << 14});
          at::Tensor half = at::empty({1 << 14});
          half.narrow(0, 0, 1 << 13).fill_(1.0f);
          return std::vector<at::Tensor>{half};
        },
        trace);
    ASSERT_EQ(trace.events.size(), 3u);  // two allocations, the unwritten one freed
    const at::Tensor freed = trace.contents.at(trace.events[2].content);
    EXPECT_EQ(freed.nonzero().numel(), 0) << "round " << round;
    ASSERT_EQ(trace.live.size(), 1u);
    const at::Tensor live = trace.contents.at(trace.live[0].second).view(at::kFloat);
    EXPECT_TRUE(live.narrow(0, 0, 1 << 13).eq(1.0f).all().item<bool>()) << "round " << round;
    EXPECT_EQ(live.narrow(0, 1 << 13, 1 << 13).nonzero().numel(), 0) << "round " << round;
  }
}

// The CUDA backend's float32 reference comes from the GPU and its recorded forward from the host:
// adopt_outputs puts the GPU's answer into the output's block, so that what the replay leaves in
// memory is what the harness compares against; an output of another size, and a view that fills
// no block of its own, are left as recorded.
TEST(OracleMode, AdoptedOutputsReplaceWhatTheRecordedForwardReturned) {
  const at::Tensor x = at::rand({100});
  ReferenceTrace trace;
  const auto out = trace_allocations(
      [&] {
        at::Tensor t = x * 2;
        return std::vector<at::Tensor>{t + 1, x.narrow(0, 0, 10)};
      },
      trace);
  ASSERT_EQ(trace.outputs.size(), 2u);
  ASSERT_GE(trace.outputs[0], 0);
  EXPECT_EQ(trace.outputs[1], -1);  // a view of the input: not an allocation of the forward
  const at::Tensor elsewhere = out[0] + 1e-3;  // "the GPU's": a little different
  adopt_outputs(trace, {elsewhere, x.narrow(0, 0, 10)});
  const auto block = [&] { return trace.contents.at(trace.live.at(trace.outputs[0]).second); };
  EXPECT_TRUE(block().equal(bytes(elsewhere)));
  adopt_outputs(trace, {at::zeros({50})});  // another size: left alone
  EXPECT_TRUE(block().equal(bytes(elsewhere)));
}

// The gate every_output_written (oracle/spec.h, Gates): the no-op and a kernel that writes half of
// its output pass the reference-first harness on the reference's freed answer, and the gate's
// probe (two more runs on fresh memory filled with 0xFF, then 0x5A) finds what they left
// unwritten; a kernel that writes everything passes the gate, and ones that write every element
// as one probe's fill (0xFF bytes: a NaN with every bit set; 0x5A bytes) are not taken for
// unwritten: they fail the comparison instead.
TEST(OracleMode, TheGateEveryOutputWrittenFindsWhatAKernelLeftUnwritten) {
  const auto [noop, x, answer, trace] = noop_over_a_freed_answer();
  const auto gated = [&](const std::filesystem::path& lib) {
    HarnessRequest rq = request(lib, x, answer, trace, {}, 2);
    rq.gates.every_output_written = true;
    return rq;
  };
  struct Case {
    std::string name;
    std::filesystem::path lib;
    std::int64_t unwritten;
    const char* cause;  // nullptr: passes
  };
  const std::vector<Case> cases = {
      {"no-op", noop, 300, "unwritten-output"},
      {"first half", build(writer("if (i < n / 2) y[i] = x[i] * 2.0f;"), "run"), 150, "unwritten-output"},
      {"every element", build(writer("if (i < n) y[i] = x[i] * 2.0f;"), "run"), 0, nullptr},
      {"all-ones NaN", build(writer("if (i < n) y[i] = __int_as_float(-1);"), "run"), 0, "nan-inf"},
      // The second probe's fill, written: not unwritten either (one fill alone would say so).
      {"0x5A bytes", build(writer("if (i < n) y[i] = __int_as_float(0x5A5A5A5A);"), "run"), 0, "wrong-output"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    // Without the gate nothing is probed, and the partial writers pass on the freed answer.
    const HarnessRequest plain = request(c.lib, x, answer, trace, {}, 2);
    const HarnessResult p = run_harness(runner(true), plain);
    ASSERT_FALSE(p.trials.empty());
    EXPECT_EQ(p.trials[0].unwritten, -1);
    EXPECT_EQ(harness_verdict(plain, p).killed, c.cause != nullptr && std::string(c.cause) != "unwritten-output");

    const HarnessRequest rq = gated(c.lib);
    const HarnessResult r = run_harness(runner(true), rq);
    ASSERT_FALSE(r.trials.empty());
    ASSERT_EQ(r.trials[0].status, runtime::Status::Ok) << r.trials[0].message;
    EXPECT_EQ(r.trials[0].unwritten, c.unwritten);
    const HarnessVerdict v = harness_verdict(rq, r);
    EXPECT_EQ(v.killed, c.cause != nullptr) << v.cause << " " << v.detail;
    if (c.cause) {
      EXPECT_EQ(v.cause, c.cause);
      EXPECT_EQ(v.trial, 0);
    }
    // The probes ran after the loop: what the loop's candidate found in its output is the
    // harness's (the freed answer), not a fill.
    if (c.unwritten > 0) {
      EXPECT_TRUE(r.trials[0].outputs[0].equal(answer));
    }
  }
}

// A judge in the form an external checker gets (TrialJudge): passes runs that completed, and
// those that did not when `lenient`; records what it was asked.
struct RecordingJudge {
  bool lenient;
  std::vector<std::pair<std::size_t, RunFacts>> asked;
  TrialJudge judge() {
    return [this](std::size_t t, const HarnessTrialResult& r) {
      asked.emplace_back(t, run_facts(r));
      CompareResult c;
      c.ok = r.status == runtime::Status::Ok || lenient;
      if (!c.ok) c.reason = "the run did not complete";
      return c;
    };
  }
};

TEST(OracleMode, AnExternalCheckerIsAskedAboutRunsThatDidNotComplete) {
  const auto [noop, x, answer, trace] = noop_over_a_freed_answer();
  const auto throws = build(R"(
#include <torch/extension.h>
torch::Tensor run(torch::Tensor x) { TORCH_CHECK(x.numel() < 0, "refused by the wrapper"); return x; }
)", "run");
  const auto crashes = build(R"(
#include <torch/extension.h>
torch::Tensor run(torch::Tensor x) { *(volatile int*)nullptr = 1; return x; }
)", "run");
  {
    SCOPED_TRACE("an exception");
    // A built-in checker's loop stops at the first trial that did not complete.
    const HarnessRequest stops = request(throws, x, answer, trace, {}, 3);
    EXPECT_EQ(run_harness(runner(false), stops).trials.size(), 1u);
    // One judged by an external checker goes on: an exception leaves the process usable.
    HarnessRequest rq = request(throws, x, answer, trace, {}, 3);
    rq.stop_at_failure = false;
    const HarnessResult r = run_harness(runner(false), rq);
    ASSERT_EQ(r.trials.size(), 3u);
    for (const auto& t : r.trials) EXPECT_EQ(t.status, runtime::Status::Exception);
    RecordingJudge lenient{true, {}};
    EXPECT_FALSE(harness_verdict(rq, r, lenient.judge()).killed);
    ASSERT_EQ(lenient.asked.size(), 3u);
    EXPECT_EQ(lenient.asked[2].first, 2u);
    EXPECT_EQ(lenient.asked[2].second.outcome, "exception");
    EXPECT_NE(lenient.asked[2].second.message.find("refused by the wrapper"), std::string::npos);
    RecordingJudge strict{false, {}};
    const HarnessVerdict v = harness_verdict(rq, r, strict.judge());
    EXPECT_TRUE(v.killed);
    EXPECT_EQ(v.cause, "exception");
    EXPECT_EQ(v.trial, 0);
    EXPECT_NE(v.detail.find("the checker: the run did not complete"), std::string::npos) << v.detail;
  }
  {
    SCOPED_TRACE("a crash");
    HarnessRequest rq = request(crashes, x, answer, trace, {}, 3);
    rq.stop_at_failure = false;
    const HarnessResult r = run_harness(runner(false), rq);
    ASSERT_EQ(r.trials.size(), 1u);  // the worker died at trial 1
    EXPECT_EQ(r.trials[0].status, runtime::Status::Crash);
    // A checker that passes the crash is asked about the two trials the dead process would have run.
    RecordingJudge lenient{true, {}};
    EXPECT_FALSE(harness_verdict(rq, r, lenient.judge()).killed);
    ASSERT_EQ(lenient.asked.size(), 3u);
    EXPECT_EQ(lenient.asked[1].second.outcome, "crash");
    EXPECT_NE(lenient.asked[1].second.message.find("not run: the harness's loop ended at trial 1"),
              std::string::npos)
        << lenient.asked[1].second.message;
    // Without a judge of its own the request is not a pass (the loop answered 1 of 3 trials).
    EXPECT_TRUE(harness_verdict(rq, r).killed);
  }
  {
    SCOPED_TRACE("a sandbox violation");
    // kaudit's own verdict on a reply that is not the loop's: never the checker's to pass.
    HarnessRequest rq = request(throws, x, answer, trace, {}, 3);
    rq.stop_at_failure = false;
    HarnessResult forged;
    forged.trials.resize(1);
    forged.trials[0].status = runtime::Status::SandboxViolation;
    RecordingJudge lenient{true, {}};
    const HarnessVerdict v = harness_verdict(rq, forged, lenient.judge());
    EXPECT_TRUE(v.killed);
    EXPECT_EQ(v.cause, "sandbox-violation");
    EXPECT_TRUE(lenient.asked.empty());
  }
}

TEST(OracleMode, EachRunsLaunchesComeWithTheirGridsAndStreams) {
  const auto [noop, x, answer, trace] = noop_over_a_freed_answer();
  const auto lib = build(R"(
#include <torch/extension.h>
__global__ void k(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] * 2.0f;
}
torch::Tensor run(torch::Tensor x) {
  auto y = torch::empty_like(x);
  int n = x.numel();
  cudaStream_t s;
  cudaStreamCreate(&s);
  k<<<dim3(2, 3), 16, 0, s>>>(x.data_ptr<float>(), y.data_ptr<float>(), 0);
  k<<<(n + 63) / 64, 64, 128>>>(x.data_ptr<float>(), y.data_ptr<float>(), n);
  k<<<1, 32, 0, s>>>(x.data_ptr<float>(), y.data_ptr<float>(), 0);
  cudaStreamDestroy(s);
  return y;
}
)", "run");
  const HarnessRequest rq = request(lib, x, answer, trace, {}, 1);
  const HarnessResult r = run_harness(runner(false), rq);
  ASSERT_EQ(r.trials.size(), 1u);
  ASSERT_EQ(r.trials[0].status, runtime::Status::Ok) << r.trials[0].message;
  EXPECT_EQ(r.trials[0].launches, 3);
  const nlohmann::json expected = nlohmann::json::parse(R"([
    {"grid": [2, 3, 1], "block": [16, 1, 1], "shared_bytes": 0, "stream": 1},
    {"grid": [5, 1, 1], "block": [64, 1, 1], "shared_bytes": 128, "stream": 0},
    {"grid": [1, 1, 1], "block": [32, 1, 1], "shared_bytes": 0, "stream": 1}])");
  EXPECT_EQ(r.trials[0].launch_log, expected) << r.trials[0].launch_log.dump();
  // The same in a plain run (witness mode), and in what a checker is told.
  EXPECT_EQ(run_witness_mode(lib, x, false).launch_log, expected);
  EXPECT_EQ(run_facts(r.trials[0]).launch_log, expected);
}

}  // namespace
}  // namespace kaudit::oracle
