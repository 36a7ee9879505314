// kaudit::mutators -- the mutation pipeline: generate every mutant of a set of kernels, compile
// originals and mutants with NVRTC, and classify each mutant by its image (what `kaudit mutate`
// runs, and the first stage of `kaudit audit`).
//
//   MutationPipeline result = run_mutation_pipeline(kernels, nvrtc);
//   result.mutants   one record per (rule, site), kernels in input order, sites in source order
//   result.counts()  the reference study's pipeline table: generated, stillborn, duplicate,
//                    equivalent, distinct (in total, per family, per rule)
//
// Classification is per kernel (dedup.h): a mutant is equivalent when its image equals its own
// kernel's original image, a duplicate when it equals an earlier mutant *of the same kernel*
// (mutants of different kernels are different faults even if their images happen to match).
// Host-side mutants are classified by the same image comparison: the host wrapper is compiled
// into the image (mutators/compile/nvrtc.h, "The image").
//
// Bad input never stops the run: a kernel clang cannot parse is listed in parse_failures with
// its diagnostics; a kernel whose original text NVRTC rejects is listed in compile_failures
// (its mutants are kept, status "unknown": without an original image nothing can be said about
// them). Without NVRTC every mutant is "unknown".
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "mutators/compile/dedup.h"
#include "mutators/compile/nvrtc.h"
#include "mutators/mutators.h"

namespace kaudit::mutators {

struct MutantRecord {
  Mutant mutant;                 // id, kernel, site, full mutated source
  ImageClass status = ImageClass::Unknown;
  std::string duplicate_of;      // Duplicate only: the id of the first mutant with this image
  std::string image_sha256;      // empty unless the mutant compiled
  std::string first_diagnostic;  // Stillborn only
};

struct OriginalCompileFailure {
  std::string kernel;
  std::string file;
  std::string diagnostic;  // NVRTC's first diagnostic
};

struct PipelineCounts {
  DedupCounts total;
  std::map<Family, DedupCounts> per_family;      // every family, even with zero mutants
  std::map<std::string, DedupCounts> per_rule;   // rules with at least one mutant
};

struct MutationPipeline {
  std::size_t kernels = 0;                        // kernels given
  std::vector<MutantRecord> mutants;
  std::vector<KernelFailure> parse_failures;      // kernels clang could not parse (skipped)
  std::vector<OriginalCompileFailure> compile_failures;  // originals NVRTC rejected
  std::map<std::string, std::string> original_images;    // kernel id -> original image hash
  std::string nvrtc_version;                      // empty when NVRTC is unavailable
  double generate_seconds = 0;
  double compile_seconds = 0;
  std::size_t compile_cache_hits = 0;

  PipelineCounts counts() const;
};

struct PipelineOptions {
  SiteOptions sites;             // which rules (default: the whole catalog)
  CompileAllOptions compile;     // NVRTC parallelism
  // Called from the calling thread between stages: ("generate"|"compile", done, total).
  std::function<void(std::string_view stage, std::size_t done, std::size_t total)> progress;
};

MutationPipeline run_mutation_pipeline(const std::vector<KernelSourceInfo>& kernels,
                                       const NvrtcCompiler& nvrtc,
                                       const PipelineOptions& options = {});

// One line of mutants.jsonl (keys sorted, no source text): to_json(mutant) plus "status",
// "image" (hash or null), "duplicate_of" (duplicates), "diagnostic" (stillborn), and
// "schema_begin"/"schema_end" (the range a schema switches: switchable_edit; mutant_set.h reads it).
nlohmann::json to_json(const MutantRecord& record);
// The reverse, for one line of mutants.jsonl: the record without its source text (mutant.source
// is left empty; mutant_set.h rebuilds it from the corpus and checks the edit against it).
// Throws std::invalid_argument saying which field is wrong, or nlohmann::json::exception for a
// field of another type.
MutantRecord mutant_record_from_json(const nlohmann::json& j);

// mutants.jsonl: one to_json(record) line per mutant, in pipeline order.
std::string mutants_jsonl(const MutationPipeline& pipeline);

// {"generated","stillborn","duplicate","equivalent","distinct","unknown"}.
nlohmann::json to_json(const DedupCounts& counts);
// The numbers of `kaudit mutate --json`: the DedupCounts keys at top level, plus "per_family",
// "per_rule", "kernels", "parse_failures", "compile_failures", "nvrtc".
nlohmann::json pipeline_summary_json(const MutationPipeline& pipeline);
// The text table: one row per family and a total row.
std::string pipeline_table(const MutationPipeline& pipeline);

// A mutant as an edit a CPU schema can switch (runtime/cpu/schema.h): the range widened to the
// site's whole expression (Site::schema_begin/end) and the replacement text of that range.
struct SwitchableEdit {
  std::size_t begin = 0, end = 0;
  std::string replacement;
};
SwitchableEdit switchable_edit(std::string_view source, const Site& site);

// A unified diff (3 lines of context) of one contiguous edit, headed by `a/<file>` / `b/<file>`.
std::string unified_diff(std::string_view original, const Site& site);

}  // namespace kaudit::mutators
