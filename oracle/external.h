// External checkers: a checker kaudit does not model but runs, so that the verdict of an oracle
// is the verdict of the user's own code (its comparator, its gates), not of a JSON description of
// it. A spec with "kind": "external" names a command (docs/ORACLES.md, "External checkers");
// kaudit starts it once per thread that needs it and talks to it over a line-based JSON protocol
// on its stdin and stdout, with tensors passed as NumPy .npy files in a private folder:
//
//   kaudit -> checker  {"id": 1, "op": "hello", "protocol": 1, "oracle": NAME}
//   checker -> kaudit  {"id": 1, "ok": true}
//   kaudit -> checker  {"id": 2, "op": "judge", "task": T, "problem": PATH, "trial": I,
//                       "trial_name": S, "dims": {...}, "outcome": "ok",
//                       "run": {"outcome": "ok", "message": "", "launches": 1,
//                               "library_calls": 0, "unwritten": null, "launch_log": [...]},
//                       "inputs": [PATH...], "reference_fp32": [PATH...],
//                       "reference_fp64": [PATH...], "outputs": [PATH...]}
//   checker -> kaudit  {"id": 2, "pass": false, "reason": "max |diff| 0.3 > 1e-4"}
//
// In oracle mode every trial of the harness's loop is judged, completed or not: a run that
// crashed, hung, threw or was refused its launch comes with its outcome, its message and no
// outputs, and the checker decides (a harness that swallows exceptions passes it; the Python
// helper fails it unless the checker says otherwise). Witness mode, strict by design, still kills
// a run that did not complete without a question.
// A checker that exits, answers after its timeout, or answers something else than the protocol's
// reply is an ExternalCheckerError naming the oracle, the request and the checker's last stderr
// lines: the command stops with the records it has cached.
#pragma once
#include <ATen/core/Tensor.h>

#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "corpus/corpus.h"
#include "oracle/compare.h"

namespace kaudit::oracle {

struct ExternalCommand {
  std::vector<std::string> argv;  // "{python}" in an argument is replaced by kaudit's Python
  std::filesystem::path cwd;      // the spec file's folder: relative paths in argv start there
  double timeout_s = 60;          // per request
};

class ExternalCheckerError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// How the judged run went and what it did (issue 24, item 3), as its worker recorded it.
struct RunFacts {
  std::string outcome = "ok";   // runtime::to_string of its status: ok, crash, timeout, exception, launch-error...
  std::string message;          // why it did not complete
  int launches = -1;            // kernels it launched (-1: not recorded)
  int library_calls = -1;       // library compute calls it made (-1: not recorded)
  std::int64_t unwritten = -1;  // output elements it left unwritten (-1: not probed)
  nlohmann::json launch_log = nlohmann::json::array();  // runtime::launch_log_json's form
};

// What one trial's judgement is about.
struct JudgeFacts {
  const corpus::Task* task = nullptr;
  std::string trial;              // the trial's name in the spec
  std::size_t trial_index = 0;    // its place among the spec's trials for this task
  const corpus::Assignment* dims = nullptr;
  const std::vector<at::Tensor>* inputs = nullptr;
  const std::vector<at::Tensor>* ref32 = nullptr;  // the Model in float32
  const std::vector<at::Tensor>* ref64 = nullptr;  // the Model in float64
  const RunFacts* run = nullptr;  // null: a completed run with nothing recorded (the reference as a candidate)
};

class ExternalChecker {
 public:
  ExternalChecker(std::string oracle, ExternalCommand command);
  ~ExternalChecker();  // ends every checker process and removes the tensor folder
  ExternalChecker(const ExternalChecker&) = delete;
  ExternalChecker& operator=(const ExternalChecker&) = delete;

  // The checker's verdict on a completed run's outputs: ok = pass; reason = its words on a fail.
  // Thread-safe: each calling thread gets a checker process of its own while it asks.
  CompareResult judge(const JudgeFacts& facts, const std::vector<at::Tensor>& outputs);

  // The checker's own input tensors for trial `trial_index` of `task` at `dims` (the "inputs"
  // request): one .npy file per task input, each checked against task.json's dtype and shape.
  std::vector<at::Tensor> make_inputs(const corpus::Task& task, std::size_t trial_index, const std::string& trial_name,
                                      std::uint64_t seed, const corpus::Assignment& dims);

  // How many checker processes were started (tests).
  int processes_started() const;

  struct Process;

 private:
  // Sends `request` (given an id) and returns the checker's reply to it; `validate` says what a
  // reply lacks ("" when fine). Errors name the request: "<kind>, <about>".
  nlohmann::json ask(nlohmann::json request, const std::string& kind, const std::string& about,
                     const std::function<std::string(const nlohmann::json&)>& validate);
  std::unique_ptr<Process> acquire();
  void release(std::unique_ptr<Process> p);
  std::string tensor_file(const at::Tensor& t);  // content-addressed .npy in folder_

  std::string oracle_;
  ExternalCommand command_;
  std::filesystem::path folder_;
  mutable std::mutex mu_;
  std::vector<std::unique_ptr<Process>> idle_;
  int started_ = 0;
  long next_id_ = 0;
};

}  // namespace kaudit::oracle
