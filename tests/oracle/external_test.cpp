// External checkers (oracle/external.h): the protocol round trip with tensors of several dtypes,
// and a checker that dies, hangs, writes on its protocol channel or answers beside the protocol:
// each is an ExternalCheckerError naming the oracle and the request, never a verdict.
#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "oracle/external.h"
#include "oracle/npy.h"
#include "oracle/spec.h"

namespace {
namespace fs = std::filesystem;
using kaudit::oracle::CompareResult;
using kaudit::oracle::ExternalChecker;
using kaudit::oracle::ExternalCheckerError;
using kaudit::oracle::ExternalCommand;
using kaudit::oracle::JudgeFacts;

ExternalCommand command(const std::string& script, double timeout_s = 60) {
  return {{"{python}", script}, fs::path(KAUDIT_FIXTURES_DIR) / "external_checkers", timeout_s};
}

struct Facts {
  kaudit::corpus::Task task;
  kaudit::corpus::Assignment dims = {{"N", 4}};
  std::vector<at::Tensor> inputs, ref32, ref64;
  Facts() {
    task.name = "toy";
    task.problem_py = "/nowhere/problem.py";
    inputs = {at::arange(4, at::kFloat), at::arange(4, at::kLong).remainder(4).ne(1), at::arange(3, at::kLong)};
    ref32 = {at::arange(4, at::kFloat) * 2};
    ref64 = {at::arange(4, at::kDouble) * 2};
  }
  JudgeFacts facts() const { return {&task, "trial-2", 1, &dims, &inputs, &ref32, &ref64}; }
};

TEST(ExternalChecker, ARoundTripCarriesEveryTensorAndTheVerdict) {
  Facts f;
  ExternalChecker checker("echo", command("echo_sums.py"));
  const CompareResult pass = checker.judge(f.facts(), {at::full({4}, 0.5, at::kHalf)});
  EXPECT_TRUE(pass.ok);
  const CompareResult fail = checker.judge(f.facts(), {at::full({2, 2}, -1.5, at::kFloat)});
  ASSERT_FALSE(fail.ok);
  // The checker's reason: what it loaded, dtype, shape and sum of each tensor.
  EXPECT_NE(fail.reason.find("toy trial-2 1"), std::string::npos) << fail.reason;
  EXPECT_NE(fail.reason.find("in:torch.float32[4]=6,torch.bool[4]=3,torch.int64[3]=3"), std::string::npos) << fail.reason;
  EXPECT_NE(fail.reason.find("r32:torch.float32[4]=12"), std::string::npos) << fail.reason;
  EXPECT_NE(fail.reason.find("r64:torch.float64[4]=12"), std::string::npos) << fail.reason;
  EXPECT_NE(fail.reason.find("out:torch.float32[2, 2]=-6"), std::string::npos) << fail.reason;
  // bfloat16 has no NumPy dtype: it goes as its bits ("|V2") and comes back as torch.bfloat16.
  const CompareResult bf = checker.judge(f.facts(), {at::full({3}, -1.5, at::kBFloat16)});
  ASSERT_FALSE(bf.ok);
  EXPECT_NE(bf.reason.find("out:torch.bfloat16[3]=-4.5"), std::string::npos) << bf.reason;
  EXPECT_EQ(checker.processes_started(), 1);  // one thread asked three times: one process
}

TEST(ExternalChecker, TheRequestSaysHowTheRunEndedAndWhatItLaunched) {
  Facts f;
  ExternalChecker echo("echo", command("echo_run.py"));
  JudgeFacts facts = f.facts();
  kaudit::oracle::RunFacts run;
  run.launches = 2;
  run.library_calls = 0;
  run.launch_log = nlohmann::json::parse(R"([{"grid": [4, 1, 1], "block": [256, 1, 1], "shared_bytes": 0, "stream": 0},
                                             {"grid": [1, 1, 1], "block": [32, 1, 1], "shared_bytes": 64, "stream": 1}])");
  facts.run = &run;
  const CompareResult ok = echo.judge(facts, {at::ones({4})});
  ASSERT_FALSE(ok.ok);
  EXPECT_EQ(nlohmann::json::parse(ok.reason),
            nlohmann::json::parse(R"({"outcome": "ok", "message": "", "launches": 2, "library_calls": 0,
              "unwritten": null, "outputs": 1, "launch_log": [
              {"grid": [4, 1, 1], "block": [256, 1, 1], "shared_bytes": 0, "stream": 0},
              {"grid": [1, 1, 1], "block": [32, 1, 1], "shared_bytes": 64, "stream": 1}]})"))
      << ok.reason;
  // A run that did not complete: its outcome and message, no outputs, nothing recorded.
  kaudit::oracle::RunFacts crashed;
  crashed.outcome = "crash";
  crashed.message = "illegal address";
  facts.run = &crashed;
  const CompareResult c = echo.judge(facts, {});
  EXPECT_EQ(nlohmann::json::parse(c.reason),
            nlohmann::json::parse(R"({"outcome": "crash", "message": "illegal address", "launches": null,
              "library_calls": null, "unwritten": null, "launch_log": [], "outputs": 0})"))
      << c.reason;
  // The helper fails such a run for a checker that judges only completed ones (echo_sums.py).
  ExternalChecker sums("sums", command("echo_sums.py"));
  const CompareResult d = sums.judge(facts, {});
  EXPECT_FALSE(d.ok);
  EXPECT_EQ(d.reason, "the run did not complete: crash (illegal address)");
}

void expect_error(const std::string& script, double timeout_s, const std::string& says) {
  Facts f;
  ExternalChecker checker("bad", command(script, timeout_s));
  try {
    checker.judge(f.facts(), {at::ones({4})});
    FAIL() << script << ": no error";
  } catch (const ExternalCheckerError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("oracle 'bad'"), std::string::npos) << m;
    EXPECT_NE(m.find("request #1 (judge, task 'toy', trial 1 'trial-2')"), std::string::npos) << m;
    EXPECT_NE(m.find(script), std::string::npos) << m;
    EXPECT_NE(m.find(says), std::string::npos) << m;
  }
}

TEST(ExternalChecker, ACheckerThatDiesIsAnErrorWithItsStatusAndStderr) {
  expect_error("exits.py", 60, "exited with status 3");
  expect_error("exits.py", 60, "giving up on toy");
}

TEST(ExternalChecker, ACheckerThatHangsIsAnErrorAfterItsTimeout) { expect_error("hangs.py", 1, "did not answer within 1"); }

TEST(ExternalChecker, PrintingOnTheProtocolChannelIsAnError) { expect_error("garbage.py", 60, "not JSON (judging toy)"); }

TEST(ExternalChecker, AnswersBesideTheProtocolAreErrors) {
  expect_error("wrong_id.py", 60, "not a reply with \"id\": 1");
  expect_error("no_pass.py", 60, "without a boolean \"pass\"");
}

TEST(ExternalChecker, AMissingCommandIsAnErrorNotAVerdict) {
  Facts f;
  ExternalChecker checker("gone", {{"/nonexistent/checker"}, fs::temp_directory_path(), 10});
  EXPECT_THROW(checker.judge(f.facts(), {at::ones({4})}), ExternalCheckerError);
}

TEST(NpyFile, HeaderIsAlignedAndDataFollows) {
  const std::string b = kaudit::oracle::npy_bytes(at::arange(3, at::kInt));
  ASSERT_EQ(b.substr(0, 6), "\x93NUMPY");
  const std::size_t header = static_cast<unsigned char>(b[8]) | (static_cast<unsigned char>(b[9]) << 8);
  EXPECT_EQ((10 + header) % 64, 0u);
  EXPECT_NE(b.find("'descr': '<i4', 'fortran_order': False, 'shape': (3,), }"), std::string::npos);
  EXPECT_EQ(b.size(), 10 + header + 12);
  EXPECT_THROW(kaudit::oracle::npy_bytes(at::ones({2}, at::kComplexFloat)), std::invalid_argument);
  // NumPy has no bfloat16: its bits go as two opaque bytes per element, never as numbers.
  const std::string bf = kaudit::oracle::npy_bytes(at::full({2}, 1.5, at::kBFloat16));
  EXPECT_NE(bf.find("'descr': '|V2'"), std::string::npos);
  EXPECT_EQ(bf.substr(bf.size() - 4), std::string("\xc0\x3f\xc0\x3f", 4));  // 1.5 = 0x3fc0, little-endian
}

TEST(NpyFile, ReadsWhatItWritesAndNamesTheFileOfABadOne) {
  const fs::path dir = fs::temp_directory_path() / "kaudit-npy-test";
  fs::create_directories(dir);
  for (const at::Tensor& t : {at::arange(6, at::kFloat).reshape({2, 3}), at::arange(5, at::kDouble) / 3,
                              at::arange(4, at::kLong), at::ones({3}, at::kHalf), at::arange(4, at::kLong).ne(2),
                              (at::arange(5, at::kFloat) / 3).to(at::kBFloat16),
                              at::zeros({0, 2}), at::full({}, 7.0)}) {
    kaudit::oracle::write_npy(dir / "t.npy", t);
    const at::Tensor back = kaudit::oracle::read_npy(dir / "t.npy");
    EXPECT_EQ(back.scalar_type(), t.scalar_type());
    EXPECT_TRUE(back.sizes() == t.sizes());
    EXPECT_TRUE(at::equal(back, t));
  }
  std::ofstream(dir / "bad.npy") << "not numpy";
  try {
    kaudit::oracle::read_npy(dir / "bad.npy");
    FAIL() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("bad.npy: not a .npy file"), std::string::npos) << e.what();
  }
  fs::remove_all(dir);
}

TEST(ExternalChecker, ItsOwnInputsComeBackCheckedAgainstTaskJson) {
  kaudit::corpus::Task task;
  task.name = "toy";
  task.problem_py = "/nowhere/problem.py";
  kaudit::corpus::InputSpec x;
  x.name = "x";
  x.dtype = "float32";
  x.shape = {std::string("N")};
  task.inputs = {x};
  ExternalChecker checker("own", command("own_inputs.py"));
  const auto inputs = checker.make_inputs(task, 2, "third", 5, {{"N", 16}});
  ASSERT_EQ(inputs.size(), 1u);
  EXPECT_TRUE(at::equal(inputs[0], at::arange(16, at::kDouble).div(8).sub(2).to(at::kFloat)));
  ExternalChecker wrong("wrong", command("wrong_inputs.py"));
  try {
    wrong.make_inputs(task, 0, "first", 0, {{"N", 16}});
    FAIL() << "no error";
  } catch (const ExternalCheckerError& e) {
    EXPECT_NE(std::string(e.what()).find("input 'x' is Float[15], task.json says float32 [16]"), std::string::npos)
        << e.what();
  }
}

kaudit::oracle::OracleSpec parse(const std::string& text) {
  return kaudit::oracle::parse_spec(text, fs::path(KAUDIT_FIXTURES_DIR) / "external_checkers" / "spec.json");
}

TEST(ExternalSpec, ParsesTheCommandAndRunsItInTheSpecsFolder) {
  const auto s = parse(R"({"name": "x", "description": "d", "kind": "external",
                           "command": ["{python}", "echo_sums.py"], "timeout_s": 5,
                           "trials": [{"distribution": "uniform01", "seed": 1}]})");
  ASSERT_TRUE(s.external);
  EXPECT_EQ(s.external->argv.at(1), "echo_sums.py");
  EXPECT_EQ(s.external->cwd, fs::path(KAUDIT_FIXTURES_DIR) / "external_checkers");
  EXPECT_EQ(s.external->timeout_s, 5);
  ASSERT_TRUE(s.checker_slot);
  EXPECT_EQ(s.comparator.rtol, 1e-4);  // the device model's default comparison
  // The checker's bytes are in the spec's identity: cached verdicts of an edited checker go.
  const auto j = kaudit::oracle::spec_to_json(s);
  EXPECT_EQ(j.at("command_files").at("echo_sums.py").get<std::string>().size(), 64u);
  EXPECT_EQ(j.at("command_files").at("{kaudit}/tools/kaudit_checker.py").get<std::string>().size(), 64u);
}

TEST(ExternalSpec, BadFieldsNameTheFieldAndTheFix) {
  const auto error = [](const std::string& text) {
    try {
      parse(text);
    } catch (const kaudit::oracle::SpecError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const std::string head = R"({"name": "x", "description": "d", "trials": [{"distribution": "uniform01"}], )";
  EXPECT_NE(error(head + R"("kind": "external"})").find("field 'command': an external spec needs"), std::string::npos);
  EXPECT_NE(error(head + R"("kind": "remote", "command": ["a"]})").find("field 'kind': must be \"external\""), std::string::npos);
  EXPECT_NE(error(head + R"("kind": "external", "command": ["a", 3]})").find("field 'command[1]'"), std::string::npos);
  EXPECT_NE(error(head + R"("kind": "external", "command": ["a"], "timeout_s": 0})").find("field 'timeout_s'"), std::string::npos);
  EXPECT_NE(error(head + R"("command": ["a"], "comparator": {"kind": "allclose", "atol": 0.1}})").find("only an external spec"), std::string::npos);
}

}  // namespace
