// kaudit export: the kernelbench-hidden Python modules regenerate exactly the tensors kaudit
// makes (run with python3 + torch and compared byte for byte), with every distribution,
// transform and input domain; the json format; and a suite from another corpus is refused.
#include <gtest/gtest.h>

#include <ATen/ATen.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/process.h"
#include "corpus/corpus.h"
#include "suites/export.h"
#include "oracle/recipes.h"
#include "common/files.h"

namespace {

namespace fs = std::filesystem;
using namespace kaudit;

const corpus::Corpus& fixture_corpus() {
  static const corpus::LoadResult loaded = corpus::load_corpus(fs::path(KAUDIT_FIXTURES_DIR) / "corpus_good");
  return loaded.corpus;
}

oracle::OracleSpec suite() {
  oracle::OracleSpec s;
  s.name = "export-test";
  s.comparator = {oracle::ComparatorKind::Allclose, 0.01, 0.01, false, {}};
  std::vector<oracle::Recipe> mixed, relu;
  int seed = 100;
  for (const char* d : {"uniform01", "uniform_sym", "normal", "log_uniform", "ones", "arange", "constant_rows", "one_hot",
                        "alternating", "exp_overflow"}) {
    oracle::Recipe r;
    r.name = std::string("r-") + d;
    r.distribution = oracle::parse_distribution(d);
    r.seed = static_cast<uint64_t>(seed++);
    r.preset = "odd:0";
    relu.push_back(r);
    r.preset = seed % 2 ? "odd:0" : "odd:1";
    mixed.push_back(r);
  }
  oracle::Recipe t;  // every transform at once, on the small preset
  t.name = "transforms";
  t.distribution = oracle::Distribution::Normal;
  t.seed = 7;
  t.abs = true;
  t.scale = 3.5;
  t.shift = -0.25;
  t.negate = true;
  relu.push_back(t);
  s.task_trials["mixed"] = mixed;
  s.task_trials["relu"] = relu;
  std::vector<oracle::Recipe> structured;  // symmetric and triangular inputs, batched and rectangular
  for (const char* preset : {"small", "odd:0", "odd:1"}) {
    oracle::Recipe r;
    r.name = std::string("structured-") + preset;
    r.distribution = oracle::Distribution::Normal;
    r.seed = static_cast<uint64_t>(seed++);
    r.preset = preset;
    structured.push_back(r);
  }
  structured[1].distribution = oracle::parse_distribution("constant_rows");
  s.task_trials["structured"] = structured;
  return s;
}

std::string read(const fs::path& p) { return kaudit::read_file(p).value_or(std::string()); }

TEST(Export, KernelbenchHiddenModulesRegenerateTheTensorsBitForBit) {
  const fs::path out = fs::temp_directory_path() / ("kaudit_export_" + std::to_string(::getpid()));
  fs::remove_all(out);
  const auto s = suite();
  const auto files = cover::export_suite(s, fixture_corpus(), "kernelbench-hidden", out);
  ASSERT_EQ(files.size(), 3u);
  // A driver imports each module and dumps every tensor's bytes and the init inputs.
  std::ofstream(out / "dump.py") << R"py(
import importlib.util, json, sys, torch
for name in ["mixed", "relu", "structured"]:
    spec = importlib.util.spec_from_file_location(name, sys.argv[1] + "/" + name + ".py")
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    for i, (get, init) in enumerate(zip(m.HIDDEN_INPUTS, m.HIDDEN_INIT_INPUTS)):
        for j, t in enumerate(get()):
            with open("%s/%s-%d-%d.bin" % (sys.argv[1], name, i, j), "wb") as f:
                f.write(bytes(t.contiguous().view(torch.uint8).flatten().tolist()))
        with open("%s/%s-%d-init.json" % (sys.argv[1], name, i), "w") as f:
            json.dump(init(), f)
)py";
  const auto r = run_process({"/usr/bin/python3", (out / "dump.py").string(), out.string()}, 600);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const auto& [task_name, recipes] : s.task_trials) {
    const corpus::Task& task = *fixture_corpus().find_task(task_name);
    for (std::size_t i = 0; i < recipes.size(); ++i) {
      const auto tensors = oracle::make_inputs(task, recipes[i]);
      for (std::size_t j = 0; j < tensors.size(); ++j) {
        const at::Tensor t = tensors[j].contiguous();
        const std::string bytes = read(out / (task_name + "-" + std::to_string(i) + "-" + std::to_string(j) + ".bin"));
        ASSERT_EQ(bytes.size(), t.nbytes()) << task_name << " " << recipes[i].name << " input " << j;
        EXPECT_EQ(std::memcmp(bytes.data(), t.data_ptr(), bytes.size()), 0) << task_name << " " << recipes[i].name << " input " << j;
      }
      const auto init = nlohmann::json::parse(read(out / (task_name + "-" + std::to_string(i) + "-init.json")));
      EXPECT_EQ(init.size(), task.init_inputs.size());
      if (task_name == "mixed") {
        EXPECT_EQ(init[0].get<double>(), 1e-5);
        EXPECT_EQ(init[2].get<int64_t>(), oracle::dims_for(task, recipes[i]).at("D"));
      }
    }
  }
  fs::remove_all(out);
}

// A task whose forward takes numbers around its tensor (tests/fixtures/oracle/scaled_by_constant:
// forward(s, x, k, u, w)): get_inputs_0() returns them at their positions, the tensor still the
// recipe's bytes, and the JSON cases list them.
TEST(Export, ConstantArgumentsKeepTheirPositions) {
  std::vector<corpus::Diagnostic> diags;
  const auto task = corpus::load_task(fs::path(KAUDIT_FIXTURES_DIR) / "oracle" / "scaled_by_constant", diags);
  ASSERT_TRUE(task.has_value());
  oracle::Recipe r;
  r.name = "normal";
  r.distribution = oracle::Distribution::Normal;
  r.seed = 3;
  r.preset = "small";
  const auto cases = cover::export_cases(*task, {r});
  ASSERT_EQ(cases[0]["constants"].size(), 4u);
  EXPECT_EQ(cases[0]["constants"][1]["position"], 2);
  EXPECT_EQ(cases[0]["constants"][1]["value"], 3);
  const fs::path dir = fs::temp_directory_path() / ("kaudit_export_constants_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "m.py") << cover::kernelbench_hidden_module(*task, {r}, "s");
  std::ofstream(dir / "dump.py") << R"py(
import importlib.util, sys, torch
spec = importlib.util.spec_from_file_location("m", sys.argv[1] + "/m.py")
m = importlib.util.module_from_spec(spec)
spec.loader.exec_module(m)
got = m.get_inputs_0()
print([type(v).__name__ for v in got], got[0], got[2], got[3], got[4])
open(sys.argv[1] + "/x.bin", "wb").write(bytes(got[1].contiguous().view(torch.uint8).flatten().tolist()))
)py";
  const auto run = run_process({"/usr/bin/python3", (dir / "dump.py").string(), dir.string()}, 600);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out, "['float', 'Tensor', 'int', 'int', 'float'] 0.5 3 2 1.5\n");
  const at::Tensor x = oracle::make_inputs(*task, r)[0].contiguous();
  const std::string bytes = read(dir / "x.bin");
  ASSERT_EQ(bytes.size(), x.nbytes());
  EXPECT_EQ(std::memcmp(bytes.data(), x.data_ptr(), bytes.size()), 0);
  fs::remove_all(dir);
}

TEST(Export, JsonGivesShapesAndRecipes) {
  const fs::path out = fs::temp_directory_path() / ("kaudit_export_json_" + std::to_string(::getpid()));
  const auto files = cover::export_suite(suite(), fixture_corpus(), "json", out);
  ASSERT_EQ(files.size(), 1u);
  const auto j = nlohmann::json::parse(read(files[0]));
  const auto& relu = j["tasks"]["relu"];
  const corpus::Task& task = *fixture_corpus().find_task("relu");
  ASSERT_EQ(relu.size(), suite().task_trials.at("relu").size());
  EXPECT_EQ(relu[0]["inputs"][0]["shape"].get<std::vector<int64_t>>(),
            corpus::shape_of(task.inputs[0], corpus::resolve(task, task.odd_shapes[0])));
  EXPECT_EQ(relu[0]["recipe"]["distribution"], "uniform01");
  fs::remove_all(out);
}

TEST(Export, ASuiteFromAnotherCorpusOrAnUnknownFormatIsRefused) {
  auto s = suite();
  s.task_trials["conv3d_transpose"] = s.task_trials["relu"];
  try {
    cover::export_suite(s, fixture_corpus(), "json", fs::temp_directory_path() / "kaudit_export_never");
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("conv3d_transpose"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("another corpus"), std::string::npos) << e.what();
  }
  EXPECT_THROW(cover::export_suite(suite(), fixture_corpus(), "onnx", fs::temp_directory_path() / "x"), std::invalid_argument);
}

}  // namespace
