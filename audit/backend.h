// The audit's execution backend: how kernels, schemata and mutants are built, and the limits of
// the workers that run them. The CPU backend (the default) builds for the emulator and runs in
// CPU workers with the memory checker and a CPU-time budget; the CUDA backend (issue 20) builds
// with nvcc for device 0 and runs in CUDA workers (runtime/cuda/gpu_run.h) with a wall-clock
// limit. Everything else in the audit (pools, references, legality, witnesses, verdicts, the
// caches' layout) is the same code for both.
#pragma once
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "audit/audit.h"
#include "runtime/cpu/compile.h"
#include "runtime/cpu/schema.h"
#include "runtime/cuda/build.h"
#include "runtime/worker.h"

namespace kaudit::audit {

class Backend {
 public:
  // cuda: nvcc builds for device 0, which runtime/cuda/device.h must have found.
  Backend(const std::filesystem::path& cache_dir, bool cuda);
  bool cuda() const { return gpu_.has_value(); }
  // "cpu", or "cuda", the GPU and where references run ("cuda, NVIDIA H200 (sm_90, 140 GB),
  // references: float32 on cuda:0, float64 on the host").
  const std::string& name() const { return name_; }
  // A kernel text (a kernel, a neutral variant, a mutant, a schema) built for this backend.
  cpu::CpuBuild build(std::string_view source, const corpus::Kernel& kernel) const;
  // Schemata of a kernel's edits (runtime/cpu/schema.h). CUDA: the plan is the CPU compiler's
  // (its builds find the spans a switch cannot wrap, in seconds; an nvcc build takes about 20 s),
  // then each schema's text is built by nvcc, and a schema nvcc rejects gives its edits to the
  // standalone builds.
  cpu::SchemaPlan schemata(const corpus::Kernel& kernel, const std::vector<cpu::SchemaEdit>& edits) const;
  // What a build's result depends on besides its source, for cache keys. The CPU backend's is the
  // CPU compiler's identity alone, as before there was a choice (cached CPU audits stay valid).
  std::string identity() const;
  // The audit's worker limits for `options`.
  runtime::WorkerLimits worker_limits(const AuditOptions& options, unsigned jobs) const;

 private:
  cpu::CpuCompiler cpu_;
  std::optional<cuda::CudaCompiler> gpu_;
  std::string name_;
};

}  // namespace kaudit::audit
