#include "oracle/spec.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>

#include "corpus/corpus.h"
#include "corpus/json_locator.h"
#include "oracle/recipes.h"
#include "common/files.h"
#include "common/sha256.h"

namespace kaudit::oracle {
namespace fs = std::filesystem;
using nlohmann::json;

SpecError::SpecError(fs::path file, int line, std::string field, const std::string& message)
    : std::runtime_error(file.string() + ":" + std::to_string(line) + ": " +
                         (field.empty() ? std::string() : "field '" + field + "': ") + message),
      file_(std::move(file)),
      line_(line),
      field_(std::move(field)) {}

const char* comparator_name(ComparatorKind k) {
  switch (k) {
    case ComparatorKind::Allclose: return "allclose";
    case ComparatorKind::Absolute: return "absolute";
    case ComparatorKind::MagnitudeScaled: return "magnitude-scaled";
  }
  return "?";
}
const char* precision_name(ReferencePrecision p) { return p == ReferencePrecision::Fp64 ? "fp64" : "fp32"; }
const char* order_name(HarnessOrder o) { return o == HarnessOrder::CandidateFirst ? "candidate-first" : "reference-first"; }
const char* inputs_name(HarnessInputs i) { return i == HarnessInputs::Cloned ? "cloned" : "shared"; }

Tolerance Comparator::tolerance_for(const std::string& precision) const {
  Tolerance t{rtol, atol};
  if (const auto it = dtype_tolerance.find(precision); it != dtype_tolerance.end()) t = it->second;
  if (kind == ComparatorKind::Absolute) t.rtol = 0;
  return t;
}

Comparator Comparator::resolved(const std::string& precision) const {
  Comparator c = *this;
  const Tolerance t = tolerance_for(precision);
  c.rtol = t.rtol;
  c.atol = t.atol;
  c.dtype_tolerance.clear();
  return c;
}

std::string evaluation_precision(const corpus::Task& task) {
  for (const auto& in : task.inputs)
    if (in.dtype == "float16" || in.dtype == "bfloat16" || in.dtype == "float32") return in.dtype;
  return "float32";
}

json comparator_to_json(const Comparator& c) {
  json j = {{"kind", comparator_name(c.kind)}, {"rtol", c.rtol}, {"atol", c.atol}, {"equal_nan", c.equal_nan}};
  for (const auto& [dtype, t] : c.dtype_tolerance) j["dtype_tolerance"][dtype] = {{"rtol", t.rtol}, {"atol", t.atol}};
  return j;
}

Comparator comparator_from_json(const json& j) {
  Comparator c;
  const std::string kind = j.at("kind");
  c.kind = kind == "absolute" ? ComparatorKind::Absolute
           : kind == "magnitude-scaled" ? ComparatorKind::MagnitudeScaled
                                        : ComparatorKind::Allclose;
  c.rtol = j.at("rtol");
  c.atol = j.at("atol");
  c.equal_nan = j.at("equal_nan");
  if (j.contains("dtype_tolerance"))
    for (const auto& [dtype, t] : j.at("dtype_tolerance").items())
      c.dtype_tolerance[dtype] = Tolerance{t.at("rtol").get<double>(), t.at("atol").get<double>()};
  return c;
}

namespace {

// Reports errors at the line of a JSON pointer; `field` is the dotted spelling users read.
struct Checker {
  const fs::path& file;
  const std::string& text;
  corpus::detail::JsonLocator loc{text};

  [[noreturn]] void fail(const std::string& pointer, const std::string& field, const std::string& msg) const {
    const auto [line, col] = corpus::line_column(text, loc.key_offset(pointer));
    (void)col;
    throw SpecError(file, line, field, msg);
  }
  void known_fields(const json& j, const std::string& pointer, const std::string& prefix,
                    std::initializer_list<const char*> known) const {
    for (const auto& [k, v] : j.items()) {
      if (std::none_of(known.begin(), known.end(), [&](const char* n) { return k == n; })) {
        std::string list;
        for (const char* n : known) list += (list.empty() ? "" : ", ") + std::string(n);
        fail(corpus::detail::JsonLocator::child(pointer, k), prefix + k, "unknown field (known: " + list + ")");
      }
    }
  }
  // c[key] as a tolerance; `where` is c's place ("comparator", "comparator.dtype_tolerance.float16").
  double tolerance(const json& c, const char* key, const std::string& where = "comparator") const {
    if (!c.contains(key)) return 0;
    std::string ptr = "/" + where + "/" + key;
    std::replace(ptr.begin(), ptr.end(), '.', '/');
    const std::string field = where + "." + key;
    if (!c.at(key).is_number()) fail(ptr, field, "must be a number");
    const double v = c.at(key).get<double>();
    if (!std::isfinite(v) || v < 0) fail(ptr, field, "must be a finite number >= 0");
    if (v > 1) fail(ptr, field, "a tolerance above 1 accepts almost anything; use a value in [0, 1]");
    return v;
  }
};

}  // namespace

OracleSpec parse_spec(const std::string& text, const fs::path& file) {
  json j;
  try {
    j = json::parse(text);
  } catch (const json::exception& e) {  // a syntax error, or a number no double holds (1e400)
    const corpus::JsonFailure f = corpus::describe_json_failure(text, e);
    const auto [line, col] = corpus::line_column(text, f.offset);
    (void)col;
    throw SpecError(file, line, "", "malformed JSON: " + f.message);
  }
  Checker ck{file, text};
  if (!j.is_object()) ck.fail("", "", "a spec is a JSON object");
  ck.known_fields(j, "", "", {"name", "description", "source", "shape_preset", "reference", "comparator", "trials",
                         "task_trials", "harness", "kind", "command", "timeout_s", "gates"});
  OracleSpec s;
  s.file = file;
  auto str = [&](const char* key, bool required) -> std::string {
    if (!j.contains(key)) {
      if (required) ck.fail("", key, "is required");
      return {};
    }
    if (!j.at(key).is_string()) ck.fail("/" + std::string(key), key, "must be a string");
    return j.at(key).get<std::string>();
  };
  s.name = str("name", true);
  // A scan, not std::regex (which recursed per character: a long name overflowed the stack).
  const auto name_char = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '-'; };
  if (s.name.empty() || s.name[0] == '.' || s.name[0] == '-' ||
      !std::all_of(s.name.begin(), s.name.end(), name_char))
    ck.fail("/name", "name", "use lower-case letters, digits, '.' and '-'");
  s.description = str("description", true);
  s.source = str("source", false);
  if (j.contains("shape_preset")) s.shape_preset = str("shape_preset", false);
  if (j.contains("reference")) {
    const std::string r = str("reference", false);
    if (r == "fp32") s.reference = ReferencePrecision::Fp32;
    else if (r == "fp64") s.reference = ReferencePrecision::Fp64;
    else ck.fail("/reference", "reference", "must be \"fp32\" or \"fp64\", not \"" + r + "\"");
  }
  if (j.contains("kind")) {
    const std::string k = str("kind", false);
    if (k != "external" && k != "builtin")
      ck.fail("/kind", "kind", "must be \"external\" (a checker command judges) or \"builtin\" (the comparator does), not \"" + k + "\"");
    if (k == "external") {
      ExternalCommand cmd;
      if (!j.contains("command") || !j.at("command").is_array() || j.at("command").empty())
        ck.fail(j.contains("command") ? "/command" : "", "command",
                "an external spec needs \"command\": a non-empty list of strings, e.g. [\"{python}\", \"checker.py\"]");
      for (std::size_t i = 0; i < j.at("command").size(); ++i) {
        const json& a = j.at("command")[i];
        if (!a.is_string() || a.get<std::string>().empty())
          ck.fail("/command/" + std::to_string(i), "command[" + std::to_string(i) + "]", "must be a non-empty string");
        cmd.argv.push_back(a.get<std::string>());
      }
      cmd.cwd = file.empty() ? fs::current_path() : fs::absolute(file).parent_path();
      if (j.contains("timeout_s")) {
        const json& t = j.at("timeout_s");
        if (!t.is_number() || !(t.get<double>() > 0) || t.get<double>() > 3600)
          ck.fail("/timeout_s", "timeout_s", "must be a number of seconds in (0, 3600]");
        cmd.timeout_s = t.get<double>();
      }
      s.external = cmd;
    }
  }
  if (!s.external) {
    if (j.contains("command")) ck.fail("/command", "command", "only an external spec (\"kind\": \"external\") has a command");
    if (j.contains("timeout_s")) ck.fail("/timeout_s", "timeout_s", "only an external spec (\"kind\": \"external\") has a timeout_s");
  }
  if (s.external && !j.contains("comparator")) j["comparator"] = {{"kind", "allclose"}, {"rtol", 1e-4}, {"atol", 1e-4}};
  if (!j.contains("comparator") || !j.at("comparator").is_object()) ck.fail("/comparator", "comparator", "is required (an object)");
  const json& c = j.at("comparator");
  ck.known_fields(c, "/comparator", "comparator.", {"kind", "rtol", "atol", "equal_nan", "dtype_tolerance"});
  if (!c.contains("kind") || !c.at("kind").is_string()) ck.fail("/comparator", "comparator.kind", "is required");
  const std::string kind = c.at("kind").get<std::string>();
  if (kind == "allclose") s.comparator.kind = ComparatorKind::Allclose;
  else if (kind == "absolute") s.comparator.kind = ComparatorKind::Absolute;
  else if (kind == "magnitude-scaled") s.comparator.kind = ComparatorKind::MagnitudeScaled;
  else ck.fail("/comparator/kind", "comparator.kind", "must be allclose, absolute or magnitude-scaled, not \"" + kind + "\"");
  s.comparator.rtol = ck.tolerance(c, "rtol");
  s.comparator.atol = ck.tolerance(c, "atol");
  if (c.contains("equal_nan")) {
    if (!c.at("equal_nan").is_boolean()) ck.fail("/comparator/equal_nan", "comparator.equal_nan", "must be true or false");
    s.comparator.equal_nan = c.at("equal_nan").get<bool>();
  }
  if (s.comparator.kind == ComparatorKind::Absolute && s.comparator.rtol != 0)
    ck.fail("/comparator/rtol", "comparator.rtol", "an absolute comparator has no rtol");
  if (s.comparator.atol == 0 && s.comparator.rtol == 0)
    ck.fail("/comparator", "comparator", "rtol and atol are both 0: only bit-exact outputs would pass");
  if (c.contains("dtype_tolerance")) {
    const json& by = c.at("dtype_tolerance");
    if (!by.is_object() || by.empty())
      ck.fail("/comparator/dtype_tolerance", "comparator.dtype_tolerance",
              "must be an object of output dtype -> {\"rtol\": r, \"atol\": a}, e.g. {\"float16\": {\"rtol\": 0.01, \"atol\": 0.01}}");
    for (const auto& [dtype, tol] : by.items()) {
      const std::string where = "comparator.dtype_tolerance." + dtype, ptr = "/comparator/dtype_tolerance/" + dtype;
      if (dtype != "float16" && dtype != "bfloat16" && dtype != "float32" && dtype != "float64")
        ck.fail(ptr, where, "not a floating dtype: use float16, bfloat16, float32 or float64 (integer and bool outputs compare exactly)");
      if (!tol.is_object()) ck.fail(ptr, where, "must be an object: {\"rtol\": r, \"atol\": a}");
      ck.known_fields(tol, ptr, where + ".", {"rtol", "atol"});
      const Tolerance t{ck.tolerance(tol, "rtol", where), ck.tolerance(tol, "atol", where)};
      if (s.comparator.kind == ComparatorKind::Absolute && t.rtol != 0)
        ck.fail(ptr + "/rtol", where + ".rtol", "an absolute comparator has no rtol");
      if (t.atol == 0 && t.rtol == 0)
        ck.fail(ptr, where, "rtol and atol are both 0: only bit-exact outputs would pass");
      s.comparator.dtype_tolerance[dtype] = t;
    }
  }
  if (j.contains("harness")) {
    const json& h = j.at("harness");
    if (!h.is_object()) ck.fail("/harness", "harness", "must be an object: {\"order\": ..., \"inputs\": ...}");
    ck.known_fields(h, "/harness", "harness.", {"order", "inputs"});
    if (h.contains("order")) {
      const std::string o = h.at("order").is_string() ? h.at("order").get<std::string>() : std::string();
      if (o == "reference-first") s.harness.order = HarnessOrder::ReferenceFirst;
      else if (o == "candidate-first") s.harness.order = HarnessOrder::CandidateFirst;
      else
        ck.fail("/harness/order", "harness.order",
                "must be \"reference-first\" (KernelBench: the reference runs first, on the same tensors) or "
                "\"candidate-first\"" +
                    std::string(o == "candidate-reference-candidate"
                                    ? "; candidate-reference-candidate is not modelled (the empty_cache() between its "
                                      "runs would need a model of the driver's reuse of freed memory)"
                                    : ""));
    }
    if (h.contains("inputs")) {
      const std::string i = h.at("inputs").is_string() ? h.at("inputs").get<std::string>() : std::string();
      if (i == "shared") s.harness.inputs = HarnessInputs::Shared;
      else if (i == "cloned") s.harness.inputs = HarnessInputs::Cloned;
      else
        ck.fail("/harness/inputs", "harness.inputs",
                "must be \"shared\" (the candidate gets the reference's input tensors, as in KernelBench) or "
                "\"cloned\" (it gets copies)");
    }
  }
  if (j.contains("gates")) {
    const json& g = j.at("gates");
    if (!g.is_object())
      ck.fail("/gates", "gates", "must be an object: {\"kernel_launched\": true, \"no_library_compute\": true}");
    ck.known_fields(g, "/gates", "gates.", {"kernel_launched", "no_library_compute", "every_output_written"});
    for (const auto& [key, flag] : {std::pair<const char*, bool*>{"kernel_launched", &s.gates.kernel_launched},
                                    std::pair<const char*, bool*>{"no_library_compute", &s.gates.no_library_compute},
                                    std::pair<const char*, bool*>{"every_output_written", &s.gates.every_output_written}}) {
      if (!g.contains(key)) continue;
      if (!g.at(key).is_boolean()) ck.fail("/gates/" + std::string(key), "gates." + std::string(key), "must be true or false");
      *flag = g.at(key).get<bool>();
    }
  }
  const bool per_task = j.contains("task_trials");
  if (per_task && (!j.at("task_trials").is_object() || j.at("task_trials").empty()))
    ck.fail("/task_trials", "task_trials", "must be an object of task name -> non-empty list of input recipes");
  if (!j.contains("trials") || !j.at("trials").is_array() || (j.at("trials").empty() && !per_task))
    ck.fail("/trials", "trials", "is required: a non-empty list of input recipes");
  const auto read_trials = [&](const json& list, const std::string& ptr_base, const std::string& field_base,
                               const std::string& name_base, std::vector<int>& lines) {
    std::vector<Recipe> out;
    std::size_t i = 0;
    for (const json& t : list) {
      const std::string ptr = ptr_base + "/" + std::to_string(i), field = field_base + "[" + std::to_string(i) + "]";
      try {
        Recipe r = t.get<Recipe>();
        if (!t.contains("preset") && !t.contains("shape")) r.preset = s.shape_preset;
        if (r.name.empty()) r.name = name_base + "-trial-" + std::to_string(i);
        if (r.preset.rfind("odd:", 0) == 0) {
          try {
            (void)std::stoul(r.preset.substr(4));
          } catch (const std::exception&) {
            ck.fail(ptr + "/preset", field + ".preset", "expected \"odd:<index>\"");
          }
        }
        out.push_back(std::move(r));
        lines.push_back(corpus::line_column(text, ck.loc.key_offset(ptr)).first);
      } catch (const SpecError&) {
        throw;
      } catch (const std::exception& e) {
        ck.fail(ptr, field, e.what());
      }
      ++i;
    }
    return out;
  };
  s.trials = read_trials(j.at("trials"), "/trials", "trials", s.name, s.trial_lines);
  if (per_task) {
    for (const auto& [task, list] : j.at("task_trials").items()) {
      const std::string ptr = "/task_trials/" + task, field = "task_trials." + task;
      if (!list.is_array() || list.empty()) ck.fail(ptr, field, "must be a non-empty list of input recipes");
      s.task_trials[task] = read_trials(list, ptr, field, s.name + "-" + task, s.task_trial_lines[task]);
    }
  }
  if (!s.external) {
    const auto reject = [&](const std::vector<Recipe>& list, const std::string& ptr, const std::string& field) {
      for (std::size_t i = 0; i < list.size(); ++i)
        if (list[i].distribution == Distribution::Checker)
          ck.fail(ptr + "/" + std::to_string(i) + "/distribution", field + "[" + std::to_string(i) + "].distribution",
                  "\"checker\" inputs come from an external spec's checker (\"kind\": \"external\")");
    };
    reject(s.trials, "/trials", "trials");
    for (const auto& [task, list] : s.task_trials) reject(list, "/task_trials/" + task, "task_trials." + task);
  }
  if (s.external) s.checker_slot = std::make_shared<ExternalCheckerSlot>();
  return s;
}

OracleSpec load_spec(const fs::path& file) {
  const auto text = read_file(file);
  if (!text) throw SpecError(file, 0, "", "cannot read the file (does it exist?)");
  return parse_spec(*text, file);
}

std::vector<OracleSpec> load_specs(const fs::path& dir) {
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.is_regular_file() && e.path().extension() == ".json") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  std::vector<OracleSpec> out;
  for (const auto& f : files) out.push_back(load_spec(f));
  return out;
}

OracleSpec at_preset(OracleSpec spec, const std::string& preset) {
  const auto move = [&](std::vector<Recipe>& trials) {
    for (Recipe& r : trials)
      if (!r.shape && r.preset == spec.shape_preset) r.preset = preset;
  };
  move(spec.trials);
  for (auto& [task, trials] : spec.task_trials) move(trials);
  spec.shape_preset = preset;
  return spec;
}

json spec_to_json(const OracleSpec& s) {
  json trials = json::array();
  for (const auto& t : s.trials) trials.push_back(t);
  json j = {{"name", s.name}, {"description", s.description}, {"source", s.source},
          {"shape_preset", s.shape_preset}, {"reference", precision_name(s.reference)},
          {"comparator", comparator_to_json(s.comparator)},
          {"trials", trials},
          {"harness", {{"order", order_name(s.harness.order)}, {"inputs", inputs_name(s.harness.inputs)}}}};
  if (s.gates.any()) {
    j["gates"] = {{"kernel_launched", s.gates.kernel_launched}};
    // Only when set: a spec gated on launches alone keeps the JSON, and the cache key, it had.
    if (s.gates.no_library_compute) j["gates"]["no_library_compute"] = true;
    if (s.gates.every_output_written) j["gates"]["every_output_written"] = true;
  }
  if (s.external) {
    // The command and the bytes of every file it names: an edited checker is another oracle, so
    // cached verdicts of the old one are not reused.
    json files = json::object();
    for (const auto& a : s.external->argv) {
      const fs::path f = fs::path(a).is_absolute() ? fs::path(a) : s.external->cwd / a;
      std::error_code ec;
      if (fs::is_regular_file(f, ec))
        if (const auto bytes = read_file(f)) files[a] = sha256_hex(*bytes);
    }
    // The Python side kaudit ships is part of every Python checker.
    if (const auto helper = read_file(fs::path(KAUDIT_TOOLS_DIR) / "kaudit_checker.py"))
      files["{kaudit}/tools/kaudit_checker.py"] = sha256_hex(*helper);
    j["kind"] = "external";
    // 2: a loop whose worker died re-runs the trials before the death; 3: runs that did not
    // complete are judged by the checker too, with what every run did (its launches...)
    j["judging"] = 3;
    j["command"] = s.external->argv;
    j["timeout_s"] = s.external->timeout_s;
    j["command_files"] = files;
  }
  if (!s.task_trials.empty()) {
    json per_task = json::object();
    for (const auto& [task, list] : s.task_trials) per_task[task] = list;
    j["task_trials"] = per_task;
  }
  return j;
}

void check_spec_for_corpus(const OracleSpec& spec, const corpus::Corpus& corpus,
                           const std::vector<std::string>& only_tasks) {
  for (const auto& task : corpus.tasks) {
    if (!only_tasks.empty() && std::find(only_tasks.begin(), only_tasks.end(), task.name) == only_tasks.end()) continue;
    const bool own = spec.task_trials.count(task.name) > 0;
    const auto& trials = trials_for(spec, task.name);
    for (std::size_t i = 0; i < trials.size(); ++i) {
      try {
        const corpus::Assignment dims = dims_for(task, trials[i]);
        for (const auto& input : task.inputs)
          for (const std::int64_t extent : corpus::shape_of(input, dims))
            if (extent < 0) throw std::invalid_argument("input '" + input.name + "' would have a negative extent");
      } catch (const std::invalid_argument& e) {
        const std::string field = (own ? "task_trials." + task.name : std::string("trials")) + "[" + std::to_string(i) + "]";
        const std::vector<int>& lines = own ? spec.task_trial_lines.at(task.name) : spec.trial_lines;
        const int line = i < lines.size() ? lines[i] : 0;
        throw SpecError(spec.file.empty() ? std::filesystem::path(spec.name) : spec.file, line, field,
                        "cannot run on task '" + task.name + "': " + e.what() +
                            " (fix the trial's preset or shape, or give the task its own trials in task_trials)");
      }
    }
  }
}

const std::vector<Recipe>& trials_for(const OracleSpec& spec, const std::string& task) {
  const auto it = spec.task_trials.find(task);
  return it == spec.task_trials.end() ? spec.trials : it->second;
}


}  // namespace kaudit::oracle
