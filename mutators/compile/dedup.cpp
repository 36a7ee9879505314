#include "mutators/compile/dedup.h"

#include <string>
#include <unordered_map>

namespace kaudit::mutators {

std::string_view image_class_name(ImageClass c) {
  switch (c) {
    case ImageClass::Stillborn: return "stillborn";
    case ImageClass::Equivalent: return "equivalent";
    case ImageClass::Duplicate: return "duplicate";
    case ImageClass::Distinct: return "distinct";
    case ImageClass::Unknown: return "unknown";
  }
  return "unknown";
}

std::vector<ImageClassification> classify_images(std::string_view original_image_sha256,
                                                 const std::vector<CompileResult>& mutants) {
  std::vector<ImageClassification> out(mutants.size());
  std::unordered_map<std::string, std::size_t> first_with_image;
  for (std::size_t i = 0; i < mutants.size(); ++i) {
    const CompileResult& m = mutants[i];
    ImageClassification& c = out[i];
    switch (m.status) {
      case CompileResult::Unavailable: c.kind = ImageClass::Unknown; continue;
      case CompileResult::Failed:
        c.kind = ImageClass::Stillborn;
        c.first_diagnostic = m.first_diagnostic;
        continue;
      case CompileResult::Ok: break;
    }
    if (!original_image_sha256.empty() && m.image_sha256 == original_image_sha256) {
      c.kind = ImageClass::Equivalent;
      continue;
    }
    auto [it, inserted] = first_with_image.emplace(m.image_sha256, i);
    if (inserted) {
      c.kind = ImageClass::Distinct;
    } else {
      c.kind = ImageClass::Duplicate;
      c.duplicate_of = it->second;
    }
  }
  return out;
}

DedupCounts count_classes(const std::vector<ImageClassification>& classes) {
  DedupCounts n;
  n.generated = classes.size();
  for (const ImageClassification& c : classes) {
    switch (c.kind) {
      case ImageClass::Stillborn: ++n.stillborn; break;
      case ImageClass::Equivalent: ++n.equivalent; break;
      case ImageClass::Duplicate: ++n.duplicate; break;
      case ImageClass::Distinct: ++n.distinct; break;
      case ImageClass::Unknown: ++n.unknown; break;
    }
  }
  return n;
}

}  // namespace kaudit::mutators
