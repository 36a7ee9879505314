// Control surface of the CPU emulator for the process that runs kernels (the worker): per-run
// options and the fault the run ended with. Kernel libraries talk to the runtime through abi.h.
#pragma once
#include <cstdint>
#include <string>

namespace kaudit::rt {

enum class Schedule { InOrder, Reversed };

struct RunOptions {
  Schedule schedule = Schedule::InOrder;
  bool serial_blocks = false;        // run blocks one after another (deterministic atomics order)
  unsigned fiber_stack_bytes = 64 * 1024;
  int active_mutant = 0;             // schema switch (runtime/cpu/schema.h); 0 = the original
  // The CUDA threads the run's launches may start in all, a thread of a kernel run on fibers (its
  // source has barriers or warp collectives: LaunchSpec::needs_fibers) counting kFiberThreadWeight;
  // 0 = no limit. A launch that would
  // go over starts nothing and ends the run with FaultKind::WorkBudget. Unlike a CPU-time limit it
  // decides the same way on every machine and every run: a mutant that multiplies its grid
  // instead of dividing it is stopped at launch, not after seconds of CPU time near the limit.
  std::uint64_t thread_budget = 0;
};

// What a thread of a fiber kernel costs the emulator against a plain kernel's: its own stack and
// context switches at every barrier and collective. In the built-in corpus's audit, grid blow-up
// mutants took 0.4-0.9 us per fiber thread and 4-7 ns per plain thread, 60 to 200 times more
// (docs/ARCHITECTURE.md, Isolated workers).
constexpr std::uint64_t kFiberThreadWeight = 128;

enum class FaultKind { None, LaunchError, BarrierDivergence, DeviceException, WorkBudget };

struct Fault {
  FaultKind kind = FaultKind::None;
  std::string message;
};

// Resets the CUDA error state and applies options before running one wrapper call.
void begin_run(const RunOptions& options);
// The first fault of the run (launch error, barrier divergence...), or kind None.
Fault end_run();

}  // namespace kaudit::rt
