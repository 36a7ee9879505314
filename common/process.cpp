#include "common/process.h"

#include "common/sandbox.h"

#include <fcntl.h>
#include <spawn.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <signal.h>
#include <time.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

extern char** environ;

namespace kaudit {

namespace {

// Output goes to unlinked temporary files rather than pipes: no poll loop, and no deadlock
// when the child writes a lot to both streams.
int temp_fd() {
  std::string tmpl = (std::filesystem::temp_directory_path() / "kaudit-proc-XXXXXX").string();
  int fd = mkostemp(tmpl.data(), O_CLOEXEC);  // dup2 in the child clears it
  if (fd >= 0) unlink(tmpl.c_str());
  return fd;
}

std::string slurp(int fd) {
  std::string s;
  if (lseek(fd, 0, SEEK_SET) < 0) return s;
  char buf[65536];
  for (;;) {
    ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    s.append(buf, static_cast<size_t>(n));
  }
  return s;
}

}  // namespace

namespace {
// The program's path: argv[0] itself when it names a path, else the first executable of that name
// on PATH ("" when there is none), found in the parent so that the child only calls execve.
std::string find_program(const std::string& name) {
  if (name.find('/') != std::string::npos) return name;
  const char* path = std::getenv("PATH");
  std::istringstream dirs(path ? path : "/usr/bin:/bin");
  for (std::string dir; std::getline(dirs, dir, ':');) {
    const std::string candidate = (dir.empty() ? "." : dir) + "/" + name;
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return {};
}

// The launcher of confined compilers (common/confine_main.cpp): $KAUDIT_CONFINE, else the one
// built with this library, else kaudit_confine beside the running executable; "" when none.
std::string confine_program() {
  const auto runnable = [](const std::string& p) { return !p.empty() && access(p.c_str(), X_OK) == 0; };
  if (const char* env = std::getenv("KAUDIT_CONFINE")) return runnable(env) ? env : "";
#if defined(KAUDIT_CONFINE_PATH)
  if (runnable(KAUDIT_CONFINE_PATH)) return KAUDIT_CONFINE_PATH;
#endif
  std::error_code ec;
  const auto beside = std::filesystem::read_symlink("/proc/self/exe", ec).parent_path() / "kaudit_confine";
  return !ec && runnable(beside.string()) ? beside.string() : "";
}

// The environment with TMPDIR set to `tmpdir` (unchanged when it is empty).
std::vector<std::string> environment_with_tmpdir(const std::string& tmpdir) {
  std::vector<std::string> env;
  for (char** e = environ; *e; ++e)
    if (tmpdir.empty() || std::strncmp(*e, "TMPDIR=", 7) != 0) env.emplace_back(*e);
  if (!tmpdir.empty()) env.push_back("TMPDIR=" + tmpdir);
  return env;
}

// Starts the program with posix_spawn (no code of ours runs in the child); its pid, or -1.
pid_t spawn_plain(std::vector<char*>& args, char** env, int out_fd, int err_fd, std::string& error) {
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&fa, out_fd, 1);
  posix_spawn_file_actions_adddup2(&fa, err_fd, 2);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attr, 0);  // its own group: a timeout kills the whole tree
  pid_t pid = -1;
  // glibc >= 2.24 reports exec failures (ENOENT, EACCES) as posix_spawn's return value.
  const int rc = posix_spawnp(&pid, args[0], &fa, &attr, args.data(), env);
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&attr);
  if (rc == 0) return pid;
  error = std::strerror(rc);
  return -1;
}

ProcessResult run_any(const std::vector<std::string>& argv, double timeout_seconds,
                      std::vector<std::string> env_text) {
  ProcessResult r;
  if (argv.empty()) {
    r.spawn_error = "empty command";
    return r;
  }
  int out_fd = temp_fd(), err_fd = temp_fd();
  if (out_fd < 0 || err_fd < 0) {
    r.spawn_error = std::string("cannot create a temporary file: ") + std::strerror(errno);
    if (out_fd >= 0) close(out_fd);
    if (err_fd >= 0) close(err_fd);
    return r;
  }
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  std::vector<char*> env;
  for (auto& e : env_text) env.push_back(e.data());
  env.push_back(nullptr);
  const pid_t pid = spawn_plain(args, env_text.empty() ? environ : env.data(), out_fd, err_fd, r.spawn_error);
  if (pid < 0) {
    close(out_fd);
    close(err_fd);
    return r;
  }
  r.started = true;
  int status = 0;
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::duration<double>(timeout_seconds > 0 ? timeout_seconds : 0);
  for (;;) {
    pid_t w = waitpid(pid, &status, timeout_seconds > 0 ? WNOHANG : 0);
    if (w == pid) break;
    if (w < 0) {
      if (errno == EINTR) continue;
      r.spawn_error = std::string("waitpid: ") + std::strerror(errno);
      break;
    }
    if (std::chrono::steady_clock::now() >= deadline) {
      kill(-pid, SIGKILL);
      r.timed_out = true;
      while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
      }
      break;
    }
    timespec ts{0, 10 * 1000 * 1000};  // 10 ms: exports take seconds, this costs nothing
    nanosleep(&ts, nullptr);
  }
  if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) r.term_signal = WTERMSIG(status);
  r.out = slurp(out_fd);
  r.err = slurp(err_fd);
  close(out_fd);
  close(err_fd);
  return r;
}
}  // namespace

ProcessResult run_process(const std::vector<std::string>& argv, double timeout_seconds) {
  return run_any(argv, timeout_seconds, {});
}

ProcessResult run_confined_process(const std::vector<std::string>& argv, double timeout_seconds,
                                   const sandbox::CompilerPolicy& policy, const std::string& tmpdir) {
  ProcessResult r;
  const std::string launcher = confine_program();
  if (launcher.empty()) {
    r.spawn_error = "cannot start it confined: no kaudit_confine program (set KAUDIT_CONFINE, or keep it beside kaudit)";
    return r;
  }
  const std::string program = argv.empty() ? std::string() : find_program(argv[0]);
  if (program.empty()) {
    r.spawn_error = argv.empty() ? "empty command" : std::strerror(ENOENT);
    return r;
  }
  std::vector<std::string> full = {launcher};
  for (const auto& p : policy.read_paths) full.insert(full.end(), {"--read", p});
  for (const auto& p : policy.write_dirs) full.insert(full.end(), {"--write", p});
  const auto number = [](double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.0f", v);
    return std::string(buf);
  };
  if (policy.cpu_seconds > 0) full.insert(full.end(), {"--cpu", number(std::ceil(policy.cpu_seconds))});
  if (policy.address_space > 0) full.insert(full.end(), {"--as", number(static_cast<double>(policy.address_space))});
  if (policy.file_size > 0) full.insert(full.end(), {"--fsize", number(static_cast<double>(policy.file_size))});
  full.push_back("--");
  full.push_back(program);
  full.insert(full.end(), argv.begin() + 1, argv.end());
  return run_any(full, timeout_seconds, environment_with_tmpdir(tmpdir));
}

namespace {
// "Z" (zombie) or "X" (dead) in /proc/<pid>/stat: nothing left to kill.
bool is_dead(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto close = stat.rfind(')');
  if (close == std::string::npos || close + 2 >= stat.size()) return true;  // gone
  const char state = stat[close + 2];
  return state == 'Z' || state == 'X';
}
pid_t parent_of(const std::string& stat_path) {
  std::ifstream in(stat_path);
  std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto close = stat.rfind(')');
  if (close == std::string::npos) return -1;
  std::istringstream rest(stat.substr(close + 2));
  std::string state;
  long ppid = -1;
  rest >> state >> ppid;
  return state == "Z" || state == "X" ? -1 : static_cast<pid_t>(ppid);
}
}  // namespace

std::vector<pid_t> child_processes(pid_t pid) {
  namespace fs = std::filesystem;
  std::vector<pid_t> children;
  std::error_code ec;
  const fs::path tasks = fs::path("/proc") / std::to_string(pid) / "task";
  bool have_children_files = false;
  for (fs::directory_iterator it(tasks, ec), end; !ec && it != end; it.increment(ec)) {
    std::ifstream in(it->path() / "children");
    if (!in) continue;
    have_children_files = true;
    for (long child; in >> child;)
      if (!is_dead(static_cast<pid_t>(child))) children.push_back(static_cast<pid_t>(child));
  }
  if (have_children_files || !fs::exists(tasks)) return children;
  for (fs::directory_iterator it("/proc", ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    if (parent_of(it->path().string() + "/stat") == pid) children.push_back(static_cast<pid_t>(std::stol(name)));
  }
  return children;
}

void kill_process_tree(pid_t root) {
  if (root <= 0) return;
  std::set<pid_t> frozen;
  for (int round = 0; round < 100; ++round) {
    std::vector<pid_t> todo = {root}, found;
    while (!todo.empty()) {
      const pid_t p = todo.back();
      todo.pop_back();
      found.push_back(p);
      for (pid_t c : child_processes(p)) todo.push_back(c);
    }
    bool new_ones = false;
    for (pid_t p : found)
      if (frozen.insert(p).second) {
        kill(p, SIGSTOP);
        new_ones = true;
      }
    if (!new_ones) break;
  }
  for (pid_t p : frozen) kill(p, SIGKILL);
  kill(-root, SIGKILL);
}

std::uint64_t quarter_of_machine_memory() {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page <= 0) return std::uint64_t(4) << 30;
  return static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page) / 4;
}

}  // namespace kaudit
