// audit/spill.h: pool tensors kept in unlinked files once over a memory budget.
#include "audit/spill.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

namespace {

namespace fs = std::filesystem;

fs::path fresh_dir(const std::string& name) {
  const fs::path d = fs::temp_directory_path() / ("kaudit_spill_test_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

TEST(Spill, AFileBackedCopyHasTheSameValuesAndLeavesNoFile) {
  const fs::path dir = fresh_dir("copy");
  const at::Tensor t = at::arange(0, 3 * 5 * 7, at::kDouble).reshape({3, 5, 7}).transpose(0, 2);  // not contiguous
  const at::Tensor s = kaudit::audit::spill_to_file(t, dir);
  EXPECT_TRUE(s.is_contiguous());
  EXPECT_EQ(s.scalar_type(), at::kDouble);
  EXPECT_EQ(s.sizes(), t.sizes());
  EXPECT_TRUE(at::equal(s, t));
  EXPECT_TRUE(fs::is_empty(dir));  // unlinked at once: nothing to clean up
  const at::Tensor h = kaudit::audit::spill_to_file(at::ones({4}, at::kHalf), dir);
  EXPECT_EQ(h.scalar_type(), at::kHalf);
  EXPECT_TRUE(at::equal(h, at::ones({4}, at::kHalf)));
  fs::remove_all(dir);
}

TEST(Spill, AMissingFolderIsAnErrorNamingIt) {
  const fs::path dir = fs::temp_directory_path() / "kaudit_spill_test_no_such_folder";
  fs::remove_all(dir);
  try {
    (void)kaudit::audit::spill_to_file(at::ones({8}), dir);
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(dir.string()), std::string::npos) << e.what();
  }
}

TEST(Spill, TheBudgetKeepsTheFirstTensorsInMemoryAndFilesTheRest) {
  const fs::path dir = fresh_dir("budget");
  kaudit::audit::PoolMemory memory(100, dir);  // bytes
  const at::Tensor a = at::ones({20});            // 80 bytes: fits
  const at::Tensor b = at::full({10}, 2.0);       // 40 more: over
  const at::Tensor ka = memory.keep(a), kb = memory.keep(b);
  EXPECT_TRUE(ka.is_same(a));  // the same tensor, not a copy
  EXPECT_FALSE(kb.is_same(b));
  EXPECT_TRUE(at::equal(kb, b));
  EXPECT_EQ(memory.in_memory_bytes(), 80u);
  EXPECT_EQ(memory.spilled_bytes(), 40u);
  EXPECT_GT(kaudit::audit::default_pool_memory_bytes(), 0u);
  fs::remove_all(dir);
}

}  // namespace
