// Issue 21, items 1 and 7: hostile fixture kernels against the sandbox of every run
// (common/sandbox.h). Each attack ends in its verdict (a sandbox-violation naming the denied
// system call, or a refused operation the kernel reports itself), leaves no file or process
// behind, and changes no other kernel's verdict.
#include <ATen/ATen.h>
#include <errno.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>

#include "common/files.h"
#include "common/process.h"
#include "common/sandbox.h"
#include "tests/runtime/kernel_fixture.h"

using kaudit::runtime::Status;
using kaudit::test::build_and_run;
namespace fs = std::filesystem;

namespace {

const char* const kGood = kaudit::test::kTwiceKernel;

void expect_good_kernel_unaffected() {
  auto x = at::arange(300, at::kFloat);
  auto good = build_and_run(kGood, "run", {x});
  ASSERT_EQ(good.result.status, Status::Ok) << good.build_error << good.result.message;
  EXPECT_TRUE(at::equal(good.result.outputs[0], x * 2));
}

bool have_seccomp() { return kaudit::sandbox::available_layers().seccomp && !kaudit::sandbox::disabled_by_user(); }
bool have_landlock() { return kaudit::sandbox::available_layers().landlock_abi > 0 && !kaudit::sandbox::disabled_by_user(); }

// A kernel whose host wrapper runs `body` (C++ statements; `y` is the input tensor) and returns y.
std::string hostile(const std::string& includes, const std::string& body) {
  return "#include <torch/extension.h>\n" + includes + "\ntorch::Tensor run(torch::Tensor y) {\n" + body +
         "\n  return y;\n}\n";
}

// Runs a hostile kernel that the seccomp filter must stop at `syscall` ("": at a call it cannot
// name, when the kernel had blocked SIGSYS and the filter's trap killed the process).
void expect_violation(const std::string& source, const std::string& syscall) {
  if (!have_seccomp()) GTEST_SKIP() << "no seccomp filter here: " << kaudit::sandbox::missing_layers();
  auto r = build_and_run(source, "run", {at::zeros({4})});
  ASSERT_EQ(r.build_error, "");
  EXPECT_EQ(r.result.status, Status::SandboxViolation) << r.result.message;
  EXPECT_NE(r.result.message.find(syscall.empty() ? "the sandbox denied" : "system call " + syscall), std::string::npos)
      << r.result.message;
  expect_good_kernel_unaffected();
}

fs::path scratch(const std::string& name) {
  return fs::temp_directory_path() / ("kaudit-sandbox-" + std::to_string(getpid()) + "-" + name);
}

TEST(Sandbox, WritingAFileIsAViolationAndWritesNothing) {
  const fs::path target = scratch("written");
  fs::remove(target);
  expect_violation(hostile("#include <cstdio>",
                           "  if (FILE* f = fopen(\"" + target.string() + "\", \"w\")) { fputs(\"owned\", f); fclose(f); }"),
                   "openat");
  EXPECT_FALSE(fs::exists(target));
}

TEST(Sandbox, ReadingAFileOutsideTheRunIsRefused) {
  // The refusal is Landlock's (EACCES), not a violation: glibc and libraries probe files and must
  // be able to go on. The kernel reports what its open returned.
  if (!have_landlock()) GTEST_SKIP() << "no Landlock here: " << kaudit::sandbox::missing_layers();
  const fs::path secret = scratch("secret");
  { std::ofstream(secret) << "secret"; }
  const std::string src = hostile("#include <fcntl.h>\n#include <errno.h>\n#include <unistd.h>",
                                  "  const int fd = open(\"" + secret.string() + "\", O_RDONLY);\n"
                                  "  y.fill_(fd >= 0 ? 1.0 : -(double)errno);\n"
                                  "  if (fd >= 0) close(fd);");
  auto r = build_and_run(src, "run", {at::zeros({4})});
  fs::remove(secret);
  ASSERT_EQ(r.build_error, "");
  ASSERT_EQ(r.result.status, Status::Ok) << r.result.message;
  ASSERT_EQ(r.result.outputs.size(), 1u);
  EXPECT_EQ(r.result.outputs[0][0].item<float>(), -(float)EACCES);
}

TEST(Sandbox, SystemIsAViolationAndRunsNothing) {
  const fs::path target = scratch("system");
  fs::remove(target);
  // posix_spawn blocks every signal before its clone, so the trap kills the run unnamed.
  expect_violation(hostile("#include <cstdlib>", "  if (std::system(\"touch " + target.string() + "\")) {}"), "");
  EXPECT_FALSE(fs::exists(target));
}

TEST(Sandbox, ForkIsAViolation) {
  expect_violation(hostile("#include <unistd.h>", "  if (fork() == 0) _exit(0);"), "clone");
}

TEST(Sandbox, ExecIsAViolation) {
  expect_violation(hostile("#include <unistd.h>", "  execl(\"/bin/true\", \"true\", (char*)nullptr);"), "execve");
}

TEST(Sandbox, ASocketIsAViolation) {
  expect_violation(hostile("#include <sys/socket.h>\n#include <netinet/in.h>",
                           "  const int s = socket(AF_INET, SOCK_STREAM, 0);\n  (void)s;"),
                   "socket");
}

TEST(Sandbox, SignallingTheWorkerIsAViolationAndTheWorkerLives) {
  if (!have_seccomp()) GTEST_SKIP() << "no seccomp filter here";
  expect_violation(hostile("#include <signal.h>\n#include <unistd.h>", "  kill(getppid(), SIGKILL);"), "kill");
}

TEST(Sandbox, PtraceIsAViolation) {
  expect_violation(hostile("#include <sys/ptrace.h>\n#include <unistd.h>",
                           "  ptrace(PTRACE_ATTACH, getppid(), nullptr, nullptr);"),
                   "ptrace");
}

TEST(Sandbox, OverwritingAnotherKernelsCachedLibraryIsAViolationAndChangesNothing) {
  // The cache attack of issue 21: a kernel copies itself over another kernel's cached build.
  auto built = kaudit::test::test_compiler().build(kGood, "victim.cu", "run");
  ASSERT_TRUE(built.ok) << built.diagnostics;
  const auto before = kaudit::read_file(built.library.string());
  ASSERT_TRUE(before.has_value());
  expect_violation(hostile("#include <cstdio>", "  if (FILE* f = fopen(\"" + built.library.string() +
                                                   "\", \"r+b\")) { fputs(\"garbage\", f); fclose(f); }"),
                   "openat");
  EXPECT_EQ(kaudit::read_file(built.library.string()), before);
}

TEST(Sandbox, NoStateSurvivesFromOneRunToTheNext) {
  // A fresh process per run: a static of the kernel's library starts from zero every time.
  const std::string src = hostile("", "  static int runs = 0;\n  ++runs;\n  y.fill_((double)runs);");
  for (int i = 0; i < 3; ++i) {
    auto r = build_and_run(src, "run", {at::zeros({4})});
    ASSERT_EQ(r.build_error, "");
    ASSERT_EQ(r.result.status, Status::Ok) << r.result.message;
    EXPECT_EQ(r.result.outputs.at(0)[0].item<float>(), 1.0f) << "run " << i;
  }
}

TEST(Sandbox, RunsAsAnUnprivilegedUserWhenStartedAsRoot) {
  if (geteuid() != 0 || kaudit::sandbox::disabled_by_user()) GTEST_SKIP() << "not root";
  auto r = build_and_run(hostile("#include <unistd.h>", "  y.fill_((double)getuid());"), "run", {at::zeros({4})});
  ASSERT_EQ(r.build_error, "");
  ASSERT_EQ(r.result.status, Status::Ok) << r.result.message;
  EXPECT_EQ(r.result.outputs.at(0)[0].item<float>(), (float)kaudit::sandbox::kUnprivilegedId);
}

TEST(Sandbox, SyscallNamesAreResolved) {
  if (!kaudit::sandbox::available_layers().seccomp) GTEST_SKIP() << "built without libseccomp";
#if defined(__x86_64__)
  EXPECT_EQ(kaudit::sandbox::syscall_name(41), "socket");  // x86-64 numbering
#endif
  EXPECT_EQ(kaudit::sandbox::syscall_name(-7), "syscall -7");
}

}  // namespace

// ---- item 3: the compiler on untrusted text -----------------------------------------------------
namespace {
// A file outside the compiler's view: made here, with a line the diagnostics must never show.
fs::path outside_secret() {
  const fs::path secret = scratch("secret.h");
  std::ofstream(secret) << "kaudit_secret_line_7f3a();\n";
  return secret;
}

kaudit::cpu::CpuBuild build_text(const std::string& source) {
  return kaudit::test::test_compiler().build(source, "hostile.cu", "run");
}

TEST(SandboxCompiler, IncludingAFileOutsideTheSystemAndPreludesFailsWithoutShowingIt) {
  if (!have_landlock()) GTEST_SKIP() << "no Landlock here: " << kaudit::sandbox::missing_layers();
  const fs::path secret = outside_secret();
  const auto b = build_text(hostile("#include \"" + secret.string() + "\"", ""));
  EXPECT_FALSE(b.ok);
  EXPECT_NE(b.diagnostics.find(secret.string() + ": Permission denied"), std::string::npos) << b.diagnostics;  // named...
  EXPECT_EQ(b.diagnostics.find("kaudit_secret_line_7f3a"), std::string::npos) << b.diagnostics;  // ...not shown
  fs::remove(secret);
  expect_good_kernel_unaffected();
}

TEST(SandboxCompiler, IncbinOfAFileOutsideFailsInTheAssembler) {
  if (!have_landlock()) GTEST_SKIP() << "no Landlock here: " << kaudit::sandbox::missing_layers();
  const fs::path secret = outside_secret();
  const auto b = build_text(hostile("asm(\".section .rodata\\n.incbin \\\"" + secret.string() + "\\\"\\n.text\");", ""));
  EXPECT_FALSE(b.ok);
  EXPECT_NE(b.diagnostics.find("file not found: " + secret.string()), std::string::npos) << b.diagnostics;
  EXPECT_EQ(b.diagnostics.find("kaudit_secret_line_7f3a"), std::string::npos) << b.diagnostics;
  fs::remove(secret);
}

TEST(SandboxCompiler, IncludingDevZeroFailsAtOnce) {
  if (!have_landlock()) GTEST_SKIP() << "no Landlock here: " << kaudit::sandbox::missing_layers();
  const auto t0 = std::chrono::steady_clock::now();
  const auto b = build_text(hostile("#include \"/dev/zero\"", ""));
  EXPECT_FALSE(b.ok);
  EXPECT_NE(b.diagnostics.find("/dev/zero: Permission denied"), std::string::npos) << b.diagnostics;
  // Not a speed target: unconfined, the compiler reads until it has asked for gigabytes.
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 60.0);
}

TEST(SandboxCompiler, AConfinedProcessWritesOnlyItsOwnFolder) {
  if (!have_landlock()) GTEST_SKIP() << "no Landlock here: " << kaudit::sandbox::missing_layers();
  const fs::path own = scratch("own"), outside = scratch("outside-written");
  fs::create_directories(own);
  fs::remove(outside);
  kaudit::sandbox::CompilerPolicy p;
  p.read_paths = kaudit::sandbox::system_read_paths();
  p.write_dirs = {own.string()};
  auto r = kaudit::run_confined_process({"sh", "-c", "echo a > " + (own / "f").string() + " && echo b > " + outside.string()},
                                        30, p, own.string());
  EXPECT_TRUE(r.started) << r.spawn_error;
  EXPECT_NE(r.exit_code, 0);
  EXPECT_TRUE(fs::exists(own / "f"));
  EXPECT_FALSE(fs::exists(outside));
  // TMPDIR is the build's own folder.
  r = kaudit::run_confined_process({"sh", "-c", "echo $TMPDIR"}, 30, p, own.string());
  EXPECT_EQ(r.out, own.string() + "\n");
  fs::remove_all(own);
}

TEST(SandboxCompiler, AConfinedProcessOpensNoSocketAndTracesNothing) {
  // The compilers' deny list (common/sandbox.cpp, apply_compiler_seccomp): EPERM, while the
  // process still forks and execs (a compiler's stages).
  if (!kaudit::sandbox::available_layers().seccomp) GTEST_SKIP() << kaudit::sandbox::missing_layers();
  // The system's Python: the policy reads only the system's folders (a shim under HOME is refused).
  const std::string python = "/usr/bin/python3";
  if (access(python.c_str(), X_OK) != 0) GTEST_SKIP() << "no " << python;
  const fs::path own = scratch("own-net");
  fs::create_directories(own);
  kaudit::sandbox::CompilerPolicy p;
  p.read_paths = kaudit::sandbox::system_read_paths();
  p.write_dirs = {own.string()};
  const std::string probe =
      "import ctypes, errno, socket, subprocess\n"
      "for family in (socket.AF_INET, socket.AF_UNIX):\n"
      "    try:\n"
      "        socket.socket(family); print('socket opened')\n"
      "    except OSError as e: print('socket', errno.errorcode[e.errno])\n"
      "libc = ctypes.CDLL(None, use_errno=True)\n"
      "print('ptrace', libc.ptrace(0, 0, 0, 0), errno.errorcode.get(ctypes.get_errno()))\n"
      "print(subprocess.run(['echo', 'stages run'], capture_output=True, text=True).stdout.strip())\n";
  auto r = kaudit::run_confined_process({python, "-c", probe}, 60, p, own.string());
  ASSERT_TRUE(r.started) << r.spawn_error;
  EXPECT_EQ(r.out, "socket EPERM\nsocket EPERM\nptrace -1 EPERM\nstages run\n") << r.err;
  // The control: the same probe unconfined opens both sockets.
  auto open = kaudit::run_process({python, "-c", probe}, 60);
  EXPECT_NE(open.out.find("socket opened\nsocket opened"), std::string::npos) << open.out << open.err;
  fs::remove_all(own);
}

}  // namespace
