#include "oracle/gate.h"

#include <chrono>
#include <map>
#include <sstream>

#include "common/parallel.h"
#include "oracle/judge.h"
#include "oracle/recipes.h"
#include "oracle/reference.h"
#include "runtime/cpu/compile.h"
#include "runtime/cuda/build.h"
#include "runtime/cuda/device.h"

namespace kaudit::oracle {
namespace {

std::string describe_dims(const corpus::Assignment& dims) {
  std::ostringstream os;
  bool first = true;
  for (const auto& [k, v] : dims) {
    os << (first ? "" : ",") << k << "=" << v;
    first = false;
  }
  return os.str();
}

std::string case_failure_text(const GateCase& c) {
  std::ostringstream os;
  os << "recipe '" << c.recipe << "' (" << describe_dims(c.dims) << "): ";
  if (c.status != runtime::Status::Ok) {
    os << runtime::to_string(c.status);
    if (!c.message.empty()) os << ": " << c.message;
  } else {
    os << c.compare.to_string();
  }
  return os.str();
}

// A kernel that misses the float64 reference passes the case only if the Model itself, run in
// float32 on the same inputs, misses it too and the kernel agrees with that float32 answer.
void judge_by_fp32_where_it_misses(GateCase& c, const std::vector<at::Tensor>& outputs, const RecipeRun& run,
                                   const GateTolerance& tol) {
  const std::vector<at::Tensor> ref32 = run.model.forward(run.inputs, at::kFloat);
  const CompareResult fp32_vs_fp64 = compare_gate(ref32, run.reference, tol);
  if (fp32_vs_fp64.ok) return;  // float32 can meet the tolerance here: the kernel's miss is its own
  c.judged_by_fp32 = true;
  c.fp32_miss = fp32_vs_fp64;
  c.compare = compare_gate(outputs, ref32, tol);
  c.passed = c.compare.ok;
}

std::string case_failure(const GateCase& c) {
  std::string s = case_failure_text(c);
  if (c.judged_by_fp32)
    s += " (judged against the Model run in float32, which misses the float64 reference here too: " +
         c.fp32_miss.to_string() + ")";
  return s;
}

}  // namespace

std::size_t GateReport::passed() const {
  std::size_t n = 0;
  for (const auto& k : kernels) n += k.passed;
  return n;
}

std::vector<const KernelVerdict*> GateReport::failed() const {
  std::vector<const KernelVerdict*> out;
  for (const auto& k : kernels)
    if (!k.passed) out.push_back(&k);
  return out;
}

double error_ratio(const CompareResult& c) {
  if (c.elements == 0) return 0;
  if (c.ok) return c.max_ratio_within;
  if (c.allowed > 0) return c.abs_err / c.allowed;
  return c.abs_err > 0 ? std::numeric_limits<double>::infinity() : 0.0;
}

std::vector<cpu::CpuBuild> build_kernels(const std::vector<const corpus::Kernel*>& kernels,
                                         const std::filesystem::path& cache_dir, bool cuda) {
  std::vector<cpu::CpuBuild> builds(kernels.size());
  if (cuda) {
    const cuda::CudaCompiler compiler(cache_dir, cuda::probe_gpu().arch());
    parallel::for_each_index(0, kernels.size(), [&](std::size_t i) {
      builds[i] = compiler.build(kernels[i]->source, kernels[i]->file, kernels[i]->entry);
    });
    return builds;
  }
  cpu::CpuCompiler compiler(cache_dir);
  parallel::for_each_index(0, kernels.size(), [&](std::size_t i) {
    builds[i] = compiler.build(kernels[i]->source, kernels[i]->file, kernels[i]->entry);
  });
  return builds;
}

GateReport run_gate(const corpus::Corpus& corpus, const GateOptions& options) {
  GateReport report;
  std::vector<const corpus::Kernel*> kernels;
  for (const auto& k : corpus.kernels)
    if (options.only.empty() || std::find(options.only.begin(), options.only.end(), k.id()) != options.only.end())
      kernels.push_back(&k);
  std::map<std::string, bool> tasks_seen;
  for (const auto* k : kernels) tasks_seen[k->task] = true;
  report.tasks = tasks_seen.size();

  const std::vector<cpu::CpuBuild> builds = build_kernels(kernels, options.cache_dir, options.limits.cuda);

  ReferenceStore references(options.cache_dir, default_export_script());
  references.set_placement(reference_placement(options.limits.cuda));
  runtime::IsolatedRunner runner(options.worker_exe, options.limits);
  for (std::size_t ki = 0; ki < kernels.size(); ++ki) {
    const corpus::Kernel& kernel = *kernels[ki];
    const corpus::Task& task = *corpus.find_task(kernel.task);
    KernelVerdict v;
    v.kernel = kernel.id();
    v.task = kernel.task;
    v.build_seconds = builds[ki].seconds;
    if (!builds[ki].ok) {
      v.failure = std::string("does not build for the ") + (options.limits.cuda ? "CUDA" : "CPU") + " backend:\n" +
                  builds[ki].diagnostics;
    } else {
      v.passed = true;
      for (const Recipe& recipe : gate_recipes(task, options.preset)) {
        GateCase c;
        c.recipe = recipe.name;
        bool no_reference = false;
        try {
          c.dims = dims_for(task, recipe);  // named in the failure even when the reference fails
          const RecipeRun run = run_recipe(references, runner, task, kernel, builds[ki].library, recipe, at::kDouble);
          const runtime::RunResult& r = run.result;
          c.dims = run.dims;
          c.status = r.status;
          c.message = r.message;
          c.seconds = r.seconds;
          c.inputs_seconds = run.inputs_seconds;
          c.reference_seconds = run.reference_seconds;
          c.run_seconds = run.run_seconds;
          c.timed = true;
          if (r.status == runtime::Status::Ok) {
            const auto judging = std::chrono::steady_clock::now();
            GateTolerance tol = r.outputs.empty() ? default_gate_tolerance(at::kFloat)
                                                  : gate_tolerance(task, r.outputs[0].scalar_type());
            c.compare = compare_gate(r.outputs, run.reference, tol);
            c.passed = c.compare.ok;
            if (!c.passed) judge_by_fp32_where_it_misses(c, r.outputs, run, tol);
            c.judge_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - judging).count();
          }
        } catch (const ReferenceError& e) {
          c.status = runtime::Status::Exception;
          c.message = std::string("reference export failed: ") + e.what();
          no_reference = true;
        } catch (const std::exception& e) {
          c.status = runtime::Status::Exception;
          c.message = e.what();
        }
        if (!c.passed && v.passed) {
          v.passed = false;
          v.failure = case_failure(c);
        }
        if (options.on_case) options.on_case(v.kernel, c);
        v.cases.push_back(std::move(c));
        if (no_reference) break;  // every other recipe would fail the same way
      }
    }
    if (options.on_kernel) options.on_kernel(v);
    report.kernels.push_back(std::move(v));
  }
  return report;
}

}  // namespace kaudit::oracle
