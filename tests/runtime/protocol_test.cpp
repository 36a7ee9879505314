// Issue 21, item 2: a protocol kernel code cannot reach. Hostile fixture kernels whose host code
// writes forged replies on the pipe it finds, or leaves a thread or a detached process behind
// that answers later requests "ok". Each is at most its own run's answer (never another's),
// leaves no process behind, and changes no other kernel's verdict; with the sandbox on, the
// daemon is never started. The attacks of the sandbox itself: sandbox_test.cpp.
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
#include "common/sandbox.h"
#include "tests/runtime/kernel_fixture.h"

using kaudit::runtime::Status;
using kaudit::test::build_and_run;
using kaudit::test::test_runner;
namespace fs = std::filesystem;

namespace {

// Host code shared by the hostile kernels: find a write-only pipe among descriptors 3..255 (by
// asking each one, which works where /proc does not) and write a message on it as the worker's
// framing does. In a run that is the run's own reply pipe: the runner's pipes are not there.
const char* kForgery = R"(
#include <torch/extension.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
static int reply_pipe() {
  for (int fd = 3; fd < 256; ++fd) {
    struct stat st;
    const int flags = fcntl(fd, F_GETFL);
    if (flags >= 0 && (flags & O_ACCMODE) == O_WRONLY && fstat(fd, &st) == 0 && S_ISFIFO(st.st_mode)) return fd;
  }
  return -1;
}
static void forge(int fd, const char* header) {
  const unsigned long n = strlen(header);
  if (write(fd, &n, 8) != 8 || write(fd, header, n) != (long)n) {}
}
)";

// The unsandboxed worker (KAUDIT_SANDBOX=off), for the tests of the protocol's own layer: the
// environment is read each time the runner starts a worker.
struct SandboxOff {
  SandboxOff() { setenv("KAUDIT_SANDBOX", "off", 1); }
  ~SandboxOff() { unsetenv("KAUDIT_SANDBOX"); }
};

// Throws: a verdict of "exception", which a forged "ok" would turn into a pass.
const char* kThrows = R"(
#include <torch/extension.h>
torch::Tensor run(torch::Tensor y) {
  TORCH_CHECK(false, "this kernel always fails");
  return y;
}
)";

const char* const kGood = kaudit::test::kTwiceKernel;

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

// The zygote relays exactly one message of a run, stamped with the request's sequence number and
// the worker's nonce: a forged reply can only be the run's own answer, and it carries no outputs
// the kernel did not write into it (a checker compares outputs, so a forged "ok" is no pass).
void expect_forged_reply_is_only_its_own(kaudit::runtime::IsolatedRunner& runner) {
  const std::string src = std::string(kForgery) + R"(
torch::Tensor run(torch::Tensor y) {
  const int fd = reply_pipe();
  if (fd >= 0) forge(fd, "{\"status\":\"ok\",\"message\":\"\",\"seq\":999999,\"tensors\":[]}");
  TORCH_CHECK(fd >= 0, "no reply pipe found");
  TORCH_CHECK(false, "the real verdict");
  return y;
}
)";
  const int before = runner.violations();
  auto r = kaudit::test::build_and_run_on(runner, src, "run", {at::zeros({4})});
  ASSERT_EQ(r.build_error, "");
  EXPECT_EQ(r.result.status, Status::Ok) << r.result.message;  // its own claim...
  EXPECT_TRUE(r.result.outputs.empty());                         // ...with nothing to compare
  EXPECT_EQ(runner.violations(), before);
  auto good = kaudit::test::build_and_run_on(runner, kGood, "run", {at::arange(300, at::kFloat)});
  ASSERT_EQ(good.result.status, Status::Ok) << good.result.message;
  EXPECT_TRUE(at::equal(good.result.outputs[0], at::arange(300, at::kFloat) * 2));
  auto bad = kaudit::test::build_and_run_on(runner, kThrows, "run", {at::zeros({4})});
  EXPECT_EQ(bad.result.status, Status::Exception) << bad.result.message;
}

TEST(Protocol, AForgedReplyAnswersOnlyForItsOwnRun) { expect_forged_reply_is_only_its_own(test_runner()); }

TEST(Protocol, AForgedReplyAnswersOnlyForItsOwnRunWithoutTheSandbox) {
  SandboxOff off;
  kaudit::runtime::IsolatedRunner runner(KAUDIT_EXE, {});
  expect_forged_reply_is_only_its_own(runner);
}

TEST(Protocol, AThreadLeftRunningCannotAnswerLaterRequests) {
  // As reproduced before the fresh process per run: a thread of the kernel outlives its run and
  // answers "ok" for whatever runs next. Now it dies with its run's process.
  const std::string src = std::string(kForgery) + R"(
torch::Tensor run(torch::Tensor y) {
  const int fd = reply_pipe();
  std::thread([fd] {
    for (int i = 0; i < 200; ++i) {
      usleep(5000);
      forge(fd, "{\"status\":\"ok\",\"message\":\"\",\"tensors\":[]}");
    }
  }).detach();
  return y;
}
)";
  auto r = build_and_run(src, "run", {at::zeros({4})});
  ASSERT_EQ(r.build_error, "");
  EXPECT_EQ(r.result.status, Status::Ok) << r.result.message;
  for (int i = 0; i < 3; ++i) {
    expect_other_kernels_unaffected();
    usleep(20000);
  }
}

// The reproduced attack: the host wrapper forks, the child starts a session of its own and forks
// again (out of the worker's process group, re-parented when its parent exits), and the
// grandchild answers "ok" every 20 ms for 10 s on the pipe it holds. `pid_file` collects the
// daemons' pids.
std::string daemon_kernel(const fs::path& pid_file) {
  return std::string(kForgery) + R"(
torch::Tensor run(torch::Tensor y) {
  const int fd = reply_pipe();
  const pid_t child = fork();
  TORCH_CHECK(child >= 0, "fork failed");
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
}

std::vector<pid_t> read_pids(const fs::path& pid_file) {
  std::vector<pid_t> pids;
  std::ifstream in(pid_file);
  for (int p; in >> p;) pids.push_back(p);
  return pids;
}

void expect_gone(const std::vector<pid_t>& pids) {
  for (pid_t p : pids) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(3);
    while (!process_gone(p) && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    EXPECT_TRUE(process_gone(p)) << "process " << p << " survived";
  }
}

TEST(Protocol, AKernelCannotStartADaemon) {
  const fs::path pid_file = fs::temp_directory_path() / ("kaudit-protocol-daemon-" + std::to_string(getpid()) + ".pids");
  fs::remove(pid_file);
  auto r = build_and_run(daemon_kernel(pid_file), "run", {at::zeros({4})});
  ASSERT_EQ(r.build_error, "");
  if (!kaudit::sandbox::available_layers().seccomp) GTEST_SKIP() << "no seccomp filter in this build";
  EXPECT_EQ(r.result.status, Status::SandboxViolation) << r.result.message;
  EXPECT_NE(r.result.message.find("clone"), std::string::npos) << r.result.message;
  EXPECT_FALSE(fs::exists(pid_file));
  expect_other_kernels_unaffected();
}

TEST(Protocol, ADaemonLeftBehindWithoutTheSandboxDiesWithItsRun) {
  // The protocol's own layer: the zygote is a subreaper and kills what a run left before it relays
  // the run's reply; the daemon's pipe leads to a run that is over.
  SandboxOff off;
  kaudit::runtime::IsolatedRunner runner(KAUDIT_EXE, {});
  const fs::path pid_file = fs::temp_directory_path() / ("kaudit-protocol-daemon-off-" + std::to_string(getpid()) + ".pids");
  fs::remove(pid_file);
  auto r = kaudit::test::build_and_run_on(runner, daemon_kernel(pid_file), "run", {at::zeros({4})});
  ASSERT_EQ(r.build_error, "");
  EXPECT_EQ(r.result.status, Status::Ok) << r.result.message;
  const std::vector<pid_t> pids = read_pids(pid_file);
  fs::remove(pid_file);
  ASSERT_EQ(pids.size(), 1u);
  expect_gone(pids);
  auto bad = kaudit::test::build_and_run_on(runner, kThrows, "run", {at::zeros({4})});
  EXPECT_EQ(bad.result.status, Status::Exception) << bad.result.message;
  EXPECT_EQ(runner.violations(), 0);
}

}  // namespace
