// kaudit::oracle -- input recipes: deterministic, portable input generation.
//
// A recipe (distribution + transforms + shape + seed) must give the same tensor on every machine,
// backend and, later, in other languages (a suite exported as KernelBench hidden tests is
// regenerated in Python). torch's RNG is neither specified nor stable across versions, so it is
// not used. Instead every element is a pure function of (seed, input index, element index):
//
//   splitmix64(x):  z = x + 0x9E3779B97F4A7C15
//                   z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
//                   z = (z ^ (z >> 27)) * 0x94D049BB133111EB
//                   return z ^ (z >> 31)                         (all mod 2^64)
//   bits(seed, stream, counter) = splitmix64(splitmix64(splitmix64(seed) ^ stream) ^ counter)
//   uniform(seed, stream, counter) = (bits >> 11) * 2^-53          in [0, 1)
//
// with stream = the input's position in Model.forward and element k (row-major flat index):
//   Uniform01   u(k)                                   counter k
//   UniformSym  2 u(k) - 1                             counter k            in [-1, 1)
//   Normal      sqrt(-2 ln(1 - u(2k))) cos(2 pi u(2k+1))   (Box-Muller, cosine branch only)
//   LogUniform  s * 10^(6 u(2k) - 3), s = -1 if u(2k+1) < 0.5 else +1   (six decades, both signs)
//   Ones        1
//   Arange      k
// and the structured patterns, with r = k / L the row and L the input's last dim:
//   ConstantRows  normal(r) for the whole row          counters 2r, 2r+1 (Box-Muller)
//   OneHot        1 at column floor(u(r) L) of each row, 0 elsewhere       counter r
//   Alternating   (-1)^k (0.5 + u(k))                  neighbours cancel: summation order shows
//   ExpOverflow   89 + 10 u(k)                         exp overflows float32 (above 88.72) unless
//                                                      the row max is subtracted first
// then the transforms, in this order: abs (if set), x * scale + shift, negate (if set); then the
// input's domain (corpus::Domain):
//   Real         unchanged
//   Positive     |x| + 1e-3                      (so negated or large recipes stay legal)
//   Probability  softmax over the last dim, then (p + 1e-6) / (1 + n 1e-6)   (strictly positive)
//   Index:D      floor(u(k) * D)                 (the distribution is ignored)
//   Mask         u(k) < 0.5                      (bool; the distribution is ignored)
//   Symmetric    per trailing [n, n] matrix, element (i, j) with j < i takes (j, i)'s value
//   LowerTriangular, UpperTriangular   elements with j > i (lower), or j < i (upper), are 0
// Values are computed in double and cast once to the input's dtype (round to nearest even).
// Box-Muller uses libm's log and cos: other libms may differ by an ulp in double, which almost
// never survives the cast to float32 / float16.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <ATen/core/Tensor.h>
#include <nlohmann/json.hpp>

#include "corpus/corpus.h"

namespace kaudit::oracle {

enum class Distribution {
  Uniform01, UniformSym, Normal, LogUniform, Ones, Arange,
  ConstantRows, OneHot, Alternating, ExpOverflow,
  // Tensors not generated here: "checker" (an external spec's trial whose inputs its checker
  // writes, oracle/external.h; resolved before use into) "stored" (tensors registered under the
  // SHA-256 `digest` of their .npy bytes by store_inputs, kept in memory and in the cache).
  Checker, Stored
};

// "uniform01", "uniform_sym", "normal", "log_uniform", "ones", "arange", "constant_rows", "one_hot",
// "alternating", "exp_overflow"
const char* distribution_name(Distribution d);
// Throws std::invalid_argument for an unknown name.
Distribution parse_distribution(std::string_view name);

struct Recipe {
  std::string name;
  Distribution distribution = Distribution::Normal;
  double scale = 1;
  double shift = 0;
  bool negate = false;
  bool abs = false;
  uint64_t seed = 0;
  // An explicit dim assignment; when absent the named preset of the task is used, or with
  // "odd:<i>" the task's i-th odd shape (task.json "odd_shapes").
  std::optional<corpus::Assignment> shape;
  std::string preset = "small";
  std::string digest;  // Stored: which registered tensors
};

// JSON form: {"name", "distribution", "scale", "shift", "negate", "abs", "seed",
// "shape": {...} | "preset": "..."}; absent fields take the defaults above. from_json throws
// std::invalid_argument on unknown fields or bad values.
void to_json(nlohmann::json& j, const Recipe& r);
void from_json(const nlohmann::json& j, Recipe& r);

// The generator primitives (see the formulas above), exposed for tests and other front ends.
namespace rng {
uint64_t splitmix64(uint64_t x);
uint64_t bits(uint64_t seed, uint64_t stream, uint64_t counter);
double uniform01(uint64_t seed, uint64_t stream, uint64_t counter);
double normal(uint64_t seed, uint64_t stream, uint64_t index);  // uses counters 2i and 2i+1
}  // namespace rng

// The dims a recipe runs at: its explicit shape (checked with corpus::resolve) or its preset.
corpus::Assignment dims_for(const corpus::Task& task, const Recipe& recipe);

// One tensor per task input, in order, with the input's dtype and shape under `dims`.
std::vector<at::Tensor> make_inputs(const corpus::Task& task, const Recipe& recipe,
                                    const corpus::Assignment& dims);
// Same, at dims_for(task, recipe).
std::vector<at::Tensor> make_inputs(const corpus::Task& task, const Recipe& recipe);

// The values of input `index` in double, before the dtype cast (for Index inputs: the integers).
std::vector<double> make_values(const corpus::Task& task, const Recipe& recipe, size_t index,
                                const corpus::Assignment& dims);

// The verification gate's recipes for a task: uniform [0,1), normal, negative (-(u + 0.1)),
// large magnitude (normal x 1000), small magnitude (normal x 0.01), all on `preset`, then
// normal on each odd shape. Each has its own fixed seed; the list is the same on every run.
// Tensors a "stored" recipe stands for: registered in this process (and, when a folder is set,
// written there as .npy files so that later commands over the same cache find them).
void set_stored_inputs_dir(const std::filesystem::path& dir);
// Registers `tensors` and returns their digest (SHA-256 of their .npy bytes, in order).
std::string store_inputs(const std::vector<at::Tensor>& tensors);
// The tensors of `digest` (copies); throws std::invalid_argument naming the digest when unknown.
std::vector<at::Tensor> stored_inputs(const std::string& digest, std::size_t count);

std::vector<Recipe> gate_recipes(const corpus::Task& task, const std::string& preset = "small");

// Structured inputs every task's candidate pool holds (on `preset`, fixed seeds): constant
// rows, one-hot rows, alternating signs, exp overflow (89..99) and exp underflow (-119..-107:
// every expf is 0 without max subtraction, so a softmax divides 0 by 0).
std::vector<Recipe> pattern_recipes(const std::string& preset = "small");

// "float32" -> at::kFloat, "float16" -> at::kHalf, "bfloat16" -> at::kBFloat16, "int64" -> at::kLong,
// "bool" -> at::kBool.
at::ScalarType scalar_type_of(const std::string& dtype);

}  // namespace kaudit::oracle
