// Shared by the libFuzzer harnesses (issue 21, item 6): a private scratch folder per process, and
// the rule every harness checks: a loader answers bad bytes with its documented error (or
// diagnostics), never with another exception, a crash or a hang.
#pragma once
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace kaudit::fuzz {

inline const std::filesystem::path& scratch() {
  static const std::filesystem::path dir = [] {
    const auto d = std::filesystem::temp_directory_path() / ("kaudit-fuzz-" + std::to_string(getpid()));
    std::filesystem::create_directories(d);
    return d;
  }();
  return dir;
}

inline void write(const std::filesystem::path& p, const std::uint8_t* data, std::size_t size) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
}

// A finding: the loader let something other than its documented error out.
[[noreturn]] inline void unexpected(const char* loader, const char* what) {
  std::fprintf(stderr, "kaudit fuzz: %s threw an undocumented exception: %s\n", loader, what);
  std::abort();
}

}  // namespace kaudit::fuzz
