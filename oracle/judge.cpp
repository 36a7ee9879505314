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

OracleVerdict Judge::judge(const OracleSpec& spec, const corpus::Task& task, const corpus::Kernel& kernel,
                           const std::filesystem::path& library) {
  OracleVerdict v;
  const at::ScalarType precision = spec.reference == ReferencePrecision::Fp64 ? at::kDouble : at::kFloat;
  for (const Recipe& trial : spec.trials) {
    TrialOutcome t;
    t.trial = trial.name;
    try {
      t.dims = dims_for(task, trial);
      const std::vector<at::Tensor> inputs = make_inputs(task, trial, t.dims);
      const Reference reference = references_.load(task, t.dims);
      const std::vector<at::Tensor> ref = reference.forward(inputs, precision);
      runtime::RunRequest req;
      req.library = library;
      req.args = bind_entry_args(task, kernel, inputs, t.dims, reference);
      const runtime::RunResult r = runner_.run(req);
      t.status = r.status;
      t.message = r.message;
      if (r.status == runtime::Status::Ok) {
        t.compare = apply_comparator(spec.comparator, r.outputs, ref);
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
