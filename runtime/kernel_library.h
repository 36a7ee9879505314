// A kernel library built by the CPU backend, loaded into this process, and its entry shim.
// The worker process uses it for isolated runs; benchmarks use it directly.
#pragma once
#include <ATen/core/Tensor.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "runtime/cpu/emulator.h"

namespace kaudit::runtime {

// One argument of the entry function (mirrors kaudit::detail::ArgValue in the prelude).
struct EntryArg {
  enum class Kind : int { Tensor = 0, Int = 1, Double = 2, Bool = 3 } kind = Kind::Int;
  std::int64_t i = 0;
  double d = 0;
  at::Tensor tensor;
  static EntryArg of(at::Tensor t) { EntryArg a; a.kind = Kind::Tensor; a.tensor = std::move(t); return a; }
  static EntryArg of_int(std::int64_t v) { EntryArg a; a.kind = Kind::Int; a.i = v; return a; }
  static EntryArg of_double(double v) { EntryArg a; a.kind = Kind::Double; a.d = v; return a; }
  static EntryArg of_bool(bool v) { EntryArg a; a.kind = Kind::Bool; a.i = v; return a; }
};

struct EntryResult {
  bool threw = false;            // the host wrapper threw (message holds what())
  std::string message;
  rt::Fault fault;               // launch error / divergence recorded by the emulator
  int launches = 0;              // kernels the call launched
  int library_calls = 0;         // library compute calls it made through the torch facade
  std::vector<rt::LaunchRecord> launch_log;  // its first launches (rt::kLaunchLogLimit)
  std::vector<at::Tensor> outputs;
};

class KernelLibrary {
 public:
  // Throws std::runtime_error if the library cannot be loaded or has no entry shim.
  explicit KernelLibrary(const std::filesystem::path& path);
  EntryResult call(const std::vector<EntryArg>& args, const rt::RunOptions& options) const;

 private:
  using InvokeFn = int (*)(const void* args, std::size_t n, void* sink, void (*push)(void*, void*), char* err,
                           std::size_t errlen);
  InvokeFn invoke_ = nullptr;
  int* active_mutant_ = nullptr;  // present in schema libraries only
};

}  // namespace kaudit::runtime
