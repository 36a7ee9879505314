// kaudit::importer -- KernelBench solution files into a kaudit corpus (`kaudit import kernelbench`).
//
// A solution is a Python file that builds its CUDA with torch.utils.cpp_extension.load_inline and
// defines a ModelNew; its problem file defines Model, get_inputs() and get_init_inputs(). The
// Python side (tools/import_kernelbench.py, standard library only) reads both files without
// running them and returns the kernel text and its binding, and for a new task the task.json. This
// side stages the entry in a hidden folder of the corpus, validates it with the corpus loader, runs
// the verification gate on it, and only then moves it into place: an unsupported or broken
// solution leaves nothing behind. A kernel the gate rejects is still imported, marked
// "unverified" with the failing recipe (load_corpus then keeps it out of mutation and audits).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "oracle/reference.h"
#include "runtime/worker.h"

namespace kaudit::importer {

struct ImportRequest {
  std::filesystem::path solution;  // the solution .py
  std::filesystem::path problem;   // its KernelBench problem .py
  std::string task;                // corpus task name; empty: from the problem's file name
};

struct ImportOptions {
  std::filesystem::path corpus;      // the corpus to import into (created if missing)
  std::filesystem::path cache_dir;   // kernel builds and references, for the gate
  std::filesystem::path worker_exe;  // a binary with the `worker` subcommand (kaudit)
  runtime::WorkerLimits limits;
  bool verify = true;                 // run the verification gate before moving the entry in
  std::filesystem::path script;       // default: tools/import_kernelbench.py of this source tree
  std::string python = oracle::default_python();
};

enum class ImportStatus {
  Imported,         // in the corpus and passed the gate (or --no-verify)
  Unverified,       // in the corpus, marked unverified: the gate rejected it
  AlreadyImported,  // the same solution file is already in the corpus under that name
  Unsupported,      // nothing written; `reason` says what and where
};
const char* status_name(ImportStatus s);

struct ImportOutcome {
  std::filesystem::path solution;
  ImportStatus status = ImportStatus::Unsupported;
  std::string task;       // corpus task (when known)
  std::string kernel;     // corpus kernel name (when known)
  bool new_task = false;  // the task was created by this import
  bool glue = false;      // the entry is a generated wrapper chaining several extension calls
  std::string reason;     // Unsupported: "file:line:col: what"; Unverified: the gate's failure
  std::string fix;        // a hint for Unsupported, when there is one
  nlohmann::json to_json() const;
};

// Imports one solution. Never throws for bad input: every problem becomes an Unsupported outcome.
ImportOutcome import_solution(const ImportRequest& request, const ImportOptions& options);

// The requests for `kaudit import kernelbench PATH --problem P`: PATH is a solution file or a
// folder of them (*.py, sorted); P is a problem file (used for all) or a folder of problems, where
// a solution's problem is the one whose file stem is the longest prefix of the solution's stem
// ("19_ReLU.py" for "19_ReLU_gpt4o_2.py"), else the one with the same leading number. Solutions
// with no matching problem come back in `unmatched` with the reason.
struct Plan {
  std::vector<ImportRequest> requests;
  std::vector<ImportOutcome> unmatched;
};
Plan plan_imports(const std::filesystem::path& path, const std::filesystem::path& problem, const std::string& task);

// A corpus name from a file stem: lower case, runs of other characters as one '_'.
std::string corpus_name(const std::string& stem);

}  // namespace kaudit::importer
