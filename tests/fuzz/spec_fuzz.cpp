// Oracle specs and suites (oracle/spec.h): parse_spec answers any text with a spec or a SpecError.
#include <cstdint>
#include <string>

#include "oracle/spec.h"
#include "tests/fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const auto spec = kaudit::oracle::parse_spec(text, "fuzz.json");
    (void)kaudit::oracle::spec_to_json(spec);
  } catch (const kaudit::oracle::SpecError&) {
  } catch (const std::exception& e) {
    kaudit::fuzz::unexpected("parse_spec", e.what());
  }
  return 0;
}
