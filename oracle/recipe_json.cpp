// The torch-free half of recipes.h: names, shapes and JSON of recipes. Kept apart from the
// generator (recipes.cpp, which needs ATen's operators) so the spec parser builds without them
// (tests/fuzz builds it with clang, which Debian's full ATen headers do not compile with).
#include <algorithm>
#include <stdexcept>

#include "oracle/recipes.h"

namespace kaudit::oracle {

using nlohmann::json;

namespace {
struct DistName {
  Distribution d;
  const char* name;
};
constexpr DistName kDistNames[] = {
    {Distribution::Uniform01, "uniform01"}, {Distribution::UniformSym, "uniform_sym"},
    {Distribution::Normal, "normal"},       {Distribution::LogUniform, "log_uniform"},
    {Distribution::Ones, "ones"},           {Distribution::Arange, "arange"},
    {Distribution::ConstantRows, "constant_rows"}, {Distribution::OneHot, "one_hot"},
    {Distribution::Alternating, "alternating"},    {Distribution::ExpOverflow, "exp_overflow"},
    {Distribution::Checker, "checker"},            {Distribution::Stored, "stored"},
};
}  // namespace

const char* distribution_name(Distribution d) {
  for (const auto& e : kDistNames)
    if (e.d == d) return e.name;
  return "?";
}

Distribution parse_distribution(std::string_view name) {
  for (const auto& e : kDistNames)
    if (name == e.name) return e.d;
  std::string known;
  for (const auto& e : kDistNames) known += (known.empty() ? "" : ", ") + std::string(e.name);
  throw std::invalid_argument("unknown distribution '" + std::string(name) + "' (known: " + known +
                              ")");
}

corpus::Assignment dims_for(const corpus::Task& task, const Recipe& recipe) {
  if (recipe.shape) return corpus::resolve(task, *recipe.shape);
  if (recipe.preset.rfind("odd:", 0) == 0) {  // the task's i-th odd shape (oracle specs use these)
    const std::string idx = recipe.preset.substr(4);
    std::size_t i = 0;
    try {
      i = std::stoul(idx);
    } catch (const std::exception&) {
      throw std::invalid_argument("recipe preset '" + recipe.preset + "': expected odd:<index>");
    }
    if (i >= task.odd_shapes.size())
      throw std::invalid_argument("recipe preset '" + recipe.preset + "': task '" + task.name + "' has only " +
                                  std::to_string(task.odd_shapes.size()) + " odd shapes");
    return corpus::resolve(task, task.odd_shapes[i]);
  }
  return corpus::resolve(task, recipe.preset);
}

// ---------------------------------------------------------------------------------------------
// JSON

void to_json(json& j, const Recipe& r) {
  j = json{{"name", r.name},     {"distribution", distribution_name(r.distribution)},
           {"scale", r.scale},   {"shift", r.shift},
           {"negate", r.negate}, {"abs", r.abs},
           {"seed", r.seed}};
  if (r.shape)
    j["shape"] = *r.shape;
  else
    j["preset"] = r.preset;
  if (!r.digest.empty()) j["digest"] = r.digest;
}

void from_json(const json& j, Recipe& r) {
  if (!j.is_object()) throw std::invalid_argument("a recipe must be a JSON object");
  static const char* known[] = {"name", "distribution", "scale", "shift", "negate",
                                "abs",  "seed",         "shape", "preset", "digest"};
  for (const auto& [k, v] : j.items())
    if (std::find_if(std::begin(known), std::end(known), [&](const char* n) { return k == n; }) ==
        std::end(known))
      throw std::invalid_argument("unknown recipe field '" + k +
                                  "' (known: name, distribution, scale, shift, negate, abs, "
                                  "seed, shape, preset, digest)");
  Recipe out;
  try {
    if (j.contains("name")) out.name = j.at("name").get<std::string>();
    if (j.contains("distribution"))
      out.distribution = parse_distribution(j.at("distribution").get<std::string>());
    if (j.contains("scale")) out.scale = j.at("scale").get<double>();
    if (j.contains("shift")) out.shift = j.at("shift").get<double>();
    if (j.contains("negate")) out.negate = j.at("negate").get<bool>();
    if (j.contains("abs")) out.abs = j.at("abs").get<bool>();
    if (j.contains("seed")) {
      if (!j.at("seed").is_number_integer() ||
          (j.at("seed").is_number_integer() && !j.at("seed").is_number_unsigned() &&
           j.at("seed").get<int64_t>() < 0))
        throw std::invalid_argument("recipe seed must be a non-negative integer");
      out.seed = j.at("seed").get<uint64_t>();
    }
    if (j.contains("shape")) out.shape = j.at("shape").get<corpus::Assignment>();
    if (j.contains("preset")) out.preset = j.at("preset").get<std::string>();
    if (j.contains("digest")) out.digest = j.at("digest").get<std::string>();
  } catch (const json::exception& e) {
    throw std::invalid_argument(std::string("bad recipe: ") + e.what());
  }
  if ((out.distribution == Distribution::Stored) != !out.digest.empty())
    throw std::invalid_argument("a \"stored\" recipe needs its \"digest\", and only it has one");
  if (j.contains("shape") && j.contains("preset"))
    throw std::invalid_argument("a recipe has either \"shape\" or \"preset\", not both");
  r = std::move(out);
}

}  // namespace kaudit::oracle
