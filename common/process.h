// Run a program (no shell, so no quoting problems with paths) and
// capture its stdout and stderr.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

namespace kaudit {
namespace sandbox {
struct CompilerPolicy;
}

struct ProcessResult {
  bool started = false;  // false: the program could not be executed (see spawn_error)
  std::string spawn_error;
  int exit_code = -1;   // valid when the program exited normally
  int term_signal = 0;  // non-zero when it was killed by a signal
  bool timed_out = false;
  std::string out, err;
  bool ok() const { return started && !timed_out && term_signal == 0 && exit_code == 0; }
};

// argv[0] is the program (searched in PATH when it has no slash). stdin is /dev/null. With a positive
// timeout the child (in its own process group, so grandchildren too) is killed when it runs
// longer: a problem.py that hangs must not hang the audit.
ProcessResult run_process(const std::vector<std::string>& argv, double timeout_seconds = 0);
// The same, confined by `policy` (common/sandbox.h, CompilerPolicy: a compiler on untrusted text),
// with TMPDIR set to `tmpdir` when it is not empty (a folder the policy lets it write). It is
// started through the kaudit_confine launcher (common/confine_main.cpp) with posix_spawn, never by
// forking this process: the launcher applies the policy and execs the program. A policy that
// cannot be applied is exit code 126 with the reason on stderr; a program that is not found, or
// no launcher, is a result that did not start (spawn_error).
ProcessResult run_confined_process(const std::vector<std::string>& argv, double timeout_seconds,
                                   const sandbox::CompilerPolicy& policy, const std::string& tmpdir);

// The live (not zombie) children of `pid`, from /proc/<pid>/task/*/children, or, where the
// kernel lacks that file, from a scan of /proc/*/stat.
std::vector<pid_t> child_processes(pid_t pid);
// SIGKILLs `root` and every live descendant, whatever process group or session it moved to:
// the tree is frozen first (SIGSTOP, repeated until no new process appears, so nothing can fork
// while it is being killed), then killed, and root's process group too. Only descendants still
// attached to the tree are found: a process whose parent died was re-parented to the nearest
// subreaper (PR_SET_CHILD_SUBREAPER; the kaudit worker is one) or to init, and is out of reach
// of the latter. Does not reap `root`.
void kill_process_tree(pid_t root);

// A quarter of this machine's physical memory, or 4 GiB where it cannot be read: the default
// share of each of an audit's two big holders of host memory, its pool (audit/spill.h) and the
// requests in flight to its workers (runtime/payload_budget.h).
std::uint64_t quarter_of_machine_memory();

}  // namespace kaudit
