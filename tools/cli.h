// Subcommands of the kaudit CLI. Each returns the process exit code.
#pragma once
#include <string>
#include <vector>

namespace kaudit::cli {
int worker_command(const std::vector<std::string>& args);
int verify_command(const std::vector<std::string>& args);
}  // namespace kaudit::cli
