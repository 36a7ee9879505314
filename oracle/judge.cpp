#include "oracle/judge.h"

namespace kaudit::oracle {

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
        if (task.inputs[i].name == in->name) args.push_back(runtime::EntryArg::of(inputs[i].clone()));
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
  RecipeRun out;
  out.dims = dims_for(task, recipe);
  const std::vector<at::Tensor> inputs = make_inputs(task, recipe, out.dims);
  const Reference reference = references.load(task, out.dims);
  out.reference = reference.forward(inputs, precision);
  runtime::RunRequest req;
  req.library = library;
  req.args = bind_entry_args(task, kernel, inputs, out.dims, reference);
  out.result = runner.run(req);
  return out;
}

OracleVerdict Judge::judge(const OracleSpec& spec, const corpus::Task& task, const corpus::Kernel& kernel,
                           const std::filesystem::path& library) {
  OracleVerdict v;
  const at::ScalarType precision = spec.reference == ReferencePrecision::Fp64 ? at::kDouble : at::kFloat;
  for (const Recipe& trial : trials_for(spec, task.name)) {
    TrialOutcome t;
    t.trial = trial.name;
    try {
      const RecipeRun run = run_recipe(references_, runner_, task, kernel, library, trial, precision);
      t.dims = run.dims;
      t.status = run.result.status;
      t.message = run.result.message;
      if (run.result.status == runtime::Status::Ok) {
        t.compare = apply_comparator(spec.comparator, run.result.outputs, run.reference);
        t.passed = t.compare.ok;
      }
    } catch (const std::exception& e) {
      t.status = runtime::Status::Exception;
      t.message = e.what();
    }
    v.accepted = v.accepted && t.passed;
    v.trials.push_back(std::move(t));
  }
  return v;
}

}  // namespace kaudit::oracle
