// kaudit_confine: starts a compiler confined (common/sandbox.h, CompilerPolicy; issue 21, item 3).
//   kaudit_confine [--read PATH]... [--write DIR]... [--cpu SECONDS] [--as BYTES] [--fsize BYTES]
//                  -- PROGRAM [ARG]...
// run_confined_process (common/process.h) starts this program with posix_spawn, which runs no code
// of kaudit's in the child; it applies the policy to itself, single-threaded, and execs PROGRAM.
// Confining between fork and exec instead was tried: a fork of kaudit's audit process, which has
// many threads and, on the CUDA backend, the CUDA driver initialised (its fork handlers run in
// every fork), crashed the audit on the H200 when builds ran side by side.
// Exit code 126 with one line on stderr when the policy cannot be applied or the arguments are
// wrong; 127 when PROGRAM cannot be executed.
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "common/sandbox.h"

namespace {
bool parse_number(const char* text, double& out) {
  char* end = nullptr;
  errno = 0;
  out = std::strtod(text, &end);
  return errno == 0 && end != text && *end == '\0' && out >= 0;
}
}  // namespace

int main(int argc, char** argv) {
  kaudit::sandbox::CompilerPolicy policy;
  int i = 1;
  for (; i < argc && std::strcmp(argv[i], "--") != 0; i += 2) {
    const std::string flag = argv[i];
    if (i + 1 >= argc) {
      std::fprintf(stderr, "kaudit_confine: %s needs a value\n", flag.c_str());
      return 126;
    }
    const char* value = argv[i + 1];
    double number = 0;
    if (flag == "--read") {
      policy.read_paths.emplace_back(value);
    } else if (flag == "--write") {
      policy.write_dirs.emplace_back(value);
    } else if ((flag == "--cpu" || flag == "--as" || flag == "--fsize") && parse_number(value, number)) {
      if (flag == "--cpu") policy.cpu_seconds = number;
      if (flag == "--as") policy.address_space = static_cast<std::uint64_t>(number);
      if (flag == "--fsize") policy.file_size = static_cast<std::uint64_t>(number);
    } else {
      std::fprintf(stderr, "kaudit_confine: unknown flag or bad value '%s %s'\n", flag.c_str(), value);
      return 126;
    }
  }
  if (i + 1 >= argc) {
    std::fprintf(stderr, "kaudit_confine: no program after --\n");
    return 126;
  }
  char** program = argv + i + 1;
  if (const std::string why = kaudit::sandbox::confine_compiler(policy); !why.empty()) {
    std::fprintf(stderr, "kaudit_confine: cannot confine %s: %s\n", program[0], why.c_str());
    return 126;
  }
  execv(program[0], program);
  std::fprintf(stderr, "kaudit_confine: cannot run %s: %s\n", program[0], std::strerror(errno));
  return 127;
}
