// classify_images on hand-made inputs (no NVRTC needed).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "mutators/compile/dedup.h"

namespace kaudit::mutators {
namespace {

CompileResult ok(const std::string& image) {
  CompileResult r;
  r.status = CompileResult::Ok;
  r.image_sha256 = image;
  return r;
}
CompileResult failed(const std::string& diag) {
  CompileResult r;
  r.status = CompileResult::Failed;
  r.first_diagnostic = diag;
  return r;
}
CompileResult unavailable() {
  CompileResult r;
  r.status = CompileResult::Unavailable;
  r.first_diagnostic = "NVRTC unavailable";
  return r;
}

TEST(Dedup, ClassifiesEveryKind) {
  const std::string orig(64, 'a');
  const std::string x(64, 'b'), y(64, 'c');
  std::vector<CompileResult> mutants = {
      ok(x),                                 // 0 distinct
      failed("k.cu:12: error: expected ;"),  // 1 stillborn
      ok(orig),                              // 2 equivalent
      ok(x),                                 // 3 duplicate of 0
      ok(y),                                 // 4 distinct
      ok(orig),                              // 5 equivalent (never "duplicate of 2")
      ok(y),                                 // 6 duplicate of 4
      ok(x),                                 // 7 duplicate of 0 (the first, not 3)
      unavailable(),                         // 8 unknown
  };
  auto c = classify_images(orig, mutants);
  ASSERT_EQ(c.size(), mutants.size());
  EXPECT_EQ(c[0].kind, ImageClass::Distinct);
  EXPECT_EQ(c[1].kind, ImageClass::Stillborn);
  EXPECT_EQ(c[1].first_diagnostic, "k.cu:12: error: expected ;");
  EXPECT_EQ(c[2].kind, ImageClass::Equivalent);
  EXPECT_EQ(c[3].kind, ImageClass::Duplicate);
  EXPECT_EQ(c[3].duplicate_of, 0u);
  EXPECT_EQ(c[4].kind, ImageClass::Distinct);
  EXPECT_EQ(c[5].kind, ImageClass::Equivalent);
  EXPECT_EQ(c[6].kind, ImageClass::Duplicate);
  EXPECT_EQ(c[6].duplicate_of, 4u);
  EXPECT_EQ(c[7].kind, ImageClass::Duplicate);
  EXPECT_EQ(c[7].duplicate_of, 0u);
  EXPECT_EQ(c[8].kind, ImageClass::Unknown);
  for (size_t i : {0u, 2u, 4u, 5u}) EXPECT_EQ(c[i].duplicate_of, ImageClassification::kNone) << i;
  EXPECT_TRUE(c[0].first_diagnostic.empty());

  DedupCounts n = count_classes(c);
  EXPECT_EQ(n.generated, 9u);
  EXPECT_EQ(n.stillborn, 1u);
  EXPECT_EQ(n.equivalent, 2u);
  EXPECT_EQ(n.duplicate, 3u);
  EXPECT_EQ(n.distinct, 2u);
  EXPECT_EQ(n.unknown, 1u);
}

TEST(Dedup, OriginalWithoutImageMakesNothingEquivalent) {
  // A failed original has no image hash: nothing can equal it, duplicates still group.
  std::vector<CompileResult> mutants = {ok(std::string(64, 'b')), ok(std::string(64, 'b')),
                                        failed("x.cu:1: error: e")};
  auto c = classify_images("", mutants);
  EXPECT_EQ(c[0].kind, ImageClass::Distinct);
  EXPECT_EQ(c[1].kind, ImageClass::Duplicate);
  EXPECT_EQ(c[1].duplicate_of, 0u);
  EXPECT_EQ(c[2].kind, ImageClass::Stillborn);
}

TEST(Dedup, IsPureAndOrderDefinesTheRepresentative) {
  const std::string orig(64, '0'), x(64, '1');
  std::vector<CompileResult> a = {ok(x), ok(x), ok(x)};
  auto c1 = classify_images(orig, a);
  auto c2 = classify_images(orig, a);
  ASSERT_EQ(c1.size(), c2.size());
  for (size_t i = 0; i < c1.size(); ++i) {
    EXPECT_EQ(c1[i].kind, c2[i].kind);
    EXPECT_EQ(c1[i].duplicate_of, c2[i].duplicate_of);
  }
  EXPECT_EQ(c1[0].kind, ImageClass::Distinct);
  EXPECT_EQ(c1[2].duplicate_of, 0u);
}

TEST(Dedup, EmptyInputAndNames) {
  EXPECT_TRUE(classify_images(std::string(64, 'a'), {}).empty());
  EXPECT_EQ(count_classes({}).generated, 0u);
  EXPECT_EQ(image_class_name(ImageClass::Stillborn), "stillborn");
  EXPECT_EQ(image_class_name(ImageClass::Equivalent), "equivalent");
  EXPECT_EQ(image_class_name(ImageClass::Duplicate), "duplicate");
  EXPECT_EQ(image_class_name(ImageClass::Distinct), "distinct");
  EXPECT_EQ(image_class_name(ImageClass::Unknown), "unknown");
  EXPECT_STREQ(status_name(CompileResult::Ok), "ok");
  EXPECT_STREQ(status_name(CompileResult::Failed), "failed");
  EXPECT_STREQ(status_name(CompileResult::Unavailable), "unavailable");
}

}  // namespace
}  // namespace kaudit::mutators
