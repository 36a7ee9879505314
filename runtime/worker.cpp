#include "runtime/worker.h"

#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <fcntl.h>
#include <dirent.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include "common/parallel.h"
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>

#include "common/cache.h"
#include "common/files.h"
#include "common/process.h"
#include "common/sandbox.h"
#include "common/sha256.h"
#include "kaudit_cpu/abi.h"
#include "runtime/cpu/device_memory.h"
#include "runtime/cpu/guarded_allocator.h"
#include "runtime/cuda/gpu_run.h"
#include "runtime/host_buffers.h"
#include "runtime/shared_tensor.h"
#include "runtime/kernel_library.h"

namespace kaudit::runtime {
using nlohmann::json;

json launch_log_json(const std::vector<rt::LaunchRecord>& log) {
  json out = json::array();
  std::vector<std::uintptr_t> seen;  // streams other than the default one, in the order named
  for (const rt::LaunchRecord& l : log) {
    std::size_t stream = 0;
    if (l.stream != 0 && l.stream != 1) {  // 1: cudaStreamLegacy, the default stream by another name
      auto at = std::find(seen.begin(), seen.end(), l.stream);
      if (at == seen.end()) at = seen.insert(seen.end(), l.stream);
      stream = static_cast<std::size_t>(at - seen.begin()) + 1;
    }
    out.push_back({{"grid", {l.grid[0], l.grid[1], l.grid[2]}},
                   {"block", {l.block[0], l.block[1], l.block[2]}},
                   {"shared_bytes", l.shared_bytes},
                   {"stream", stream}});
  }
  return out;
}

json launch_log_from_reply(const json& reply) {
  json out = json::array();
  if (!reply.is_object() || !reply.contains("launch_log") || !reply.at("launch_log").is_array()) return out;
  const auto triple = [](const json& j, const char* key) {
    if (!j.contains(key) || !j.at(key).is_array() || j.at(key).size() != 3) return false;
    for (const auto& v : j.at(key))
      if (!v.is_number_unsigned()) return false;
    return true;
  };
  for (const json& l : reply.at("launch_log")) {
    if (out.size() >= rt::kLaunchLogLimit) break;
    if (!l.is_object() || !triple(l, "grid") || !triple(l, "block") || !l.contains("shared_bytes") ||
        !l.at("shared_bytes").is_number_unsigned() || !l.contains("stream") || !l.at("stream").is_number_unsigned())
      continue;
    out.push_back({{"grid", l.at("grid")}, {"block", l.at("block")}, {"shared_bytes", l.at("shared_bytes")},
                   {"stream", l.at("stream")}});
  }
  return out;
}

const char* to_string(Status s) {
  switch (s) {
    case Status::Ok: return "ok";
    case Status::Crash: return "crash";
    case Status::Timeout: return "timeout";
    case Status::BarrierDivergence: return "barrier-divergence";
    case Status::LaunchError: return "launch-error";
    case Status::OutOfBounds: return "out-of-bounds";
    case Status::Exception: return "exception";
    case Status::SandboxViolation: return "sandbox-violation";
  }
  return "crash";
}

std::filesystem::path self_executable() { return std::filesystem::read_symlink("/proc/self/exe"); }

std::filesystem::path worker_executable() {
  const std::filesystem::path self = self_executable(), beside = self.parent_path() / "kaudit_worker";
  return access(beside.c_str(), X_OK) == 0 ? beside : self;
}

Status status_from_name(const std::string& name) {
  static const std::map<std::string, Status> names = {
      {"ok", Status::Ok}, {"crash", Status::Crash}, {"barrier-divergence", Status::BarrierDivergence},
      {"launch-error", Status::LaunchError}, {"exception", Status::Exception},
      {"out-of-bounds", Status::OutOfBounds}, {"timeout", Status::Timeout},
      {"sandbox-violation", Status::SandboxViolation}};
  auto it = names.find(name);
  return it == names.end() ? Status::Crash : it->second;
}

namespace {

// ---- framing ------------------------------------------------------------------------------------
bool write_all(int fd, const void* data, std::size_t n) {
  const char* p = static_cast<const char*>(data);
  while (n > 0) {
    ssize_t w = write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    p += w;
    n -= (std::size_t)w;
  }
  return true;
}
bool write_blob(int fd, const void* data, std::uint64_t n) { return write_all(fd, &n, 8) && write_all(fd, data, n); }

// At most this many descriptors ride on one message (the kernel's limit per sendmsg is 253);
// further shared tensors of the same message travel as bytes.
constexpr std::size_t kMaxPassedFds = 200;

// Writes the 8-byte length that starts a message with `fds` attached to it (SCM_RIGHTS).
bool send_length_with_fds(int fd, std::uint64_t n, const std::vector<int>& fds) {
  iovec iov{&n, sizeof n};
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * kMaxPassedFds)] = {};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = CMSG_SPACE(sizeof(int) * fds.size());
  cmsghdr* c = CMSG_FIRSTHDR(&msg);
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_RIGHTS;
  c->cmsg_len = CMSG_LEN(sizeof(int) * fds.size());
  std::memcpy(CMSG_DATA(c), fds.data(), sizeof(int) * fds.size());
  for (;;) {
    const ssize_t w = sendmsg(fd, &msg, MSG_NOSIGNAL);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    // The descriptors went with the first byte; the rest of the length is plain bytes.
    return write_all(fd, reinterpret_cast<const char*>(&n) + w, sizeof n - (std::size_t)w);
  }
}

// Which of a request's tensors go to a worker as their files (runtime/shared_tensor.h): at most
// kMaxPassedFds, and to a CUDA worker only sealed ones (its process runs kernels' host code, which
// could open an unsealed spill file again for writing); the rest travel as bytes.
using FilesToPass = std::vector<std::optional<SharedBytes>>;
FilesToPass files_to_pass(const std::vector<at::Tensor>& tensors, bool cuda_worker) {
  FilesToPass files(tensors.size());
  std::size_t passed = 0;
  for (std::size_t i = 0; i < tensors.size() && passed < kMaxPassedFds; ++i)
    if (const auto s = shared_bytes(tensors[i]); s && (s->sealed || !cuda_worker)) {
      files[i] = s;
      ++passed;
    }
  return files;
}

// One message: a JSON header (with each tensor's dtype and shape) and the tensors' bytes. A tensor
// with an entry in `files` (a socket to a worker) goes as its descriptor instead, marked "shared"
// with its offset.
bool send_message(int fd, json header, const std::vector<at::Tensor>& tensors, const FilesToPass* files = nullptr,
                  ExchangeTimes* counts = nullptr) {
  json metas = json::array();
  std::vector<at::Tensor> contiguous;
  std::vector<int> fds;
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    const at::Tensor& t = tensors[i];
    json meta = {{"dtype", (int)t.scalar_type()}, {"shape", t.sizes().vec()}};
    if (files && (*files)[i]) {
      meta["shared"] = (*files)[i]->offset;
      fds.push_back((*files)[i]->fd);
      if (counts) counts->bytes_shared += t.nbytes();
      metas.push_back(meta);
      continue;
    }
    contiguous.push_back(t.contiguous());
    metas.push_back(meta);
  }
  header["tensors"] = metas;
  const std::string h = header.dump();
  if (fds.empty() ? !write_blob(fd, h.data(), h.size())
                  : !send_length_with_fds(fd, h.size(), fds) || !write_all(fd, h.data(), h.size()))
    return false;
  for (const auto& t : contiguous) {
    if (!write_blob(fd, t.data_ptr(), t.nbytes())) return false;
    if (counts) counts->bytes_sent += t.nbytes();
  }
  return true;
}

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

// Reads one message; on the parent side `deadline` bounds the wait (worker hangs).
enum class ReadResult { Ok, Eof, Timeout, Bad };
struct Reader {
  int fd;
  int err_fd = -1;
  std::string* err_tail = nullptr;
  std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
  HostBuffers* buffers = nullptr;  // where large tensors are read into (else ATen's allocator)
  // A worker's request socket: tensors may come as descriptors of shared files, mapped read-only
  // (copied into this process's memory instead with copy_shared: a CPU run may write its inputs).
  bool takes_fds = false;
  bool copy_shared = false;
  std::vector<int> fds = {};  // received, not yet taken by a tensor

  ~Reader() { close_fds(); }
  void close_fds() {
    for (int f : fds) close(f);
    fds.clear();
  }

  void drain_stderr() {
    if (err_fd < 0 || !err_tail) return;
    char buf[4096];
    for (;;) {
      ssize_t n = read(err_fd, buf, sizeof buf);
      if (n <= 0) break;
      err_tail->append(buf, (std::size_t)n);
      if (err_tail->size() > 8192) err_tail->erase(0, err_tail->size() - 4096);
    }
  }
  ReadResult wait_readable() {
    for (;;) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
      if (deadline != std::chrono::steady_clock::time_point::max() && left <= 0) return ReadResult::Timeout;
      pollfd fds[2] = {{fd, POLLIN, 0}, {err_fd, POLLIN, 0}};
      int timeout = deadline == std::chrono::steady_clock::time_point::max() ? -1 : (int)std::min<long long>(left, 1000);
      int rc = poll(fds, err_fd >= 0 ? 2 : 1, timeout);
      if (rc < 0 && errno != EINTR) return ReadResult::Bad;
      if (err_fd >= 0 && (fds[1].revents & POLLIN)) drain_stderr();
      if (fds[0].revents & (POLLIN | POLLHUP | POLLERR)) return ReadResult::Ok;
    }
  }
  ReadResult read_exact(void* data, std::size_t n) {
    char* p = static_cast<char*>(data);
    while (n > 0) {
      ReadResult w = wait_readable();
      if (w != ReadResult::Ok) return w;
      ssize_t r;
      if (takes_fds) {
        iovec iov{p, n};
        alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * kMaxPassedFds)];
        msghdr msg{};
        msg.msg_iov = &iov;
        msg.msg_iovlen = 1;
        msg.msg_control = control;
        msg.msg_controllen = sizeof control;
        r = recvmsg(fd, &msg, MSG_CMSG_CLOEXEC);
        if (r < 0 && errno == EINTR) continue;
        if (r > 0)
          for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c))
            if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
              const std::size_t count = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
              for (std::size_t i = 0; i < count; ++i) {
                int received;
                std::memcpy(&received, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
                fds.push_back(received);
              }
            }
        if (r > 0 && (msg.msg_flags & MSG_CTRUNC)) return ReadResult::Bad;  // descriptors were lost
      } else {
        r = read(fd, p, n);
        if (r < 0 && errno == EINTR) continue;
      }
      if (r <= 0) return ReadResult::Eof;
      p += r;
      n -= (std::size_t)r;
    }
    return ReadResult::Ok;
  }
  ReadResult read_message(json& header, std::vector<at::Tensor>& tensors) {
    std::uint64_t n = 0;
    ReadResult r = read_exact(&n, 8);
    if (r != ReadResult::Ok) return r;
    if (n > (1u << 30)) return ReadResult::Bad;
    std::string h(n, '\0');
    if ((r = read_exact(h.data(), n)) != ReadResult::Ok) return r;
    header = json::parse(h, nullptr, false);
    if (header.is_discarded() || !header.is_object()) return ReadResult::Bad;
    // A message may be forged by kernel code (the runner rejects it then): one that names
    // impossible tensors is malformed, not an exception in the runner.
    try {
      const json metas = header.value("tensors", json::array());
      if (!metas.is_array()) return ReadResult::Bad;
      for (const auto& m : metas) {
        std::vector<std::int64_t> shape = m.at("shape").get<std::vector<std::int64_t>>();
        const int dtype = m.at("dtype").get<int>();
        if (dtype < 0 || dtype >= (int)at::ScalarType::NumOptions) return ReadResult::Bad;
        if (m.contains("shared")) {
          if (!takes_fds || fds.empty()) return ReadResult::Bad;
          const int shared_fd = fds.front();
          fds.erase(fds.begin());
          std::string why;
          std::optional<at::Tensor> mapped =
              map_shared(shared_fd, m.at("shared").get<std::size_t>(), shape, (at::ScalarType)dtype, why);
          close(shared_fd);  // the mapping keeps the file
          if (!mapped) {
            std::fprintf(stderr, "kaudit: %s\n", why.c_str());
            return ReadResult::Bad;
          }
          if (copy_shared) {
            at::Tensor copy = buffers ? buffers->empty(shape, (at::ScalarType)dtype)
                                      : at::empty(shape, at::TensorOptions().dtype((at::ScalarType)dtype));
            copy.copy_(*mapped);
            mapped = copy;
          }
          tensors.push_back(*mapped);
          continue;
        }
        at::Tensor t = buffers ? buffers->empty(shape, (at::ScalarType)dtype)
                               : at::empty(shape, at::TensorOptions().dtype((at::ScalarType)dtype));
        std::uint64_t bytes = 0;
        if ((r = read_exact(&bytes, 8)) != ReadResult::Ok) return r;
        if (bytes != t.nbytes()) return ReadResult::Bad;
        if ((r = read_exact(t.data_ptr(), bytes)) != ReadResult::Ok) return r;
        tensors.push_back(t);
      }
    } catch (const std::exception&) {
      return ReadResult::Bad;
    }
    if (!fds.empty()) {  // more descriptors than shared tensors: not the protocol
      close_fds();
      return ReadResult::Bad;
    }
    return ReadResult::Ok;
  }
};

// ---- worker side --------------------------------------------------------------------------------
// The zygote's private, sealed copies of kernel libraries, made before the run's process is forked
// (the run itself can open no path: common/sandbox.h). A library whose bytes do not match the
// digest recorded next to it when it was built (common/cache.h) is not copied: the run reports
// the mismatch. A cache file changed or truncated later cannot change or fault the copy, and the
// seals (no write, grow or shrink) keep a run from changing the copy another run will load.
class LibraryCopies {
 public:
  struct Copy {
    int fd = -1;
    std::string error;  // why there is no copy
  };
  // Keyed by the file's identity too: a library the runner rebuilt (a new file renamed over a
  // damaged one) is copied again, not served from the copy made before.
  const Copy& get(const std::string& path) {
    std::string key = path;
    struct stat st{};
    if (stat(path.c_str(), &st) == 0)
      key += "\n" + std::to_string(st.st_dev) + ":" + std::to_string(st.st_ino) + ":" + std::to_string(st.st_size) +
             ":" + std::to_string(st.st_mtim.tv_sec) + "." + std::to_string(st.st_mtim.tv_nsec);
    // A copy that failed (a descriptor or memory short for a moment) is tried again, not kept as
    // the answer for every later run of the library in this process.
    if (auto it = copies_.find(key); it != copies_.end()) return it->second.fd >= 0 ? it->second : it->second = make(path);
    if (copies_.size() >= kMaxCopies) clear();  // an audit visits thousands: keep a bounded set
    return copies_[key] = make(path);
  }
  // Copies held. Past kMaxCopies the next new library closes them all, and their descriptor
  // numbers are used again: a process that has dlopen()ed "/proc/self/fd/N" must not live to see
  // that, as dlopen() would return the library first loaded under that name (glibc matches
  // loaded objects by name first). A CPU worker's runs each load one library in a fresh child;
  // a CUDA context's process, which keeps what it loads, ends first (kGpuLibrariesPerContext).
  std::size_t size() const { return copies_.size(); }
  static constexpr std::size_t kGpuLibrariesPerContext = 96;
  // Every copy's descriptor but `keep`'s (a run needs its own library only).
  void close_all_but(int keep) const {
    for (const auto& [key, copy] : copies_)
      if (copy.fd >= 0 && copy.fd != keep) close(copy.fd);
  }

 private:
  static constexpr std::size_t kMaxCopies = 128;
  static_assert(kGpuLibrariesPerContext + 1 < kMaxCopies);
  static Copy make(const std::string& path) {
    Copy c;
    const auto bytes = read_file(path);
    if (!bytes) {
      c.error = "cannot read the kernel library " + path;
      return c;
    }
    if (const auto recorded = read_file(cache::digest_path(path)); recorded && recorded->size() >= 64 &&
                                                                    recorded->substr(0, 64) != sha256_hex(*bytes)) {
      c.error = "the kernel library " + path +
                " does not match the digest recorded when it was built (a damaged cache entry)";
      return c;
    }
    const int fd = memfd_create("kaudit-kernel", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (fd < 0 || !write_all(fd, bytes->data(), bytes->size()) ||
        fcntl(fd, F_ADD_SEALS, F_SEAL_WRITE | F_SEAL_GROW | F_SEAL_SHRINK | F_SEAL_SEAL) != 0) {
      c.error = "cannot make a sealed copy of the kernel library " + path + ": " + std::strerror(errno);
      if (fd >= 0) close(fd);
      return c;
    }
    c.fd = fd;
    return c;
  }
  void clear() {
    for (auto& [key, copy] : copies_)
      if (copy.fd >= 0) close(copy.fd);
    copies_.clear();
  }
  std::map<std::string, Copy> copies_;
};

json serve_one(const json& req, std::vector<at::Tensor>& tensors, std::vector<at::Tensor>& outputs,
               WorkerContext& context, std::uint64_t thread_budget) {
  const KernelLibrary& library = context.library(req.at("library").get<std::string>());
  rt::RunOptions opts;
  opts.schedule = req.value("schedule", std::string("in-order")) == "reversed" ? rt::Schedule::Reversed : rt::Schedule::InOrder;
  opts.serial_blocks = req.value("serial_blocks", false);
  opts.active_mutant = req.value("mutant", 0);
  opts.thread_budget = thread_budget;
  std::vector<EntryArg> args;
  for (const auto& a : req.at("args")) {
    const int kind = a.at("kind").get<int>();
    if (kind == (int)EntryArg::Kind::Tensor) args.push_back(EntryArg::of(tensors.at(a.at("tensor").get<std::size_t>())));
    else if (kind == (int)EntryArg::Kind::Double) args.push_back(EntryArg::of_double(a.at("value").get<double>()));
    else if (kind == (int)EntryArg::Kind::Bool) args.push_back(EntryArg::of_bool(a.at("value").get<std::int64_t>() != 0));
    else args.push_back(EntryArg::of_int(a.at("value").get<std::int64_t>()));
  }
  EntryResult r;
  bool first_call_failed = false;
  if (const auto fc = req.find("first_call"); fc != req.end()) {
    // The second-call probe (RunRequest::first_call): the same buffers, other values first.
    std::vector<at::Tensor> own;
    std::size_t k = 0;
    for (auto& a : args) {
      if (a.kind != EntryArg::Kind::Tensor) continue;
      const at::Tensor& first = tensors.at(fc->at(k++).get<std::size_t>());
      if (!first.sizes().equals(a.tensor.sizes()) || first.scalar_type() != a.tensor.scalar_type())
        throw std::invalid_argument("the first call's tensor " + std::to_string(k - 1) + " is not of its argument's shape and dtype");
      own.push_back(a.tensor.clone());
      a.tensor.copy_(first);
    }
    r = library.call(args, opts);
    first_call_failed = r.threw || r.fault.kind != rt::FaultKind::None;
    if (!first_call_failed) {
      k = 0;
      for (auto& a : args)
        if (a.kind == EntryArg::Kind::Tensor) a.tensor.copy_(own.at(k++));
      r = library.call(args, opts);
    }
  } else {
    r = library.call(args, opts);
  }
  json resp;
  if (r.fault.kind == rt::FaultKind::LaunchError) resp = {{"status", "launch-error"}, {"message", r.fault.message}};
  else if (r.fault.kind == rt::FaultKind::BarrierDivergence) resp = {{"status", "barrier-divergence"}, {"message", r.fault.message}};
  else if (r.fault.kind == rt::FaultKind::DeviceException) resp = {{"status", "crash"}, {"message", r.fault.message}};
  else if (r.fault.kind == rt::FaultKind::WorkBudget)
    resp = {{"status", "timeout"}, {"thread_budget", true}, {"message", r.fault.message}};
  else if (r.threw) resp = {{"status", "exception"}, {"message", r.message}};
  else resp = {{"status", "ok"}, {"message", ""}};
  resp["launches"] = r.launches;
  resp["library_calls"] = r.library_calls;
  resp["launch_log"] = launch_log_json(r.launch_log);
  if (first_call_failed) resp["first_call_failed"] = true;
  if (resp["status"] == "ok") outputs = std::move(r.outputs);
  return resp;
}

// The CPU seconds a run may use (0: no CPU-time limit, only the parent's wall clock).
// A GPU run's time is the device's, not the CPU's: CUDA workers keep the wall clock.
double cpu_limit_seconds(const WorkerLimits& limits) {
  return limits.cpu_time && !limits.cuda ? limits.timeout_seconds : 0;
}

// A run's CPU-time budget, enforced in the process that runs it (the zygote's child): a timer on
// the process CPU clock, armed per request. On expiry the child exits with kCpuTimeoutExitCode
// and the zygote reports a timeout, as it reports a crash.
constexpr int kCpuTimeoutExitCode = 87;

void on_cpu_budget_spent(int) {
  static const char msg[] = "kaudit: the run used up its CPU-time budget\n";
  ssize_t ignored = write(2, msg, sizeof msg - 1);
  (void)ignored;
  _exit(kCpuTimeoutExitCode);
}

class CpuBudget {
 public:
  // seconds <= 0: no budget (arm and disarm do nothing).
  explicit CpuBudget(double seconds) : seconds_(seconds) {
    if (seconds_ <= 0) return;
    sigevent ev{};
    ev.sigev_notify = SIGEV_SIGNAL;
    ev.sigev_signo = SIGXCPU;
    has_timer_ = timer_create(CLOCK_PROCESS_CPUTIME_ID, &ev, &timer_) == 0;
  }
  ~CpuBudget() {
    if (has_timer_) timer_delete(timer_);
  }
  CpuBudget(const CpuBudget&) = delete;
  CpuBudget& operator=(const CpuBudget&) = delete;
  void arm() { set(seconds_); }
  void disarm() { set(0); }

 private:
  void set(double seconds) {
    if (!has_timer_) return;
    itimerspec spec{};
    spec.it_value.tv_sec = static_cast<time_t>(seconds);
    spec.it_value.tv_nsec = static_cast<long>((seconds - static_cast<double>(spec.it_value.tv_sec)) * 1e9);
    timer_settime(timer_, 0, &spec, nullptr);  // relative: seconds of CPU time from now
  }
  double seconds_;
  timer_t timer_{};
  bool has_timer_ = false;
};

// The two words a run's process shares with the zygote: how far a request that runs several
// kernels got (WorkerContext::set_progress), reported with the run's death, and 1 + the system
// call the sandbox stopped (common/sandbox.h).
struct SharedWords {
  std::uint64_t progress;
  std::uint64_t denied_syscall;
};

// Serves one request in the process forked for it, under the sandbox, and writes the reply to
// `reply_fd` (the zygote relays it to the runner). Returns the process's exit code: 0 after the
// reply, 4 when it cannot be written, sandbox::kConfineFailedExitCode when the sandbox cannot be
// applied (the kernel never runs unconfined).
int serve_in_child(const json& req, std::vector<at::Tensor>& tensors, const std::string& library_path,
                   const LibraryCopies::Copy& copy, int reply_fd, volatile SharedWords* shared,
                   const WorkerLimits& limits, const std::map<std::string, RequestHandler>& handlers) {
  CpuBudget budget(cpu_limit_seconds(limits));
  if (!sandbox::disabled_by_user()) {
    sandbox::Policy policy;
    // The CPU clock's backstop, for a kernel that disarms its timer: the runner's wall-clock
    // backstop for the request, as CPU time.
    if (limits.cpu_time)
      policy.cpu_seconds = kWallBackstopFactor * limits.timeout_seconds * std::max(1, req.value("runs", 1)) +
                           kWallBackstopSeconds;
    policy.violation_word = &shared->denied_syscall;
    if (const std::string error = sandbox::confine_untrusted_run(policy); !error.empty()) {
      std::fprintf(stderr, "kaudit: cannot confine the run: %s\n", error.c_str());
      return sandbox::kConfineFailedExitCode;
    }
  }
  std::unique_ptr<KernelLibrary> loaded;
  WorkerContext context;
  context.library = [&](const std::string& path) -> const KernelLibrary& {
    if (path != library_path) throw std::runtime_error("the request names a second kernel library " + path);
    if (copy.fd < 0) throw std::runtime_error(copy.error);
    if (!loaded) loaded = std::make_unique<KernelLibrary>("/proc/self/fd/" + std::to_string(copy.fd));
    return *loaded;
  };
  context.rearm_cpu_budget = [&] { budget.arm(); };
  context.set_progress = [shared](std::uint64_t step) { shared->progress = step; };
  context.limits = &limits;
  json resp;
  std::vector<at::Tensor> outputs;
  budget.arm();
  try {
    const std::string kind = req.value("kind", std::string());
    if (kind.empty()) {
      resp = serve_one(req, tensors, outputs, context, limits.thread_budget);
    } else {
      auto handler = handlers.find(kind);
      if (handler == handlers.end()) throw std::runtime_error("the worker has no handler for requests of kind " + kind);
      resp = handler->second(req, tensors, outputs, context);
    }
  } catch (const std::exception& e) {
    resp = {{"status", "exception"}, {"message", e.what()}};
    outputs.clear();
  }
  budget.disarm();
  // Free the inputs before replying, so the memory checker's end-of-life check of a tensor the
  // kernel wrote past fails this run.
  tensors.clear();
  return send_message(reply_fd, resp, outputs) ? 0 : 4;
}

}  // namespace

namespace {
// Closes every descriptor but 0, 1, 2 and `keep` (the protocol's), and marks the kept ones
// close-on-exec: nothing the runner's process had open reaches kernel code, and an exec from
// kernel code takes no protocol descriptor with it.
void close_other_descriptors(std::initializer_list<int> keep) {
  std::vector<int> open;
  if (DIR* d = opendir("/proc/self/fd")) {
    const int own = dirfd(d);
    while (const dirent* e = readdir(d)) {
      if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
      const int fd = std::atoi(e->d_name);
      if (fd > 2 && fd != own && std::find(keep.begin(), keep.end(), fd) == keep.end()) open.push_back(fd);
    }
    closedir(d);
  }
  for (int fd : open) close(fd);
  for (int fd : keep) fcntl(fd, F_SETFD, FD_CLOEXEC);
}

// Kills and reaps every child of this process: the processes a kernel left behind, which this
// process (a subreaper) adopted when their parents died.
void kill_adopted_children() {
  for (int round = 0; round < 16; ++round) {
    const std::vector<pid_t> children = child_processes(getpid());
    if (children.empty()) break;
    for (pid_t c : children) kill_process_tree(c);
    for (pid_t c : children) waitpid(c, nullptr, 0);
  }
  while (waitpid(-1, nullptr, WNOHANG) > 0) {
  }
}

// A worker's exits for failures of kaudit's own machinery: a request it could not read (no memory
// for its tensors, a shared tensor it could not map), a reply it could not send, a pipe, fork or
// mapping it could not make. A CPU worker's zygote runs no kernel code, so from a CPU worker these
// codes are never a kernel's doing: the runner repeats the run on a fresh worker and, if it fails
// again, says so instead of blaming the kernel (IsolatedRunner::collect_death). A CUDA worker's
// context process runs the kernel's host code, which could exit with any code, so there they
// count as the kernel's.
constexpr int kRequestUnreadableExitCode = 3;
constexpr int kReplyUnsentExitCode = 4;
constexpr int kNoResourcesExitCode = 5;

// How a CUDA context's process tells its zygote that a run broke the context (after replying).
constexpr int kContextLostExitCode = 89;

// One CUDA context's life, in a process the CUDA worker's zygote forked: says ready once the
// context exists, then serves requests on it until the input ends (0) or a run breaks it
// (kContextLostExitCode, after the reply).
int serve_gpu_context(int in_fd, int out_fd, const std::string& nonce, const WorkerLimits& limits,
                      const std::map<std::string, RequestHandler>& handlers) {
  // The harness's host work runs on ATen's CPU threads (copies, ATen operators) and on kaudit's
  // pool (the comparisons, oracle/host_loop.h), each as many as there are cores unless told: with
  // one pool per worker and many workers, that oversubscribes the cores, and two workers got less
  // done than one (measured on the H200: docs/RESULTS.md, "The CUDA backend").
  // WorkerLimits::threads gives each its share of both.
  if (limits.threads > 0) ::at::set_num_threads(limits.threads);
  std::unique_ptr<parallel::Limit> pool_limit;
  if (limits.threads > 0) pool_limit = std::make_unique<parallel::Limit>(limits.threads);
  cuda::GpuRunner gpu(limits.gpu_memory_fraction);
  if (const std::string e = gpu.warm_up(); !e.empty()) std::fprintf(stderr, "kaudit worker: %s\n", e.c_str());
  if (!send_message(out_fd, {{"ready", true}, {"nonce", nonce}}, {})) return kReplyUnsentExitCode;
  LibraryCopies libraries;
  // Inputs read and outputs copied back into kept buffers (runtime/host_buffers.h): at native
  // shapes each is hundreds of MB, every run. Up to 2 GiB kept per context: a run's input and
  // output several times over, while a harness request's larger payload is freed after it.
  HostBuffers buffers(16u << 20, 2ull << 30);
  gpu.set_host_buffers(&buffers);
  Reader requests{in_fd};
  requests.buffers = &buffers;
  requests.takes_fds = true;  // inputs the pool shares are mapped, read-only, not copied
  // KAUDIT_GPU_KEEP_CACHE=1, for measuring what emptying costs only: the allocator keeps its blocks
  // between harness requests, so a request may read what an earlier kernel left (not a real
  // checker's state: docs/ORACLES.md).
  const char* keep = std::getenv("KAUDIT_GPU_KEEP_CACHE");
  const bool empty_cache_per_request = !(keep && std::string(keep) == "1");
  for (;;) {
    json req;
    std::vector<at::Tensor> tensors, outputs;
    const ReadResult r = requests.read_message(req, tensors);
    if (r == ReadResult::Eof) return 0;
    if (r != ReadResult::Ok) return kRequestUnreadableExitCode;
    const auto served_from = std::chrono::steady_clock::now();
    const std::string library_path = req.value("library", std::string());
    json reply;
    bool context_lost = false;
    // The sealed copy of a library, opened once per worker; throws with why it cannot be had.
    const auto load_path = [&](const std::string& path) {
      const LibraryCopies::Copy& copy = libraries.get(path);
      if (copy.fd < 0) throw std::runtime_error(copy.error);
      return "/proc/self/fd/" + std::to_string(copy.fd);
    };
    try {
      if (req.contains("kind")) {
        const std::string kind = req.value("kind", std::string());
        const auto handler = handlers.find(kind);
        if (handler == handlers.end()) throw std::runtime_error("request '" + kind + "' is not served by the CUDA backend");
        WorkerContext context;
        context.limits = &limits;
        context.gpu_prepare = [&](const std::string& path) {
          gpu.prepare(load_path(path), path);
          if (empty_cache_per_request) gpu.empty_cache();
        };
        context.gpu_call = [&](const std::string& path, int mutant, const std::vector<EntryArg>& args,
                               std::vector<at::Tensor>& outs, bool& lost) {
          json r = gpu.call(load_path(path), path, mutant, args, outs, lost);
          context_lost = context_lost || lost;
          return r;
        };
        reply = handler->second(req, tensors, outputs, context);
      } else {
        reply = gpu.run(load_path(library_path), library_path, req, tensors, outputs, context_lost);
      }
    } catch (const std::exception& e) {
      reply = {{"status", "exception"}, {"message", e.what()}};
      outputs.clear();
    }
    if (!context_lost && libraries.size() >= LibraryCopies::kGpuLibrariesPerContext) {
      // This process keeps every library it loaded; the next context's process starts without
      // them, before a descriptor number could be used again (LibraryCopies::size).
      context_lost = true;
    }
    if (!context_lost) {
      // A request whose work broke the context without its own checks seeing it (an exception
      // raised by a CUDA call after the kernel's run, for one) must not leave it to the next
      // request: that one would fail, and be blamed, whatever its kernel does.
      if (const std::string e = gpu.context_error(); !e.empty()) {
        context_lost = true;
        std::fprintf(stderr, "kaudit worker: the CUDA context is unusable after this request (%s): a fresh one is made\n",
                     e.c_str());
      }
    }
    reply["seq"] = req.value("seq", std::uint64_t{0});
    reply["nonce"] = nonce;
    reply["served_seconds"] = seconds_since(served_from);
    if (context_lost) reply["worker_ends"] = true;  // the runner starts the next run on a fresh worker
    if (!send_message(out_fd, reply, outputs)) return kReplyUnsentExitCode;
    if (context_lost) return kContextLostExitCode;
  }
}

// A CUDA worker (WorkerLimits::cuda). A context a run broke cannot be repaired, and a CUDA
// process cannot fork once the driver is initialised; so this process confines itself, loads
// libtorch's CUDA part without touching the device, and forks one process per context. When a
// run breaks a context, that process replies and exits, and the next is forked here and says
// ready on the same pipes: the runner keeps its worker (IsolatedRunner::exchange_once), and a
// restart costs a context, not a new kaudit process loading libtorch. A context's process that
// dies without a reply ends the worker with the same status, as if it were the worker: the
// runner then reports the death and starts a new worker.
// (A spare context made while the other serves was tried on the H200 and left out: with 16
// workers, the restarts of a kernel whose mutants crash often were no faster, as contexts are
// created one at a time; docs/ARCHITECTURE.md, "The CUDA backend".)
int serve_gpu(int in_fd, int out_fd, const std::string& nonce, const WorkerLimits& limits,
              const std::map<std::string, RequestHandler>& handlers) {
  if (!sandbox::disabled_by_user()) {
    sandbox::enter_private_network();
    if (const std::string e = sandbox::confine_gpu_worker(); !e.empty()) {
      std::fprintf(stderr, "kaudit worker: cannot confine the GPU worker: %s\n", e.c_str());
      return sandbox::kConfineFailedExitCode;
    }
  }
  // A failure here is said again by the context's warm-up, and by the first run.
  if (const std::string e = cuda::GpuRunner::load_cuda_runtime(); !e.empty())
    std::fprintf(stderr, "kaudit worker: %s\n", e.c_str());
  const pid_t zygote = getpid();
  for (;;) {
    const pid_t child = fork();
    if (child < 0) return kNoResourcesExitCode;
    if (child == 0) {
      prctl(PR_SET_PDEATHSIG, SIGKILL);  // the zygote is single-threaded: this fires only when it dies
      if (getppid() != zygote) _exit(0);
      // _exit: a broken context's teardown in static destructors could hang or fail.
      _exit(serve_gpu_context(in_fd, out_fd, nonce, limits, handlers));
    }
    int status = 0;
    while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
    }
    kill_adopted_children();  // what its runs left behind
    if (WIFEXITED(status) && WEXITSTATUS(status) == kContextLostExitCode) continue;
    if (WIFSIGNALED(status)) {
      std::signal(WTERMSIG(status), SIG_DFL);
      raise(WTERMSIG(status));
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : kNoResourcesExitCode;
  }
}
}  // namespace

int worker_main(const WorkerLimits& limits, const std::map<std::string, RequestHandler>& handlers) {
  const double cpu_limit = cpu_limit_seconds(limits);
  // The protocol runs on private copies of stdin and stdout; fd 0 becomes /dev/null and fd 1
  // stderr, so device printf cannot corrupt the protocol. Everything else is closed.
  const int in_fd = fcntl(0, F_DUPFD_CLOEXEC, 3);
  const int out_fd = fcntl(1, F_DUPFD_CLOEXEC, 3);
  if (in_fd < 0 || out_fd < 0) return kNoResourcesExitCode;
  if (const int null_fd = open("/dev/null", O_RDONLY); null_fd >= 0) {
    dup2(null_fd, 0);
    if (null_fd != 0) close(null_fd);
  }
  dup2(2, 1);
  close_other_descriptors({in_fd, out_fd});
  // Each kernel library copied keeps a descriptor (LibraryCopies): as many as allowed.
  if (rlimit files{}; getrlimit(RLIMIT_NOFILE, &files) == 0 && files.rlim_cur < files.rlim_max) {
    files.rlim_cur = files.rlim_max;
    setrlimit(RLIMIT_NOFILE, &files);
  }
  signal(SIGPIPE, SIG_IGN);
  // The first message is the runner's nonce for this worker (given on the pipe, not on the
  // command line or in the environment, which /proc shows to every process of the user). Every
  // reply echoes it with its request's sequence number; runtime/worker.h says what that stops.
  std::string nonce;
  {
    Reader init{in_fd};
    init.takes_fds = true;
    json hello;
    std::vector<at::Tensor> none;
    if (init.read_message(hello, none) != ReadResult::Ok || !hello.contains("nonce") || !hello["nonce"].is_string())
      return kRequestUnreadableExitCode;
    nonce = hello["nonce"].get<std::string>();
  }
  // Processes a kernel leaves behind (fork, setsid, a double fork) are re-parented to this
  // process instead of init when their parent dies, so they stay in the worker's tree, where
  // the runner finds them after each reply and kills them all when it retires the worker.
  prctl(PR_SET_CHILD_SUBREAPER, 1);
  if (limits.cuda) return serve_gpu(in_fd, out_fd, nonce, limits, handlers);
  // No PR_SET_PDEATHSIG here: it fires when the runner's *thread* that started the worker ends,
  // and the audit starts workers on threads that end after each batch. When the runner's process
  // dies, the request pipe reaches end of input and the worker ends (killing what it adopted).
  if (limits.memcheck) rt::install_guarded_allocator();
  rt::install_device_memory();  // after the memory checker: it wraps the allocator installed before
  if (cpu_limit > 0) {
    struct sigaction sa{};
    sa.sa_handler = on_cpu_budget_spent;
    sa.sa_flags = SA_ONSTACK;  // the run may be on a fiber's small stack
    sigaction(SIGXCPU, &sa, nullptr);
  }
  std::unique_ptr<parallel::Limit> limit;
  if (limits.threads > 0)
    limit = std::make_unique<parallel::Limit>(limits.threads);
  // Every run forked from here inherits an empty network namespace (where the kernel allows it;
  // the seccomp filter and Landlock refuse sockets and TCP anyway).
  if (!sandbox::disabled_by_user()) sandbox::enter_private_network();
  LibraryCopies libraries;
  // Ready handshake: the parent's per-run time limit starts only once the worker is up (loading
  // libtorch can take seconds on a busy machine).
  if (!send_message(out_fd, {{"ready", true}, {"nonce", nonce}}, {})) return kReplyUnsentExitCode;
  // The loaded process is a zygote that never runs kernel code: it reads each request, forks a
  // fresh process for it (milliseconds, instead of the second a new worker spends loading
  // libtorch), which confines itself (common/sandbox.h), runs the request and writes its reply on
  // a pipe of its own; the zygote relays that reply, stamped with the nonce and the request's
  // sequence number, or reports the run's death. So no state of one run (a thread, a process, a
  // changed global, a forged message) reaches another run, and the runner's pipes are never in a
  // process that runs kernel code.
  void* shared_map = mmap(nullptr, sizeof(SharedWords), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (shared_map == MAP_FAILED) return kNoResourcesExitCode;
  auto* shared = static_cast<volatile SharedWords*>(shared_map);
  const pid_t zygote = getpid();
  Reader requests{in_fd};
  requests.takes_fds = true;
  requests.copy_shared = true;  // into this zygote's (guarded) memory: a run may write its inputs
  for (;;) {
    rt::reset_guarded_arena();  // the last run's tensors are gone: the next starts from scratch
    json req;
    std::vector<at::Tensor> tensors;
    const ReadResult r = requests.read_message(req, tensors);
    if (r == ReadResult::Eof) return 0;
    if (r != ReadResult::Ok) return kRequestUnreadableExitCode;
    const auto served_from = std::chrono::steady_clock::now();
    const std::uint64_t seq = req.value("seq", std::uint64_t{0});
    const std::string library_path = req.value("library", std::string());
    static const LibraryCopies::Copy kNoLibrary{-1, "the request names no kernel library"};
    const LibraryCopies::Copy& copy = library_path.empty() ? kNoLibrary : libraries.get(library_path);
    shared->progress = 0;
    shared->denied_syscall = 0;
    int reply_pipe[2];
    if (pipe2(reply_pipe, O_CLOEXEC) != 0) return kNoResourcesExitCode;
    const pid_t child = fork();
    if (child < 0) return kNoResourcesExitCode;
    if (child == 0) {
      // The run dies with the zygote (the zygote is single-threaded: its main thread lives as long
      // as it does). It holds no descriptor of the runner's pipes and no other run's library.
      prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (getppid() != zygote) _exit(0);
      close(in_fd);
      close(out_fd);
      close(reply_pipe[0]);
      libraries.close_all_but(copy.fd);
      _exit(serve_in_child(req, tensors, library_path, copy, reply_pipe[1], shared, limits, handlers));
    }
    close(reply_pipe[1]);
    Reader from_run{reply_pipe[0]};
    json reply;
    std::vector<at::Tensor> outputs;
    const ReadResult got = from_run.read_message(reply, outputs);
    // The reply is all the zygote takes from a run: once it is read, the process is done.
    // (A run that wrote something malformed is stopped too; one that closed its end without a
    // reply ends by itself, or on its CPU budget.)
    if (got != ReadResult::Eof) kill(child, SIGKILL);
    close(reply_pipe[0]);
    int status = 0;
    while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
    }
    kill_adopted_children();  // what the run left behind
    tensors.clear();
    if (got != ReadResult::Ok) {
      const auto exited = [&](int code) { return WIFEXITED(status) && WEXITSTATUS(status) == code; };
      if (got == ReadResult::Bad) {
        reply = {{"status", "sandbox-violation"}, {"message", "the run wrote a malformed reply"}};
      } else if (const std::uint64_t denied = shared->denied_syscall;
                 exited(sandbox::kViolationExitCode) || (WIFSIGNALED(status) && WTERMSIG(status) == SIGSYS)) {
        reply = {{"status", "sandbox-violation"},
                 {"message", denied ? "the sandbox denied the system call " + sandbox::syscall_name((long)denied - 1)
                                    : std::string("the sandbox denied a system call")}};
      } else if (exited(sandbox::kConfineFailedExitCode)) {
        reply = {{"status", "crash"}, {"message", "the run could not be confined, so the kernel did not run"}};
      } else if (exited(rt::kOutOfBoundsExitCode)) {
        reply = {{"status", "out-of-bounds"}, {"message", ""}};
      } else if (exited(rt::kIllegalAddressExitCode)) {
        reply = {{"status", "crash"}, {"message", "an illegal memory access was encountered"}};
      } else if (exited(kCpuTimeoutExitCode)) {
        char limit[32];
        std::snprintf(limit, sizeof limit, "%g", cpu_limit);
        reply = {{"status", "timeout"}, {"message", std::string("used more than ") + limit + " s of CPU time (run ended)"}};
      } else {
        reply = {{"status", "crash"},
                 {"message", WIFSIGNALED(status) ? std::string("kernel run killed by signal ") + strsignal(WTERMSIG(status))
                                                 : "kernel run exited with code " + std::to_string(WEXITSTATUS(status))}};
      }
      reply["progress"] = shared->progress;
      outputs.clear();
    }
    reply["seq"] = seq;
    reply["nonce"] = nonce;
    reply["served_seconds"] = seconds_since(served_from);
    if (!send_message(out_fd, reply, outputs)) return kReplyUnsentExitCode;
  }
}

// ---- parent side --------------------------------------------------------------------------------
constexpr int kStartupSeconds = 300;

namespace {
// 128 random bits, hex: the nonce a worker's replies must carry.
std::string random_nonce() {
  unsigned char bytes[16];
  std::size_t got = 0;
  while (got < sizeof bytes) {
    const ssize_t n = getrandom(bytes + got, sizeof bytes - got, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += static_cast<std::size_t>(n);
  }
  if (got < sizeof bytes) {  // no getrandom: /dev/urandom
    const int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    if (fd < 0 || read(fd, bytes, sizeof bytes) != (ssize_t)sizeof bytes)
      throw std::runtime_error("kaudit: no source of random bytes for the worker's nonce");
    close(fd);
  }
  static const char* hex = "0123456789abcdef";
  std::string s;
  for (unsigned char b : bytes) s += hex[b >> 4], s += hex[b & 15];
  return s;
}
}  // namespace

ExchangeTimes& ExchangeTimes::operator+=(const ExchangeTimes& o) {
  exchanges += o.exchanges;
  starts += o.starts;
  start += o.start;
  budget_wait += o.budget_wait;
  send += o.send;
  reply += o.reply;
  served += o.served;
  device_copies += o.device_copies;
  bytes_sent += o.bytes_sent;
  bytes_shared += o.bytes_shared;
  return *this;
}

ExchangeTimes ExchangeTimes::operator-(const ExchangeTimes& o) const {
  ExchangeTimes d = *this;
  d.exchanges -= o.exchanges;
  d.starts -= o.starts;
  d.start -= o.start;
  d.budget_wait -= o.budget_wait;
  d.send -= o.send;
  d.reply -= o.reply;
  d.served -= o.served;
  d.device_copies -= o.device_copies;
  d.bytes_sent -= o.bytes_sent;
  d.bytes_shared -= o.bytes_shared;
  return d;
}

IsolatedRunner::IsolatedRunner(std::filesystem::path worker_exe, WorkerLimits limits)
    : exe_(std::move(worker_exe)), limits_(limits) {
  signal(SIGPIPE, SIG_IGN);
  sandbox::report_missing_layers_once();
}
IsolatedRunner::~IsolatedRunner() { stop(); }

double IsolatedRunner::wall_limit_seconds(int runs) const {
  const double limit = limits_.timeout_seconds * std::max(1, runs);
  return cpu_limit_seconds(limits_) > 0 ? kWallBackstopFactor * limit + kWallBackstopSeconds : limit;
}

// The folder of empty stand-ins for the libraries a CPU worker maps and never uses, written next
// to the worker's executable at build time (runtime/worker_libs.py says which and why); "" when
// there is none or KAUDIT_WORKER_STANDINS=0. Each run is a fork of the worker's zygote, and fork,
// the run's page faults and its exit cost in proportion to the zygote's mappings: with Debian's
// libtorch the stand-ins take the worker from 296 libraries to 77 and a small run from about 6.7
// to 3.7 ms (bench/worker_bench). CUDA workers map everything: their libraries (the driver, the
// CUDA runtime and what they open at run time) were not checked against the stand-ins, and a
// CUDA worker serves many runs from one context.
std::string worker_library_standins(const std::filesystem::path& worker_exe) {
  if (const char* v = std::getenv("KAUDIT_WORKER_STANDINS"); v && std::strcmp(v, "0") == 0) return {};
  const std::filesystem::path dir = worker_exe.parent_path() / "worker-libs";
  std::error_code ec;
  return std::filesystem::is_regular_file(dir / "README", ec) ? dir.string() : std::string();
}

namespace {
// The environment a worker is started with: this process's, and
// - LD_BIND_NOW: every symbol is resolved once when the worker starts, not lazily in each child
//   forked for a run (lazy resolution would repeat in every child, across libtorch's libraries);
// - the stand-ins folder first on LD_LIBRARY_PATH (worker_library_standins);
// - for a CPU worker, glibc's malloc asked for transparent huge pages (glibc.malloc.hugetlb=1,
//   glibc 2.35 and later; nothing where THP is off): most of what a zygote's fork copies and a
//   run's exit tears down is the heap libtorch fills at start-up (about 37 MB, its operator
//   registry), which then takes a page-table entry per 2 MB instead of per 4 KB
//   (bench/worker_bench: 3.2 -> 2.8 ms a small run). KAUDIT_WORKER_HUGEPAGES=0 leaves it.
std::vector<std::string> worker_environment(const std::string& standins, bool huge_pages) {
  const auto has = [](const char* e, const char* name) { return std::strncmp(e, name, std::strlen(name)) == 0; };
  if (const char* v = std::getenv("KAUDIT_WORKER_HUGEPAGES"); v && std::strcmp(v, "0") == 0) huge_pages = false;
  std::vector<std::string> env;
  for (char** e = environ; *e; ++e) {
    // A worker's harness models PyTorch's caching allocator: PYTORCH_NO_CUDA_MEMORY_CACHING (kaudit's
    // own process sets it only for a moment, cuda/device.h; a user may have set it) would turn it off.
    if (has(*e, "LD_BIND_NOW=") || (!standins.empty() && has(*e, "LD_LIBRARY_PATH=")) ||
        (huge_pages && has(*e, "GLIBC_TUNABLES=")) || has(*e, "PYTORCH_NO_CUDA_MEMORY_CACHING="))
      continue;
    env.emplace_back(*e);
  }
  env.emplace_back("LD_BIND_NOW=1");
  if (!standins.empty()) {
    const char* path = std::getenv("LD_LIBRARY_PATH");
    env.push_back("LD_LIBRARY_PATH=" + standins + (path && *path ? ":" + std::string(path) : ""));
  }
  if (huge_pages) {
    const char* tunables = std::getenv("GLIBC_TUNABLES");
    env.push_back(std::string("GLIBC_TUNABLES=") + (tunables && *tunables ? std::string(tunables) + ":" : "") +
                  "glibc.malloc.hugetlb=1");
  }
  return env;
}
}  // namespace

bool IsolatedRunner::start(std::string& error) {
  // Requests go on a socket (in[1] here, in[0] the worker's stdin), which can carry the
  // descriptors of shared pool tensors (runtime/shared_tensor.h); replies and stderr on pipes.
  int in[2] = {-1, -1}, out[2] = {-1, -1}, err[2] = {-1, -1};
  const auto close_all = [&] {
    for (int fd : {in[0], in[1], out[0], out[1], err[0], err[1]})
      if (fd >= 0) close(fd);
  };
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, in) || pipe2(out, O_CLOEXEC) || pipe2(err, O_CLOEXEC)) {
    error = std::string("socketpair or pipe: ") + std::strerror(errno);
    close_all();
    return false;
  }
  shutdown(in[0], SHUT_WR);  // one way, as a pipe: the worker only reads its requests
  // Requests and replies carry tensors of hundreds of MB at native shapes: 1 MiB buffers (for a
  // pipe the unprivileged maximum, /proc/sys/fs/pipe-max-size) instead of 64 KiB move them in 16
  // times fewer wake-ups. Best effort: a smaller buffer only costs speed.
  (void)fcntl(out[1], F_SETPIPE_SZ, 1 << 20);
  const int socket_buffer = 1 << 20;
  (void)setsockopt(in[1], SOL_SOCKET, SO_SNDBUF, &socket_buffer, sizeof socket_buffer);
  const std::string exe = exe_.string(), threads = std::to_string(limits_.threads),
                    thread_budget = std::to_string(limits_.thread_budget);
  char cpu_limit[32];
  std::snprintf(cpu_limit, sizeof cpu_limit, "%.17g", cpu_limit_seconds(limits_));
  std::vector<const char*> argv = {exe.c_str(), "worker", "--threads", threads.c_str(), "--cpu-limit", cpu_limit,
                                   "--thread-budget", thread_budget.c_str()};
  if (limits_.memcheck) argv.push_back("--memcheck");
  char gpu_fraction[32];
  std::snprintf(gpu_fraction, sizeof gpu_fraction, "%.17g", limits_.gpu_memory_fraction);
  if (limits_.cuda) argv.insert(argv.end(), {"--cuda", "--gpu-memory-fraction", gpu_fraction});
  argv.push_back(nullptr);
  const rlim_t mem = limits_.cuda ? 0 : limits_.memory_bytes;
  std::vector<std::string> env_strings = worker_environment(limits_.cuda ? std::string() : worker_library_standins(exe_),
                                                          !limits_.cuda);
  std::vector<char*> envp;
  for (auto& e : env_strings) envp.push_back(e.data());
  envp.push_back(nullptr);
  pid_t pid = fork();
  if (pid < 0) {
    error = std::string("fork: ") + std::strerror(errno);
    close_all();
    return false;
  }
  if (pid == 0) {  // child: only async-signal-safe calls until exec
    setpgid(0, 0);  // a group of its own, so a kill reaches the children it forks for runs
    dup2(in[0], 0);
    dup2(out[1], 1);
    dup2(err[1], 2);
    rlimit rl{mem, mem};
    if (mem) setrlimit(RLIMIT_AS, &rl);
    rlimit core{0, 0};
    setrlimit(RLIMIT_CORE, &core);
    execve(argv[0], const_cast<char* const*>(argv.data()), envp.data());
    _exit(127);
  }
  setpgid(pid, pid);  // also here: a kill may come before the child's own call
  close(in[0]);
  close(out[1]);
  close(err[1]);
  fcntl(err[0], F_SETFL, fcntl(err[0], F_GETFL) | O_NONBLOCK);
  pid_ = pid;
  to_worker_ = in[1];
  from_worker_ = out[0];
  worker_err_ = err[0];
  stderr_tail_.clear();
  nonce_ = random_nonce();
  if (!send_message(to_worker_, {{"nonce", nonce_}}, {})) {
    error = "the worker did not take its nonce" + (stderr_tail_.empty() ? std::string() : ": " + stderr_tail_);
    stop();
    return false;
  }
  return await_ready(error);
}

bool IsolatedRunner::await_ready(std::string& error) {
  Reader reader{from_worker_, worker_err_, &stderr_tail_,
                std::chrono::steady_clock::now() + std::chrono::seconds(kStartupSeconds)};
  const auto started = std::chrono::steady_clock::now();
  ++times_.starts;
  json hello;
  std::vector<at::Tensor> none;
  if (reader.read_message(hello, none) != ReadResult::Ok || !hello.value("ready", false) ||
      hello.value("nonce", std::string()) != nonce_) {
    error = "the worker did not start within " + std::to_string(kStartupSeconds) + " s" +
            (stderr_tail_.empty() ? std::string() : ": " + stderr_tail_);
    stop();
    return false;
  }
  times_.start += seconds_since(started);
  return true;
}

void IsolatedRunner::stop() {
  if (pid_ > 0) {
    // The whole tree: the zygote, its serving child, and whatever a kernel left behind in
    // another process group or session (the zygote is a subreaper: they stay below it).
    kill_process_tree(pid_);
    waitpid(pid_, nullptr, 0);
  }
  for (int* fd : {&to_worker_, &from_worker_, &worker_err_})
    if (*fd >= 0) { close(*fd); *fd = -1; }
  pid_ = -1;
  awaiting_context_ = false;
}

namespace {
// The last 1500 bytes of a worker's stderr, without trailing blanks.
std::string trimmed_tail(const std::string& err) {
  std::string tail = err.size() > 1500 ? err.substr(err.size() - 1500) : err;
  while (!tail.empty() && (tail.back() == '\n' || tail.back() == ' ')) tail.pop_back();
  return tail;
}
}  // namespace

RunResult IsolatedRunner::collect_death(RunResult r, bool timed_out, int runs) {
  // The worker, its run's child and anything they started (a dead worker's children are gone).
  if (timed_out) kill_process_tree(pid_);
  int status = 0;
  waitpid(pid_, &status, 0);
  pid_ = -1;
  Reader drain{worker_err_, worker_err_, &stderr_tail_};
  drain.drain_stderr();
  const std::string tail = trimmed_tail(stderr_tail_);
  stop();
  if (timed_out) {
    r.status = Status::Timeout;
    r.message = "no result within " + std::to_string((int)wall_limit_seconds(runs)) + " s (worker killed)";
  } else if (WIFEXITED(status) && WEXITSTATUS(status) == rt::kOutOfBoundsExitCode) {
    r.status = Status::OutOfBounds;
    r.message = tail;
  } else if (const int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
             !limits_.cuda && (code == kRequestUnreadableExitCode || code == kReplyUnsentExitCode ||
                               code == kNoResourcesExitCode)) {
    r.status = Status::Crash;
    r.worker_failure = true;
    r.message = std::string("kaudit's worker failed, not the kernel: ") +
                (code == kRequestUnreadableExitCode ? "it could not read the request (the kernel did not run)"
                 : code == kReplyUnsentExitCode     ? "it could not send the run's reply"
                                                    : "it could not make a pipe, process or mapping") +
                " (worker exit code " + std::to_string(code) + ")";
    if (!tail.empty()) r.message += ": " + tail;
  } else {
    r.status = Status::Crash;
    r.message = WIFSIGNALED(status) ? std::string("worker killed by signal ") + strsignal(WTERMSIG(status))
                                    : "worker exited with code " + std::to_string(WEXITSTATUS(status));
    if (!tail.empty()) r.message += ": " + tail;
  }
  return r;
}

IsolatedRunner::Check IsolatedRunner::check_reply(const json& reply, std::string& violation) const {
  // Only a reply of this worker (its nonce) to this request (its sequence number) is an answer.
  // One to an earlier request, with the nonce, is stale (a child that died just after replying
  // is reported again by the zygote) and dropped; anything else did not come from the worker's
  // protocol code: a reply without a number, with another nonce, or for a request not sent yet.
  const auto seq = reply.find("seq");
  const auto nonce = reply.find("nonce");
  if (nonce == reply.end() || !nonce->is_string() || nonce->get<std::string>() != nonce_) {
    violation = "a reply without this worker's nonce";
    return Check::Violation;
  }
  if (seq == reply.end() || !seq->is_number_unsigned()) {
    violation = "a reply without a sequence number";
    return Check::Violation;
  }
  const std::uint64_t n = seq->get<std::uint64_t>();
  if (n < seq_) return Check::Stale;
  if (n > seq_) {
    violation = "a reply to request " + std::to_string(n) + ", which was never sent (the open one is " +
                std::to_string(seq_) + ")";
    return Check::Violation;
  }
  return Check::Current;
}

std::string IsolatedRunner::leftover_processes() const {
  // After a reply the worker's tree is the zygote and its serving child (for a CUDA worker, the
  // process of its context), nothing else: a process below the child, or a second child of the
  // zygote (adopted after its parent died), was left by the kernel that just ran.
  std::vector<pid_t> children = child_processes(pid_);
  std::vector<pid_t> extra;
  if (children.size() > 1) extra.assign(children.begin() + 1, children.end());
  for (pid_t c : children)
    for (pid_t g : child_processes(c)) extra.push_back(g);
  if (extra.empty()) return {};
  std::string pids;
  for (pid_t p : extra) pids += (pids.empty() ? "" : ", ") + std::to_string(p);
  return "the kernel left " + std::to_string(extra.size()) + " process(es) running after its run (pid " + pids + ")";
}

bool IsolatedRunner::drop_stale_replies(std::string& violation) {
  for (int dropped = 0; dropped < 8; ++dropped) {
    pollfd fd{from_worker_, POLLIN, 0};
    if (poll(&fd, 1, 0) <= 0 || !(fd.revents & POLLIN)) return true;  // nothing waiting
    Reader reader{from_worker_, worker_err_, &stderr_tail_,
                  std::chrono::steady_clock::now() + std::chrono::seconds(5)};
    json stale;
    std::vector<at::Tensor> ignored;
    if (reader.read_message(stale, ignored) != ReadResult::Ok) {
      violation = "a malformed message between requests";
      return false;
    }
    // A reply waiting before a request is sent can only be stale: one to the open request
    // (already answered) or beyond is not the worker's.
    ++seq_;
    const Check check = check_reply(stale, violation);
    --seq_;
    if (check == Check::Current) violation = "a reply to request " + std::to_string(seq_ + 1) + " before it was sent";
    if (check != Check::Stale) return false;
  }
  violation = "a stream of unrequested replies";
  return false;
}

bool IsolatedRunner::exchange_once(const json& req, const std::vector<at::Tensor>& tensors, int runs, Exchange& ex,
                                   std::string& violation) {
  if (pid_ >= 0 && awaiting_context_) {
    // A CUDA worker whose last run broke its context: its zygote forks a new one, which says
    // ready on the same pipes (runtime/worker.cpp, serve_gpu). If it does not, a new worker.
    awaiting_context_ = false;
    const pid_t worker = pid_;
    std::string error;
    if (!await_ready(error))  // it stopped the worker
      std::fprintf(stderr, "kaudit: worker %d gave no new CUDA context (%s): replaced\n", (int)worker, error.c_str());
  }
  if (pid_ < 0) {
    std::string error;
    if (!start(error)) {
      ex.status = Status::Crash;
      ex.message = "cannot start a worker: " + error;
      ex.worker_failure = true;
      start_failed_ = true;  // already a fresh worker's start: exchange() does not try again
      return true;
    }
  }
  stderr_tail_.clear();
  // Anything already waiting to be read is a reply to an earlier request (a child that died just
  // after replying, reported twice): drop it, or the reply to this request would be read as the
  // next one's, and the two sides could end up writing to each other at once. Anything else
  // waiting there was not written by the worker's protocol code.
  if (!drop_stale_replies(violation)) return false;
  json message = req;
  message["seq"] = ++seq_;
  message["runs"] = runs;  // the run's CPU backstop in the sandbox covers all of them
  RunResult death;
  const auto send_from = std::chrono::steady_clock::now();
  const FilesToPass files = files_to_pass(tensors, limits_.cuda);
  const bool sent = send_message(to_worker_, message, tensors, &files, &times_);
  // The wait for the reply starts the instant the send ends, so that send + reply covers, without
  // a gap, everything between the first byte sent and the reply read: the worker's own time
  // (served_seconds, from reading the request's last byte) lies inside that span, though it may
  // begin before this thread's write returns.
  const auto reply_from = std::chrono::steady_clock::now();
  times_.send += std::chrono::duration<double>(reply_from - send_from).count();
  ++times_.exchanges;
  if (!sent) {
    // Mostly a worker that died (a closed socket); but a send can also fail with the worker alive
    // (no memory for the descriptors in flight), and waiting for it to exit would wait forever.
    kill_process_tree(pid_);
    death = collect_death(death, false);
    // The worker never had the whole request, so this request's kernel did not run: whatever
    // ended the worker, the run is repeated on a fresh one (exchange()).
    if (!death.worker_failure)
      death.message = "kaudit could not send the request to its worker (the kernel did not run): " + death.message;
    death.status = Status::Crash;
    death.worker_failure = true;
  } else {
    Reader reader{from_worker_, worker_err_, &stderr_tail_,
                  std::chrono::steady_clock::now() + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                                         std::chrono::duration<double>(wall_limit_seconds(runs))),
                  &HostBuffers::for_replies()};
    json resp;
    std::vector<at::Tensor> outputs;
    ReadResult r = reader.read_message(resp, outputs);
    while (r == ReadResult::Ok) {
      const Check check = check_reply(resp, violation);
      if (check == Check::Violation) return false;
      if (check == Check::Current) break;
      resp = json();  // a stale reply: skip it
      outputs.clear();
      r = reader.read_message(resp, outputs);
    }
    times_.reply += seconds_since(reply_from);
    if (r == ReadResult::Ok) {
      // The worker's own account (kernel code could write anything here: only a statistic).
      const auto number = [&](const char* key) {
        const auto it = resp.find(key);
        return it != resp.end() && it->is_number() ? std::max(0.0, it->get<double>()) : 0.0;
      };
      times_.served += number("served_seconds");
      times_.device_copies += number("copy_seconds");
    }
    if (r == ReadResult::Ok) {
      if (std::string left = leftover_processes(); !left.empty()) {
        violation = std::move(left);
        return false;
      }
      ex.status = status_from_name(resp.value("status", "crash"));
      ex.message = resp.value("message", "");
      if (ex.status == Status::Crash || ex.status == Status::OutOfBounds) {
        // The run's child died: what it printed (the memory checker's report, a device assert).
        Reader drain{worker_err_, worker_err_, &stderr_tail_};
        drain.drain_stderr();
        const std::string tail = trimmed_tail(stderr_tail_);
        if (!tail.empty()) ex.message += ex.message.empty() ? tail : ": " + tail;
      }
      const bool worker_ends = resp.value("worker_ends", false);
      ex.reply = std::move(resp);
      ex.tensors = std::move(outputs);
      // A CUDA worker whose context a run broke: the next run gets a fresh context.
      if (worker_ends) awaiting_context_ = true;
      return true;
    }
    if (r == ReadResult::Bad) {  // not a message the worker's protocol code writes
      violation = "a malformed reply";
      return false;
    }
    death = collect_death(death, r == ReadResult::Timeout, runs);
  }
  ex.status = death.status;
  ex.message = death.message;
  ex.worker_failure = death.worker_failure;
  return true;
}

Exchange IsolatedRunner::exchange(json req, const std::vector<at::Tensor>& tensors, int runs) {
  // Held until the reply is in: the worker keeps the request's tensors until then.
  PayloadBudget::Ticket ticket;
  if (limits_.payload_budget) {
    // What the request makes the worker hold: a CUDA worker reads a tensor handed over as its
    // file in place, while a CPU worker's zygote copies it into its own memory (a run may write
    // its inputs), so there it counts like bytes sent.
    const FilesToPass files = files_to_pass(tensors, limits_.cuda);
    std::uint64_t bytes = 0;
    for (std::size_t i = 0; i < tensors.size(); ++i)
      if (!(limits_.cuda && files[i])) bytes += tensors[i].nbytes();
    const auto wait_from = std::chrono::steady_clock::now();
    ticket = limits_.payload_budget->acquire(bytes);
    times_.budget_wait += seconds_since(wait_from);
  }
  // A protocol violation cannot be pinned on this request's kernel at once: a process or thread
  // an earlier kernel left behind may have written it. The worker is killed (its whole tree) and
  // the request runs again on a fresh one; a violation there is this kernel's own doing.
  // A worker that fails on its own (collect_death) is replaced, and the request runs again once.
  std::string violation;
  for (int attempt = 0;; ++attempt) {
    Exchange ex;
    start_failed_ = false;
    if (exchange_once(req, tensors, runs, ex, violation)) {
      if (!ex.worker_failure) return ex;
      ++worker_failures_;
      const bool again = attempt == 0 && !start_failed_;
      std::fprintf(stderr, "kaudit: %s%s\n", ex.message.c_str(), again ? "; the run is repeated on a fresh worker" : "");
      if (!again) return ex;
      continue;
    }
    ++violations_;
    std::fprintf(stderr, "kaudit: worker %d broke the protocol (%s): killed and replaced%s\n", (int)pid_,
                 violation.c_str(), attempt == 0 ? "; the run is repeated on a fresh worker" : "");
    stop();
    if (attempt == 1) {
      ex.status = Status::SandboxViolation;
      ex.message = "protocol violation on a fresh worker: " + violation;
      return ex;
    }
  }
}

RunResult IsolatedRunner::run(const RunRequest& request) {
  const auto t0 = std::chrono::steady_clock::now();
  json req = {{"library", request.library.string()},
              {"schedule", request.options.schedule == rt::Schedule::Reversed ? "reversed" : "in-order"},
              {"serial_blocks", request.options.serial_blocks},
              {"mutant", request.options.active_mutant}};
  json args = json::array();
  std::vector<at::Tensor> tensors;
  for (const auto& a : request.args) {
    json j = {{"kind", (int)a.kind}};
    if (a.kind == EntryArg::Kind::Tensor) {
      j["tensor"] = tensors.size();
      tensors.push_back(a.tensor);
    } else if (a.kind == EntryArg::Kind::Double) {
      j["value"] = a.d;
    } else {
      j["value"] = a.i;
    }
    args.push_back(j);
  }
  req["args"] = args;
  if (!request.first_call.empty()) {
    json first = json::array();
    for (const auto& t : request.first_call) {
      first.push_back(tensors.size());
      tensors.push_back(t);
    }
    req["first_call"] = first;
  }
  Exchange ex = exchange(std::move(req), tensors);
  RunResult result;
  result.status = ex.status;
  result.message = std::move(ex.message);
  result.worker_failure = ex.worker_failure;
  result.over_thread_budget = result.status == Status::Timeout && ex.reply.is_object() && ex.reply.value("thread_budget", false);
  result.first_call_failed = ex.reply.is_object() && ex.reply.value("first_call_failed", false);
  result.outputs = std::move(ex.tensors);
  if (ex.reply.is_object() && ex.reply.contains("launches") && ex.reply.at("launches").is_number_integer())
    result.launches = ex.reply.at("launches").get<int>();
  if (ex.reply.is_object() && ex.reply.contains("library_calls") && ex.reply.at("library_calls").is_number_integer())
    result.library_calls = ex.reply.at("library_calls").get<int>();
  result.launch_log = launch_log_from_reply(ex.reply);
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return result;
}

}  // namespace kaudit::runtime
