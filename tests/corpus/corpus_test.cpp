// Tests of the corpus loader: the happy path on tests/fixtures/corpus_good, and on
// tests/fixtures/corpus_bad that every kind of bad input gives a diagnostic with the right file
// and line while the good entries still load.

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>

#include <unistd.h>

#include "corpus/corpus.h"
#include "corpus/json_locator.h"

namespace fs = std::filesystem;
using namespace kaudit::corpus;

namespace {

const fs::path kFixtures = KAUDIT_FIXTURES_DIR;

// The diagnostics whose file ends with `suffix` (a path relative to the corpus root).
std::vector<Diagnostic> diags_for(const LoadResult& r, const std::string& suffix) {
  std::vector<Diagnostic> out;
  for (const auto& d : r.diagnostics) {
    std::string f = d.file.generic_string();
    if (f.size() >= suffix.size() &&
        f.compare(f.size() - suffix.size(), suffix.size(), suffix) == 0)
      out.push_back(d);
  }
  return out;
}

std::string dump(const LoadResult& r) {
  std::string s;
  for (const auto& d : r.diagnostics) s += d.to_string() + "\n";
  return s;
}

class GoodCorpus : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { result_ = new LoadResult(load_corpus(kFixtures / "corpus_good")); }
  static void TearDownTestSuite() { delete result_; }
  static LoadResult* result_;
  const Corpus& corpus() const { return result_->corpus; }
};
LoadResult* GoodCorpus::result_ = nullptr;

}  // namespace

// ---------------------------------------------------------------------------------------------
// Happy path

TEST_F(GoodCorpus, LoadsWithoutDiagnostics) {
  EXPECT_TRUE(result_->ok()) << dump(*result_);
  ASSERT_EQ(corpus().tasks.size(), 4u);
  EXPECT_EQ(corpus().tasks[0].name, "linear_relu");  // sorted by name
  EXPECT_EQ(corpus().tasks[1].name, "mixed");
  EXPECT_EQ(corpus().tasks[2].name, "relu");
  EXPECT_EQ(corpus().tasks[3].name, "structured");
  ASSERT_EQ(corpus().kernels.size(), 2u);
  EXPECT_EQ(corpus().kernels[0].id(), "linear_relu/lin_naive");
  EXPECT_EQ(corpus().kernels[1].id(), "relu/relu_simple");
}

TEST_F(GoodCorpus, TaskFields) {
  const Task* t = corpus().find_task("linear_relu");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->description, "relu(Linear(D_in, D_out)(x))");
  EXPECT_EQ(t->problem_py, kFixtures / "corpus_good/tasks/linear_relu/problem.py");
  EXPECT_EQ(t->task_json, kFixtures / "corpus_good/tasks/linear_relu/task.json");
  ASSERT_EQ(t->inputs.size(), 1u);
  const InputSpec& x = t->inputs[0];
  EXPECT_EQ(x.name, "x");
  EXPECT_EQ(x.dtype, "float32");
  EXPECT_EQ(x.domain, Domain::Real);  // the default
  ASSERT_EQ(x.shape.size(), 2u);
  EXPECT_EQ(std::get<std::string>(x.shape[0]), "B");
  EXPECT_EQ(std::get<std::string>(x.shape[1]), "D_in");
  ASSERT_EQ(t->init_inputs.size(), 2u);
  EXPECT_EQ(std::get<std::string>(t->init_inputs[0]), "D_in");
  ASSERT_EQ(t->dims.size(), 3u);
  EXPECT_EQ(t->dims.at("D_in").max, 8192);
  EXPECT_EQ(t->dims.at("D_out").min, 2);
  EXPECT_EQ(t->dims.at("D_out").multiple_of, 2);
  EXPECT_FALSE(t->dims.at("B").max.has_value());
  EXPECT_EQ(t->presets.at("small"), (Assignment{{"B", 5}, {"D_in", 16}, {"D_out", 12}}));
  ASSERT_EQ(t->odd_shapes.size(), 2u);
  EXPECT_EQ(t->odd_shapes[1].at("D_in"), 33);
  ASSERT_TRUE(t->tolerance.has_value());
  EXPECT_DOUBLE_EQ(t->tolerance->rtol, 2e-4);
  EXPECT_DOUBLE_EQ(t->tolerance->atol, 2e-5);
  EXPECT_NE(t->notes.find("summation order"), std::string::npos);
  EXPECT_EQ(t->find_input("x"), &t->inputs[0]);
  EXPECT_EQ(t->find_input("nope"), nullptr);
}

TEST_F(GoodCorpus, DomainsAndLiterals) {
  const Task* t = corpus().find_task("mixed");
  ASSERT_NE(t, nullptr);
  ASSERT_EQ(t->inputs.size(), 4u);
  EXPECT_EQ(t->inputs[0].domain, Domain::Positive);
  EXPECT_EQ(t->inputs[1].domain, Domain::Probability);
  EXPECT_EQ(t->inputs[2].domain, Domain::Index);
  EXPECT_EQ(t->inputs[2].index_dim, "D");
  EXPECT_EQ(t->inputs[2].dtype, "int64");
  EXPECT_EQ(t->inputs[3].dtype, "float16");
  EXPECT_EQ(std::get<int64_t>(t->inputs[3].shape[0]), 2);  // integer literal in a shape
  const Task* s = corpus().find_task("structured");
  ASSERT_NE(s, nullptr);
  ASSERT_EQ(s->inputs.size(), 4u);
  EXPECT_EQ(s->inputs[0].domain, Domain::Symmetric);
  EXPECT_EQ(s->inputs[1].domain, Domain::LowerTriangular);
  EXPECT_EQ(s->inputs[2].domain, Domain::UpperTriangular);
  EXPECT_EQ(s->inputs[3].domain, Domain::Mask);
  EXPECT_EQ(s->inputs[3].dtype, "bool");
  EXPECT_STREQ(domain_name(Domain::LowerTriangular), "lower-triangular");
  ASSERT_EQ(t->init_inputs.size(), 3u);
  EXPECT_DOUBLE_EQ(std::get<double>(t->init_inputs[0]), 1e-5);  // real literal
  EXPECT_EQ(std::get<int64_t>(t->init_inputs[1]), 3);           // integer literal
  EXPECT_EQ(std::get<std::string>(t->init_inputs[2]), "D");     // dim
  EXPECT_FALSE(t->tolerance.has_value());
}

TEST_F(GoodCorpus, KernelFields) {
  const Kernel* k = corpus().find_kernel("linear_relu", "lin_naive");
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(corpus().find_kernel("linear_relu/lin_naive"), k);
  EXPECT_EQ(k->entry, "linear_relu_forward");
  EXPECT_EQ(k->cu_path, kFixtures / "corpus_good/kernels/linear_relu/lin_naive.cu");
  EXPECT_EQ(k->json_path, kFixtures / "corpus_good/kernels/linear_relu/lin_naive.json");
  EXPECT_NE(k->source.find("__global__ void lin_kernel"), std::string::npos);
  ASSERT_EQ(k->args.size(), 7u);
  EXPECT_EQ(std::get<InputRef>(k->args[0]), InputRef{"x"});
  EXPECT_EQ(std::get<ParamRef>(k->args[1]), ParamRef{"linear.weight"});
  EXPECT_EQ(std::get<ParamRef>(k->args[2]), ParamRef{"linear.bias"});
  EXPECT_EQ(std::get<DimRef>(k->args[3]), DimRef{"B"});
  EXPECT_DOUBLE_EQ(std::get<double>(k->args[4]), 1e-5);
  EXPECT_EQ(std::get<bool>(k->args[5]), true);
  EXPECT_EQ(std::get<int64_t>(k->args[6]), 3);
  EXPECT_EQ(k->provenance.at("author"), "kaudit tests");
  EXPECT_EQ(corpus().kernels_of("relu").size(), 1u);
  EXPECT_TRUE(corpus().kernels_of("mixed").empty());
  EXPECT_EQ(corpus().find_kernel("relu/none"), nullptr);
  EXPECT_EQ(corpus().find_kernel("no-slash"), nullptr);
  EXPECT_EQ(corpus().find_task("none"), nullptr);
}

// ---------------------------------------------------------------------------------------------
// Shapes

TEST_F(GoodCorpus, ResolveShapeOfInitValues) {
  const Task& t = *corpus().find_task("linear_relu");
  Assignment small = resolve(t, "small");
  EXPECT_EQ(small, (Assignment{{"B", 5}, {"D_in", 16}, {"D_out", 12}}));
  EXPECT_EQ(shape_of(t.inputs[0], small), (std::vector<int64_t>{5, 16}));
  EXPECT_EQ(init_values(t, small), (std::vector<double>{16, 12}));

  Assignment explicit_shape = resolve(t, Assignment{{"B", 3}, {"D_in", 7}, {"D_out", 4}});
  EXPECT_EQ(shape_of(t.inputs[0], explicit_shape), (std::vector<int64_t>{3, 7}));

  const Task& m = *corpus().find_task("mixed");
  Assignment ms = resolve(m, "small");
  EXPECT_EQ(shape_of(m.inputs[3], ms), (std::vector<int64_t>{2, 131072}));
  EXPECT_EQ(init_values(m, ms), (std::vector<double>{1e-5, 3, 10}));
}

TEST_F(GoodCorpus, ResolveRejectsBadAssignments) {
  const Task& t = *corpus().find_task("linear_relu");
  EXPECT_THROW(resolve(t, std::string("huge")), std::invalid_argument);
  // missing dim
  EXPECT_THROW(resolve(t, Assignment{{"B", 3}, {"D_in", 7}}), std::invalid_argument);
  // unknown dim
  EXPECT_THROW(resolve(t, Assignment{{"B", 3}, {"D_in", 7}, {"D_out", 4}, {"Z", 1}}),
               std::invalid_argument);
  // below min, above max, not a multiple
  EXPECT_THROW(resolve(t, Assignment{{"B", 0}, {"D_in", 7}, {"D_out", 4}}), std::invalid_argument);
  EXPECT_THROW(resolve(t, Assignment{{"B", 1}, {"D_in", 9000}, {"D_out", 4}}),
               std::invalid_argument);
  try {
    resolve(t, Assignment{{"B", 1}, {"D_in", 7}, {"D_out", 5}});
    FAIL() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("not a multiple of 2"), std::string::npos) << e.what();
  }
  EXPECT_THROW(shape_of(t.inputs[0], Assignment{{"B", 1}}), std::invalid_argument);
  EXPECT_THROW(init_values(t, Assignment{{"B", 1}}), std::invalid_argument);
}

// ---------------------------------------------------------------------------------------------
// Bad corpus: one diagnostic per bad file, good entries still load

class BadCorpus : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { result_ = new LoadResult(load_corpus(kFixtures / "corpus_bad")); }
  static void TearDownTestSuite() { delete result_; }
  static LoadResult* result_;

  // Exactly one diagnostic for `file`, at `line`, whose message contains `text`.
  static void expect_one(const std::string& file, int line, const std::string& text,
                         const std::string& fix_text = "") {
    auto ds = diags_for(*result_, file);
    ASSERT_EQ(ds.size(), 1u) << file << "\n" << dump(*result_);
    EXPECT_EQ(ds[0].line, line) << ds[0].to_string();
    EXPECT_NE(ds[0].message.find(text), std::string::npos) << ds[0].to_string();
    if (!fix_text.empty()) {
      EXPECT_NE(ds[0].fix.find(fix_text), std::string::npos) << ds[0].to_string();
    }
  }
};
LoadResult* BadCorpus::result_ = nullptr;

TEST_F(BadCorpus, GoodEntriesStillLoad) {
  EXPECT_FALSE(result_->ok());
  ASSERT_EQ(result_->corpus.tasks.size(), 1u) << dump(*result_);
  EXPECT_EQ(result_->corpus.tasks[0].name, "good");
  ASSERT_EQ(result_->corpus.kernels.size(), 1u) << dump(*result_);
  EXPECT_EQ(result_->corpus.kernels[0].id(), "good/ok");
  EXPECT_TRUE(diags_for(*result_, "tasks/good/task.json").empty());
  EXPECT_TRUE(diags_for(*result_, "kernels/good/ok.json").empty());
}

TEST_F(BadCorpus, MalformedJsonGivesParserPosition) {
  // trailing comma on line 4: the parser gives up at the ']' on line 5, column 3
  auto ds = diags_for(*result_, "tasks/bad_json/task.json");
  ASSERT_EQ(ds.size(), 1u) << dump(*result_);
  EXPECT_EQ(ds[0].line, 5);
  EXPECT_EQ(ds[0].column, 3);
  EXPECT_NE(ds[0].message.find("invalid JSON"), std::string::npos);
  EXPECT_EQ(ds[0].message.find("[json.exception"), std::string::npos) << "prefix not stripped";
  EXPECT_NE(ds[0].fix.find("trailing comma"), std::string::npos);
}

TEST_F(BadCorpus, UnknownFieldNamesKnownOnes) {
  expect_one("tasks/unknown_field/task.json", 8, "unknown field 'note'", "did you mean 'notes'");
  auto ds = diags_for(*result_, "tasks/unknown_field/task.json");
  ASSERT_FALSE(ds.empty());
  EXPECT_EQ(ds[0].column, 3);
  EXPECT_NE(ds[0].fix.find("odd_shapes"), std::string::npos);  // the list of known fields
}

TEST_F(BadCorpus, UnknownDimInShape) {
  expect_one("tasks/unknown_dim/task.json", 5, "unknown dim 'Q'", "add \"Q\" to \"dims\"");
  auto ds = diags_for(*result_, "tasks/unknown_dim/task.json");
  ASSERT_FALSE(ds.empty());
  // column of the offending value "Q" on `    {"name": "y", "dtype": "float32", "shape": ["B",
  // "Q"]}`
  EXPECT_EQ(ds[0].column, 54);
}

TEST_F(BadCorpus, PresetsAndOddShapesAreChecked) {
  auto ds = diags_for(*result_, "tasks/bad_preset/task.json");
  ASSERT_EQ(ds.size(), 2u) << dump(*result_);
  EXPECT_EQ(ds[0].line, 6);
  EXPECT_NE(ds[0].message.find("preset 'small' does not assign D"), std::string::npos)
      << ds[0].to_string();
  EXPECT_EQ(ds[1].line, 9);
  EXPECT_NE(ds[1].message.find("B = 1 is below its min 2"), std::string::npos) << ds[1].to_string();
}

TEST_F(BadCorpus, WrongType) {
  expect_one("tasks/wrong_type/task.json", 4,
             "\"min\" of dim 'N' must be an integer, not a string");
}

TEST_F(BadCorpus, SmallPresetRequired) {
  expect_one("tasks/no_small/task.json", 5, "no \"small\" preset");
}

TEST_F(BadCorpus, DtypesAndDomains) {
  auto ds = diags_for(*result_, "tasks/bad_dtype/task.json");
  ASSERT_EQ(ds.size(), 2u) << dump(*result_);
  EXPECT_EQ(ds[0].line, 4);
  EXPECT_NE(ds[0].message.find("int64 input needs domain"), std::string::npos);
  EXPECT_EQ(ds[1].line, 5);
  EXPECT_NE(ds[1].message.find("unknown dtype 'float64'"), std::string::npos);
  EXPECT_NE(ds[1].fix.find("bfloat16"), std::string::npos);  // the known ones are listed
  EXPECT_EQ(dtype_size("bfloat16"), 2);
  EXPECT_EQ(dtype_size("float16"), 2);
  EXPECT_THROW(dtype_size("float64"), std::invalid_argument);
}

TEST_F(BadCorpus, MissingProblemPy) {
  expect_one("tasks/no_problem/problem.py", 0, "missing problem.py");
}

TEST_F(BadCorpus, KernelUnknownInput) {
  expect_one("kernels/good/unknown_input.json", 5, "unknown input 'y'", "has inputs: x");
}

TEST_F(BadCorpus, KernelMissingEntry) {
  expect_one("kernels/good/missing_entry.json", 1, "has no \"entry\"");
}

TEST_F(BadCorpus, KernelEntryNotInSource) {
  expect_one("kernels/good/wrong_entry.json", 2, "entry function 'relu_fwd' not found");
}

TEST_F(BadCorpus, KernelUnknownDimArg) {
  expect_one("kernels/good/bad_dim_arg.json", 3, "unknown dim 'Z'");
}

TEST_F(BadCorpus, KernelArgsWrongType) {
  expect_one("kernels/good/args_not_array.json", 3, "\"args\" must be an array");
}

TEST_F(BadCorpus, KernelMalformedJson) {
  expect_one("kernels/good/bad_json.json", 2, "invalid JSON");
}

TEST_F(BadCorpus, KernelFilePairing) {
  expect_one("kernels/good/no_source.json", 0, "no no_source.cu next to it");
  expect_one("kernels/good/orphan.cu", 0, "kernel source without a binding");
}

TEST_F(BadCorpus, KernelOfFailedTaskIsSkippedWithDiagnostic) {
  expect_one("kernels/unknown_dim/k.json", 0, "its task 'unknown_dim' failed to load");
  expect_one("kernels/no_such_task/k.json", 0, "unknown task 'no_such_task'");
}

TEST_F(BadCorpus, DiagnosticsAreDeterministic) {
  LoadResult again = load_corpus(kFixtures / "corpus_bad");
  EXPECT_EQ(dump(again), dump(*result_));
}

// ---------------------------------------------------------------------------------------------
// Pieces

// The built-in corpus runs at the real benchmarks' shapes (issue 20, item 5; docs/CORPUS.md, "Shape
// presets"): every task has `small`, `kernelbench` (KernelBench's current problem sizes) and
// `kernelbench-v0` (its first release's), each giving every input a shape; KernelBench's current
// sizes are at least as large as `small` (v0's need not be: cross_entropy's are 4096 x 10).
TEST(BuiltinCorpus, EveryTaskHasTheBenchmarksPresets) {
  const LoadResult r = load_corpus(KAUDIT_BUILTIN_CORPUS);
  ASSERT_TRUE(r.ok());
  ASSERT_FALSE(r.corpus.tasks.empty());
  for (const Task& t : r.corpus.tasks) {
    const auto elements = [&](const std::string& preset) {
      const Assignment a = resolve(t, preset);
      std::int64_t n = 0;
      for (const InputSpec& in : t.inputs) {
        std::int64_t e = 1;
        for (std::int64_t d : shape_of(in, a)) e *= d;
        n += e;
      }
      return n;
    };
    for (const char* preset : {"small", "kernelbench", "kernelbench-v0"})
      EXPECT_TRUE(t.presets.contains(preset)) << t.name << " lacks the preset " << preset;
    if (!t.presets.contains("kernelbench") || !t.presets.contains("kernelbench-v0")) continue;
    EXPECT_GE(elements("kernelbench"), elements("small")) << t.name;
    EXPECT_GT(elements("kernelbench-v0"), 0) << t.name;
  }
}

// Every built-in task names its category (reports break miss rates down by it, issue 22 item 7).
TEST(BuiltinCorpus, EveryTaskHasACategory) {
  const LoadResult r = load_corpus(KAUDIT_BUILTIN_CORPUS);
  ASSERT_TRUE(r.ok());
  for (const Task& t : r.corpus.tasks) EXPECT_FALSE(t.category.empty()) << t.name << " has no \"category\"";
}

TEST(CorpusLoader, MissingRoot) {
  LoadResult r = load_corpus(kFixtures / "does_not_exist");
  ASSERT_EQ(r.diagnostics.size(), 1u);
  EXPECT_NE(r.diagnostics[0].message.find("not a directory"), std::string::npos);
  EXPECT_TRUE(r.corpus.tasks.empty());
}

TEST(CorpusLoader, DiagnosticToString) {
  Diagnostic d{"a/task.json", 3, 7, "unknown field 'x'", "remove it"};
  EXPECT_EQ(d.to_string(), "a/task.json:3:7: error: unknown field 'x'\n  fix: remove it");
  Diagnostic whole{"a/problem.py", 0, 0, "missing problem.py", ""};
  EXPECT_EQ(whole.to_string(), "a/problem.py: error: missing problem.py");
}

TEST(CorpusLoader, LineColumn) {
  std::string t = "ab\ncd\n\nx";
  EXPECT_EQ(line_column(t, 0), std::make_pair(1, 1));
  EXPECT_EQ(line_column(t, 1), std::make_pair(1, 2));
  EXPECT_EQ(line_column(t, 3), std::make_pair(2, 1));
  EXPECT_EQ(line_column(t, 7), std::make_pair(4, 1));
  EXPECT_EQ(line_column(t, 100), std::make_pair(4, 2));  // clamped to the end
}

TEST(CorpusLoader, JsonLocatorFindsKeysAndValues) {
  std::string t = "{\n  \"a\": [1,\n    {\"b/c\": \"x\"}],\n  \"d\": {\"e\": null}\n}";
  kaudit::corpus::detail::JsonLocator loc(t);
  EXPECT_EQ(line_column(t, loc.key_offset("/a")), std::make_pair(2, 3));
  EXPECT_EQ(line_column(t, loc.value_offset("/a/0")), std::make_pair(2, 9));
  EXPECT_EQ(line_column(t, loc.key_offset("/a/1/b~1c")), std::make_pair(3, 6));
  EXPECT_EQ(line_column(t, loc.value_offset("/a/1/b~1c")), std::make_pair(3, 13));
  EXPECT_EQ(line_column(t, loc.key_offset("/d/e")), std::make_pair(4, 9));
  // unknown pointers fall back to the closest ancestor's key
  EXPECT_EQ(line_column(t, loc.key_offset("/d/zz")), std::make_pair(4, 3));
  EXPECT_EQ(loc.key_offset("/nothing"), 0u);
  EXPECT_EQ(kaudit::corpus::detail::JsonLocator::child("/x", "a/b~c"), "/x/a~1b~0c");
}

// A task.json written inline, for error kinds not worth a fixture directory each.
TEST(CorpusLoader, SingleTaskErrors) {
  fs::path dir = fs::temp_directory_path() / ("kaudit_corpus_test_" + std::to_string(::getpid()));
  fs::create_directories(dir / "t");
  std::ofstream(dir / "t/problem.py") << "# empty\n";
  auto try_json = [&](const std::string& text) {
    std::ofstream(dir / "t/task.json", std::ios::trunc) << text;
    std::vector<Diagnostic> diags;
    auto t = load_task(dir / "t", diags);
    EXPECT_EQ(t.has_value(), diags.empty());
    return diags;
  };
  const std::string tail =
      "  \"presets\": {\"small\": {\"N\": 10}},\n"
      "  \"odd_shapes\": [{\"N\": 7}, {\"N\": 33}]\n}\n";
  // valid baseline
  EXPECT_TRUE(try_json("{\n  \"inputs\": [{\"name\": \"x\", \"dtype\": \"float32\", \"shape\": "
                       "[\"N\"]}],\n  \"dims\": {\"N\": {\"min\": 1}},\n" +
                       tail)
                  .empty());
  // a task category: one of the known ones, or an error naming the field and the choices
  auto d_category = try_json("{\n  \"category\": \"elementwsie\",\n  \"inputs\": [{\"name\": \"x\", \"dtype\": "
                             "\"float32\", \"shape\": [\"N\"]}],\n  \"dims\": {\"N\": {\"min\": 1}},\n" +
                             tail);
  ASSERT_EQ(d_category.size(), 1u);
  EXPECT_EQ(d_category[0].line, 2);
  EXPECT_NE(d_category[0].message.find("unknown task category 'elementwsie'"), std::string::npos) << d_category[0].message;
  EXPECT_NE(d_category[0].fix.find("elementwise, reduction"), std::string::npos) << d_category[0].fix;
  EXPECT_TRUE(try_json("{\n  \"category\": \"scan\",\n  \"inputs\": [{\"name\": \"x\", \"dtype\": "
                       "\"float32\", \"shape\": [\"N\"]}],\n  \"dims\": {\"N\": {\"min\": 1}},\n" +
                       tail)
                  .empty());
  // name differs from the directory
  auto d1 = try_json(
      "{\n  \"name\": \"other\",\n  \"inputs\": [{\"name\": \"x\", \"dtype\": "
      "\"float32\", \"shape\": [\"N\"]}],\n  \"dims\": {\"N\": {\"min\": 1}},\n" +
      tail);
  ASSERT_EQ(d1.size(), 1u);
  EXPECT_EQ(d1[0].line, 2);
  // unknown domain + unknown index dim
  auto d2 = try_json(
      "{\n  \"inputs\": [{\"name\": \"x\", \"dtype\": \"float32\", \"shape\": "
      "[\"N\"], \"domain\": \"positve\"},\n   {\"name\": \"i\", \"dtype\": "
      "\"int64\", \"shape\": [\"N\"], \"domain\": \"index:K\"}],\n  \"dims\": "
      "{\"N\": {\"min\": 1}},\n" +
      tail);
  ASSERT_EQ(d2.size(), 2u);
  EXPECT_NE(d2[0].message.find("unknown domain 'positve'"), std::string::npos);
  EXPECT_EQ(d2[0].line, 2);
  EXPECT_NE(d2[1].message.find("unknown dim 'K'"), std::string::npos);
  EXPECT_EQ(d2[1].line, 3);
  // a symmetric matrix that is not square, a triangular "matrix" of one dimension
  auto d_structured = try_json(
      "{\n  \"inputs\": [{\"name\": \"x\", \"dtype\": \"float32\", \"shape\": "
      "[\"N\", 3], \"domain\": \"symmetric\"},\n   {\"name\": \"t\", \"dtype\": "
      "\"float32\", \"shape\": [\"N\"], \"domain\": \"lower-triangular\"}],\n  \"dims\": "
      "{\"N\": {\"min\": 1}},\n" +
      tail);
  ASSERT_EQ(d_structured.size(), 2u);
  EXPECT_NE(d_structured[0].message.find("a symmetric input needs a square trailing matrix"), std::string::npos);
  EXPECT_NE(d_structured[0].fix.find("[\"N\", \"N\"]"), std::string::npos);
  EXPECT_EQ(d_structured[0].line, 2);
  EXPECT_NE(d_structured[1].message.find("a lower-triangular input needs at least two dimensions"), std::string::npos);
  EXPECT_EQ(d_structured[1].line, 3);
  // a bool input without the mask domain, a mask of another dtype
  auto d_mask = try_json(
      "{\n  \"inputs\": [{\"name\": \"m\", \"dtype\": \"bool\", \"shape\": [\"N\"]},\n"
      "   {\"name\": \"f\", \"dtype\": \"float32\", \"shape\": [\"N\"], \"domain\": \"mask\"}],\n"
      "  \"dims\": {\"N\": {\"min\": 1}},\n" +
      tail);
  ASSERT_EQ(d_mask.size(), 2u);
  EXPECT_NE(d_mask[0].message.find("a bool input needs domain \"mask\""), std::string::npos);
  EXPECT_EQ(d_mask[0].line, 2);
  EXPECT_NE(d_mask[1].message.find("domain mask needs dtype bool"), std::string::npos);
  EXPECT_EQ(d_mask[1].line, 3);
  // duplicate input, unknown init dim, only one odd shape, max below min
  auto d3 = try_json(
      "{\n  \"inputs\": [{\"name\": \"x\", \"dtype\": \"float32\", \"shape\": [\"N\"]},\n"
      "             {\"name\": \"x\", \"dtype\": \"float32\", \"shape\": [\"N\"]}],\n"
      "  \"init_inputs\": [\"M\"],\n"
      "  \"dims\": {\"N\": {\"min\": 4, \"max\": 2}},\n"
      "  \"presets\": {\"small\": {\"N\": 10}},\n"
      "  \"odd_shapes\": [{\"N\": 7}]\n}\n");
  ASSERT_EQ(d3.size(), 4u);
  std::vector<int> lines;
  for (const auto& d : d3) lines.push_back(d.line);
  std::sort(lines.begin(), lines.end());
  EXPECT_EQ(lines, (std::vector<int>{3, 4, 5, 7}));
  // a number among the inputs: a constant at its position, kept out of the tensor inputs
  {
    std::ofstream(dir / "t/task.json", std::ios::trunc)
        << "{\n  \"inputs\": [{\"name\": \"x\", \"dtype\": \"float32\", \"shape\": [\"N\"]},\n"
           "   {\"name\": \"s\", \"value\": 2.5}, {\"name\": \"k\", \"value\": 3}],\n"
           "  \"dims\": {\"N\": {\"min\": 1}},\n" + tail;
    std::vector<Diagnostic> diags;
    auto t = load_task(dir / "t", diags);
    ASSERT_TRUE(t.has_value()) << (diags.empty() ? "" : diags[0].to_string());
    ASSERT_EQ(t->inputs.size(), 1u);
    ASSERT_EQ(t->constants.size(), 2u);
    EXPECT_EQ(t->constants[0].name, "s");
    EXPECT_EQ(t->constants[0].position, 1u);
    EXPECT_EQ(t->constants[0].value, 2.5);
    EXPECT_FALSE(t->constants[0].integer);
    EXPECT_EQ(t->constants[1].position, 2u);
    EXPECT_TRUE(t->constants[1].integer);
    ASSERT_NE(t->find_constant("k"), nullptr);
    EXPECT_EQ(t->find_input("s"), nullptr);
    EXPECT_EQ(forward_position(*t, 0), 0u);  // x comes first, then s and k
    Task mixed = *t;
    mixed.constants[0].position = 0;  // s, x, k
    EXPECT_EQ(forward_position(mixed, 0), 1u);
    mixed.inputs.push_back(mixed.inputs[0]);  // s, x, k, y
    EXPECT_EQ(forward_position(mixed, 1), 3u);
  }
  // a constant that is not a number, one with a dtype too, and a task of constants only
  auto d_const = try_json(
      "{\n  \"inputs\": [{\"name\": \"x\", \"dtype\": \"float32\", \"shape\": [\"N\"]},\n"
      "   {\"name\": \"s\", \"value\": \"3.14\"},\n   {\"name\": \"u\", \"value\": 1, \"dtype\": \"float32\"}],\n"
      "  \"dims\": {\"N\": {\"min\": 1}},\n" + tail);
  ASSERT_EQ(d_const.size(), 2u);
  EXPECT_NE(d_const[0].message.find("\"value\" must be a finite number, not a string"), std::string::npos)
      << d_const[0].message;
  EXPECT_EQ(d_const[0].line, 3);
  EXPECT_NE(d_const[1].message.find("dtype"), std::string::npos) << d_const[1].message;
  EXPECT_EQ(d_const[1].line, 4);
  auto d_only = try_json("{\n  \"inputs\": [{\"name\": \"s\", \"value\": 1.5}],\n  \"dims\": {\"N\": {\"min\": 1}},\n" + tail);
  ASSERT_EQ(d_only.size(), 1u);
  EXPECT_NE(d_only[0].message.find("only constants"), std::string::npos) << d_only[0].message;
  // not an object
  auto d4 = try_json("[1, 2]");
  ASSERT_EQ(d4.size(), 1u);
  EXPECT_NE(d4[0].message.find("must hold an object"), std::string::npos);
  // empty file
  auto d5 = try_json("");
  ASSERT_EQ(d5.size(), 1u);
  EXPECT_NE(d5[0].message.find("invalid JSON"), std::string::npos);
  EXPECT_EQ(d5[0].line, 1);
  // a number no double holds: a diagnostic at the number, not an uncaught out_of_range
  auto d6 = try_json("{\n  \"inputs\": [{\"name\": \"x\", \"dtype\": \"float32\", \"shape\": "
                     "[\"N\"]}],\n  \"dims\": {\"N\": {\"min\": 1}},\n"
                     "  \"presets\": {\"small\": {\"N\": 1e400}},\n"
                     "  \"odd_shapes\": [{\"N\": 7}, {\"N\": 33}]\n}\n");
  ASSERT_EQ(d6.size(), 1u);
  EXPECT_NE(d6[0].message.find("1e400 does not fit in a double"), std::string::npos) << d6[0].message;
  EXPECT_EQ(d6[0].line, 4);
  EXPECT_EQ(d6[0].column, 30);
  fs::remove_all(dir);
}

// A kernel the gate rejected at import ("unverified") loads, but apart from the corpus unless asked.
TEST(Unverified, KeptOutOfTheCorpusUnlessAsked) {
  const fs::path dir = fs::temp_directory_path() / ("kaudit-unverified-" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::copy(kFixtures / "corpus_good", dir, fs::copy_options::recursive);
  fs::copy_file(dir / "kernels/relu/relu_simple.cu", dir / "kernels/relu/relu_tail.cu");
  {
    std::ofstream j(dir / "kernels/relu/relu_tail.json");
    j << R"({"entry": "relu_forward", "args": ["x"], "unverified": "recipe 'gate-odd-0': 3 elements out of tolerance"})";
  }

  const LoadResult plain = load_corpus(dir);
  EXPECT_TRUE(plain.ok()) << dump(plain);
  EXPECT_EQ(plain.corpus.find_kernel("relu/relu_tail"), nullptr);
  ASSERT_EQ(plain.unverified.size(), 1u);
  EXPECT_EQ(plain.unverified[0].unverified, "recipe 'gate-odd-0': 3 elements out of tolerance");

  const LoadResult all = load_corpus(dir, {.include_unverified = true});
  EXPECT_TRUE(all.ok()) << dump(all);
  ASSERT_NE(all.corpus.find_kernel("relu/relu_tail"), nullptr);
  EXPECT_TRUE(all.unverified.empty());

  // The field is a string; anything else is an error naming it.
  {
    std::ofstream j(dir / "kernels/relu/relu_tail.json");
    j << R"({"entry": "relu_forward", "args": ["x"], "unverified": true})";
  }
  const LoadResult bad = load_corpus(dir);
  ASSERT_EQ(diags_for(bad, "relu_tail.json").size(), 1u) << dump(bad);
  EXPECT_NE(diags_for(bad, "relu_tail.json")[0].message.find("unverified"), std::string::npos) << dump(bad);
  fs::remove_all(dir);
}

// Issue 21: a long entry name or a long run of white space before its '(' used to overflow the
// stack in std::regex; now the binding loads (or fails with a diagnostic) at any length.
TEST(CorpusLoader, LongEntryNamesAndWhiteSpaceDoNotCrash) {
  fs::path dir = fs::temp_directory_path() / ("kaudit_corpus_long_" + std::to_string(::getpid()));
  fs::create_directories(dir / "t");
  std::ofstream(dir / "t/problem.py") << "# empty\n";
  std::ofstream(dir / "t/task.json") << "{\n  \"inputs\": [{\"name\": \"x\", \"dtype\": \"float32\", \"shape\": [\"N\"]}],\n"
                                        "  \"dims\": {\"N\": {\"min\": 1}},\n  \"presets\": {\"small\": {\"N\": 10}},\n"
                                        "  \"odd_shapes\": [{\"N\": 7}, {\"N\": 33}]\n}\n";
  std::vector<Diagnostic> diags;
  const auto task = load_task(dir / "t", diags);
  ASSERT_TRUE(task.has_value());
  const std::string name(300000, 'f');
  auto load = [&](const std::string& source) {
    std::ofstream(dir / "k.cu", std::ios::trunc) << source;
    std::ofstream(dir / "k.json", std::ios::trunc) << "{\"entry\": \"" << name << "\", \"args\": [\"x\"]}";
    diags.clear();
    return load_kernel(dir / "k.json", *task, diags);
  };
  EXPECT_TRUE(load("torch::Tensor " + name + std::string(300000, ' ') + "(torch::Tensor x) { return x; }").has_value())
      << (diags.empty() ? "" : diags[0].message.substr(0, 200));
  EXPECT_FALSE(load("torch::Tensor g" + name + "(torch::Tensor x) { return x; }").has_value());  // not a whole word
  ASSERT_EQ(diags.size(), 1u);
  EXPECT_NE(diags[0].message.find("not found"), std::string::npos);
  fs::remove_all(dir);
}

// Issue 21: a kernel's file name (diagnostics, mutants.jsonl, build cache keys) does not depend on
// how the corpus path was spelled.
TEST(CorpusLoader, KernelFileNamesDoNotDependOnThePathSpelling) {
  const fs::path good = fs::path(KAUDIT_FIXTURES_DIR) / "corpus_good";
  const fs::path cwd = fs::current_path();
  std::vector<std::vector<std::string>> names;
  for (const fs::path& spelling : {good, good / "", good / "tasks" / "..", fs::path(".")}) {
    if (spelling == ".") fs::current_path(good);
    const auto loaded = load_corpus(spelling);
    fs::current_path(cwd);
    std::vector<std::string> files;
    for (const auto& k : loaded.corpus.kernels) files.push_back(k.file);
    names.push_back(files);
  }
  ASSERT_FALSE(names[0].empty());
  EXPECT_EQ(names[0][0].rfind("corpus_good/kernels/", 0), 0u) << names[0][0];
  for (const auto& n : names) EXPECT_EQ(n, names[0]);
}
