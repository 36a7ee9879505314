#include "mutators/pipeline/mutant_set.h"

#include <fstream>
#include <set>
#include <sstream>

#include "common/sha256.h"

namespace kaudit::mutators {
namespace fs = std::filesystem;
using nlohmann::json;

std::string kernels_jsonl(const std::vector<KernelSourceInfo>& kernels,
                          const std::map<std::string, std::vector<NeutralVariant>>& neutral,
                          const std::map<std::string, std::string>& neutral_error) {
  std::string out;
  for (const auto& k : kernels) {
    json j = {{"kernel", k.id}, {"file", k.file}, {"sha256", sha256_hex(k.source)}, {"neutral", json::array()}};
    if (auto it = neutral.find(k.id); it != neutral.end())
      for (const auto& v : it->second)
        j["neutral"].push_back({{"id", v.id}, {"rule", v.rule}, {"sites", v.sites}, {"source", v.source}});
    if (auto it = neutral_error.find(k.id); it != neutral_error.end()) j["neutral_error"] = it->second;
    out += j.dump() + "\n";
  }
  return out;
}

namespace {

constexpr const char* kFix = "run `kaudit mutate --out DIR` again on this corpus";

// Calls fn(line_number, record) for each non-empty line of `path`; a line that is not a JSON object
// is an error naming the file and line.
template <class Fn>
void for_each_record(const fs::path& path, Fn&& fn) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw MutantSetError(path.string() + ": cannot be read (" + kFix + ")");
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    if (line.empty()) continue;
    const auto where = path.string() + ":" + std::to_string(n);
    const json j = json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded() || !j.is_object()) throw MutantSetError(where + ": not a JSON object (" + kFix + ")");
    try {
      fn(where, j);
    } catch (const MutantSetError&) {
      throw;
    } catch (const std::exception& e) {
      // A missing key or a value of another type (nlohmann's message names which).
      throw MutantSetError(where + ": not a record of this kaudit's mutant set: " + e.what() + " (" + kFix + ")");
    }
  }
}

}  // namespace

MutantSet read_mutant_set(const fs::path& dir, const std::vector<KernelSourceInfo>& kernels) {
  MutantSet set;
  std::map<std::string, const KernelSourceInfo*> by_id;
  for (const auto& k : kernels) by_id[k.id] = &k;

  for_each_record(dir / "kernels.jsonl", [&](const std::string& where, const json& j) {
    const std::string id = j.at("kernel").get<std::string>();
    const auto it = by_id.find(id);
    if (it == by_id.end())
      throw MutantSetError(where + ": kernel " + id + " is not in the corpus given (audit the corpus the set was made from, or " + kFix + ")");
    if (j.at("sha256").get<std::string>() != sha256_hex(it->second->source))
      throw MutantSetError(where + ": the set was made from another version of " + id + " (" + kFix + ")");
    if (set.neutral.count(id) || set.neutral_error.count(id)) throw MutantSetError(where + ": kernel " + id + " listed twice");
    set.kernels.push_back(id);
    auto& variants = set.neutral[id];
    for (const auto& v : j.at("neutral")) {
      NeutralVariant nv;
      nv.id = v.at("id").get<std::string>();
      nv.kernel = id;
      nv.rule = v.at("rule").get<std::string>();
      nv.sites = v.at("sites").get<std::size_t>();
      nv.source = v.at("source").get<std::string>();
      if (nv.id != id + "~" + nv.rule) throw MutantSetError(where + ": neutral variant " + nv.id + " is not named <kernel>~<rule>");
      variants.push_back(std::move(nv));
    }
    if (j.contains("neutral_error")) set.neutral_error[id] = j.at("neutral_error").get<std::string>();
  });
  set.pipeline.kernels = set.kernels.size();

  std::set<std::string> ids;
  for_each_record(dir / "mutants.jsonl", [&](const std::string& where, const json& j) {
    MutantRecord r;
    try {
      r = mutant_record_from_json(j);
    } catch (const std::invalid_argument& e) {
      throw MutantSetError(where + ": " + e.what());
    }
    Mutant& m = r.mutant;
    Site& s = m.site;
    if (!set.neutral.count(m.kernel))
      throw MutantSetError(where + ": mutant " + m.id + " of kernel " + m.kernel + ", which kernels.jsonl does not list (" + kFix + ")");
    const std::string& source = by_id.at(m.kernel)->source;
    if (s.begin > s.end || s.end > source.size() || s.schema_begin > s.begin || s.schema_end < s.end ||
        s.schema_end > source.size() || source.compare(s.begin, s.end - s.begin, s.original) != 0 ||
        mutant_id(source, s.rule, s.begin, s.end, s.replacement) != m.id)
      throw MutantSetError(where + ": mutant " + m.id + " does not match the text of " + m.kernel + " (" + kFix + ")");
    if (!ids.insert(m.id).second) throw MutantSetError(where + ": mutant " + m.id + " listed twice");
    m.source = apply_site(source, s);
    set.pipeline.mutants.push_back(std::move(r));
  });
  return set;
}

}  // namespace kaudit::mutators
