// Control surface of the CPU emulator for the process that runs kernels (the worker): per-run
// options and the fault the run ended with. Kernel libraries talk to the runtime through abi.h.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace kaudit::rt {

enum class Schedule { InOrder, Reversed };

// Witness mode is as strict as the emulator can be, to prove that a fault is real: shared memory
// is poisoned before every block, divergent barriers are faults, and warps run one at a time as
// far as they can (a missing barrier reads another warp's unwritten data). Oracle mode models
// what a checker's harness sees on a GPU of sm_70 or later (docs/ORACLES.md, Oracle mode):
//  - shared memory is not poisoned: a block sees what the previous block on its thread (its
//    "SM") left, zeros at the start of a device session (rt::begin_device_session);
//  - `__syncthreads` completes once every thread that has not exited waits at a barrier, at any
//    call site (threads that exited no longer count); a block that cannot progress hangs, which
//    ends the run as a timeout, as a GPU's watchdog would;
//  - a warp collective completes without lanes that have exited;
//  - warps run on clocks: the lowering puts step points before the statements of device code
//    that touch shared memory (and after writes) or load from global memory, in TUs run on
//    fibers; the warp with the earliest clock runs to its next step point, a shared-memory turn
//    costs 1 and global loads return in issue order, so warps advance together through shared
//    memory work and drift apart by their loads (docs/ORACLES.md, "Races").
enum class Mode { Witness, Oracle };

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
  Mode mode = Mode::Witness;
};

// What a thread of a fiber kernel costs the emulator against a plain kernel's: its own stack and
// context switches at every barrier and collective. In the built-in corpus's audit, grid blow-up
// mutants took 0.4-0.9 us per fiber thread and 4-7 ns per plain thread, 60 to 200 times more
// (docs/ARCHITECTURE.md, Isolated workers).
constexpr std::uint64_t kFiberThreadWeight = 128;

// Hang: oracle mode's deadlock (a block that can make no progress), a timeout on a GPU.
enum class FaultKind { None, LaunchError, BarrierDivergence, DeviceException, WorkBudget, Hang };

struct Fault {
  FaultKind kind = FaultKind::None;
  std::string message;
};

// Resets the CUDA error state and applies options before running one wrapper call.
void begin_run(const RunOptions& options);
// The first fault of the run (launch error, barrier divergence...), or kind None.
Fault end_run();
// The kernels the run has launched so far (the gate "a kernel must launch": oracle/spec.h). Kernel
// code runs in this process and could change it: a statistic of the run, as its outputs are.
int launches_in_run();
// Library compute calls the run has made through the torch facade (t_matmul, t_addmm, ...: the
// gate "no library compute"); a statistic of the run like launches_in_run.
void note_library_call();
int library_calls_in_run();

// One kernel launch of a run, as the gates' and external checkers' requests carry it (issue 24,
// item 3): its grid, its block, the dynamic shared memory it asked for and the stream handle it
// named (0: the default stream). Only launches that started are recorded, as launches_in_run
// counts them, the first kLaunchLogLimit of a run.
struct LaunchRecord {
  unsigned grid[3];
  unsigned block[3];
  std::uint64_t shared_bytes;
  std::uintptr_t stream;
};
constexpr std::size_t kLaunchLogLimit = 64;
std::vector<LaunchRecord> launch_log_of_run();

}  // namespace kaudit::rt
