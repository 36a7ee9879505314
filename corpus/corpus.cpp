// The corpus loader. Validation is strict (unknown fields are errors, every dim must be declared)
// because a typo in task.json would otherwise silently change what the auditor runs; and it is
// forgiving in scope (one bad file costs only that task or kernel) because the corpus is edited
// by many hands at once.

#include "corpus.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>

#include "json_locator.h"
#include "common/files.h"

namespace kaudit::corpus {

namespace fs = std::filesystem;
using detail::JsonLocator;
using nlohmann::json;

// ---------------------------------------------------------------------------------------------
// Small helpers

namespace {

std::string join(const std::vector<std::string>& items, const char* sep = ", ") {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) {
    if (i) out += sep;
    out += items[i];
  }
  return out;
}

template <class Map>
std::vector<std::string> keys_of(const Map& m) {
  std::vector<std::string> out;
  for (const auto& [k, v] : m) out.push_back(k);
  return out;
}

size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j)
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] != b[j - 1])});
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

// "did you mean 'x'?" for near misses (at most 2 edits, and less than half the word).
std::string suggestion(const std::string& word, const std::vector<std::string>& known) {
  std::string best;
  size_t best_d = 3;
  for (const auto& k : known) {
    size_t d = edit_distance(word, k);
    if (d < best_d && d * 2 < std::max(word.size(), k.size())) best = k, best_d = d;
  }
  return best.empty() ? std::string() : "did you mean '" + best + "'? ";
}

bool is_identifier(const std::string& s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

// Whether `name` occurs in `text` as a whole word followed by optional white space and '(' (a
// call or a definition). A scan, not std::regex: libstdc++'s regex recurses per character, and a
// long name or run of white space overflowed the stack (issue 21).
bool calls_name(std::string_view text, std::string_view name) {
  const auto ident = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  for (std::size_t at = text.find(name); at != std::string_view::npos; at = text.find(name, at + 1)) {
    if (at > 0 && ident(text[at - 1])) continue;
    std::size_t after = at + name.size();
    while (after < text.size() && std::isspace(static_cast<unsigned char>(text[after]))) ++after;
    if (after < text.size() && text[after] == '(') return true;
  }
  return false;
}


const char* json_type(const json& j) {
  if (j.is_number_integer()) return "an integer";
  if (j.is_number()) return "a real number";
  if (j.is_string()) return "a string";
  if (j.is_boolean()) return "a boolean";
  if (j.is_null()) return "null";
  if (j.is_array()) return "an array";
  return "an object";
}

// Range check shared by the loader and resolve(). Empty when legal.
std::string check_dim_value(const Dim& d, int64_t v) {
  std::ostringstream os;
  if (v < d.min)
    os << d.name << " = " << v << " is below its min " << d.min;
  else if (d.max && v > *d.max)
    os << d.name << " = " << v << " is above its max " << *d.max;
  else if (d.multiple_of > 1 && v % d.multiple_of != 0)
    os << d.name << " = " << v << " is not a multiple of " << d.multiple_of;
  return os.str();
}

// Validation context for one JSON file: knows the file, its text positions, and where to put
// diagnostics. Every error is tied to a JSON pointer.
struct Ctx {
  fs::path file;
  std::string_view text;
  JsonLocator loc;
  std::vector<Diagnostic>& diags;
  int errors = 0;

  Ctx(fs::path f, std::string_view t, std::vector<Diagnostic>& d)
      : file(std::move(f)), text(t), loc(t), diags(d) {}

  // at_key: point at the member's key (for "unknown field", "wrong type of field X"); otherwise
  // at its value (for array elements and bad values).
  void error(const std::string& pointer, std::string message, std::string fix = {},
             bool at_key = true) {
    size_t off = at_key ? loc.key_offset(pointer) : loc.value_offset(pointer);
    auto [line, col] = line_column(text, off);
    diags.push_back({file, line, col, std::move(message), std::move(fix)});
    ++errors;
  }

  // Unknown members are errors: a misspelt optional field would otherwise be ignored silently.
  void check_fields(const json& obj, const std::string& ptr, const std::vector<std::string>& known,
                    const std::string& what) {
    for (const auto& [k, v] : obj.items()) {
      if (std::find(known.begin(), known.end(), k) != known.end()) continue;
      error(JsonLocator::child(ptr, k), "unknown field '" + k + "' in " + what,
            suggestion(k, known) + "known fields: " + join(known));
    }
  }

  // Typed member access. `required` members that are absent are reported at the object.
  const json* member(const json& obj, const std::string& ptr, const char* key, bool required,
                     const std::string& what) {
    auto it = obj.find(key);
    if (it == obj.end()) {
      if (required)
        error(ptr, what + " has no \"" + key + "\"", std::string("add the \"") + key + "\" field");
      return nullptr;
    }
    return &*it;
  }

  std::optional<std::string> string_member(const json& obj, const std::string& ptr, const char* key,
                                           bool required, const std::string& what) {
    const json* v = member(obj, ptr, key, required, what);
    if (!v) return std::nullopt;
    if (!v->is_string()) {
      error(JsonLocator::child(ptr, key),
            std::string("\"") + key + "\" must be a string, not " + json_type(*v));
      return std::nullopt;
    }
    return v->get<std::string>();
  }
};

std::string parse_error_message(const json::parse_error& e) {
  // nlohmann prefixes "[json.exception.parse_error.101] parse error at line 3, column 5: ";
  // we print our own position, so keep only the part after it.
  std::string what = e.what();
  auto colon = what.find(": ");
  if (what.rfind("[json.exception.", 0) == 0 && colon != std::string::npos)
    what = what.substr(colon + 2);
  return "invalid JSON: " + what;
}

}  // namespace

JsonFailure describe_json_failure(std::string_view text, const std::exception& e) {
  if (const auto* pe = dynamic_cast<const json::parse_error*>(&e)) {
    // e.byte is the 1-based index of the last byte read, i.e. where the parser gave up.
    return {pe->byte == 0 ? 0 : std::min<size_t>(pe->byte - 1, text.size()), parse_error_message(*pe)};
  }
  std::string what = e.what();
  // "[json.exception.out_of_range.406] number overflow parsing '1e400'": find the literal.
  size_t offset = 0;
  const size_t open = what.find('\''), close = what.rfind('\'');
  if (open != std::string::npos && close > open + 1) {
    const std::string literal = what.substr(open + 1, close - open - 1);
    const size_t at = text.find(literal);
    if (at != std::string_view::npos) offset = at;
    return {offset, "number out of range: " + literal + " does not fit in a double"};
  }
  const size_t colon = what.find("] ");
  if (what.rfind("[json.exception.", 0) == 0 && colon != std::string::npos) what = what.substr(colon + 2);
  return {offset, "invalid JSON: " + what};
}

namespace {

// Reads and parses a JSON file. On failure appends a diagnostic and returns nullopt.
std::optional<json> parse_json_file(const fs::path& file, const std::string& text,
                                    std::vector<Diagnostic>& diags) {
  try {
    return json::parse(text);
  } catch (const json::exception& e) {
    const JsonFailure f = describe_json_failure(text, e);
    auto [line, col] = line_column(text, f.offset);
    const bool number = dynamic_cast<const json::out_of_range*>(&e) != nullptr;
    diags.push_back({file, line, col, f.message,
                     number ? "write a number a double holds (at most about 1.8e308 in magnitude)"
                            : "fix the JSON syntax (common causes: a trailing comma, a missing quote or "
                              "comma, a comment; JSON allows none of these)"});
    return std::nullopt;
  }
}

// An assignment object {"B": 64, "D": 1024}: every declared dim exactly once, legal values.
std::optional<Assignment> parse_assignment(Ctx& ctx, const json& j, const std::string& ptr,
                                           const std::map<std::string, Dim>& dims,
                                           const std::string& what) {
  if (!j.is_object()) {
    ctx.error(ptr, what + " must be an object {\"<dim>\": <int>, ...}, not " + json_type(j));
    return std::nullopt;
  }
  int before = ctx.errors;
  Assignment a;
  for (const auto& [k, v] : j.items()) {
    std::string p = JsonLocator::child(ptr, k);
    auto dim = dims.find(k);
    if (dim == dims.end()) {
      ctx.error(p, "unknown dim '" + k + "' in " + what,
                suggestion(k, keys_of(dims)) + "declared dims: " + join(keys_of(dims)));
      continue;
    }
    if (!v.is_number_integer()) {
      ctx.error(p, "dim '" + k + "' in " + what + " must be an integer, not " + json_type(v));
      continue;
    }
    int64_t value = v.get<int64_t>();
    if (auto why = check_dim_value(dim->second, value); !why.empty()) {
      ctx.error(p, why + " (in " + what + ")", "use a value within the range declared in \"dims\"");
      continue;
    }
    a[k] = value;
  }
  std::vector<std::string> missing;
  for (const auto& [name, d] : dims)
    if (!j.contains(name)) missing.push_back(name);
  if (!missing.empty())
    ctx.error(ptr, what + " does not assign " + join(missing),
              "every dim must be assigned in every preset and odd shape");
  if (ctx.errors != before) return std::nullopt;
  return a;
}

void parse_dims(Ctx& ctx, const json& j, Task& t) {
  const std::string ptr = "/dims";
  if (!j.is_object() || j.empty()) {
    ctx.error(ptr, "\"dims\" must be a non-empty object {\"<name>\": {\"min\": 1}, ...}");
    return;
  }
  for (const auto& [name, spec] : j.items()) {
    std::string p = JsonLocator::child(ptr, name);
    if (!is_identifier(name)) {
      ctx.error(p, "dim name '" + name + "' is not an identifier",
                "use letters, digits and '_' (e.g. \"B\", \"D_in\")");
      continue;
    }
    if (!spec.is_object()) {
      ctx.error(p,
                "dim '" + name + "' must be an object like {\"min\": 1}, not " + json_type(spec));
      continue;
    }
    ctx.check_fields(spec, p, {"min", "max", "multiple_of"}, "dim '" + name + "'");
    Dim d;
    d.name = name;
    bool ok = true;
    auto int_field = [&](const char* key, auto setter) {
      auto it = spec.find(key);
      if (it == spec.end()) return;
      if (!it->is_number_integer()) {
        ctx.error(JsonLocator::child(p, key), std::string("\"") + key + "\" of dim '" + name +
                                                  "' must be an integer, not " + json_type(*it));
        ok = false;
        return;
      }
      setter(it->template get<int64_t>());
    };
    int_field("min", [&](int64_t v) { d.min = v; });
    int_field("max", [&](int64_t v) { d.max = v; });
    int_field("multiple_of", [&](int64_t v) { d.multiple_of = v; });
    if (!ok) continue;
    if (d.min < 1) {
      ctx.error(JsonLocator::child(p, "min"), "min of dim '" + name + "' must be >= 1",
                "sizes are positive");
      continue;
    }
    if (d.max && *d.max < d.min) {
      ctx.error(JsonLocator::child(p, "max"), "max of dim '" + name + "' is below its min");
      continue;
    }
    if (d.multiple_of < 1) {
      ctx.error(JsonLocator::child(p, "multiple_of"),
                "multiple_of of dim '" + name + "' must be >= 1");
      continue;
    }
    t.dims[name] = d;
  }
}

void parse_inputs(Ctx& ctx, const json& j, Task& t, const std::set<std::string>& bad_dims) {
  const std::string ptr = "/inputs";
  if (!j.is_array() || j.empty()) {
    ctx.error(ptr, "\"inputs\" must be a non-empty array of {name, dtype, shape, domain}",
              "list the positional arguments of Model.forward, in order");
    return;
  }
  std::set<std::string> seen;
  const std::vector<std::string> dtypes = {"float32", "float16", "bfloat16", "int64", "bool"};
  for (size_t i = 0; i < j.size(); ++i) {
    const json& e = j[i];
    std::string p = JsonLocator::child(ptr, i);
    std::string what = "input #" + std::to_string(i);
    if (!e.is_object()) {
      ctx.error(p, what + " must be an object, not " + json_type(e), {}, false);
      continue;
    }
    if (e.contains("value")) {  // a number Model.forward takes, the same on every call
      ctx.check_fields(e, p, {"name", "value"}, what);
      ForwardConstant c;
      c.position = i;
      if (auto name = ctx.string_member(e, p, "name", true, what)) {
        if (!is_identifier(*name))
          ctx.error(JsonLocator::child(p, "name"), what + ": name is not an identifier");
        else if (!seen.insert(*name).second)
          ctx.error(JsonLocator::child(p, "name"), "duplicate input name '" + *name + "'");
        c.name = *name;
      }
      const json& v = e["value"];
      if (!v.is_number() || (v.is_number_float() && !std::isfinite(v.get<double>())))
        ctx.error(JsonLocator::child(p, "value"), what + ": \"value\" must be a finite number, not " + json_type(v),
                  "a constant forward argument is a number, as get_inputs() passes it");
      else if (v.is_number_integer() && std::fabs(v.get<double>()) > 9007199254740992.0)
        ctx.error(JsonLocator::child(p, "value"), what + ": integer \"value\" beyond 2^53 (a double holds it inexactly)");
      else {
        c.integer = v.is_number_integer();
        c.value = v.get<double>();
      }
      t.constants.push_back(std::move(c));
      continue;
    }
    ctx.check_fields(e, p, {"name", "dtype", "shape", "domain"}, what);
    InputSpec in;
    auto name = ctx.string_member(e, p, "name", true, what);
    if (name) {
      what = "input '" + *name + "'";
      if (!is_identifier(*name))
        ctx.error(JsonLocator::child(p, "name"), what + ": name is not an identifier");
      else if (!seen.insert(*name).second)
        ctx.error(JsonLocator::child(p, "name"), "duplicate input name '" + *name + "'");
      in.name = *name;
    }
    if (auto dt = ctx.string_member(e, p, "dtype", true, what)) {
      if (std::find(dtypes.begin(), dtypes.end(), *dt) == dtypes.end())
        ctx.error(JsonLocator::child(p, "dtype"), what + ": unknown dtype '" + *dt + "'",
                  suggestion(*dt, dtypes) + "known dtypes: " + join(dtypes));
      in.dtype = *dt;
    }
    if (const json* shape = ctx.member(e, p, "shape", true, what)) {
      std::string sp = JsonLocator::child(p, "shape");
      if (!shape->is_array()) {
        ctx.error(sp, what + ": \"shape\" must be an array of dim names and integers");
      } else {
        for (size_t k = 0; k < shape->size(); ++k) {
          const json& s = (*shape)[k];
          std::string ep = JsonLocator::child(sp, k);
          if (s.is_string()) {
            std::string dn = s.get<std::string>();
            if (!t.dims.count(dn) && !bad_dims.count(dn))
              ctx.error(ep, what + ": unknown dim '" + dn + "' in shape",
                        suggestion(dn, keys_of(t.dims)) + "add \"" + dn +
                            "\" to \"dims\" or use one of: " + join(keys_of(t.dims)),
                        false);
            in.shape.emplace_back(dn);
          } else if (s.is_number_integer() && s.get<int64_t>() >= 1) {
            in.shape.emplace_back(s.get<int64_t>());
          } else {
            ctx.error(ep,
                      what + ": shape entries must be dim names or integers >= 1, not " +
                          (s.is_number_integer() ? std::to_string(s.get<int64_t>())
                                                 : std::string(json_type(s))),
                      {}, false);
          }
        }
      }
    }
    std::string domain = "real";
    if (auto d = ctx.string_member(e, p, "domain", false, what)) domain = *d;
    std::string dp = JsonLocator::child(p, "domain");
    if (domain == "real") {
      in.domain = Domain::Real;
    } else if (domain == "positive") {
      in.domain = Domain::Positive;
    } else if (domain == "probability") {
      in.domain = Domain::Probability;
      if (e.contains("shape") && e["shape"].is_array() && e["shape"].empty())
        ctx.error(dp, what + ": a probability input needs at least one dimension");
    } else if (domain.rfind("index:", 0) == 0) {
      in.domain = Domain::Index;
      in.index_dim = domain.substr(6);
      if (!t.dims.count(in.index_dim) && !bad_dims.count(in.index_dim))
        ctx.error(dp, what + ": unknown dim '" + in.index_dim + "' in domain '" + domain + "'",
                  "declared dims: " + join(keys_of(t.dims)));
    } else if (domain == "mask") {
      in.domain = Domain::Mask;
    } else if (domain == "symmetric" || domain == "lower-triangular" || domain == "upper-triangular") {
      in.domain = domain == "symmetric" ? Domain::Symmetric
                  : domain == "lower-triangular" ? Domain::LowerTriangular : Domain::UpperTriangular;
      const std::size_t rank = in.shape.size();
      if (e.contains("shape") && e["shape"].is_array() && e["shape"].size() < 2)
        ctx.error(dp, what + ": a " + domain + " input needs at least two dimensions (its trailing matrix)");
      else if (in.domain == Domain::Symmetric && rank >= 2 && in.shape[rank - 2] != in.shape[rank - 1])
        ctx.error(dp, what + ": a symmetric input needs a square trailing matrix",
                  "make the last two shape entries the same dim (e.g. [\"N\", \"N\"])");
    } else {
      ctx.error(dp, what + ": unknown domain '" + domain + "'",
                "use one of: real, positive, probability, index:<DIM>, symmetric, lower-triangular, upper-triangular, "
                "mask");
    }
    if (!in.dtype.empty() && in.dtype != "int64" && in.domain == Domain::Index)
      ctx.error(dp, what + ": domain index:<DIM> needs dtype int64");
    if (in.dtype == "int64" && in.domain != Domain::Index)
      ctx.error(e.contains("domain") ? dp : JsonLocator::child(p, "dtype"),
                what + ": an int64 input needs domain \"index:<DIM>\"",
                "class indices are drawn in [0, DIM); name the dim giving DIM");
    if (!in.dtype.empty() && in.dtype != "bool" && in.domain == Domain::Mask)
      ctx.error(dp, what + ": domain mask needs dtype bool");
    if (in.dtype == "bool" && in.domain != Domain::Mask)
      ctx.error(e.contains("domain") ? dp : JsonLocator::child(p, "dtype"), what + ": a bool input needs domain \"mask\"",
                "a mask's elements are true with probability 1/2");
    t.inputs.push_back(std::move(in));
  }
  if (t.inputs.empty() && !t.constants.empty())
    ctx.error(ptr, "\"inputs\" holds only constants; Model.forward needs at least one tensor",
              "list the tensor arguments of Model.forward with {name, dtype, shape, domain}");
}

void parse_init_inputs(Ctx& ctx, const json& j, Task& t, const std::set<std::string>& bad_dims) {
  const std::string ptr = "/init_inputs";
  if (!j.is_array()) {
    ctx.error(ptr, "\"init_inputs\" must be an array of dim names and numbers",
              "list what get_init_inputs() returns, e.g. [\"D\", 1e-5]");
    return;
  }
  for (size_t i = 0; i < j.size(); ++i) {
    const json& e = j[i];
    std::string p = JsonLocator::child(ptr, i);
    if (e.is_string()) {
      std::string dn = e.get<std::string>();
      if (!t.dims.count(dn) && !bad_dims.count(dn))
        ctx.error(p, "unknown dim '" + dn + "' in init_inputs",
                  suggestion(dn, keys_of(t.dims)) + "declared dims: " + join(keys_of(t.dims)),
                  false);
      t.init_inputs.emplace_back(dn);
    } else if (e.is_number_integer()) {
      t.init_inputs.emplace_back(e.get<int64_t>());
    } else if (e.is_number()) {
      t.init_inputs.emplace_back(e.get<double>());
    } else {
      ctx.error(
          p, std::string("init_inputs entries must be dim names or numbers, not ") + json_type(e),
          {}, false);
    }
  }
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Public helpers

std::pair<int, int> line_column(std::string_view text, size_t offset) {
  offset = std::min(offset, text.size());
  int line = 1;
  size_t line_start = 0;
  for (size_t i = 0; i < offset; ++i)
    if (text[i] == '\n') ++line, line_start = i + 1;
  return {line, static_cast<int>(offset - line_start) + 1};
}

std::string Diagnostic::to_string() const {
  std::ostringstream os;
  os << file.string();
  if (line > 0) {
    os << ':' << line;
    if (column > 0) os << ':' << column;
  }
  os << ": error: " << message;
  if (!fix.empty()) os << "\n  fix: " << fix;
  return os.str();
}

const InputSpec* Task::find_input(const std::string& n) const {
  for (const auto& in : inputs)
    if (in.name == n) return &in;
  return nullptr;
}

const ForwardConstant* Task::find_constant(const std::string& n) const {
  for (const auto& c : constants)
    if (c.name == n) return &c;
  return nullptr;
}

const Task* Corpus::find_task(const std::string& n) const {
  auto it = std::lower_bound(tasks.begin(), tasks.end(), n,
                             [](const Task& t, const std::string& key) { return t.name < key; });
  return it != tasks.end() && it->name == n ? &*it : nullptr;
}

const Kernel* Corpus::find_kernel(const std::string& task, const std::string& n) const {
  for (const auto& k : kernels)
    if (k.task == task && k.name == n) return &k;
  return nullptr;
}

const Kernel* Corpus::find_kernel(const std::string& id) const {
  auto slash = id.find('/');
  if (slash == std::string::npos) return nullptr;
  return find_kernel(id.substr(0, slash), id.substr(slash + 1));
}

std::vector<const Kernel*> Corpus::kernels_of(const std::string& task) const {
  std::vector<const Kernel*> out;
  for (const auto& k : kernels)
    if (k.task == task) out.push_back(&k);
  return out;
}

int dtype_size(const std::string& dtype) {
  if (dtype == "float32") return 4;
  if (dtype == "float16" || dtype == "bfloat16") return 2;
  if (dtype == "int64") return 8;
  if (dtype == "bool") return 1;
  throw std::invalid_argument("unknown dtype '" + dtype + "'");
}

const char* domain_name(Domain d) {
  switch (d) {
    case Domain::Real:
      return "real";
    case Domain::Positive:
      return "positive";
    case Domain::Probability:
      return "probability";
    case Domain::Index:
      return "index";
    case Domain::Symmetric:
      return "symmetric";
    case Domain::LowerTriangular:
      return "lower-triangular";
    case Domain::UpperTriangular:
      return "upper-triangular";
    case Domain::Mask:
      return "mask";
  }
  return "?";
}

// ---------------------------------------------------------------------------------------------
// Tasks

std::optional<Task> load_task(const fs::path& task_dir, std::vector<Diagnostic>& diags) {
  Task t;
  t.name = task_dir.filename().string();
  t.dir = task_dir;
  t.problem_py = task_dir / "problem.py";
  t.task_json = task_dir / "task.json";

  bool ok = true;
  if (!fs::is_regular_file(t.problem_py)) {
    diags.push_back({t.problem_py, 0, 0, "missing problem.py for task '" + t.name + "'",
                     "add the KernelBench-style problem (Model, get_inputs, get_init_inputs)"});
    ok = false;
  }
  auto text = read_file(t.task_json);
  if (!text) {
    diags.push_back({t.task_json, 0, 0,
                     fs::exists(t.task_json) ? "cannot read task.json" : "missing task.json",
                     "describe inputs, dims and presets in task.json (see docs/CORPUS.md)"});
    return std::nullopt;
  }
  auto j = parse_json_file(t.task_json, *text, diags);
  if (!j) return std::nullopt;

  Ctx ctx(t.task_json, *text, diags);
  if (!j->is_object()) {
    ctx.error("", std::string("task.json must hold an object, not ") + json_type(*j));
    return std::nullopt;
  }
  ctx.check_fields(*j, "",
                   {"name", "description", "category", "inputs", "init_inputs", "dims", "presets",
                    "odd_shapes", "tolerance", "notes"},
                   "task.json");
  const std::string what = "task.json";

  if (auto n = ctx.string_member(*j, "", "name", false, what); n && *n != t.name)
    ctx.error("/name", "task name '" + *n + "' differs from its directory '" + t.name + "'",
              "rename the directory or set \"name\": \"" + t.name + "\"");
  if (auto d = ctx.string_member(*j, "", "description", false, what)) t.description = *d;
  if (auto n = ctx.string_member(*j, "", "notes", false, what)) t.notes = *n;
  if (auto c = ctx.string_member(*j, "", "category", false, what)) {
    std::string known;
    for (const char* k : kTaskCategories) known += (known.empty() ? "" : ", ") + std::string(k);
    if (std::find(std::begin(kTaskCategories), std::end(kTaskCategories), *c) == std::end(kTaskCategories))
      ctx.error("/category", "unknown task category '" + *c + "'", "use one of " + known);
    else
      t.category = *c;
  }

  // Dims first: everything else refers to them. A dim whose own spec is broken is remembered so
  // that its uses do not produce a second, misleading "unknown dim" error.
  std::set<std::string> bad_dims;
  if (const json* dims = ctx.member(*j, "", "dims", true, what)) {
    parse_dims(ctx, *dims, t);
    if (dims->is_object())
      for (const auto& [k, v] : dims->items())
        if (!t.dims.count(k)) bad_dims.insert(k);
  }
  if (const json* inputs = ctx.member(*j, "", "inputs", true, what))
    parse_inputs(ctx, *inputs, t, bad_dims);
  if (const json* init = ctx.member(*j, "", "init_inputs", false, what))
    parse_init_inputs(ctx, *init, t, bad_dims);

  // Assignments are only checkable when every dim is sound.
  bool dims_sound = bad_dims.empty() && !t.dims.empty();
  if (const json* presets = ctx.member(*j, "", "presets", true, what)) {
    if (!presets->is_object()) {
      ctx.error("/presets", "\"presets\" must be an object {\"small\": {...}, ...}");
    } else {
      if (!presets->contains("small"))
        ctx.error("/presets", "no \"small\" preset",
                  "add \"small\": the shape the CPU backend runs (well under 50 M operations)");
      if (dims_sound)
        for (const auto& [name, a] : presets->items())
          if (auto asg = parse_assignment(ctx, a, JsonLocator::child("/presets", name), t.dims,
                                          "preset '" + name + "'"))
            t.presets[name] = *asg;
    }
  }
  if (const json* odd = ctx.member(*j, "", "odd_shapes", true, what)) {
    if (!odd->is_array() || odd->size() < 2) {
      ctx.error("/odd_shapes", "\"odd_shapes\" must be an array of at least two dim assignments",
                "add shapes that are not multiples of 32 (e.g. 7, 33, 1000)");
    } else if (dims_sound) {
      for (size_t i = 0; i < odd->size(); ++i)
        if (auto asg = parse_assignment(ctx, (*odd)[i], JsonLocator::child("/odd_shapes", i),
                                        t.dims, "odd shape #" + std::to_string(i)))
          t.odd_shapes.push_back(*asg);
    }
  }
  if (const json* tol = ctx.member(*j, "", "tolerance", false, what)) {
    if (!tol->is_object()) {
      ctx.error("/tolerance", "\"tolerance\" must be an object {\"rtol\": r, \"atol\": a}");
    } else {
      ctx.check_fields(*tol, "/tolerance", {"rtol", "atol"}, "tolerance");
      Tolerance tt;
      bool good = true;
      for (const char* key : {"rtol", "atol"}) {
        const json* v = ctx.member(*tol, "/tolerance", key, true, "tolerance");
        if (!v) {
          good = false;
        } else if (!v->is_number() || v->get<double>() < 0) {
          ctx.error(JsonLocator::child("/tolerance", key),
                    std::string("tolerance \"") + key + "\" must be a number >= 0");
          good = false;
        } else {
          (std::string(key) == "rtol" ? tt.rtol : tt.atol) = v->get<double>();
        }
      }
      if (good) t.tolerance = tt;
    }
  }

  if (ctx.errors || !ok) return std::nullopt;
  return t;
}

// ---------------------------------------------------------------------------------------------
// Kernels

std::optional<Kernel> load_kernel(const fs::path& json_path, const Task& task,
                                  std::vector<Diagnostic>& diags) {
  Kernel k;
  k.task = task.name;
  k.name = json_path.stem().string();
  k.json_path = json_path;
  k.cu_path = fs::path(json_path).replace_extension(".cu");
  k.file = k.cu_path.generic_string();

  auto text = read_file(json_path);
  if (!text) {
    diags.push_back({json_path, 0, 0, "cannot read kernel binding", {}});
    return std::nullopt;
  }
  auto source = read_file(k.cu_path);
  if (!source) {
    diags.push_back({json_path, 0, 0, "no " + k.cu_path.filename().string() + " next to it",
                     "add the kernel source or remove the binding"});
    return std::nullopt;
  }
  k.source = std::move(*source);

  auto j = parse_json_file(json_path, *text, diags);
  if (!j) return std::nullopt;
  Ctx ctx(json_path, *text, diags);
  if (!j->is_object()) {
    ctx.error("", std::string("a kernel binding must hold an object, not ") + json_type(*j));
    return std::nullopt;
  }
  const std::string what = "kernel binding";
  ctx.check_fields(*j, "", {"entry", "args", "provenance", "unverified"}, what);
  if (auto u = ctx.string_member(*j, "", "unverified", false, what)) k.unverified = *u;

  if (auto e = ctx.string_member(*j, "", "entry", true, what)) {
    k.entry = *e;
    if (!is_identifier(k.entry)) {
      ctx.error("/entry", "entry '" + k.entry + "' is not a function name");
    } else {
      // A cheap check that catches renames: the name must appear followed by '('. Parsing is
      // the mutators' job (Clang); this only has to fail loudly on an obvious mismatch.
      if (!calls_name(k.source, k.entry))
        ctx.error("/entry",
                  "entry function '" + k.entry + "' not found in " + k.cu_path.filename().string(),
                  "set \"entry\" to the name of the host wrapper function in the .cu file");
    }
  }

  if (const json* args = ctx.member(*j, "", "args", true, what)) {
    if (!args->is_array()) {
      ctx.error("/args", "\"args\" must be an array");
    } else {
      std::vector<std::string> input_names;
      for (const auto& in : task.inputs) input_names.push_back(in.name);
      for (size_t i = 0; i < args->size(); ++i) {
        const json& a = (*args)[i];
        std::string p = JsonLocator::child("/args", i);
        if (a.is_boolean()) {
          k.args.emplace_back(a.get<bool>());
        } else if (a.is_number_integer()) {
          k.args.emplace_back(a.get<int64_t>());
        } else if (a.is_number()) {
          k.args.emplace_back(a.get<double>());
        } else if (a.is_string()) {
          std::string s = a.get<std::string>();
          if (s.rfind("param:", 0) == 0) {
            if (s.size() == 6)
              ctx.error(p, "empty parameter name in \"param:\"",
                        "use e.g. \"param:weight\" (a named_parameters()/named_buffers() name)",
                        false);
            k.args.emplace_back(ParamRef{s.substr(6)});
          } else if (s.rfind("dim:", 0) == 0) {
            std::string dn = s.substr(4);
            if (!task.dims.count(dn))
              ctx.error(p, "unknown dim '" + dn + "' in argument #" + std::to_string(i),
                        suggestion(dn, keys_of(task.dims)) + "task '" + task.name +
                            "' declares dims: " + join(keys_of(task.dims)),
                        false);
            k.args.emplace_back(DimRef{dn});
          } else if (const ForwardConstant* c = task.find_constant(s)) {
            // The number the harness passes on every call: the kernel gets that literal.
            if (c->integer) k.args.emplace_back(static_cast<int64_t>(c->value));
            else k.args.emplace_back(c->value);
          } else {
            if (!task.find_input(s))
              ctx.error(p, "unknown input '" + s + "' in argument #" + std::to_string(i),
                        suggestion(s, input_names) + "task '" + task.name +
                            "' has inputs: " + join(input_names) +
                            "; use \"param:<name>\" for a Model parameter, \"dim:<name>\" for a "
                            "dim",
                        false);
            k.args.emplace_back(InputRef{s});
          }
        } else {
          ctx.error(p,
                    std::string("argument #") + std::to_string(i) +
                        " must be an input name, \"param:...\", \"dim:...\", a number or a "
                        "boolean, not " +
                        json_type(a),
                    {}, false);
        }
      }
    }
  }

  if (const json* prov = ctx.member(*j, "", "provenance", false, what)) {
    if (!prov->is_object())
      ctx.error("/provenance", "\"provenance\" must be an object (author, idioms, notes)");
    else
      k.provenance = *prov;
  }

  if (ctx.errors) return std::nullopt;
  return k;
}

// ---------------------------------------------------------------------------------------------
// The whole corpus

namespace {
bool hidden(const fs::path& p) {
  auto n = p.filename().string();
  return n.empty() || n[0] == '.' || n == "__pycache__";
}

std::vector<fs::path> sorted_entries(const fs::path& dir, std::vector<Diagnostic>& diags) {
  std::vector<fs::path> out;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    if (!hidden(it->path())) out.push_back(it->path());
  if (ec) diags.push_back({dir, 0, 0, "cannot list directory: " + ec.message(), {}});
  std::sort(out.begin(), out.end());
  return out;
}
}  // namespace

LoadResult load_corpus(const fs::path& root, const LoadOptions& options) {
  LoadResult r;
  r.corpus.root = root;
  auto& diags = r.diagnostics;
  const fs::path tasks_dir = root / "tasks";
  if (!fs::is_directory(root)) {
    diags.push_back({root, 0, 0, "corpus root is not a directory",
                     "pass the folder holding tasks/ and kernels/ (e.g. <repo>/corpus)"});
    return r;
  }
  if (!fs::is_directory(tasks_dir)) {
    diags.push_back({tasks_dir, 0, 0, "no tasks/ directory in the corpus root",
                     "create tasks/<task>/{problem.py,task.json}"});
    return r;
  }

  std::set<std::string> failed;
  for (const auto& dir : sorted_entries(tasks_dir, diags)) {
    if (!fs::is_directory(dir)) continue;  // README files and the like
    if (auto t = load_task(dir, diags))
      r.corpus.tasks.push_back(std::move(*t));
    else
      failed.insert(dir.filename().string());
  }

  const fs::path kernels_dir = root / "kernels";
  // The corpus folder's own name, from its canonical path ("." or "corpus/" name the same folder).
  std::error_code name_error;
  fs::path corpus_name = fs::weakly_canonical(fs::absolute(root), name_error).filename();
  if (corpus_name.empty()) corpus_name = "corpus";
  if (fs::is_directory(kernels_dir)) {
    for (const auto& dir : sorted_entries(kernels_dir, diags)) {
      if (!fs::is_directory(dir)) continue;
      std::string task_name = dir.filename().string();
      const Task* task = r.corpus.find_task(task_name);
      std::set<std::string> bindings, sources;
      for (const auto& f : sorted_entries(dir, diags)) {
        if (f.extension() == ".json") bindings.insert(f.stem().string());
        if (f.extension() == ".cu") sources.insert(f.stem().string());
      }
      for (const auto& s : sources)
        if (!bindings.count(s))
          diags.push_back({dir / (s + ".cu"), 0, 0, "kernel source without a binding",
                           "add " + s + ".json naming the entry function and its args"});
      for (const auto& b : bindings) {
        fs::path jp = dir / (b + ".json");
        if (!task) {
          if (failed.count(task_name))
            diags.push_back({jp, 0, 0,
                             "kernel skipped: its task '" + task_name + "' failed to load",
                             "fix the task's diagnostics above"});
          else
            diags.push_back({jp, 0, 0, "kernel for unknown task '" + task_name + "'",
                             "add tasks/" + task_name + "/ or move the kernel"});
          continue;
        }
        if (auto k = load_kernel(jp, *task, diags)) {
          k->file = (corpus_name / "kernels" / k->task / (k->name + ".cu")).generic_string();
          if (k->unverified.empty() || options.include_unverified)
            r.corpus.kernels.push_back(std::move(*k));
          else
            r.unverified.push_back(std::move(*k));
        }
      }
    }
  }
  return r;
}

// ---------------------------------------------------------------------------------------------
// Shapes

Assignment resolve(const Task& task, const std::string& preset) {
  auto it = task.presets.find(preset);
  if (it == task.presets.end())
    throw std::invalid_argument("task '" + task.name + "' has no preset '" + preset +
                                "' (presets: " + join(keys_of(task.presets)) + ")");
  return it->second;
}

Assignment resolve(const Task& task, const Assignment& assignment) {
  std::vector<std::string> problems;
  for (const auto& [k, v] : assignment) {
    auto d = task.dims.find(k);
    if (d == task.dims.end())
      problems.push_back("unknown dim '" + k + "'");
    else if (auto why = check_dim_value(d->second, v); !why.empty())
      problems.push_back(why);
  }
  for (const auto& [k, d] : task.dims)
    if (!assignment.count(k)) problems.push_back(k + " is not assigned");
  if (!problems.empty())
    throw std::invalid_argument("bad shape for task '" + task.name + "': " + join(problems, "; "));
  return assignment;
}

std::vector<int64_t> shape_of(const InputSpec& input, const Assignment& assignment) {
  std::vector<int64_t> out;
  out.reserve(input.shape.size());
  for (const auto& e : input.shape) {
    if (const auto* lit = std::get_if<int64_t>(&e)) {
      out.push_back(*lit);
      continue;
    }
    const auto& name = std::get<std::string>(e);
    auto it = assignment.find(name);
    if (it == assignment.end())
      throw std::invalid_argument("input '" + input.name + "': dim '" + name + "' not assigned");
    out.push_back(it->second);
  }
  return out;
}

std::size_t forward_position(const Task& task, std::size_t index) {
  std::size_t position = 0;
  for (std::size_t tensors = 0;; ++position) {
    const bool constant = std::any_of(task.constants.begin(), task.constants.end(),
                                      [&](const ForwardConstant& c) { return c.position == position; });
    if (constant) continue;
    if (tensors++ == index) return position;
  }
}

std::vector<double> init_values(const Task& task, const Assignment& assignment) {
  std::vector<double> out;
  for (const auto& a : task.init_inputs) {
    if (const auto* name = std::get_if<std::string>(&a)) {
      auto it = assignment.find(*name);
      if (it == assignment.end())
        throw std::invalid_argument("task '" + task.name + "': init dim '" + *name +
                                    "' not assigned");
      out.push_back(static_cast<double>(it->second));
    } else if (const auto* i = std::get_if<int64_t>(&a)) {
      out.push_back(static_cast<double>(*i));
    } else {
      out.push_back(std::get<double>(a));
    }
  }
  return out;
}

}  // namespace kaudit::corpus
