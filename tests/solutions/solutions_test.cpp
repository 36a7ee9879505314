// Mutants as KernelBench solution files (`kaudit export-mutants`) and a harness run on them as an
// oracle (`kaudit audit --from RUN --oracle-command CMD`), on a machine without a GPU: the solution
// files are loaded with load_inline and the operator stood in for (solution_probe.py), the harness
// is fake_harness.py, whose verdicts follow known rules.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "common/files.h"
#include "common/process.h"
#include "corpus/corpus.h"
#include "oracle/reference.h"
#include "solutions/command_oracle.h"
#include "solutions/kernelbench_solutions.h"

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

const fs::path kHere = KAUDIT_SOLUTIONS_TEST_DIR;

json read_json(const fs::path& p) {
  std::ifstream in(p);
  return json::parse(in);
}

std::vector<json> read_jsonl(const fs::path& p) {
  std::ifstream in(p);
  std::vector<json> out;
  for (std::string line; std::getline(in, line);) out.push_back(json::parse(line));
  return out;
}

kaudit::ProcessResult probe(const fs::path& solution, const fs::path& problem, const std::string& init, const std::string& shapes) {
  return kaudit::run_process({kaudit::oracle::default_python(), (kHere / "solution_probe.py").string(), solution.string(),
                              problem.string(), init, shapes},
                             120);
}

// One small audit (relu_gridstride, three rules) and its export, shared by the tests below.
struct Exported {
  fs::path run, solutions;
  json manifest;
  std::vector<json> kill_matrix;
};

const Exported& exported() {
  static const Exported e = [] {
    Exported x;
    // A folder per test process: ctest runs these tests side by side.
    const fs::path root = fs::path(KAUDIT_TEST_CACHE) / ("solutions_test." + std::to_string(::getpid()));
    fs::remove_all(root);
    x.run = root / "run";
    x.solutions = root / "solutions";
    auto r = kaudit::run_process({KAUDIT_EXE, "audit", "--kernel", "relu/relu_gridstride", "--rule", "hack-return-input",
                                  "--rule", "bound-loop-lt-to-le", "--rule", "arith-add-to-sub", "--oracle",
                                  "kernelbench-v0.1", "--cache", KAUDIT_TEST_CACHE, "--out", x.run.string(), "--json"},
                                 1200);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    r = kaudit::run_process({KAUDIT_EXE, "export-mutants", x.run.string(), "--format", "kernelbench-solution", "--out",
                             x.solutions.string(), "--cache", KAUDIT_TEST_CACHE},
                            600);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    x.manifest = read_json(x.solutions / "solutions.json");
    x.kill_matrix = read_jsonl(x.run / "kill-matrix.jsonl");
    return x;
  }();
  return e;
}

}  // namespace

// Every witnessed mutant of the run is in the manifest once, in a solution file that exists, and
// each kernel has its original; a solution loads with load_inline under its library's name, sets
// the switch from $KAUDIT_MUTANT_SWITCH (0 when unset) and passes the harness's own input tensor.
TEST(ExportMutants, EveryWitnessedMutantHasASolutionAndTheSwitchComesFromTheEnvironment) {
  const Exported& e = exported();
  std::set<std::string> witnessed, listed;
  for (const auto& k : e.kill_matrix)
    if (k["witnessed"].get<bool>()) witnessed.insert(k["id"].get<std::string>());
  ASSERT_GE(witnessed.size(), 3u);
  std::set<int> switches;
  for (const auto& m : e.manifest["mutants"]) {
    EXPECT_TRUE(listed.insert(m["id"].get<std::string>()).second) << m;
    EXPECT_TRUE(fs::is_regular_file(e.solutions / m["solution"].get<std::string>())) << m;
    switches.insert(m["switch"].get<int>());
  }
  EXPECT_EQ(listed, witnessed);
  EXPECT_GE(switches.size(), 2u);  // a schema holds several mutants
  ASSERT_TRUE(e.manifest["kernels"].contains("relu/relu_gridstride"));
  const json& k = e.manifest["kernels"]["relu/relu_gridstride"];
  const fs::path original = e.solutions / k["original"].get<std::string>();
  const fs::path problem = e.solutions / k["problem"].get<std::string>();
  auto r = probe(original, problem, "[]", "[[3, 5]]");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json seen = json::parse(r.out);
  EXPECT_EQ(seen["built"], seen["lib"]);
  EXPECT_EQ(seen["switch"], 0);
  EXPECT_EQ(seen["tensors"], json::array({"input:0"}));
  EXPECT_EQ(seen["kinds"], json::array({0}));

  // The original again as a plain KernelBench solution, which kaudit's importer reads back to the
  // corpus kernel's text, entry and binding.
  ASSERT_TRUE(k.contains("plain")) << k;
  const auto imported = kaudit::run_process({kaudit::oracle::default_python(), std::string(KAUDIT_TOOLS_DIR) + "/import_kernelbench.py",
                                             (e.solutions / k["plain"].get<std::string>()).string(), "--problem",
                                             std::string(KAUDIT_CORPUS_DIR) + "/tasks/relu/problem.py", "--task-json",
                                             std::string(KAUDIT_CORPUS_DIR) + "/tasks/relu/task.json"},
                                            120);
  ASSERT_EQ(imported.exit_code, 0) << imported.err;
  const json back = json::parse(imported.out);
  ASSERT_TRUE(back["ok"].get<bool>()) << back;
  EXPECT_EQ(back["kernel"]["source"], kaudit::read_file(std::string(KAUDIT_CORPUS_DIR) + "/kernels/relu/relu_gridstride.cu").value());
  EXPECT_EQ(back["kernel"]["entry"], "relu_forward");
  EXPECT_EQ(back["kernel"]["args"], json::array({"x"}));

  const json& m = e.manifest["mutants"][0];
  ::setenv(kaudit::solutions::kSwitchVariable, std::to_string(m["switch"].get<int>()).c_str(), 1);
  r = probe(e.solutions / m["solution"].get<std::string>(), problem, "[]", "[[3, 5]]");
  ::unsetenv(kaudit::solutions::kSwitchVariable);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(json::parse(r.out)["switch"], m["switch"]);
}

// A kernel bound to a Model parameter and a dim the harness may not pass: the parameter is the
// Model's own (built under the same seed), the dims come off the input's shape, and the stride S,
// init input 3, is the one given, else the `kernelbench` preset's (57's get_init_inputs omits it).
TEST(SolutionFile, ParametersAndDimsComeFromTheModelTheInputsAndTheInitInputs) {
  const auto loaded = kaudit::corpus::load_corpus(KAUDIT_CORPUS_DIR);
  const kaudit::corpus::Kernel* k = loaded.corpus.find_kernel("conv_transpose2d/ct2d_gather_direct");
  ASSERT_NE(k, nullptr);
  const kaudit::corpus::Task* task = loaded.corpus.find_task(k->task);
  const std::string text = kaudit::solutions::solution_file(*task, *k, kaudit::read_file(task->problem_py).value(),
                                                            "// not built here", "kaudit_probe_0001", "a test");
  const fs::path file = fs::path(KAUDIT_TEST_CACHE) / ("solutions_test_ct2d." + std::to_string(::getpid()) + ".py");
  std::ofstream(file) << text;
  auto r = probe(file, task->problem_py, "[3, 4, 3]", "[[2, 3, 5, 7]]");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json seen = json::parse(r.out);
  EXPECT_EQ(seen["tensors"], json::parse(R"(["input:0", "param:conv_transpose2d.weight", null, null, null])"));
  EXPECT_EQ(seen["kinds"], json::parse("[0, 0, 1, 1, 1]"));
  EXPECT_EQ(seen["values"][2], 1.0);  // S: the kernelbench preset's
  r = probe(file, task->problem_py, "[3, 4, 3, 2]", "[[2, 3, 5, 7]]");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(json::parse(r.out)["values"][2], 2.0);  // S given
  // A tuple where task.json has a dim (problem.py's (S, S), or conv2d_tanh_scaling_bias_maxpool's
  // bias_shape (C_out, 1, 1)): its first entry.
  r = probe(file, task->problem_py, "[3, 4, 3, [3, 3]]", "[[2, 3, 5, 7]]");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(json::parse(r.out)["values"][2], 3.0);
}

// A task whose forward takes numbers around its tensor (tests/fixtures/oracle/scaled_by_constant:
// forward(s, x, k)): the entry gets the tensor the harness passed second, the literals, and the dim
// read from that tensor, not from the number before it.
TEST(SolutionFile, ConstantArgumentsKeepTheTensorsPositions) {
  std::vector<kaudit::corpus::Diagnostic> diags;
  const auto task = kaudit::corpus::load_task(fs::path(KAUDIT_FIXTURES_DIR) / "oracle" / "scaled_by_constant", diags);
  ASSERT_TRUE(task.has_value());
  kaudit::corpus::Kernel k;
  k.task = task->name;
  k.name = "scaled";
  k.entry = "scaled_forward";
  k.args = {kaudit::corpus::InputRef{"x"}, 0.5, int64_t{3}, kaudit::corpus::DimRef{"N"}};
  const std::string text = kaudit::solutions::solution_file(*task, k, kaudit::read_file(task->problem_py).value(),
                                                            "// not built here", "kaudit_probe_0002", "a test");
  const fs::path file = fs::path(KAUDIT_TEST_CACHE) / ("solutions_test_constants." + std::to_string(::getpid()) + ".py");
  std::ofstream(file) << text;
  const auto r = probe(file, task->problem_py, "[]", "[0.5, [5], 3, 2, 1.5]");
  ASSERT_EQ(r.exit_code, 0) << r.err << text;
  const json seen = json::parse(r.out);
  EXPECT_EQ(seen["tensors"], json::parse(R"(["input:1", null, null, null])"));
  EXPECT_EQ(seen["values"], json::parse("[0.0, 0.5, 3.0, 5.0]"));
  fs::remove(file);
}

// Every corpus kernel's solution file passes its entry what the CPU backend's binding passes, at
// the small preset: the harness's input tensors themselves, the Model's parameters (built under the
// harness's seed), each dim's value and the literals (one Python process for the whole corpus).
TEST(SolutionFile, EveryCorpusKernelIsBoundAsTheBackendsBindIt) {
  const auto loaded = kaudit::corpus::load_corpus(KAUDIT_CORPUS_DIR);
  ASSERT_TRUE(loaded.diagnostics.empty());
  const fs::path dir = fs::path(KAUDIT_TEST_CACHE) / ("solutions_test_corpus." + std::to_string(::getpid()));
  fs::create_directories(dir);
  json cases = json::array(), expected = json::array();
  std::vector<std::string> ids;
  for (const auto& k : loaded.corpus.kernels) {
    const kaudit::corpus::Task* task = loaded.corpus.find_task(k.task);
    const kaudit::corpus::Assignment& dims = task->presets.at("small");
    const fs::path file = dir / (k.task + "--" + k.name + ".py");
    std::ofstream(file) << kaudit::solutions::solution_file(*task, k, kaudit::read_file(task->problem_py).value(),
                                                            "// not built here", "kaudit_probe_" + k.name, "a test");
    json inputs = json::array();
    for (const auto& in : task->inputs) inputs.push_back({{"shape", kaudit::corpus::shape_of(in, dims)}, {"dtype", in.dtype}});
    cases.push_back({{"solution", file.string()}, {"problem", task->problem_py.string()},
                     {"init", kaudit::oracle::init_args_json(*task, kaudit::corpus::init_values(*task, dims))},
                     {"inputs", inputs}});
    json tensors = json::array(), values = json::array(), kinds = json::array();
    for (const auto& a : k.args) {
      if (auto* in = std::get_if<kaudit::corpus::InputRef>(&a)) {
        for (std::size_t i = 0; i < task->inputs.size(); ++i)
          if (task->inputs[i].name == in->name) tensors.push_back("input:" + std::to_string(i));
        values.push_back(0.0), kinds.push_back(0);
      } else if (auto* p = std::get_if<kaudit::corpus::ParamRef>(&a)) {
        tensors.push_back("param:" + p->name), values.push_back(0.0), kinds.push_back(0);
      } else if (auto* d = std::get_if<kaudit::corpus::DimRef>(&a)) {
        tensors.push_back(nullptr), values.push_back(double(dims.at(d->name))), kinds.push_back(1);
      } else if (auto* v = std::get_if<int64_t>(&a)) {
        tensors.push_back(nullptr), values.push_back(double(*v)), kinds.push_back(1);
      } else if (auto* x = std::get_if<double>(&a)) {
        tensors.push_back(nullptr), values.push_back(*x), kinds.push_back(2);
      } else if (auto* b = std::get_if<bool>(&a)) {
        tensors.push_back(nullptr), values.push_back(*b ? 1.0 : 0.0), kinds.push_back(3);
      }
    }
    expected.push_back({{"tensors", tensors}, {"values", values}, {"kinds", kinds}});
    ids.push_back(k.id());
  }
  std::ofstream(dir / "cases.json") << cases.dump();
  const auto r = kaudit::run_process({kaudit::oracle::default_python(), (kHere / "solution_probe.py").string(), "--batch",
                                      (dir / "cases.json").string()},
                                     900);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json results = json::parse(r.out);
  ASSERT_EQ(results.size(), ids.size());
  for (std::size_t i = 0; i < ids.size(); ++i) {
    EXPECT_FALSE(results[i].contains("error")) << ids[i] << ": " << results[i];
    if (results[i].contains("error")) continue;
    EXPECT_EQ(results[i]["tensors"], expected[i]["tensors"]) << ids[i];
    EXPECT_EQ(results[i]["values"], expected[i]["values"]) << ids[i];
    EXPECT_EQ(results[i]["kinds"], expected[i]["kinds"]) << ids[i];
  }
  fs::remove_all(dir);
}

// Every corpus kernel written as a plain KernelBench solution reads back through kaudit's importer to
// its own text, entry and binding, but the two whose problem.py passes a tuple init input (bias_shape),
// which the importer does not take.
TEST(PlainSolutions, EveryCorpusKernelReadsBackUnchanged) {
  const fs::path dir = fs::path(KAUDIT_TEST_CACHE) / ("solutions_test_plain." + std::to_string(::getpid()));
  fs::create_directories(dir);
  const auto r = kaudit::run_process({kaudit::oracle::default_python(), (kHere / "plain_roundtrip.py").string(),
                                      KAUDIT_CORPUS_DIR, KAUDIT_TOOLS_DIR, dir.string()},
                                     1200);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json results = json::parse(r.out);
  const auto loaded = kaudit::corpus::load_corpus(KAUDIT_CORPUS_DIR);
  EXPECT_EQ(results.size(), loaded.corpus.kernels.size());
  std::set<std::string> failed;
  for (const auto& x : results) {
    if (x.value("same", false)) continue;
    failed.insert(x["kernel"].get<std::string>());
    EXPECT_NE(x.value("error", "").find("`bias_shape` is a tuple"), std::string::npos) << x;
  }
  EXPECT_EQ(failed, (std::set<std::string>{"conv2d_tanh_scaling_bias_maxpool/ctsbm_direct",
                                           "conv2d_tanh_scaling_bias_maxpool/ctsbm_tile_pool"}));
  fs::remove_all(dir);
}

// The harness's verdicts become the oracle's: a verdict line, an exit status, a death by signal
// (crash) and a hang (timeout) each kill, the rest pass, per family as the manifest predicts;
// originals that pass are no false kills; the run's other oracles are kept.
TEST(CommandOracle, TheHarnessVerdictsAreScoredLikeAnyOracle) {
  const Exported& e = exported();
  std::map<std::string, const json*> mutant;
  std::vector<std::string> even;  // mutants the rules let pass: two of them crash and hang instead
  for (const auto& m : e.manifest["mutants"]) {
    mutant[m["id"]] = &m;
    if (m["switch"].get<int>() % 2 == 0) even.push_back(m["id"]);
  }
  ASSERT_GE(even.size(), 2u) << e.manifest["mutants"];
  ::setenv("FAKE_CRASH", even[0].c_str(), 1);
  ::setenv("FAKE_HANG", even[1].c_str(), 1);
  const fs::path out = e.run.parent_path() / "scored";
  const std::string command = "{python} '" + (kHere / "fake_harness.py").string() + "' {solution} {problem} {mutant} {switch}";
  const auto r = kaudit::run_process({KAUDIT_EXE, "audit", "--from", e.run.string(), "--solutions", e.solutions.string(),
                                      "--oracle-command", command, "--oracle-name", "fake", "--command-timeout", "5",
                                      "--jobs", "2", "--out", out.string(), "--json"},
                                     600);
  ::unsetenv("FAKE_CRASH");
  ::unsetenv("FAKE_HANG");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::map<std::string, int> expect_killed;
  for (const auto& m : e.manifest["mutants"]) {
    const bool killed = m["switch"].get<int>() % 2 == 1 || m["id"] == even[0] || m["id"] == even[1];
    expect_killed[m["family"].get<std::string>()] += killed;
  }
  const json summary = read_json(out / "summary.json");
  const json* fake = nullptr;
  for (const auto& o : summary["oracles"]) {
    if (o["oracle"] == "fake") fake = &o;
  }
  ASSERT_NE(fake, nullptr) << summary["oracles"];
  EXPECT_EQ(summary["oracles"].size(), 2u);  // kernelbench-v0.1 kept
  for (const auto& [family, killed] : expect_killed) {
    EXPECT_EQ((*fake)["per_family"][family]["killed"], killed) << family;
  }
  EXPECT_EQ((*fake)["false_kills"], 0);
  std::map<std::string, std::string> cause;
  for (const auto& k : read_jsonl(out / "kill-matrix.jsonl"))
    if (k.contains("cause") && k["cause"].contains("fake")) cause[k["id"]] = k["cause"]["fake"];
  EXPECT_EQ(cause[even[0]], "crash");
  EXPECT_EQ(cause[even[1]], "timeout");
  // Every evaluation with its reason, originals included.
  const auto evaluations = read_jsonl(out / "fake-evaluations.jsonl");
  EXPECT_EQ(evaluations.size(), e.manifest["mutants"].size() + 1);
  for (const auto& v : evaluations) {
    if (v["mutant"] == even[0]) {
      EXPECT_NE(v["reason"].get<std::string>().find("signal 9"), std::string::npos) << v;
    }
  }
  for (const auto& [id, m] : mutant) {
    const int sw = (*m)["switch"].get<int>();
    if (sw % 2 == 1) {
      EXPECT_EQ(cause[id], sw % 4 == 3 ? "rejected" : "wrong-output") << id;  // null cause: "rejected"
    }
  }
}

// A harness that cannot run a correct kernel (here a Python harness whose import fails: exit 1, as a
// rejection by exit status) is an error before any mutant runs; so is a solution folder that lacks
// a witnessed mutant of the run, an oracle name the run already has, and a placeholder misspelt.
TEST(CommandOracle, ABrokenHarnessOrAnIncompleteExportIsAnError) {
  const Exported& e = exported();
  const std::string command = "{python} " + (kHere / "fake_harness.py").string() + " {solution} {problem} {mutant} {switch}";
  const fs::path out = e.run.parent_path() / "broken";
  ::setenv("FAKE_BROKEN", "1", 1);
  auto r = kaudit::run_process({KAUDIT_EXE, "audit", "--from", e.run.string(), "--solutions", e.solutions.string(),
                                "--oracle-command", command, "--out", out.string()},
                               300);
  ::unsetenv("FAKE_BROKEN");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("failed on the original of relu/relu_gridstride"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("No module named 'kernelbench'"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(out / "summary.json"));

  const fs::path partial = e.run.parent_path() / "partial";
  fs::remove_all(partial);
  fs::copy(e.solutions, partial, fs::copy_options::recursive);
  json manifest = e.manifest;
  const std::string dropped = manifest["mutants"][0]["id"];
  manifest["mutants"].erase(0);
  std::ofstream(partial / "solutions.json") << manifest.dump();
  r = kaudit::run_process({KAUDIT_EXE, "audit", "--from", e.run.string(), "--solutions", partial.string(),
                           "--oracle-command", command, "--out", out.string()},
                          300);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("no solution for the witnessed mutant " + dropped), std::string::npos) << r.err;

  r = kaudit::run_process({KAUDIT_EXE, "audit", "--from", e.run.string(), "--solutions", e.solutions.string(),
                           "--oracle-command", command, "--oracle-name", "kernelbench-v0.1", "--out", out.string()},
                          300);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("already scored 'kernelbench-v0.1'"), std::string::npos) << r.err;

  r = kaudit::run_process({KAUDIT_EXE, "audit", "--from", e.run.string(), "--solutions", e.solutions.string(),
                           "--oracle-command", "python3 eval.py {soluton} {problem}", "--out", out.string()},
                          60);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("{soluton}, which is no placeholder"), std::string::npos) << r.err;
}

TEST(CommandOracle, CommandsSplitLikeShellWords) {
  using kaudit::solutions::split_command;
  EXPECT_EQ(split_command("python3 eval.py {solution}  {problem}"),
            (std::vector<std::string>{"python3", "eval.py", "{solution}", "{problem}"}));
  EXPECT_EQ(split_command("'a b' \"c \\\" d\" e\\ f ''"), (std::vector<std::string>{"a b", "c \" d", "e f", ""}));
  EXPECT_THROW(split_command("python3 'eval.py"), std::invalid_argument);
  EXPECT_THROW(split_command("   "), std::invalid_argument);
}
