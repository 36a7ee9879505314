// The mutation pipeline: generate -> compile -> classify (see pipeline.h).
#include "mutators/pipeline/pipeline.h"

#include <cstdio>
#include <stdexcept>

#include <algorithm>
#include <chrono>
#include <sstream>

namespace kaudit::mutators {
namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

void add(DedupCounts& c, ImageClass kind) {
  ++c.generated;
  switch (kind) {
    case ImageClass::Stillborn: ++c.stillborn; break;
    case ImageClass::Equivalent: ++c.equivalent; break;
    case ImageClass::Duplicate: ++c.duplicate; break;
    case ImageClass::Distinct: ++c.distinct; break;
    case ImageClass::Unknown: ++c.unknown; break;
  }
}

// Compiles one kernel's original and mutants together (so NVRTC diagnostics carry the kernel's
// file name) and classifies the mutants against the original's image.
void compile_and_classify(const KernelSourceInfo& kernel, std::vector<MutantRecord>& records,
                          const NvrtcCompiler& nvrtc, const CompileAllOptions& options,
                          MutationPipeline& out) {
  std::vector<std::string> sources;
  sources.reserve(records.size() + 1);
  sources.push_back(kernel.source);
  for (const auto& r : records) sources.push_back(r.mutant.source);
  std::vector<CompileResult> results = compile_all(nvrtc, sources, kernel.file, options);
  for (const auto& r : results) out.compile_cache_hits += r.cache_hit ? 1 : 0;

  const CompileResult original = std::move(results.front());
  results.erase(results.begin());
  if (original.status == CompileResult::Failed) {
    out.compile_failures.push_back({kernel.id, kernel.file, original.first_diagnostic});
  }
  if (original.ok()) out.original_images[kernel.id] = original.image_sha256;

  const auto classes = classify_images(original.image_sha256, results);
  for (std::size_t i = 0; i < records.size(); ++i) {
    MutantRecord& r = records[i];
    r.status = original.ok() ? classes[i].kind : ImageClass::Unknown;
    r.image_sha256 = results[i].image_sha256;
    if (r.status == ImageClass::Stillborn) r.first_diagnostic = classes[i].first_diagnostic;
    if (r.status == ImageClass::Duplicate) r.duplicate_of = records[classes[i].duplicate_of].mutant.id;
  }
}

}  // namespace

PipelineCounts MutationPipeline::counts() const {
  PipelineCounts c;
  for (Family f : kAllFamilies) c.per_family[f];
  for (const auto& r : mutants) {
    add(c.total, r.status);
    add(c.per_family[r.mutant.site.family], r.status);
    add(c.per_rule[r.mutant.site.rule], r.status);
  }
  return c;
}

MutationPipeline run_mutation_pipeline(const std::vector<KernelSourceInfo>& kernels,
                                       const NvrtcCompiler& nvrtc, const PipelineOptions& options) {
  MutationPipeline out;
  out.kernels = kernels.size();
  out.nvrtc_version = nvrtc.nvrtc_version();
  const auto report = [&](std::string_view stage, std::size_t done, std::size_t total) {
    if (options.progress) options.progress(stage, done, total);
  };

  // Generate, kernel by kernel (records of one kernel stay contiguous, in site order).
  auto start = std::chrono::steady_clock::now();
  std::vector<std::pair<std::size_t, std::vector<MutantRecord>>> per_kernel;  // kernel index
  for (std::size_t k = 0; k < kernels.size(); ++k) {
    report("generate", k, kernels.size());
    MutationRun run = generate_mutants(std::vector<KernelSourceInfo>{kernels[k]}, options.sites);
    if (!run.failures.empty()) {  // did not parse: reported, skipped
      for (auto& f : run.failures) out.parse_failures.push_back(std::move(f));
      continue;
    }
    std::vector<MutantRecord> records;
    records.reserve(run.mutants.size());
    for (auto& m : run.mutants) {
      MutantRecord r;
      r.mutant = std::move(m);
      records.push_back(std::move(r));
    }
    per_kernel.emplace_back(k, std::move(records));
  }
  report("generate", kernels.size(), kernels.size());
  out.generate_seconds = seconds_since(start);

  // Compile and classify.
  start = std::chrono::steady_clock::now();
  std::size_t total = 0, done = 0;
  for (const auto& [k, records] : per_kernel) total += records.size() + 1;
  for (auto& [k, records] : per_kernel) {
    report("compile", done, total);
    if (nvrtc.available()) compile_and_classify(kernels[k], records, nvrtc, options.compile, out);
    done += records.size() + 1;
    for (auto& r : records) out.mutants.push_back(std::move(r));
  }
  report("compile", total, total);
  out.compile_seconds = seconds_since(start);
  return out;
}

nlohmann::json to_json(const MutantRecord& record) {
  nlohmann::json j = to_json(record.mutant);
  j["status"] = std::string(image_class_name(record.status));
  // The range a schema switches (runtime/cpu/schema.h): what an audit reading the set needs.
  j["schema_begin"] = std::min(record.mutant.site.schema_begin, record.mutant.site.begin);
  j["schema_end"] = std::max(record.mutant.site.schema_end, record.mutant.site.end);
  j["image"] = record.image_sha256.empty() ? nlohmann::json(nullptr) : nlohmann::json(record.image_sha256);
  if (record.status == ImageClass::Duplicate) j["duplicate_of"] = record.duplicate_of;
  if (record.status == ImageClass::Stillborn) j["diagnostic"] = record.first_diagnostic;
  return j;
}

MutantRecord mutant_record_from_json(const nlohmann::json& j) {
  if (!j.is_object()) throw std::invalid_argument("not a JSON object");
  MutantRecord r;
  Mutant& m = r.mutant;
  Site& s = m.site;
  m.id = j.at("id").get<std::string>();
  m.kernel = j.at("kernel").get<std::string>();
  s.rule = j.at("rule").get<std::string>();
  const auto family = family_from_name(j.at("family").get<std::string>());
  if (!family) throw std::invalid_argument("unknown family " + j.at("family").dump());
  s.family = *family;
  s.file = j.at("file").get<std::string>();
  s.begin = j.at("begin").get<std::size_t>();
  s.end = j.at("end").get<std::size_t>();
  s.schema_begin = j.at("schema_begin").get<std::size_t>();
  s.schema_end = j.at("schema_end").get<std::size_t>();
  s.original = j.at("original").get<std::string>();
  s.replacement = j.at("replacement").get<std::string>();
  int line = 0, column = 0;
  const std::string range = j.at("range").get<std::string>();
  if (std::sscanf(range.c_str(), "%d:%d-%d:%d", &s.begin_pos.line, &s.begin_pos.column, &line, &column) != 4)
    throw std::invalid_argument("range " + range + " is not L:C-L:C");
  s.end_pos = {line, column};
  const std::string status = j.at("status").get<std::string>();
  bool known = false;
  for (ImageClass c : {ImageClass::Stillborn, ImageClass::Equivalent, ImageClass::Duplicate, ImageClass::Distinct,
                       ImageClass::Unknown})
    if (image_class_name(c) == status) {
      r.status = c;
      known = true;
    }
  if (!known) throw std::invalid_argument("unknown status " + status);
  if (!j.at("image").is_null()) r.image_sha256 = j.at("image").get<std::string>();
  r.duplicate_of = j.value("duplicate_of", std::string());
  r.first_diagnostic = j.value("diagnostic", std::string());
  return r;
}

std::string mutants_jsonl(const MutationPipeline& pipeline) {
  std::string out;
  for (const auto& r : pipeline.mutants) out += to_json(r).dump() + "\n";
  return out;
}

nlohmann::json to_json(const DedupCounts& c) {
  return {{"generated", c.generated}, {"stillborn", c.stillborn}, {"duplicate", c.duplicate},
          {"equivalent", c.equivalent}, {"distinct", c.distinct}, {"unknown", c.unknown}};
}

nlohmann::json pipeline_summary_json(const MutationPipeline& p) {
  const PipelineCounts c = p.counts();
  nlohmann::json j = to_json(c.total);
  nlohmann::json fam = nlohmann::json::object(), rules = nlohmann::json::object();
  for (const auto& [f, n] : c.per_family) fam[std::string(family_name(f))] = to_json(n);
  for (const auto& [r, n] : c.per_rule) rules[r] = to_json(n);
  j["per_family"] = fam;
  j["per_rule"] = rules;
  j["kernels"] = p.kernels;
  nlohmann::json parse = nlohmann::json::array(), compile = nlohmann::json::array();
  for (const auto& f : p.parse_failures) {
    parse.push_back({{"kernel", f.kernel}, {"file", f.file},
                     {"diagnostic", f.diagnostics.empty() ? std::string() : f.diagnostics[0].to_string()}});
  }
  for (const auto& f : p.compile_failures) {
    compile.push_back({{"kernel", f.kernel}, {"file", f.file}, {"diagnostic", f.diagnostic}});
  }
  j["parse_failures"] = parse;
  j["compile_failures"] = compile;
  j["nvrtc"] = p.nvrtc_version.empty() ? nlohmann::json(nullptr) : nlohmann::json(p.nvrtc_version);
  return j;
}

std::string pipeline_table(const MutationPipeline& p) {
  const PipelineCounts c = p.counts();
  std::ostringstream os;
  char line[160];
  const auto row = [&](std::string_view name, const DedupCounts& n) {
    std::snprintf(line, sizeof line, "%-16.*s %9zu %9zu %9zu %10zu %8zu", static_cast<int>(name.size()),
                  name.data(), n.generated, n.stillborn, n.duplicate, n.equivalent, n.distinct);
    os << line;
    if (c.total.unknown) os << "  (" << n.unknown << " unknown)";
    os << "\n";
  };
  std::snprintf(line, sizeof line, "%-16s %9s %9s %9s %10s %8s\n", "family", "generated", "stillborn",
                "duplicate", "equivalent", "distinct");
  os << line;
  for (const auto& [f, n] : c.per_family) row(family_name(f), n);
  row("total", c.total);
  return os.str();
}

SwitchableEdit switchable_edit(std::string_view source, const Site& site) {
  const std::size_t b = std::min(site.schema_begin, site.begin), e = std::max(site.schema_end, site.end);
  SwitchableEdit out;
  out.begin = b;
  out.end = e;
  out.replacement = std::string(source.substr(b, site.begin - b)) + site.replacement +
                    std::string(source.substr(site.end, e - site.end));
  return out;
}

std::string unified_diff(std::string_view original, const Site& site) {
  constexpr int kContext = 3;
  // Split the original into lines (each without its '\n'); remember whether the text ends in one.
  const auto split = [](std::string_view text) {
    std::vector<std::string_view> lines;
    std::size_t pos = 0;
    while (pos < text.size()) {
      const std::size_t nl = text.find('\n', pos);
      const std::size_t end = nl == std::string_view::npos ? text.size() : nl;
      lines.push_back(text.substr(pos, end - pos));
      pos = end + 1;
    }
    return lines;
  };
  const std::string mutated = apply_site(original, site);
  const auto a = split(original);
  const auto b = split(mutated);
  // The edit touches original lines [first, last] (0-based); in the mutant they become
  // [first, last + (b.size() - a.size())].
  const int first = site.begin_pos.line - 1;
  int last = site.end_pos.line - 1;
  if (site.end > site.begin && site.end_pos.column == 1) --last;  // edit ends at a line break
  last = std::max(last, first);
  const int delta = static_cast<int>(b.size()) - static_cast<int>(a.size());
  const int from = std::max(0, first - kContext);
  const int a_to = std::min<int>(static_cast<int>(a.size()) - 1, last + kContext);
  const int b_to = std::min<int>(static_cast<int>(b.size()) - 1, last + delta + kContext);
  std::ostringstream os;
  os << "--- a/" << site.file << "\n+++ b/" << site.file << "\n";
  os << "@@ -" << from + 1 << "," << a_to - from + 1 << " +" << from + 1 << "," << b_to - from + 1
     << " @@ " << site.rule << "\n";
  for (int i = from; i < first; ++i) os << " " << a[i] << "\n";
  for (int i = first; i <= last && i < static_cast<int>(a.size()); ++i) os << "-" << a[i] << "\n";
  for (int i = first; i <= last + delta && i < static_cast<int>(b.size()); ++i) os << "+" << b[i] << "\n";
  for (int i = last + 1; i <= a_to; ++i) os << " " << a[i] << "\n";
  return os.str();
}

}  // namespace kaudit::mutators
