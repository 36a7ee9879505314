#include <cstdlib>

#include "oracle/harness.h"
#include "runtime/worker.h"
#include "tools/cli.h"

namespace kaudit::cli {
int worker_command(const std::vector<std::string>& args) {
  // The flags come from IsolatedRunner::start, not from people: unknown ones are ignored.
  runtime::WorkerLimits limits;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const bool has_value = i + 1 < args.size();
    if (args[i] == "--memcheck") {
      limits.memcheck = true;
    } else if (args[i] == "--threads" && has_value) {
      limits.threads = std::atoi(args[++i].c_str());
    } else if (args[i] == "--cpu-limit" && has_value) {
      limits.timeout_seconds = std::atof(args[++i].c_str());
      limits.cpu_time = limits.timeout_seconds > 0;
    } else if (args[i] == "--cuda") {
      limits.cuda = true;
    } else if (args[i] == "--gpu-memory-fraction" && has_value) {
      limits.gpu_memory_fraction = std::atof(args[++i].c_str());
    } else if (args[i] == "--thread-budget" && has_value) {
      limits.thread_budget = std::strtoull(args[++i].c_str(), nullptr, 10);
    }
  }
  return runtime::worker_main(limits, {{oracle::kHarnessRequestKind, oracle::serve_harness_request}});
}
}  // namespace kaudit::cli
