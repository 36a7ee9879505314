// Comparators: compare_allclose must give torch.allclose's verdict (checked against at::allclose
// itself on hand-picked edge cases and on random near-miss cases); compare_gate implements the
// verification gate's magnitude-scaled check.
#include <gtest/gtest.h>

#include <ATen/ATen.h>
#include <optional>

#include "common/parallel.h"

#include <limits>

#include "oracle/compare.h"
#include "oracle/recipes.h"
#include "tests/oracle/serial_compare.h"

using namespace kaudit;
using oracle::compare_allclose;
using oracle::compare_gate;

namespace {

constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

at::Tensor f32(std::vector<double> v, std::vector<int64_t> shape = {}) {
  if (shape.empty()) shape = {static_cast<int64_t>(v.size())};
  return at::tensor(v, at::kDouble).reshape(shape).to(at::kFloat);
}
at::Tensor f64(std::vector<double> v) { return at::tensor(v, at::kDouble); }

// torch's own verdict, or nullopt when torch raises (shape or dtype mismatch).
std::optional<bool> torch_allclose(const at::Tensor& a, const at::Tensor& b, double rtol,
                                   double atol, bool equal_nan) {
  try {
    return at::allclose(a, b, rtol, atol, equal_nan);
  } catch (const c10::Error&) {
    return std::nullopt;
  }
}

struct Case {
  const char* what;
  at::Tensor out, ref;
  double rtol, atol;
  bool equal_nan;
};

}  // namespace

TEST(CompareAllclose, AgreesWithTorchOnHandPickedCases) {
  std::vector<Case> cases = {
      {"equal", f32({1, 2, 3}), f32({1, 2, 3}), 1e-5, 1e-8, false},
      {"within atol", f32({1e-5}), f32({0}), 0, 1e-4, false},
      {"outside atol", f32({2e-4}), f32({0}), 0, 1e-4, false},
      {"rtol relative to ref: passes", f32({10}), f32({11}), 0.095, 0, false},
      {"rtol relative to ref: fails swapped", f32({11}), f32({10}), 0.095, 0, false},
      {"nan vs nan", f32({kNan}), f32({kNan}), 1e-2, 1e-2, false},
      {"nan vs nan equal_nan", f32({kNan}), f32({kNan}), 1e-2, 1e-2, true},
      {"nan vs number equal_nan", f32({kNan}), f32({1}), 1e-2, 1e-2, true},
      {"number vs nan", f32({1}), f32({kNan}), 1e-2, 1e9, false},
      {"inf vs inf", f32({kInf}), f32({kInf}), 0, 0, false},
      {"-inf vs -inf", f32({-kInf}), f32({-kInf}), 1e-2, 1e-2, false},
      {"inf vs -inf", f32({kInf}), f32({-kInf}), 1e-2, 1e-2, false},
      {"inf vs big finite, huge atol", f32({kInf}), f32({3e38}), 1e-2, 1e30, false},
      {"finite vs inf", f32({3e38}), f32({kInf}), 1e-2, 1e-2, false},
      {"broadcast row", f32({1, 2, 3, 4, 1, 2, 3, 4}, {2, 4}), f32({1, 2, 3, 4}), 0, 0, false},
      {"broadcast scalar ref", f32({5, 5, 5}), f32({5}, {1}), 0, 0, false},
      {"broadcast out", f32({5}, {1}), f32({5, 5, 6}), 0, 0.5, false},
      {"broadcast fails", f32({1, 2, 3, 4, 5, 6}, {2, 3}), f32({1, 2}), 0, 0, false},
      {"shape mismatch", f32({1, 2, 3}), f32({1, 2}), 0, 0, false},
      {"dtype mismatch", f32({1}), f64({1}), 0, 0, false},
      {"int64 equal", at::tensor({1, 2, 3}, at::kLong), at::tensor({1, 2, 3}, at::kLong), 0, 0,
       false},
      {"int64 within atol", at::tensor({1, 2, 4}, at::kLong), at::tensor({1, 2, 3}, at::kLong), 0,
       1, false},
      {"int64 outside", at::tensor({1, 2, 5}, at::kLong), at::tensor({1, 2, 3}, at::kLong), 0, 1,
       false},
      {"empty", f32({}), f32({}), 0, 0, false},
      {"0-dim", at::scalar_tensor(1.0, at::kFloat), at::scalar_tensor(1.0001, at::kFloat), 1e-3, 0,
       false},
      {"half", f32({1, 2}).to(at::kHalf), f32({1, 2.001}).to(at::kHalf), 1e-3, 1e-3, false},
      {"zero tolerances, tiny diff", f32({1}), f32({1.0000001}), 0, 0, false},
  };
  for (const auto& c : cases) {
    auto mine = compare_allclose(c.out, c.ref, c.rtol, c.atol, c.equal_nan);
    auto theirs = torch_allclose(c.out, c.ref, c.rtol, c.atol, c.equal_nan);
    EXPECT_EQ(mine.ok, theirs.value_or(false)) << c.what << ": " << mine.to_string();
    if (!theirs) {
      EXPECT_FALSE(mine.reason.empty()) << c.what;
    }
  }
}

TEST(CompareAllclose, AgreesWithTorchOnRandomNearMisses) {
  // Outputs = ref * (1 + e) + d with e, d around the tolerances, plus a few NaN/inf: thousands of
  // verdicts, none of them may differ from torch's.
  int disagreements = 0, passes = 0;
  for (uint64_t seed = 0; seed < 300; ++seed) {
    at::Tensor ref = at::empty({64}, at::kDouble), out = at::empty({64}, at::kDouble);
    auto* r = ref.data_ptr<double>();
    auto* o = out.data_ptr<double>();
    for (int64_t k = 0; k < 64; ++k) {
      double u = oracle::rng::uniform01(seed, 0, k);
      r[k] = oracle::rng::normal(seed, 1, k) * std::pow(10.0, 4 * u - 2);
      double e = 2e-3 * oracle::rng::normal(seed, 2, k) * (seed % 3);
      double d = 1e-3 * oracle::rng::normal(seed, 3, k) * (seed % 5 == 0);
      o[k] = r[k] * (1 + e) + d;
      double v = oracle::rng::uniform01(seed, 4, k);
      if (v < 0.002)
        o[k] = kNan;
      else if (v < 0.004)
        o[k] = kInf, r[k] = (seed % 2) ? kInf : -kInf;
    }
    for (auto dt : {at::kFloat, at::kDouble}) {
      at::Tensor a = out.to(dt), b = ref.to(dt);
      for (double tol : {1e-2, 1e-3, 1e-4}) {
        for (bool en : {false, true}) {
          bool mine = compare_allclose(a, b, tol, tol, en).ok;
          bool theirs = at::allclose(a, b, tol, tol, en);
          disagreements += mine != theirs;
          passes += theirs;
        }
      }
    }
  }
  EXPECT_EQ(disagreements, 0);
  EXPECT_GT(passes, 100);  // the sample has both verdicts
}

TEST(CompareAllclose, ReportsTheWorstElement) {
  auto ref = f32({1, 2, 3, 4, 5, 6});
  auto out = f32({1, 2.5, 3, 4, 5, 9});
  auto r = compare_allclose(out, ref, 0, 0.1);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.mismatches, 2);
  EXPECT_EQ(r.elements, 6);
  EXPECT_EQ(r.worst_index, 5);
  EXPECT_EQ(r.got, 9);
  EXPECT_EQ(r.expected, 6);
  EXPECT_DOUBLE_EQ(r.abs_err, 3);
  EXPECT_NEAR(r.allowed, 0.1, 1e-9);
  EXPECT_NE(r.reason.find("2 of 6 elements"), std::string::npos) << r.reason;

  // a NaN mismatch outranks any finite excess
  auto rn = compare_allclose(f32({100, kNan, 1}), f32({0, 1, 1}), 0, 0.1);
  EXPECT_EQ(rn.worst_index, 1);
  EXPECT_NE(rn.reason.find("nan mismatch"), std::string::npos) << rn.reason;

  // when everything passes, the element closest to failing is reported
  auto ok = compare_allclose(f32({1, 2.05, 3}), f32({1, 2, 3}), 0, 0.1);
  EXPECT_TRUE(ok.ok);
  EXPECT_EQ(ok.worst_index, 1);
  EXPECT_TRUE(ok.reason.empty());

  // flat index in the broadcast shape
  auto rb = compare_allclose(f32({0, 0, 0, 0, 0, 7}, {2, 3}), f32({0, 0, 0}), 0, 0);
  EXPECT_EQ(rb.worst_index, 5);
  EXPECT_EQ(rb.elements, 6);
}

// The display ratio of a passing comparison is the largest err / allowed, not the ratio at the
// element of least margin: here the least margin is the exact zero (allowance 0.1, no error),
// while 10.9 against 10 uses 90% of its allowance of 1.1.
TEST(CompareAllclose, MaxRatioWithinIsTheLargestShareOfAnAllowanceUsed) {
  auto r = compare_allclose(f32({0, 10.9f, 5}), f32({0, 10, 5}), 0.1, 0.1);
  ASSERT_TRUE(r.ok);
  EXPECT_EQ(r.worst_index, 0);
  EXPECT_EQ(r.abs_err, 0);
  EXPECT_NEAR(r.max_ratio_within, 0.9 / 1.1, 1e-6);
  // exact everywhere: 0; a failure does not count in it (the ratio of the elements within)
  EXPECT_EQ(compare_allclose(f32({1, 2}), f32({1, 2}), 0.1, 0.1).max_ratio_within, 0);
  auto bad = compare_allclose(f32({1.05f, 9}), f32({1, 2}), 0, 0.1);
  EXPECT_FALSE(bad.ok);
  EXPECT_NEAR(bad.max_ratio_within, 0.5, 1e-5);
  // over every output of a list, not only the last one's
  std::vector<at::Tensor> ref = {f32({10}), f32({1})};
  auto list = compare_allclose(std::vector<at::Tensor>{f32({10.5f}), f32({1})}, ref, 0, 1);
  ASSERT_TRUE(list.ok);
  EXPECT_NEAR(list.max_ratio_within, 0.5, 1e-6);
  // the gate's comparison too: allowed = rtol |ref| + atol * max|ref|
  auto g = compare_gate(f32({0, 2.0001f}), f64({0, 2}), 1e-4, 1e-5);
  ASSERT_TRUE(g.ok);
  EXPECT_GT(g.max_ratio_within, 0.3);
  EXPECT_LT(g.max_ratio_within, 1);
}

TEST(CompareAllclose, ShapeAndDtypeReasons) {
  auto s = compare_allclose(f32({1, 2, 3}), f32({1, 2}), 0, 0);
  EXPECT_FALSE(s.ok);
  EXPECT_NE(s.reason.find("shape mismatch"), std::string::npos);
  EXPECT_EQ(s.worst_index, -1);
  auto d = compare_allclose(f32({1}), f64({1}), 0, 0);
  EXPECT_FALSE(d.ok);
  EXPECT_NE(d.reason.find("dtype mismatch"), std::string::npos);
  EXPECT_THROW(compare_allclose(f32({1}), f32({1}), -1, 0), std::invalid_argument);
}

TEST(CompareAllclose, OutputLists) {
  std::vector<at::Tensor> ref = {f32({1}), f32({2})};
  EXPECT_TRUE(compare_allclose(std::vector<at::Tensor>{f32({1}), f32({2})}, ref, 0, 0).ok);
  auto bad = compare_allclose(std::vector<at::Tensor>{f32({1}), f32({3})}, ref, 0, 0);
  EXPECT_FALSE(bad.ok);
  EXPECT_EQ(bad.output, 1);
  auto count = compare_allclose(std::vector<at::Tensor>{f32({1})}, ref, 0, 0);
  EXPECT_FALSE(count.ok);
  EXPECT_NE(count.reason.find("output count"), std::string::npos);
}

// ---------------------------------------------------------------------------------------------
// Gate

TEST(CompareGate, DefaultTolerances) {
  auto f = oracle::default_gate_tolerance(at::kFloat);
  EXPECT_EQ(f.rtol, 1e-4);
  EXPECT_EQ(f.atol_scaled, 1e-5);
  auto h = oracle::default_gate_tolerance(at::kHalf);
  EXPECT_EQ(h.rtol, 2e-3);
  EXPECT_EQ(h.atol_scaled, 1e-3);
  auto b = oracle::default_gate_tolerance(at::kBFloat16);  // 8 significand bits to float16's 11
  EXPECT_EQ(b.rtol, 1.6e-2);
  EXPECT_EQ(b.atol_scaled, 8e-3);
  auto i = oracle::default_gate_tolerance(at::kLong);
  EXPECT_EQ(i.rtol, 0);
  EXPECT_EQ(i.atol_scaled, 0);

  corpus::Task t;
  EXPECT_EQ(oracle::gate_tolerance(t, at::kFloat).rtol, 1e-4);
  t.tolerance = corpus::Tolerance{3e-4, 4e-5};
  EXPECT_EQ(oracle::gate_tolerance(t, at::kFloat).rtol, 3e-4);
  EXPECT_EQ(oracle::gate_tolerance(t, at::kFloat).atol_scaled, 4e-5);
}

TEST(CompareGate, AtolScalesWithTheOutputMagnitude) {
  auto ref = f64({1000, 1e-3, -500});
  // floor = 1e-5 * 1000 = 1e-2: a small element may be off by up to ~1e-2
  auto ok = compare_gate(f32({1000.05, 1e-3 + 5e-3, -500.02}), ref, 1e-4, 1e-5);
  EXPECT_TRUE(ok.ok) << ok.to_string();
  auto bad = compare_gate(f32({1000.05, 1e-3 + 2e-2, -500}), ref, 1e-4, 1e-5);
  EXPECT_FALSE(bad.ok);
  EXPECT_EQ(bad.worst_index, 1);
  EXPECT_NEAR(bad.allowed, 1e-4 * 1e-3 + 1e-2, 1e-12);
  // the same relative error on a small-magnitude tensor is judged on its own scale
  auto small = f64({1e-3, 1e-6});
  EXPECT_FALSE(compare_gate(f32({1e-3, 1e-6 + 2e-8}), small, 1e-4, 1e-5).ok);
  EXPECT_TRUE(compare_gate(f32({1e-3, 1e-6 + 5e-9}), small, 1e-4, 1e-5).ok);
}

TEST(CompareGate, ShapesMustMatchExactly) {
  auto r = compare_gate(f32({1, 1, 1}), f64({1}), 1e-4, 1e-5);  // allclose would broadcast
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.reason.find("shape mismatch"), std::string::npos);
  EXPECT_FALSE(compare_gate(f32({1, 2}, {1, 2}), f64({1, 2}), 1e-4, 1e-5).ok);
}

TEST(CompareGate, IntegersExact) {
  auto ref = at::tensor({1, 2, 3}, at::kLong);
  EXPECT_TRUE(compare_gate(at::tensor({1, 2, 3}, at::kLong), ref, 1e-1, 1e-1).ok);
  auto r = compare_gate(at::tensor({1, 2, 4}, at::kLong), ref, 1e-1, 1e-1);
  EXPECT_FALSE(r.ok);  // tolerances do not apply to integers
  EXPECT_EQ(r.worst_index, 2);
  // compared as int64, not through double (2^53 + 1 rounds to 2^53 in double)
  const int64_t big = (int64_t{1} << 53);
  EXPECT_FALSE(
      compare_gate(at::tensor({big + 1}, at::kLong), at::tensor({big}, at::kLong), 0, 0).ok);
  auto d = compare_gate(f32({1, 2, 3}), ref, 1e-1, 1e-1);
  EXPECT_FALSE(d.ok);
  EXPECT_NE(d.reason.find("dtype mismatch"), std::string::npos);
}

TEST(CompareGate, NanAndInfMustMatchPositionAndKind) {
  auto ref = f64({kNan, kInf, -kInf, 1});
  EXPECT_TRUE(compare_gate(f32({kNan, kInf, -kInf, 1}), ref, 1e-4, 1e-5).ok);
  EXPECT_FALSE(compare_gate(f32({0, kInf, -kInf, 1}), ref, 1e-4, 1e-5).ok);        // nan -> 0
  EXPECT_FALSE(compare_gate(f32({kNan, -kInf, -kInf, 1}), ref, 1e-4, 1e-5).ok);    // wrong sign
  EXPECT_FALSE(compare_gate(f32({kNan, kInf, -kInf, kNan}), ref, 1e-4, 1e-5).ok);  // extra nan
  EXPECT_FALSE(compare_gate(f32({kNan, kInf, -kInf, kInf}), ref, 1e-4, 1e-5).ok);  // extra inf
  auto r = compare_gate(f32({kNan, kInf, kInf, 1}), ref, 1e-4, 1e-5);
  EXPECT_EQ(r.worst_index, 2);
  EXPECT_NE(r.reason.find("inf mismatch"), std::string::npos) << r.reason;
  // infinities do not inflate the magnitude scale
  EXPECT_FALSE(compare_gate(f32({kInf, 1.1}), f64({kInf, 1}), 1e-4, 1e-5).ok);
}

TEST(CompareGate, AllZeroReferenceNeedsExactZeros) {
  EXPECT_TRUE(compare_gate(f32({0, 0}), f64({0, 0}), 1e-4, 1e-5).ok);
  EXPECT_FALSE(compare_gate(f32({0, 1e-30}), f64({0, 0}), 1e-4, 1e-5).ok);
}

// The chunked, parallel element pass (oracle/compare.cpp) must give the serial loop's result to
// the bit: the count, and the worst element as the first of the largest excess. The serial loops
// (tests/oracle/serial_compare.h) are the comparators as they were before the chunks. The data
// crosses many chunks, puts equal worst excesses in different chunks (the first must win), and
// holds NaN, infinities and exact matches; it runs on 1 thread and on every CPU.
namespace {
using kaudit::test::Serial;
using kaudit::test::serial_allclose;
using kaudit::test::serial_gate;
// A reference and a perturbed output over about 12 chunks of the comparator, with planted ties,
// NaN, infinities and exact copies. `special`: also NaN and infinities.
std::pair<at::Tensor, at::Tensor> planted(at::ScalarType dtype, bool special, uint64_t seed) {
  at::manual_seed(seed);
  const int64_t n = (int64_t(3) << 20) + 777;
  at::Tensor ref = at::randn({n}, at::kDouble);
  at::Tensor out = (ref + 1e-3 * at::randn({n}, at::kDouble)).to(dtype);
  out.index_put_({at::arange(0, n, 7)}, ref.index({at::arange(0, n, 7)}).to(dtype));  // exact where rounding allows
  // The same large error, in different chunks: the first must be reported.
  for (int64_t i : {int64_t(400000), int64_t(1500000), int64_t(2900000)}) {
    ref[i] = 1.0;
    out[i] = 3.0;
  }
  if (special) {
    for (int64_t i : {int64_t(10), int64_t(2000000)}) out[i] = kNan;
    for (int64_t i : {int64_t(11), int64_t(2000001)}) ref[i] = kNan;
    out[12] = kInf, ref[12] = kInf;
    out[13] = -kInf, ref[13] = kInf;
    out[1000000] = kNan, ref[1000000] = kNan;
    ref[3000000] = kInf;
  }
  return {out, ref};
}
}  // namespace

TEST(CompareChunks, GiveTheSerialLoopsResultOnAnyNumberOfThreads) {
  // The comparisons run on kaudit's pool (oracle/host_loop.h): on the calling thread alone, and on
  // every CPU (at least 2 threads on the test machines).
  for (unsigned threads : {1u, 0u}) {
    std::optional<kaudit::parallel::Limit> limit;
    if (threads > 0) limit.emplace(threads);
    for (at::ScalarType dtype : {at::kFloat, at::kDouble, at::kHalf, at::kBFloat16})
      for (bool special : {false, true})
        for (bool equal_nan : {false, true}) {
          SCOPED_TRACE(std::string(c10::toString(dtype)) + (special ? " special" : "") + (equal_nan ? " equal_nan" : "") +
                       ", " + std::to_string(threads) + " threads");
          auto [out, ref] = planted(dtype, special, 7 + static_cast<int>(threads));
          const at::Tensor ref_cast = ref.to(dtype);
          const auto got = compare_allclose(out, ref_cast, 1e-3, 1e-3, equal_nan);
          const Serial want = serial_allclose(out, ref_cast, 1e-3, 1e-3, equal_nan);
          EXPECT_EQ(got.mismatches, want.mismatches);
          EXPECT_EQ(got.worst_index, want.index);
          EXPECT_TRUE(got.got == want.got || (std::isnan(got.got) && std::isnan(want.got)));
          EXPECT_TRUE(got.expected == want.expected || (std::isnan(got.expected) && std::isnan(want.expected)));
          EXPECT_GT(want.mismatches, 3);  // the planted errors at least: the test compares failures
          const auto gate = compare_gate(out, ref, 1e-4, 1e-5);
          const Serial gate_want = serial_gate(out, ref, 1e-4, 1e-5);
          EXPECT_EQ(gate.mismatches, gate_want.mismatches);
          EXPECT_EQ(gate.worst_index, gate_want.index);
          // The first of the equal planted errors, when nothing worse (NaN, infinity) comes first.
          if (!special) {
            EXPECT_EQ(got.worst_index, 400000);
          }
        }
  }
}

TEST(CompareChunks, UnexpectedNonFiniteIsANanOrInfinityWhereTheReferenceIsFinite) {
  EXPECT_FALSE(oracle::has_unexpected_non_finite(f32({1, 2, 3}), f64({1, 2, 4})));
  EXPECT_TRUE(oracle::has_unexpected_non_finite(f32({1, kNan, 3}), f64({1, 2, 3})));
  EXPECT_TRUE(oracle::has_unexpected_non_finite(f32({1, 2, -kInf}), f64({1, 2, 3})));
  EXPECT_FALSE(oracle::has_unexpected_non_finite(f32({kNan, kInf, 3}), f64({kInf, kNan, 3})));  // expected there
  EXPECT_FALSE(oracle::has_unexpected_non_finite(at::ones({4}, at::kLong), at::ones({4}, at::kLong)));
  EXPECT_TRUE(oracle::has_unexpected_non_finite(f32({kNan}), at::ones({1}, at::kLong)));  // an integer reference is finite
  // Past the first chunks, in half precision: the same answer as the tensor expression.
  at::Tensor out = at::randn({(int64_t(3) << 20) + 5}).to(at::kHalf);
  const at::Tensor ref = out.to(at::kDouble);
  EXPECT_FALSE(oracle::has_unexpected_non_finite(out, ref));
  out[(int64_t(3) << 20) + 4] = kInf;
  EXPECT_TRUE(oracle::has_unexpected_non_finite(out, ref));
}

TEST(CompareChunks, MaxAbsFiniteSkipsNanAndInfinities) {
  EXPECT_EQ(oracle::max_abs_finite(f32({1, -7, kNan, kInf, -kInf, 3})), 7.0);
  EXPECT_EQ(oracle::max_abs_finite(f32({kNan, kInf})), 0.0);
  EXPECT_EQ(oracle::max_abs_finite(at::zeros({0})), 0.0);
  at::Tensor big = at::zeros({(int64_t(1) << 20) + 5}, at::kHalf);
  big[(int64_t(1) << 20) + 3] = -2.5;
  EXPECT_EQ(oracle::max_abs_finite(big), 2.5);
}
