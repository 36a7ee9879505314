// kaudit_worker: the program of kaudit's worker processes (runtime/worker.h), `kaudit worker`
// without the rest of kaudit. Every kernel run is a process forked from a worker's zygote, and a
// fork, the run's page faults and its exit cost in proportion to what the zygote maps: kaudit
// itself also maps Clang, LLVM and NVRTC (about 12 MB of relocated data and their static
// state), which no run uses. kaudit starts this program when it lies beside it
// (runtime::worker_executable), else itself.
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "tools/cli.h"

int main(int argc, char** argv) {
  if (argc < 2 || std::strcmp(argv[1], "worker") != 0) {
    std::fprintf(stderr, "kaudit_worker: started by kaudit only (as `kaudit_worker worker ...`)\n");
    return 2;
  }
  return kaudit::cli::worker_command(std::vector<std::string>(argv + 2, argv + argc));
}
