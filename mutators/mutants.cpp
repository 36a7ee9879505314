// Mutants: one per (rule, site), with a stable content-addressed id.
#include <fstream>
#include <sstream>

#include "common/sha256.h"
#include "mutators/mutators.h"
#include "common/files.h"

namespace kaudit::mutators {

namespace {

void field(std::string& out, std::string_view bytes) {
  out += std::to_string(bytes.size());
  out += ':';
  out += bytes;
  out += '\n';
}

std::string join_diagnostics(const std::vector<ParseDiagnostic>& diags) {
  std::string out;
  for (const ParseDiagnostic& d : diags) {
    if (!out.empty()) out += '\n';
    out += d.to_string();
  }
  return out;
}

}  // namespace

KernelSourceInfo read_kernel_source(const std::string& path, std::string id) {
  const auto text = read_file(path);
  if (!text) throw std::runtime_error(path + ": cannot read kernel source");
  if (id.empty()) {
    std::string p = path;
    const size_t slash = p.find_last_of('/');
    std::string base = slash == std::string::npos ? p : p.substr(slash + 1);
    std::string dir = slash == std::string::npos ? std::string() : p.substr(0, slash);
    const size_t dot = base.find_last_of('.');
    if (dot != std::string::npos) base = base.substr(0, dot);
    const size_t dslash = dir.find_last_of('/');
    const std::string parent = dslash == std::string::npos ? dir : dir.substr(dslash + 1);
    id = parent.empty() ? base : parent + "/" + base;
  }
  return KernelSourceInfo{std::move(id), path, *text};
}

std::string mutant_id(std::string_view content, std::string_view rule, std::size_t begin,
                      std::size_t end, std::string_view replacement) {
  std::string data;
  data.reserve(content.size() + rule.size() + replacement.size() + 64);
  field(data, "kaudit-mutant-v1");
  field(data, content);
  field(data, rule);
  field(data, std::to_string(begin));
  field(data, std::to_string(end));
  field(data, replacement);
  return kaudit::sha256_hex(data).substr(0, 16);
}

std::string apply_site(std::string_view source, const Site& site) {
  std::string out;
  out.reserve(source.size() + site.replacement.size());
  out.append(source.substr(0, site.begin));
  out.append(site.replacement);
  out.append(source.substr(site.end));
  return out;
}

ParseError::ParseError(std::string kernel, std::vector<ParseDiagnostic> diagnostics)
    : std::runtime_error(kernel + ": does not parse:\n" + join_diagnostics(diagnostics)),
      kernel_(std::move(kernel)),
      diagnostics_(std::move(diagnostics)) {}

std::vector<Mutant> generate_mutants(const KernelSourceInfo& kernel, const SiteOptions& options) {
  SiteResult sites = find_sites(kernel, options);
  if (!sites.parsed) throw ParseError(kernel.id, std::move(sites.diagnostics));
  std::vector<Mutant> out;
  out.reserve(sites.sites.size());
  for (Site& s : sites.sites) {
    Mutant m;
    m.id = mutant_id(kernel.source, s.rule, s.begin, s.end, s.replacement);
    m.kernel = kernel.id;
    m.source = apply_site(kernel.source, s);
    m.site = std::move(s);
    out.push_back(std::move(m));
  }
  return out;
}

std::vector<NeutralVariant> neutral_variants(const KernelSourceInfo& kernel) {
  SiteOptions options;
  options.neutral = true;
  SiteResult found = find_sites(kernel, options);
  if (!found.parsed) throw ParseError(kernel.id, std::move(found.diagnostics));
  std::vector<NeutralVariant> out;
  for (const RuleInfo& rule : neutral_rule_catalog()) {
    std::vector<const Site*> sites;
    for (const Site& s : found.sites)
      if (s.rule == rule.id) sites.push_back(&s);
    // Outermost first; a site inside one already taken is skipped (its text is part of the
    // outer replacement's operands, rewritten once is enough for a variant).
    std::stable_sort(sites.begin(), sites.end(), [](const Site* a, const Site* b) {
      return a->begin != b->begin ? a->begin < b->begin : a->end > b->end;
    });
    std::vector<const Site*> taken;
    for (const Site* s : sites)
      if (taken.empty() || s->begin >= taken.back()->end) taken.push_back(s);
    if (taken.empty()) continue;
    NeutralVariant v{kernel.id + "~" + rule.id, kernel.id, rule.id, taken.size(), kernel.source};
    for (auto it = taken.rbegin(); it != taken.rend(); ++it) v.source = apply_site(v.source, **it);
    out.push_back(std::move(v));
  }
  return out;
}

MutationRun generate_mutants(const std::vector<KernelSourceInfo>& kernels,
                             const SiteOptions& options) {
  MutationRun run;
  for (const KernelSourceInfo& k : kernels) {
    try {
      std::vector<Mutant> mutants = generate_mutants(k, options);
      run.mutants.insert(run.mutants.end(), std::make_move_iterator(mutants.begin()),
                         std::make_move_iterator(mutants.end()));
    } catch (const ParseError& e) {
      run.failures.push_back(KernelFailure{k.id, k.file, e.diagnostics()});
    }
  }
  return run;
}

nlohmann::json to_json(const Mutant& m) {
  const Site& s = m.site;
  const std::string range = std::to_string(s.begin_pos.line) + ":" +
                            std::to_string(s.begin_pos.column) + "-" +
                            std::to_string(s.end_pos.line) + ":" + std::to_string(s.end_pos.column);
  return nlohmann::json{{"id", m.id},
                        {"kernel", m.kernel},
                        {"rule", s.rule},
                        {"family", std::string(family_name(s.family))},
                        {"file", s.file},
                        {"begin", s.begin},
                        {"end", s.end},
                        {"range", range},
                        {"original", s.original},
                        {"replacement", s.replacement}};
}

}  // namespace kaudit::mutators
