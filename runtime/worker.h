// Isolated execution of untrusted kernels. Each kernel call runs in a worker process (the `kaudit
// worker` subcommand) with a wall-clock and an address-space limit; a segfault, abort, infinite
// loop or barrier deadlock ends as a status and the next call gets a fresh worker.
//
// Wire format on the worker's stdin/stdout: a message is a u64 length + JSON header, followed by
// the raw bytes of each tensor the header lists ({"dtype": int ScalarType, "shape": [...]}) as
// u64 length + bytes. Device printf output goes to the worker's stderr, never into the protocol.
//
// Kernel code is hostile (issue 21, item 2; docs/SECURITY.md). The first message is a per-worker
// random nonce from the runner; every reply carries it and its request's sequence number, and the
// runner takes nothing else as an answer: a reply without them, for a request not sent yet, or
// malformed, is a protocol violation. So is a process left running in the worker's tree after a
// reply (the worker is a subreaper: setsid and double forks stay in its tree). A violation kills
// the worker's whole tree and repeats the request on a fresh worker; one there is the run's
// verdict, Status::SandboxViolation. This stops what was reproduced: a process left behind by one
// kernel answering later kernels' requests. It does NOT stop kernel code from forging its own
// run's reply: it runs in the serving child's address space, where it can read the nonce and the
// sequence number, and a thread it leaves there lives as long as that child. A fresh process per
// run and a seccomp filter (issue 21, item 1) are what stop those.
#pragma once
#include <ATen/core/Tensor.h>
#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "runtime/cpu/emulator.h"
#include "runtime/kernel_library.h"
#include "runtime/payload_budget.h"

namespace kaudit::runtime {

// SandboxViolation ("sandbox-violation"): the run broke the worker protocol on a fresh worker
// (a reply without this worker's nonce or the request's sequence number, a malformed reply) or
// left a process running after it; see IsolatedRunner.
enum class Status { Ok, Crash, Timeout, BarrierDivergence, LaunchError, OutOfBounds, Exception, SandboxViolation };
const char* to_string(Status s);

struct RunRequest {
  std::filesystem::path library;  // built by cpu::CpuCompiler
  std::vector<EntryArg> args;     // the entry function's arguments, tensors included
  rt::RunOptions options;
  // The second-call probe (audit: a fault only a second call shows, such as a result cached by
  // input address): when not empty, one tensor per tensor argument, of its shape and dtype. The
  // worker first calls the entry with each tensor argument's buffer holding these values, then
  // writes the argument's own values into the same buffers and calls it again in the same process;
  // the run's result is the second call's. A first call that does not complete is the result
  // (RunResult::first_call_failed).
  std::vector<at::Tensor> first_call;
};

struct RunResult {
  Status status = Status::Crash;
  // A Timeout decided at launch by the thread budget (WorkerLimits::thread_budget), not by the
  // clock: it cost nothing, and the same input gives it on every run.
  bool over_thread_budget = false;
  // Not the kernel's doing: the worker failed on its own twice (Exchange::worker_failure).
  bool worker_failure = false;
  // The second-call probe's first call did not complete (RunRequest::first_call): the status is
  // its. A first call that ended the worker (a crash, a hang) cannot be told from the second's.
  bool first_call_failed = false;
  std::string message;
  std::vector<at::Tensor> outputs;
  int launches = -1;  // kernels the run launched, as the worker tells it (-1: not recorded)
  int library_calls = -1;  // library compute calls it made (CPU: the torch facade; CUDA: ATen's callbacks)
  // Its first launches (launch_log_json's form; empty: none, or not recorded), as the worker tells it.
  nlohmann::json launch_log = nlohmann::json::array();
  double seconds = 0;
};

// A run's launches as the worker replies with them and external checkers read them: one object
// per launch, {"grid": [x, y, z], "block": [x, y, z], "shared_bytes": n, "stream": k}, where k
// numbers the streams the run named in the order it first named them, 0 being the default stream
// (a null handle, or CUDA's legacy default stream).
nlohmann::json launch_log_json(const std::vector<rt::LaunchRecord>& log);
// The launch log of a reply, if it has a well-formed one (kernel code runs in the worker and
// could write anything there): entries that are not launch objects are dropped.
nlohmann::json launch_log_from_reply(const nlohmann::json& reply);

struct WorkerLimits {
  double timeout_seconds = 60;
  // When true, timeout_seconds is the CPU time a run may use, enforced inside the worker by a
  // timer on the run's process CPU clock: the verdict no longer depends on how busy the machine
  // is, and a run over budget costs a fork, not a new worker. The wall-clock wait becomes a
  // backstop (kWallBackstopFactor times the limit, plus kWallBackstopSeconds) for a run that
  // blocks without using CPU. Meant for single-threaded workers (threads = 1): with more threads a
  // run's CPU time grows faster than its wall time.
  bool cpu_time = false;
  std::uint64_t memory_bytes = std::uint64_t(8) << 30;
  bool memcheck = false;  // guard pages around every tensor (out-of-bounds status)
  int threads = 0;        // a CPU worker's TBB threads, a CUDA worker's ATen threads; 0 = all cores
  // CUDA threads a run's launches may start in all, weighted (rt::RunOptions::thread_budget); 0 = no limit.
  // Over it the run is a timeout, decided at launch: the same verdict on every machine.
  std::uint64_t thread_budget = 0;
  // The CUDA backend (runtime/cuda/gpu_run.h): the worker owns a CUDA context and runs each
  // request in its own process, not in a forked one (a forked child cannot use its parent's
  // CUDA context, and a fresh context costs a good part of a second), confined once at start by
  // sandbox::confine_gpu_worker(). A run that loses the context ends its worker after the reply;
  // the runner starts the next run in a fresh one. No address-space limit (the driver reserves
  // far more virtual memory than it uses); PyTorch's allocator is held to gpu_memory_fraction of
  // the device. Timeouts are wall-clock.
  bool cuda = false;
  double gpu_memory_fraction = 0.5;
  // Shared by an audit's runners: a request waits until its tensors fit beside those of the
  // requests already in flight (runtime/payload_budget.h). Null: no bound.
  std::shared_ptr<PayloadBudget> payload_budget;
};

// Where a runner's time went, summed over its exchanges (IsolatedRunner::times): the parts are
// disjoint, so what a caller spends around its exchanges (its own work on the host) is the rest.
// Measured, not modelled: what makes the speed of an audit at native shapes explainable.
struct ExchangeTimes {
  std::uint64_t exchanges = 0;
  int starts = 0;             // workers (and CUDA contexts after a crash) started
  double start = 0;           // waiting for them to say ready
  double budget_wait = 0;     // waiting for room in the payload budget (WorkerLimits::payload_budget)
  double send = 0;            // writing requests into the worker's pipe
  double reply = 0;           // from the request written to its reply read in full, of which, mostly:
  double served = 0;          //   the worker's own time on it, as it reports (request read -> reply ready);
                              //   it lies inside send + reply, and may start before the send returns
  double device_copies = 0;   //   of that, a CUDA worker's copies to and from the device
  std::uint64_t bytes_sent = 0, bytes_shared = 0;  // request tensors written down the pipe, and
                                                    // handed over as files (runtime/shared_tensor.h)
  ExchangeTimes& operator+=(const ExchangeTimes& o);
  ExchangeTimes operator-(const ExchangeTimes& o) const;
};

// A request of another kind than a plain run (the worker's request handlers below), and what
// came back: the reply's header and tensors, or the status of a worker that died or hung
// (`status` is then Crash, OutOfBounds or Timeout and `reply` is empty).
struct Exchange {
  Status status = Status::Ok;
  // The worker failed on its own, not the kernel (a CPU worker's exit for kaudit's own machinery:
  // runtime/worker.cpp); status is then Crash, and message says so.
  bool worker_failure = false;
  std::string message;
  nlohmann::json reply;
  std::vector<at::Tensor> tensors;
};

// The folder of empty stand-ins for libraries a CPU worker maps and never uses (made next to the
// worker's executable by runtime/worker_libs.py at build time), which CPU workers are started
// with first on LD_LIBRARY_PATH; "" when there is none or KAUDIT_WORKER_STANDINS=0.
std::string worker_library_standins(const std::filesystem::path& worker_exe);

class IsolatedRunner {
 public:
  // worker_exe: a binary whose `worker` subcommand calls worker_main (normally kaudit itself).
  IsolatedRunner(std::filesystem::path worker_exe, WorkerLimits limits);
  ~IsolatedRunner();
  IsolatedRunner(const IsolatedRunner&) = delete;
  IsolatedRunner& operator=(const IsolatedRunner&) = delete;

  RunResult run(const RunRequest& request);
  // Sends `header` (its "kind" names a handler registered in the worker) with `tensors`. The
  // worker may spend `runs` times the per-run limit on it (a checker's harness runs one kernel
  // per trial).
  Exchange exchange(nlohmann::json header, const std::vector<at::Tensor>& tensors, int runs = 1);
  const WorkerLimits& limits() const { return limits_; }
  // How long run() waits for a reply before killing the worker (exchange(): for `runs` runs).
  double wall_limit_seconds(int runs = 1) const;
  // Protocol violations seen (each killed a worker); the worker's pid (-1: none running).
  int violations() const { return violations_; }
  // Workers (and CUDA contexts after a crash) started, and the seconds spent waiting for them to
  // be ready: what restarts cost an audit on the GPU.
  int starts() const { return times_.starts; }
  double start_seconds() const { return times_.start; }
  const ExchangeTimes& times() const { return times_; }
  pid_t worker_pid() const { return pid_; }
  // Exchanges a worker failed on its own (each replaced the worker; runtime/worker.cpp).
  int worker_failures() const { return worker_failures_; }

 private:
  enum class Check { Current, Stale, Violation };
  bool start(std::string& error);
  // Reads the worker's "ready" (its nonce, within kStartupSeconds): after start(), and after a
  // CUDA worker's run broke its context (a new context's process says it). Counts a start.
  bool await_ready(std::string& error);
  void stop();
  RunResult collect_death(RunResult r, bool timed_out, int runs = 1);
  // Reads and drops replies already waiting (to earlier requests); false, with the reason, on
  // anything that is not a stale reply of this worker.
  bool drop_stale_replies(std::string& violation);
  Check check_reply(const nlohmann::json& reply, std::string& violation) const;
  // Empty, or which processes the last run left in the worker's tree.
  std::string leftover_processes() const;
  // One try on the current (or a fresh) worker: false on a protocol violation (the reason in
  // `violation`), true when `ex` holds the answer or the worker's death.
  bool exchange_once(const nlohmann::json& req, const std::vector<at::Tensor>& tensors, int runs, Exchange& ex,
                     std::string& violation);

  std::filesystem::path exe_;
  WorkerLimits limits_;
  pid_t pid_ = -1;
  int to_worker_ = -1, from_worker_ = -1, worker_err_ = -1;
  std::string stderr_tail_;
  std::uint64_t seq_ = 0;  // of the last request; replies echo it
  std::string nonce_;      // this worker's, chosen at spawn; replies echo it
  int violations_ = 0;
  int worker_failures_ = 0;
  bool start_failed_ = false;  // the last exchange_once could not start a worker
  ExchangeTimes times_;
  bool awaiting_context_ = false;  // the last reply said "worker_ends" (a CUDA context broke)
};

constexpr double kWallBackstopFactor = 4;
constexpr double kWallBackstopSeconds = 10;

// What a request handler may use in the worker: its kernel libraries (loaded once per process)
// and the CPU-time budget, re-armed for each kernel run of a request that runs several.
struct WorkerContext {
  std::function<const KernelLibrary&(const std::string& path)> library;
  std::function<void()> rearm_cpu_budget;
  // How far the request got (e.g. the trial being run): if the run kills the worker's child, the
  // death report carries it as "progress".
  std::function<void(std::uint64_t)> set_progress;
  const WorkerLimits* limits = nullptr;
  // Set in a CUDA worker only (WorkerLimits::cuda; `library` is not): gpu_prepare loads the
  // library at `path` (its sealed copy) and readies device 0 as a new process finds it (PyTorch's
  // caching allocator holds no block: a checker's harness starts in a process of its own), so
  // CUDA tensors can be made;
  // gpu_call runs its entry (runtime/cuda/gpu_run.h, GpuRunner::call) on device arguments.
  // `context_lost`: the device is unusable, the worker ends after the reply.
  std::function<void(const std::string& path)> gpu_prepare;
  std::function<nlohmann::json(const std::string& path, int mutant, const std::vector<EntryArg>& args,
                               std::vector<at::Tensor>& outputs, bool& context_lost)>
      gpu_call;
};
// Serves a request whose header has "kind": K. Returns the reply header (with "status") and
// fills `outputs`; an exception becomes an "exception" reply.
using RequestHandler = std::function<nlohmann::json(const nlohmann::json& request, std::vector<at::Tensor>& tensors,
                                                    std::vector<at::Tensor>& outputs, WorkerContext& context)>;

// Entry point of the worker process: serves requests on fds 0/1 until EOF, under `limits` (as
// IsolatedRunner passes them on its command line; memory_bytes is set by the runner instead).
// Requests without a "kind" are plain runs (RunRequest); `handlers` serve the others. The
// worker always installs the device memory model (runtime/cpu/device_memory.h) for handlers
// that start device sessions.
int worker_main(const WorkerLimits& limits, const std::map<std::string, RequestHandler>& handlers = {});

// The reply status names ("ok", "crash", ...) back to a Status (an unknown one is a crash).
Status status_from_name(const std::string& name);

// The path of the running executable (for spawning workers of the same binary).
std::filesystem::path self_executable();
// The program to start workers with: kaudit_worker beside the running executable (the worker
// alone, tools/worker_main.cpp: a smaller process to fork for every run), else the running
// executable itself.
std::filesystem::path worker_executable();

}  // namespace kaudit::runtime
