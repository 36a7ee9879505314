#include "recipes.h"

#include <map>
#include <mutex>

#include "common/sha256.h"
#include "oracle/host_loop.h"
#include "oracle/npy.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <cmath>
#include <type_traits>
#include <stdexcept>

namespace kaudit::oracle {

using nlohmann::json;

namespace {
constexpr double kPositiveFloor = 1e-3;
constexpr double kProbabilityEps = 1e-6;
constexpr double kTwoPi = 6.283185307179586476925286766559;
constexpr int64_t kGrain = 1 << 15;  // elements per parallel chunk; results do not depend on it

}  // namespace



// ---------------------------------------------------------------------------------------------
// Generator

namespace rng {
uint64_t splitmix64(uint64_t x) {
  uint64_t z = x + 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

uint64_t bits(uint64_t seed, uint64_t stream, uint64_t counter) {
  return splitmix64(splitmix64(splitmix64(seed) ^ stream) ^ counter);
}

double uniform01(uint64_t seed, uint64_t stream, uint64_t counter) {
  return static_cast<double>(bits(seed, stream, counter) >> 11) * 0x1.0p-53;
}

double normal(uint64_t seed, uint64_t stream, uint64_t index) {
  double u1 = uniform01(seed, stream, 2 * index);
  double u2 = uniform01(seed, stream, 2 * index + 1);
  return std::sqrt(-2.0 * std::log(1.0 - u1)) * std::cos(kTwoPi * u2);
}
}  // namespace rng

namespace {

// `row`: the input's last dim (the row length of the structured patterns), at least 1.
double base_value(Distribution d, uint64_t seed, uint64_t stream, uint64_t k, uint64_t row) {
  switch (d) {
    case Distribution::ConstantRows:
      return rng::normal(seed, stream, k / row);
    case Distribution::OneHot: {
      const auto hot = static_cast<uint64_t>(rng::uniform01(seed, stream, k / row) * static_cast<double>(row));
      return k % row == std::min<uint64_t>(row - 1, hot) ? 1.0 : 0.0;
    }
    case Distribution::Alternating:
      return (k % 2 == 0 ? 1.0 : -1.0) * (0.5 + rng::uniform01(seed, stream, k));
    case Distribution::ExpOverflow:
      return 89.0 + 10.0 * rng::uniform01(seed, stream, k);
    case Distribution::Uniform01:
      return rng::uniform01(seed, stream, k);
    case Distribution::UniformSym:
      return 2.0 * rng::uniform01(seed, stream, k) - 1.0;
    case Distribution::Normal:
      return rng::normal(seed, stream, k);
    case Distribution::LogUniform: {
      double mag = std::pow(10.0, 6.0 * rng::uniform01(seed, stream, 2 * k) - 3.0);
      return rng::uniform01(seed, stream, 2 * k + 1) < 0.5 ? -mag : mag;
    }
    case Distribution::Ones:
      return 1.0;
    case Distribution::Arange:
      return static_cast<double>(k);
    case Distribution::Checker:
    case Distribution::Stored:
      throw std::invalid_argument(std::string("a \"") + distribution_name(d) +
                                  "\" recipe has no formula: its tensors come from an external checker");
  }
  return 0;
}

int64_t numel_of(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  return n;
}

}  // namespace

namespace {
// The values of input `index` into v[0, n) (n: the input's element count, numel_of(shape)), each
// computed in double and stored as static_cast<T> (for T = float the rounding .to(kFloat) does:
// c10's conversion is that cast). make_inputs writes a float32 input straight into the tensor it
// returns: at native shapes a vector's zero-fill, the copy out of it and a double intermediate
// were serial passes, and page faults, over hundreds of MB per input. T = float only where no
// pass reads the values back (not the Probability domain, normalised per row in double).
template <class T>
void values_into(const corpus::Task& task, const Recipe& r, size_t index, const corpus::Assignment& dims,
                 T* v) {
  const corpus::InputSpec& in = task.inputs[index];
  const std::vector<int64_t> shape = corpus::shape_of(in, dims);
  const int64_t n = numel_of(shape);
  const uint64_t stream = index;

  if (in.domain == corpus::Domain::Index) {
    auto it = dims.find(in.index_dim);
    if (it == dims.end())
      throw std::invalid_argument("input '" + in.name + "': index dim '" + in.index_dim +
                                  "' not assigned");
    const double hi = static_cast<double>(it->second);
    host_loop(0, n, kGrain, [&](int64_t b, int64_t e) {
      for (int64_t k = b; k < e; ++k)
        v[k] = static_cast<T>(std::min(std::floor(rng::uniform01(r.seed, stream, k) * hi), hi - 1));
    });
    return;
  }

  if (in.domain == corpus::Domain::Mask) {
    host_loop(0, n, kGrain, [&](int64_t b, int64_t e) {
      for (int64_t k = b; k < e; ++k) v[k] = static_cast<T>(rng::uniform01(r.seed, stream, k) < 0.5 ? 1 : 0);
    });
    return;
  }

  const bool positive = in.domain == corpus::Domain::Positive;
  const uint64_t row = shape.empty() || shape.back() < 1 ? 1 : static_cast<uint64_t>(shape.back());
  host_loop(0, n, kGrain, [&](int64_t b, int64_t e) {
    for (int64_t k = b; k < e; ++k) {
      double x = base_value(r.distribution, r.seed, stream, static_cast<uint64_t>(k), row);
      if (r.abs) x = std::fabs(x);
      x = x * r.scale + r.shift;
      if (r.negate) x = -x;
      if (positive) x = std::fabs(x) + kPositiveFloor;
      v[k] = static_cast<T>(x);
    }
  });

  // Structured matrices: each trailing [rows, cols] matrix, values as drawn above, then mirrored
  // (the lower triangle takes the upper's) or zeroed on one side of the diagonal. A row writes
  // only its own lower or upper part and reads only the upper one: rows run side by side.
  if (in.domain == corpus::Domain::Symmetric || in.domain == corpus::Domain::LowerTriangular ||
      in.domain == corpus::Domain::UpperTriangular) {
    const int64_t rows = shape.at(shape.size() - 2), cols = shape.back();
    const corpus::Domain d = in.domain;
    host_loop(0, rows > 0 && cols > 0 ? n / cols : 0, std::max<int64_t>(1, kGrain / std::max<int64_t>(cols, 1)),
                     [&](int64_t b, int64_t e) {
      for (int64_t r = b; r < e; ++r) {
        const int64_t i = r % rows;
        T* row = v + r * cols;
        const T* matrix = v + (r - i) * cols;
        for (int64_t j = 0; j < cols; ++j) {
          if (d == corpus::Domain::Symmetric && j < i) row[j] = matrix[j * cols + i];
          if (d == corpus::Domain::LowerTriangular && j > i) row[j] = T(0);
          if (d == corpus::Domain::UpperTriangular && j < i) row[j] = T(0);
        }
      }
    });
  }

  if (in.domain == corpus::Domain::Probability && !shape.empty() && shape.back() > 0) {
    if constexpr (!std::is_same_v<T, double>) {
      throw std::logic_error("values_into: probabilities are normalised in double");
    } else {
      const int64_t row = shape.back();
      host_loop(0, n / row, std::max<int64_t>(1, kGrain / row), [&](int64_t b, int64_t e) {
        for (int64_t i = b; i < e; ++i) {
          double* p = v + i * row;
          double mx = *std::max_element(p, p + row);
          double sum = 0;
          for (int64_t j = 0; j < row; ++j) sum += (p[j] = std::exp(p[j] - mx));
          const double denom = 1.0 + static_cast<double>(row) * kProbabilityEps;
          for (int64_t j = 0; j < row; ++j) p[j] = (p[j] / sum + kProbabilityEps) / denom;
        }
      });
    }
  }
}
}  // namespace

std::vector<double> make_values(const corpus::Task& task, const Recipe& r, size_t index,
                                const corpus::Assignment& dims) {
  if (index >= task.inputs.size())
    throw std::out_of_range("task '" + task.name + "' has no input #" + std::to_string(index));
  std::vector<double> v(static_cast<size_t>(numel_of(corpus::shape_of(task.inputs[index], dims))));
  values_into(task, r, index, dims, v.data());
  return v;
}

at::ScalarType scalar_type_of(const std::string& dtype) {
  if (dtype == "float32") return at::kFloat;
  if (dtype == "float16") return at::kHalf;
  if (dtype == "bfloat16") return at::kBFloat16;
  if (dtype == "int64") return at::kLong;
  if (dtype == "bool") return at::kBool;
  throw std::invalid_argument("unknown dtype '" + dtype + "'");
}


namespace {
std::mutex stored_mu;
std::map<std::string, std::vector<at::Tensor>> stored;  // by digest
std::filesystem::path stored_dir;
}  // namespace

void set_stored_inputs_dir(const std::filesystem::path& dir) {
  std::lock_guard lock(stored_mu);
  stored_dir = dir;
}

std::string store_inputs(const std::vector<at::Tensor>& tensors) {
  std::vector<std::string> files;
  std::string all;
  for (const auto& t : tensors) {
    files.push_back(npy_bytes(t));
    all += sha256_hex(files.back());
  }
  const std::string digest = sha256_hex(all);
  std::lock_guard lock(stored_mu);
  std::vector<at::Tensor> copies;
  for (const auto& t : tensors) copies.push_back(t.to(at::kCPU).contiguous().clone());
  stored[digest] = std::move(copies);
  if (!stored_dir.empty()) {
    std::filesystem::create_directories(stored_dir);
    for (std::size_t i = 0; i < tensors.size(); ++i) {
      const auto path = stored_dir / (digest + "-" + std::to_string(i) + ".npy");
      if (!std::filesystem::exists(path)) write_npy(path, tensors[i]);
    }
  }
  return digest;
}

std::vector<at::Tensor> stored_inputs(const std::string& digest, std::size_t count) {
  std::lock_guard lock(stored_mu);
  auto it = stored.find(digest);
  if (it == stored.end() && !stored_dir.empty()) {
    std::vector<at::Tensor> loaded;
    for (std::size_t i = 0; i < count; ++i) {
      const auto path = stored_dir / (digest + "-" + std::to_string(i) + ".npy");
      if (!std::filesystem::exists(path)) break;
      loaded.push_back(read_npy(path));
    }
    if (loaded.size() == count) it = stored.emplace(digest, std::move(loaded)).first;
  }
  if (it == stored.end())
    throw std::invalid_argument("no stored inputs with digest " + digest +
                                " (they are written by an external checker's \"inputs\" request: run the command "
                                "with that spec again, with the same cache)");
  std::vector<at::Tensor> out;
  for (const auto& t : it->second) out.push_back(t.clone());
  return out;
}

std::vector<at::Tensor> make_inputs(const corpus::Task& task, const Recipe& recipe,
                                    const corpus::Assignment& dims) {
  if (recipe.distribution == Distribution::Stored) return stored_inputs(recipe.digest, task.inputs.size());
  if (recipe.distribution == Distribution::Checker)
    throw std::invalid_argument("trial '" + recipe.name + "' takes its inputs from an external checker, which was not asked for them");
  std::vector<at::Tensor> out;
  out.reserve(task.inputs.size());
  for (size_t i = 0; i < task.inputs.size(); ++i) {
    const auto& in = task.inputs[i];
    const std::vector<int64_t> shape = corpus::shape_of(in, dims);
    if (in.dtype == "float32" && in.domain != corpus::Domain::Probability) {
      at::Tensor t = at::empty(shape, at::TensorOptions().dtype(at::kFloat));
      values_into(task, recipe, i, dims, t.data_ptr<float>());
      out.push_back(std::move(t));
      continue;
    }
    at::Tensor values = at::empty(shape, at::TensorOptions().dtype(at::kDouble));
    values_into(task, recipe, i, dims, values.data_ptr<double>());
    const at::ScalarType st = scalar_type_of(in.dtype);
    at::Tensor t;
    if (st == at::kLong) {
      t = at::empty(shape, at::TensorOptions().dtype(at::kLong));
      int64_t* p = t.data_ptr<int64_t>();
      const double* v = values.data_ptr<double>();
      for (int64_t k = 0; k < t.numel(); ++k) p[k] = static_cast<int64_t>(v[k]);
    } else {
      // One rounding to nearest even for float16 (libtorch converts double to half directly);
      // bfloat16 goes through float (c10::BFloat16 is built from a float), so a double exactly
      // between two bfloat16 values after a float rounding can round twice. Both backends use
      // these host-made tensors, so the inputs stay bit-identical.
      t = values.to(st);
    }
    out.push_back(std::move(t));
  }
  return out;
}

std::vector<at::Tensor> make_inputs(const corpus::Task& task, const Recipe& recipe) {
  return make_inputs(task, recipe, dims_for(task, recipe));
}

namespace {
// Appends a recipe with defaults but for its name, distribution, fixed seed and preset.
Recipe& append_recipe(std::vector<Recipe>& out, std::string name, Distribution d, uint64_t seed,
                      const std::string& preset) {
  Recipe r;
  r.name = std::move(name);
  r.distribution = d;
  r.seed = seed;
  r.preset = preset;
  out.push_back(std::move(r));
  return out.back();
}
}  // namespace

std::vector<Recipe> gate_recipes(const corpus::Task& task, const std::string& preset) {
  // Seeds are fixed constants: the gate must judge a kernel identically on every run.
  std::vector<Recipe> out;
  auto add = [&](std::string name, Distribution d, uint64_t seed) -> Recipe& {
    return append_recipe(out, std::move(name), d, seed, preset);
  };
  add("gate-uniform01", Distribution::Uniform01, 0x6761746501ull);  // what KernelBench draws
  add("gate-normal", Distribution::Normal, 0x6761746502ull);
  {
    Recipe& r = add("gate-negative", Distribution::Uniform01, 0x6761746503ull);  // -(u + 0.1)
    r.shift = 0.1;
    r.negate = true;
  }
  add("gate-large", Distribution::Normal, 0x6761746504ull).scale = 1000;
  add("gate-tiny", Distribution::Normal, 0x6761746505ull).scale = 0.01;
  for (size_t i = 0; i < task.odd_shapes.size(); ++i) {
    Recipe& r = add("gate-odd-" + std::to_string(i), Distribution::Normal, 0x6761746600ull + i);
    r.shape = task.odd_shapes[i];
  }
  return out;
}

std::vector<Recipe> pattern_recipes(const std::string& preset) {
  std::vector<Recipe> out;
  auto add = [&](std::string name, Distribution d, uint64_t seed) -> Recipe& {
    return append_recipe(out, std::move(name), d, seed, preset);
  };
  add("pattern-constant-rows", Distribution::ConstantRows, 0x7061747401ull);
  add("pattern-one-hot", Distribution::OneHot, 0x7061747402ull);
  add("pattern-alternating", Distribution::Alternating, 0x7061747403ull);
  add("pattern-exp-overflow", Distribution::ExpOverflow, 0x7061747404ull);
  {
    // -(1.2 (89 + 10 u)) in [-119, -106.8): below log of the smallest float32 denormal (-103.3),
    // so every expf is exactly 0 without max subtraction (plain negation would give denormals).
    Recipe& r = add("pattern-exp-underflow", Distribution::ExpOverflow, 0x7061747405ull);
    r.scale = 1.2;
    r.negate = true;
  }
  return out;
}


}  // namespace kaudit::oracle
