// Oracle mode: a checker's harness, as it runs on a GPU (docs/ORACLES.md, Oracle mode).
//
// A real checker does not run a kernel on freshly poisoned memory under a memory checker. It runs
// a Python loop on one GPU process: per trial it moves the inputs to the device, runs the
// reference Model, runs the candidate on the same (or cloned) tensors, compares, and lets the
// previous trial's tensors go as its variables are rebound. Every tensor lives in PyTorch's CUDA
// caching allocator, so what a candidate finds in an output it forgets to write is what the
// harness left in that block: zeros in a fresh segment, a freed intermediate of the reference
// run, the previous trial's input, output or comparison temporaries. kaudit's verdict of a checker
// is only true if it sees the same thing.
//
// run_harness() sends the whole loop of one checker on one kernel variant to an isolated worker
// as one request. The worker (serve_harness_request) starts a device session (the modelled
// allocator of runtime/cpu/device_memory.h, fresh as in a new process), replays each trial's
// allocations in the harness's order, runs the kernel in oracle mode (runtime/cpu/emulator.h:
// GPU barrier semantics, interleaved warps, no memory checker), models the harness's own
// comparison on the device (its temporaries are allocated and freed there too), and stops at
// the first trial that fails the checker's comparator. The steps per trial, for the orders a
// spec can name (HarnessSpec):
//   reference-first (KernelBench: `output = model(*inputs)` then `output_new = model_new(*inputs)`):
//     free the previous inputs (`inputs = get_inputs()` rebinds the name before `.cuda()`),
//     allocate the inputs (the reference and candidate parameters after them, in trial 1),
//     replay the reference forward's allocations, free the previous reference outputs,
//     [cloned: allocate clones of the inputs] run the candidate [free the clones],
//     free the previous candidate outputs, compare on the device;
//   candidate-first: the same with the candidate's steps before the reference's.
// The reference forward's allocations are recorded on the CPU (trace_reference_forward: every
// tensor the Model's forward allocates, in order, with what each held when it was freed) and
// replayed block for block; PyTorch's CUDA operators allocate their outputs and temporaries the
// way its CPU operators do for the element-wise, reduction and normalisation ops of the corpus
// (docs/ORACLES.md says where that is an assumption).
#pragma once
#include <ATen/core/Tensor.h>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "oracle/reference.h"
#include "oracle/spec.h"
#include "runtime/worker.h"

namespace kaudit::oracle {

// The allocations of one reference forward, in order. An event allocates `bytes` under `id`, or
// frees `id` after writing `content` (what the block held when the forward let it go) into it.
// Allocations still live when the forward returned (its outputs) hold `live_content`.
struct ReferenceTrace {
  struct Event {
    bool alloc = true;
    int id = 0;
    std::uint64_t bytes = 0;
    int content = -1;  // index into contents (frees)
  };
  std::vector<Event> events;
  std::vector<std::pair<int, int>> live;  // (id, index into contents)
  std::vector<at::Tensor> contents;       // raw bytes (kByte, 1-D)
  // Per output of the forward, the index into `live` of the block it fills exactly (-1: none, a
  // view or a part of a block).
  std::vector<int> outputs;
};

// Runs `fn` on this thread, recording every CPU tensor allocation it makes (other threads are not
// recorded) into `trace`. Returns what `fn` returned.
std::vector<at::Tensor> trace_allocations(const std::function<std::vector<at::Tensor>()>& fn, ReferenceTrace& trace);
// trace_allocations of reference.forward(inputs, precision) on the host (whatever the
// reference's device: the recorder sees CPU allocations; the Model's host copy is loaded first,
// so the load is not recorded, and where the reference runs on a device an unrecorded host
// forward goes first, so the recorded one is not the host's first).
std::vector<at::Tensor> trace_reference_forward(const Reference& reference, const std::vector<at::Tensor>& inputs,
                                                at::ScalarType precision, ReferenceTrace& trace);
// Makes the recorded forward's output blocks hold `outputs` (the same forward's answer computed
// elsewhere: on the CUDA backend the float32 reference comes from the GPU, trace_reference_forward
// from the host) where each fills its block exactly and has its size; what the replay leaves in
// memory is then what the harness compares against. Freed intermediates keep the host's values.
void adopt_outputs(ReferenceTrace& trace, const std::vector<at::Tensor>& outputs);

// One entry-function argument: a trial input (by task input index), a Model parameter (by index
// into the trial's model's parameters: the candidate gets its own copy) or a scalar.
struct HarnessArg {
  enum class Kind { Input, Parameter, Int, Double, Bool } kind = Kind::Int;
  std::size_t index = 0;
  std::int64_t i = 0;
  double d = 0;
};

// One trial of a harness run.
struct HarnessTrial {
  std::vector<at::Tensor> inputs;             // the task's inputs, as the harness moves them to the device
  std::size_t model = 0;                      // index into HarnessRequest::models
  std::vector<HarnessArg> args;               // the entry function's arguments
  ReferenceTrace reference;                   // the reference forward's allocations
  std::vector<at::Tensor> harness_reference;  // what the harness compares on the device (its reference outputs)
  std::vector<at::Tensor> judge_reference;    // what the verdict compares against (the spec's reference)
};

struct HarnessRequest {
  HarnessSpec harness;
  std::filesystem::path library;
  int mutant = 0;  // schema switch
  // Per Model instance (trials of other shapes may need another), every parameter and buffer in
  // module order. A trial whose model differs from the previous trial's gets new copies on the
  // device (after its inputs), the old ones freed first.
  std::vector<std::vector<at::Tensor>> models;
  std::vector<HarnessTrial> trials;
  // The checker's comparison (also modelled on the device), against judge_reference. The loop
  // stops after the first trial that fails it, unless !stop_at_failure: an external checker
  // (oracle/external.h) judges the outputs afterwards, so every trial that completes is run and
  // comes back (the verdict is still its first failing trial; later trials change nothing before it).
  Comparator comparator;
  bool stop_at_failure = true;
  // The spec's gates (oracle/spec.h), checked in the parent on each completed trial before its
  // outputs are compared. every_output_written makes the worker probe each completed trial
  // after the loop (two more runs of the candidate, harness.cpp: probe_unwritten).
  Gates gates;
};

struct HarnessTrialResult {
  runtime::Status status = runtime::Status::Crash;
  bool over_thread_budget = false;
  std::string message;
  std::vector<at::Tensor> outputs;  // when status is ok
  int launches = -1;                // kernels it launched (-1: not recorded)
  int library_calls = -1;           // library compute calls it made (-1: not recorded)
  std::int64_t unwritten = -1;      // output elements it left unwritten (-1: not probed; spec.h, Gates)
  nlohmann::json launch_log = nlohmann::json::array();  // its first launches (runtime::launch_log_json)
};

struct HarnessResult {
  // The trials that ran, in order. The last one is the first failure, if any; a worker that died
  // (a crash, an illegal address, a run over its CPU time) ends the list with that status, on the
  // trial it was running when the worker could tell, else on trial 1.
  std::vector<HarnessTrialResult> trials;
  // True when no trial could be run for reasons of the machine or kaudit, not the kernel: no worker
  // could be started, or it failed on its own twice (runtime::Exchange::worker_failure).
  bool infrastructure_failure = false;
};

// The worker may take the per-run limit once per trial (three times with the gate
// every_output_written: its two probe runs), or `wall_runs` times when given (the
// audit gives 1 for a mutant known to hang: its first trial's hang then costs one limit, not one
// per trial).
HarnessResult run_harness(runtime::IsolatedRunner& runner, const HarnessRequest& request, int wall_runs = 0);

// What the checker concluded: the first trial that failed and why. Causes: "wrong-output",
// "nan-inf" (the candidate gave NaN or infinity where the reference is finite), "crash",
// "timeout", "launch-error", "exception" (the host wrapper threw), and in witness mode also
// "out-of-bounds" and "barrier-divergence".
struct HarnessVerdict {
  bool killed = false;
  int trial = -1;      // index of the failing trial
  std::string cause;   // empty when not killed
  std::string detail;  // the comparator's or the run's message
};
// The verdict of trial t's run, when not the request's comparator: an external checker's, through
// judge_outputs, which is asked about runs that did not complete too (their outcome, no outputs).
using TrialJudge = std::function<CompareResult(std::size_t trial, const HarnessTrialResult& run)>;
// What a checker is told of a trial's run (oracle/external.h), or of a plain run's.
RunFacts run_facts(const HarnessTrialResult& r);
RunFacts run_facts(const runtime::RunResult& r);
// Whether a run ending so leaves its process and CUDA context fit for the next trial: a host
// wrapper that threw, a launch refused for its configuration (neither is a sticky CUDA error).
bool leaves_the_process_usable(runtime::Status status);
// What a checker is told of each of the loop's trials after `last`, a run that ended it at trial
// `ended_at` (counted from 1: a crash, a hang, a lost device): the same outcome, "not run" and why.
HarnessTrialResult not_run_after(const HarnessTrialResult& last, std::size_t ended_at);
HarnessVerdict harness_verdict(const HarnessRequest& request, const HarnessResult& result, const TrialJudge& judge = {});
// The cause of a failed comparison of `outputs` with `reference` (wrong-output or nan-inf).
const char* mismatch_cause(const std::vector<at::Tensor>& outputs, const std::vector<at::Tensor>& reference);
// The cause a run status stands for ("crash", "timeout"...; nullptr for Ok).
const char* status_cause(runtime::Status status);

// One trial's prepared data, for make_harness_request.
struct PreparedTrial {
  const std::vector<at::Tensor>* inputs = nullptr;
  const corpus::Assignment* dims = nullptr;
  const Reference* reference = nullptr;
  const ReferenceTrace* trace = nullptr;
  const std::vector<at::Tensor>* harness_reference = nullptr;
  const std::vector<at::Tensor>* judge_reference = nullptr;
};
// The request of one checker's loop on one kernel variant: the kernel's binding gives each
// trial's arguments, the trials' references give the models.
HarnessRequest make_harness_request(const HarnessSpec& harness, const Comparator& comparator, const corpus::Task& task,
                                    const corpus::Kernel& kernel, const std::filesystem::path& library, int mutant,
                                    const std::vector<PreparedTrial>& trials);

// The worker's side (register it under kHarnessRequestKind: tools/cmd_worker.cpp).
inline constexpr const char* kHarnessRequestKind = "harness";
nlohmann::json serve_harness_request(const nlohmann::json& request, std::vector<at::Tensor>& tensors,
                                     std::vector<at::Tensor>& outputs, runtime::WorkerContext& context);

}  // namespace kaudit::oracle
