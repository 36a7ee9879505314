// Builds a kernel's `cuda_sources` into a shared library for the CPU emulator: lowering
// (lower.h), then the host C++ compiler against the prelude. Libraries are cached by the SHA-256 of
// (lowered text, compiler identity, flags, prelude headers), so a re-run compiles nothing. The
// prelude is precompiled once per identity (a GCC precompiled header, both values of
// KAUDIT_NEEDS_FIBERS), which halves a small build; the libraries are byte-identical with or
// without it, and a header the compiler cannot use is ignored.
#pragma once
#include <filesystem>
#include <string>
#include <string_view>

#include "runtime/kernel_build.h"

namespace kaudit::cpu {

using CpuBuild = runtime::KernelBuild;

class CpuCompiler {
 public:
  // cache_dir: where libraries go; prelude_dir: runtime/cpu/include (default: found from the
  // KAUDIT_PRELUDE_DIR environment variable, else the path baked in at build time).
  explicit CpuCompiler(std::filesystem::path cache_dir, std::filesystem::path prelude_dir = {});
  CpuBuild build(std::string_view source, std::string_view file_name, std::string_view entry) const;
  const std::filesystem::path& prelude_dir() const { return prelude_dir_; }
  // Compiler version, flags and prelude hash: what a build's result depends on besides the source.
  const std::string& identity() const { return identity_; }

 private:
  // The folder to put ahead of the prelude on the include path (holding
  // kaudit_cpu/prelude.h.gch/), made on first use; empty when it cannot be made.
  std::filesystem::path precompiled_prelude() const;

  std::filesystem::path cache_dir_, prelude_dir_;
  std::string compiler_, identity_;  // identity: compiler version + flags + prelude hash
};

std::filesystem::path default_prelude_dir();

}  // namespace kaudit::cpu
