// runtime/shared_tensor.h: a pool tensor kept in a sealed memfd holds the same values and its file
// can never be written; a view knows its offset; the receiving side maps exactly the tensor and
// refuses a descriptor that would let it write; and through a worker, a shared input reaches the
// run as a file, not bytes, and a run that writes its input changes neither the pool's tensor nor
// what the next run reads; a file the worker cannot map is the worker's failure, not the kernel's.
#include <gtest/gtest.h>

#include <ATen/ATen.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>

#include "runtime/shared_tensor.h"
#include "runtime/worker.h"
#include "tests/runtime/kernel_fixture.h"

namespace kaudit::runtime {
namespace {

TEST(SharedTensor, AMemfdCopyHoldsTheValuesAndItsFileCannotBeWritten) {
  const at::Tensor t = at::arange(1 << 20, at::kFloat).view({1024, 1024});
  const at::Tensor s = share_in_memfd(t);
  ASSERT_TRUE(at::equal(s, t));
  EXPECT_NE(s.data_ptr(), t.data_ptr());
  const auto bytes = shared_bytes(s);
  ASSERT_TRUE(bytes.has_value());
  EXPECT_EQ(bytes->offset, 0u);
  const int seals = fcntl(bytes->fd, F_GET_SEALS);
  ASSERT_GE(seals, 0);
  for (int seal : {F_SEAL_WRITE, F_SEAL_GROW, F_SEAL_SHRINK, F_SEAL_SEAL}) EXPECT_TRUE(seals & seal) << seal;
  // The descriptor workers get is read-only, and the seals hold even through a writable one.
  EXPECT_EQ(fcntl(bytes->fd, F_GETFL) & O_ACCMODE, O_RDONLY);
  const float one = 1;
  EXPECT_EQ(pwrite(bytes->fd, &one, sizeof one, 0), -1);
  EXPECT_EQ(mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, bytes->fd, 0), MAP_FAILED);
  const int writable = open(("/proc/self/fd/" + std::to_string(bytes->fd)).c_str(), O_RDWR | O_CLOEXEC);
  ASSERT_GE(writable, 0);
  EXPECT_EQ(pwrite(writable, &one, sizeof one, 0), -1);
  EXPECT_EQ(errno, EPERM);
  EXPECT_EQ(mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, writable, 0), MAP_FAILED);
  close(writable);
  EXPECT_TRUE(bytes->sealed);
  // A write through this process's own (private) mapping stays here: the file keeps the values.
  const at::Tensor values = s.clone();
  s.view(-1)[0].fill_(-5);
  std::string why;
  const auto mapped = map_shared(bytes->fd, 0, {1024, 1024}, at::kFloat, why);
  ASSERT_TRUE(mapped) << why;
  EXPECT_TRUE(at::equal(*mapped, values));
}

TEST(SharedTensor, AViewGivesItsOffsetAndOtherTensorsHaveNoFile) {
  const at::Tensor s = share_in_memfd(at::arange(1 << 20, at::kFloat));
  const auto view = shared_bytes(s.slice(0, 1000, 2000));
  ASSERT_TRUE(view.has_value());
  EXPECT_EQ(view->offset, 4000u);
  EXPECT_FALSE(shared_bytes(s.view({1024, 1024}).t()));  // not contiguous: travels as bytes
  EXPECT_FALSE(shared_bytes(at::arange(1 << 20, at::kFloat)));
  EXPECT_FALSE(shared_bytes(at::Tensor()));
  // The receiving side maps it at an offset that is not a page boundary.
  std::string why;
  const auto mapped = map_shared(view->fd, view->offset, {1000}, at::kFloat, why);
  ASSERT_TRUE(mapped) << why;
  EXPECT_TRUE(at::equal(*mapped, at::arange(1000, 2000, at::kFloat)));
}

TEST(SharedTensor, TheReceivingSideRefusesAWritableDescriptorAndAShortFile) {
  const int fd = memfd_create("test", MFD_CLOEXEC);  // unsealed and writable
  ASSERT_GE(fd, 0);
  ASSERT_EQ(ftruncate(fd, 1 << 16), 0);
  std::string why;
  EXPECT_FALSE(map_shared(fd, 0, {16}, at::kFloat, why));
  EXPECT_NE(why.find("allows writing"), std::string::npos) << why;
  // The same file read-only is accepted; a tensor past its end is not.
  const int read_only = open(("/proc/self/fd/" + std::to_string(fd)).c_str(), O_RDONLY | O_CLOEXEC);
  ASSERT_GE(read_only, 0);
  EXPECT_TRUE(map_shared(read_only, 0, {16}, at::kFloat, why)) << why;
  why.clear();
  EXPECT_FALSE(map_shared(read_only, 4, {1 << 14}, at::kFloat, why));
  EXPECT_NE(why.find("shorter"), std::string::npos) << why;
  EXPECT_FALSE(map_shared(read_only, 0, {-1}, at::kFloat, why));
  EXPECT_FALSE(map_shared(read_only, 0, {1ll << 40, 1ll << 40}, at::kFloat, why));  // size overflows
  close(read_only);
  close(fd);
}

// A spill file's tensor (shared_file_tensor): unsealed, so only a CPU worker gets it as a file.
// A kernel that returns its input.
const char* const kIdentity = R"(
#include <torch/extension.h>
torch::Tensor run(torch::Tensor x) { return x; }
)";

// `values` in an unlinked temporary file, as a spill file's tensor (shared_file_tensor); the
// file's writable descriptor is closed, or returned in `writable` when asked for.
at::Tensor spill_file_tensor(const at::Tensor& values, int* writable = nullptr) {
  char name[] = "/tmp/kaudit-spill-test-XXXXXX";
  const int fd = mkstemp(name);
  EXPECT_GE(fd, 0);
  const int read_only = open(name, O_RDONLY | O_CLOEXEC);
  unlink(name);
  EXPECT_EQ(write(fd, values.data_ptr(), values.nbytes()), (ssize_t)values.nbytes());
  void* map = mmap(nullptr, values.nbytes(), PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
  EXPECT_NE(map, MAP_FAILED);
  if (writable) *writable = fd;
  else close(fd);
  return shared_file_tensor(map, values.nbytes(), read_only, values.sizes(), values.strides(), values.options());
}

TEST(SharedTensor, AnUnsealedFileReachesACpuWorkerAsAFile) {
  const at::Tensor values = at::arange(1 << 16, at::kFloat);
  const at::Tensor x = spill_file_tensor(values);
  ASSERT_TRUE(shared_bytes(x));
  EXPECT_FALSE(shared_bytes(x)->sealed);
  IsolatedRunner runner(KAUDIT_EXE, {});
  const auto before = runner.times();
  auto r = kaudit::test::build_and_run_on(runner, kIdentity, "run", {x});
  ASSERT_EQ(r.result.status, Status::Ok) << r.build_error << r.result.message;
  EXPECT_TRUE(at::equal(r.result.outputs[0], values));
  EXPECT_EQ((runner.times() - before).bytes_shared, values.nbytes());
}

// A spill file cut short after its tensor was made: the zygote has the whole request but cannot
// map the tensor (map_shared refuses a file too short), and exits before any kernel code runs.
// That is kaudit's failure, not the kernel's: the run is repeated once on a fresh worker and then
// reported as a worker failure, never as the kernel's crash (runtime/worker.cpp).
TEST(SharedTensor, AFileTheWorkerCannotMapIsAWorkerFailureNotTheKernels) {
  int fd = -1;
  const at::Tensor x = spill_file_tensor(at::arange(1 << 16, at::kFloat), &fd);
  ASSERT_EQ(ftruncate(fd, 0), 0);  // this process never reads x again: it goes as its descriptor
  close(fd);
  IsolatedRunner runner(KAUDIT_EXE, {});
  auto r = kaudit::test::build_and_run_on(runner, kIdentity, "run", {x});
  ASSERT_EQ(r.build_error, "");
  EXPECT_EQ(r.result.status, Status::Crash);
  EXPECT_TRUE(r.result.worker_failure);
  EXPECT_NE(r.result.message.find("could not read the request"), std::string::npos) << r.result.message;
  EXPECT_EQ(runner.worker_failures(), 2);
  const at::Tensor small = at::arange(16, at::kFloat);
  auto next = kaudit::test::build_and_run_on(runner, kIdentity, "run", {small});
  ASSERT_EQ(next.result.status, Status::Ok) << next.result.message;
  EXPECT_TRUE(at::equal(next.result.outputs[0], small));
}

TEST(SharedTensor, TheDescriptorGoesWithTheLastTensor) {
  at::Tensor s = share_in_memfd(at::ones({1 << 16}, at::kFloat));
  const int fd = shared_bytes(s)->fd;
  at::Tensor view = s.slice(0, 0, 10);
  s = at::Tensor();
  EXPECT_GE(fcntl(fd, F_GETFD), 0);  // the view keeps it
  view = at::Tensor();
  EXPECT_EQ(fcntl(fd, F_GETFD), -1);
}

TEST(SharedTensor, AWorkerGetsASharedInputAsAFileAndARunThatWritesItChangesNothingElse) {
  const char* src = R"(
#include <torch/extension.h>
__global__ void bump(float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] += 1.0f;
}
torch::Tensor run(torch::Tensor x) {
  int n = x.numel();
  bump<<<(n + 255) / 256, 256>>>(x.data_ptr<float>(), n);
  return x;
}
)";
  IsolatedRunner runner(KAUDIT_EXE, {});
  const at::Tensor original = at::arange(4096, at::kFloat);
  const at::Tensor x = share_in_memfd(original);
  ASSERT_TRUE(shared_bytes(x));
  for (int round = 0; round < 2; ++round) {
    const auto before = runner.times();
    auto r = kaudit::test::build_and_run_on(runner, src, "run", {x});
    ASSERT_EQ(r.result.status, Status::Ok) << r.build_error << r.result.message;
    ASSERT_EQ(r.result.outputs.size(), 1u);
    EXPECT_TRUE(at::equal(r.result.outputs[0], original + 1)) << "round " << round;
    const auto sent = runner.times() - before;
    EXPECT_EQ(sent.bytes_shared, x.nbytes());
    EXPECT_EQ(sent.bytes_sent, 0u);
  }
  EXPECT_TRUE(at::equal(x, original));
  // The same values as a plain tensor travel as bytes, with the same result.
  const auto before = runner.times();
  auto plain = kaudit::test::build_and_run_on(runner, src, "run", {original.clone()});
  ASSERT_EQ(plain.result.status, Status::Ok) << plain.result.message;
  EXPECT_TRUE(at::equal(plain.result.outputs[0], original + 1));
  EXPECT_EQ((runner.times() - before).bytes_sent, original.nbytes());
}

}  // namespace
}  // namespace kaudit::runtime
