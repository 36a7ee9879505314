// A mutant set: the mutate stage's output as files, so an audit can run where the Clang rule
// engine is not (the GPU machine has no Clang 19: issue 20, item 4). `kaudit mutate --out DIR`
// writes it; `kaudit audit --mutants DIR` reads it instead of generating mutants.
//
//   DIR/mutants.jsonl   one line per mutant (pipeline.h, to_json(MutantRecord)): the edit, its
//                       switchable range (schema_begin, schema_end) and the NVRTC image class
//   DIR/kernels.jsonl   one line per kernel given to the mutate stage: its id, file, the SHA-256
//                       of its text, and its neutral variants (mutators.h, neutral_variants) with
//                       their whole sources, or why there are none
//
// The set holds no kernel text: the reader takes the corpus's kernels and rebuilds each mutant's
// source from its edit. Every mutant id is content-addressed over the kernel text (mutant_id), so
// a set made from another version of a kernel is caught (its digest, and every id, differ) and
// refused with the file, the line and the fix; so is any line that is not a record of this shape.
#pragma once
#include <filesystem>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "mutators/pipeline/pipeline.h"

namespace kaudit::mutators {

struct MutantSet {
  MutationPipeline pipeline;                                    // records with rebuilt sources
  std::vector<std::string> kernels;                             // ids, in the set's order
  std::map<std::string, std::vector<NeutralVariant>> neutral;   // by kernel id
  std::map<std::string, std::string> neutral_error;             // kernel id -> why it has none
};

class MutantSetError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// kernels.jsonl's text: one line per kernel of `kernels`, with the neutral variants of
// `neutral` (a kernel without an entry there: `neutral_error` says why, or it has none).
std::string kernels_jsonl(const std::vector<KernelSourceInfo>& kernels,
                          const std::map<std::string, std::vector<NeutralVariant>>& neutral,
                          const std::map<std::string, std::string>& neutral_error);

// Reads DIR's mutant set against the corpus kernels `kernels` (every kernel of the set must be
// among them, with the same text). Throws MutantSetError naming the file, the line and the fix.
MutantSet read_mutant_set(const std::filesystem::path& dir, const std::vector<KernelSourceInfo>& kernels);

}  // namespace kaudit::mutators
