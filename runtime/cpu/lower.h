// Source lowering for the CPU backend: turns a KernelBench `cuda_sources` text into a C++
// translation unit for the emulator. Purely textual and line-preserving (diagnostics from the C++
// compiler point at the original .cu lines):
//  - `callee<<<grid, block[, smem[, stream]]>>>(args)` becomes a kaudit::launch_kernel call;
//  - `extern __shared__ T name[];` becomes a pointer to the block's dynamic shared memory;
//  - `static __shared__` loses its `static` (the prelude's __shared__ already has it);
//  - the TU is marked as needing fibers when it uses barriers, warp collectives or shared memory,
//    and with whether it declares static or dynamic shared memory;
//  - in a TU that needs fibers, oracle mode's step points (`KAUDIT_STEP(kind)`, no-ops in witness
//    mode) go before each statement of device code that reads or writes shared memory, after each
//    write, and before each statement that loads from global memory;
//  - an `extern "C" kaudit_invoke` shim calling the binding's entry function is appended.
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace kaudit::cpu {

struct LoweringError {
  int line = 0;
  int column = 0;
  std::string message;
};

struct LoweredSource {
  std::string text;
  bool needs_fibers = false;
  // Whether the TU declares static or dynamic (`extern`) __shared__ memory: a launch poisons only
  // the shared memory its kernel can reach, before each block.
  bool uses_static_smem = false;
  bool uses_dynamic_smem = false;
  int launches = 0;
  std::vector<LoweringError> errors;
};

LoweredSource lower_for_cpu(std::string_view source, std::string_view file_name, std::string_view entry);

// True where `source[i]` is code (not inside a comment, string or character literal).
std::vector<bool> code_mask(std::string_view source);

}  // namespace kaudit::cpu
