// kaudit::mutators -- the mutation engine: a catalog of fault-planting rules run as Clang
// LibTooling AST matchers over a kernel's .cu text, and the mutants they produce.
//
//   find_sites(kernel)        -> every place a rule can rewrite the kernel (no mutant text yet)
//   generate_mutants(kernel)  -> one Mutant per (rule, site): id, location, full mutated source
//   rule_catalog()/rules_json()/rules_table() -> what `kaudit rules [--json]` prints
//
// Everything here is deterministic: the same kernel text gives the same sites, in the same order
// (source offset, then rule id, then end offset, then replacement), and the same mutant ids on
// every machine. See docs in mutators/README.md for the rule format and the scopes.
//
// The engine needs Clang LibTooling. A kaudit configured without it (KAUDIT_WITH_CLANG) still has
// this whole interface: the names, ids, records and types work; find_sites(), rule_catalog() and
// what is built on them throw ClangUnavailable.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace kaudit::mutators {

// False in a kaudit built without Clang LibTooling: find_sites, generate_mutants,
// neutral_variants, rule_catalog, neutral_rule_catalog, find_rule, rules_json and rules_table
// then throw ClangUnavailable (one line of text saying so).
bool clang_available();
class ClangUnavailable : public std::runtime_error {
 public:
  ClangUnavailable();
};

// The six fault families of the reference study plus the planted reward hacks.
enum class Family {
  Arithmetic,
  Indexing,
  Semantic,
  Boundary,
  Synchronization,
  Precision,
  RewardHack,
  // Not a fault: rewrites a correct kernel may legitimately differ by (rounding order, block
  // size). Never in kAllFamilies, never a mutant; see neutral_variants().
  Neutral,
};
inline constexpr std::array<Family, 7> kAllFamilies = {
    Family::Arithmetic, Family::Indexing,  Family::Semantic,   Family::Boundary,
    Family::Synchronization, Family::Precision, Family::RewardHack,
};
// "arithmetic", "indexing", "semantic", "boundary", "synchronization", "precision", "reward-hack",
// "neutral".
std::string_view family_name(Family family);
std::optional<Family> family_from_name(std::string_view name);

// Where in a kernel file a rule may rewrite code (a rule has one or more of these).
//   device: the body of a __global__ or __device__ function;
//   launch: host code that computes a launch: the <<<grid, block, smem>>> configuration, the
//           kernel arguments, and the initialisers/assignments of the local variables they are
//           computed from (transitively);
//   host:   anywhere in a host function (used by rules whose matcher already pins the spot,
//           e.g. removing the launch statement).
enum Scope : unsigned {
  kScopeDevice = 1u << 0,
  kScopeLaunch = 1u << 1,
  kScopeHost = 1u << 2,
};
std::string scope_names(unsigned scopes);  // e.g. "device|launch"

struct RuleInfo {
  std::string id;           // stable, kebab-case, unique
  Family family;
  std::string description;  // one line
  unsigned scopes = 0;      // Scope bits
};
// Every rule, sorted by (family in kAllFamilies order, id).
const std::vector<RuleInfo>& rule_catalog();
const RuleInfo* find_rule(std::string_view id);
// Whether a rule's mutants keep state between calls of the entry (hack-cache-by-input-address):
// their verdict depends on what ran before them in the same process. Known without Clang.
bool rule_keeps_state(std::string_view id);
// `kaudit rules --json`: [{"id", "family", "description", "scope"}...] in catalog order.
nlohmann::json rules_json();
// `kaudit rules`: an aligned text table, one rule per line, with a per-family count at the end.
std::string rules_table();

// One kernel source to mutate.
struct KernelSourceInfo {
  std::string id;      // display id, e.g. "softmax/softmax_block_smem"
  std::string file;    // the path used in diagnostics and in sites, e.g. "corpus/kernels/x/y.cu"
  std::string source;  // the .cu text
};
// Reads a .cu file; id defaults to "<parent dir>/<stem>". Throws std::runtime_error if unreadable.
KernelSourceInfo read_kernel_source(const std::string& path, std::string id = {});

// 1-based line and column; columns count bytes.
struct SourcePos {
  int line = 0;
  int column = 0;
  bool operator==(const SourcePos&) const = default;
};

// A place where a rule rewrites the kernel: replace source[begin, end) by `replacement`.
// `end_pos` is the position just past the last replaced byte (begin == end is an insertion).
struct Site {
  std::string rule;
  Family family = Family::Arithmetic;
  std::string file;
  std::size_t begin = 0;
  std::size_t end = 0;
  SourcePos begin_pos;
  SourcePos end_pos;
  std::string original;
  std::string replacement;
  // A whole expression around the edit that a runtime switch can wrap (CPU schemata,
  // runtime/cpu/schema.h): the rule's matched expression when the edit lies inside it (`a * b` for
  // the `*` -> `/` of arith-mul-to-div, `blockIdx.x` for its `x` -> `y`), else the edit's own
  // range. Not part of the mutant's identity or of mutants.jsonl.
  std::size_t schema_begin = 0;
  std::size_t schema_end = 0;
  bool operator==(const Site&) const = default;
};

// A compiler diagnostic from parsing a kernel ("file:line:col: error: message").
struct ParseDiagnostic {
  std::string file;
  int line = 0;
  int column = 0;
  std::string severity;  // "error" | "fatal error" | "warning"
  std::string message;
  std::string to_string() const;
};

struct SiteOptions {
  std::vector<std::string> rules;  // only these rule ids; empty = the whole catalog
  bool neutral = false;            // select from the neutral rules instead of the catalog
};
struct SiteResult {
  bool parsed = false;                          // false: no sites, see diagnostics
  std::vector<Site> sites;                      // sorted: begin, rule, end, replacement
  std::vector<ParseDiagnostic> diagnostics;     // errors (and warnings) from clang
};
// Parses the kernel as CUDA (see parse.cpp for the flags) and runs the rules. Never throws for a
// kernel that does not parse; throws std::invalid_argument for an unknown rule id in options.
SiteResult find_sites(const KernelSourceInfo& kernel, const SiteOptions& options = {});

struct Mutant {
  std::string id;      // 16 hex chars, see mutant_id()
  std::string kernel;  // KernelSourceInfo::id
  Site site;
  std::string source;  // the full mutated .cu text
};

// First 16 hex chars of SHA-256 over the length-prefixed fields
//   "kaudit-mutant-v1", content, rule, decimal begin, decimal end, replacement
// each written as "<decimal byte length>:<bytes>\n".
std::string mutant_id(std::string_view content, std::string_view rule, std::size_t begin,
                      std::size_t end, std::string_view replacement);
// source with source[site.begin, site.end) replaced by site.replacement.
std::string apply_site(std::string_view source, const Site& site);

// Thrown by generate_mutants(kernel) for a kernel that does not parse.
class ParseError : public std::runtime_error {
 public:
  ParseError(std::string kernel, std::vector<ParseDiagnostic> diagnostics);
  const std::string& kernel() const { return kernel_; }
  const std::vector<ParseDiagnostic>& diagnostics() const { return diagnostics_; }

 private:
  std::string kernel_;
  std::vector<ParseDiagnostic> diagnostics_;
};

// One mutant per (rule, site), in site order. Throws ParseError if the kernel does not parse.
std::vector<Mutant> generate_mutants(const KernelSourceInfo& kernel,
                                     const SiteOptions& options = {});

struct KernelFailure {
  std::string kernel;  // KernelSourceInfo::id
  std::string file;
  std::vector<ParseDiagnostic> diagnostics;
};
struct MutationRun {
  std::vector<Mutant> mutants;           // kernels in input order, each in site order
  std::vector<KernelFailure> failures;   // kernels that did not parse (the others still mutate)
};
MutationRun generate_mutants(const std::vector<KernelSourceInfo>& kernels,
                             const SiteOptions& options = {});

// The neutral rules (Family::Neutral), sorted by id: not part of rule_catalog().
const std::vector<RuleInfo>& neutral_rule_catalog();

// A correct kernel rewritten by one neutral rule at every one of its sites (outermost first,
// overlapping sites skipped): what another correct implementation could have written. Used by the
// audit's legality gate as a member of the correct set; never scored.
struct NeutralVariant {
  std::string id;      // "<kernel>~<rule>"
  std::string kernel;  // KernelSourceInfo::id
  std::string rule;
  std::size_t sites = 0;
  std::string source;
};
// One variant per neutral rule with at least one site, in neutral_rule_catalog() order. Throws
// ParseError if the kernel does not parse.
std::vector<NeutralVariant> neutral_variants(const KernelSourceInfo& kernel);

// A mutant as a JSON record (everything but the mutated source):
// {"id","kernel","rule","family","file","begin","end","range":"l:c-l:c","original","replacement"}
nlohmann::json to_json(const Mutant& mutant);

}  // namespace kaudit::mutators
