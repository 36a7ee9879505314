// Kernel bindings (<name>.json next to <name>.cu, corpus/corpus.h): load_kernel answers any file
// with a kernel or diagnostics. The task and the .cu are fixed, valid ones.
#include <cstdint>

#include "corpus/corpus.h"
#include "tests/fuzz/fuzz_util.h"

namespace {
const kaudit::corpus::Task& task() {
  static const kaudit::corpus::Task t = [] {
    const auto dir = kaudit::fuzz::scratch() / "relu";
    std::filesystem::create_directories(dir);
    std::ofstream(dir / "problem.py") << "# fuzz\n";
    std::ofstream(dir / "task.json")
        << "{\"inputs\": [{\"name\": \"x\", \"dtype\": \"float32\", \"shape\": [\"B\", \"D\"]}],\n"
           " \"dims\": {\"B\": {\"min\": 1}, \"D\": {\"min\": 1}},\n"
           " \"presets\": {\"small\": {\"B\": 4, \"D\": 8}}, \"odd_shapes\": [{\"B\": 1, \"D\": 3}, {\"B\": 3, \"D\": 5}]}\n";
    std::vector<kaudit::corpus::Diagnostic> diags;
    auto loaded = kaudit::corpus::load_task(dir, diags);
    if (!loaded) kaudit::fuzz::unexpected("setup", "the fixed task does not load");
    std::ofstream(kaudit::fuzz::scratch() / "k.cu")
        << "#include <torch/extension.h>\n__global__ void relu_kernel(const float* x, float* y, int n) {}\n"
           "torch::Tensor relu_forward(torch::Tensor x, int64_t n) { return x; }\n";
    return *loaded;
  }();
  return t;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto& t = task();
  kaudit::fuzz::write(kaudit::fuzz::scratch() / "k.json", data, size);
  try {
    std::vector<kaudit::corpus::Diagnostic> diags;
    const auto k = kaudit::corpus::load_kernel(kaudit::fuzz::scratch() / "k.json", t, diags);
    if (k.has_value() != diags.empty()) kaudit::fuzz::unexpected("load_kernel", "a kernel together with diagnostics");
  } catch (const std::exception& e) {
    kaudit::fuzz::unexpected("load_kernel", e.what());
  }
  return 0;
}
