#include "corpus/importer/kernelbench.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <fstream>
#include <sstream>

#include "common/process.h"
#include "common/sha256.h"
#include "corpus/corpus.h"
#include "oracle/gate.h"
#include "common/files.h"

#ifndef KAUDIT_IMPORT_SCRIPT
#define KAUDIT_IMPORT_SCRIPT "tools/import_kernelbench.py"
#endif

namespace kaudit::importer {
namespace fs = std::filesystem;
using nlohmann::json;

const char* status_name(ImportStatus s) {
  switch (s) {
    case ImportStatus::Imported: return "imported";
    case ImportStatus::Unverified: return "unverified";
    case ImportStatus::AlreadyImported: return "already-imported";
    case ImportStatus::Unsupported: return "unsupported";
  }
  return "?";
}

json ImportOutcome::to_json() const {
  json j = {{"solution", solution.string()}, {"status", status_name(status)}};
  if (!task.empty()) j["task"] = task;
  if (!kernel.empty()) j["kernel"] = kernel;
  if (status == ImportStatus::Imported || status == ImportStatus::Unverified) {
    j["new_task"] = new_task;
    j["glue"] = glue;
  }
  if (!reason.empty()) j["reason"] = reason;
  if (!fix.empty()) j["fix"] = fix;
  return j;
}

std::string corpus_name(const std::string& stem) {
  std::string out;
  for (char c : stem) {
    if (std::isalnum((unsigned char)c)) out += (char)std::tolower((unsigned char)c);
    else if (!out.empty() && out.back() != '_') out += '_';
  }
  while (!out.empty() && out.back() == '_') out.pop_back();
  return out;
}

namespace {

std::string read_text(const fs::path& p) { return read_file(p).value_or(std::string()); }

void write_text(const fs::path& p, const std::string& text) {
  std::ofstream out(p, std::ios::binary);
  out << text;
  if (!out) throw std::runtime_error("cannot write " + p.string());
}

// A hidden folder inside the corpus (same file system, so the final moves are renames; loaders
// skip hidden entries), removed whatever happens.
struct Staging {
  fs::path dir;
  explicit Staging(const fs::path& corpus) {
    static std::atomic<int> counter{0};
    dir = corpus / (".kaudit-import-" + std::to_string(getpid()) + "-" + std::to_string(counter++));
    fs::create_directories(dir);
  }
  ~Staging() {
    remove_tree(dir);
  }
};

// Runs the Python analyser; its JSON, or an {"ok": false, ...} object saying why it did not run.
json analyse(const ImportRequest& r, const ImportOptions& o, const fs::path& task_json) {
  const fs::path script = o.script.empty() ? fs::path(KAUDIT_IMPORT_SCRIPT) : o.script;
  std::vector<std::string> argv = {o.python, script.string(), r.solution.string(), "--problem", r.problem.string()};
  if (!r.task.empty()) argv.insert(argv.end(), {"--task", r.task});
  if (!task_json.empty()) argv.insert(argv.end(), {"--task-json", task_json.string()});
  ProcessResult p = run_process(argv, 120);
  json fail = {{"ok", false}, {"file", script.string()}, {"line", 0}, {"column", 0}, {"construct", "importer"}};
  if (!p.started) {
    fail["message"] = "cannot run " + o.python + ": " + p.spawn_error;
    fail["fix"] = "install python3 (Debian: apt-get install python3)";
    return fail;
  }
  try {
    if (p.ok()) return json::parse(p.out);
  } catch (const json::exception&) {
  }
  fail["message"] = "the analyser failed: " + (p.err.empty() ? p.out : p.err);
  return fail;
}

ImportOutcome unsupported(ImportOutcome out, std::string reason, std::string fix = {}) {
  out.status = ImportStatus::Unsupported;
  out.reason = std::move(reason);
  out.fix = std::move(fix);
  return out;
}

ImportOutcome from_analyser_error(ImportOutcome out, const json& j) {
  std::ostringstream where;
  where << j.value("file", std::string());
  if (j.value("line", 0) > 0) where << ":" << j.value("line", 0) << ":" << j.value("column", 0);
  const std::string construct = j.value("construct", std::string());
  return unsupported(std::move(out), where.str() + ": " + (construct.empty() ? "" : construct + ": ") +
                                         j.value("message", std::string("unsupported")),
                     j.value("fix", std::string()));
}

}  // namespace

ImportOutcome import_solution(const ImportRequest& request, const ImportOptions& options) {
  ImportOutcome out;
  out.solution = request.solution;
  if (!fs::is_regular_file(request.solution))
    return unsupported(out, request.solution.string() + ": no such solution file");
  if (!fs::is_regular_file(request.problem))
    return unsupported(out, request.problem.string() + ": no such problem file",
                       "pass the KernelBench problem the solution was written for with --problem");

  json j = analyse(request, options, {});
  if (!j.value("ok", false)) return from_analyser_error(out, j);
  out.task = j.at("task_name").get<std::string>();
  out.kernel = corpus_name(request.solution.stem().string());
  if (out.task.empty() || out.kernel.empty())
    return unsupported(out, "cannot make corpus names from " + request.problem.filename().string() + " and " +
                                request.solution.filename().string(),
                       "pass --task NAME");

  const fs::path task_dir = options.corpus / "tasks" / out.task;
  out.new_task = !fs::exists(task_dir);
  if (!out.new_task) {
    // Bind against the corpus's own task, which must be this very problem.
    const std::string have = sha256_hex(read_text(task_dir / "problem.py"));
    if (have != j.at("problem_sha256").get<std::string>())
      return unsupported(out,
                         "task '" + out.task + "' already exists in " + options.corpus.string() +
                             " with another problem.py",
                         "pass --task NEW_NAME to import it as a new task");
    j = analyse(request, options, task_dir / "task.json");
    if (!j.value("ok", false)) return from_analyser_error(out, j);
  }
  const json& k = j.at("kernel");
  out.glue = k.value("glue", false);

  const fs::path kernel_dir = options.corpus / "kernels" / out.task;
  const fs::path existing = kernel_dir / (out.kernel + ".json");
  if (fs::exists(existing)) {
    json prev;
    try {
      prev = json::parse(read_text(existing));
    } catch (const json::exception&) {
    }
    if (prev.is_object() && prev.contains("provenance") && prev["provenance"].is_object() &&
        prev["provenance"].value("source_sha256", std::string()) == j.at("solution_sha256").get<std::string>()) {
      out.status = ImportStatus::AlreadyImported;
      return out;
    }
    return unsupported(out, existing.string() + " already exists (another kernel of that name)",
                       "rename the solution file, or remove the old kernel");
  }

  // Stage the entry, validate it with the loader, verify it, then move it in.
  json binding = {{"entry", k.at("entry")},
                  {"args", k.at("args")},
                  {"provenance",
                   {{"author", "imported"},
                    {"importer", "kaudit import kernelbench"},
                    {"source", request.solution.string()},
                    {"source_sha256", j.at("solution_sha256")},
                    {"problem", request.problem.string()},
                    {"problem_sha256", j.at("problem_sha256")},
                    {"extensions", k.at("extensions")},
                    {"functions", k.at("functions")},
                    {"glue", out.glue}}}};
  try {
    Staging stage(options.corpus);
    const fs::path st_task = stage.dir / "tasks" / out.task, st_kernels = stage.dir / "kernels" / out.task;
    fs::create_directories(st_task);
    fs::create_directories(st_kernels);
    if (out.new_task) {
      write_text(st_task / "problem.py", read_text(request.problem));
      write_text(st_task / "task.json", j.at("task").dump(2) + "\n");
    } else {
      fs::copy_file(task_dir / "problem.py", st_task / "problem.py");
      fs::copy_file(task_dir / "task.json", st_task / "task.json");
    }
    const fs::path cu = st_kernels / (out.kernel + ".cu"), bj = st_kernels / (out.kernel + ".json");
    write_text(cu, k.at("source").get<std::string>());
    write_text(bj, binding.dump(2) + "\n");

    corpus::LoadResult loaded = corpus::load_corpus(stage.dir, {.include_unverified = true});
    if (!loaded.ok() || loaded.corpus.kernels.size() != 1) {
      std::string diags;
      for (const auto& d : loaded.diagnostics) diags += "\n  " + d.to_string();
      return unsupported(out, "the generated corpus entry does not load:" + diags,
                         "report this solution: the importer wrote something the corpus rejects");
    }
    if (options.verify) {
      oracle::GateOptions go;
      go.cache_dir = options.cache_dir;
      go.worker_exe = options.worker_exe;
      go.limits = options.limits;
      go.only = {out.task + "/" + out.kernel};
      oracle::GateReport report;
      try {
        report = oracle::run_gate(loaded.corpus, go);
      } catch (const std::exception& e) {
        return unsupported(out, std::string("the verification gate could not run on this task: ") + e.what(),
                           "check the problem file runs with these shapes (task.json presets)");
      }
      if (report.kernels.size() != 1)
        return unsupported(out, "the verification gate did not report on the kernel");
      oracle::KernelVerdict v = report.kernels.front();
      // Messages name the files where they will be, not the staging folder.
      for (std::size_t at; (at = v.failure.find(stage.dir.string())) != std::string::npos;)
        v.failure.replace(at, stage.dir.string().size(), options.corpus.string());
      if (!v.passed && v.cases.empty()) {
        // It never ran: the CPU backend cannot build it (a library the backend lacks, such as
        // cuBLAS). That says nothing about the kernel's correctness, so it is not imported.
        return unsupported(out, "the CPU backend cannot build this kernel: " + v.failure,
                           "kaudit runs kernels on its CPU backend, which has no cuBLAS/cuDNN/CUTLASS");
      }
      if (!v.passed) {
        out.status = ImportStatus::Unverified;
        out.reason = v.failure;
        binding["unverified"] = v.failure;
        write_text(bj, binding.dump(2) + "\n");
      } else {
        out.status = ImportStatus::Imported;
      }
    } else {
      out.status = ImportStatus::Imported;
    }
    fs::create_directories(options.corpus / "tasks");
    if (out.new_task) fs::rename(st_task, task_dir);
    fs::create_directories(kernel_dir);
    fs::rename(cu, kernel_dir / cu.filename());
    fs::rename(bj, kernel_dir / bj.filename());  // the binding last: a .cu alone is never loaded as a kernel
  } catch (const std::exception& e) {
    return unsupported(out, std::string("cannot write the corpus entry: ") + e.what());
  }
  return out;
}

Plan plan_imports(const fs::path& path, const fs::path& problem, const std::string& task) {
  Plan plan;
  std::vector<fs::path> solutions;
  if (fs::is_directory(path)) {
    for (const auto& e : fs::directory_iterator(path))
      if (e.is_regular_file() && e.path().extension() == ".py") solutions.push_back(e.path());
    std::sort(solutions.begin(), solutions.end());
  } else {
    solutions.push_back(path);
  }
  if (!fs::is_directory(problem)) {
    for (const auto& s : solutions) plan.requests.push_back({s, problem, task});
    return plan;
  }
  std::vector<fs::path> problems;
  for (const auto& e : fs::directory_iterator(problem))
    if (e.is_regular_file() && e.path().extension() == ".py") problems.push_back(e.path());
  std::sort(problems.begin(), problems.end());
  const auto leading_number = [](const std::string& s) {
    std::size_t n = 0;
    while (n < s.size() && std::isdigit((unsigned char)s[n])) ++n;
    return n > 0 && n < s.size() && s[n] == '_' ? s.substr(0, n) : std::string();
  };
  for (const auto& s : solutions) {
    const std::string stem = s.stem().string();
    const fs::path* best = nullptr;
    std::size_t best_len = 0;
    for (const auto& p : problems) {
      const std::string ps = p.stem().string();
      if (stem.rfind(ps, 0) == 0 && ps.size() > best_len) best = &p, best_len = ps.size();
    }
    if (!best)
      for (const auto& p : problems)
        if (!leading_number(stem).empty() && leading_number(stem) == leading_number(p.stem().string())) {
          best = &p;
          break;
        }
    if (best) {
      plan.requests.push_back({s, *best, task});
    } else {
      ImportOutcome o;
      o.solution = s;
      o.reason = s.string() + ": no problem file in " + problem.string() +
                 " whose name starts the solution's name or shares its leading number";
      o.fix = "name solutions after their problem (19_ReLU_mine.py for 19_ReLU.py) or pass --problem FILE";
      plan.unmatched.push_back(std::move(o));
    }
  }
  return plan;
}

}  // namespace kaudit::importer
