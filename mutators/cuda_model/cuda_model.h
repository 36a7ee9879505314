// kaudit::cuda_model -- the one list of what a kernel text may include and use (manifest.txt, in
// this folder, says why and how it is read). The Clang parse and NVRTC make their header stand-ins
// from it; the CPU build's stand-ins and all three preludes are checked against it by
// CudaModel.* (tests/mutators_compile/cuda_models_test.cpp).
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace kaudit::cuda_model {

// Who provides a header (manifest.txt, "KIND").
enum class HeaderKind {
  Std,     // the C or C++ standard library
  Host,    // torch, ATen, c10, pybind11, THC, the CUDA runtime's host headers
  Device,  // CUDA's device headers: NVRTC takes the toolkit's own
};

struct Header {
  std::string name;  // as in #include <name>
  HeaderKind kind;
};

// An idiom every model must accept: a kernel body (device) or a host wrapper body (host).
struct Probe {
  std::string name;
  bool host = false;
  std::string code;
};

struct Manifest {
  std::vector<Header> headers;
  std::vector<Probe> probes;
};

// A line of the manifest that is not `header KIND NAME` or `probe device|host NAME: CODE`, or a
// header or probe named twice: the message names the line and what it should be.
struct ManifestError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The manifest built into kaudit (manifest.txt at configure time), parsed once.
const Manifest& manifest();
std::string_view manifest_text();
// `origin` names the text in errors ("manifest.txt").
Manifest parse_manifest(std::string_view text, std::string_view origin);

// A whole kernel text for a probe: the headers every probe includes, a kernel `probe_kernel(float*
// out, const float* in, int n)` and a torch wrapper `probe_forward(torch::Tensor x)` that launches
// it, with the probe's code in the kernel's body or the wrapper's.
std::string probe_source(const Probe& probe);
// A whole kernel text that includes `headers` (each #include <...>) ahead of a minimal kernel and
// wrapper that use nothing from them.
std::string header_source(const std::vector<std::string>& headers);

}  // namespace kaudit::cuda_model
