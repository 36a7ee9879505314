// Internal: where device code, host code and launch arithmetic are in a kernel file.
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

#include <clang/AST/ASTContext.h>

namespace kaudit::mutators::detail {

using OffsetRange = std::pair<std::size_t, std::size_t>;  // [begin, end) in the main file

struct ScopeMap {
  std::vector<OffsetRange> device;  // __global__ / __device__ function definitions
  std::vector<OffsetRange> host;    // host function definitions (incl. __host__ __device__)
  std::vector<OffsetRange> launch;  // launch configurations, kernel arguments, and the
                                    // initialisers/assignments of the locals they use
  // True if [begin, end) lies inside a range of one of the `scopes` (Scope bits).
  bool allows(unsigned scopes, std::size_t begin, std::size_t end) const;
};

ScopeMap compute_scopes(clang::ASTContext& context);

}  // namespace kaudit::mutators::detail
