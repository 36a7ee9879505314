#include "oracle/external.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "common/files.h"
#include "common/sha256.h"
#include "oracle/npy.h"
#include "oracle/recipes.h"
#include "oracle/reference.h"
#include "oracle/spec.h"

extern char** environ;

namespace kaudit::oracle {
namespace fs = std::filesystem;
using nlohmann::json;

struct ExternalChecker::Process {
  pid_t pid = -1;
  int to_child = -1;    // a socket: writes to a checker that died fail with EPIPE, never SIGPIPE
  int from_child = -1;  // the checker's stdout
  fs::path stderr_file;
  std::string buffer;  // bytes read past the last line
  bool greeted = false;

  ~Process() {
    if (to_child >= 0) ::close(to_child);
    if (from_child >= 0) ::close(from_child);
    if (pid > 0) {
      ::kill(-pid, SIGKILL);  // its process group: a shell's children too
      int status = 0;
      ::waitpid(pid, &status, 0);
    }
  }
  // The last lines the checker wrote to stderr, for errors.
  std::string stderr_tail() const {
    std::ifstream in(stderr_file);
    std::stringstream ss;
    ss << in.rdbuf();
    std::string s = ss.str();
    if (s.size() > 1500) s = "..." + s.substr(s.size() - 1500);
    return s;
  }
};

namespace {

std::string describe_exit(pid_t pid) {
  int status = 0;
  for (int i = 0; i < 50; ++i) {  // it closed its stdout: give it 0.5 s to be reaped
    if (::waitpid(pid, &status, WNOHANG) == pid) {
      if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
      if (WIFSIGNALED(status)) return "was killed by signal " + std::to_string(WTERMSIG(status));
    }
    ::usleep(10000);
  }
  return "closed its stdout";
}

}  // namespace

ExternalChecker::ExternalChecker(std::string oracle, ExternalCommand command)
    : oracle_(std::move(oracle)), command_(std::move(command)) {
  std::string tmpl = (fs::temp_directory_path() / "kaudit-external-XXXXXX").string();
  if (!::mkdtemp(tmpl.data())) throw ExternalCheckerError("cannot create a folder for oracle '" + oracle_ + "' tensors");
  folder_ = tmpl;
}

ExternalChecker::~ExternalChecker() {
  idle_.clear();
  remove_tree(folder_);  // not std::filesystem::remove_all: common/files.h says why (a GPU audit died on it)
}

int ExternalChecker::processes_started() const {
  std::lock_guard lock(mu_);
  return started_;
}

std::unique_ptr<ExternalChecker::Process> ExternalChecker::acquire() {
  int number;
  {
    std::lock_guard lock(mu_);
    if (!idle_.empty()) {
      auto p = std::move(idle_.back());
      idle_.pop_back();
      return p;
    }
    number = ++started_;
  }
  // Everything the child needs is built before fork(): after it, a threaded parent's child may
  // only call async-signal-safe functions.
  std::vector<std::string> args = command_.argv;
  for (auto& a : args)
    for (std::size_t at; (at = a.find("{python}")) != std::string::npos;) a.replace(at, 8, default_python());
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::vector<std::string> env_strings;
  std::string pythonpath = std::string("PYTHONPATH=") + KAUDIT_TOOLS_DIR;
  for (char** e = environ; *e; ++e) {
    const std::string_view v(*e);
    if (v.rfind("PYTHONPATH=", 0) == 0) pythonpath += ":" + std::string(v.substr(11));
    else env_strings.emplace_back(v);
  }
  env_strings.push_back(pythonpath);
  env_strings.push_back("KAUDIT_PYTHON=" + default_python());
  std::vector<char*> envp;
  for (auto& e : env_strings) envp.push_back(e.data());
  envp.push_back(nullptr);
  auto p = std::make_unique<Process>();
  p->stderr_file = folder_ / ("stderr-" + std::to_string(number) + ".txt");
  const std::string cwd = command_.cwd.empty() ? std::string(".") : command_.cwd.string();
  const std::string err_path = p->stderr_file.string();

  int in[2], out[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, in) != 0 || ::pipe2(out, O_CLOEXEC) != 0)
    throw ExternalCheckerError("oracle '" + oracle_ + "': cannot create pipes for its checker");
  const pid_t pid = ::fork();
  if (pid < 0) throw ExternalCheckerError("oracle '" + oracle_ + "': cannot start its checker (fork failed)");
  if (pid == 0) {
    ::setpgid(0, 0);
    const int err = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (::dup2(in[1], 0) < 0 || ::dup2(out[1], 1) < 0 || err < 0 || ::dup2(err, 2) < 0) ::_exit(126);
    if (::chdir(cwd.c_str()) != 0) ::_exit(126);
    ::execvpe(argv[0], argv.data(), envp.data());
    ::_exit(127);
  }
  ::close(in[1]);
  ::close(out[1]);
  p->pid = pid;
  p->to_child = in[0];
  p->from_child = out[0];
  return p;
}

void ExternalChecker::release(std::unique_ptr<Process> p) {
  std::lock_guard lock(mu_);
  idle_.push_back(std::move(p));
}

std::string ExternalChecker::tensor_file(const at::Tensor& t) {
  const std::string bytes = npy_bytes(t);
  const fs::path path = folder_ / (sha256_hex(bytes).substr(0, 32) + ".npy");
  if (!fs::exists(path)) {
    try {
      write_file_atomically(path, bytes);
    } catch (const std::exception& e) {
      throw ExternalCheckerError(e.what());
    }
  }
  return path.string();
}

json ExternalChecker::ask(json request, const std::string& what_kind, const std::string& about,
                         const std::function<std::string(const json&)>& validate) {
  long id;
  {
    std::lock_guard lock(mu_);
    id = ++next_id_;
  }
  request["id"] = id;
  const std::string what = "request #" + std::to_string(id) + " (" + what_kind + ", " + about + ")";
  std::unique_ptr<Process> p = acquire();
  const auto fail = [&](const std::string& why) -> ExternalCheckerError {
    const std::string tail = p->stderr_tail();
    std::string argv;
    for (const auto& a : command_.argv) argv += (argv.empty() ? "" : " ") + a;
    return ExternalCheckerError("oracle '" + oracle_ + "': its checker (" + argv + ", in " + command_.cwd.string() +
                                ") " + why + " on " + what + (tail.empty() ? "" : "; its stderr ends:\n" + tail));
  };
  const auto exchange = [&](const json& message) -> json {
    const std::string line = message.dump() + "\n";
    for (std::size_t sent = 0; sent < line.size();) {
      const ssize_t n = ::send(p->to_child, line.data() + sent, line.size() - sent, MSG_NOSIGNAL);
      if (n <= 0) throw fail(describe_exit(p->pid) + " (it stopped reading its stdin)");
      sent += static_cast<std::size_t>(n);
    }
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(command_.timeout_s);
    for (;;) {
      if (const auto nl = p->buffer.find('\n'); nl != std::string::npos) {
        std::string reply = p->buffer.substr(0, nl);
        p->buffer.erase(0, nl + 1);
        if (reply.empty()) continue;
        try {
          return json::parse(reply);
        } catch (const json::exception&) {
          throw fail("answered a line that is not JSON (" + reply.substr(0, 200) +
                     ") (print nothing else on stdout: log to stderr)");
        }
      }
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0)
        throw fail("did not answer within " + std::to_string(command_.timeout_s) + " s (the spec's timeout_s)");
      pollfd pfd{p->from_child, POLLIN, 0};
      const int r = ::poll(&pfd, 1, static_cast<int>(std::min<long>(left.count(), 1000)));
      if (r <= 0) continue;
      char chunk[65536];
      const ssize_t n = ::read(p->from_child, chunk, sizeof chunk);
      if (n <= 0) throw fail(describe_exit(p->pid));
      p->buffer.append(chunk, static_cast<std::size_t>(n));
    }
  };
  const auto reply_to = [&](const json& reply, long expect_id) {
    if (!reply.is_object() || !reply.contains("id") || reply.at("id") != expect_id)
      throw fail("answered " + reply.dump().substr(0, 200) + ", not a reply with \"id\": " + std::to_string(expect_id));
    if (reply.contains("error"))
      throw fail("answered with an error: " + reply.at("error").dump().substr(0, 300));
  };
  if (!p->greeted) {
    // A new process: the handshake first (a checker that speaks another protocol stops here).
    const json hello = {{"id", 0}, {"op", "hello"}, {"protocol", 1}, {"oracle", oracle_}};
    const json r = exchange(hello);
    reply_to(r, 0);
    if (!r.contains("ok") || r.at("ok") != true)
      throw fail("refused the handshake (" + r.dump().substr(0, 200) + "; kaudit speaks protocol 1)");
    p->greeted = true;
  }
  json reply = exchange(request);
  reply_to(reply, id);
  if (const std::string missing = validate(reply); !missing.empty()) throw fail("answered " + reply.dump().substr(0, 200) + " " + missing);
  release(std::move(p));
  return reply;
}

namespace {
// The causes a checker may name in its reply: the gates' and the outputs' readings. A run that did
// not complete keeps its own cause (crash, timeout...), whatever the checker names.
bool checker_cause(const std::string& c) {
  return c == "no-launch" || c == "library-compute" || c == "unwritten-output" || c == "wrong-output" || c == "nan-inf";
}

// The request's "run": what the worker recorded, null where it recorded nothing.
json run_json(const RunFacts* run) {
  const RunFacts none;
  const RunFacts& r = run ? *run : none;
  const auto count = [](auto n) { return n < 0 ? json(nullptr) : json(n); };
  return {{"outcome", r.outcome},
          {"message", r.message},
          {"launches", count(r.launches)},
          {"library_calls", count(r.library_calls)},
          {"unwritten", count(r.unwritten)},
          {"launch_log", r.launch_log}};
}
}  // namespace

CompareResult ExternalChecker::judge(const JudgeFacts& facts, const std::vector<at::Tensor>& outputs) {
  const auto paths = [&](const std::vector<at::Tensor>* list) {
    json a = json::array();
    if (list)
      for (const auto& t : *list) a.push_back(tensor_file(t));
    return a;
  };
  const std::string task = facts.task ? facts.task->name : std::string();
  json request = {{"op", "judge"},
                  {"task", task},
                  {"problem", facts.task ? facts.task->problem_py.string() : std::string()},
                  {"trial", facts.trial_index},
                  {"trial_name", facts.trial},
                  {"dims", facts.dims ? json(*facts.dims) : json::object()},
                  {"outcome", facts.run ? facts.run->outcome : std::string("ok")},
                  {"run", run_json(facts.run)},
                  {"inputs", paths(facts.inputs)},
                  {"reference_fp32", paths(facts.ref32)},
                  {"reference_fp64", paths(facts.ref64)},
                  {"outputs", paths(&outputs)}};
  const auto validate = [](const json& r) -> std::string {
    if (!r.contains("pass") || !r.at("pass").is_boolean()) return "without a boolean \"pass\"";
    if (r.contains("cause") && !r.at("cause").is_null() &&
        (!r.at("cause").is_string() || !checker_cause(r.at("cause").get<std::string>())))
      return "with a \"cause\" kaudit does not know (give one of no-launch, library-compute, unwritten-output, "
             "wrong-output, nan-inf, or leave it out)";
    return "";
  };
  const json reply = ask(request, "judge",
                         "task '" + task + "', trial " + std::to_string(facts.trial_index) + " '" + facts.trial + "'",
                         validate);
  CompareResult c;
  c.ok = reply.at("pass").get<bool>();
  c.elements = 0;
  if (!c.ok) {
    c.reason = reply.contains("reason") && reply.at("reason").is_string() ? reply.at("reason").get<std::string>()
                                                                          : std::string("rejected by the checker");
    if (c.reason.empty()) c.reason = "rejected by the checker";
    if (reply.contains("cause") && reply.at("cause").is_string()) c.cause = reply.at("cause").get<std::string>();
  }
  return c;
}

std::vector<at::Tensor> ExternalChecker::make_inputs(const corpus::Task& task, std::size_t trial_index,
                                                     const std::string& trial_name, std::uint64_t seed,
                                                     const corpus::Assignment& dims) {
  json specs = json::array();
  for (const auto& in : task.inputs) {
    json spec = {{"name", in.name}, {"dtype", in.dtype}, {"shape", corpus::shape_of(in, dims)},
                 {"domain", corpus::domain_name(in.domain)}};
    if (in.domain == corpus::Domain::Index) spec["bound"] = dims.at(in.index_dim);  // indices in [0, bound)
    specs.push_back(std::move(spec));
  }
  std::string dir;
  {
    std::lock_guard lock(mu_);
    dir = (folder_ / ("inputs-" + std::to_string(next_id_ + 1))).string();
  }
  fs::create_directories(dir);
  const json request = {{"op", "inputs"}, {"task", task.name},    {"problem", task.problem_py.string()},
                        {"trial", trial_index}, {"trial_name", trial_name}, {"seed", seed},
                        {"dims", dims},     {"inputs", specs},        {"dir", dir}};
  const std::string about = "task '" + task.name + "', trial " + std::to_string(trial_index) + " '" + trial_name + "'";
  const auto validate = [n = task.inputs.size()](const json& r) -> std::string {
    if (!r.contains("files") || !r.at("files").is_array() || r.at("files").size() != n)
      return "without \"files\": a list of " + std::to_string(n) + " .npy paths, one per input of task.json";
    for (const auto& f : r.at("files"))
      if (!f.is_string()) return "with a \"files\" entry that is not a path";
    return "";
  };
  const json reply = ask(request, "inputs", about, validate);
  std::vector<at::Tensor> out;
  for (std::size_t i = 0; i < task.inputs.size(); ++i) {
    const auto& in = task.inputs[i];
    fs::path file = reply.at("files")[i].get<std::string>();
    if (file.is_relative()) file = command_.cwd / file;
    at::Tensor t;
    try {
      t = read_npy(file);
    } catch (const std::invalid_argument& e) {
      throw ExternalCheckerError("oracle '" + oracle_ + "': its checker's inputs for " + about + ": input '" + in.name +
                                 "': " + e.what());
    }
    const std::vector<int64_t> want = corpus::shape_of(in, dims);
    const at::ScalarType want_type = scalar_type_of(in.dtype);
    if (t.scalar_type() != want_type || t.sizes().vec() != want) {
      std::ostringstream os;
      os << "oracle '" << oracle_ << "': its checker's inputs for " << about << ": input '" << in.name << "' is "
         << c10::toString(t.scalar_type()) << t.sizes() << ", task.json says " << in.dtype << " " << at::IntArrayRef(want)
         << " (" << file.string() << ")";
      throw ExternalCheckerError(os.str());
    }
    out.push_back(std::move(t));
  }
  return out;
}

ExternalChecker& external_checker(const OracleSpec& spec) {
  if (!spec.external || !spec.checker_slot) throw std::logic_error("oracle '" + spec.name + "' is not an external spec");
  std::lock_guard lock(spec.checker_slot->mu);
  if (!spec.checker_slot->checker) spec.checker_slot->checker = std::make_shared<ExternalChecker>(spec.name, *spec.external);
  return *spec.checker_slot->checker;
}

void resolve_checker_inputs(OracleSpec& spec, const corpus::Corpus& corpus, const std::vector<std::string>& only_tasks) {
  const auto from_checker = [](const std::vector<Recipe>& list) {
    return std::any_of(list.begin(), list.end(), [](const Recipe& r) { return r.distribution == Distribution::Checker; });
  };
  bool any = from_checker(spec.trials);
  for (const auto& [task, list] : spec.task_trials) any = any || from_checker(list);
  if (!any) return;
  for (const auto& task : corpus.tasks) {
    if (!only_tasks.empty() && std::find(only_tasks.begin(), only_tasks.end(), task.name) == only_tasks.end()) continue;
    const bool own = spec.task_trials.count(task.name) > 0;
    const std::vector<Recipe> trials = trials_for(spec, task.name);
    if (!from_checker(trials)) continue;
    std::vector<Recipe> resolved;
    for (std::size_t i = 0; i < trials.size(); ++i) {
      const Recipe& r = trials[i];
      if (r.distribution != Distribution::Checker) {
        resolved.push_back(r);
        continue;
      }
      const corpus::Assignment dims = dims_for(task, r);
      Recipe stored;
      stored.name = r.name;
      stored.distribution = Distribution::Stored;
      stored.digest = store_inputs(external_checker(spec).make_inputs(task, i, r.name, r.seed, dims));
      stored.seed = r.seed;
      stored.shape = dims;
      resolved.push_back(std::move(stored));
    }
    if (!own) spec.task_trial_lines[task.name] = spec.trial_lines;
    spec.task_trials[task.name] = std::move(resolved);
  }
}

const char* gate_failure(const Gates& gates, int launches, int library_calls, std::int64_t unwritten) {
  if (gates.kernel_launched && launches == 0) return "no-launch";
  if (gates.no_library_compute && library_calls > 0) return "library-compute";
  if (gates.every_output_written && unwritten > 0) return "unwritten-output";
  return nullptr;
}

const char* contract_breach(int launches, int library_calls, int original_launches, int original_library_calls) {
  if (library_calls > 0 && original_library_calls == 0) return "library-compute";
  if (launches == 0 && original_launches > 0) return "no-launch";
  return nullptr;
}

bool is_contract_breach(const std::string& cause) { return cause == "library-compute" || cause == "no-launch"; }

std::string gate_reason(const std::string& cause) {
  if (cause == "no-launch") return "the candidate launched no kernel (the spec's gate kernel_launched)";
  if (cause == "library-compute")
    return "the candidate computed with the library (a torch matmul, addmm, linear...: the spec's gate no_library_compute)";
  if (cause == "unwritten-output")
    return "the candidate left output elements unwritten (the spec's gate every_output_written)";
  return cause;
}

CompareResult judge_outputs(const OracleSpec& spec, const JudgeFacts& facts, const std::vector<at::Tensor>& outputs) {
  if (spec.external) return external_checker(spec).judge(facts, outputs);
  return apply_comparator(spec.comparator.resolved(evaluation_precision(*facts.task)), outputs,
                          spec.reference == ReferencePrecision::Fp64 ? *facts.ref64 : *facts.ref32);
}

}  // namespace kaudit::oracle
