// Confinement of a process that is about to run untrusted code (issue 21, item 1; the threat
// model is docs/SECURITY.md). The worker forks a fresh process for every run and calls
// confine_untrusted_run() in it before the kernel library is loaded, so nothing a kernel does
// (files, processes, threads, memory) survives into another run. The layers, in the order they
// are applied:
//   1. resource limits: no core files, no file growth (RLIMIT_FSIZE 0), few descriptors, a
//      bounded number of processes and threads (RLIMIT_NPROC), an address-space limit and a CPU
//      backstop;
//   2. a separate unprivileged uid and gid (kUnprivilegedId) when kaudit runs as root;
//   3. no_new_privs;
//   4. Landlock: no file-system access at all (no path is opened, read, written, executed or
//      created), no TCP bind or connect, no signals to processes outside the run and no abstract
//      Unix sockets (each part only where the running kernel's Landlock ABI has it);
//   5. a seccomp-bpf allow-list (libseccomp): the system calls a kernel run needs (memory,
//      threads, futexes, signals to itself, reads and writes on descriptors it already holds,
//      read-only opens, which Landlock then refuses); anything else (fork, execve, sockets,
//      ptrace, writable opens, mounts, namespaces...) stops the run with SIGSYS, and the handler
//      records the call's number for the verdict (`sandbox-violation`, with the call's name).
// Layers the machine lacks are skipped, and missing_layers() says which (the runner prints it
// once per process); none is skipped silently.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace kaudit::sandbox {

// The uid and gid runs switch to when kaudit is root: the conventional `nobody`.
constexpr unsigned kUnprivilegedId = 65534;
// Exit code of a run stopped by the seccomp filter (the SIGSYS handler's _exit).
constexpr int kViolationExitCode = 89;
// Exit code of a run whose confinement could not be applied: it never ran the kernel.
constexpr int kConfineFailedExitCode = 90;

struct Layers {
  int landlock_abi = 0;  // 0: no Landlock in this kernel
  bool seccomp = false;  // built with libseccomp, and the kernel has seccomp filters
  bool root = false;     // runs will switch to kUnprivilegedId
};
// Probed once per process.
const Layers& available_layers();

// True when the user turned the sandbox off (KAUDIT_SANDBOX=off), for debugging and for
// measuring its cost; the runner says so on stderr.
bool disabled_by_user();

// One line naming each missing layer and what that leaves open; empty when every layer is there.
std::string missing_layers();
// Prints missing_layers() (or that the sandbox is off) to stderr, once per process.
void report_missing_layers_once();

struct Policy {
  double cpu_seconds = 0;  // RLIMIT_CPU backstop, rounded up (0: none)
  // Where the SIGSYS handler records 1 + the number of the denied system call (a word shared
  // with the parent, which names it in the verdict); may be null.
  volatile std::uint64_t* violation_word = nullptr;
};

// Confines the calling process for the rest of its life. Must be called single-threaded. Returns
// "" on success, else what could not be applied; the caller must not run untrusted code then.
std::string confine_untrusted_run(const Policy& policy);

// Confines a CUDA worker (runtime/worker.h, WorkerLimits::cuda) for the rest of its life, once,
// before it loads a kernel library. The GPU driver needs what a CPU run's layers refuse (device
// nodes, their ioctls, its own threads and mappings, and some file writes not yet pinned down),
// so a GPU worker gets less: no core files, no_new_privs, Landlock refusing TCP and scoping
// signals and abstract sockets to the worker (ABI 4 and 6), and the network namespace of
// enter_private_network(). Files are not confined (every file-system right is granted under /:
// see apply_gpu_landlock), there is no seccomp filter and no uid change. docs/SECURITY.md says
// what that leaves open.
std::string confine_gpu_worker();

// A compiler run on untrusted text (issue 21, item 3): g++ building a kernel for the CPU backend.
// The compiler must fork its own stages (cc1plus, as, ld), so it gets no seccomp filter and no
// uid change; it gets resource limits, no_new_privs and, where the kernel has Landlock, a file
// system it can read only under `read_paths` (the system's programs and headers, the project's
// preludes) and write only under `write_dirs` (the build's own folder), and no TCP. So
// `#include "/etc/hostname"` or `asm(".incbin ...")` of a file outside them fails to open, and
// no diagnostic can carry its contents; `#include "/dev/zero"` fails at once.
struct CompilerPolicy {
  std::vector<std::string> read_paths;  // read and execute beneath each (files or folders)
  std::vector<std::string> write_dirs;  // every right beneath each
  double cpu_seconds = 0;               // RLIMIT_CPU per process (0: none)
  std::uint64_t address_space = 0;      // RLIMIT_AS per process, bytes (0: none)
  std::uint64_t file_size = 0;          // RLIMIT_FSIZE, bytes (0: none)
};
// The system folders a compiler reads from (/usr, /lib..., the loader's cache), those that exist.
std::vector<std::string> system_read_paths();

// Confines the calling process, with one thread, to `policy` for the rest of its life: used by the
// kaudit_confine launcher (common/confine_main.cpp) on itself before it execs the compiler, and by
// an NVRTC worker on itself. A path that does not exist is skipped; a missing Landlock leaves the
// limits and no_new_privs (missing_layers() says so); KAUDIT_SANDBOX=off applies nothing. Returns
// "" on success, else what could not be applied: the caller must not run the compiler then.
std::string confine_compiler(const CompilerPolicy& policy);

// The name of a system call number of this machine's architecture ("socket"), or "syscall N".
std::string syscall_name(long number);

// Moves the calling process into a new, empty network namespace (no interface but a down
// loopback) when it may (root); false when it may not. Meant for the worker's zygote, once:
// every run forked from it inherits the namespace.
bool enter_private_network();

}  // namespace kaudit::sandbox
