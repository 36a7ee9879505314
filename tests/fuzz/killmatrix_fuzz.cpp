// A finished audit folder as `kaudit diff` reads it (reports/diff.h, side_from_directory): the
// input is split at its first NUL byte into summary.json and kill-matrix.jsonl. Any bytes give a
// side or a std::runtime_error naming the file (and line); never another exception, a crash or a
// hang.
#include <cstdint>
#include <cstring>
#include <stdexcept>

#include "reports/diff.h"
#include "tests/fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto dir = kaudit::fuzz::scratch() / "audit";
  std::filesystem::create_directories(dir);
  const auto* cut = static_cast<const std::uint8_t*>(std::memchr(data, 0, size));
  const std::size_t summary_size = cut ? static_cast<std::size_t>(cut - data) : size;
  kaudit::fuzz::write(dir / "summary.json", data, summary_size);
  const std::size_t rest = cut ? size - summary_size - 1 : 0;
  kaudit::fuzz::write(dir / "kill-matrix.jsonl", cut ? cut + 1 : data, rest);
  for (const char* oracle : {"", "kernelbench"}) {
    try {
      (void)kaudit::regress::side_from_directory(dir, oracle, "fuzz");
    } catch (const std::runtime_error&) {
      // the documented error
    } catch (const std::exception& e) {
      kaudit::fuzz::unexpected("side_from_directory", e.what());
    }
  }
  return 0;
}
