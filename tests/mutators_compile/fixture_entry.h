// The host entry of an idiom fixture (tests/mutators_compile/fixtures), for the tests that build
// the fixtures with each of kaudit's CUDA models: cuda_models_test.cpp (the Clang parse, NVRTC, the
// CPU build) and tests/runtime/gpu_test.cpp (nvcc against the machine's libtorch).
#pragma once

#include <regex>
#include <sstream>
#include <string>

namespace kaudit::mutators::testing {

// The host entry the CPU build exports: the last function defined at the start of a line that is
// not a kernel, a device function or the pybind11 module (the wrapper a binding would name).
inline std::string entry_of(const std::string& source) {
  static const std::regex definition(R"(^[A-Za-z_][\w:<>, ]*[\s*&]+(\w+)\s*\()");
  std::string name, line;
  std::istringstream in(source);
  while (std::getline(in, line)) {
    std::smatch m;
    if (line.find("__global__") != std::string::npos || line.find("__device__") != std::string::npos ||
        line.rfind("PYBIND11_MODULE", 0) == 0 || line.rfind("template", 0) == 0 || line.rfind("return", 0) == 0)
      continue;
    if (std::regex_search(line, m, definition)) name = m[1];
  }
  return name;
}

}  // namespace kaudit::mutators::testing
