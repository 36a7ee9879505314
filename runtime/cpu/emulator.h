// Control surface of the CPU emulator for the process that runs kernels (the worker): per-run
// options and the fault the run ended with. Kernel libraries talk to the runtime through abi.h.
#pragma once
#include <string>

namespace kaudit::rt {

enum class Schedule { InOrder, Reversed };

struct RunOptions {
  Schedule schedule = Schedule::InOrder;
  bool serial_blocks = false;        // run blocks one after another (deterministic atomics order)
  unsigned fiber_stack_bytes = 64 * 1024;
  int active_mutant = 0;             // schema switch (runtime/cpu/schema.h); 0 = the original
};

enum class FaultKind { None, LaunchError, BarrierDivergence, DeviceException };

struct Fault {
  FaultKind kind = FaultKind::None;
  std::string message;
};

// Resets the CUDA error state and applies options before running one wrapper call.
void begin_run(const RunOptions& options);
// The first fault of the run (launch error, barrier divergence...), or kind None.
Fault end_run();

}  // namespace kaudit::rt
