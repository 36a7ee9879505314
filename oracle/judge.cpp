#include "oracle/judge.h"

#include "oracle/harness.h"

#include <chrono>

#include "runtime/shared_tensor.h"

namespace kaudit::oracle {

namespace {
// As the audit's pool (audit/spill.h): below this a tensor's bytes cost less than a descriptor.
constexpr std::size_t kShareMinBytes = std::size_t(1) << 20;
}  // namespace

const TrialOutcome* OracleVerdict::first_failure() const {
  for (const auto& t : trials)
    if (!t.passed) return &t;
  return nullptr;
}

std::vector<runtime::EntryArg> bind_entry_args(const corpus::Task& task, const corpus::Kernel& kernel,
                                               const std::vector<at::Tensor>& inputs,
                                               const corpus::Assignment& dims, const Reference& reference) {
  std::vector<runtime::EntryArg> args;
  for (const auto& a : kernel.args) {
    if (auto* in = std::get_if<corpus::InputRef>(&a)) {
      for (std::size_t i = 0; i < task.inputs.size(); ++i)
        if (task.inputs[i].name == in->name) args.push_back(runtime::EntryArg::of(inputs[i]));
    } else if (auto* p = std::get_if<corpus::ParamRef>(&a)) {
      args.push_back(runtime::EntryArg::of(reference.parameter(p->name)));
    } else if (auto* d = std::get_if<corpus::DimRef>(&a)) {
      args.push_back(runtime::EntryArg::of_int(dims.at(d->name)));
    } else if (auto* i = std::get_if<int64_t>(&a)) {
      args.push_back(runtime::EntryArg::of_int(*i));
    } else if (auto* x = std::get_if<double>(&a)) {
      args.push_back(runtime::EntryArg::of_double(*x));
    } else if (auto* b = std::get_if<bool>(&a)) {
      args.push_back(runtime::EntryArg::of_bool(*b));
    }
  }
  return args;
}

RecipeRun run_recipe(ReferenceStore& references, runtime::IsolatedRunner& runner, const corpus::Task& task,
                     const corpus::Kernel& kernel, const std::filesystem::path& library, const Recipe& recipe,
                     at::ScalarType precision) {
  using clock = std::chrono::steady_clock;
  const auto since = [](clock::time_point t) { return std::chrono::duration<double>(clock::now() - t).count(); };
  RecipeRun out;
  auto t = clock::now();
  out.dims = dims_for(task, recipe);
  out.inputs = make_inputs(task, recipe, out.dims);
  out.inputs_seconds = since(t);
  t = clock::now();
  out.model = references.load(task, out.dims);
  out.reference = out.model.forward(out.inputs, precision);
  out.reference_seconds = since(t);
  t = clock::now();
  // Large inputs go to the worker as sealed files rather than down its socket (runtime/
  // shared_tensor.h), as the audit's pool tensors do: at the kernelbench preset one is 6.4 GB.
  // After the reference, as in the pool: a Model that writes an input it was given uncast (an
  // integer input) writes the tensor the kernel gets, whichever way its bytes travel.
  for (at::Tensor& in : out.inputs)
    if (runtime::sharing_enabled() && in.nbytes() >= kShareMinBytes) in = runtime::share_in_memfd(in);
  runtime::RunRequest req;
  req.library = library;
  req.args = bind_entry_args(task, kernel, out.inputs, out.dims, out.model);
  out.result = runner.run(req);
  out.run_seconds = since(t);
  return out;
}

OracleVerdict Judge::judge(const OracleSpec& spec, const corpus::Task& task, const corpus::Kernel& kernel,
                           const std::filesystem::path& library) {
  // Oracle mode: the spec's trials as one run of its harness on the modelled GPU (harness.h), up
  // to the first trial that fails; a trial whose inputs or reference cannot be had fails alone.
  OracleVerdict v;
  const bool fp64 = spec.reference == ReferencePrecision::Fp64;
  struct Trial {
    std::string name;
    corpus::Assignment dims;
    std::vector<at::Tensor> inputs, reference, other;  // other: the other precision (external checkers get both)
    Reference model;
    ReferenceTrace trace;
  };
  std::vector<Trial> trials;
  for (const Recipe& recipe : trials_for(spec, task.name)) {
    Trial t;
    t.name = recipe.name;
    try {
      t.dims = dims_for(task, recipe);
      t.inputs = make_inputs(task, recipe, t.dims);
      t.model = references_.load(task, t.dims);
      t.reference = t.model.forward(t.inputs, fp64 ? at::kDouble : at::kFloat);
      if (spec.external) t.other = t.model.forward(t.inputs, fp64 ? at::kFloat : at::kDouble);
      (void)trace_reference_forward(t.model, t.inputs, fp64 ? at::kDouble : at::kFloat, t.trace);
      if (!t.model.device(fp64 ? at::kDouble : at::kFloat).is_cpu()) adopt_outputs(t.trace, t.reference);
    } catch (const std::exception& e) {
      TrialOutcome o;
      o.trial = recipe.name;
      o.status = runtime::Status::Exception;
      o.message = e.what();
      v.accepted = false;
      v.trials.push_back(std::move(o));
      return v;
    }
    trials.push_back(std::move(t));
  }
  std::vector<PreparedTrial> prepared;
  for (const Trial& t : trials)
    prepared.push_back({&t.inputs, &t.dims, &t.model, &t.trace, &t.reference, &t.reference});
  HarnessRequest rq = make_harness_request(spec.harness, spec.comparator, task, kernel, library, 0, prepared);
  rq.stop_at_failure = !spec.external;
  rq.gates = spec.gates;
  const auto t0 = std::chrono::steady_clock::now();
  const HarnessResult r = run_harness(runner_, rq);
  v.harness_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  // An external checker judges every trial the loop ran, completed or not, and those after a run
  // that ended the worker (as harness_verdict asks it).
  // Not kaudit's own verdicts: a sandbox violation, a worker that could not be run.
  const auto ask = [&](const HarnessTrialResult& t) {
    return spec.external && !r.infrastructure_failure && t.status != runtime::Status::SandboxViolation;
  };
  std::vector<HarnessTrialResult> runs = r.trials;
  const bool ended = !runs.empty() && runs.back().status != runtime::Status::Ok && runs.size() < trials.size();
  for (std::size_t i = 0; i < runs.size() && i < trials.size(); ++i) {
    TrialOutcome o;
    o.trial = trials[i].name;
    o.dims = trials[i].dims;
    o.status = runs[i].status;
    o.message = runs[i].message;
    const Trial& t = trials[i];
    const RunFacts about = run_facts(runs[i]);
    const JudgeFacts facts{&task, t.name, i, &t.dims, &t.inputs, fp64 ? &t.other : &t.reference,
                           fp64 ? &t.reference : &t.other, &about};
    if (o.status != runtime::Status::Ok && ask(runs[i])) {
      o.compare = judge_outputs(spec, facts, {});
      o.passed = o.compare.ok;
      // A run that ended the loop and that the checker passed: the trials after it are asked about so.
      if (o.passed && ended && i + 1 == runs.size()) runs.resize(trials.size(), not_run_after(runs.back(), runs.size()));
    }
    if (o.status == runtime::Status::Ok) {
      o.compare = judge_outputs(spec, facts, runs[i].outputs);
      if (const char* gate = gate_failure(spec.gates, runs[i].launches, runs[i].library_calls, runs[i].unwritten)) {
        o.compare.ok = false;
        o.compare.reason = std::string(gate) + ": " + gate_reason(gate);
      }
      // A trial that ran before the worker died left no outputs: it passed.
      o.passed = o.compare.ok || (runs[i].outputs.empty() && i + 1 < r.trials.size());
    }
    v.accepted = v.accepted && o.passed;
    v.trials.push_back(std::move(o));
  }
  if (r.trials.empty()) v.accepted = false;
  return v;
}

}  // namespace kaudit::oracle
