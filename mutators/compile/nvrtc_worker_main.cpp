// kaudit_nvrtc_worker: a compile_all() worker process (see nvrtc_wire.h for the protocol).
// NVRTC 13.0 runs one compile at a time per process, and a process forked after NVRTC was used
// compiles several times slower, so compile_all() spawns fresh processes of this program. Each
// confines itself before its first compile (confine_nvrtc_worker).
#include <unistd.h>

#include <cstdio>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/sandbox.h"
#include "mutators/compile/nvrtc.h"
#include "mutators/compile/nvrtc_wire.h"

namespace wire = kaudit::mutators::nvrtc_wire;

int main() {
  std::string config_text, cache_dir;
  if (!wire::read_frame(0, config_text) || !wire::read_frame(0, cache_dir)) return 2;
  const nlohmann::json config = nlohmann::json::parse(config_text, nullptr, false);
  if (!config.is_object()) return 2;
  kaudit::mutators::NvrtcOptions options;
  options.host_code_in_image = config.value("host_code_in_image", true);
  options.extra_options = config.value("extra_options", std::vector<std::string>{});
  const kaudit::mutators::NvrtcCompiler compiler(cache_dir, options);  // makes the cache folder
  // From here on this process reads only the system's and the toolkit's folders and writes only
  // the cache: the sources it compiles are untrusted text (issue 21, item 3).
  if (const std::string why = kaudit::mutators::confine_nvrtc_worker(cache_dir); !why.empty()) {
    std::fprintf(stderr, "kaudit_nvrtc_worker: cannot confine this worker, so it compiles nothing: %s\n", why.c_str());
    return kaudit::sandbox::kConfineFailedExitCode;
  }

  nlohmann::json hello;
  hello["key"] = compiler.cache_key("");
  hello["available"] = compiler.available();
  if (!wire::write_frame(1, hello.dump())) return 3;

  std::string job_text, source;
  while (wire::read_frame(0, job_text) && wire::read_frame(0, source)) {
    const nlohmann::json job = nlohmann::json::parse(job_text, nullptr, false);
    if (!job.is_object() || !job.contains("i")) return 2;
    const auto index = job["i"].get<std::size_t>();
    const auto result = compiler.compile(source, job.value("name", std::string("kernel.cu")));
    if (!wire::write_frame(1, wire::encode_result(index, result))) return 3;
  }
  return 0;
}
