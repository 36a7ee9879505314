// Running a child program: argv (no shell), optional stdin text, captured stdout/stderr, a
// wall-clock limit. Used for the C++ compiler and the Python reference exporter.
#pragma once
#include <string>
#include <vector>

namespace kaudit {

struct ProcessResult {
  int exit_code = -1;      // valid when !signalled && !timed_out
  int signal = 0;          // terminating signal, 0 if none
  bool timed_out = false;
  bool spawn_failed = false;
  std::string out, err;
  bool ok() const { return !spawn_failed && !timed_out && signal == 0 && exit_code == 0; }
};

ProcessResult run_process(const std::vector<std::string>& argv, double timeout_seconds,
                          const std::string& stdin_text = {});

}  // namespace kaudit
