// kaudit::mutators -- classify compiled mutants by their image (Trivial Compiler Equivalence).
//
// Given the original kernel's image hash and the compile results of its mutants in a
// deterministic order (the order of mutants.jsonl), each mutant is
//   stillborn     it did not compile (first_diagnostic kept);
//   equivalent    its image equals the original's;
//   duplicate     its image equals that of an earlier mutant in the list (duplicate_of = the index
//                 of the FIRST mutant with that image, which is itself distinct);
//   distinct      anything else;
//   unknown       NVRTC was unavailable, so nothing can be said.
// A mutant equal to the original is equivalent even when several are: "duplicate" is only ever
// used among non-equivalent images. If the original has no image (empty hash: it did not compile),
// no mutant is equivalent. Pure function: the same inputs give the same output.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "mutators/compile/nvrtc.h"

namespace kaudit::mutators {

enum class ImageClass { Stillborn, Equivalent, Duplicate, Distinct, Unknown };

// "stillborn", "equivalent", "duplicate", "distinct", "unknown".
std::string_view image_class_name(ImageClass c);

struct ImageClassification {
  static constexpr std::size_t kNone = static_cast<std::size_t>(-1);
  ImageClass kind = ImageClass::Unknown;
  std::size_t duplicate_of = kNone;  // Duplicate only: index into the mutant list
  std::string first_diagnostic;      // Stillborn only
};

std::vector<ImageClassification> classify_images(std::string_view original_image_sha256,
                                                 const std::vector<CompileResult>& mutants);

// The reference study's pipeline counts: generated = every mutant; the others partition it.
struct DedupCounts {
  std::size_t generated = 0;
  std::size_t stillborn = 0;
  std::size_t equivalent = 0;
  std::size_t duplicate = 0;
  std::size_t distinct = 0;
  std::size_t unknown = 0;
};
DedupCounts count_classes(const std::vector<ImageClassification>& classes);

}  // namespace kaudit::mutators
