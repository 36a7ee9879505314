#include <cstdlib>

#include "runtime/worker.h"
#include "tools/cli.h"

namespace kaudit::cli {
int worker_command(const std::vector<std::string>& args) {
  bool memcheck = false;
  int threads = 0;
  double cpu_limit = 0;
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--memcheck") memcheck = true;
    else if (args[i] == "--threads" && i + 1 < args.size()) threads = std::atoi(args[++i].c_str());
    else if (args[i] == "--cpu-limit" && i + 1 < args.size()) cpu_limit = std::atof(args[++i].c_str());
  }
  return runtime::worker_main(memcheck, threads, cpu_limit);
}
}  // namespace kaudit::cli
