// Isolated execution of untrusted kernels. Each kernel call runs in a worker process (the `kaudit
// worker` subcommand) with a wall-clock and an address-space limit; a segfault, abort, infinite
// loop or barrier deadlock ends as a status and the next call gets a fresh worker.
//
// Wire format on the worker's stdin/stdout: a message is a u64 length + JSON header, followed by
// the raw bytes of each tensor the header lists ({"dtype": int ScalarType, "shape": [...]}) as
// u64 length + bytes. Device printf output goes to the worker's stderr, never into the protocol.
#pragma once
#include <ATen/core/Tensor.h>
#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "runtime/cpu/emulator.h"
#include "runtime/kernel_library.h"

namespace kaudit::runtime {

enum class Status { Ok, Crash, Timeout, BarrierDivergence, LaunchError, OutOfBounds, Exception };
const char* to_string(Status s);

struct RunRequest {
  std::filesystem::path library;  // built by cpu::CpuCompiler
  std::vector<EntryArg> args;     // the entry function's arguments, tensors included
  rt::RunOptions options;
};

struct RunResult {
  Status status = Status::Crash;
  // A Timeout decided at launch by the thread budget (WorkerLimits::thread_budget), not by the
  // clock: it cost nothing, and the same input gives it on every run.
  bool over_thread_budget = false;
  std::string message;
  std::vector<at::Tensor> outputs;
  double seconds = 0;
};

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
  int threads = 0;        // TBB threads in the worker; 0 = all cores
  // CUDA threads a run's launches may start in all, weighted (rt::RunOptions::thread_budget); 0 = no limit.
  // Over it the run is a timeout, decided at launch: the same verdict on every machine.
  std::uint64_t thread_budget = 0;
};

class IsolatedRunner {
 public:
  // worker_exe: a binary whose `worker` subcommand calls worker_main (normally kaudit itself).
  IsolatedRunner(std::filesystem::path worker_exe, WorkerLimits limits);
  ~IsolatedRunner();
  IsolatedRunner(const IsolatedRunner&) = delete;
  IsolatedRunner& operator=(const IsolatedRunner&) = delete;

  RunResult run(const RunRequest& request);
  const WorkerLimits& limits() const { return limits_; }
  // How long run() waits for a reply before killing the worker.
  double wall_limit_seconds() const;

 private:
  bool start(std::string& error);
  void stop();
  RunResult collect_death(RunResult r, bool timed_out);
  // Reads and drops replies already waiting (to earlier requests); false if the stream is broken.
  bool drop_stale_replies();

  std::filesystem::path exe_;
  WorkerLimits limits_;
  pid_t pid_ = -1;
  int to_worker_ = -1, from_worker_ = -1, worker_err_ = -1;
  std::string stderr_tail_;
  std::uint64_t seq_ = 0;  // of the last request; replies echo it
};

constexpr double kWallBackstopFactor = 4;
constexpr double kWallBackstopSeconds = 10;

// Entry point of the worker process: serves requests on fds 0/1 until EOF, under `limits` (as
// IsolatedRunner passes them on its command line; memory_bytes is set by the runner instead).
int worker_main(const WorkerLimits& limits);

// The path of the running executable (for spawning workers of the same binary).
std::filesystem::path self_executable();

}  // namespace kaudit::runtime
