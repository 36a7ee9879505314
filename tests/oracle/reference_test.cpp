// References end to end: export through /usr/bin/python3 (tools/export_reference.py) into a
// temporary cache, load with libtorch, check float64 outputs against a C++ computation, cache
// hits, key sensitivity, output normalisation, the trace fallback and error reporting.
// Labelled "python": needs /usr/bin/python3 with torch (Debian python3-torch).
#include <gtest/gtest.h>

#include <ATen/ATen.h>

#include <chrono>
#include <fstream>
#include <iterator>
#include <thread>

#include <unistd.h>

#include "corpus/corpus.h"
#include "oracle/recipes.h"
#include "oracle/reference.h"
#include "common/files.h"

namespace fs = std::filesystem;
using namespace kaudit;
using oracle::Reference;
using oracle::ReferenceError;
using oracle::ReferenceStore;

namespace {

const fs::path kFixtures = KAUDIT_FIXTURES_DIR;
const fs::path kScript = KAUDIT_EXPORT_SCRIPT;

corpus::Task load_task_at(const fs::path& dir) {
  std::vector<corpus::Diagnostic> diags;
  auto t = corpus::load_task(dir, diags);
  if (!t) {
    std::string msg;
    for (const auto& d : diags) msg += d.to_string() + "\n";
    throw std::runtime_error("fixture does not load:\n" + msg);
  }
  return *t;
}

// A fresh cache directory per test, removed afterwards.
class ReferenceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    cache_ = fs::temp_directory_path() /
             ("kaudit_ref_" + std::to_string(::getpid()) + "_" + info->name());
    fs::remove_all(cache_);
    fs::create_directories(cache_);
  }
  void TearDown() override { fs::remove_all(cache_); }
  fs::path cache_;
};

}  // namespace

// The CUDA backend's references run on device 0 (oracle/reference.h); where the device cannot run
// the Model (here: a libtorch without CUDA, as on CI) the forward runs on the host instead, with
// the host's result to the bit, counted; the store's references say where they were placed.
TEST_F(ReferenceTest, AReferenceTheDeviceCannotRunRunsOnTheHost) {
  if (at::hasCUDA()) GTEST_SKIP() << "this libtorch has CUDA: the device would run it (gpu_tests cover that)";
  corpus::Task t = load_task_at(kFixtures / "corpus_good/tasks/linear_relu");
  ReferenceStore store(cache_, kScript);
  EXPECT_TRUE(store.placement().on_host());
  corpus::Assignment dims = corpus::resolve(t, "small");
  const Reference host = store.load(t, dims);
  const at::Device gpu(at::kCUDA, 0);
  store.set_placement({gpu, gpu});
  const Reference device = store.load(t, dims);
  EXPECT_TRUE(host.device(at::kFloat).is_cpu());
  EXPECT_TRUE(device.device(at::kFloat).is_cuda());
  EXPECT_TRUE(device.device(at::kDouble).is_cuda());
  oracle::Recipe r;
  r.seed = 5;
  const auto inputs = oracle::make_inputs(t, r, dims);
  for (at::ScalarType precision : {at::kDouble, at::kFloat}) {
    const auto expected = host.forward(inputs, precision);
    const auto got = device.forward(inputs, precision);  // no CUDA in this libtorch: the host's
    ASSERT_EQ(got.size(), 1u);
    EXPECT_TRUE(got[0].device().is_cpu());
    EXPECT_TRUE(at::equal(got[0], expected[0]));
  }
  EXPECT_EQ(store.host_fallbacks(), 2);
}

// KAUDIT_DEVICE_REFERENCES picks the CUDA backend's placement; the CPU backend's is the host.
TEST(ReferencePlacementTest, TheVariableChoosesWhatRunsOnTheDevice) {
  const char* before = std::getenv("KAUDIT_DEVICE_REFERENCES");
  const std::string saved = before ? before : "";
  EXPECT_TRUE(oracle::reference_placement(false).on_host());
  unsetenv("KAUDIT_DEVICE_REFERENCES");
  EXPECT_EQ(oracle::reference_placement(true).describe(), "float32 on cuda:0, float64 on the host");
  setenv("KAUDIT_DEVICE_REFERENCES", "all", 1);
  EXPECT_EQ(oracle::reference_placement(true).describe(), "cuda:0");
  setenv("KAUDIT_DEVICE_REFERENCES", "0", 1);
  EXPECT_EQ(oracle::reference_placement(true).describe(), "the host");
  setenv("KAUDIT_DEVICE_REFERENCES", "gpu", 1);
  EXPECT_THROW(oracle::reference_placement(true), std::invalid_argument);
  if (before) setenv("KAUDIT_DEVICE_REFERENCES", saved.c_str(), 1);
  else unsetenv("KAUDIT_DEVICE_REFERENCES");
}

TEST_F(ReferenceTest, LinearReluRoundTripMatchesCpp) {
  corpus::Task t = load_task_at(kFixtures / "corpus_good/tasks/linear_relu");
  ReferenceStore store(cache_, kScript);
  corpus::Assignment dims = corpus::resolve(t, "small");  // B 5, D_in 16, D_out 12
  Reference ref = store.load(t, dims);
  ASSERT_TRUE(ref);
  EXPECT_FALSE(ref.was_cached());
  EXPECT_EQ(store.exports_run(), 1);
  EXPECT_TRUE(fs::is_regular_file(ref.path()));
  EXPECT_EQ(ref.path(), cache_ / "references" / (ref.key() + ".pt"));
  EXPECT_TRUE(fs::is_regular_file(cache_ / "references" / (ref.key() + ".json")));
  EXPECT_EQ(ref.parameter_names(), (std::vector<std::string>{"linear.weight", "linear.bias"}));

  at::Tensor w = ref.parameter("linear.weight");
  at::Tensor b = ref.parameter("linear.bias");
  EXPECT_EQ(w.scalar_type(), at::kFloat);
  EXPECT_EQ(w.sizes(), (std::vector<int64_t>{12, 16}));
  EXPECT_EQ(b.sizes(), (std::vector<int64_t>{12}));
  EXPECT_THROW(ref.parameter("linear.nope"), ReferenceError);
  EXPECT_TRUE(ref.has_parameter("linear.bias"));
  // Parameters are deterministic: torch.manual_seed(0) before construction. nn.Linear's init
  // draws from U(-1/sqrt(16), 1/sqrt(16)).
  EXPECT_LE(w.abs().max().item<float>(), 0.25f);
  EXPECT_GT(w.abs().max().item<float>(), 0.1f);

  oracle::Recipe r;
  r.distribution = oracle::Distribution::Normal;
  r.seed = 11;
  auto inputs = oracle::make_inputs(t, r, dims);
  auto y64 = ref.forward(inputs, at::kDouble);
  ASSERT_EQ(y64.size(), 1u);
  EXPECT_EQ(y64[0].scalar_type(), at::kDouble);
  ASSERT_EQ(y64[0].sizes(), (std::vector<int64_t>{5, 12}));

  // The same computation in plain C++ double loops.
  auto x = inputs[0].to(at::kDouble);
  auto wd = w.to(at::kDouble), bd = b.to(at::kDouble);
  double max_diff = 0;
  int negatives_clamped = 0;
  for (int64_t i = 0; i < 5; ++i) {
    for (int64_t o = 0; o < 12; ++o) {
      double acc = bd[o].item<double>();
      for (int64_t k = 0; k < 16; ++k) acc += x[i][k].item<double>() * wd[o][k].item<double>();
      negatives_clamped += acc < 0;
      acc = acc > 0 ? acc : 0;
      max_diff = std::max(max_diff, std::fabs(acc - y64[0][i][o].item<double>()));
    }
  }
  EXPECT_LT(max_diff, 1e-12);
  EXPECT_GT(negatives_clamped, 0);  // the relu did something

  // float32 precision: close to the float64 result, but computed in float32
  auto y32 = ref.forward(inputs, at::kFloat);
  ASSERT_EQ(y32.size(), 1u);
  EXPECT_EQ(y32[0].scalar_type(), at::kFloat);
  EXPECT_LT((y32[0].to(at::kDouble) - y64[0]).abs().max().item<double>(), 1e-5);

  // a parameter handed out is a copy: writing to it does not change the reference
  w.fill_(0);
  EXPECT_TRUE(at::equal(ref.forward(inputs, at::kDouble)[0], y64[0]));
}

TEST_F(ReferenceTest, SecondLoadIsACacheHit) {
  corpus::Task t = load_task_at(kFixtures / "corpus_good/tasks/linear_relu");
  std::vector<double> init = {16, 12};
  fs::path pt;
  fs::file_time_type mtime;
  {
    ReferenceStore store(cache_, kScript);
    Reference a = store.load(t, init);
    pt = a.path();
    mtime = fs::last_write_time(pt);
    Reference again = store.load(t, init);  // in-memory hit
    EXPECT_TRUE(again.was_cached());
    EXPECT_EQ(store.exports_run(), 1);
  }
  // A new store (as a new process would have) finds the .pt on disk and does not export.
  ReferenceStore store2(cache_, kScript);
  Reference b = store2.load(t, init);
  EXPECT_TRUE(b.was_cached());
  EXPECT_EQ(store2.exports_run(), 0);
  EXPECT_EQ(b.path(), pt);
  EXPECT_EQ(fs::last_write_time(pt), mtime);
  // other init values -> another key -> another export
  Reference c = store2.load(t, std::vector<double>{16, 14});
  EXPECT_NE(c.key(), b.key());
  EXPECT_EQ(store2.exports_run(), 1);
  EXPECT_EQ(c.parameter("linear.weight").sizes(), (std::vector<int64_t>{14, 16}));
  // no temporary files are left behind
  for (const auto& e : fs::directory_iterator(cache_ / "references"))
    EXPECT_EQ(e.path().string().find(".tmp."), std::string::npos) << e.path();
}

TEST_F(ReferenceTest, ReplacedOrTruncatedReferenceIsExportedAgain) {
  // Issue 21, item 4: a cache hit was only a file-exists test, so another reference copied over
  // a .pt was used as this one. Now the .pt must match the digest recorded at export.
  corpus::Task t = load_task_at(kFixtures / "corpus_good/tasks/linear_relu");
  fs::path pt12, pt14;
  {
    ReferenceStore store(cache_, kScript);
    pt12 = store.load(t, std::vector<double>{16, 12}).path();
    pt14 = store.load(t, std::vector<double>{16, 14}).path();
  }
  ASSERT_TRUE(fs::is_regular_file(fs::path(pt12.string() + ".sha256")));
  fs::copy_file(pt14, pt12, fs::copy_options::overwrite_existing);  // a valid reference, the wrong one
  {
    ReferenceStore store(cache_, kScript);
    testing::internal::CaptureStderr();
    Reference r = store.load(t, std::vector<double>{16, 12});
    const std::string err = testing::internal::GetCapturedStderr();
    EXPECT_FALSE(r.was_cached());
    EXPECT_EQ(store.exports_run(), 1);
    EXPECT_EQ(r.parameter("linear.weight").sizes(), (std::vector<int64_t>{12, 16}));
    EXPECT_NE(err.find(pt12.string()), std::string::npos) << err;  // reported, naming the file
  }
  fs::resize_file(pt12, fs::file_size(pt12) / 2);  // truncated
  ReferenceStore store(cache_, kScript);
  Reference r = store.load(t, std::vector<double>{16, 12});
  EXPECT_FALSE(r.was_cached());
  EXPECT_EQ(store.exports_run(), 1);
  EXPECT_EQ(r.parameter("linear.weight").sizes(), (std::vector<int64_t>{12, 16}));
}

TEST_F(ReferenceTest, KeyDependsOnProblemBytesAndInitValues) {
  fs::path dir = cache_ / "task_copy" / "linear_relu";
  fs::create_directories(dir);
  fs::copy(kFixtures / "corpus_good/tasks/linear_relu", dir, fs::copy_options::recursive);
  corpus::Task t = load_task_at(dir);
  ReferenceStore store(cache_, kScript);
  std::string k1 = store.cache_key(t, {16, 12});
  EXPECT_EQ(k1.size(), 64u);
  EXPECT_EQ(k1, store.cache_key(t, {16, 12}));
  EXPECT_NE(k1, store.cache_key(t, {16, 10}));
  std::ofstream(dir / "problem.py", std::ios::app) << "\n# changed\n";
  EXPECT_NE(k1, store.cache_key(t, {16, 12}));
  EXPECT_NE(store.torch_version().find("py:"), std::string::npos);
  EXPECT_NE(store.torch_version().find(";lib:"), std::string::npos);
  // init values must fit the task
  EXPECT_THROW(store.cache_key(t, {16}), std::invalid_argument);
  EXPECT_THROW(store.cache_key(t, {16.5, 12}), std::invalid_argument);  // D_in is an int
  EXPECT_EQ(store.exports_run(), 0);
}

TEST_F(ReferenceTest, OutputsAreNormalisedAndIntegerBuffersKept) {
  corpus::Task t = load_task_at(kFixtures / "oracle/multi_out");
  ReferenceStore store(cache_, kScript);
  Reference ref = store.load(t, std::vector<double>{0.5});
  EXPECT_EQ(ref.parameter_names(), (std::vector<std::string>{"offset", "count"}));
  EXPECT_EQ(ref.parameter("count").scalar_type(), at::kLong);
  at::Tensor x = at::arange(12, at::kFloat).reshape({3, 4});
  for (auto prec : {at::kDouble, at::kFloat}) {
    auto out = ref.forward({x}, prec);
    ASSERT_EQ(out.size(), 3u);  // (y, y.sum(), float(count))
    EXPECT_EQ(out[0].scalar_type(), prec);
    EXPECT_EQ(out[0].sizes(), (std::vector<int64_t>{3, 4}));
    EXPECT_EQ(out[1].dim(), 0);
    EXPECT_EQ(out[2].dim(), 0);  // a Python float becomes a 0-dim tensor
    EXPECT_EQ(out[2].scalar_type(), prec);
    EXPECT_EQ(out[2].item<double>(), 7.0);  // the int64 buffer survived the float64 conversion
    auto expect = x.to(at::kDouble) * 0.5 + at::arange(4, at::kDouble);
    EXPECT_TRUE(at::allclose(out[0].to(at::kDouble), expect));
    EXPECT_DOUBLE_EQ(out[1].item<double>(), expect.sum().item<double>());
  }
}

// Numbers among forward's arguments (task.json {"name", "value"}): passed at their positions, each
// as the scripted forward types its parameter (an int literal to a `float` parameter as a float,
// to an unannotated one as a 0-dim tensor), in both precisions; the key has them.
TEST_F(ReferenceTest, ConstantArgumentsArePassedWhereForwardTakesThem) {
  corpus::Task t = load_task_at(kFixtures / "oracle/scaled_by_constant");
  ASSERT_EQ(t.inputs.size(), 1u);
  ASSERT_EQ(t.constants.size(), 4u);
  ReferenceStore store(cache_, kScript);
  Reference ref = store.load(t, std::vector<double>{});
  const at::Tensor x = at::tensor({1.0, -2.0, 3.5, 0.25, 8.0, -1.0}, at::kFloat);
  for (auto prec : {at::kDouble, at::kFloat}) {
    const auto out = ref.forward({x}, prec);
    ASSERT_EQ(out.size(), 1u);
    EXPECT_EQ(out[0].scalar_type(), prec);
    EXPECT_TRUE(at::equal(out[0], (x.to(at::kDouble) * 0.5 + 3 + 3).to(prec))) << out[0];
  }
  const std::string key = ref.key();
  t.constants[0].value = 0.25;
  EXPECT_NE(store.cache_key(t, std::vector<double>{}), key);
}

TEST_F(ReferenceTest, TraceFallbackForUnscriptableModels) {
  corpus::Task t = load_task_at(kFixtures / "oracle/varargs");
  ReferenceStore store(cache_, kScript);
  Reference ref = store.load(t, std::vector<double>{});
  std::ifstream meta(cache_ / "references" / (ref.key() + ".json"));
  auto j = nlohmann::json::parse(meta);
  EXPECT_EQ(j.at("export").at("method"), "trace");
  auto x = at::tensor({1.0, 2.0, 3.0, 4.0, 5.0}, at::kFloat);
  auto y = at::ones({5}, at::kFloat);
  auto out = ref.forward({x, y}, at::kDouble);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_TRUE(at::equal(out[0], (x * 2 + y).to(at::kDouble)));
}

TEST_F(ReferenceTest, ExportErrorNamesProblemLine) {
  corpus::Task t = load_task_at(kFixtures / "oracle/broken");
  ReferenceStore store(cache_, kScript);
  try {
    store.load(t, corpus::resolve(t, "small"));
    FAIL() << "no exception";
  } catch (const ReferenceError& e) {
    EXPECT_EQ(e.file(), t.problem_py);
    // the export script's stderr, with the line of the raise in problem.py
    EXPECT_NE(e.stderr_text().find("problem.py:9:"), std::string::npos) << e.stderr_text();
    EXPECT_NE(e.stderr_text().find("broken on purpose"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("problem.py:9: Model(*[5]) failed: ValueError"),
              std::string::npos)
        << e.what();
  }
  // nothing half-written in the cache
  for (const auto& e : fs::directory_iterator(cache_ / "references"))
    ADD_FAILURE() << "left behind: " << e.path();
}

TEST_F(ReferenceTest, MissingPythonOrScript) {
  corpus::Task t = load_task_at(kFixtures / "corpus_good/tasks/relu");
  {
    ReferenceStore store(cache_, kScript, "/nonexistent/python3");
    try {
      store.load(t, std::vector<double>{});
      FAIL() << "no exception";
    } catch (const ReferenceError& e) {
      EXPECT_EQ(e.file(), "/nonexistent/python3");
      EXPECT_NE(std::string(e.what()).find("python3-torch"), std::string::npos) << e.what();
    }
  }
  {
    ReferenceStore store(cache_, cache_ / "no_such_script.py");
    try {
      store.load(t, std::vector<double>{});
      FAIL() << "no exception";
    } catch (const ReferenceError& e) {
      EXPECT_EQ(e.file(), cache_ / "no_such_script.py");
    }
  }
  {
    // A Python without torch: /usr/bin/python3 -S does not add dist-packages to sys.path.
    fs::path wrapper = cache_ / "python_without_torch";
    std::ofstream(wrapper) << "#!/bin/sh\nexec /usr/bin/python3 -S \"$@\"\n";
    fs::permissions(wrapper, fs::perms::owner_all);
    ReferenceStore store(cache_, kScript, wrapper.string());
    try {
      store.load(t, std::vector<double>{});
      FAIL() << "no exception";
    } catch (const ReferenceError& e) {
      EXPECT_EQ(e.file(), wrapper);
      EXPECT_NE(std::string(e.what()).find("torch is not installed"), std::string::npos)
          << e.what();
    }
    EXPECT_EQ(store.exports_run(), 0);
  }
}

TEST_F(ReferenceTest, HangingProblemIsStoppedByTheTimeout) {
  fs::path dir = cache_ / "tasks" / "hangs";
  fs::create_directories(dir);
  fs::copy_file(kFixtures / "corpus_good/tasks/relu/task.json", dir / "task.json");
  std::ofstream(dir / "problem.py") << "import time\ntime.sleep(120)\n";
  std::string json_text = kaudit::read_file(dir / "task.json").value_or(std::string());
  json_text.replace(json_text.find("\"relu\""), 6, "\"hangs\"");
  std::ofstream(dir / "task.json", std::ios::trunc) << json_text;
  corpus::Task t = load_task_at(dir);
  ReferenceStore store(cache_, kScript);
  store.set_export_timeout(2);
  auto start = std::chrono::steady_clock::now();
  try {
    store.load(t, std::vector<double>{});
    FAIL() << "no exception";
  } catch (const ReferenceError& e) {
    EXPECT_EQ(e.file(), t.problem_py);
    EXPECT_NE(std::string(e.what()).find("took longer than 2 s"), std::string::npos) << e.what();
  }
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(30));
}

TEST_F(ReferenceTest, ConcurrentStoresShareOneCacheSafely) {
  // Two stores (as two processes would be) export the same key at the same time: both renames
  // land, both references load, and the cache holds exactly one complete .pt.
  corpus::Task t = load_task_at(kFixtures / "corpus_good/tasks/linear_relu");
  std::vector<double> init = {16, 12};
  ReferenceStore s1(cache_, kScript), s2(cache_, kScript);
  s1.torch_version();
  s2.torch_version();
  Reference r1, r2;
  std::exception_ptr e1, e2;
  std::thread a([&] {
    try {
      r1 = s1.load(t, init);
    } catch (...) {
      e1 = std::current_exception();
    }
  });
  std::thread b([&] {
    try {
      r2 = s2.load(t, init);
    } catch (...) {
      e2 = std::current_exception();
    }
  });
  a.join();
  b.join();
  ASSERT_FALSE(e1);
  ASSERT_FALSE(e2);
  EXPECT_EQ(r1.key(), r2.key());
  auto x = at::ones({5, 16}, at::kFloat);
  EXPECT_TRUE(at::equal(r1.forward({x}, at::kDouble)[0], r2.forward({x}, at::kDouble)[0]));
  int pts = 0;
  for (const auto& e : fs::directory_iterator(cache_ / "references")) {
    EXPECT_EQ(e.path().string().find(".tmp."), std::string::npos) << e.path();
    pts += e.path().extension() == ".pt";
  }
  EXPECT_EQ(pts, 1);

  // Within one store, concurrent loads of one key export once.
  fs::remove_all(cache_ / "references");
  ReferenceStore s3(cache_, kScript);
  std::vector<std::thread> ts;
  for (int i = 0; i < 4; ++i) ts.emplace_back([&] { s3.load(t, init); });
  for (auto& th : ts) th.join();
  EXPECT_EQ(s3.exports_run(), 1);
}
