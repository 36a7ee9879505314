// `kaudit import kernelbench` on the fixture solutions (tests/fixtures/kernelbench/README.md lists
// the form each one exercises): what imports, what the gate rejects, what is refused with the line,
// that nothing half-written is left, and that every verified import loads and mutates.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "common/process.h"
#include "corpus/corpus.h"
#include "corpus/importer/kernelbench.h"
#include "mutators/mutators.h"

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

const fs::path kFixtures = fs::path(KAUDIT_FIXTURES_DIR) / "kernelbench";

json run_import(const std::vector<std::string>& extra, int expect_exit) {
  std::vector<std::string> argv = {KAUDIT_EXE, "import", "kernelbench"};
  argv.insert(argv.end(), extra.begin(), extra.end());
  argv.insert(argv.end(), {"--cache", KAUDIT_TEST_CACHE, "--json"});
  const auto r = kaudit::run_process(argv, 1200);
  EXPECT_EQ(r.exit_code, expect_exit) << r.err << r.out;
  return json::parse(r.out);
}

std::map<std::string, json> by_solution(const json& report) {
  std::map<std::string, json> out;
  for (const auto& o : report["outcomes"]) out[fs::path(o["solution"].get<std::string>()).filename().string()] = o;
  return out;
}

bool has_hidden_entries(const fs::path& dir) {
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().filename().string()[0] == '.') return true;
  return false;
}

TEST(ImportKernelBench, FixtureFolderImportsVerifiesAndMutates) {
  const fs::path corpus = fs::path(KAUDIT_TEST_CACHE) / "import_e2e_corpus";
  fs::remove_all(corpus);
  // An existing task to bind against: the built-in linear_relu task.
  fs::create_directories(corpus / "tasks");
  fs::copy(fs::path(KAUDIT_BUILTIN_CORPUS) / "tasks" / "linear_relu", corpus / "tasks" / "linear_relu");

  // The folder, with a folder of problems: 76_Linear_ReLU_module.py has no problem there.
  const json folder = run_import({(kFixtures / "solutions").string(), "--problem", (kFixtures / "problems").string(),
                                  "--into", corpus.string()}, 1);
  auto o = by_solution(folder);
  ASSERT_EQ(o.size(), 19u) << folder.dump(1);
  for (const char* ok : {"19_ReLU_basic.py", "19_ReLU_fstring.py", "19_ReLU_two_extensions.py", "23_Softmax_dispatch.py",
                         "36_RMSNorm_eps.py", "90_ElementwiseAdd_two_functions.py", "95_CrossEntropyLoss.py",
                         "16_Matmul_with_transposed_A_view.py", "13_Matmul_for_symmetric_matrices_tiled.py",
                         "15_Matmul_for_lower_triangular_matrices.py", "93_Masked_cumsum_rowscan.py",
                         "13_Matmul_for_symmetric_matrices_dispatch.py", "96_HuberLoss_mean.py",
                         "5_Matrix_scalar_multiplication_scale.py", "93_Masked_cumsum_axis.py"})
    EXPECT_EQ(o[ok]["status"], "imported") << o[ok].dump(1);
  EXPECT_EQ(o["19_ReLU_basic.py"]["task"], "relu");
  EXPECT_EQ(o["95_CrossEntropyLoss.py"]["task"], "crossentropyloss");
  EXPECT_TRUE(o["19_ReLU_two_extensions.py"]["glue"].get<bool>());
  EXPECT_FALSE(o["19_ReLU_basic.py"]["glue"].get<bool>());
  EXPECT_TRUE(o["16_Matmul_with_transposed_A_view.py"]["glue"].get<bool>());

  // The dropped tail passes KernelBench's own shape but not the gate's odd shapes.
  EXPECT_EQ(o["19_ReLU_tail_dropped.py"]["status"], "unverified");
  EXPECT_NE(o["19_ReLU_tail_dropped.py"]["reason"].get<std::string>().find("odd"), std::string::npos)
      << o["19_ReLU_tail_dropped.py"].dump(1);

  // Unsupported: the construct and its line, and nothing written.
  EXPECT_EQ(o["19_ReLU_torch_op.py"]["status"], "unsupported");
  const std::string why = o["19_ReLU_torch_op.py"]["reason"];
  EXPECT_NE(why.find("19_ReLU_torch_op.py:30:"), std::string::npos) << why;
  EXPECT_NE(why.find("torch.nn.functional.relu"), std::string::npos) << why;
  EXPECT_FALSE(fs::exists(corpus / "kernels" / "relu" / "19_relu_torch_op.cu"));
  EXPECT_EQ(o["76_Linear_ReLU_module.py"]["status"], "unsupported");
  EXPECT_NE(o["76_Linear_ReLU_module.py"]["reason"].get<std::string>().find("no problem file"), std::string::npos);
  EXPECT_EQ(folder["counts"]["imported"], 15);
  EXPECT_EQ(folder["counts"]["unverified"], 1);
  EXPECT_EQ(folder["counts"]["unsupported"], 3);
  // The kernel is called, but what forward returns does not use its result.
  EXPECT_EQ(o["96_HuberLoss_unused.py"]["status"], "unsupported");
  EXPECT_NE(o["96_HuberLoss_unused.py"]["reason"].get<std::string>().find("uses no extension call's result"),
            std::string::npos) << o["96_HuberLoss_unused.py"].dump(1);

  // One file into an existing task whose problem.py it shares: parameters bound by name.
  const json lin = run_import({(kFixtures / "solutions" / "76_Linear_ReLU_module.py").string(), "--problem",
                               (corpus / "tasks" / "linear_relu" / "problem.py").string(), "--task", "linear_relu",
                               "--into", corpus.string()}, 0);
  ASSERT_EQ(lin["outcomes"][0]["status"], "imported") << lin.dump(1);
  EXPECT_FALSE(lin["outcomes"][0]["new_task"].get<bool>());

  // Again: already there. Into a task of that name with another problem: refused.
  const json again = run_import({(kFixtures / "solutions" / "19_ReLU_basic.py").string(), "--problem",
                                 (kFixtures / "problems" / "19_ReLU.py").string(), "--into", corpus.string()}, 0);
  EXPECT_EQ(again["outcomes"][0]["status"], "already-imported");
  const json clash = run_import({(kFixtures / "solutions" / "23_Softmax_dispatch.py").string(), "--problem",
                                 (kFixtures / "problems" / "23_Softmax.py").string(), "--task", "relu", "--into",
                                 corpus.string()}, 1);
  EXPECT_NE(clash["outcomes"][0]["reason"].get<std::string>().find("another problem.py"), std::string::npos);
  EXPECT_FALSE(has_hidden_entries(corpus)) << "a staging folder was left behind";

  // The corpus loads without a diagnostic; the unverified kernel is kept apart.
  const auto loaded = kaudit::corpus::load_corpus(corpus);
  for (const auto& d : loaded.diagnostics) ADD_FAILURE() << d.to_string();
  ASSERT_EQ(loaded.corpus.kernels.size(), 16u);
  ASSERT_EQ(loaded.unverified.size(), 1u);
  EXPECT_EQ(loaded.unverified[0].id(), "relu/19_relu_tail_dropped");
  const auto* rms = loaded.corpus.find_kernel("rmsnorm/36_rmsnorm_eps");
  ASSERT_NE(rms, nullptr);
  ASSERT_EQ(rms->args.size(), 3u);
  EXPECT_EQ(std::get<double>(rms->args[1]), 1e-5);
  EXPECT_EQ(std::get<kaudit::corpus::DimRef>(rms->args[2]).name, "features");
  const auto* lr = loaded.corpus.find_kernel("linear_relu/76_linear_relu_module");
  ASSERT_NE(lr, nullptr);
  EXPECT_EQ(std::get<kaudit::corpus::ParamRef>(lr->args[1]).name, "linear.weight");
  // The generated entry transposes and materialises A, and passes the __init__ default.
  const auto* mt = loaded.corpus.find_kernel("matmul_with_transposed_a/16_matmul_with_transposed_a_view");
  ASSERT_NE(mt, nullptr);
  EXPECT_EQ(mt->entry, "kaudit_forward");
  EXPECT_NE(mt->source.find("kaudit_a0.transpose(0, 1).contiguous(), kaudit_a1, 1.0)[0]"), std::string::npos);
  // Torch arithmetic and reductions around the extension call: computed by the generated entry.
  const auto* hub = loaded.corpus.find_kernel("huberloss/96_huberloss_mean");
  ASSERT_NE(hub, nullptr);
  EXPECT_NE(hub->source.find("  auto shifted = ((kaudit_a0 * 1.0) + 0.0);\n  auto loss = huber_cuda(kaudit_a1, shifted);"),
            std::string::npos) << hub->source;
  EXPECT_NE(hub->source.find("return ((torch::mean(loss, torch::IntArrayRef{0, 1}) / 2) + (loss.mean() / 2));"), std::string::npos);
  // A number among get_inputs()'s values: a constant of the task, the literal in the kernel's call.
  const auto* ms = loaded.corpus.find_task("matrix_scalar_multiplication");
  ASSERT_NE(ms, nullptr);
  ASSERT_EQ(ms->inputs.size(), 1u);
  ASSERT_EQ(ms->constants.size(), 1u);
  EXPECT_EQ(ms->constants[0].name, "s");
  EXPECT_EQ(ms->constants[0].position, 1u);
  EXPECT_EQ(ms->constants[0].value, 2.71);
  EXPECT_FALSE(ms->constants[0].integer);
  const auto* sc = loaded.corpus.find_kernel("matrix_scalar_multiplication/5_matrix_scalar_multiplication_scale");
  ASSERT_NE(sc, nullptr);
  ASSERT_EQ(sc->args.size(), 2u);
  EXPECT_EQ(std::get<double>(sc->args[1]), 2.71);
  // `x.shape[self.dim]` with the init input dim = 1 in every shape: the row length, a literal.
  const auto* ax = loaded.corpus.find_kernel("masked_cumsum/93_masked_cumsum_axis");
  ASSERT_NE(ax, nullptr);
  ASSERT_EQ(ax->args.size(), 3u);
  EXPECT_EQ(std::get<int64_t>(ax->args[2]), 3000);
  const auto* ce = loaded.corpus.find_task("crossentropyloss");
  ASSERT_NE(ce, nullptr);
  EXPECT_EQ(ce->inputs[1].domain, kaudit::corpus::Domain::Index);
  EXPECT_EQ(ce->inputs[1].index_dim, "num_classes");
  // Inputs built as (A + A.T) / 2 and torch.tril: symmetric and lower-triangular domains, without
  // which the triangular kernel (it reads only k in [j, i]) fails the gate on dense inputs.
  const auto* sym = loaded.corpus.find_task("matmul_for_symmetric_matrices");
  ASSERT_NE(sym, nullptr);
  EXPECT_EQ(sym->inputs[0].domain, kaudit::corpus::Domain::Symmetric);
  EXPECT_EQ(sym->inputs[1].domain, kaudit::corpus::Domain::Symmetric);
  const auto* tri = loaded.corpus.find_task("matmul_for_lower_triangular_matrices");
  ASSERT_NE(tri, nullptr);
  EXPECT_EQ(tri->inputs[0].domain, kaudit::corpus::Domain::LowerTriangular);
  EXPECT_EQ(tri->inputs[1].domain, kaudit::corpus::Domain::LowerTriangular);
  // `n, _ = A.shape` in forward: n is the task's dim N.
  const auto* disp = loaded.corpus.find_kernel("matmul_for_symmetric_matrices/13_matmul_for_symmetric_matrices_dispatch");
  ASSERT_NE(disp, nullptr);
  ASSERT_EQ(disp->args.size(), 3u);
  EXPECT_EQ(std::get<kaudit::corpus::DimRef>(disp->args[2]).name, "N");
  // torch.randint(0, 2, x.shape).bool(): a mask of x's shape, read through the other input.
  const auto* masked = loaded.corpus.find_task("masked_cumsum");
  ASSERT_NE(masked, nullptr);
  EXPECT_EQ(masked->inputs[1].domain, kaudit::corpus::Domain::Mask);
  EXPECT_EQ(masked->inputs[1].dtype, "bool");
  EXPECT_EQ(masked->inputs[1].shape, masked->inputs[0].shape);

  // Every verified import parses for the mutators and yields mutants (where kaudit has the Clang
  // rule engine, KAUDIT_WITH_CLANG).
  if (kaudit::mutators::clang_available()) {
    for (const auto& k : loaded.corpus.kernels) {
      const auto mutants = kaudit::mutators::generate_mutants({k.id(), k.cu_path.string(), k.source});
      EXPECT_GT(mutants.size(), 5u) << k.id();
    }
  }
}

TEST(ImportKernelBench, CorpusNamesAndProblemMatching) {
  EXPECT_EQ(kaudit::importer::corpus_name("19_ReLU_gpt-4o (2)"), "19_relu_gpt_4o_2");
  EXPECT_EQ(kaudit::importer::corpus_name("__x__"), "x");
  const auto plan = kaudit::importer::plan_imports(kFixtures / "solutions", kFixtures / "problems", "");
  std::map<std::string, std::string> problem_of;
  for (const auto& r : plan.requests) problem_of[r.solution.filename().string()] = r.problem.filename().string();
  EXPECT_EQ(problem_of["19_ReLU_fstring.py"], "19_ReLU.py");
  EXPECT_EQ(problem_of["95_CrossEntropyLoss.py"], "95_CrossEntropyLoss.py");
  ASSERT_EQ(plan.unmatched.size(), 1u);
  EXPECT_EQ(plan.unmatched[0].solution.filename(), "76_Linear_ReLU_module.py");
}

// Issue 21: the analyser (tools/import_kernelbench.py) answers bad files with one JSON error
// naming the file and line, never a Python traceback, and bounds constant arithmetic: a problem
// with `10 ** 10 ** 9` took minutes.
TEST(ImportKernelBench, NonUtf8FilesAndHugeConstantsAreErrorsNotTracebacks) {
  const fs::path dir = fs::path(KAUDIT_TEST_CACHE) / "import_bad_files";
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::ofstream(dir / "latin1.py") << "import torch\n# caf\xe9\nx = 1\n";
  std::ofstream(dir / "pow.py") << "import torch\nN = 10 ** 10 ** 9\nM = 1 << 10 ** 9\nS = 'a' * 10 ** 12\n"
                                   "class Model(torch.nn.Module):\n    def forward(self, x):\n        return torch.relu(x)\n"
                                   "def get_inputs():\n    return [torch.randn(N, 16)]\ndef get_init_inputs():\n    return []\n";
  const fs::path problem = kFixtures / "problems" / "19_ReLU.py", solution = kFixtures / "solutions" / "19_ReLU_basic.py";
  const auto analyse = [&](const fs::path& sol, const fs::path& prob) {
    const auto r = kaudit::run_process({"/usr/bin/python3", KAUDIT_IMPORT_SCRIPT, sol.string(), "--problem", prob.string()}, 60);
    EXPECT_FALSE(r.timed_out);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.err.find("Traceback"), std::string::npos) << r.err;
    return json::parse(r.out);
  };
  for (const auto& j : {analyse(dir / "latin1.py", problem), analyse(solution, dir / "latin1.py")}) {
    EXPECT_FALSE(j["ok"].get<bool>());
    EXPECT_EQ(fs::path(j["file"].get<std::string>()).filename(), "latin1.py") << j;
    EXPECT_EQ(j["line"], 2) << j;
    EXPECT_EQ(j["construct"], "encoding") << j;
    EXPECT_NE(j["message"].get<std::string>().find("0xe9"), std::string::npos) << j;
  }
  const json p = analyse(solution, dir / "pow.py");
  EXPECT_FALSE(p["ok"].get<bool>());
  EXPECT_EQ(fs::path(p["file"].get<std::string>()).filename(), "pow.py") << p;
  fs::remove_all(dir);
}

}  // namespace
