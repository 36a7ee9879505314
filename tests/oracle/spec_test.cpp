// Oracle specs: the built-in ones load, bad ones are rejected naming file, line and field, and the
// three comparators mean what docs/ORACLES.md says.
#include <algorithm>

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include "oracle/spec.h"

using namespace kaudit::oracle;

namespace {

TEST(OracleSpecs, BuiltInSpecsLoadWithTheirDefinitions) {
  auto specs = load_specs(KAUDIT_SUITES_DIR);
  std::map<std::string, OracleSpec> by_name;
  for (auto& s : specs) by_name[s.name] = s;
  for (const char* n : {"kernelbench-v0", "kernelbench-v0.1", "kernelbench", "kernelbench-verified", "gym-v9", "ci-fuzz"})
    ASSERT_TRUE(by_name.count(n)) << n;
  const auto& v01 = by_name["kernelbench-v0.1"];
  EXPECT_EQ(v01.comparator.kind, ComparatorKind::Allclose);
  EXPECT_DOUBLE_EQ(v01.comparator.rtol, 1e-2);
  EXPECT_EQ(v01.trials.size(), 5u);
  EXPECT_EQ(v01.trials[0].distribution, Distribution::Uniform01);
  EXPECT_DOUBLE_EQ(by_name["kernelbench"].comparator.atol, 1e-4);
  EXPECT_EQ(by_name["kernelbench-v0"].trials[0].distribution, Distribution::Normal);
  const auto& kv = by_name["kernelbench-verified"];
  ASSERT_EQ(kv.trials.size(), 4u);
  EXPECT_DOUBLE_EQ(kv.trials[1].scale, 3);
  EXPECT_DOUBLE_EQ(kv.trials[2].scale, 0.01);
  EXPECT_TRUE(kv.trials[3].negate);
  EXPECT_EQ(kv.trials[0].seed, kv.trials[3].seed);  // transforms of the same inputs
  const auto& gym = by_name["gym-v9"];
  EXPECT_EQ(gym.trials.size(), 5u);
  EXPECT_TRUE(gym.trials[4].abs);
  EXPECT_EQ(gym.comparator.kind, ComparatorKind::MagnitudeScaled);
  const auto& fuzz = by_name["ci-fuzz"];
  EXPECT_EQ(fuzz.reference, ReferencePrecision::Fp64);
  EXPECT_EQ(fuzz.comparator.kind, ComparatorKind::Absolute);
  EXPECT_EQ(fuzz.trials[0].distribution, Distribution::LogUniform);
  EXPECT_EQ(fuzz.trials[1].preset, "odd:0");
  for (const auto& s : specs) EXPECT_EQ(s.shape_preset, "small") << s.name;
}

void expect_error(const std::string& text, int line, const std::string& field, const std::string& words) {
  try {
    parse_spec(text, "bad.json");
    FAIL() << "accepted: " << text;
  } catch (const SpecError& e) {
    EXPECT_EQ(e.file(), "bad.json");
    EXPECT_EQ(e.line(), line) << e.what();
    EXPECT_EQ(e.field(), field) << e.what();
    EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
  }
}

const char* kHead = "{\n  \"name\": \"x\",\n  \"description\": \"d\",\n";

TEST(OracleSpecs, UnknownFieldNamesItsLine) {
  expect_error(std::string(kHead) + "  \"tolerence\": 1,\n  \"comparator\": {\"kind\": \"allclose\", \"rtol\": 0.1},\n"
               "  \"trials\": [{}]\n}", 4, "tolerence", "unknown field");
}

// The contract the gates enforce, broken by a right run, judged against the original's counts.
TEST(OracleSpecs, AContractBreachIsWhatTheOriginalDoesNotDo) {
  using kaudit::oracle::contract_breach;
  EXPECT_STREQ(contract_breach(1, 1, 1, 0), "library-compute");  // the library fallback
  EXPECT_STREQ(contract_breach(0, 0, 2, 0), "no-launch");        // right without a launch
  EXPECT_STREQ(contract_breach(0, 1, 1, 0), "library-compute");  // both: the library call is named
  EXPECT_EQ(contract_breach(1, 2, 1, 1), nullptr);  // a hybrid original calls the library itself
  EXPECT_EQ(contract_breach(0, 1, 0, 1), nullptr);  // an original that launches nothing either
  EXPECT_EQ(contract_breach(1, 0, 1, 0), nullptr);  // the contract kept
  EXPECT_EQ(contract_breach(-1, -1, 1, 0), nullptr);  // not counted (the CUDA backend)
  EXPECT_EQ(contract_breach(1, 1, -1, -1), nullptr);
  EXPECT_TRUE(kaudit::oracle::is_contract_breach("no-launch"));
  EXPECT_FALSE(kaudit::oracle::is_contract_breach("wrong-output"));
}

TEST(OracleSpecs, GatesParseAndBadOnesNameTheField) {
  const std::string body = "  \"comparator\": {\"kind\": \"allclose\", \"rtol\": 0.1},\n  \"trials\": [{}],\n";
  const auto s = parse_spec(std::string(kHead) + body + "  \"gates\": {\"kernel_launched\": true}\n}", "g.json");
  EXPECT_TRUE(s.gates.kernel_launched);
  EXPECT_STREQ(kaudit::oracle::gate_failure(s.gates, 0, 0), "no-launch");
  EXPECT_EQ(kaudit::oracle::gate_failure(s.gates, 1, 0), nullptr);
  EXPECT_EQ(kaudit::oracle::gate_failure(s.gates, 1, 3), nullptr);   // library calls: not this gate's business
  EXPECT_EQ(kaudit::oracle::gate_failure(s.gates, -1, -1), nullptr);  // not recorded
  EXPECT_EQ(kaudit::oracle::gate_failure({}, 0, 1), nullptr);         // no gate
  EXPECT_EQ(kaudit::oracle::spec_to_json(s).at("gates"), (nlohmann::json{{"kernel_launched", true}}));  // the old cache key
  const auto lib = parse_spec(std::string(kHead) + body + "  \"gates\": {\"no_library_compute\": true}\n}", "g.json");
  EXPECT_TRUE(lib.gates.any());
  EXPECT_STREQ(kaudit::oracle::gate_failure(lib.gates, 1, 1), "library-compute");
  EXPECT_EQ(kaudit::oracle::gate_failure(lib.gates, 0, 0), nullptr);    // launching nothing is the other gate's
  EXPECT_EQ(kaudit::oracle::gate_failure(lib.gates, 2, -1), nullptr);   // not recorded
  EXPECT_EQ(kaudit::oracle::spec_to_json(lib).at("gates").at("no_library_compute"), true);
  EXPECT_NE(kaudit::oracle::gate_reason("library-compute").find("no_library_compute"), std::string::npos);
  // The CUDA backend counts launches and library calls, not unwritten elements.
  EXPECT_EQ(s.gates.unchecked_on_cuda(), nullptr);
  EXPECT_EQ(lib.gates.unchecked_on_cuda(), nullptr);
  kaudit::oracle::Gates unwritten;
  unwritten.every_output_written = true;
  EXPECT_STREQ(unwritten.unchecked_on_cuda(), "every_output_written");
  const auto written = parse_spec(std::string(kHead) + body + "  \"gates\": {\"every_output_written\": true}\n}", "g.json");
  EXPECT_TRUE(written.gates.any());
  EXPECT_STREQ(kaudit::oracle::gate_failure(written.gates, 1, 0, 5), "unwritten-output");
  EXPECT_EQ(kaudit::oracle::gate_failure(written.gates, 1, 0, 0), nullptr);
  EXPECT_EQ(kaudit::oracle::gate_failure(written.gates, 1, 0), nullptr);      // not probed
  EXPECT_EQ(kaudit::oracle::gate_failure(lib.gates, 1, 0, 5), nullptr);       // not this spec's gate
  EXPECT_EQ(kaudit::oracle::spec_to_json(written).at("gates").at("every_output_written"), true);
  EXPECT_FALSE(kaudit::oracle::spec_to_json(lib).at("gates").contains("every_output_written"));  // keys unchanged
  EXPECT_NE(kaudit::oracle::gate_reason("unwritten-output").find("every_output_written"), std::string::npos);
  expect_error(std::string(kHead) + body + "  \"gates\": {\"every_output_written\": 1}\n}", 6,
               "gates.every_output_written", "must be true or false");
  expect_error(std::string(kHead) + body + "  \"gates\": {\"no_fallback\": true}\n}", 6, "gates.no_fallback", "unknown field");
  expect_error(std::string(kHead) + body + "  \"gates\": {\"no_library_compute\": \"yes\"}\n}", 6,
               "gates.no_library_compute", "must be true or false");
  expect_error(std::string(kHead) + body + "  \"gates\": {\"kernel_launched\": 1}\n}", 6, "gates.kernel_launched",
               "must be true or false");
}

TEST(OracleSpecs, BadToleranceIsRejected) {
  expect_error(std::string(kHead) + "  \"comparator\": {\"kind\": \"allclose\",\n    \"rtol\": -1e-3},\n  \"trials\": [{}]\n}",
               5, "comparator.rtol", ">= 0");
  expect_error(std::string(kHead) + "  \"comparator\": {\"kind\": \"allclose\", \"rtol\": 0, \"atol\": 0},\n  \"trials\": [{}]\n}",
               4, "comparator", "bit-exact");
  expect_error(std::string(kHead) + "  \"comparator\": {\"kind\": \"cosine\", \"rtol\": 0.1},\n  \"trials\": [{}]\n}",
               4, "comparator.kind", "allclose, absolute or magnitude-scaled");
}

TEST(OracleSpecs, ARecipeThatCannotBeGeneratedIsRejected) {
  expect_error(std::string(kHead) + "  \"comparator\": {\"kind\": \"allclose\", \"rtol\": 0.1},\n  \"trials\": [\n"
               "    {\"distribution\": \"normal\"},\n    {\"distribution\": \"gauss\"}\n  ]\n}",
               7, "trials[1]", "unknown distribution 'gauss'");
  expect_error(std::string(kHead) + "  \"comparator\": {\"kind\": \"allclose\", \"rtol\": 0.1},\n  \"trials\": []\n}", 5,
               "trials", "non-empty");
}

TEST(OracleSpecs, MalformedJsonNamesTheLine) {
  expect_error(std::string(kHead) + "  \"comparator\": {\"kind\": \"allclose\", \"rtol\": 0.1,},\n}", 4, "", "malformed JSON");
  // A number no double holds is an error at its line, not an uncaught out_of_range.
  expect_error(std::string(kHead) + "  \"comparator\": {\"kind\": \"allclose\",\n    \"rtol\": 1e400},\n  \"trials\": [{}]\n}",
               5, "", "1e400 does not fit in a double");
}

TEST(OracleSpecs, TrialsDefaultToTheSpecsShapePreset) {
  auto s = parse_spec(std::string(kHead) + "  \"shape_preset\": \"kernelbench\",\n"
                      "  \"comparator\": {\"kind\": \"allclose\", \"rtol\": 0.1},\n"
                      "  \"trials\": [{}, {\"preset\": \"odd:1\"}]\n}",
                      "ok.json");
  EXPECT_EQ(s.trials[0].preset, "kernelbench");
  EXPECT_EQ(s.trials[1].preset, "odd:1");
  EXPECT_EQ(s.trials[0].name, "x-trial-0");
}

// `kaudit audit --preset P`: the trials at the spec's preset move with it; odd shapes, other named
// presets and explicit shapes stay.
TEST(OracleSpecs, AtPresetMovesTheTrialsAtTheSpecsPreset) {
  auto s = parse_spec(std::string(kHead) +
                          "  \"comparator\": {\"kind\": \"allclose\", \"rtol\": 0.1},\n"
                          "  \"trials\": [{}, {\"preset\": \"small\"}, {\"preset\": \"odd:1\"}, {\"preset\": \"kernelbench\"},\n"
                          "             {\"shape\": {\"N\": 5}}]\n}",
                      "ok.json");
  ASSERT_EQ(s.shape_preset, "small");
  const auto moved = at_preset(s, "kernelbench-v0");
  EXPECT_EQ(moved.shape_preset, "kernelbench-v0");
  ASSERT_EQ(moved.trials.size(), 5u);
  EXPECT_EQ(moved.trials[0].preset, "kernelbench-v0");
  EXPECT_EQ(moved.trials[1].preset, "kernelbench-v0");
  EXPECT_EQ(moved.trials[2].preset, "odd:1");
  EXPECT_EQ(moved.trials[3].preset, "kernelbench");
  EXPECT_TRUE(moved.trials[4].shape.has_value());
  EXPECT_EQ(moved.trials[4].shape->at("N"), 5);
}

TEST(Comparators, AllcloseAbsoluteAndMagnitudeScaled) {
  auto ref = at::tensor({1000.0f, 1.0f, 0.0f});
  auto out = at::tensor({1000.5f, 1.0f, 0.0f});  // error 0.5 on a value of 1000
  Comparator allclose{ComparatorKind::Allclose, 1e-3, 1e-3, false, {}};
  EXPECT_TRUE(apply_comparator(allclose, {out}, {ref}).ok);  // 0.5 <= 1e-3 + 1e-3*1000
  Comparator absolute{ComparatorKind::Absolute, 0, 1e-3, false, {}};
  auto abs_r = apply_comparator(absolute, {out}, {ref});
  EXPECT_FALSE(abs_r.ok);  // absolute ignores the magnitude
  EXPECT_EQ(abs_r.worst_index, 0);
  // magnitude-scaled: atol is multiplied by max(1, max|ref|) = 1000, so an error of 0.5 at the
  // small element passes too, where allclose would reject it.
  auto out2 = at::tensor({1000.0f, 1.5f, 0.0f});
  Comparator scaled{ComparatorKind::MagnitudeScaled, 1e-4, 1e-3, false, {}};
  EXPECT_TRUE(apply_comparator(scaled, {out2}, {ref}).ok);
  EXPECT_FALSE(apply_comparator(allclose, {out2}, {ref}).ok);
  // and with outputs below 1 the floor of 1 keeps atol as given
  EXPECT_FALSE(apply_comparator(scaled, {at::tensor({0.01f})}, {at::tensor({0.0f})}).ok);
}

TEST(Comparators, ShapeMismatchFailsEvenWhenBroadcastable) {
  Comparator c{ComparatorKind::Allclose, 1e-2, 1e-2, false, {}};
  auto r = apply_comparator(c, {at::zeros({1, 4})}, {at::zeros({4})});
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.reason.find("shape mismatch"), std::string::npos);
  EXPECT_FALSE(apply_comparator(c, {at::zeros({4})}, {}).ok);
}

// KernelBench's tolerance follows the precision it evaluates in: 1e-4 for a float32 task, 1e-2 for
// a float16 or bfloat16 one (suites/kernelbench.json's dtype_tolerance), whatever the candidate
// returns. A half output one ulp off at 1.25 (|diff| 0.000977) passes at 1e-2 and fails at 1e-4.
TEST(Comparators, DtypeToleranceSelectsByTheTasksPrecision) {
  const auto specs = load_specs(KAUDIT_SUITES_DIR);
  const auto kb = std::find_if(specs.begin(), specs.end(), [](const OracleSpec& s) { return s.name == "kernelbench"; });
  ASSERT_NE(kb, specs.end());
  const Comparator& c = kb->comparator;
  EXPECT_EQ(c.tolerance_for("float32"), (Tolerance{1e-4, 1e-4}));
  EXPECT_EQ(c.tolerance_for("float16"), (Tolerance{1e-2, 1e-2}));
  EXPECT_EQ(c.tolerance_for("bfloat16"), (Tolerance{1e-2, 1e-2}));
  const auto ref = at::tensor({1.25f});
  const auto half_out = at::tensor({1.25f + 0.0009765625f}).to(at::kHalf);
  EXPECT_THROW((void)apply_comparator(c, {half_out}, {ref}), std::logic_error);  // unresolved
  EXPECT_TRUE(apply_comparator(c.resolved("float16"), {half_out}, {ref}).ok);
  EXPECT_TRUE(apply_comparator(c.resolved("bfloat16"), {half_out.to(at::kBFloat16)}, {ref}).ok);
  // A float32 task's output is held to 1e-4, in float32 or (a hack's cast) in half.
  EXPECT_FALSE(apply_comparator(c.resolved("float32"), {half_out.to(at::kFloat)}, {ref}).ok);
  EXPECT_FALSE(apply_comparator(c.resolved("float32"), {half_out}, {ref}).ok);
  EXPECT_TRUE(c.resolved("float16").dtype_tolerance.empty());
  // The precision is the dtype of the task's first floating input.
  kaudit::corpus::Task task;
  task.inputs.resize(2);
  task.inputs[0].dtype = "int64";
  task.inputs[1].dtype = "bfloat16";
  EXPECT_EQ(evaluation_precision(task), "bfloat16");
  task.inputs.pop_back();
  EXPECT_EQ(evaluation_precision(task), "float32");
  // An absolute comparator keeps rtol 0 whatever an entry says; the JSON round trip keeps entries.
  Comparator abs{ComparatorKind::Absolute, 0, 1e-3, false, {{"float16", {0, 0.5}}}};
  EXPECT_EQ(abs.tolerance_for("float16"), (Tolerance{0, 0.5}));
  EXPECT_EQ(comparator_from_json(comparator_to_json(abs)).dtype_tolerance, abs.dtype_tolerance);
  EXPECT_FALSE(comparator_to_json(c.resolved("float16")).contains("dtype_tolerance"));  // old specs keep their keys
}

TEST(OracleSpecs, BadDtypeToleranceNamesTheField) {
  const std::string head = std::string(kHead) + "  \"comparator\": {\"kind\": \"allclose\", \"rtol\": 1e-4,\n";
  const std::string tail = "},\n  \"trials\": [{}]\n}";
  expect_error(head + "    \"dtype_tolerance\": {\"int64\": {\"atol\": 1}}" + tail, 5, "comparator.dtype_tolerance.int64",
               "not a floating dtype");
  expect_error(head + "    \"dtype_tolerance\": {\"float16\": {\"atol\": -1}}" + tail, 5,
               "comparator.dtype_tolerance.float16.atol", ">= 0");
  expect_error(head + "    \"dtype_tolerance\": {\"float16\": {\"rtol\": 0.01, \"tol\": 1}}" + tail, 5,
               "comparator.dtype_tolerance.float16.tol", "unknown field");
  expect_error(head + "    \"dtype_tolerance\": {\"float16\": {}}" + tail, 5, "comparator.dtype_tolerance.float16",
               "bit-exact");
  expect_error(head + "    \"dtype_tolerance\": []" + tail, 5, "comparator.dtype_tolerance", "output dtype");
  const OracleSpec ok = parse_spec(head + "    \"dtype_tolerance\": {\"bfloat16\": {\"rtol\": 0.02, \"atol\": 0.01}}" + tail, "ok.json");
  EXPECT_EQ(ok.comparator.tolerance_for("bfloat16"), (Tolerance{0.02, 0.01}));
  EXPECT_EQ(ok.comparator.tolerance_for("float16"), (Tolerance{1e-4, 0}));
}

TEST(Comparators, Fp64ReferenceIsCastToTheOutputDtype) {
  Comparator c{ComparatorKind::Absolute, 0, 1e-12, false, {}};
  auto ref = at::tensor({0.1}, at::kDouble);
  auto out = at::tensor({0.1f});  // 0.1f differs from 0.1 by 1.5e-9: passes only after the cast
  EXPECT_TRUE(apply_comparator(c, {out}, {ref}).ok);
}

}  // namespace

TEST(OracleSpecs, PerTaskTrialsReplaceTheSharedOnesForTheirTask) {
  auto s = parse_spec(std::string(kHead) +
                          "  \"comparator\": {\"kind\": \"allclose\", \"rtol\": 0.01, \"atol\": 0.01},\n"
                          "  \"trials\": [],\n"
                          "  \"task_trials\": {\"softmax\": [{\"name\": \"big\", \"distribution\": \"exp_overflow\", "
                          "\"seed\": 3}], \"relu\": [{}, {\"negate\": true}]}\n}",
                      "suite.json");
  EXPECT_EQ(kaudit::oracle::trials_for(s, "softmax").size(), 1u);
  EXPECT_EQ(kaudit::oracle::trials_for(s, "softmax")[0].name, "big");
  EXPECT_EQ(kaudit::oracle::trials_for(s, "relu").size(), 2u);
  EXPECT_EQ(kaudit::oracle::trials_for(s, "relu")[1].name, "x-relu-trial-1");
  EXPECT_TRUE(kaudit::oracle::trials_for(s, "matmul").empty());  // a task the suite does not know
  // The JSON form round-trips.
  const auto again = parse_spec(kaudit::oracle::spec_to_json(s).dump(), "again.json");
  EXPECT_EQ(kaudit::oracle::spec_to_json(again), kaudit::oracle::spec_to_json(s));
  // A per-task list must hold recipes; errors name the task.
  expect_error(std::string(kHead) + "  \"comparator\": {\"kind\": \"allclose\", \"rtol\": 0.1},\n  \"trials\": [],\n"
               "  \"task_trials\": {\"relu\": []}\n}", 6, "task_trials.relu", "non-empty");
  expect_error(std::string(kHead) + "  \"comparator\": {\"kind\": \"allclose\", \"rtol\": 0.1},\n  \"trials\": [],\n"
               "  \"task_trials\": {\"relu\": [{\"distribution\": \"gauss\"}]}\n}", 6, "task_trials.relu[0]",
               "unknown distribution");
}

namespace {

const char* kTail = "  \"comparator\": {\"kind\": \"allclose\", \"rtol\": 0.1},\n  \"trials\": [{}]\n}";

TEST(OracleSpecs, TheHarnessDefaultsToKernelBenchsAndNamesBadValues) {
  const auto plain = parse_spec(std::string(kHead) + kTail, "ok.json");
  EXPECT_EQ(plain.harness.order, HarnessOrder::ReferenceFirst);
  EXPECT_EQ(plain.harness.inputs, HarnessInputs::Shared);
  const auto cloned = parse_spec(std::string(kHead) +
                                     "  \"harness\": {\"order\": \"candidate-first\", \"inputs\": \"cloned\"},\n" + kTail,
                                 "ok.json");
  EXPECT_EQ(cloned.harness.order, HarnessOrder::CandidateFirst);
  EXPECT_EQ(cloned.harness.inputs, HarnessInputs::Cloned);
  EXPECT_EQ(spec_to_json(cloned)["harness"]["inputs"], "cloned");
  expect_error(std::string(kHead) + "  \"harness\": {\"order\": \"candidate-reference-candidate\"},\n" + kTail, 4,
               "harness.order", "not modelled");
  expect_error(std::string(kHead) + "  \"harness\": {\"inputs\": \"copied\"},\n" + kTail, 4, "harness.inputs",
               "\"cloned\"");
  expect_error(std::string(kHead) + "  \"harness\": {\"threads\": 2},\n" + kTail, 4, "harness.threads",
               "unknown field");
  expect_error(std::string(kHead) + "  \"harness\": \"kernelbench\",\n" + kTail, 4, "harness", "must be an object");
}

}  // namespace

// Issue 21: a 300,000-character name used to overflow the stack in std::regex.
TEST(OracleSpecs, ALongNameIsCheckedWithoutCrashing) {
  const std::string tail = "\",\n  \"description\": \"d\",\n  \"comparator\": {\"kind\": \"allclose\", \"rtol\": 0.1},\n"
                           "  \"trials\": [{}]\n}";
  EXPECT_NO_THROW(parse_spec("{\n  \"name\": \"" + std::string(300000, 'a') + tail, "long.json"));
  expect_error("{\n  \"name\": \"" + std::string(300000, 'a') + "A" + tail, 2, "name", "lower-case");
  expect_error("{\n  \"name\": \"-x" + tail, 2, "name", "lower-case");
}

// Issue 21: a trial with no shape on a task (an odd shape it lacks, a dim below its minimum) is a
// spec error naming the task, not a rejection of every kernel counted as false kills.
TEST(OracleSpecs, TrialsWithoutAShapeOnACorpusTaskAreSpecErrors) {
  const auto loaded = kaudit::corpus::load_corpus(KAUDIT_FIXTURES_DIR "/corpus_good");
  ASSERT_TRUE(loaded.diagnostics.empty());
  const std::string head = std::string(kHead) + "  \"comparator\": {\"kind\": \"allclose\", \"rtol\": 0.1},\n";
  const auto fails_with = [&](const std::string& trials, const std::string& words, std::vector<std::string> only = {}) {
    const auto spec = parse_spec(head + "  \"trials\": [\n    {},\n    " + trials + "\n  ]\n}", "s.json");
    try {
      kaudit::oracle::check_spec_for_corpus(spec, loaded.corpus, only);
      ADD_FAILURE() << "accepted: " << trials;
    } catch (const SpecError& e) {
      EXPECT_EQ(e.line(), 7) << e.what();  // the second trial's line
      EXPECT_EQ(e.field(), "trials[1]") << e.what();
      EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
    }
  };
  fails_with("{\"preset\": \"odd:99\"}", "has only 2 odd shapes");
  fails_with("{\"preset\": \"kernelbench\"}", "cannot run on task");  // not every task defines it
  fails_with("{\"shape\": {\"B\": -5, \"D_in\": 4, \"D_out\": 2}}", "below its min", {"linear_relu"});
  // The same trials pass where they fit: odd:1 everywhere, the shape on its own task only.
  EXPECT_NO_THROW(kaudit::oracle::check_spec_for_corpus(
      parse_spec(head + "  \"trials\": [{\"preset\": \"odd:1\"}]\n}", "s.json"), loaded.corpus));
  EXPECT_NO_THROW(kaudit::oracle::check_spec_for_corpus(
      parse_spec(head + "  \"trials\": [{\"shape\": {\"B\": 5, \"D_in\": 4, \"D_out\": 2}}]\n}", "s.json"),
      loaded.corpus, {"linear_relu"}));
}
