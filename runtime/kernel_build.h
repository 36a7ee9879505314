// What building a kernel text into a loadable library gives, on either backend: the CPU
// emulator's builds (cpu/compile.h, cpu::CpuBuild) and nvcc's (cuda/build.h, cuda::CudaBuild) are
// this one type, so the gate and the audit hold either without converting.
#pragma once
#include <filesystem>
#include <string>

namespace kaudit::runtime {

struct KernelBuild {
  bool ok = false;
  std::filesystem::path library;  // the .so, when ok
  std::string diagnostics;        // the compiler's (or lowering's) errors, with the .cu file's name and lines
  bool cache_hit = false;
  double seconds = 0;
};

}  // namespace kaudit::runtime
