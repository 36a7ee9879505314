// The verification gate: every corpus kernel against the float64 reference over the task's gate
// recipes (oracle/recipes.h: uniform, normal, negative, large and tiny magnitudes, odd shapes), at
// the tight gate tolerance (oracle/compare.h). A kernel that does not build, crashes, or misses on
// any recipe fails, with the recipe and the worst element named. Kernels run isolated
// (runtime/worker.h): one bad kernel never stops the others.
#pragma once
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "corpus/corpus.h"
#include "oracle/compare.h"
#include "runtime/cpu/compile.h"
#include "runtime/worker.h"

namespace kaudit::oracle {

struct GateCase {
  std::string recipe;
  corpus::Assignment dims;
  runtime::Status status = runtime::Status::Ok;
  std::string message;  // the worker's message when status != ok
  CompareResult compare;  // against the float64 reference, or the float32 one when judged_by_fp32
  bool passed = false;
  double seconds = 0;  // the kernel run as the runner timed it (worker start, transfers and retries included)
  // Wall seconds of the case's steps on the host (verify --json `phase_seconds`; `timed` false
  // when the case threw before its run ended): making the inputs; the float64 reference (loading
  // the Model, exported by Python on a cache miss, and running it: on the GPU on the CUDA
  // backend, reference.h); the run (as
  // `seconds`, plus binding the arguments); judging the outputs (comparison, and the float32
  // reference where the judgement falls back to it).
  bool timed = false;
  double inputs_seconds = 0, reference_seconds = 0, run_seconds = 0, judge_seconds = 0;
  // Where the task's own Model run in float32 misses the float64 reference at the gate's tolerance
  // too (a float32 product that overflows or underflows, a long float32 accumulation over
  // cancelling terms), no float32 kernel can be held to float64 there: the case is judged against
  // that float32 reference instead, at the same tolerance. `fp32_miss` says how it missed.
  bool judged_by_fp32 = false;
  CompareResult fp32_miss;
};

struct KernelVerdict {
  std::string kernel;  // "<task>/<name>"
  std::string task;
  bool passed = false;
  std::string failure;  // first failure in words: build error, recipe + status or worst element
  std::vector<GateCase> cases;
  double build_seconds = 0;
};

struct GateReport {
  std::size_t tasks = 0;
  std::vector<KernelVerdict> kernels;
  std::size_t passed() const;
  std::vector<const KernelVerdict*> failed() const;
};

struct GateOptions {
  std::filesystem::path cache_dir;
  std::filesystem::path worker_exe;  // binary with a `worker` subcommand (kaudit)
  runtime::WorkerLimits limits;      // limits.cuda: build with nvcc and run on the GPU (runtime/cuda/)
  std::vector<std::string> only;     // kernel ids to verify; empty: all
  std::string preset = "small";      // the task preset of the gate's recipes (odd shapes stay)
  std::function<void(const KernelVerdict&)> on_kernel;  // progress callback, after each kernel
  // Progress callback after each case (recipe) of a kernel, with its phase timings: at native
  // shapes a kernel takes minutes, and a run cut off by a time limit still says where it went.
  std::function<void(const std::string& kernel, const GateCase&)> on_case;
};

GateReport run_gate(const corpus::Corpus& corpus, const GateOptions& options);

// Builds kernels for the CPU backend, or with nvcc for the GPU when `cuda` (both fill a CpuBuild:
// ok, library, diagnostics), in parallel (cached builds cost nothing).
std::vector<cpu::CpuBuild> build_kernels(const std::vector<const corpus::Kernel*>& kernels,
                                         const std::filesystem::path& cache_dir, bool cuda = false);

// For display: on a pass, the largest |out - ref| / allowed over the elements (< 1); on a
// failure, that ratio at the worst element (> 1, or inf for a NaN/Inf mismatch).
double error_ratio(const CompareResult& c);

}  // namespace kaudit::oracle
