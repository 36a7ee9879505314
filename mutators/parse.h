// Internal: parsing one kernel .cu with Clang LibTooling (see parse.cpp for the why of the flags).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <clang/AST/ASTContext.h>

#include "mutators/mutators.h"

namespace kaudit::mutators::detail {

// The clang command line used for a kernel whose in-memory path is `main_file`.
std::vector<std::string> parse_command_line(const std::string& main_file);

// Parses `kernel`. On success (no error diagnostics) calls `on_ast` while the AST is alive and
// returns true; otherwise fills `diagnostics` (errors only, in clang's order) and returns false.
bool parse_kernel(const KernelSourceInfo& kernel,
                  const std::function<void(clang::ASTContext&)>& on_ast,
                  std::vector<ParseDiagnostic>& diagnostics);

}  // namespace kaudit::mutators::detail
