// Cache records (common/cache.h): read_record answers any file with its body or nullopt (a
// damaged record is reported and removed), and never throws.
#include <cstdint>

#include "common/cache.h"
#include "tests/fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto path = kaudit::fuzz::scratch() / "record.json";
  kaudit::fuzz::write(path, data, size);
  try {
    (void)kaudit::cache::read_record(path);
  } catch (const std::exception& e) {
    kaudit::fuzz::unexpected("read_record", e.what());
  }
  return 0;
}
