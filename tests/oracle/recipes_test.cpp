// Input recipes: bit-exact determinism, golden values from an independent (Python)
// implementation of the documented generator, distribution sanity, and domain handling.
#include <gtest/gtest.h>

#include <ATen/ATen.h>

#include <cmath>
#include <cstring>
#include <set>

#include "corpus/corpus.h"
#include "oracle/recipes.h"

namespace fs = std::filesystem;
using namespace kaudit;
using oracle::Distribution;
using oracle::Recipe;

namespace {

const fs::path kFixtures = KAUDIT_FIXTURES_DIR;

const corpus::Task& task(const std::string& name) {
  static std::map<std::string, corpus::Task> cache;
  auto it = cache.find(name);
  if (it == cache.end()) {
    std::vector<corpus::Diagnostic> diags;
    auto t = corpus::load_task(kFixtures / "corpus_good/tasks" / name, diags);
    if (!t) throw std::runtime_error("fixture task " + name + " does not load");
    it = cache.emplace(name, *t).first;
  }
  return it->second;
}

bool bit_identical(const at::Tensor& a, const at::Tensor& b) {
  if (a.scalar_type() != b.scalar_type() || a.sizes() != b.sizes()) return false;
  auto ac = a.contiguous(), bc = b.contiguous();
  return std::memcmp(ac.data_ptr(), bc.data_ptr(), ac.numel() * ac.element_size()) == 0;
}

Recipe recipe(Distribution d, uint64_t seed) {
  Recipe r;
  r.name = "t";
  r.distribution = d;
  r.seed = seed;
  return r;
}

}  // namespace

TEST(RecipeGenerator, GoldenValuesMatchTheDocumentedFormula) {
  // Computed with a 10-line Python implementation of the formulas in recipes.h.
  EXPECT_EQ(oracle::rng::splitmix64(0), 0xe220a8397b1dcdafull);  // the SplitMix64 reference value
  EXPECT_EQ(oracle::rng::bits(42, 1, 7), 0x1b1863149f1726faull);
  EXPECT_EQ(oracle::rng::uniform01(42, 0, 0), 0.3869742762400409);
  EXPECT_EQ(oracle::rng::uniform01(42, 0, 1), 0.7129353372857994);
  EXPECT_EQ(oracle::rng::uniform01(42, 0, 2), 0.8658305167106972);
  EXPECT_NEAR(oracle::rng::normal(42, 2, 0), 0.061904462156954984, 1e-15);
  EXPECT_NEAR(oracle::rng::normal(42, 2, 1), 0.4206658973033628, 1e-15);
  EXPECT_NEAR(oracle::rng::normal(42, 2, 2), 0.7098856415299999, 1e-15);
}

TEST(Recipes, SameRecipeGivesBitIdenticalTensors) {
  const auto& t = task("mixed");
  for (auto d : {Distribution::Uniform01, Distribution::Normal, Distribution::LogUniform,
                 Distribution::UniformSym}) {
    Recipe r = recipe(d, 1234);
    auto a = oracle::make_inputs(t, r);
    auto b = oracle::make_inputs(t, r);
    ASSERT_EQ(a.size(), 4u);
    for (size_t i = 0; i < a.size(); ++i)
      EXPECT_TRUE(bit_identical(a[i], b[i])) << oracle::distribution_name(d) << " input " << i;
  }
}

TEST(Recipes, DifferentSeedsAndInputsDiffer) {
  const auto& t = task("relu");
  auto a = oracle::make_inputs(t, recipe(Distribution::Normal, 1));
  auto b = oracle::make_inputs(t, recipe(Distribution::Normal, 2));
  EXPECT_FALSE(at::equal(a[0], b[0]));
  // two inputs of one task use different streams
  const auto& m = task("mixed");
  auto x = oracle::make_values(m, recipe(Distribution::Normal, 1), 0, corpus::resolve(m, "small"));
  auto h = oracle::make_values(m, recipe(Distribution::Normal, 1), 3, corpus::resolve(m, "small"));
  EXPECT_NE(x[0], h[0]);
}

TEST(Recipes, ValuesAreTheGeneratorsAtTheirCounters) {
  const auto& t = task("relu");  // x: [B, D], stream 0
  Recipe r = recipe(Distribution::Uniform01, 42);
  auto v = oracle::make_values(t, r, 0, corpus::resolve(t, "small"));
  ASSERT_EQ(v.size(), 4u * 33u);
  EXPECT_EQ(v[0], 0.3869742762400409);
  EXPECT_EQ(v[2], 0.8658305167106972);
  auto x = oracle::make_inputs(t, r)[0];
  EXPECT_EQ(x.scalar_type(), at::kFloat);
  EXPECT_EQ(x.sizes(), (std::vector<int64_t>{4, 33}));
  EXPECT_EQ(x[0][2].item<float>(), static_cast<float>(0.8658305167106972));
}

TEST(Recipes, TransformsApplyAbsScaleShiftNegateInOrder) {
  const auto& t = task("relu");
  auto dims = corpus::resolve(t, "small");
  Recipe base = recipe(Distribution::Normal, 7);
  auto v = oracle::make_values(t, base, 0, dims);
  Recipe tr = base;
  tr.abs = true;
  tr.scale = 3;
  tr.shift = 0.5;
  tr.negate = true;
  auto w = oracle::make_values(t, tr, 0, dims);
  for (size_t k = 0; k < v.size(); ++k) ASSERT_EQ(w[k], -(std::fabs(v[k]) * 3 + 0.5));
}

TEST(Recipes, NormalAndUniformStatistics) {
  const auto& t = task("mixed");  // input a: N = 131072 elements, positive; h: 2 x N, real
  auto dims = corpus::resolve(t, "small");
  auto stats = [](const std::vector<double>& v) {
    double mean = 0, sq = 0;
    for (double x : v) mean += x;
    mean /= v.size();
    for (double x : v) sq += (x - mean) * (x - mean);
    return std::make_pair(mean, std::sqrt(sq / v.size()));
  };
  auto [nm, ns] = stats(oracle::make_values(t, recipe(Distribution::Normal, 99), 3, dims));
  EXPECT_NEAR(nm, 0.0, 0.01);  // standard error ~0.002
  EXPECT_NEAR(ns, 1.0, 0.01);
  auto u = oracle::make_values(t, recipe(Distribution::Uniform01, 99), 3, dims);
  auto [um, us] = stats(u);
  EXPECT_NEAR(um, 0.5, 0.01);
  EXPECT_NEAR(us, std::sqrt(1.0 / 12), 0.01);
  for (double x : u) ASSERT_TRUE(x >= 0 && x < 1);
  auto s = oracle::make_values(t, recipe(Distribution::UniformSym, 99), 3, dims);
  for (double x : s) ASSERT_TRUE(x >= -1 && x < 1);
  auto l = oracle::make_values(t, recipe(Distribution::LogUniform, 99), 3, dims);
  size_t neg = 0;
  for (double x : l) {
    ASSERT_GE(std::fabs(x), 1e-3);
    ASSERT_LE(std::fabs(x), 1e3);
    neg += x < 0;
  }
  EXPECT_NEAR(double(neg) / l.size(), 0.5, 0.01);
  auto ar = oracle::make_values(t, recipe(Distribution::Arange, 0), 3, dims);
  EXPECT_EQ(ar[5], 5.0);
}

TEST(Recipes, DomainsAreHonouredEvenByHostileRecipes) {
  const auto& t = task("mixed");
  std::vector<Recipe> hostile = oracle::gate_recipes(t);
  Recipe neg_large = recipe(Distribution::Normal, 5);
  neg_large.scale = 1e4;
  neg_large.negate = true;
  hostile.push_back(neg_large);
  for (const auto& r : hostile) {
    auto in = oracle::make_inputs(t, r);
    auto dims = oracle::dims_for(t, r);
    ASSERT_EQ(in.size(), 4u);
    // positive
    EXPECT_EQ(in[0].scalar_type(), at::kFloat);
    EXPECT_GT(in[0].min().item<float>(), 0.f) << r.name;
    // probability: rows positive, summing to one
    EXPECT_EQ(in[1].sizes(), (std::vector<int64_t>{dims.at("B"), dims.at("D")}));
    EXPECT_GT(in[1].min().item<float>(), 0.f) << r.name;
    auto sums = in[1].to(at::kDouble).sum(-1);
    EXPECT_LT((sums - 1).abs().max().item<double>(), 1e-6) << r.name;
    // index: int64 in [0, D)
    EXPECT_EQ(in[2].scalar_type(), at::kLong);
    EXPECT_GE(in[2].min().item<int64_t>(), 0) << r.name;
    EXPECT_LT(in[2].max().item<int64_t>(), dims.at("D")) << r.name;
    // float16 real input
    EXPECT_EQ(in[3].scalar_type(), at::kHalf);
    EXPECT_TRUE(at::isfinite(in[3]).all().item<bool>()) << r.name;
  }
}

// A bfloat16 input holds the double recipe values as libtorch casts them (through float: two
// roundings, see recipes.cpp), the tensors both backends receive.
TEST(Recipes, Bfloat16InputsAreTheRecipeValuesAsLibtorchCastsThem) {
  corpus::Task t = task("mixed");
  ASSERT_EQ(t.inputs[3].dtype, "float16");
  t.inputs[3].dtype = "bfloat16";
  for (const auto& r : {recipe(Distribution::Normal, 4), recipe(Distribution::Uniform01, 5)}) {
    const auto dims = oracle::dims_for(t, r);
    const auto in = oracle::make_inputs(t, r, dims);
    ASSERT_EQ(in[3].scalar_type(), at::kBFloat16);
    const auto values = oracle::make_values(t, r, 3, dims);
    const at::Tensor want = at::tensor(values, at::kDouble).to(at::kFloat).to(at::kBFloat16).reshape(in[3].sizes());
    EXPECT_TRUE(bit_identical(in[3], want)) << r.name;
    EXPECT_TRUE(bit_identical(in[3], oracle::make_inputs(t, r, dims)[3])) << r.name;  // deterministic
  }
  EXPECT_EQ(oracle::scalar_type_of("bfloat16"), at::kBFloat16);
  EXPECT_THROW(oracle::scalar_type_of("bf16"), std::invalid_argument);
}

TEST(Recipes, IndexValuesCoverTheRange) {
  const auto& t = task("mixed");
  corpus::Assignment dims = corpus::resolve(t, "small");
  dims["B"] = 10000;
  auto v = oracle::make_values(t, recipe(Distribution::Normal, 3), 2, dims);
  std::set<double> seen(v.begin(), v.end());
  EXPECT_EQ(seen.size(), 10u);  // D = 10 classes, all drawn
  EXPECT_EQ(*seen.begin(), 0.0);
  EXPECT_EQ(*seen.rbegin(), 9.0);
}

TEST(Recipes, ExplicitShapeOverridesPreset) {
  const auto& t = task("linear_relu");
  Recipe r = recipe(Distribution::Normal, 1);
  r.shape = corpus::Assignment{{"B", 3}, {"D_in", 7}, {"D_out", 2}};
  EXPECT_EQ(oracle::make_inputs(t, r)[0].sizes(), (std::vector<int64_t>{3, 7}));
  r.shape = corpus::Assignment{{"B", 3}, {"D_in", 7}, {"D_out", 3}};  // D_out multiple_of 2
  EXPECT_THROW(oracle::make_inputs(t, r), std::invalid_argument);
  r.shape.reset();
  r.preset = "kernelbench";
  EXPECT_EQ(oracle::dims_for(t, r).at("B"), 128);
  r.preset = "nope";
  EXPECT_THROW(oracle::dims_for(t, r), std::invalid_argument);
}

TEST(Recipes, GateRecipes) {
  const auto& t = task("linear_relu");
  auto rs = oracle::gate_recipes(t);
  ASSERT_GE(rs.size(), 6u);
  std::set<uint64_t> seeds;
  std::set<std::string> names;
  int odd = 0;
  bool uniform = false, normal = false, negative = false, large = false;
  for (const auto& r : rs) {
    seeds.insert(r.seed);
    names.insert(r.name);
    if (r.shape) {
      EXPECT_EQ(*r.shape, t.odd_shapes.at(odd));
      ++odd;
    } else {
      EXPECT_EQ(r.preset, "small");
    }
    uniform |= r.distribution == Distribution::Uniform01 && !r.negate;
    normal |= r.distribution == Distribution::Normal && r.scale == 1 && !r.shape;
    negative |= r.negate;
    large |= r.scale >= 1000;
  }
  EXPECT_EQ(seeds.size(), rs.size());
  EXPECT_EQ(names.size(), rs.size());
  EXPECT_EQ(odd, 2);
  EXPECT_TRUE(uniform && normal && negative && large);
  // the negative recipe really is negative on a real input
  for (const auto& r : rs)
    if (r.negate) {
      EXPECT_LT(oracle::make_inputs(t, r)[0].max().item<float>(), -0.09f);
    }
  // and the list is the same every time
  auto again = oracle::gate_recipes(t);
  ASSERT_EQ(again.size(), rs.size());
  for (size_t i = 0; i < rs.size(); ++i) EXPECT_EQ(again[i].seed, rs[i].seed);
}

TEST(Recipes, JsonRoundTrip) {
  Recipe r = recipe(Distribution::LogUniform, 0xFFFFFFFFFFFFFFFFull);
  r.name = "x";
  r.scale = 0.01;
  r.shift = -2;
  r.negate = true;
  r.abs = true;
  r.shape = corpus::Assignment{{"B", 3}};
  nlohmann::json j = r;
  EXPECT_EQ(j.at("distribution"), "log_uniform");
  Recipe back = j.get<Recipe>();
  EXPECT_EQ(back.name, "x");
  EXPECT_EQ(back.distribution, Distribution::LogUniform);
  EXPECT_EQ(back.seed, 0xFFFFFFFFFFFFFFFFull);
  EXPECT_EQ(back.scale, 0.01);
  EXPECT_EQ(back.shift, -2);
  EXPECT_TRUE(back.negate && back.abs);
  EXPECT_EQ(back.shape, r.shape);
  EXPECT_THROW(nlohmann::json({{"distribuion", "normal"}}).get<Recipe>(), std::invalid_argument);
  EXPECT_THROW(nlohmann::json({{"distribution", "cauchy"}}).get<Recipe>(), std::invalid_argument);
  EXPECT_THROW(nlohmann::json({{"seed", -1}}).get<Recipe>(), std::invalid_argument);
  Recipe defaults = nlohmann::json::object().get<Recipe>();
  EXPECT_EQ(defaults.preset, "small");
  EXPECT_EQ(defaults.distribution, Distribution::Normal);
}

TEST(Recipes, StructuredPatternsFollowTheirDefinitions) {
  const auto& t = task("relu");  // x: [B, D] = [4, 33] on the small preset
  const auto dims = corpus::resolve(t, "small");
  const std::size_t rows = 4, cols = 33;

  // Constant rows: every element of row r is normal(seed, 0, r).
  auto c = oracle::make_values(t, recipe(Distribution::ConstantRows, 11), 0, dims);
  ASSERT_EQ(c.size(), rows * cols);
  std::set<double> row_values;
  for (std::size_t r = 0; r < rows; ++r) {
    for (std::size_t j = 0; j < cols; ++j) ASSERT_EQ(c[r * cols + j], oracle::rng::normal(11, 0, r));
    row_values.insert(c[r * cols]);
  }
  EXPECT_EQ(row_values.size(), rows);  // rows differ from each other

  // One-hot: exactly one 1 per row, at floor(u(r) * D), zeros elsewhere.
  auto h = oracle::make_values(t, recipe(Distribution::OneHot, 12), 0, dims);
  for (std::size_t r = 0; r < rows; ++r) {
    const auto hot = static_cast<std::size_t>(oracle::rng::uniform01(12, 0, r) * cols);
    for (std::size_t j = 0; j < cols; ++j) ASSERT_EQ(h[r * cols + j], j == hot ? 1.0 : 0.0) << r << "," << j;
  }

  // Alternating: signs alternate along the flat index, magnitudes in [0.5, 1.5).
  auto a = oracle::make_values(t, recipe(Distribution::Alternating, 13), 0, dims);
  for (std::size_t k = 0; k < a.size(); ++k) {
    ASSERT_EQ(a[k] > 0, k % 2 == 0) << k;
    ASSERT_GE(std::fabs(a[k]), 0.5);
    ASSERT_LT(std::fabs(a[k]), 1.5);
  }

  // Exp overflow: every value overflows expf (above log(FLT_MAX) = 88.72), and stays finite
  // after the float32 cast; scaled by 1.2 and negated (the pattern-exp-underflow recipe), every
  // exp underflows to exactly zero.
  auto x = oracle::make_inputs(t, recipe(Distribution::ExpOverflow, 14))[0];
  EXPECT_GT(x.min().item<float>(), 88.8f);
  EXPECT_LT(x.max().item<float>(), 99.0f);
  EXPECT_TRUE(at::isinf(at::exp(x)).all().item<bool>());
  Recipe under = recipe(Distribution::ExpOverflow, 14);
  under.scale = 1.2;
  under.negate = true;
  EXPECT_TRUE((at::exp(oracle::make_inputs(t, under)[0]) == 0).all().item<bool>());
}

TEST(Recipes, PatternRecipesAreNamedSeededAndParse) {
  const auto patterns = oracle::pattern_recipes();
  std::set<std::string> names;
  std::set<uint64_t> seeds;
  for (const auto& r : patterns) {
    names.insert(r.name);
    seeds.insert(r.seed);
    nlohmann::json j = r;
    Recipe back;
    oracle::from_json(j, back);
    EXPECT_EQ(nlohmann::json(back), j);  // the JSON form names the distribution and round-trips
  }
  EXPECT_EQ(names.size(), patterns.size());
  EXPECT_EQ(seeds.size(), patterns.size());
  for (const char* n : {"pattern-constant-rows", "pattern-one-hot", "pattern-alternating",
                        "pattern-exp-overflow", "pattern-exp-underflow"})
    EXPECT_TRUE(names.count(n)) << n;
  const auto& t = task("relu");
  for (const auto& r : patterns) {
    if (r.name == "pattern-exp-underflow") {
      EXPECT_TRUE((at::exp(oracle::make_inputs(t, r)[0]) == 0).all().item<bool>());
    }
  }
  EXPECT_EQ(oracle::parse_distribution("one_hot"), Distribution::OneHot);
}

// make_inputs writes a float32 input straight from the generator (no double intermediate): it
// must equal the double values rounded once by ATen, bit for bit, for every distribution, with the
// transforms on, over more elements than one parallel chunk.
TEST(Recipes, AFloatInputIsTheDoubleValuesRoundedOnce) {
  const auto& t = task("relu");
  const corpus::Assignment dims = {{"B", 70}, {"D", 1000}};
  for (Distribution d : {Distribution::Normal, Distribution::Uniform01, Distribution::UniformSym, Distribution::LogUniform,
                         Distribution::Alternating, Distribution::ConstantRows, Distribution::OneHot,
                         Distribution::ExpOverflow, Distribution::Arange, Distribution::Ones}) {
    Recipe r = recipe(d, 9);
    r.scale = 3.7;
    r.shift = -0.3;
    r.negate = true;
    const std::vector<double> v = oracle::make_values(t, r, 0, dims);
    const at::Tensor want = at::tensor(v, at::kDouble).reshape({70, 1000}).to(at::kFloat);
    const at::Tensor got = oracle::make_inputs(t, r, dims)[0];
    EXPECT_TRUE(bit_identical(got, want)) << "distribution " << static_cast<int>(d);
  }
}

// Symmetric, lower- and upper-triangular inputs stay so under every recipe, hostile ones included
// (the patterns write by element index; the structure is applied after them), in float16 too; a
// mask is bool and half true.
TEST(Recipes, StructuredMatricesAndMasksKeepTheirDomainUnderEveryRecipe) {
  const auto& t = task("structured");
  std::vector<Recipe> recipes = oracle::gate_recipes(t);
  for (const auto& r : oracle::pattern_recipes()) recipes.push_back(r);
  Recipe hostile = recipe(Distribution::Normal, 5);
  hostile.scale = 1e4;
  hostile.negate = true;
  recipes.push_back(hostile);
  for (const auto& r : recipes) {
    const auto in = oracle::make_inputs(t, r);
    ASSERT_EQ(in.size(), 4u);
    EXPECT_TRUE(bit_identical(in[0], in[0].transpose(-1, -2).contiguous())) << r.name;
    // The mask: bool, about half true whatever the recipe (the distribution is ignored).
    EXPECT_EQ(in[3].scalar_type(), at::kBool);
    if (in[3].numel() >= 1000) {
      const double kept = in[3].to(at::kDouble).mean().item<double>();
      EXPECT_GT(kept, 0.45) << r.name;
      EXPECT_LT(kept, 0.55) << r.name;
    }
    EXPECT_TRUE(bit_identical(in[1], at::tril(in[1]))) << r.name;
    EXPECT_EQ(in[2].scalar_type(), at::kHalf);
    EXPECT_TRUE(bit_identical(in[2], at::triu(in[2]))) << r.name;
    // The kept part is the generator's: off the diagonal, not all zero (but for 1x1 and constant inputs).
    if (in[1].size(0) > 2 && r.distribution == Distribution::Normal) {
      EXPECT_GT(at::tril(in[1], -1).abs().sum().item<double>(), 0.0) << r.name;
    }
  }
  // The upper triangle of a symmetric matrix is what a real input of that shape would hold.
  const corpus::Assignment dims = oracle::dims_for(t, recipe(Distribution::Normal, 9));
  const auto v = oracle::make_values(t, recipe(Distribution::Normal, 9), 0, dims);
  const int64_t n = dims.at("N");
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = i; j < n; ++j) {
      EXPECT_EQ(v[i * n + j], v[j * n + i]);
      EXPECT_EQ(v[i * n + j], oracle::rng::normal(9, 0, static_cast<uint64_t>(i * n + j)));
      if (::testing::Test::HasFailure()) return;
    }
}
