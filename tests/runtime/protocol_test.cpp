// Issue 21, item 2: a protocol kernel code cannot reach. Hostile fixture kernels whose host code
// writes forged replies on the worker's reply pipe, or leaves a detached process behind that
// answers later requests "ok". Each ends in its own verdict (sandbox-violation), leaves no
// process behind, and changes no other kernel's verdict.
#include <ATen/ATen.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "common/process.h"
#include "tests/runtime/kernel_fixture.h"

using kaudit::runtime::Status;
using kaudit::test::build_and_run;
using kaudit::test::test_runner;
namespace fs = std::filesystem;

namespace {

// Host code shared by the hostile kernels: find the worker's reply pipe (a write-only pipe other
// than stdout and stderr) and write a message on it as the worker's framing does.
const char* kForgery = R"(
#include <torch/extension.h>
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
static int reply_pipe() {
  int found = -1;
  DIR* d = opendir("/proc/self/fd");
  if (!d) return -1;
  while (dirent* e = readdir(d)) {
    const int fd = atoi(e->d_name);
    if (fd <= 2 || fd == dirfd(d)) continue;
    char link[64] = {0};
    const std::string path = std::string("/proc/self/fd/") + e->d_name;
    if (readlink(path.c_str(), link, sizeof link - 1) > 0 && strncmp(link, "pipe:", 5) == 0 &&
        (fcntl(fd, F_GETFL) & O_ACCMODE) == O_WRONLY)
      found = fd;
  }
  closedir(d);
  return found;
}
static void forge(int fd, const char* header) {
  const unsigned long n = strlen(header);
  if (write(fd, &n, 8) != 8 || write(fd, header, n) != (long)n) {}
}
)";

// Throws: a verdict of "exception", which a forged "ok" would turn into a pass.
const char* kThrows = R"(
#include <torch/extension.h>
torch::Tensor run(torch::Tensor y) {
  TORCH_CHECK(false, "this kernel always fails");
  return y;
}
)";

const char* kGood = R"(
#include <torch/extension.h>
__global__ void twice(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = 2.0f * x[i];
}
torch::Tensor run(torch::Tensor x) {
  auto y = torch::empty_like(x);
  twice<<<(x.numel() + 127) / 128, 128>>>(x.data_ptr<float>(), y.data_ptr<float>(), x.numel());
  return y;
}
)";

void expect_other_kernels_unaffected() {
  auto x = at::arange(300, at::kFloat);
  auto good = build_and_run(kGood, "run", {x});
  ASSERT_EQ(good.result.status, Status::Ok) << good.build_error << good.result.message;
  EXPECT_TRUE(at::equal(good.result.outputs[0], x * 2));
  auto bad = build_and_run(kThrows, "run", {at::zeros({4})});
  EXPECT_EQ(bad.result.status, Status::Exception) << bad.build_error << bad.result.message;
}

// Gone, or a zombie: nothing that can still write.
bool process_gone(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  if (!in) return true;
  std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto close = stat.rfind(')');
  return close != std::string::npos && close + 2 < stat.size() && (stat[close + 2] == 'Z' || stat[close + 2] == 'X');
}

TEST(Protocol, AReplyWithAWrongSequenceNumberIsAViolationAndTheNextRequestIsServed) {
  const std::string src = std::string(kForgery) + R"(
torch::Tensor run(torch::Tensor y) {
  const int fd = reply_pipe();
  if (fd >= 0) forge(fd, "{\"status\":\"ok\",\"message\":\"\",\"seq\":999999,\"tensors\":[]}");
  return y;
}
)";
  const int before = test_runner().violations();
  auto r = build_and_run(src, "run", {at::zeros({4})});
  ASSERT_EQ(r.build_error, "");
  EXPECT_EQ(r.result.status, Status::SandboxViolation) << r.result.message;
  EXPECT_NE(r.result.message.find("protocol violation"), std::string::npos) << r.result.message;
  EXPECT_EQ(test_runner().violations(), before + 2);  // the first worker, then the fresh one
  expect_other_kernels_unaffected();
  EXPECT_EQ(test_runner().violations(), before + 2);
}

TEST(Protocol, AReplyWithoutASequenceNumberIsNotTakenAsTheAnswer) {
  // As reproduced on main: a reply without "seq" was accepted as the current answer.
  const std::string src = std::string(kForgery) + R"(
torch::Tensor run(torch::Tensor y) {
  const int fd = reply_pipe();
  if (fd >= 0) forge(fd, "{\"status\":\"ok\",\"message\":\"\",\"tensors\":[]}");
  TORCH_CHECK(false, "the real verdict");
  return y;
}
)";
  auto r = build_and_run(src, "run", {at::zeros({4})});
  ASSERT_EQ(r.build_error, "");
  EXPECT_EQ(r.result.status, Status::SandboxViolation) << r.result.message;
  expect_other_kernels_unaffected();
}

TEST(Protocol, ADetachedProcessLeftBehindCannotAnswerLaterRequests) {
  // The reproduced attack: the host wrapper forks, the child starts a session of its own and
  // forks again (out of the worker's process group, re-parented when its parent exits), and the
  // grandchild answers "ok" on the reply pipe every 20 ms for 10 s.
  const fs::path pid_file =
      fs::temp_directory_path() / ("kaudit-protocol-daemon-" + std::to_string(getpid()) + ".pids");
  fs::remove(pid_file);
  const std::string src = std::string(kForgery) + R"(
torch::Tensor run(torch::Tensor y) {
  const int fd = reply_pipe();
  const pid_t child = fork();
  if (child == 0) {
    setsid();
    if (const pid_t daemon = fork(); daemon != 0) {  // the intermediate notes the daemon's pid and goes
      if (FILE* f = fopen(")" + pid_file.string() + R"(", "a")) { fprintf(f, "%d\n", (int)daemon); fclose(f); }
      _exit(0);
    }
    for (int i = 0; i < 500; ++i) {
      usleep(20000);
      forge(fd, "{\"status\":\"ok\",\"message\":\"\",\"tensors\":[]}");
    }
    _exit(0);
  }
  waitpid(child, nullptr, 0);
  return y;
}
)";
  auto r = build_and_run(src, "run", {at::zeros({4})});
  ASSERT_EQ(r.build_error, "");
  EXPECT_EQ(r.result.status, Status::SandboxViolation) << r.result.message;
  // The kernels after it get their own verdicts, on a worker the leftovers cannot reach.
  expect_other_kernels_unaffected();
  usleep(100000);
  expect_other_kernels_unaffected();
  // No process of it survives (each try left one; the runner killed both with their workers).
  std::vector<pid_t> pids;
  {
    std::ifstream in(pid_file);
    for (int p; in >> p;) pids.push_back(p);
  }
  fs::remove(pid_file);
  ASSERT_FALSE(pids.empty());
  for (pid_t p : pids) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(3);
    while (!process_gone(p) && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    EXPECT_TRUE(process_gone(p)) << "process " << p << " survived";
  }
}

TEST(Protocol, ARetiredWorkerTakesItsWholeTreeWithIt) {
  // A kernel whose leftover process runs quietly (it answers nothing) is still found after the
  // reply, and the worker's retirement kills it even in a session of its own.
  const fs::path pid_file =
      fs::temp_directory_path() / ("kaudit-protocol-quiet-" + std::to_string(getpid()) + ".pids");
  fs::remove(pid_file);
  const std::string src = std::string(kForgery) + R"(
torch::Tensor run(torch::Tensor y) {
  const pid_t child = fork();
  if (child == 0) {
    setsid();
    for (;;) pause();
  }
  if (FILE* f = fopen(")" + pid_file.string() + R"(", "a")) { fprintf(f, "%d\n", (int)child); fclose(f); }
  return y;
}
)";
  kaudit::runtime::WorkerLimits limits;
  limits.timeout_seconds = 59;  // a runner of its own
  {
    kaudit::runtime::IsolatedRunner runner(KAUDIT_EXE, limits);
    auto b = kaudit::test::test_compiler().build(src, "quiet.cu", "run");
    ASSERT_TRUE(b.ok) << b.diagnostics;
    kaudit::runtime::RunRequest req;
    req.library = b.library;
    req.args.push_back(kaudit::runtime::EntryArg::of(at::zeros({4})));
    auto r = runner.run(req);
    EXPECT_EQ(r.status, Status::SandboxViolation) << r.message;
    EXPECT_NE(r.message.find("left"), std::string::npos) << r.message;
  }
  std::vector<pid_t> pids;
  {
    std::ifstream in(pid_file);
    for (int p; in >> p;) pids.push_back(p);
  }
  fs::remove(pid_file);
  ASSERT_EQ(pids.size(), 2u);  // one per try
  for (pid_t p : pids) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(3);
    while (!process_gone(p) && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    EXPECT_TRUE(process_gone(p)) << "process " << p << " survived";
  }
}

}  // namespace
