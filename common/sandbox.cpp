#include "common/sandbox.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <sched.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <termios.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

#if KAUDIT_HAVE_SECCOMP
#include <seccomp.h>
#endif

namespace kaudit::sandbox {
namespace {

// ---- Landlock -----------------------------------------------------------------------------------
// The kernel's UAPI, spelled out here: the build machine's headers (Debian 12: Linux 6.1) lack the
// network and scope fields, and the running kernel, not the headers, decides what applies.
struct LandlockRulesetAttr {
  std::uint64_t handled_access_fs;
  std::uint64_t handled_access_net;  // ABI 4
  std::uint64_t scoped;              // ABI 6
};
constexpr unsigned kCreateRulesetVersion = 1u << 0;
// File-system rights by ABI: 13 in ABI 1 (execute ... make_sym), REFER in 2, TRUNCATE in 3,
// IOCTL_DEV in 5.
std::uint64_t landlock_fs_rights(int abi) {
  std::uint64_t rights = (1ull << 13) - 1;
  if (abi >= 2) rights |= 1ull << 13;
  if (abi >= 3) rights |= 1ull << 14;
  if (abi >= 5) rights |= 1ull << 15;
  return rights;
}
constexpr std::uint64_t kNetBindTcp = 1ull << 0, kNetConnectTcp = 1ull << 1;
constexpr std::uint64_t kScopeAbstractUnixSocket = 1ull << 0, kScopeSignal = 1ull << 1;

int probe_landlock_abi() {
#ifdef SYS_landlock_create_ruleset
  const long abi = syscall(SYS_landlock_create_ruleset, nullptr, 0, kCreateRulesetVersion);
  return abi > 0 ? static_cast<int>(abi) : 0;
#else
  return 0;
#endif
}

// No file-system access, no TCP, no signals or abstract sockets beyond the run: a ruleset that
// handles every right the ABI knows and grants none. Descriptors the process already holds (its
// pipes, the kernel library's sealed memfd, which dlopen reaches through /proc/self/fd) are not
// paths under any rule and stay usable.
// A ruleset handling every file-system right, TCP (ABI 4) and the scopes (ABI 6) the ABI knows;
// its descriptor, or -1 with errno set.
long create_ruleset(int abi) {
  LandlockRulesetAttr attr{};
  attr.handled_access_fs = landlock_fs_rights(abi);
  std::size_t size = sizeof(std::uint64_t);
  if (abi >= 4) {
    attr.handled_access_net = kNetBindTcp | kNetConnectTcp;
    size = 2 * sizeof(std::uint64_t);
  }
  if (abi >= 6) {
    attr.scoped = kScopeAbstractUnixSocket | kScopeSignal;
    size = sizeof attr;
  }
  return syscall(SYS_landlock_create_ruleset, &attr, size, 0);
}

std::string apply_landlock(int abi) {
  const long ruleset = create_ruleset(abi);
  if (ruleset < 0) return std::string("landlock_create_ruleset: ") + std::strerror(errno);
  const long rc = syscall(SYS_landlock_restrict_self, ruleset, 0);
  const int saved = errno;
  close(static_cast<int>(ruleset));
  if (rc != 0) return std::string("landlock_restrict_self: ") + std::strerror(saved);
  return {};
}

// A GPU worker's ruleset (confine_gpu_worker): TCP and, where the ABI has them, signals and
// abstract sockets as for a CPU run; file-system rights handled but all granted under / (below).
struct __attribute__((packed)) LandlockPathBeneathAttr {
  std::uint64_t allowed_access;
  std::int32_t parent_fd;
};
constexpr int kRulePathBeneath = 1;

std::string add_path_rule(long ruleset, const char* path, std::uint64_t rights) {
  const int fd = open(path, O_PATH | O_CLOEXEC);
  if (fd < 0) return std::string("open ") + path + ": " + std::strerror(errno);
  LandlockPathBeneathAttr rule{rights, fd};
  const long rc = syscall(SYS_landlock_add_rule, ruleset, kRulePathBeneath, &rule, 0);
  const int saved = errno;
  close(fd);
  if (rc != 0) return std::string("landlock_add_rule ") + path + ": " + std::strerror(saved);
  return {};
}

std::string apply_gpu_landlock(int abi) {
  const long ruleset = create_ruleset(abi);
  if (ruleset < 0) return std::string("landlock_create_ruleset: ") + std::strerror(errno);
  // Every file-system right under / for now. Measured on the H200 (Firecracker, Linux 6.18, driver
  // 580, 2026-12-02): with reading and executing under /, and reading, writing and device ioctls
  // under /dev (and every right under /dev/shm), the CUDA runtime's first call fails with
  // cudaErrorOperatingSystem (304); with every right under / it works. Which path the driver
  // writes is not found yet, so files are not confined on the GPU (docs/SECURITY.md).
  std::string e = add_path_rule(ruleset, "/", landlock_fs_rights(abi));
  if (e.empty() && syscall(SYS_landlock_restrict_self, ruleset, 0) != 0)
    e = std::string("landlock_restrict_self: ") + std::strerror(errno);
  close(static_cast<int>(ruleset));
  return e;
}

// ---- seccomp ------------------------------------------------------------------------------------
volatile std::uint64_t* g_violation_word = nullptr;

void on_denied_syscall(int, siginfo_t* info, void*) {
  if (g_violation_word) *g_violation_word = static_cast<std::uint64_t>(info->si_syscall) + 1;
  static const char msg[] = "kaudit: the sandbox stopped a denied system call\n";
  ssize_t ignored = write(2, msg, sizeof msg - 1);
  (void)ignored;
  _exit(kViolationExitCode);
}

#if KAUDIT_HAVE_SECCOMP
bool probe_seccomp() { return prctl(PR_GET_SECCOMP, 0, 0, 0, 0) >= 0; }

// What a kernel run needs; everything else traps. Grouped by purpose so a reader can check each.
std::string apply_seccomp() {
  scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_TRAP);
  if (!ctx) return "seccomp_init failed";
  int rc = 0;
  auto allow = [&](int nr) { rc = rc ? rc : seccomp_rule_add(ctx, SCMP_ACT_ALLOW, nr, 0); };
  // Memory, including fiber stacks and their guard pages.
  for (int nr : {SCMP_SYS(brk), SCMP_SYS(mmap), SCMP_SYS(munmap), SCMP_SYS(mprotect), SCMP_SYS(mremap),
                 SCMP_SYS(madvise), SCMP_SYS(msync), SCMP_SYS(mincore), SCMP_SYS(membarrier)})
    allow(nr);
  // Threads (TBB, OpenMP) and their synchronization. clone only with CLONE_THREAD: a new thread,
  // never a new process; clone3 answers ENOSYS, so glibc falls back to clone.
  for (int nr : {SCMP_SYS(futex), SCMP_SYS(futex_waitv), SCMP_SYS(set_robust_list), SCMP_SYS(get_robust_list),
                 SCMP_SYS(rseq), SCMP_SYS(set_tid_address), SCMP_SYS(arch_prctl), SCMP_SYS(prctl),
                 SCMP_SYS(sched_yield), SCMP_SYS(sched_getaffinity), SCMP_SYS(sched_getparam),
                 SCMP_SYS(sched_getscheduler), SCMP_SYS(getpriority), SCMP_SYS(exit), SCMP_SYS(exit_group),
                 SCMP_SYS(wait4), SCMP_SYS(waitid)})
    allow(nr);
  if (!rc) rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(clone), 1, SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_THREAD, CLONE_THREAD));
  if (!rc) rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0);
  // Placement requests a library may try and must not get: refused, not a violation.
  for (int nr : {SCMP_SYS(sched_setaffinity), SCMP_SYS(set_mempolicy), SCMP_SYS(mbind), SCMP_SYS(setpriority)})
    if (!rc) rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), nr, 0);
  // Time, identity, limits (reading them only), randomness, the CPU-time timer.
  for (int nr : {SCMP_SYS(clock_gettime), SCMP_SYS(clock_getres), SCMP_SYS(clock_nanosleep), SCMP_SYS(nanosleep),
                 SCMP_SYS(gettimeofday), SCMP_SYS(time), SCMP_SYS(times), SCMP_SYS(getrusage), SCMP_SYS(getcpu),
                 SCMP_SYS(getpid), SCMP_SYS(getppid), SCMP_SYS(gettid), SCMP_SYS(getuid), SCMP_SYS(geteuid),
                 SCMP_SYS(getgid), SCMP_SYS(getegid), SCMP_SYS(getresuid), SCMP_SYS(getresgid), SCMP_SYS(getgroups),
                 SCMP_SYS(getpgrp), SCMP_SYS(getrlimit), SCMP_SYS(getrandom), SCMP_SYS(uname), SCMP_SYS(sysinfo),
                 SCMP_SYS(timer_create), SCMP_SYS(timer_settime), SCMP_SYS(timer_gettime), SCMP_SYS(timer_delete),
                 SCMP_SYS(timer_getoverrun), SCMP_SYS(restart_syscall)})
    allow(nr);
  if (!rc) rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(prlimit64), 2, SCMP_A0(SCMP_CMP_EQ, 0), SCMP_A2(SCMP_CMP_EQ, 0));
  // Signals: handlers, masks, and signals to this process only (abort, pthread_kill).
  for (int nr : {SCMP_SYS(rt_sigaction), SCMP_SYS(rt_sigprocmask), SCMP_SYS(rt_sigreturn), SCMP_SYS(sigaltstack),
                 SCMP_SYS(rt_sigpending), SCMP_SYS(rt_sigtimedwait), SCMP_SYS(rt_sigsuspend)})
    allow(nr);
  const auto self = static_cast<scmp_datum_t>(getpid());
  if (!rc) rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(tgkill), 1, SCMP_A0(SCMP_CMP_EQ, self));
  if (!rc) rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(kill), 1, SCMP_A0(SCMP_CMP_EQ, self));
  // Descriptors the process already holds: its pipes, stderr, the library's memfd. Opens only
  // read-only (dlopen of /proc/self/fd/N); Landlock refuses any path.
  for (int nr : {SCMP_SYS(read), SCMP_SYS(write), SCMP_SYS(readv), SCMP_SYS(writev), SCMP_SYS(pread64),
                 SCMP_SYS(lseek), SCMP_SYS(close), SCMP_SYS(close_range), SCMP_SYS(fstat), SCMP_SYS(newfstatat),
                 SCMP_SYS(statx), SCMP_SYS(stat), SCMP_SYS(lstat), SCMP_SYS(access), SCMP_SYS(faccessat),
                 SCMP_SYS(faccessat2), SCMP_SYS(readlink), SCMP_SYS(readlinkat), SCMP_SYS(getdents64),
                 SCMP_SYS(getcwd), SCMP_SYS(fcntl), SCMP_SYS(dup), SCMP_SYS(dup2), SCMP_SYS(dup3), SCMP_SYS(poll),
                 SCMP_SYS(ppoll), SCMP_SYS(select), SCMP_SYS(pselect6), SCMP_SYS(pipe), SCMP_SYS(pipe2),
                 SCMP_SYS(eventfd2)})
    allow(nr);
  const scmp_datum_t write_flags = O_ACCMODE | O_CREAT | O_TRUNC | O_APPEND;
  if (!rc) rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(openat), 1, SCMP_A2(SCMP_CMP_MASKED_EQ, write_flags, 0));
  if (!rc) rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(open), 1, SCMP_A1(SCMP_CMP_MASKED_EQ, write_flags, 0));
  if (!rc) rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(ioctl), 1, SCMP_A1(SCMP_CMP_EQ, TCGETS));  // isatty
  if (!rc) rc = seccomp_load(ctx);
  seccomp_release(ctx);
  return rc ? std::string("seccomp: ") + std::strerror(-rc) : std::string();
}

// A compiler forks and execs its own stages (cc1plus, as, ld) and NVRTC's needs were never pinned
// down, so compilers get a deny list rather than the runs' allow list: the calls no compiler
// makes and an exploited one would want, each answered EPERM (a compiler reports an error; no
// trap, no lost build). The filter is inherited by every stage it execs.
std::string apply_compiler_seccomp() {
  scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
  if (!ctx) return "seccomp_init failed";
  int rc = 0;
  for (int nr : {// the network, and other processes' memory
                 SCMP_SYS(socket), SCMP_SYS(ptrace), SCMP_SYS(process_vm_readv), SCMP_SYS(process_vm_writev),
                 SCMP_SYS(pidfd_getfd), SCMP_SYS(kcmp),
                 // namespaces, mounts and the kernel's own interfaces
                 SCMP_SYS(unshare), SCMP_SYS(setns), SCMP_SYS(mount), SCMP_SYS(umount2), SCMP_SYS(pivot_root),
                 SCMP_SYS(chroot), SCMP_SYS(bpf), SCMP_SYS(perf_event_open), SCMP_SYS(userfaultfd),
                 SCMP_SYS(io_uring_setup), SCMP_SYS(keyctl), SCMP_SYS(add_key), SCMP_SYS(request_key),
                 SCMP_SYS(init_module), SCMP_SYS(finit_module), SCMP_SYS(delete_module), SCMP_SYS(kexec_load),
                 SCMP_SYS(kexec_file_load), SCMP_SYS(reboot), SCMP_SYS(swapon), SCMP_SYS(swapoff),
                 SCMP_SYS(acct), SCMP_SYS(settimeofday), SCMP_SYS(clock_settime), SCMP_SYS(setdomainname),
                 SCMP_SYS(sethostname)})
    if (!rc) rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), nr, 0);
  if (!rc) rc = seccomp_load(ctx);
  seccomp_release(ctx);
  return rc ? std::string("seccomp: ") + std::strerror(-rc) : std::string();
}
#else
bool probe_seccomp() { return false; }
std::string apply_seccomp() { return {}; }
std::string apply_compiler_seccomp() { return {}; }
#endif

// Resource limits that hold even where a layer above is missing.
// Sets a resource limit to `value`, never above the hard limit there is: an unprivileged process
// cannot raise it.
bool lower_limit(int resource, rlim_t value) {
  rlimit current{};
  getrlimit(resource, &current);
  const rlim_t v = current.rlim_max == RLIM_INFINITY ? value : std::min<rlim_t>(value, current.rlim_max);
  rlimit next{v, v};
  return setrlimit(resource, &next) == 0;
}

std::string apply_limits(const Policy& policy) {
  const auto set = lower_limit;
  bool ok = set(RLIMIT_CORE, 0) && set(RLIMIT_FSIZE, 0) && set(RLIMIT_NOFILE, 256);
  // Counts the processes and threads of the run's uid (kUnprivilegedId when root): room for
  // every worker's thread pool, not for a thread bomb.
  ok = ok && set(RLIMIT_NPROC, 4096);
  if (policy.cpu_seconds > 0) ok = ok && set(RLIMIT_CPU, static_cast<rlim_t>(std::ceil(policy.cpu_seconds)));
  return ok ? std::string() : std::string("setrlimit: ") + std::strerror(errno);
}

std::string drop_privileges() {
  if (geteuid() != 0) return {};
  if (setgroups(0, nullptr) != 0 || setresgid(kUnprivilegedId, kUnprivilegedId, kUnprivilegedId) != 0 ||
      setresuid(kUnprivilegedId, kUnprivilegedId, kUnprivilegedId) != 0)
    return std::string("cannot switch to uid ") + std::to_string(kUnprivilegedId) + ": " + std::strerror(errno);
  // A uid change makes the process non-dumpable, which turns /proc/self/fd root's: dlopen of the
  // library's memfd needs it back. Other processes of this uid still cannot ptrace the run (the
  // filter denies ptrace, Landlock denies /proc/<pid> paths).
  prctl(PR_SET_DUMPABLE, 1);
  return {};
}

}  // namespace

const Layers& available_layers() {
  static const Layers layers = [] {
    Layers l;
    l.landlock_abi = probe_landlock_abi();
    l.seccomp = probe_seccomp();
    l.root = geteuid() == 0;
    return l;
  }();
  return layers;
}

bool disabled_by_user() {
  const char* v = std::getenv("KAUDIT_SANDBOX");
  return v && (std::strcmp(v, "off") == 0 || std::strcmp(v, "0") == 0);
}

std::string missing_layers() {
  const Layers& l = available_layers();
  std::string missing;
  auto add = [&](const std::string& s) { missing += (missing.empty() ? "" : "; ") + s; };
  if (l.landlock_abi == 0)
    add("no Landlock in this kernel: kernels can read every file the run's uid can read");
  else if (l.landlock_abi < 4)
    add("Landlock ABI " + std::to_string(l.landlock_abi) + " (< 4): TCP is refused only by the seccomp filter");
  else if (l.landlock_abi < 6)
    add("Landlock ABI " + std::to_string(l.landlock_abi) + " (< 6): signals are limited to the run by the seccomp filter only");
  if (!l.seccomp)
    add("no seccomp filter (built without libseccomp, or the kernel has none): kernels may fork, exec and open sockets");
  return missing;
}

void report_missing_layers_once() {
  static std::once_flag once;
  std::call_once(once, [] {
    if (disabled_by_user()) {
      std::fprintf(stderr, "kaudit: warning: KAUDIT_SANDBOX=off: kernels run unconfined, with this user's rights\n");
      return;
    }
    if (const std::string m = missing_layers(); !m.empty())
      std::fprintf(stderr, "kaudit: sandbox: %s (docs/SECURITY.md)\n", m.c_str());
  });
}

std::string confine_untrusted_run(const Policy& policy) {
  const Layers& layers = available_layers();
  if (std::string e = apply_limits(policy); !e.empty()) return e;
  if (std::string e = drop_privileges(); !e.empty()) return e;
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return std::string("no_new_privs: ") + std::strerror(errno);
  if (layers.landlock_abi > 0)
    if (std::string e = apply_landlock(layers.landlock_abi); !e.empty()) return e;
  g_violation_word = policy.violation_word;
  struct sigaction sa{};
  sa.sa_sigaction = on_denied_syscall;
  sa.sa_flags = SA_SIGINFO;
  sigaction(SIGSYS, &sa, nullptr);
  if (layers.seccomp)
    if (std::string e = apply_seccomp(); !e.empty()) return e;
  return {};
}

std::string confine_gpu_worker() {
  // No RLIMIT_FSIZE 0 here: the worker copies each kernel library into a sealed memfd after it is
  // confined (the limit would kill it there); Landlock refuses writes to files instead.
  rlimit zero{0, 0};
  if (setrlimit(RLIMIT_CORE, &zero) != 0) return std::string("setrlimit: ") + std::strerror(errno);
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return std::string("no_new_privs: ") + std::strerror(errno);
  if (const int abi = available_layers().landlock_abi; abi > 0)
    if (std::string e = apply_gpu_landlock(abi); !e.empty()) return e;
  return {};
}

std::vector<std::string> system_read_paths() {
  std::vector<std::string> out;
  for (const char* p : {"/usr", "/lib", "/lib32", "/lib64", "/libx32", "/bin", "/sbin", "/etc/ld.so.cache",
                        "/etc/alternatives"})
    if (access(p, F_OK) == 0) out.push_back(p);
  return out;
}

namespace {
// Landlock's file rights (ABI 1): what a path that is not a folder may be granted.
constexpr std::uint64_t kExecute = 1ull << 0, kWriteFile = 1ull << 1, kReadFile = 1ull << 2, kReadDir = 1ull << 3;
constexpr std::uint64_t kTruncate = 1ull << 14;
std::uint64_t file_rights(int abi) { return kExecute | kWriteFile | kReadFile | (abi >= 3 ? kTruncate : 0); }

std::string add_rule_if_exists(long ruleset, const std::string& path, std::uint64_t rights, int abi) {
  struct stat st{};
  if (stat(path.c_str(), &st) != 0) return {};  // absent here: nothing to grant
  if (!S_ISDIR(st.st_mode)) rights &= file_rights(abi);
  return add_path_rule(ruleset, path.c_str(), rights);
}
}  // namespace

std::string confine_compiler(const CompilerPolicy& policy) {
  if (disabled_by_user()) return {};
  const auto limit = [](int resource, std::uint64_t value) { return value == 0 || lower_limit(resource, value); };
  const rlimit no_core{0, 0};
  if (setrlimit(RLIMIT_CORE, &no_core) != 0 || !limit(RLIMIT_AS, policy.address_space) ||
      !limit(RLIMIT_FSIZE, policy.file_size) ||
      !limit(RLIMIT_CPU, static_cast<std::uint64_t>(std::ceil(policy.cpu_seconds))))
    return std::string("setrlimit: ") + std::strerror(errno);
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return std::string("no_new_privs: ") + std::strerror(errno);
  if (available_layers().seccomp)
    if (std::string e = apply_compiler_seccomp(); !e.empty()) return e;
  const int abi = available_layers().landlock_abi;
  if (abi == 0) return {};
  const long ruleset = create_ruleset(abi);
  if (ruleset < 0) return std::string("landlock_create_ruleset: ") + std::strerror(errno);
  std::string error;
  const std::uint64_t all = landlock_fs_rights(abi);
  for (const auto& p : policy.read_paths)
    if (error.empty()) error = add_rule_if_exists(ruleset, p, kExecute | kReadFile | kReadDir, abi);
  for (const auto& p : policy.write_dirs)
    if (error.empty()) error = add_rule_if_exists(ruleset, p, all, abi);
  // The compiler's stdin is /dev/null, and its driver opens /dev/null for its stages.
  if (error.empty()) error = add_rule_if_exists(ruleset, "/dev/null", kReadFile | kWriteFile, abi);
  if (error.empty() && syscall(SYS_landlock_restrict_self, ruleset, 0) != 0)
    error = std::string("landlock_restrict_self: ") + std::strerror(errno);
  close(static_cast<int>(ruleset));
  return error;
}

std::string syscall_name(long number) {
#if KAUDIT_HAVE_SECCOMP
  if (char* name = seccomp_syscall_resolve_num_arch(SCMP_ARCH_NATIVE, static_cast<int>(number))) {
    std::string s = name;
    std::free(name);
    return s;
  }
#endif
  return "syscall " + std::to_string(number);
}

bool enter_private_network() { return geteuid() == 0 && unshare(CLONE_NEWNET) == 0; }

}  // namespace kaudit::sandbox
