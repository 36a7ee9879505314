// The audit's isolated workers (see runners.h).
#include "audit/runners.h"

#include <cstdio>

namespace kaudit::audit {

unsigned jobs_of(const AuditOptions& options) {
  return options.jobs ? options.jobs : std::max(1u, std::thread::hardware_concurrency());
}

RunnerPool::RunnerPool(const AuditOptions& options, const Backend& backend) {
  runtime::WorkerLimits limits = backend.worker_limits(options, jobs_of(options));
  limits.payload_budget = budget_ = std::make_shared<runtime::PayloadBudget>(
      options.run_memory_bytes.value_or(runtime::default_payload_budget_bytes()));
  for (unsigned j = 0; j < jobs_of(options); ++j)
    runners_.push_back(std::make_unique<runtime::IsolatedRunner>(options.worker_exe, limits));
  busy_.assign(runners_.size(), 0.0);
  // CUDA: this process compares each run's outputs on the runners' threads, as many at once as
  // there are workers; each thread's ATen work gets its share of the cores, as each worker does
  // (runtime/worker.cpp, serve_gpu_context). The CPU backend's threads keep ATen's default, as
  // its measured tables had. The comparisons' own loops (oracle/host_loop.h) share kaudit's one
  // pool, which serves every runner thread at once.
  if (backend.cuda()) aten_threads_ = limits.threads;
}

RunnerPool::Times RunnerPool::times() const {
  Times t;
  for (std::size_t s = 0; s < runners_.size(); ++s) {
    t.exchanges += runners_[s]->times();
    t.busy += busy_[s];
  }
  return t;
}

std::map<std::string, double> time_parts(const RunnerPool::Times& t) {
  const runtime::ExchangeTimes& e = t.exchanges;
  return {{"busy", t.busy},
          {"waiting_for_workers", e.start},
          {"waiting_for_memory", e.budget_wait},
          {"sending", e.send},
          {"in_workers", e.served},
          {"device_copies", e.device_copies},
          {"replies_back", std::max(0.0, e.reply - e.served)},
          {"host", std::max(0.0, t.busy - e.start - e.budget_wait - e.send - e.reply)}};
}

std::string time_split(const std::string& what, const RunnerPool::Times& t) {
  auto p = time_parts(t);
  char copies[80] = "";
  if (p["device_copies"] > 0)
    std::snprintf(copies, sizeof copies, " (%.0f of it copying to and from the GPU)", p["device_copies"]);
  char line[512];
  std::snprintf(line, sizeof line,
                "%s: runners busy %.0f s = %.0f waiting for workers + %.0f for memory + %.0f sending requests + %.0f in "
                "the workers%s + %.0f replies coming back + %.0f on the host",
                what.c_str(), p["busy"], p["waiting_for_workers"], p["waiting_for_memory"], p["sending"], p["in_workers"],
                copies, p["replies_back"], p["host"]);
  std::string said = line;
  if (t.exchanges.bytes_shared > 0) {  // pool tensors handed over as files (runtime/shared_tensor.h)
    char bytes[160];
    std::snprintf(bytes, sizeof bytes, "; requests: %.2f GB written, %.2f GB handed over as files",
                  double(t.exchanges.bytes_sent) / 1e9, double(t.exchanges.bytes_shared) / 1e9);
    said += bytes;
  }
  return said;
}

}  // namespace kaudit::audit
