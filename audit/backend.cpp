#include "audit/backend.h"

#include <algorithm>
#include <thread>

#include "common/parallel.h"
#include "oracle/reference.h"
#include "runtime/cuda/device.h"

namespace kaudit::audit {

Backend::Backend(const std::filesystem::path& cache_dir, bool cuda) : cpu_(cache_dir), name_("cpu") {
  if (!cuda) return;
  const cuda::GpuInfo& gpu = cuda::probe_gpu();
  if (!gpu.problem.empty()) throw std::runtime_error("--backend cuda: " + gpu.problem);
  gpu_.emplace(cache_dir, gpu.arch());
  name_ = "cuda, " + gpu.describe() + ", references: " + oracle::reference_placement(true).describe();
}

cpu::CpuBuild Backend::build(std::string_view source, const corpus::Kernel& kernel) const {
  return gpu_ ? gpu_->build(source, kernel.file, kernel.entry) : cpu_.build(source, kernel.file, kernel.entry);
}

cpu::SchemaPlan Backend::schemata(const corpus::Kernel& kernel, const std::vector<cpu::SchemaEdit>& edits) const {
  cpu::SchemaPlan plan = cpu::build_schemata(cpu_, kernel.source, kernel.file, kernel.entry, edits);
  if (!gpu_) return plan;
  parallel::for_each_index(0, plan.schemata.size(), [&](std::size_t i) {
    cpu::Schema& s = plan.schemata[i];
    s.build = build(cpu::schema_body(s.source), kernel);
  });
  std::vector<cpu::Schema> kept;
  for (auto& s : plan.schemata) {
    if (s.build.ok) kept.push_back(std::move(s));
    else plan.standalone.insert(plan.standalone.end(), s.edits.begin(), s.edits.end());
  }
  plan.schemata = std::move(kept);
  std::sort(plan.standalone.begin(), plan.standalone.end());
  return plan;
}

std::string Backend::identity() const {
  // The CUDA backend's references may run on the device or the host (oracle/reference.h): the
  // float32 ones differ (cuDNN's TF32 convolutions), and verdicts with them.
  if (!gpu_) return cpu_.identity();
  return "cuda\n" + gpu_->identity() + "\nreferences: " + oracle::reference_placement(true).describe();
}

runtime::WorkerLimits Backend::worker_limits(const AuditOptions& options, unsigned jobs) const {
  runtime::WorkerLimits limits;
  limits.timeout_seconds = options.timeout_seconds;
  if (gpu_) {
    // Wall-clock seconds per run (a CUDA worker's CPU clock says nothing about its kernel); the
    // GPU's own limits replace the thread budget; outputs read back from the device have no
    // guard pages (the GPU faults only outside its mapped memory). The workers share device 0:
    // each one's caching allocator gets an equal part of the audit's share of its memory
    // (AuditOptions::gpu_memory_share, 90% by default).
    limits.cuda = true;
    limits.gpu_memory_fraction = std::min(0.5, options.gpu_memory_share / std::max(1u, jobs));
    limits.threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency() / std::max(1u, jobs)));
    return limits;
  }
  limits.cpu_time = true;
  limits.memcheck = true;  // out-of-bounds accesses become their own outcome
  limits.threads = 1;      // parallelism comes from the workers
  limits.thread_budget = options.thread_budget;
  return limits;
}

}  // namespace kaudit::audit
