// The audit's isolated workers and the loops that feed them (internal to audit/).
//
//   RunnerPool runners(options, backend);
//   runners.parallel_runs(n, [&](runtime::IsolatedRunner& runner, std::size_t i) { ... });
#pragma once

#include <ATen/Parallel.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "audit/audit.h"
#include "audit/backend.h"
#include "runtime/payload_budget.h"
#include "runtime/worker.h"

namespace kaudit::audit {

// Runs per_thread() once on each of min(jobs, n) threads; each call gets items i in [0, n) from
// one shared counter through the `next` function it is handed.
template <typename PerThread>
void work_queue(std::size_t n, unsigned jobs, PerThread per_thread) {
  jobs = static_cast<unsigned>(std::min<std::size_t>(std::max(1u, jobs), std::max<std::size_t>(n, 1)));
  std::atomic<std::size_t> counter{0};
  const auto next = [&](std::size_t& i) { return (i = counter++) < n; };
  std::vector<std::thread> threads;
  for (unsigned j = 0; j < jobs; ++j) threads.emplace_back([&] { per_thread(next); });
  for (auto& t : threads) t.join();
}

// The workers an audit runs: AuditOptions::jobs, or one per hardware thread.
unsigned jobs_of(const AuditOptions& options);

// Isolated workers kept for the whole audit, one per job: starting one loads libtorch (about a
// second), and an audit runs hundreds of batches (legality per task, rows per kernel). Runs
// have a CPU-time budget enforced in the worker, so a verdict does not depend on how busy the
// machine is, and a run over budget costs a fork, not a new worker.
class RunnerPool {
 public:
  RunnerPool(const AuditOptions& options, const Backend& backend);
  // Runs fn(runner, i) for i in [0, n), each thread with a worker of its own.
  template <typename Fn>
  void parallel_runs(std::size_t n, Fn fn) {
    std::atomic<std::size_t> slot{0};
    work_queue(n, static_cast<unsigned>(runners_.size()), [&](const auto& next) {
      if (aten_threads_ > 0) ::at::set_num_threads(aten_threads_);  // this thread's, under OpenMP
      const std::size_t s = slot++;
      runtime::IsolatedRunner& runner = *runners_[s];
      for (std::size_t i = 0; next(i);) {
        const auto from = std::chrono::steady_clock::now();
        fn(runner, i);
        busy_[s] += std::chrono::duration<double>(std::chrono::steady_clock::now() - from).count();
      }
    });
  }
  // The budget of bytes in flight the workers share.
  const runtime::PayloadBudget& budget() const { return *budget_; }
  // Where the runners' time went so far (read between parallel_runs calls).
  struct Times {
    runtime::ExchangeTimes exchanges;
    double busy = 0;  // inside the callers' work items, exchanges included
    Times operator-(const Times& o) const { return {exchanges - o.exchanges, busy - o.busy}; }
  };
  Times times() const;

 private:
  std::vector<std::unique_ptr<runtime::IsolatedRunner>> runners_;
  std::vector<double> busy_;  // per runner slot: each is written by one thread at a time
  std::shared_ptr<runtime::PayloadBudget> budget_;
  int aten_threads_ = 0;
};

// The parts of the runners' busy time (RunnerPool::Times), named as summary.json names them
// (AuditResult::runner_seconds).
std::map<std::string, double> time_parts(const RunnerPool::Times& t);
// One line saying where a stage's runner time went: what to speed up at native shapes.
std::string time_split(const std::string& what, const RunnerPool::Times& t);

// A run that says nothing about the kernel: no worker could be started, or the worker failed on
// its own twice (the machine or kaudit, not the kernel: RunResult::worker_failure). Results
// holding one are reported and never cached.
inline bool infrastructure_failure(const runtime::RunResult& r) { return r.worker_failure; }

}  // namespace kaudit::audit
