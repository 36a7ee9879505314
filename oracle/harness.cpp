// Oracle mode's harness (see harness.h): the recording of a reference forward's allocations, the
// request a checker's loop becomes, and the worker's side that plays it on the device model.
#include "oracle/harness.h"

#include <ATen/ATen.h>
#include <c10/core/Allocator.h>
#include <c10/core/CPUAllocator.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <set>

#include "runtime/cpu/device_memory.h"
#include "runtime/kernel_library.h"

namespace kaudit::oracle {
using nlohmann::json;

// ---- recording a reference forward's allocations ------------------------------------------------
namespace {

at::Tensor bytes_of(const void* p, std::size_t n) {
  at::Tensor t = at::empty({static_cast<std::int64_t>(n)}, at::TensorOptions().dtype(at::kByte));
  if (n) std::memcpy(t.data_ptr(), p, n);
  return t;
}

struct Recorder {
  std::mutex mu;
  ReferenceTrace* trace = nullptr;
  bool active = true;
  int next_id = 0;
  std::map<int, std::pair<const void*, std::size_t>> live;  // id -> (data, bytes)
};
thread_local std::shared_ptr<Recorder> tls_recorder;

// A recorded allocation: the base allocator's block and what the recording needs at its free.
// Kept in a table by data pointer, so that the DataPtr's context is its data (raw_allocate and
// raw_deallocate, which oneDNN's convolutions use, need that).
struct Recorded {
  c10::DataPtr inner;
  std::size_t bytes;
  int id;
  std::shared_ptr<Recorder> recorder;
};
std::mutex g_recorded_mu;
c10::Allocator* g_base_allocator = nullptr;  // what the recording allocator wraps
std::map<void*, Recorded>& recorded() {
  static std::map<void*, Recorded> table;
  return table;
}

void recorded_free(void* data) {
  Recorded r;
  {
    std::lock_guard<std::mutex> lock(g_recorded_mu);
    auto it = recorded().find(data);
    if (it == recorded().end()) {
      // Not recorded: a raw allocation made while nothing was recording, the base's own.
      if (g_base_allocator && g_base_allocator->raw_deleter()) g_base_allocator->raw_deleter()(data);
      return;
    }
    r = std::move(it->second);
    recorded().erase(it);
  }
  std::lock_guard<std::mutex> lock(r.recorder->mu);
  if (!r.recorder->active) return;  // r.inner frees the block on the way out
  // The snapshot is the recorder's own allocation: not recorded.
  std::shared_ptr<Recorder> saved = std::move(tls_recorder);
  const int content = static_cast<int>(r.recorder->trace->contents.size());
  r.recorder->trace->contents.push_back(bytes_of(r.inner.get(), r.bytes));
  r.recorder->trace->events.push_back({false, r.id, r.bytes, content});
  r.recorder->live.erase(r.id);
  tls_recorder = std::move(saved);
}

class RecordingAllocator final : public c10::Allocator {
 public:
  explicit RecordingAllocator(c10::Allocator* base) : base_(base) {}
  // Both spellings of allocate() and copy_data(): see runtime/cpu/device_memory.cpp.
  c10::DataPtr allocate(std::size_t n) const { return make(n); }
  c10::DataPtr allocate(std::size_t n) { return make(n); }
  void copy_data(void* dest, const void* src, std::size_t count) const { std::memcpy(dest, src, count); }
  c10::DataPtr make(std::size_t n) const {
    c10::DataPtr inner = base_->allocate(n);
    const std::shared_ptr<Recorder>& rec = tls_recorder;
    if (!rec || !inner.get()) return inner;
    std::lock_guard<std::mutex> lock(rec->mu);
    if (!rec->active) return inner;
    // A recorded block starts as zeros, as fresh device memory does: what the forward leaves
    // unwritten (a reduction's spare slots, an output it fills only in part) is replayed as zeros,
    // not as whatever this process's heap held there, which differed from run to run (an
    // out-of-bounds read of huber_float4_atomic's fac2b74ac9ee3c8a into such a block was killed in
    // one audit and missed in an identical one).
    std::memset(inner.get(), 0, n);
    const int id = rec->next_id++;
    rec->trace->events.push_back({true, id, n, -1});
    rec->live[id] = {inner.get(), n};
    void* data = inner.get();
    const c10::Device device = inner.device();
    {
      std::lock_guard<std::mutex> table(g_recorded_mu);
      recorded()[data] = Recorded{std::move(inner), n, id, rec};
    }
    return {data, data, &recorded_free, device};
  }
  c10::DeleterFnPtr raw_deleter() const override { return &recorded_free; }

 private:
  c10::Allocator* base_;
};

void install_recording_allocator() {
  static std::once_flag once;
  std::call_once(once, [] {
    g_base_allocator = c10::GetCPUAllocator();
    static RecordingAllocator allocator(g_base_allocator);
    c10::SetCPUAllocator(&allocator, /*priority=*/1);
  });
}

}  // namespace

std::vector<at::Tensor> trace_reference_forward(const Reference& reference, const std::vector<at::Tensor>& inputs,
                                                at::ScalarType precision, ReferenceTrace& trace) {
  reference.ready_on_host(precision);
  // The recording is of a second forward (a first may allocate what only a first run does): where
  // the reference runs elsewhere, the host's first forward is this one.
  if (!reference.device(precision).is_cpu()) (void)reference.forward(inputs, precision, at::kCPU);
  return trace_allocations([&] { return reference.forward(inputs, precision, at::kCPU); }, trace);
}

void adopt_outputs(ReferenceTrace& trace, const std::vector<at::Tensor>& outputs) {
  for (std::size_t i = 0; i < outputs.size() && i < trace.outputs.size(); ++i) {
    if (trace.outputs[i] < 0) continue;
    at::Tensor& block = trace.contents.at(static_cast<std::size_t>(trace.live.at(static_cast<std::size_t>(trace.outputs[i])).second));
    const at::Tensor o = outputs[i].contiguous();
    if (static_cast<std::size_t>(block.numel()) != o.nbytes()) continue;
    block = bytes_of(o.data_ptr(), o.nbytes());
  }
}

std::vector<at::Tensor> trace_allocations(const std::function<std::vector<at::Tensor>()>& fn, ReferenceTrace& trace) {
  install_recording_allocator();
  trace = ReferenceTrace{};
  auto rec = std::make_shared<Recorder>();
  rec->trace = &trace;
  struct Stop {
    std::shared_ptr<Recorder>& rec;
    ~Stop() {
      tls_recorder.reset();
      std::lock_guard<std::mutex> lock(rec->mu);
      rec->active = false;
    }
  } stop{rec};
  tls_recorder = rec;
  std::vector<at::Tensor> out = fn();
  tls_recorder.reset();
  std::lock_guard<std::mutex> lock(rec->mu);
  for (const auto& [id, block] : rec->live) {
    trace.live.emplace_back(id, static_cast<int>(trace.contents.size()));
    trace.contents.push_back(bytes_of(block.first, block.second));
  }
  for (const at::Tensor& o : out) {
    int found = -1;
    if (o.is_contiguous() && o.storage_offset() == 0)
      for (std::size_t l = 0; l < trace.live.size() && found < 0; ++l) {
        const auto& block = rec->live.at(trace.live[l].first);
        if (block.first == o.data_ptr() && block.second == o.nbytes()) found = static_cast<int>(l);
      }
    trace.outputs.push_back(found);
  }
  // A Python number in an operation (`x * 2`) becomes a 0-dim tensor on the CPU, on a GPU too: it
  // is no device allocation. Here every tensor is a CPU tensor, so temporaries of at most 8 bytes
  // that the forward freed again are taken for such numbers and left out (a 0-dim intermediate on
  // the device is left out with them: a 512-byte block of the small pool). Scalars the forward
  // returns (a loss) are kept.
  std::set<int> numbers;
  for (const auto& e : trace.events)
    if (!e.alloc && e.bytes <= 8) numbers.insert(e.id);
  std::vector<ReferenceTrace::Event> kept;
  for (const auto& e : trace.events)
    if (!numbers.count(e.id)) kept.push_back(e);
  trace.events = std::move(kept);
  return out;
}

// ---- the request ----------------------------------------------------------------------------------
namespace {
HarnessResult run_harness_once(runtime::IsolatedRunner& runner, const HarnessRequest& rq, int wall_runs);
}  // namespace

HarnessResult run_harness(runtime::IsolatedRunner& runner, const HarnessRequest& rq, int wall_runs) {
  HarnessResult result = run_harness_once(runner, rq, wall_runs);
  // A loop that runs on past failures (an external checker judges afterwards) and whose worker
  // died at trial k lost the outputs of trials 1..k-1 with it, and the checker must see them: the
  // real harness would have stopped at the first of them that fails. The modelled device is
  // deterministic, so those trials run again alone give the same outputs; the death stays last.
  const std::size_t k = result.trials.size();
  bool lost = false;  // a trial before the death that completed, its outputs gone with the worker
  for (std::size_t i = 0; i + 1 < k; ++i) lost = lost || (result.trials[i].status == runtime::Status::Ok && result.trials[i].outputs.empty());
  if (rq.stop_at_failure || !lost || result.infrastructure_failure || result.trials.back().status == runtime::Status::Ok)
    return result;
  HarnessRequest prefix = rq;
  prefix.trials.resize(k - 1);
  HarnessResult again = run_harness_once(runner, prefix, wall_runs);
  // Otherwise it failed earlier this time, and that run is the account.
  if (!again.infrastructure_failure && again.trials.size() == k - 1 &&
      (again.trials.back().status == runtime::Status::Ok || leaves_the_process_usable(again.trials.back().status)))
    again.trials.push_back(result.trials.back());
  return again;
}

HarnessTrialResult not_run_after(const HarnessTrialResult& last, std::size_t ended_at) {
  HarnessTrialResult gone;
  gone.status = last.status;
  gone.message = "not run: the harness's loop ended at trial " + std::to_string(ended_at) + " (" + last.message.substr(0, 200) + ")";
  return gone;
}

bool leaves_the_process_usable(runtime::Status status) {
  return status == runtime::Status::Exception || status == runtime::Status::LaunchError;
}

RunFacts run_facts(const HarnessTrialResult& r) {
  RunFacts f;
  f.outcome = runtime::to_string(r.status);
  if (r.status != runtime::Status::Ok) f.message = r.message;
  f.launches = r.launches;
  f.library_calls = r.library_calls;
  f.unwritten = r.unwritten;
  f.launch_log = r.launch_log;
  return f;
}

RunFacts run_facts(const runtime::RunResult& r) {
  HarnessTrialResult t;
  t.status = r.status;
  t.message = r.message;
  t.launches = r.launches;
  t.library_calls = r.library_calls;
  t.launch_log = r.launch_log;
  return run_facts(t);
}

namespace {
HarnessResult run_harness_once(runtime::IsolatedRunner& runner, const HarnessRequest& rq, int wall_runs) {
  std::vector<at::Tensor> tensors;
  // A tensor given twice (a reference output that is also the recorded forward's live block, the
  // same reference for the harness and the verdict) is sent once: at native shapes each copy is
  // hundreds of MB down the pipe and in the worker. The worker only reads what it is sent (it
  // copies to the device), so two uses may share one.
  const auto add = [&](const at::Tensor& t) {
    for (std::size_t i = 0; i < tensors.size(); ++i)
      if (tensors[i].is_same(t) ||
          (t.defined() && tensors[i].defined() && tensors[i].data_ptr() == t.data_ptr() &&
           tensors[i].scalar_type() == t.scalar_type() && tensors[i].sizes() == t.sizes() &&
           tensors[i].strides() == t.strides()))
        return i;
    tensors.push_back(t);
    return tensors.size() - 1;
  };
  const auto add_all = [&](const std::vector<at::Tensor>& ts) {
    json a = json::array();
    for (const auto& t : ts) a.push_back(add(t));
    return a;
  };
  json h = {{"kind", kHarnessRequestKind},
            {"library", rq.library.string()},
            {"mutant", rq.mutant},
            {"order", order_name(rq.harness.order)},
            {"inputs", inputs_name(rq.harness.inputs)},
            {"comparator", comparator_to_json(rq.comparator)},
            {"stop_at_failure", rq.stop_at_failure}};
  if (rq.gates.every_output_written) h["probe_unwritten"] = true;
  json models = json::array();
  for (const auto& m : rq.models) models.push_back(add_all(m));
  h["models"] = models;
  json trials = json::array();
  for (const auto& t : rq.trials) {
    json args = json::array();
    for (const auto& a : t.args) {
      switch (a.kind) {
        case HarnessArg::Kind::Input: args.push_back({{"input", a.index}}); break;
        case HarnessArg::Kind::Parameter: args.push_back({{"parameter", a.index}}); break;
        case HarnessArg::Kind::Int: args.push_back({{"int", a.i}}); break;
        case HarnessArg::Kind::Double: args.push_back({{"double", a.d}}); break;
        case HarnessArg::Kind::Bool: args.push_back({{"bool", a.i != 0}}); break;
      }
    }
    json events = json::array();
    for (const auto& e : t.reference.events) events.push_back({e.alloc ? 1 : 0, e.id, e.bytes, e.content});
    json live = json::array();
    for (const auto& [id, content] : t.reference.live) live.push_back({id, content});
    trials.push_back({{"inputs", add_all(t.inputs)},
                      {"model", t.model},
                      {"args", args},
                      {"events", events},
                      {"live", live},
                      {"contents", add_all(t.reference.contents)},
                      {"harness_reference", add_all(t.harness_reference)},
                      {"judge_reference", add_all(t.judge_reference)}});
  }
  h["trials"] = trials;

  HarnessResult result;
  // Each trial is one run of the candidate, three with the probe of every_output_written.
  const std::size_t per_trial = rq.gates.every_output_written ? 3 : 1;
  const int runs = wall_runs > 0 ? wall_runs : static_cast<int>(std::max<std::size_t>(1, per_trial * rq.trials.size()));
  runtime::Exchange ex = runner.exchange(std::move(h), tensors, runs);
  if (ex.status != runtime::Status::Ok || !ex.reply.contains("trials")) {
    // The worker died (a crash, an illegal address, a run over its CPU time) or hung: the run it
    // was on gets the status.
    HarnessTrialResult t;
    t.status = ex.status == runtime::Status::Ok ? runtime::Status::Crash : ex.status;
    t.message = ex.message;
    const std::uint64_t progress = ex.reply.is_object() ? ex.reply.value("progress", std::uint64_t{0}) : 0;
    result.infrastructure_failure = ex.worker_failure;
    for (std::uint64_t i = 1; i < progress && i <= rq.trials.size(); ++i) {
      HarnessTrialResult unknown;  // ran before the death; its outputs died with the worker
      unknown.status = runtime::Status::Ok;
      result.trials.push_back(unknown);
    }
    result.trials.push_back(std::move(t));
    return result;
  }
  // Kernel code runs in the process that wrote this reply and may have written it itself
  // (docs/SECURITY.md): the outputs are checked here, not trusted, and the shape of the reply must
  // be one the harness loop gives, which stops only at a failing trial. So every trial but the last
  // ran and returned outputs, and there are no more trials than were asked for; a reply that falls
  // short of every trial without a failing one is caught by harness_verdict.
  const json& answered = ex.reply.at("trials");
  bool consistent = answered.is_array() && answered.size() <= rq.trials.size();
  // A loop judged by an external checker also goes on past a trial that threw or was refused its
  // launch (serve_loop).
  for (std::size_t i = 0; consistent && i + 1 < answered.size(); ++i) {
    const std::string status = answered[i].is_object() ? answered[i].value("status", "") : "";
    consistent = (status == "ok" && answered[i].value("outputs", 0) > 0) ||
                 (!rq.stop_at_failure && leaves_the_process_usable(runtime::status_from_name(status)));
  }
  if (!consistent) {
    HarnessTrialResult t;
    t.status = runtime::Status::SandboxViolation;
    t.message = "the run's reply does not have the shape of the harness's loop";
    result.trials.push_back(std::move(t));
    return result;
  }
  std::size_t next = 0;
  for (const auto& t : answered) {
    HarnessTrialResult r;
    r.status = runtime::status_from_name(t.value("status", "crash"));
    r.message = t.value("message", "");
    r.over_thread_budget = t.value("thread_budget", false);
    if (t.contains("launches") && t.at("launches").is_number_integer()) r.launches = t.at("launches").get<int>();
    if (t.contains("library_calls") && t.at("library_calls").is_number_integer())
      r.library_calls = t.at("library_calls").get<int>();
    if (t.contains("unwritten") && t.at("unwritten").is_number_integer()) r.unwritten = t.at("unwritten").get<std::int64_t>();
    r.launch_log = runtime::launch_log_from_reply(t);
    const std::size_t n = t.value("outputs", std::size_t{0});
    for (std::size_t k = 0; k < n && next < ex.tensors.size(); ++k) r.outputs.push_back(ex.tensors[next++]);
    result.trials.push_back(std::move(r));
  }
  return result;
}

}  // namespace

const char* status_cause(runtime::Status status) {
  switch (status) {
    case runtime::Status::Ok: return nullptr;
    case runtime::Status::Crash: return "crash";
    case runtime::Status::Timeout: return "timeout";
    case runtime::Status::BarrierDivergence: return "barrier-divergence";
    case runtime::Status::LaunchError: return "launch-error";
    case runtime::Status::OutOfBounds: return "out-of-bounds";
    case runtime::Status::Exception: return "exception";
    case runtime::Status::SandboxViolation: return "sandbox-violation";
  }
  return "crash";
}

const char* mismatch_cause(const std::vector<at::Tensor>& outputs, const std::vector<at::Tensor>& reference) {
  if (outputs.size() != reference.size()) return "wrong-output";
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    const at::Tensor& o = outputs[i];
    const at::Tensor& r = reference[i];
    if (!o.is_floating_point() || o.sizes() != r.sizes()) continue;
    if (has_unexpected_non_finite(o, r)) return "nan-inf";
  }
  return "wrong-output";
}

HarnessVerdict harness_verdict(const HarnessRequest& request, const HarnessResult& result, const TrialJudge& judge) {
  HarnessVerdict v;
  // A kill by a run that did not complete, which the checker failed: the run's cause, both reasons.
  const auto failed_by_checker = [](std::size_t t, const HarnessTrialResult& r, const CompareResult& c) {
    return HarnessVerdict{true, static_cast<int>(t), status_cause(r.status),
                          r.message.substr(0, 200) + " (the checker: " + c.reason.substr(0, 200) + ")"};
  };
  for (std::size_t t = 0; t < result.trials.size(); ++t) {
    const HarnessTrialResult& r = result.trials[t];
    if (r.status != runtime::Status::Ok) {
      // An external checker is asked about a run that did not complete too: its harness decides.
      // Not a sandbox violation: that verdict is kaudit's (a forged reply, a process left behind).
      if (judge && t < request.trials.size() && r.status != runtime::Status::SandboxViolation) {
        const CompareResult c = judge(t, r);
        if (c.ok) continue;
        return failed_by_checker(t, r, c);
      }
      v = {true, static_cast<int>(t), status_cause(r.status), r.message.substr(0, 300)};
      return v;
    }
    if (r.outputs.empty() && t + 1 < result.trials.size()) continue;  // ran before a death: it passed
    if (t >= request.trials.size()) break;
    if (const char* gate = gate_failure(request.gates, r.launches, r.library_calls, r.unwritten))
      return {true, static_cast<int>(t), gate, gate_reason(gate)};
    const CompareResult c = judge ? judge(t, r)
                                  : apply_comparator(request.comparator, r.outputs, request.trials[t].judge_reference);
    if (!c.ok)
      return {true, static_cast<int>(t),
              c.cause.empty() ? mismatch_cause(r.outputs, request.trials[t].judge_reference) : c.cause, c.to_string()};
  }
  // The checker passed a run that ended the worker (a crash, a hang) or its CUDA context: the
  // loop's later trials would run in that dead process or context and end the same way (CUDA's
  // errors of that kind are sticky), so the checker is asked about each of them so.
  if (judge && !result.trials.empty() && result.trials.size() < request.trials.size() &&
      result.trials.back().status != runtime::Status::Ok && result.trials.back().status != runtime::Status::SandboxViolation) {
    const HarnessTrialResult gone = not_run_after(result.trials.back(), result.trials.size());
    for (std::size_t t = result.trials.size(); t < request.trials.size(); ++t)
      if (const CompareResult c = judge(t, gone); !c.ok) return failed_by_checker(t, gone, c);
    return v;
  }
  // Every trial passed, yet fewer came back than were asked for: not what the loop does (it stops
  // only at a failing trial), so not a pass.
  if (result.trials.size() < request.trials.size())
    return {true, static_cast<int>(result.trials.size()), status_cause(runtime::Status::SandboxViolation),
            "the run answered for " + std::to_string(result.trials.size()) + " of " +
                std::to_string(request.trials.size()) + " trials"};
  return v;
}

HarnessRequest make_harness_request(const HarnessSpec& harness, const Comparator& comparator, const corpus::Task& task,
                                    const corpus::Kernel& kernel, const std::filesystem::path& library, int mutant,
                                    const std::vector<PreparedTrial>& trials) {
  HarnessRequest rq;
  rq.harness = harness;
  rq.library = library;
  rq.mutant = mutant;
  rq.comparator = comparator.resolved(evaluation_precision(task));
  std::map<std::string, std::size_t> model_of;  // by reference key
  for (const PreparedTrial& p : trials) {
    HarnessTrial t;
    t.inputs = *p.inputs;
    const Reference& ref = *p.reference;
    auto [it, fresh] = model_of.emplace(ref.key(), rq.models.size());
    if (fresh) {
      std::vector<at::Tensor> params;
      for (const auto& name : ref.parameter_names()) params.push_back(ref.parameter(name));
      rq.models.push_back(std::move(params));
    }
    t.model = it->second;
    const auto& names = ref.parameter_names();
    for (const auto& a : kernel.args) {
      HarnessArg h;
      if (auto* in = std::get_if<corpus::InputRef>(&a)) {
        h.kind = HarnessArg::Kind::Input;
        h.index = task.inputs.size();
        for (std::size_t i = 0; i < task.inputs.size(); ++i)
          if (task.inputs[i].name == in->name) h.index = i;
      } else if (auto* pr = std::get_if<corpus::ParamRef>(&a)) {
        h.kind = HarnessArg::Kind::Parameter;
        const auto pos = std::find(names.begin(), names.end(), pr->name);
        if (pos == names.end()) (void)ref.parameter(pr->name);  // throws ReferenceError naming it
        h.index = static_cast<std::size_t>(pos - names.begin());
      } else if (auto* d = std::get_if<corpus::DimRef>(&a)) {
        h.kind = HarnessArg::Kind::Int;
        h.i = p.dims->at(d->name);
      } else if (auto* i = std::get_if<int64_t>(&a)) {
        h.kind = HarnessArg::Kind::Int;
        h.i = *i;
      } else if (auto* x = std::get_if<double>(&a)) {
        h.kind = HarnessArg::Kind::Double;
        h.d = *x;
      } else if (auto* b = std::get_if<bool>(&a)) {
        h.kind = HarnessArg::Kind::Bool;
        h.i = *b;
      }
      t.args.push_back(h);
    }
    t.reference = *p.trace;
    t.harness_reference = *p.harness_reference;
    t.judge_reference = *p.judge_reference;
    rq.trials.push_back(std::move(t));
  }
  return rq;
}

// ---- the worker's side ----------------------------------------------------------------------------
namespace {

// Where the harness's loop runs: the modelled GPU of a CPU worker (runtime/cpu/device_memory.h)
// or device 0 of a CUDA worker (runtime/cuda/gpu_run.h, PyTorch's real caching allocator). The
// loop (serve_loop) is the same; a device says how tensors get there and how a kernel runs.
class HarnessDevice {
 public:
  virtual ~HarnessDevice() = default;
  // Moves host tensors to the device, in order (`x.cuda()`).
  virtual std::vector<at::Tensor> to_device(const std::vector<at::Tensor>& host) = 0;
  // A block of `bytes` (a reference forward's allocation), and writing a host copy's bytes into it.
  virtual at::Tensor block(std::int64_t bytes) = 0;
  virtual void fill(at::Tensor& block, const at::Tensor& content) = 0;
  // Runs the candidate; its reply status and message in `result`, device outputs in `outputs`.
  virtual void run(const std::vector<runtime::EntryArg>& args, json& result, std::vector<at::Tensor>& outputs) = 0;
  // The harness's comparison on the device (compare_on_device).
  virtual void compare(const Comparator& c, const std::vector<at::Tensor>& host_reference,
                       const std::vector<at::Tensor>& outputs) = 0;
  // The verdict (apply_comparator against the spec's reference) and host copies of the outputs,
  // made outside the harness's memory.
  virtual bool judge(const Comparator& c, const std::vector<at::Tensor>& outputs,
                     const std::vector<at::Tensor>& judge_reference, std::vector<at::Tensor>& host_copies) = 0;
  // True once the device is unusable (a CUDA error that is not a refused launch): the loop stops.
  virtual bool lost() const { return false; }
};

// Replays a reference forward's allocations; returns the blocks still live at its end.
std::vector<at::Tensor> replay(HarnessDevice& device, const json& trial, const std::vector<at::Tensor>& tensors) {
  const json& contents = trial.at("contents");
  const auto content = [&](int i) -> const at::Tensor& { return tensors.at(contents.at(i).get<std::size_t>()); };
  std::map<int, at::Tensor> blocks;
  for (const auto& e : trial.at("events")) {
    const int id = e.at(1);
    if (e.at(0).get<int>() == 1) {
      blocks[id] = device.block(e.at(2).get<std::int64_t>());
      continue;
    }
    auto it = blocks.find(id);
    if (it == blocks.end()) continue;
    device.fill(it->second, content(e.at(3).get<int>()));
    blocks.erase(it);  // the block goes back to the allocator holding what the forward left there
  }
  std::vector<at::Tensor> live;
  for (const auto& l : trial.at("live")) {
    auto it = blocks.find(l.at(0).get<int>());
    if (it == blocks.end()) continue;
    device.fill(it->second, content(l.at(1).get<int>()));
    live.push_back(it->second);
    blocks.erase(it);
  }
  return live;  // allocations neither freed nor live (none in practice) are freed here
}

// The harness's own comparison, on the device: its temporaries are allocated and freed in the
// device's allocator, where the next trial's tensors may find them. A shape check comes first, as
// in KernelBench (a mismatch returns before any comparison). The built-in comparators are
// torch.allclose (ATen's isclose, the same code on every device) or, for the checkers whose code
// is not public, the spec's formula written with the same element-wise operators.
void compare_on_device(const Comparator& c, const std::vector<at::Tensor>& ref, const std::vector<at::Tensor>& out) {
  if (ref.size() != out.size()) return;
  for (std::size_t i = 0; i < ref.size(); ++i)
    if (ref[i].sizes() != out[i].sizes() || ref[i].scalar_type() != out[i].scalar_type()) return;
  try {
    for (std::size_t i = 0; i < ref.size(); ++i) {
      const at::Tensor& a = ref[i];
      const at::Tensor& b = out[i];
      if (!a.is_floating_point()) {
        (void)a.equal(b);
      } else if (c.kind == ComparatorKind::Allclose) {
        (void)at::allclose(a, b, c.rtol, c.atol, c.equal_nan);
      } else if (c.kind == ComparatorKind::Absolute) {
        (void)((a - b).abs() <= c.atol).all().item<bool>();
      } else {
        const double scale = std::max(1.0, a.abs().max().item<double>());
        (void)((a - b).abs() <= a.abs() * c.rtol + c.atol * scale).all().item<bool>();
      }
    }
  } catch (const std::exception&) {
    // What the harness's own comparison would raise is the verdict's business, not the model's.
  }
}

// The modelled GPU of a CPU worker: every tensor made during the request is a block of the model.
class ModelledDevice final : public HarnessDevice {
 public:
  // `fresh_fill` >= 0: fresh device memory holds that byte instead of zeros (the probe of
  // every_output_written; a real session is zero-filled).
  ModelledDevice(const runtime::KernelLibrary& library, rt::RunOptions options, runtime::WorkerContext& context,
                 int fresh_fill = -1)
      : library_(library), options_(options), context_(context) {
    if (!rt::begin_device_session(fresh_fill)) throw std::runtime_error("this worker has no device memory model");
  }
  ~ModelledDevice() override { rt::end_device_session(); }
  std::vector<at::Tensor> to_device(const std::vector<at::Tensor>& host) override {
    std::vector<at::Tensor> out;
    for (const auto& t : host) out.push_back(t.clone(at::MemoryFormat::Contiguous));
    return out;
  }
  at::Tensor block(std::int64_t bytes) override { return at::empty({bytes}, at::TensorOptions().dtype(at::kByte)); }
  void fill(at::Tensor& b, const at::Tensor& c) override {
    if (c.numel() == b.numel() && c.numel() > 0) std::memcpy(b.data_ptr(), c.data_ptr(), c.numel());
  }
  void run(const std::vector<runtime::EntryArg>& args, json& result, std::vector<at::Tensor>& outputs) override {
    if (context_.rearm_cpu_budget) context_.rearm_cpu_budget();
    runtime::EntryResult r = library_.call(args, options_);
    if (r.fault.kind == rt::FaultKind::LaunchError) result = {{"status", "launch-error"}, {"message", r.fault.message}};
    else if (r.fault.kind == rt::FaultKind::DeviceException) result = {{"status", "crash"}, {"message", r.fault.message}};
    else if (r.fault.kind == rt::FaultKind::WorkBudget)
      result = {{"status", "timeout"}, {"thread_budget", true}, {"message", r.fault.message}};
    else if (r.fault.kind == rt::FaultKind::Hang) result = {{"status", "timeout"}, {"message", r.fault.message}};
    else if (r.fault.kind == rt::FaultKind::BarrierDivergence)  // not raised in oracle mode
      result = {{"status", "barrier-divergence"}, {"message", r.fault.message}};
    else if (r.threw) result = {{"status", "exception"}, {"message", r.message}};
    else result = {{"status", "ok"}, {"message", ""}};
    result["launches"] = r.launches;
    result["library_calls"] = r.library_calls;
    result["launch_log"] = runtime::launch_log_json(r.launch_log);
    outputs = std::move(r.outputs);
  }
  void compare(const Comparator& c, const std::vector<at::Tensor>& host_reference,
               const std::vector<at::Tensor>& outputs) override {
    compare_on_device(c, host_reference, outputs);
  }
  bool judge(const Comparator& c, const std::vector<at::Tensor>& outputs, const std::vector<at::Tensor>& judge_reference,
             std::vector<at::Tensor>& host_copies) override {
    rt::HostAllocationScope host;  // the verdict and the copies sent back are not the harness's
    const bool passed = apply_comparator(c, outputs, judge_reference).ok;
    for (const auto& o : outputs) host_copies.push_back(o.clone(at::MemoryFormat::Contiguous));
    return passed;
  }

 private:
  const runtime::KernelLibrary& library_;
  rt::RunOptions options_;
  runtime::WorkerContext& context_;
};

// Device 0 of a CUDA worker, through PyTorch's caching allocator, as a real harness runs.
class CudaDevice final : public HarnessDevice {
 public:
  CudaDevice(runtime::WorkerContext& context, std::string library, int mutant)
      : context_(context), library_(std::move(library)), mutant_(mutant) {
    context_.gpu_prepare(library_);  // loads libtorch's CUDA part with the library: before any CUDA tensor
  }
  std::vector<at::Tensor> to_device(const std::vector<at::Tensor>& host) override {
    std::vector<at::Tensor> out;
    for (const auto& t : host) out.push_back(t.to(gpu_));
    return out;
  }
  at::Tensor block(std::int64_t bytes) override {
    return at::empty({bytes}, at::TensorOptions().dtype(at::kByte).device(gpu_));
  }
  void fill(at::Tensor& b, const at::Tensor& c) override {
    if (c.numel() == b.numel() && c.numel() > 0) b.copy_(c);
  }
  void run(const std::vector<runtime::EntryArg>& args, json& result, std::vector<at::Tensor>& outputs) override {
    bool context_lost = false;
    result = context_.gpu_call(library_, mutant_, args, outputs, context_lost);
    lost_ = lost_ || context_lost;
  }
  // The comparison's reference is a device copy of the host reference (the replayed reference
  // outputs are raw blocks whose order need not be the outputs'): one block more per output than a
  // real harness holds, allocated after the candidate ran and freed after the comparison.
  void compare(const Comparator& c, const std::vector<at::Tensor>& host_reference,
               const std::vector<at::Tensor>& outputs) override {
    compare_on_device(c, to_device(host_reference), outputs);
  }
  bool judge(const Comparator& c, const std::vector<at::Tensor>& outputs, const std::vector<at::Tensor>& judge_reference,
             std::vector<at::Tensor>& host_copies) override {
    for (const auto& o : outputs) host_copies.push_back(o.to(at::kCPU).contiguous());
    return apply_comparator(c, host_copies, judge_reference).ok;
  }
  bool lost() const override { return lost_; }

 private:
  runtime::WorkerContext& context_;
  std::string library_;
  int mutant_;
  const at::Device gpu_{at::kCUDA, 0};
  bool lost_ = false;
};

// The entry function's arguments of a trial: its inputs, the candidate's parameters, scalars.
std::vector<runtime::EntryArg> candidate_args(const json& trial, const std::vector<at::Tensor>& inputs,
                                              const std::vector<at::Tensor>& params) {
  std::vector<runtime::EntryArg> args;
  for (const auto& a : trial.at("args")) {
    if (a.contains("input")) args.push_back(runtime::EntryArg::of(inputs.at(a.at("input").get<std::size_t>())));
    else if (a.contains("parameter")) args.push_back(runtime::EntryArg::of(params.at(a.at("parameter").get<std::size_t>())));
    else if (a.contains("int")) args.push_back(runtime::EntryArg::of_int(a.at("int").get<std::int64_t>()));
    else if (a.contains("double")) args.push_back(runtime::EntryArg::of_double(a.at("double").get<double>()));
    else args.push_back(runtime::EntryArg::of_bool(a.at("bool").get<bool>()));
  }
  return args;
}

json serve_loop(HarnessDevice& device, const json& req, std::vector<at::Tensor>& tensors,
                std::vector<at::Tensor>& outputs, runtime::WorkerContext& context) {
  const bool candidate_first = req.at("order").get<std::string>() == "candidate-first";
  const bool cloned = req.at("inputs").get<std::string>() == "cloned";
  const Comparator comparator = comparator_from_json(req.at("comparator"));
  const bool stop_at_failure = req.value("stop_at_failure", true);
  const auto host_list = [&](const json& indices) {
    std::vector<at::Tensor> out;
    for (const auto& i : indices) out.push_back(tensors.at(i.get<std::size_t>()));
    return out;
  };
  std::vector<std::vector<at::Tensor>> models;
  for (const auto& m : req.at("models")) models.push_back(host_list(m));

  json trial_results = json::array();
  std::vector<at::Tensor> inputs, reference_live, candidate_outputs, reference_params, candidate_params;
  std::size_t trial_index = 0, model = SIZE_MAX;
  for (const json& trial : req.at("trials")) {
    ++trial_index;
    if (context.set_progress) context.set_progress(trial_index);
    const std::vector<at::Tensor> host_inputs = host_list(trial.at("inputs"));
    inputs.clear();  // `inputs = get_inputs()`: the previous trial's device inputs go first
    inputs = device.to_device(host_inputs);
    if (const std::size_t m = trial.at("model"); m != model) {
      // `model.cuda()` and `model_new.cuda()` in the first trial, after its inputs (and again
      // for a trial whose shapes need another Model).
      model = m;
      reference_params.clear();
      candidate_params.clear();
      reference_params = device.to_device(models.at(m));
      candidate_params = device.to_device(models.at(m));
    }
    const auto run_reference = [&] {
      std::vector<at::Tensor> live = replay(device, trial, tensors);
      reference_live = std::move(live);  // `output = model(...)`: the previous output goes after
    };
    json result;
    const auto run_candidate = [&] {
      std::vector<at::Tensor> clones;
      if (cloned) clones = device.to_device(host_inputs);
      const std::vector<at::Tensor>& given = cloned ? clones : inputs;
      std::vector<runtime::EntryArg> args = candidate_args(trial, given, candidate_params);
      std::vector<at::Tensor> produced;
      device.run(args, result, produced);
      args.clear();
      clones.clear();
      candidate_outputs = std::move(produced);  // `output_new = model_new(...)`
    };
    if (candidate_first) {
      run_candidate();
      if (result["status"] == "ok") run_reference();
    } else {
      run_reference();
      run_candidate();
    }
    bool passed = false;
    if (result["status"] == "ok") {
      device.compare(comparator, host_list(trial.at("harness_reference")), candidate_outputs);
      std::vector<at::Tensor> host;
      passed = device.judge(comparator, candidate_outputs, host_list(trial.at("judge_reference")), host);
      outputs.insert(outputs.end(), host.begin(), host.end());
      result["outputs"] = host.size();
    }
    trial_results.push_back(result);
    // A loop an external checker judges afterwards (!stop_at_failure) goes on past a trial that
    // threw or was refused its launch, as a harness that catches the exception would: neither
    // harms the process or its CUDA context. A crash or a hang ends the worker, a lost device the loop.
    const std::string status = result.value("status", "crash");
    const bool go_on = status == "ok" ? passed || !stop_at_failure
                                      : !stop_at_failure && leaves_the_process_usable(runtime::status_from_name(status));
    if (!go_on || device.lost()) break;
  }
  // Every device tensor goes before the device does (the model is reset).
  inputs.clear();
  reference_live.clear();
  candidate_outputs.clear();
  reference_params.clear();
  candidate_params.clear();
  return {{"status", "ok"}, {"message", ""}, {"trials", trial_results}};
}

// The probe of the gate every_output_written (oracle/spec.h, Gates): for each trial that completed,
// the candidate runs twice more on the trial's inputs, each time alone in a fresh device session
// whose new memory holds 0xFF bytes, then 0x5A bytes, instead of zeros; an output element whose
// bytes are all the fill in both runs was not written by the candidate. Two fills, so that a
// kernel that writes a value whose bytes happen to be one fill (an integer -1, a NaN with every
// bit set) is not taken for one that writes nothing. The probes run after the loop, in sessions
// of their own, so that the loop's memory (what a forgotten output holds) is the harness's alone.
// A probe that does not complete (an exception, a launch error, a hang the worker itself stops)
// leaves the count unrecorded (-1), which fails no gate. What the probes see is only new
// segments' fill: an output block that reuses memory the candidate freed earlier in the same
// probe holds the candidate's own bytes and counts as written, as does an output that is an
// input. A kernel that keeps a device tensor across calls (none in the corpus) would find it gone
// in the probe's fresh session.
void probe_unwritten(const runtime::KernelLibrary& library, const rt::RunOptions& options,
                     runtime::WorkerContext& context, const json& req, std::vector<at::Tensor>& tensors, json& reply) {
  const auto host_list = [&](const json& indices) {
    std::vector<at::Tensor> out;
    for (const auto& i : indices) out.push_back(tensors.at(i.get<std::size_t>()));
    return out;
  };
  json& results = reply.at("trials");
  for (std::size_t t = 0; t < results.size() && t < req.at("trials").size(); ++t) {
    if (results[t].value("status", "") != "ok") continue;
    // A probe that ends the worker (an illegal address, the CPU budget) is its trial's crash or
    // timeout, the trials before it passed, as a gym's own probe would end its run there.
    if (context.set_progress) context.set_progress(t + 1);
    const json& trial = req.at("trials")[t];
    std::vector<std::vector<at::Tensor>> probes;  // host copies of each probe's outputs
    for (const int fill : {0xFF, 0x5A}) {
      ModelledDevice device(library, options, context, fill);
      std::vector<at::Tensor> inputs = device.to_device(host_list(trial.at("inputs")));
      std::vector<at::Tensor> params = device.to_device(host_list(req.at("models").at(trial.at("model").get<std::size_t>())));
      json result;
      std::vector<at::Tensor> produced;
      device.run(candidate_args(trial, inputs, params), result, produced);
      if (result.value("status", "") != "ok") break;
      rt::HostAllocationScope host;
      std::vector<at::Tensor> copies;
      for (const auto& o : produced) copies.push_back(o.contiguous().clone());
      probes.push_back(std::move(copies));
      produced.clear();
    }
    if (probes.size() != 2 || probes[0].size() != probes[1].size()) continue;
    std::int64_t unwritten = 0;
    for (std::size_t o = 0; o < probes[0].size(); ++o) {
      const at::Tensor& a = probes[0][o];
      const at::Tensor& b = probes[1][o];
      if (a.sizes() != b.sizes() || a.scalar_type() != b.scalar_type()) continue;
      const std::size_t width = a.element_size();
      const auto* pa = static_cast<const std::uint8_t*>(a.data_ptr());
      const auto* pb = static_cast<const std::uint8_t*>(b.data_ptr());
      for (std::int64_t i = 0; i < a.numel(); ++i) {
        bool filled = true;
        for (std::size_t k = 0; k < width && filled; ++k)
          filled = pa[i * width + k] == 0xFF && pb[i * width + k] == 0x5A;
        unwritten += filled;
      }
    }
    results[t]["unwritten"] = unwritten;
  }
}

}  // namespace

json serve_harness_request(const json& req, std::vector<at::Tensor>& tensors, std::vector<at::Tensor>& outputs,
                           runtime::WorkerContext& context) {
  if (context.gpu_call) {
    CudaDevice device(context, req.at("library").get<std::string>(), req.value("mutant", 0));
    return serve_loop(device, req, tensors, outputs, context);
  }
  const runtime::KernelLibrary& library = context.library(req.at("library").get<std::string>());
  rt::RunOptions opts;
  opts.mode = rt::Mode::Oracle;
  // Blocks one after another, in order: a block finds in shared memory what the block before it
  // on its thread left, and that must not depend on how the blocks were spread over threads.
  opts.serial_blocks = true;
  opts.active_mutant = req.value("mutant", 0);
  opts.thread_budget = context.limits ? context.limits->thread_budget : 0;
  json reply;
  {
    ModelledDevice device(library, opts, context);
    reply = serve_loop(device, req, tensors, outputs, context);
  }
  if (req.value("probe_unwritten", false)) probe_unwritten(library, opts, context, req, tensors, reply);
  return reply;
}

}  // namespace kaudit::oracle
