// task.json (corpus/corpus.h): load_task answers any file with a task or diagnostics.
#include <cstdint>

#include "corpus/corpus.h"
#include "tests/fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto dir = kaudit::fuzz::scratch() / "t";
  static const bool made = [&] {
    std::filesystem::create_directories(dir);
    std::ofstream(dir / "problem.py") << "# fuzz\n";
    return true;
  }();
  (void)made;
  kaudit::fuzz::write(dir / "task.json", data, size);
  try {
    std::vector<kaudit::corpus::Diagnostic> diags;
    const auto task = kaudit::corpus::load_task(dir, diags);
    if (task.has_value() != diags.empty()) kaudit::fuzz::unexpected("load_task", "a task together with diagnostics");
  } catch (const std::exception& e) {
    kaudit::fuzz::unexpected("load_task", e.what());
  }
  return 0;
}
