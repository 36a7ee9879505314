#include "mutators/cuda_model/cuda_model.h"

#include <algorithm>
#include <set>
#include <sstream>

namespace kaudit::cuda_model {

namespace detail {
extern const std::string_view kManifestText;  // manifest_embed.cpp (generated)
}

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

// The first word of `s` (up to a blank), and `s` after it.
std::string_view take_word(std::string_view& s) {
  s = trim(s);
  std::size_t e = 0;
  while (e < s.size() && s[e] != ' ' && s[e] != '\t') ++e;
  const std::string_view w = s.substr(0, e);
  s = trim(s.substr(e));
  return w;
}

// What every probe includes: the headers KernelBench solutions start with, and the device headers
// whose idioms the probes use.
constexpr const char* kProbeHeaders[] = {
    "torch/extension.h", "cuda_runtime.h",       "cuda_fp16.h",         "cuda_bf16.h",
    "cooperative_groups.h", "cooperative_groups/reduce.h", "ATen/cuda/CUDAContext.h", "c10/cuda/CUDAGuard.h",
    "c10/cuda/CUDAException.h", "math_constants.h", "cfloat",          "cmath",
    "cstdint",           "vector",               "cassert",             "limits",
    "algorithm",         "stdexcept",           "ATen/AccumulateType.h", "ATen/NumericUtils.h",
    "ATen/ceil_div.h",   "ATen/cuda/NumericLimits.cuh", "climits",            "cstddef",
};

std::string kernel_text(const std::vector<std::string>& headers, std::string_view device_body,
                        std::string_view host_body) {
  std::ostringstream os;
  for (const auto& h : headers) os << "#include <" << h << ">\n";
  os << "\n__global__ void probe_kernel(float* out, const float* in, int n) {\n"
     << "  " << device_body << "\n}\n\n"
     << "torch::Tensor probe_forward(torch::Tensor x) {\n"
     << "  auto out = torch::empty_like(x);\n"
     << "  " << host_body << "\n"
     << "  probe_kernel<<<1, 64, 256>>>(out.data_ptr<float>(), x.data_ptr<float>(), static_cast<int>(x.numel()));\n"
     << "  return out;\n}\n\n"
     << "PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def(\"forward\", &probe_forward, \"probe\"); }\n";
  return os.str();
}

constexpr std::string_view kPlainBody = "if (threadIdx.x < n) out[threadIdx.x] = in[threadIdx.x];";

}  // namespace

std::string_view manifest_text() { return detail::kManifestText; }

const Manifest& manifest() {
  static const Manifest m = parse_manifest(detail::kManifestText, "mutators/cuda_model/manifest.txt");
  return m;
}

Manifest parse_manifest(std::string_view text, std::string_view origin) {
  Manifest m;
  std::set<std::string> headers, probes;
  std::size_t line_no = 0;
  while (!text.empty()) {
    const std::size_t nl = text.find('\n');
    std::string_view line = trim(text.substr(0, nl));
    text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
    ++line_no;
    if (line.empty() || line.front() == '#') continue;
    const std::string where = std::string(origin) + ":" + std::to_string(line_no) + ": ";
    const std::string_view what = take_word(line);
    if (what == "header") {
      const std::string_view kind = take_word(line);
      const std::string name(take_word(line));
      Header h{name, HeaderKind::Std};
      if (kind == "std") h.kind = HeaderKind::Std;
      else if (kind == "host") h.kind = HeaderKind::Host;
      else if (kind == "device") h.kind = HeaderKind::Device;
      else throw ManifestError(where + "header kind '" + std::string(kind) + "': write std, host or device");
      if (name.empty() || !line.empty())
        throw ManifestError(where + "write `header KIND NAME`, one header per line");
      if (!headers.insert(name).second) throw ManifestError(where + "header " + name + " is listed twice");
      m.headers.push_back(std::move(h));
    } else if (what == "probe") {
      const std::string_view where_runs = take_word(line);
      if (where_runs != "device" && where_runs != "host")
        throw ManifestError(where + "probe '" + std::string(where_runs) + "': write `probe device|host NAME: CODE`");
      // ": " ends the name (code may hold `::` but a name holds no colon).
      const std::size_t colon = line.find(": ");
      if (colon == std::string_view::npos || trim(line.substr(0, colon)).empty() || trim(line.substr(colon + 2)).empty() ||
          line.substr(0, colon).find(':') != std::string_view::npos)
        throw ManifestError(where + "write `probe " + std::string(where_runs) + " NAME: CODE`");
      Probe p{std::string(trim(line.substr(0, colon))), where_runs == "host", std::string(trim(line.substr(colon + 2)))};
      if (!probes.insert(p.name).second) throw ManifestError(where + "probe " + p.name + " is named twice");
      m.probes.push_back(std::move(p));
    } else {
      throw ManifestError(where + "'" + std::string(what) + "': a line is `header KIND NAME`, `probe device|host NAME: CODE` or a # comment");
    }
  }
  return m;
}

std::string probe_source(const Probe& probe) {
  const std::vector<std::string> headers(std::begin(kProbeHeaders), std::end(kProbeHeaders));
  return probe.host ? kernel_text(headers, kPlainBody, probe.code) : kernel_text(headers, probe.code, "");
}

std::string header_source(const std::vector<std::string>& headers) {
  std::vector<std::string> all = headers;
  // The minimal wrapper needs torch's declarations: <torch/extension.h> follows the headers
  // (after them, so each is tried as the first include) unless they hold it.
  if (std::find(all.begin(), all.end(), "torch/extension.h") == all.end()) all.push_back("torch/extension.h");
  return kernel_text(all, kPlainBody, "");
}

}  // namespace kaudit::cuda_model
