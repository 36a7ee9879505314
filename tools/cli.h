// Subcommands of the kaudit CLI. Each returns the process exit code.
#pragma once
#include <string>
#include <vector>

#include "oracle/spec.h"

namespace kaudit::cli {
int worker_command(const std::vector<std::string>& args);
int verify_command(const std::vector<std::string>& args);
int check_command(const std::vector<std::string>& args);
int rules_command(const std::vector<std::string>& args);
int mutate_command(const std::vector<std::string>& args);
int audit_command(const std::vector<std::string>& args);
int cover_command(const std::vector<std::string>& args);
int diff_command(const std::vector<std::string>& args);
int report_command(const std::vector<std::string>& args);
int merge_command(const std::vector<std::string>& args);
int sweep_command(const std::vector<std::string>& args);
int export_command(const std::vector<std::string>& args);
int import_command(const std::vector<std::string>& args);
int gpu_bundle_command(const std::vector<std::string>& args);
int export_mutants_command(const std::vector<std::string>& args);
// `kaudit audit --from RUN --solutions DIR --oracle-command CMD` (tools/cmd_audit_command.cpp).
int command_oracle_audit(const std::vector<std::string>& args);
// Oracle specs by built-in name (suites/NAME.json) or file path; all built-ins when empty.
std::vector<oracle::OracleSpec> resolve_oracles(const std::vector<std::string>& names);
}  // namespace kaudit::cli
